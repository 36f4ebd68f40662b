/* An RPM spec's distribution patches: its Patch lines, macros expanded, read beside the spec. */
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backport.h"
#include "error.h"
#include "rpmspec.h"
#include "util.h"
#include "banned.h"

#define MAX_SPEC ((size_t)4 << 20)
#define MAX_PATCHES 2000
#define MAX_PATCH ((size_t)64 << 20)
/* the patch files a spec names, each counted once (one file on 24 Patch lines was held 24 times) */
#define MAX_PATCH_TOTAL ((size_t)256 << 20)
#define MAX_MACROS 1000
#define MAX_VALUE 4096
#define MAX_DEPTH 8
/* work budget of all macro expansion in one spec: characters looked at plus
 * macros expanded (a 4 MiB spec needs about 4 Mi; nested literal references
 * of empty macros grew as 50^depth without it) */
#define MAX_EXPAND_WORK ((size_t)16 << 20)

struct macros {
	char *name[MAX_MACROS];
	char *value[MAX_MACROS];
	size_t work;	/* expansion steps so far (MAX_EXPAND_WORK) */
	size_t n;
};

static const char *macro_get(const struct macros *m, const char *name, size_t len)
{
	size_t i;

	for (i = m->n; i-- > 0;)
		if (strlen(m->name[i]) == len && !strncmp(m->name[i], name, len))
			return m->value[i];
	return NULL;
}

static void macro_set(struct macros *m, const char *name, size_t nl, const char *value)
{
	if (m->n >= MAX_MACROS)
		return;
	m->name[m->n] = prov_xstrndup(name, nl);
	m->value[m->n] = prov_xstrdup(value);
	m->n++;
}

static void macros_release(struct macros *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->name[i]);
		free(m->value[i]);
	}
	m->n = 0;
}

static int is_name(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Expand the macros of s[0..len) into b; 1 when one was left unexpanded. */
static int expand(struct prov_buf *b, struct macros *m, const char *s, size_t len, int depth)
{
	const char *p = s, *end = s + len;
	int left = 0;

	while (p < end && b->len < MAX_VALUE) {
		const char *name, *close;
		size_t nl;
		int optional = 0;
		const char *v;

		if (++m->work > MAX_EXPAND_WORK)
			return 1;
		if (*p != '%') {
			prov_buf_putc(b, *p++);
			continue;
		}
		if (p + 1 < end && p[1] == '%') {
			prov_buf_putc(b, '%');
			p += 2;
			continue;
		}
		if (p + 1 < end && p[1] == '{') {
			close = memchr(p + 2, '}', (size_t)(end - p - 2));
			if (!close) {
				prov_buf_add(b, p, (size_t)(end - p));
				return 1;
			}
			name = p + 2;
			if (name < close && *name == '?') {
				optional = 1;
				name++;
			}
			nl = (size_t)(close - name);
			p = close + 1;
		} else {
			name = p + 1;
			for (close = name; close < end && is_name(*close); close++)
				;
			nl = (size_t)(close - name);
			if (!nl) {
				prov_buf_putc(b, *p++);
				continue;
			}
			p = close;
		}
		v = macro_get(m, name, nl);
		if (v && depth < MAX_DEPTH)
			left |= expand(b, m, v, strlen(v), depth + 1);
		else if (!optional) {
			prov_buf_puts(b, "%{");
			prov_buf_add(b, name, nl);
			prov_buf_putc(b, '}');
			left = 1;
		}
	}
	return left;
}

static const char *skip_blank(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* "Tag:" (case-insensitive) at p: the value after it, else NULL. */
static const char *tag_value(const char *p, const char *e, const char *tag, int digits)
{
	size_t tl = strlen(tag);
	const char *q;

	if ((size_t)(e - p) <= tl || strncasecmp(p, tag, tl))
		return NULL;
	q = p + tl;
	if (digits)
		while (q < e && isdigit((unsigned char)*q))
			q++;
	q = skip_blank(q, e);
	if (q >= e || *q != ':')
		return NULL;
	return skip_blank(q + 1, e);
}

/* As prov_rpmspec_patch_names; *notes (when not NULL): the comment lines just above each Patch line. */
static int patch_names(char ***out, char ***notes, size_t *n, const char *text, size_t len,
		       const char *spec_name)
{
	struct macros *m = prov_xcalloc(1, sizeof(*m));
	const char *p = text, *end = text + len;
	char **v = NULL, **nt = NULL;
	struct prov_buf comment = PROV_BUF_INIT;
	size_t nv = 0, alloc = 0, nalloc = 0, i;
	int error = 0, left;

	*out = NULL;
	if (notes)
		*notes = NULL;
	*n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (m->work > MAX_EXPAND_WORK) {
			error = prov_error_set(PROV_ELIMIT, "spec '%s': expanding its macros took more than %zu steps",
					       spec_name, MAX_EXPAND_WORK);
			goto cleanup;
		}
		const char *e = nl ? nl : end, *val, *q;
		size_t vl;

		while (e > p && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			e--;
		q = skip_blank(p, e);
		p = nl ? nl + 1 : end;
		if (q < e && *q == '#') {
			if (comment.len < 16384) {
				prov_buf_add(&comment, q, (size_t)(e - q));
				prov_buf_putc(&comment, '\n');
			}
			continue;
		}
		if (q >= e)
			continue;
		if ((size_t)(e - q) >= 10 && !strncmp(q, "%changelog", 10))
			break;
		if (((size_t)(e - q) > 8 && !strncmp(q, "%global", 7) && isspace((unsigned char)q[7])) ||
		    ((size_t)(e - q) > 8 && !strncmp(q, "%define", 7) && isspace((unsigned char)q[7]))) {
			const char *name = skip_blank(q + 7, e), *ne = name;
			struct prov_buf b = PROV_BUF_INIT;

			while (ne < e && is_name(*ne))
				ne++;
			if (ne > name) {
				val = skip_blank(ne, e);
				expand(&b, m, val, (size_t)(e - val), 0);
				macro_set(m, name, (size_t)(ne - name), b.buf);
			}
			prov_buf_release(&b);
			continue;
		}
		if ((val = tag_value(q, e, "Name", 0)) || (val = tag_value(q, e, "Version", 0)) ||
		    (val = tag_value(q, e, "Release", 0))) {
			struct prov_buf b = PROV_BUF_INIT;
			const char *tag = tolower((unsigned char)*q) == 'n' ? "name" :
					  tolower((unsigned char)*q) == 'v' ? "version" : "release";

			expand(&b, m, val, (size_t)(e - val), 0);
			macro_set(m, tag, strlen(tag), b.buf);
			prov_buf_release(&b);
			continue;
		}
		if ((val = tag_value(q, e, "Patch", 1))) {
			struct prov_buf b = PROV_BUF_INIT;
			const char *base;

			vl = (size_t)(e - val);
			if (!vl)
				continue;
			left = expand(&b, m, val, vl, 0);
			if (m->work > MAX_EXPAND_WORK) {	/* refused at the top of the loop */
				prov_buf_release(&b);
				continue;
			}
			if (left) {
				error = prov_error_set(PROV_EINPUT, "spec '%s': patch '%s' has a macro that cannot be expanded",
						       spec_name, b.buf);
				prov_buf_release(&b);
				goto cleanup;
			}
			base = strrchr(b.buf, '/') ? strrchr(b.buf, '/') + 1 : b.buf;
			if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
				error = prov_error_set(PROV_EINPUT, "spec '%s': '%s' is not a patch file name",
						       spec_name, b.buf);
				prov_buf_release(&b);
				goto cleanup;
			}
			if (nv >= MAX_PATCHES) {
				prov_buf_release(&b);
				error = prov_error_set(PROV_ELIMIT, "spec '%s' names more than %d patches",
						       spec_name, MAX_PATCHES);
				goto cleanup;
			}
			PROV_ALLOC_GROW(v, nv + 1, alloc);
			PROV_ALLOC_GROW(nt, nv + 1, nalloc);
			nt[nv] = prov_xstrdup(comment.buf ? comment.buf : "");
			v[nv++] = prov_xstrdup(base);
			prov_buf_release(&b);
		}
		prov_buf_reset(&comment);
	}
	if (m->work > MAX_EXPAND_WORK) {
		error = prov_error_set(PROV_ELIMIT, "spec '%s': expanding its macros took more than %zu steps",
				       spec_name, MAX_EXPAND_WORK);
		goto cleanup;
	}
	*out = v;
	*n = nv;
	if (notes) {
		*notes = nt;
		nt = NULL;
	}
	v = NULL;
cleanup:
	for (i = 0; i < nv; i++) {
		free(v ? v[i] : NULL);
		free(nt ? nt[i] : NULL);
	}
	free(v);
	free(nt);
	prov_buf_release(&comment);
	macros_release(m);
	free(m);
	return error;
}

int prov_rpmspec_patch_names(char ***out, size_t *n, const char *text, size_t len,
			     const char *spec_name)
{
	return patch_names(out, NULL, n, text, len, spec_name);
}

void prov_rpm_patches_release(struct prov_rpm_patches *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		int own = !p->first || p->first[i] == i;

		free(p->names[i]);
		free(p->ids && own ? p->ids[i] : NULL);
		free(p->texts && own ? p->texts[i] : NULL);
		free(p->notes ? p->notes[i] : NULL);
	}
	free(p->first);
	free(p->names);
	free(p->ids);
	free(p->texts);
	free(p->notes);
	memset(p, 0, sizeof(*p));
}

/* The first index before i whose name is names[i]'s (i when none); a hash
 * would do better, but 2,000 names are at most 2,000,000 compares. */
static size_t first_named(const struct prov_rpm_patches *p, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (!strcmp(p->names[j], p->names[i]))
			return p->first[j];
	return i;
}

int prov_rpm_patches_read(struct prov_rpm_patches *out, const char *spec_path)
{
	struct prov_buf spec = PROV_BUF_INIT, patch = PROV_BUF_INIT;
	char *dir = NULL;
	const char *slash;
	size_t i, total = 0;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = prov_read_file(&spec, spec_path, MAX_SPEC)) < 0) {
		if (error == PROV_ELIMIT)
			error = prov_error_set(PROV_ELIMIT, "spec '%s' is larger than %zu bytes", spec_path, MAX_SPEC);
		goto cleanup;
	}
	if (memchr(spec.buf, '\0', spec.len)) {
		error = prov_error_set(PROV_EINPUT, "spec '%s' is not a text file", spec_path);
		goto cleanup;
	}
	if ((error = patch_names(&out->names, &out->notes, &out->n, spec.buf, spec.len, spec_path)) < 0)
		goto cleanup;
	out->texts = prov_xcalloc(out->n + 1, sizeof(*out->texts));
	slash = strrchr(spec_path, '/');
	dir = slash ? prov_xstrndup(spec_path, (size_t)(slash - spec_path) + 1) : prov_xstrdup(".");
	out->ids = prov_xcalloc(out->n + 1, sizeof(*out->ids));
	out->first = prov_xcalloc(out->n + 1, sizeof(*out->first));
	for (i = 0; i < out->n; i++) {
		int fd;

		/* a file named again is the same text: read once */
		if ((out->first[i] = first_named(out, i)) != i) {
			out->ids[i] = out->ids[out->first[i]];
			out->texts[i] = out->texts[out->first[i]];
			continue;
		}
		/* the name is one component: opened inside the spec's directory only */
		if ((fd = prov_root_open(dir, out->names[i], O_RDONLY)) < 0) {
			error = prov_error_set(PROV_EINPUT, "spec '%s' names patch '%s', which is not beside it",
					       spec_path, out->names[i]);
			goto cleanup;
		}
		error = prov_read_fd(&patch, fd, out->names[i], MAX_PATCH);
		close(fd);
		if (error < 0)
			goto cleanup;
		if ((total += patch.len) > MAX_PATCH_TOTAL) {
			error = prov_error_set(PROV_ELIMIT, "spec '%s' names patches of more than %zu bytes in all",
					       spec_path, MAX_PATCH_TOTAL);
			goto cleanup;
		}
		out->ids[i] = prov_backport_file_ids(patch.buf, patch.len);
		out->texts[i] = prov_xstrndup(patch.buf ? patch.buf : "", patch.len);
		prov_buf_reset(&patch);
	}
	error = 0;
cleanup:
	if (error < 0)
		prov_rpm_patches_release(out);
	prov_buf_release(&spec);
	prov_buf_release(&patch);
	free(dir);
	return error;
}
