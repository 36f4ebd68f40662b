/* Quilt patches applied to an imported tree: patch -pN to git diffs, hunk offsets, the series file. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <git2.h>

#include "cachedir.h"
#include "error.h"
#include "fetch.h"
#include "sha256.h"
#include "sources.h"
#include "sources-git.h"
#include "srcimport.h"
#include "srcimport-int.h"
#include "udiff.h"
#include "util.h"
#include "banned.h"

/* ---- quilt patches ---- */

/*
 * The git header of one file. A file whose old side is /dev/null or whose
 * first hunk starts at -0,0 (diff -N) is created; the reverse is deleted.
 */
static int emit_file_header(struct prov_buf *out, const char *oldp, const char *newp,
			    int creates, int deletes)
{
	if (!strcmp(oldp, "/dev/null") || (creates && strcmp(newp, "/dev/null")))
		return prov_buf_printf(out, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n",
				       newp, newp, newp);
	if (!strcmp(newp, "/dev/null") || deletes)
		return prov_buf_printf(out, "diff --git a/%s b/%s\ndeleted file mode 100644\n--- a/%s\n+++ /dev/null\n",
				       oldp, oldp, oldp);
	/* patch(1) -pN: the new name is the file changed */
	return prov_buf_printf(out, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", newp, newp, newp, newp);
}

/* A line that says a git section has a body: file names, binary data, a rename or a copy. */
static int git_body_line(const char *q, size_t ll)
{
	return (ll >= 4 && (!memcmp(q, "--- ", 4) || !memcmp(q, "+++ ", 4))) ||
	       (ll >= 16 && !memcmp(q, "GIT binary patch", 16)) || (ll >= 13 && !memcmp(q, "Binary files ", 13)) ||
	       (ll >= 6 && (!memcmp(q, "rename", 6) || !memcmp(q, "copy ", 5)));
}

/*
 * A git diff, as is, except the sections that create an empty file (a "diff
 * --git" with "new file mode" and no "---"/"+++" nor binary data): libgit2's
 * parser refuses them ("invalid patch header") where git and patch(1) accept
 * them. The empty file is then not created: nothing else depends on it.
 */
static int git_diff_copy(struct prov_buf *out, const char *patch, size_t len)
{
	struct prov_udiff d;
	const char *sec = patch;
	int ev, is_diff = 0, creates = 0, has_body = 0, error = 0;

	prov_udiff_init(&d, patch, len, 1, 0);
	do {
		ev = prov_udiff_next(&d);
		if (ev == PROV_UDIFF_GIT || ev == PROV_UDIFF_END) {
			const char *next = ev == PROV_UDIFF_END ? d.end : d.line;

			if (next > sec && !(is_diff && creates && !has_body) &&
			    (error = prov_buf_add(out, sec, (size_t)(next - sec))) < 0)
				break;
			sec = next;
			is_diff = ev == PROV_UDIFF_GIT;
			creates = has_body = 0;
			continue;
		}
		if (ev == PROV_UDIFF_CUT && !d.line)
			continue;
		if (d.len >= 14 && !memcmp(d.line, "new file mode ", 14))
			creates = 1;
		else if (git_body_line(d.line, d.len))
			has_body = 1;
	} while (ev != PROV_UDIFF_END);
	prov_udiff_release(&d);
	return error;
}

/* The current hunk line (an empty one is a context line whose blank was trimmed), copied. */
static int copy_hunk_line(struct prov_buf *out, const struct prov_udiff *d)
{
	int error = d->len ? prov_buf_add(out, d->line, d->len) : prov_buf_putc(out, ' ');

	return error < 0 ? error : prov_buf_putc(out, '\n');
}

/* The error for event ev of a quilt patch, or 0. */
static int quilt_error(const struct prov_udiff *d, int ev, const char *name)
{
	size_t ll = d->len > 200 ? 200 : d->len;

	if (ev == PROV_UDIFF_FILE && !d->file_ok)
		return prov_error_set(PROV_EINPUT, "patch '%s': cannot use the file names '%.*s' and '%.*s' with -p%d",
				      name, (int)(d->old_raw_len > 200 ? 200 : d->old_raw_len), d->old_raw,
				      (int)(d->new_raw_len > 200 ? 200 : d->new_raw_len), d->new_raw, d->strip);
	if (ev == PROV_UDIFF_BAD_HUNK)
		return prov_error_set(PROV_EINPUT, "patch '%s' has a malformed hunk header '%.*s'", name, (int)ll,
				      d->line);
	if (ev == PROV_UDIFF_CUT)
		return d->line ? prov_error_set(PROV_EINPUT, "patch '%s' has a hunk shorter than its header says", name)
			       : prov_error_set(PROV_EINPUT, "patch '%s' ends inside a hunk", name);
	if (ev == PROV_UDIFF_LINE && (d->old_left < 0 || d->new_left < 0))
		return prov_error_set(PROV_EINPUT, "patch '%s' has a hunk longer than its header says", name);
	return 0;
}

/* The ---/+++ files and hunks of a quilt (patch -pN) diff, appended to out as a git diff. */
static int quilt_copy(struct prov_buf *out, const char *patch, size_t len, int strip, const char *name)
{
	struct prov_udiff d;
	int ev, pending = 0, error = 0;

	prov_udiff_init(&d, patch, len, strip, 0);
	while (!error && (ev = prov_udiff_next(&d)) != PROV_UDIFF_END) {
		if (ev == PROV_UDIFF_LINE && (error = copy_hunk_line(out, &d)) < 0)
			break;
		if ((error = quilt_error(&d, ev, name)) < 0)
			break;
		if (ev == PROV_UDIFF_FILE) {
			pending = 1;
		} else if (ev == PROV_UDIFF_HUNK) {
			if (pending)
				error = emit_file_header(out, d.old_path ? d.old_path : "/dev/null",
							 d.new_path ? d.new_path : "/dev/null",
							 d.len >= 9 && !memcmp(d.line, "@@ -0,0 +", 9),
							 memmem(d.line, d.len, " +0,0 @@", 8) != NULL);
			pending = 0;
			if (error >= 0 && (error = prov_buf_add(out, d.line, d.len)) >= 0)
				error = prov_buf_putc(out, '\n');
		} else if (ev == PROV_UDIFF_NOEOL) {
			if ((error = prov_buf_add(out, d.line, d.len)) >= 0)
				error = prov_buf_putc(out, '\n');
		}
		/* descriptions, Index: lines, ====: not part of the diff */
	}
	prov_udiff_release(&d);
	return error;
}

int prov_srcimport_quilt_to_git(struct prov_buf *out, const char *patch, size_t len,
				int strip, const char *name)
{
	const char *first;
	size_t pre;
	int error;

	prov_buf_reset(out);
	first = len >= 11 && !memcmp(patch, "diff --git ", 11) ? patch : memmem(patch, len, "\ndiff --git ", 12);
	if (!first)
		return quilt_copy(out, patch, len, strip, name);
	if (strip != 1)
		return prov_error_set(PROV_EINPUT, "patch '%s' is a git diff with -p%d: only -p1 is supported for git diffs",
				      name, strip);
	/* files before the first "diff --git" line written the quilt way
	 * (---/+++ only: a hand-edited patch), which libgit2 refuses as is */
	pre = first == patch ? 0 : (size_t)(first - patch) + 1;
	if (pre && (error = quilt_copy(out, patch, pre, strip, name)) < 0)
		return error;
	return git_diff_copy(out, patch + pre, len - pre);
}

static int read_blob_at(struct prov_buf *out, git_repository *repo, const git_oid *tree_oid,
			const char *path, size_t cap)
{
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	int error = 0;

	prov_buf_reset(out);
	if (git_tree_lookup(&tree, repo, tree_oid) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read the imported tree");
		goto cleanup;
	}
	if (git_tree_entry_bypath(&te, tree, path) < 0 || git_tree_entry_type(te) != GIT_OBJECT_BLOB) {
		git_error_clear();
		error = PROV_ENOTFOUND;
		goto cleanup;
	}
	if (git_blob_lookup(&blob, repo, git_tree_entry_id(te)) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read a blob");
		goto cleanup;
	}
	if ((size_t)git_blob_rawsize(blob) > cap) {
		error = prov_error_set(PROV_ELIMIT, "'%s' is larger than %zu bytes", path, cap);
		goto cleanup;
	}
	error = prov_buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
cleanup:
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_tree_free(tree);
	return error;
}

/* ---- hunk offsets (patch(1) finds a hunk whose lines moved; libgit2 does not) ---- */

/* hunk lines compared while relocating, for a whole series (2000 patches each searching 900k lines ran past 120 s) */
#define RELOCATE_MAX_COMPARES ((uint64_t)50 * 1000 * 1000)
/*
 * Bytes of the files the patches of a series rewrite, in all: libgit2
 * reads, applies and writes the whole file for each patch (1000 one-line
 * patches to a 5 MB file took 73 s of CPU).
 */
#define SERIES_MAX_PATCHED_BYTES ((uint64_t)256 << 20)

struct lines {
	const char **at;	/* start of each line */
	size_t *len;	/* without the newline */
	size_t n, alloc, lalloc;
};

static void lines_split(struct lines *l, const char *s, size_t len)
{
	const char *end = s + len;

	l->n = 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t ll = nl ? (size_t)(nl - s) : (size_t)(end - s);
		PROV_ALLOC_GROW(l->at, l->n + 1, l->alloc);
		PROV_ALLOC_GROW(l->len, l->n + 1, l->lalloc);
		l->at[l->n] = s;
		l->len[l->n++] = ll;
		s = nl ? nl + 1 : end;
	}
}

static void lines_release(struct lines *l)
{
	free(l->at);
	free(l->len);
}

/* Where the hunk's old lines (pre) are in the file, nearest to `want`, not before `min`; -1 if nowhere, -2 past the budget. */
static long find_hunk(const struct lines *file, const struct lines *pre, long want, long min,
		      uint64_t *compares)
{
	long n = (long)file->n, m = (long)pre->n, k;

	if (m == 0)
		return want;
	for (k = 0; k <= n; k++) {
		long cand[2] = { want + k, want - k };
		int c;
		for (c = 0; c < (k ? 2 : 1); c++) {
			long p = cand[c], i;
			/* every place looked at counts, even one out of range */
			if (++*compares > RELOCATE_MAX_COMPARES)
				return -2;
			if (p < min || p + m > n)
				continue;
			for (i = 0; i < m; i++) {
				if (++*compares > RELOCATE_MAX_COMPARES)
					return -2;
				if (file->len[p + i] != pre->len[i] ||
				    memcmp(file->at[p + i], pre->at[i], pre->len[i]))
					break;
			}
			if (i == m)
				return p;
		}
		if (want + k >= n && want - k < min)
			break;
	}
	return -1;
}

/* relocate_hunks' state: the file a git-style diff's section rewrites, the hunk being read */
struct relocation {
	struct lines fl, pre;	/* the file's lines; the current hunk's old lines */
	int have_file;
	long min, delta, shift;
	/* the hunk whose header waits to be written */
	int pending;
	const char *header;	/* its line in the diff */
	size_t header_len;
	long a, b, d;	/* -a,b +c,d */
	const char *rest;	/* what follows the numbers: " @@ function" */
	/* the input up to here is in the output */
	const char *copied;
};

/* The file of a new "--- a/PATH" section, its lines split into r->fl. */
static int relocation_file(struct relocation *r, struct prov_buf *file, git_repository *repo,
			   const git_oid *tree_oid, const char *path, uint64_t *patched)
{
	int error;

	r->have_file = 0;
	r->fl.n = 0;
	r->min = r->delta = r->shift = 0;
	if (!path)
		return 0;
	error = read_blob_at(file, repo, tree_oid, path, PROV_SRCIMPORT_MAX_PATCH);
	if (error == 0) {
		*patched += file->len;	/* libgit2 rewrites it whole */
		if (*patched > SERIES_MAX_PATCHED_BYTES)
			return 1;	/* the caller says so */
		lines_split(&r->fl, file->buf, file->len);
		r->have_file = 1;
	} else if (error == PROV_ELIMIT) {
		*patched += PROV_SRCIMPORT_MAX_PATCH;
	} else if (error != PROV_ENOTFOUND) {
		return error;
	}
	return 0;
}

/* The waiting hunk header, written where the hunk's old lines are (or as it was). */
static int relocation_flush(struct relocation *r, struct prov_buf *out, uint64_t *compares)
{
	const char *le = r->header + r->header_len;
	long at;
	int error;

	r->pending = 0;
	if (r->b == 0) {	/* pure insertion after line a: move it as the previous hunk moved */
		at = r->a + r->shift;
		if (at < 0)
			at = 0;
	} else {
		at = find_hunk(&r->fl, &r->pre, r->a - 1 + r->shift, r->min, compares);
		if (at == -2)
			return PROV_ELIMIT;	/* the caller says so */
		if (at < 0)
			return 0;	/* matches nowhere: left as it is for libgit2 to refuse */
		r->shift = at - (r->a - 1);
		r->min = at + (long)r->pre.n;
		at += 1;
	}
	if ((error = prov_buf_add(out, r->copied, (size_t)(r->header - r->copied))) < 0)
		return error;
	error = prov_buf_printf(out, "@@ -%ld,%ld +%ld,%ld%.*s", at, r->b,
				(r->d == 0 ? at : at + r->delta + (r->b == 0 ? 1 : 0)), r->d,
				(int)(le - r->rest), r->rest);
	if (error < 0)
		return error;
	r->copied = le;
	r->delta += r->d - r->b;
	return 0;
}

/* A hunk header read: remember it, collect its old lines until it ends. */
static void relocation_hunk(struct relocation *r, const struct prov_udiff *d)
{
	const char *q = d->line + d->header_len - 2;	/* the closing "@@" */

	while (q > d->line && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	r->pending = 1;
	r->header = d->line;
	r->header_len = d->len;
	r->a = d->old_start;
	r->b = d->old_count;
	r->d = d->new_count;
	r->rest = q;
	r->pre.n = 0;
}

/*
 * Rewrite the hunk headers of a git-style diff so that each hunk starts
 * where its old lines really are in the file at tree_oid (nearest match, in
 * order), as patch(1) and dpkg-source allow (offsets, no fuzz). Hunks that
 * match nowhere are left for libgit2 to refuse. Everything but the headers
 * is copied as it is; the diff is read by the one unified-diff reader.
 */
static int relocate_hunks(struct prov_buf *out, const struct prov_buf *in, git_repository *repo,
			  const git_oid *tree_oid, uint64_t *compares, uint64_t *patched)
{
	struct prov_buf file = PROV_BUF_INIT;
	struct relocation r = { 0 };
	struct prov_udiff d;
	int ev, error = 0;

	prov_buf_reset(out);
	r.copied = in->buf;
	prov_udiff_init(&d, in->buf, in->len, 1, 0);
	while ((ev = prov_udiff_next(&d)) != PROV_UDIFF_END) {
		if (ev == PROV_UDIFF_LINE && r.pending) {
			if (d.origin != '+') {
				PROV_ALLOC_GROW(r.pre.at, r.pre.n + 1, r.pre.alloc);
				PROV_ALLOC_GROW(r.pre.len, r.pre.n + 1, r.pre.lalloc);
				r.pre.at[r.pre.n] = d.text;
				r.pre.len[r.pre.n++] = d.text_len;
			}
			continue;
		}
		if (ev == PROV_UDIFF_NOEOL)
			continue;
		if (r.pending && (error = relocation_flush(&r, out, compares)) < 0)
			goto cleanup;
		if (ev == PROV_UDIFF_FILE) {
			error = relocation_file(&r, &file, repo, tree_oid, d.file_ok ? d.old_path : NULL, patched);
			if (error)
				goto cleanup;	/* 1: over the budget, the caller says so */
		} else if (ev == PROV_UDIFF_HUNK && r.have_file) {
			relocation_hunk(&r, &d);
		}
	}
	if (r.pending && (error = relocation_flush(&r, out, compares)) < 0)
		goto cleanup;
	error = prov_buf_add(out, r.copied, (size_t)(in->buf + in->len - r.copied));
cleanup:
	prov_udiff_release(&d);
	prov_buf_release(&file);
	lines_release(&r.fl);
	lines_release(&r.pre);
	return error < 0 ? error : 0;
}

/*
 * A file a patch changes without saying its mode (a quilt patch, a git diff
 * without "index ... MODE" or "new mode") keeps the mode it had, as patch(1)
 * and dpkg-source keep it: libgit2 writes such a file as 100644, so an
 * executable script changed by a patch lost its x bit.
 */
static int keep_modes(git_index *index, git_tree *before, git_diff *diff)
{
	size_t i, n = git_diff_num_deltas(diff);

	for (i = 0; i < n; i++) {
		const git_diff_delta *dd = git_diff_get_delta(diff, i);
		const git_index_entry *ie;
		git_tree_entry *te = NULL;
		git_index_entry copy;

		if (dd->status != GIT_DELTA_MODIFIED || dd->new_file.mode || !dd->new_file.path ||
		    git_tree_entry_bypath(&te, before, dd->new_file.path) < 0)
			continue;
		ie = git_index_get_bypath(index, dd->new_file.path, 0);
		if (ie && ie->mode != (uint32_t)git_tree_entry_filemode(te) &&
		    git_tree_entry_filemode(te) == GIT_FILEMODE_BLOB_EXECUTABLE) {
			copy = *ie;
			copy.mode = GIT_FILEMODE_BLOB_EXECUTABLE;
			if (git_index_add(index, &copy) < 0) {
				git_tree_entry_free(te);
				return prov_error_from_git(PROV_ERROR, "cannot keep a patched file's mode");
			}
		}
		git_tree_entry_free(te);
	}
	return 0;
}

/* Apply one patch (git-style text) to *tree_oid, replacing it. */
static int apply_patch(git_oid *tree_oid, git_repository *repo, const struct prov_buf *diff_text,
		       const char *name)
{
	git_diff *diff = NULL;
	git_tree *tree = NULL;
	git_index *index = NULL;
	int error = 0;

	if (git_diff_from_buffer(&diff, diff_text->buf, diff_text->len) < 0) {
		error = prov_error_from_git(PROV_EINPUT, "cannot parse patch '%s'", name);
		goto cleanup;
	}
	if (git_tree_lookup(&tree, repo, tree_oid) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read the tree to patch");
		goto cleanup;
	}
	if (git_apply_to_tree(&index, repo, tree, diff, NULL) < 0) {
		error = prov_error_from_git(PROV_EINPUT, "patch '%s' does not apply", name);
		goto cleanup;
	}
	if ((error = keep_modes(index, tree, diff)) < 0)
		goto cleanup;
	if (git_index_write_tree_to(tree_oid, index, repo) < 0)
		error = prov_error_from_git(PROV_ERROR, "cannot write the patched tree");
cleanup:
	git_index_free(index);
	git_tree_free(tree);
	git_diff_free(diff);
	return error;
}

/* The size of the blob at `path` in the tree, or 0 when there is none. */
static uint64_t blob_size_at(git_repository *repo, git_tree *tree, const char *path)
{
	git_tree_entry *te = NULL;
	git_odb *odb = NULL;
	size_t len = 0;
	git_object_t type;
	uint64_t size = 0;

	if (git_tree_entry_bypath(&te, tree, path) == 0 && git_tree_entry_type(te) == GIT_OBJECT_BLOB &&
	    git_repository_odb(&odb, repo) == 0 &&
	    git_odb_read_header(&len, &type, odb, git_tree_entry_id(te)) == 0)
		size = len;
	git_error_clear();
	git_odb_free(odb);
	git_tree_entry_free(te);
	return size;
}

/* Bytes of the files a git-style diff rewrites, as they are in the tree (a new file: 0). */
static uint64_t diff_patched_bytes(git_repository *repo, git_tree *tree, const struct prov_buf *diff)
{
	struct prov_udiff d;
	uint64_t sum = 0;
	int ev;

	prov_udiff_init(&d, diff->buf, diff->len, 1, 0);
	while ((ev = prov_udiff_next(&d)) != PROV_UDIFF_END)
		if (ev == PROV_UDIFF_FILE && d.old_path)
			sum += blob_size_at(repo, tree, d.old_path);
	prov_udiff_release(&d);
	return sum;
}

struct series_entry {
	char *name, *path;
	int strip;
};

/*
 * Quilt's series grammar: one patch a line, "#" comments (at the start or
 * after blanks), options after the name; only -pN / -p N is supported.
 */
int prov_quilt_series_next(char **name, int *strip, const char **pos, const char *end)
{
	const char *p = *pos;

	*name = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *s = p, *e, *hash;

		p = nl ? nl + 1 : end;
		*pos = p;
		hash = memchr(s, '#', (size_t)(le - s));
		if (hash && (hash == s || hash[-1] == ' ' || hash[-1] == '\t'))
			le = hash;
		while (s < le && isspace((unsigned char)*s))
			s++;
		if (s == le)
			continue;
		e = s;
		while (e < le && !isspace((unsigned char)*e))
			e++;
		*name = prov_xstrndup(s, (size_t)(e - s));
		*strip = 1;
		for (s = e; s < le;) {
			while (s < le && isspace((unsigned char)*s))
				s++;
			if (s == le)
				break;
			e = s;
			while (e < le && !isspace((unsigned char)*e))
				e++;
			if (e - s >= 3 && s[0] == '-' && s[1] == 'p' &&
			    prov_parse_int(strip, s + 2, (size_t)(e - s - 2)) == 0 && *strip >= 0 && *strip <= 16) {
				;
			} else if (e - s == 2 && s[0] == '-' && s[1] == 'p' && e < le) {
				/* "-p 0" */
				s = e;
				while (s < le && isspace((unsigned char)*s))
					s++;
				e = s;
				while (e < le && !isspace((unsigned char)*e))
					e++;
				if (prov_parse_int(strip, s, (size_t)(e - s)) < 0 || *strip < 0 || *strip > 16) {
					int error = prov_error_set(PROV_EINPUT, "debian/patches/series: bad -p for '%s'", *name);

					free(*name);
					*name = NULL;
					return error;
				}
			} else {
				int error = prov_error_set(PROV_EINPUT, "debian/patches/series: unsupported option '%.*s' for '%s'",
							   (int)(e - s > 64 ? 64 : e - s), s, *name);

				free(*name);
				*name = NULL;
				return error;
			}
			s = e;
		}
		return 1;
	}
	return 0;
}

/* Apply debian/patches/series; *out = patches applied. */
int si_apply_series(int *out, git_oid *tree_oid, struct import_state *st)
{
	git_repository *repo = st->repo;
	struct prov_buf series = PROV_BUF_INIT, patch = PROV_BUF_INIT, git_text = PROV_BUF_INIT;
	const char *p, *end;
	struct series_entry *ents = NULL;
	size_t nents = 0, ents_alloc = 0, i;
	git_tree *tree = NULL;
	/* one relocation budget for the whole series, not one per patch; the same for patched bytes */
	uint64_t compares = 0, patched = 0;
	int n = 0, error;

	error = read_blob_at(&series, repo, tree_oid, "debian/patches/series", (size_t)1 << 20);
	if (error == PROV_ENOTFOUND) {
		*out = 0;
		error = 0;
		goto cleanup;
	}
	if (error < 0)
		goto cleanup;
	p = series.buf;
	end = series.buf + series.len;
	for (;;) {
		char *name = NULL, *path = NULL;
		int strip = 1, more = prov_quilt_series_next(&name, &strip, &p, end);

		if (more < 0) {
			error = more;
			goto cleanup;
		}
		if (!more)
			break;
		if (n >= PROV_SRCIMPORT_MAX_PATCHES) {
			error = prov_error_set(PROV_ELIMIT, "debian/patches/series lists more than %d patches",
					       PROV_SRCIMPORT_MAX_PATCHES);
			free(name);
			goto cleanup;
		}
		{
			char *joined = prov_xasprintf("debian/patches/%s", name);
			path = prov_path_normalize(joined);
			free(joined);
		}
		if (!prov_starts_with(path, "debian/patches/")) {
			error = prov_error_set(PROV_EINPUT, "debian/patches/series names a patch outside debian/patches: '%s'",
					       name);
			free(name);
			free(path);
			goto cleanup;
		}
		/* quilt applies a patch once: a series naming one twice is refused */
		for (i = 0; i < nents; i++)
			if (!strcmp(ents[i].path, path))
				break;
		if (i < nents) {
			error = prov_error_set(PROV_EINPUT, "debian/patches/series lists '%s' twice", name);
			free(name);
			free(path);
			goto cleanup;
		}
		PROV_ALLOC_GROW(ents, nents + 1, ents_alloc);
		ents[nents].name = name;
		ents[nents].path = path;
		ents[nents++].strip = strip;
		n++;
	}
	/*
	 * The bytes the series rewrites, before anything is applied: each
	 * patch costs libgit2 the whole of every file it touches (as the
	 * files are now; those a patch creates are counted as they are
	 * patched, below).
	 */
	if (git_tree_lookup(&tree, repo, tree_oid) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read the tree to patch");
		goto cleanup;
	}
	for (i = 0; i < nents && patched <= SERIES_MAX_PATCHED_BYTES; i++) {
		error = read_blob_at(&patch, repo, tree_oid, ents[i].path, PROV_SRCIMPORT_MAX_PATCH);
		if (error == PROV_ENOTFOUND)
			error = prov_error_set(PROV_EINPUT, "debian/patches/series names '%s', which is not in debian/patches",
					       ents[i].name);
		if (error == 0)
			error = prov_srcimport_quilt_to_git(&git_text, patch.buf, patch.len, ents[i].strip,
							    ents[i].path);
		if (error < 0)
			goto cleanup;
		patched += patch.len + diff_patched_bytes(repo, tree, &git_text);
	}
	if (patched > SERIES_MAX_PATCHED_BYTES) {
		error = prov_error_set(PROV_ELIMIT, "debian/patches/series: the patches rewrite more than "
				       "%llu bytes of files in all; not imported",
				       (unsigned long long)SERIES_MAX_PATCHED_BYTES);
		goto cleanup;
	}
	patched = 0;
	for (i = 0; i < nents; i++) {
		const char *name = ents[i].name, *path = ents[i].path;

		error = read_blob_at(&patch, repo, tree_oid, path, PROV_SRCIMPORT_MAX_PATCH);
		if (error == 0)
			error = prov_srcimport_quilt_to_git(&git_text, patch.buf, patch.len, ents[i].strip, path);
		if (error == 0) {
			patched += patch.len;
			error = relocate_hunks(&patch, &git_text, repo, tree_oid, &compares, &patched);
		}
		if (error == PROV_ELIMIT && compares > RELOCATE_MAX_COMPARES)
			error = prov_error_set(PROV_ELIMIT, "debian/patches/series: finding where the hunks "
					       "moved took more than %llu line compares (at '%s'); not imported",
					       (unsigned long long)RELOCATE_MAX_COMPARES, name);
		else if (error == 0 && patched > SERIES_MAX_PATCHED_BYTES)
			error = prov_error_set(PROV_ELIMIT, "debian/patches/series: the patches rewrite "
					       "more than %llu bytes of files in all (at '%s'); not imported",
					       (unsigned long long)SERIES_MAX_PATCHED_BYTES, name);
		if (error == 0) {
			st->patches_applied++;
			error = apply_patch(tree_oid, repo, &patch, path);
		}
		if (error < 0)
			goto cleanup;
	}
	*out = n;
cleanup:
	st->line_compares += compares;
	git_tree_free(tree);
	for (i = 0; i < nents; i++) {
		free(ents[i].name);
		free(ents[i].path);
	}
	free(ents);
	prov_buf_release(&series);
	prov_buf_release(&patch);
	prov_buf_release(&git_text);
	return error;
}

/* A security update's version: ~debNNuN or +debNNuN (2.9.14+dfsg-1.3~deb12u1). */
