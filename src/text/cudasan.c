/*
 * NVIDIA compute-sanitizer (and cuda-memcheck): every line starts with
 * "=========". An error ("========= Invalid __global__ read of size 4
 * bytes") has a device frame ("at 0x70 in file.cu:6:kernel()" or "at
 * kernel()+0x70 in file.cu:6") and the host backtrace of the kernel launch
 * ("Host Frame:FUNC [0xOFF] in LIB", the library possibly on the next line).
 * The first error is the crash: its words ("Invalid __global__ write of
 * size 4 bytes"), the address and the device thread and block become the
 * crash's headline, and its device frame (a thread of its own, named
 * "device") crashed; its host frames (thread "host") are the launch's. The
 * address line ("Address 0x… is out of bounds", newer "Access to 0x… is
 * out of bounds") gives the address and its kind. An
 * error with no device frame ("Program hit cudaErrorLaunchFailure") crashed
 * in its host frames. Frames are numbered from 0 as printed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "util.h"
#include "banned.h"

/* "=========" at s: the text after it and its indentation */
static const char *bar_prefix(const char *s, size_t *indent)
{
	const char *p = s;

	while (*p == '=')
		p++;
	if (p - s < 9)
		return NULL;
	*indent = (size_t)(tp_ws(p) - p);
	return tp_ws(p);
}

/* "[0xOFF]" ending at e (exclusive), its start, or NULL */
static const char *off_bracket(const char *s, const char *e)
{
	const char *b;
	uint64_t v;

	if (e - s < 4 || e[-1] != ']')
		return NULL;
	for (b = e - 1; b > s && *b != '['; b--)
		;
	if (*b != '[' || tp_hex(&v, b + 1, &s) < 0 || s != e - 1)
		return NULL;
	return b;
}

static void host_frame(struct tp_state *st, const char *p)
{
	struct prov_thread *t = tp_cur(st);
	struct prov_frame *f;
	const char *e = p + strlen(p), *in = NULL, *b, *x;
	size_t fn_len;

	if (!t || tp_cur_info(st)->fmt != TP_CUDASAN || !t->name || strcmp(t->name, "host") != 0) {
		t = tp_open(st, TP_CUDASAN, 1);
		if (!t)
			return;
		t->name = prov_xstrdup("host");
		if (!st->cs_seen && !st->cs_crash_set)
			t->crashed = st->cs_crash_set = 1;
		st->cs_seen = 1;
	}
	/* "FUNC [0xOFF] in LIB": the last " in " after a "]" */
	for (x = p; (x = strstr(x, "] in ")) != NULL; x++)
		in = x + 1;
	if (in)
		e = in;
	while (e > p && e[-1] == ' ')
		e--;
	f = tp_frame_new(st, TP_CUDASAN, -1);
	if (!f)
		return;
	if (in)
		tp_set(&f->module, in + 4, strlen(in + 4));
	b = off_bracket(p, e);
	if (b) {
		const char *q;

		if (tp_hex(&f->pc, b + 1, &q) == 0)
			f->has_pc = 1;
		e = b;
	}
	while (e > p && e[-1] == ' ')
		e--;
	fn_len = (size_t)(e - p);
	/* old cuda-memcheck: "LIB (FUNC + 0xOFF)" */
	if (fn_len > 2 && p[fn_len - 1] == ')') {
		long open = tp_match_open(p, fn_len - 1);
		const char *plus;

		if (open > 0 && p[open - 1] == ' ' && !memchr(p, ' ', (size_t)open - 1)) {
			tp_set(&f->module, p, (size_t)open - 1);
			plus = strstr(p + open, " + 0x");
			tp_set(&f->function, p + open + 1,
			       (size_t)((plus && plus < e ? plus : e - 1) - (p + open + 1)));
			fn_len = 0;
		}
	}
	/* old cuda-memcheck: "LIB [0xADDR]" with no symbol */
	if (fn_len && (p[0] == '/' || (p[0] == '.' && p[1] == '/')) && !memchr(p, ' ', fn_len) &&
	    !f->module) {
		tp_set(&f->module, p, fn_len);
		fn_len = 0;
	}
	/* newer: "FUNC in FILE:LINE" */
	if (fn_len) {
		const char *loc = NULL;
		size_t path_len;
		int line, col;

		for (x = p; x + 4 <= p + fn_len; x++)
			if (memcmp(x, " in ", 4) == 0)
				loc = x;
		if (loc && tp_file_line(loc + 4, (size_t)(p + fn_len - loc - 4), &path_len, &line, &col) == 0) {
			tp_set(&f->file, loc + 4, path_len);
			f->line = line;
			f->column = col;
			fn_len = (size_t)(loc - p);
		}
		tp_set(&f->function, p, fn_len);
	}
	if (f->function)
		tp_strip_args(f->function);
}

/* "at 0x70 in /src/k.cu:6:kernel()", "at kernel()+0x70 in k.cu:6", "at 0x9670 in void f<int>(int)" */
static void device_frame(struct tp_state *st, const char *p)
{
	struct prov_thread *t;
	struct prov_frame *f;
	const char *in = strstr(p, " in "), *q;
	uint64_t v;
	size_t path_len;
	int line, col;

	t = tp_open(st, TP_CUDASAN, 1);
	if (!t)
		return;
	t->name = prov_xstrdup("device");
	if (st->cs_errors == 1 && !st->cs_crash_set)
		t->crashed = st->cs_crash_set = 1;
	f = tp_frame_new(st, TP_CUDASAN, -1);
	if (!f)
		return;
	if (tp_hex(&v, p, &q) == 0 && q == in) {
		/* "0x70 in FILE:LINE:FUNC" or "0x70 in FUNC" */
		const char *r = in + 4, *c1 = strchr(r, ':');

		f->has_pc = 1;
		f->pc = v;
		if (c1 && tp_dec(&line, c1 + 1, &q) == 0 && *q == ':' && !memchr(r, ' ', (size_t)(c1 - r))) {
			tp_set(&f->file, r, (size_t)(c1 - r));
			f->line = line;
			tp_set(&f->function, q + 1, strlen(q + 1));
		} else {
			tp_set(&f->function, r, strlen(r));
		}
	} else if (in) {
		const char *plus = NULL, *x;

		for (x = p; x < in; x++)
			if (x[0] == '+' && x[1] == '0' && x[2] == 'x')
				plus = x;
		tp_set(&f->function, p, (size_t)((plus ? plus : in) - p));
		if (plus && tp_hex(&v, plus + 1, &q) == 0) {
			f->has_offset = 1;
			f->offset = v;
		}
		if (tp_file_line(in + 4, strlen(in + 4), &path_len, &line, &col) == 0) {
			tp_set(&f->file, in + 4, path_len);
			f->line = line;
		}
	} else {
		tp_set(&f->function, p, strlen(p));
	}
	if (f->function)
		tp_strip_args(f->function);
	tp_close(st);
}

/* "(255,0,0)" at p: its length, 0 when it is not one */
static size_t dim3(const char *p)
{
	size_t n = 0;

	if (*p != '(')
		return 0;
	while (p[++n] && p[n] != ')')
		if (!tp_isdigit((unsigned char)p[n]) && p[n] != ',' && p[n] != ' ')
			return 0;
	return p[n] == ')' ? n + 1 : 0;
}

/* the headline's text again, from its parts */
static void headline_text(struct prov_headline *h, const char *kind)
{
	struct prov_buf b = PROV_BUF_INIT;

	prov_buf_init(&b, 1024);
	prov_buf_puts(&b, h->error ? h->error : "error");
	if (h->has_size)
		prov_buf_printf(&b, " of size %" PRIu64, h->size);
	if (h->has_addr)
		prov_buf_printf(&b, " at 0x%" PRIx64 "%s%s%s", h->addr, *kind ? " (" : "", kind,
				*kind ? ")" : "");
	if (h->device_thread)
		prov_buf_printf(&b, " by thread %s", h->device_thread);
	if (h->device_block)
		prov_buf_printf(&b, " in block %s", h->device_block);
	free(h->text);
	h->text = prov_buf_detach(&b);
}

/* "Invalid __global__ write of size 4 bytes": the first error's headline */
static void headline_start(struct tp_state *st, const char *p)
{
	struct prov_headline *h;
	const char *of = strstr(p, " of size ");
	uint64_t size;

	if (st->c->headline || !*p)
		return;
	h = st->c->headline = prov_xcalloc(1, sizeof(*h));
	tp_set(&h->error, p, of ? (size_t)(of - p) : strlen(p));
	if (of && prov_parse_u64(&size, of + 9, strspn(of + 9, "0123456789"), 10) == 0) {
		h->has_size = 1;
		h->size = size;
	}
	headline_text(h, st->cs_kind);
}

/* the first error's "by thread (x,y,z) in block (x,y,z)", "Address 0x… is …" */
static int headline_detail(struct tp_state *st, const char *p)
{
	struct prov_headline *h = st->c->headline;
	const char *q;
	uint64_t v;
	size_t n;

	if (!h || st->cs_errors != 1)
		return 0;
	if ((q = prov_skip_prefix(p, "by thread ")) != NULL && (n = dim3(q)) != 0) {
		if (!h->device_thread)
			tp_set(&h->device_thread, q, n);
		q += n;
		if ((q = prov_skip_prefix(q, " in block ")) != NULL && (n = dim3(q)) != 0 &&
		    !h->device_block)
			tp_set(&h->device_block, q, n);
		headline_text(h, st->cs_kind);
		return 1;
	}
	/* "Address 0x… is out of bounds"; newer ones "Access to 0x… is out of bounds" */
	if (((q = prov_skip_prefix(p, "Address ")) != NULL || (q = prov_skip_prefix(p, "Access to ")) != NULL) &&
	    tp_hex(&v, q, &q) == 0 && !h->has_addr) {
		const char *k = prov_skip_prefix(q, " is ");
		size_t kl = k ? strlen(k) : 0;

		h->has_addr = 1;
		h->addr = v;
		while (kl && (k[kl - 1] == '.' || k[kl - 1] == ' '))
			kl--;
		/* "out of bounds", "misaligned", "not allocated" ... (words only) */
		if (k && kl < sizeof(st->cs_kind) && strspn(k, "abcdefghijklmnopqrstuvwxyz -") >= kl) {
			memcpy(st->cs_kind, k, kl);
			st->cs_kind[kl] = 0;
		}
		headline_text(h, st->cs_kind);
		return 1;
	}
	return 0;
}

int tp_cudasan_line(struct tp_state *st, char *s, size_t indent)
{
	struct prov_frame *f;
	const char *p, *q;
	size_t in;

	(void)indent;
	p = bar_prefix(s, &in);
	if (!p)
		return 0;
	if (!*p)
		return 1;
	if ((q = prov_skip_prefix(p, "Host Frame:")) != NULL) {
		host_frame(st, tp_ws(q));
		return 1;
	}
	/* the two-line form: the library of the last host frame */
	if (prov_starts_with(p, "in ") && in > 1) {
		f = tp_last_frame(st);
		if (f && tp_cur_info(st)->fmt == TP_CUDASAN && !f->module)
			tp_set(&f->module, p + 3, strlen(p + 3));
		return 1;
	}
	if (in > 1 && prov_starts_with(p, "at ") && st->cs_err) {
		device_frame(st, p + 3);
		return 1;
	}
	if (in > 1 && prov_starts_with(p, "Device Frame:") && st->cs_err) {
		device_frame(st, tp_ws(p + 13));
		return 1;
	}
	if (in > 1 && st->cs_err && headline_detail(st, p))
		return 1;
	if (in <= 1) {
		/* a new error, "COMPUTE-SANITIZER", "ERROR SUMMARY: 1 error" */
		tp_end_block(st);
		st->fmt = TP_CUDASAN;
		st->cs_err = !prov_starts_with(p, "ERROR SUMMARY") && strcmp(p, "COMPUTE-SANITIZER") != 0 &&
			strcmp(p, "CUDA-MEMCHECK") != 0 && !prov_starts_with(p, "LEAK SUMMARY");
		if (st->cs_err && ++st->cs_errors == 1)
			headline_start(st, p);
	}
	return 1;
}
