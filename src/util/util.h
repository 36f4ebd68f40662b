#ifndef PROV_UTIL_H
#define PROV_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "alloc.h"
#include "buf.h"

int prov_starts_with(const char *s, const char *prefix);
int prov_ends_with(const char *s, const char *suffix);
/* If s starts with prefix, return the rest, else NULL. */
const char *prov_skip_prefix(const char *s, const char *prefix);

/*
 * Strict number parsing (atoi/sscanf are banned): the whole of [s, s+len)
 * must be digits in `base` (16 accepts an optional 0x). 0 on success,
 * PROV_ERROR on empty, junk or overflow. len = (size_t)-1 means strlen(s).
 */
int prov_parse_u64(uint64_t *out, const char *s, size_t len, int base);
int prov_parse_i64(int64_t *out, const char *s, size_t len);
int prov_parse_int(int *out, const char *s, size_t len);
/*
 * A size in bytes: digits with an optional K, M, G or T (powers of 1024), at
 * most 2^50 in all. 0 on success, PROV_ERROR on empty, junk or too big.
 * len = (size_t)-1 means strlen(s).
 */
int prov_parse_size(uint64_t *out, const char *s, size_t len);

/* Lower-case hex of `len` bytes; caller frees. */
char *prov_hex(const unsigned char *bytes, size_t len);

/*
 * Read a whole file into `out` (cleared first), at most `cap` bytes:
 * PROV_ELIMIT when larger, PROV_EINPUT when it cannot be opened or read
 * (message names the path; a FIFO or a device is not opened: "not a regular
 * file"), 0 on success.
 */
int prov_read_file(struct prov_buf *out, const char *path, size_t cap);
/* The same for an already open descriptor; `name` is for messages. */
int prov_read_fd(struct prov_buf *out, int fd, const char *name, size_t cap);

/*
 * Open `path` (absolute or relative, as a crash or a package database named
 * it) as seen inside `root`: "..", absolute symlinks and magic links cannot
 * leave `root` (openat2 RESOLVE_IN_ROOT, as chroot would resolve it). root
 * NULL or "/" opens the path on the host. Returns an fd or -1 with errno set.
 * Only O_RDONLY-style flags are meaningful; O_CLOEXEC is always added.
 * Unless flags ask for O_DIRECTORY or O_PATH, only a regular file is opened:
 * the path is first opened O_PATH and checked with fstat, so a FIFO or a
 * device is never opened (no hang, no driver side effect); anything else
 * fails with errno PROV_ENOTREG (prov_strerror says "not a regular file").
 */
int prov_root_open(const char *root, const char *path, int flags);

/*
 * A root whose tree holds placeholders (an image read lazily, src/image):
 * a placeholder is an empty regular file with mode 0000, which nothing but
 * the image layer writes. When a hook is set, prov_root_open calls it with
 * the O_PATH descriptor of every such file it is about to open for reading
 * (not for O_PATH: a name looked at, e.g. by a realpath, stays a placeholder); the hook
 * puts the file's real content in its place (a rename) and returns 1, or
 * returns 0 when the file is genuinely empty, or -1 (errno set, a warning
 * said why): prov_root_open then fails rather than show an empty file.
 * The hook may be NULL (none). Set by the image layer; util never includes it.
 */
typedef int (*prov_root_fill_fn)(int pathfd, void *arg);
void prov_root_set_fill(prov_root_fill_fn fn, void *arg);

/* errno of prov_root_open for what is not a regular file */
#define PROV_ENOTREG EMEDIUMTYPE

/* Reopen an O_PATH descriptor for reading if it is a regular file (-1 with
 * errno PROV_ENOTREG otherwise). The O_PATH descriptor stays open. */
int prov_open_regular_at(int pathfd, int flags);

/* strerror() that also names PROV_ENOTREG */
const char *prov_strerror(int err);

/*
 * The host path of `path` under `root` for display and for libraries that
 * want a name: root + "/" + path with duplicate slashes squeezed. Use only
 * for files already checked with prov_root_open or for messages. Caller frees.
 */
char *prov_root_join(const char *root, const char *path);

/* Normalise a path lexically: squeeze "//", drop "./", resolve "a/../".
 * A leading "/" is kept; ".." that would climb above the start is kept for
 * relative paths and dropped for absolute ones. Caller frees. */
char *prov_path_normalize(const char *path);

/* The last component of a path (pointer into `path`). */
const char *prov_basename(const char *path);

enum prov_mkdir_flags {
	PROV_MKDIR_PARENTS = 1 << 0,	/* `path` names a file to come: make its parents only */
	PROV_MKDIR_INPUT = 1 << 1,	/* the path is the user's (--store): failing is PROV_EINPUT */
};

/*
 * mkdir -p: make `path` and every missing directory above it, each with
 * `mode`; one that exists already is fine (its mode is left alone). 0, or
 * PROV_ERROR (PROV_EINPUT with PROV_MKDIR_INPUT) with "cannot create
 * directory '<dir>': <why>" naming the first one that could not be made.
 */
int prov_mkdir_p(const char *path, mode_t mode, unsigned int flags);

/*
 * rm -rf of `name` relative to the directory `dfd` (AT_FDCWD: the working
 * directory), never following a symbolic link (a link is removed, not what
 * it points to), at most 64 levels deep. A name that does not exist is
 * fine. 0, or PROV_ERROR ("cannot remove '<name>': <why>"), PROV_ELIMIT
 * past 64 levels.
 */
int prov_remove_tree_at(int dfd, const char *name);

/* 1 when fd refers to a terminal. */
int prov_isatty(int fd);

/* FNV-1a, 64 bits: the one string hash of the hash tables (not for
 * anything an attacker must not collide: tables bound their probes). */
#define PROV_HASH_INIT 1469598103934665603ULL
uint64_t prov_hash_more(uint64_t h, const void *p, size_t n);
uint64_t prov_hash_bytes(const void *p, size_t n);
uint64_t prov_hash_str(const char *s);

/* The value of a digit in bases up to 16 (0-9, a-f, A-F); 99 for anything else. */
int prov_digit_value(char c);

/* Milliseconds from a monotonic clock. */
uint64_t prov_now_ms(void);

/*
 * Make control characters from input visible as \xHH (terminal escape
 * sequences in function names, paths or notes must not reach a terminal
 * raw): C0 controls but \n and \t, DEL and, with c1, U+0080..U+009F and
 * a byte 0x80..0x9F outside a valid UTF-8 sequence (raw 8-bit CSI). Only
 * bytes from `from` on are touched. Returns how many were escaped. Every
 * human format (text, Markdown, messages) goes through it; JSON has its own
 * escaping.
 */
size_t prov_escape_controls(struct prov_buf *b, size_t from, int c1);

/*
 * 1 when a release tag names a pre-release: after the tag's first digit, a
 * word of letters that is rc, alpha, beta, pre, dev or preview (v1.4.0-rc1,
 * 2.0.0rc2, OpenSSL_1_1_1-pre9, openssl-3.0.0-alpha17, 1.2.3.dev1), or a
 * lone a or b between two digits (v3.12.0a7, v3.12.0b1). Letters before
 * the first digit are the project's name or a prefix (curl-7_88_1, R_2_5_0,
 * v2.9.14: final). Case is ignored. The one rule for "first release" and
 * the "same branch" advice.
 */
int prov_tag_is_prerelease(const char *tag);

/*
 * Drop the userinfo of a URL in place (https://user:token@host/x ->
 * https://host/x): credentials never enter the model, a report or the
 * store. NULL-safe; returns url. scp-like user@host:path is left alone.
 */
char *prov_url_strip_userinfo(char *url);

/*
 * A URL as it may be shown (banners, progress lines, messages): a new
 * string, userinfo dropped and control characters escaped as by
 * prov_escape_controls (C1 too). NULL-safe (returns NULL).
 */
char *prov_url_display(const char *url);

/*
 * Compare two Debian package versions ([epoch:]upstream[-revision]) as dpkg
 * does (deb-version(7): '~' before everything, letters before other
 * characters, digit runs as numbers): <0, 0 or >0. Also orders plain
 * upstream versions (1.2.10 after 1.2.9). NULL sorts as "".
 */
int prov_version_cmp(const char *a, const char *b);

#endif
