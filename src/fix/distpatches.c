/* The distribution's patches: their list, and which carry, name, touch or undo a fix's hunk. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixeffect.h"
#include "fixeffect-int.h"
#include "srcimport.h"
#include "util.h"
#include "banned.h"

#define MAX_SERIES ((size_t)1 << 20)

void prov_dist_patches_add(struct prov_dist_patches *dp, const char *name, const char *text, size_t len,
			   const char *notes)
{
	struct prov_dist_patch *p;

	dp->v = prov_xrealloc(dp->v, (dp->n + 1) * sizeof(*dp->v));
	p = &dp->v[dp->n++];
	memset(p, 0, sizeof(*p));
	p->name = prov_xstrdup(name);
	prov_hunks_parse(&p->hunks, text, len, 1);
	prov_dep3_parse(&p->dep3, text, len);
	if (notes && *notes) {
		struct prov_dep3 extra;
		size_t i;

		prov_dep3_parse(&extra, notes, strlen(notes));
		for (i = 0; i < extra.ncommits && p->dep3.ncommits < PROV_DEP3_MAX_COMMITS; i++) {
			p->dep3.commits[p->dep3.ncommits++] = extra.commits[i];
			extra.commits[i] = NULL;
		}
		prov_dep3_release(&extra);
	}
}

void prov_dist_patches_release(struct prov_dist_patches *dp)
{
	size_t i;

	for (i = 0; i < dp->n; i++) {
		free(dp->v[i].name);
		prov_hunks_release(&dp->v[i].hunks);
		prov_dep3_release(&dp->v[i].dep3);
	}
	free(dp->v);
	memset(dp, 0, sizeof(*dp));
}

int prov_debian_patches_each(struct prov_repo *pr, const char *commit,
			     void (*fn)(const char *path, int strip, const struct prov_buf *patch, void *arg),
			     void *arg)
{
	struct prov_buf series = PROV_BUF_INIT;
	const char *p, *end;
	char *name = NULL;
	size_t npatches = 0;
	int error, strip;

	error = prov_repo_read_blob(&series, pr, commit, "debian/patches/series", MAX_SERIES);
	if (error == PROV_ENOTFOUND) {
		prov_error_clear();
		error = 0;
		goto cleanup;
	}
	if (error < 0)
		goto cleanup;
	p = series.buf;
	end = series.buf + series.len;
	/* the series as the import read it (srcimport.c); a bad one was refused there */
	while (npatches < PROV_SRCIMPORT_MAX_PATCHES && prov_quilt_series_next(&name, &strip, &p, end) > 0) {
		struct prov_buf patch = PROV_BUF_INIT;
		char *path = prov_xasprintf("debian/patches/%s", name);

		npatches++;
		if (!strstr(name, "..") &&
		    prov_repo_read_blob(&patch, pr, commit, path, PROV_SRCIMPORT_MAX_PATCH) == 0)
			fn(path, strip, &patch, arg);
		prov_error_clear();
		prov_buf_release(&patch);
		free(name);
		free(path);
	}
	error = 0;
cleanup:
	prov_buf_release(&series);
	return error;
}

static void add_debian_patch(const char *path, int strip, const struct prov_buf *patch, void *arg)
{
	struct prov_dist_patches *out = arg;
	size_t before = out->n;

	prov_dist_patches_add(out, path, patch->buf ? patch->buf : "", patch->len, NULL);
	if (strip != 1 && out->n > before) {
		/* the hunks again with the series' -p level */
		prov_hunks_release(&out->v[before].hunks);
		prov_hunks_parse(&out->v[before].hunks, patch->buf ? patch->buf : "", patch->len, strip);
	}
}

int prov_dist_patches_debian(struct prov_dist_patches *out, struct prov_repo *pr, const char *commit)
{
	memset(out, 0, sizeof(*out));
	out->applied = 1;
	return prov_debian_patches_each(pr, commit, add_debian_patch, out);
}

/* 1 when patch path a is, by base name, the fix's file b or the deployed one (may be NULL). */
static int same_base(const char *a, const char *b, const char *deployed_path)
{
	return !strcmp(prov_basename(a), prov_basename(b)) ||
	       (deployed_path && !strcmp(prov_basename(a), prov_basename(deployed_path)));
}

/* The patch carrying hunk h (named ones first), or NULL. */
const char *effect_carried_by(const struct prov_dist_patches *dp, const struct prov_hunk *h,
			      const char *fix_hex, const char *deployed_path)
{
	int pass;
	size_t i, k;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < dp->n; i++) {
			const struct prov_dist_patch *p = &dp->v[i];

			if (prov_dep3_names(&p->dep3, fix_hex) != (pass == 0))
				continue;
			for (k = 0; k < p->hunks.n; k++)
				if ((!strcmp(prov_basename(p->hunks.v[k].path), prov_basename(h->path)) ||
				     (deployed_path &&
				      !strcmp(prov_basename(p->hunks.v[k].path), prov_basename(deployed_path)))) &&
				    prov_hunk_carries(&p->hunks.v[k], h))
					return p->name;
		}
	return NULL;
}

/*
 * The patch (named ones first) whose hunk in h's file (by base name) has h's
 * change re-wrapped in its post-image, its context and + lines
 * (prov_hunk_rewrapped, the fix's file before it read from loc), or NULL.
 */
const char *effect_rewrapped_carried_by(const struct prov_dist_patches *dp, const struct prov_hunk *h,
					const char *fix_hex, const struct located *loc)
{
	struct prov_buf post = PROV_BUF_INIT;
	const char *found = NULL;
	size_t i, k, j;
	int pass;

	for (pass = 0; pass < 2 && !found; pass++)
		for (i = 0; i < dp->n && !found; i++) {
			const struct prov_dist_patch *p = &dp->v[i];

			if (prov_dep3_names(&p->dep3, fix_hex) != (pass == 0))
				continue;
			for (k = 0; k < p->hunks.n && !found; k++) {
				const struct prov_hunk *ph = &p->hunks.v[k];

				if (!same_base(ph->path, h->path, loc->deployed))
					continue;
				prov_buf_reset(&post);
				for (j = 0; j < ph->n; j++)
					if (ph->origin[j] == ' ' || ph->origin[j] == '+')
						if (prov_buf_puts(&post, ph->lines[j]) < 0 || prov_buf_putc(&post, '\n') < 0)
							goto cleanup;
				if (post.len && prov_hunk_rewrapped(h, post.buf, post.len, loc->pre_text.buf, loc->pre_text.len))
					found = p->name;
			}
		}
cleanup:
	prov_buf_release(&post);
	return found;
}

/*
 * A patch that names the fix (DEP-3, trailers) and carries hunk h's changed
 * lines in any of its hunks, whatever the file (the code lived elsewhere in
 * the release, a test file under another name), or NULL.
 */
const char *effect_carried_by_naming(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				     const char *fix_hex)
{
	size_t i, k;

	for (i = 0; i < dp->n; i++) {
		const struct prov_dist_patch *p = &dp->v[i];

		if (!prov_dep3_names(&p->dep3, fix_hex))
			continue;
		for (k = 0; k < p->hunks.n; k++)
			if (prov_hunk_carries(&p->hunks.v[k], h))
				return p->name;
	}
	return NULL;
}

/*
 * A patch naming the fix whose hunks in h's file (by base name) add every
 * name h brings into the file (prov_hunk_names_added_by), or NULL.
 */
const char *effect_names_by_naming(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				   const char *fix_hex, const struct prov_hunk_file *pre, const char *deployed_path)
{
	const struct prov_hunk **v = NULL;
	const char *found = NULL;
	size_t i, k, n;

	for (i = 0; i < dp->n && !found; i++) {
		const struct prov_hunks *hs = &dp->v[i].hunks;

		if (!prov_dep3_names(&dp->v[i].dep3, fix_hex))
			continue;
		v = prov_xrealloc(v, (hs->n + 1) * sizeof(*v));
		for (k = 0, n = 0; k < hs->n; k++)
			if (same_base(hs->v[k].path, h->path, deployed_path))
				v[n++] = &hs->v[k];
		if (n && prov_hunk_names_added_by(h, pre, v, n))
			found = dp->v[i].name;
	}
	free(v);
	return found;
}

/* 1 when a patch naming the fix changes the hunk's file (by base name, the fix's or the deployed one). */
int effect_naming_patch_changes(const struct prov_dist_patches *dp, const char *fix_hex, const struct prov_hunk *h,
				const char *deployed_path)
{
	size_t i, k;

	for (i = 0; dp && i < dp->n; i++) {
		const struct prov_dist_patch *p = &dp->v[i];

		if (!prov_dep3_names(&p->dep3, fix_hex))
			continue;
		for (k = 0; k < p->hunks.n; k++)
			if (!strcmp(prov_basename(p->hunks.v[k].path), prov_basename(h->path)) ||
			    (deployed_path && !strcmp(prov_basename(p->hunks.v[k].path), prov_basename(deployed_path))))
				return 1;
	}
	return 0;
}

/*
 * Absent hunk h in a file a patch naming the fix changes: none of the names
 * h brings is in the deployed file or in a line such a patch adds
 * (prov_hunk_names_nowhere): the backport did that part its own way.
 */
int effect_own_mechanism_left_out(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				  const char *fix_hex, const struct located *loc)
{
	const struct prov_hunk **v = NULL;
	size_t i, k, n = 0;
	int r;

	if (!loc->have_pre || !effect_naming_patch_changes(dp, fix_hex, h, loc->deployed))
		return 0;
	for (i = 0; i < dp->n; i++) {
		if (!prov_dep3_names(&dp->v[i].dep3, fix_hex))
			continue;
		v = prov_xrealloc(v, (n + dp->v[i].hunks.n + 1) * sizeof(*v));
		for (k = 0; k < dp->v[i].hunks.n; k++)
			v[n++] = &dp->v[i].hunks.v[k];
	}
	r = prov_hunk_names_nowhere(h, &loc->pre, &loc->f, v, n);
	free(v);
	return r;
}

/*
 * Patches not applied to the tree (RPM): does one change the lines this hunk
 * changes (one of its - lines is a - line of the hunk), differently? Then
 * "absent" in the upstream tree proves nothing.
 */
int effect_touched_by(const struct prov_dist_patches *dp, const struct prov_hunk *h)
{
	size_t i, k, a, b;

	for (i = 0; i < dp->n; i++)
		for (k = 0; k < dp->v[i].hunks.n; k++) {
			const struct prov_hunk *ph = &dp->v[i].hunks.v[k];

			if (strcmp(prov_basename(ph->path), prov_basename(h->path)))
				continue;
			for (a = 0; a < ph->n; a++)
				for (b = 0; ph->origin[a] == '-' && b < h->n; b++)
					if (h->origin[b] == '-' && ph->lines[a][0] && !strcmp(ph->lines[a], h->lines[b]))
						return 1;
		}
	return 0;
}

/*
 * A patch of the series carries hunk h and a later patch removes its +
 * lines again (its code moved or reworded by a later fix, or the fix
 * reverted in part by a regression fix): that later patch (name), or NULL;
 * *carrier: the patch carrying h; *revert: 1 when the later patch puts
 * back what h removed (prov_hunk_restores_removed). Only the first patch
 * carrying h (one naming the fix first) is followed.
 */
const char *effect_undone_by_later(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				   const char *fix_hex, const char *deployed_path, const char **carrier, int *revert)
{
	const struct prov_hunk **v = NULL;
	const char *found = NULL;
	size_t i = dp->n, j, k, n;
	int pass;

	for (pass = 0; pass < 2 && i == dp->n; pass++)	/* patches naming the fix first */
		for (i = 0; i < dp->n; i++) {
			const struct prov_dist_patch *p = &dp->v[i];

			if (prov_dep3_names(&p->dep3, fix_hex) != (pass == 0))
				continue;
			for (k = 0; k < p->hunks.n; k++)
				if (same_base(p->hunks.v[k].path, h->path, deployed_path) &&
				    prov_hunk_carries(&p->hunks.v[k], h))
					break;
			if (k < p->hunks.n)
				break;
		}
	for (j = i + 1; j < dp->n && !found; j++) {
		const struct prov_hunks *hs = &dp->v[j].hunks;

		v = prov_xrealloc(v, (hs->n + 1) * sizeof(*v));
		for (k = 0, n = 0; k < hs->n; k++)
			if (same_base(hs->v[k].path, h->path, deployed_path))
				v[n++] = &hs->v[k];
		if (n && prov_hunk_removes_added(v, n, h)) {
			found = dp->v[j].name;
			*carrier = dp->v[i].name;
			*revert = prov_hunk_restores_removed(hs->v, hs->n, h);
		}
	}
	free(v);
	return found;
}
