#ifndef PROV_BUF_H
#define PROV_BUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * A growable string buffer with a hard cap (curl's dynbuf, git's strbuf).
 * `buf` is never NULL and always NUL-terminated; `len` excludes the NUL.
 * Strings from a core or a container are attacker-sized: every add checks the
 * cap and fails with PROV_ELIMIT (message set) instead of growing past it.
 * Allocation failure aborts the program (as git's xmalloc does).
 */
struct prov_buf {
	char *buf;
	size_t len;
	size_t alloc;	/* 0 while buf points at the shared empty string */
	size_t cap;	/* maximum len */
	int over;	/* an append was refused at the cap (sticky until release/reset):
			 * output built in pieces checks it once, to fail loudly, not cut */
};

#define PROV_BUF_DEFAULT_CAP ((size_t)256 << 20)

extern char prov_buf__empty[];
#define PROV_BUF_INIT { prov_buf__empty, 0, 0, PROV_BUF_DEFAULT_CAP }

/* Set up an empty buffer; cap 0 means PROV_BUF_DEFAULT_CAP. No allocation. */
void prov_buf_init(struct prov_buf *b, size_t cap);

/* Free the contents; the buffer is empty and usable again. */
void prov_buf_release(struct prov_buf *b);

/* Keep the allocation, drop the contents. */
void prov_buf_reset(struct prov_buf *b);

/* Return the string (caller frees) and leave the buffer empty. Never NULL. */
char *prov_buf_detach(struct prov_buf *b);

/* 0, or PROV_ELIMIT when the cap would be exceeded (nothing is added then). */
int prov_buf_add(struct prov_buf *b, const void *data, size_t len);
int prov_buf_puts(struct prov_buf *b, const char *s);
int prov_buf_putc(struct prov_buf *b, char c);
int prov_buf_printf(struct prov_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int prov_buf_vprintf(struct prov_buf *b, const char *fmt, va_list ap);

/* Drop trailing whitespace. */
void prov_buf_rtrim(struct prov_buf *b);

/* Shorten to `len` bytes (no-op when longer than the contents). */
void prov_buf_setlen(struct prov_buf *b, size_t len);

#endif
