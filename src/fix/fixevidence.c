/* What a hunk's own lines tell (removed definitions, added includes, new files), as evidence. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixeffect.h"
#include "fixeffect-int.h"
#include "util.h"
#include "banned.h"

#define MAX_REMOVED_NAMES 8

/* The function a line at the margin defines or declares ("int f(void);", "f(int a)"): its name, or NULL. */
static char *margin_function(const char *l)
{
	const char *p = l, *start = NULL;

	if (!*l || isspace((unsigned char)*l) || !(isalpha((unsigned char)*l) || *l == '_'))
		return NULL;
	while (*p) {
		if (isalnum((unsigned char)*p) || *p == '_') {
			if (!start)
				start = p;
			p++;
			continue;
		}
		if (start) {
			const char *q = p;

			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '(')
				return prov_xstrndup(start, (size_t)(p - start));
			start = NULL;
		}
		if (*p == '=' || *p == ';' || *p == '(')
			return NULL;	/* a variable, a statement, a cast */
		p++;
	}
	return NULL;
}

/* 1 when line l is indented and calls `name` (the name, blanks, "("). */
static int calls(const char *l, size_t n, const char *name)
{
	size_t k = strlen(name);
	const char *p = l, *end = l + n;

	if (!n || !isspace((unsigned char)*l))
		return 0;
	while ((p = memmem(p, (size_t)(end - p), name, k))) {
		const char *q = p + k;

		if ((p == l || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			if (q < end && *q == '(')
				return 1;
		}
		p++;
	}
	return 0;
}

/*
 * Hunk h only removes lines, among them a function's definition or
 * declaration, and the deployed tree still calls that function: in the
 * deployed file (a line that is not one of h's), or in a line a
 * distribution patch adds (its own code using it). A backport keeps code
 * the release still uses: that hunk is not the fix's effect there.
 */
int effect_removes_used_function(const struct prov_hunk *h, const struct located *loc,
				 const struct prov_dist_patches *dp)
{
	char *names[MAX_REMOVED_NAMES];
	size_t nn = 0, i, k, j;
	int used = 0;

	for (i = 0; i < h->n; i++)
		if (h->origin[i] == '+' && h->lines[i][strspn(h->lines[i], " \t")])
			return 0;
	for (i = 0; i < h->n && nn < MAX_REMOVED_NAMES; i++)
		if (h->origin[i] == '-' && (names[nn] = margin_function(h->lines[i])))
			nn++;
	for (k = 0; k < nn && !used; k++) {
		const char *p = loc->text, *end = loc->text ? loc->text + loc->len : NULL;

		while (p && p < end && !used) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);

			if (calls(p, ll, names[k])) {
				used = 1;
				for (i = 0; i < h->n && used; i++)
					if (h->origin[i] == '-' && strlen(h->lines[i]) == ll && !memcmp(h->lines[i], p, ll))
						used = 0;	/* the hunk's own line */
			}
			p = nl ? nl + 1 : end;
		}
		for (i = 0; dp && i < dp->n && !used; i++)
			for (j = 0; j < dp->v[i].hunks.n && !used; j++) {
				const struct prov_hunk *ph = &dp->v[i].hunks.v[j];
				size_t q;

				for (q = 0; q < ph->n && !used; q++)
					used = ph->origin[q] == '+' && calls(ph->lines[q], strlen(ph->lines[q]), names[k]);
			}
	}
	for (k = 0; k < nn; k++)
		free(names[k]);
	return used;
}

/*
 * 1 when hunk h removes no line (blank ones aside) and adds one with four
 * letters or digits: an addition that says something (not a lone "}").
 */
int effect_adds_only(const struct prov_hunk *h)
{
	size_t i, k, said = 0;

	for (i = 0; i < h->n; i++) {
		const char *l = h->lines[i];

		if (h->origin[i] == '-' && l[strspn(l, " \t\r")])
			return 0;
		if (h->origin[i] == '+' && !said) {
			for (k = 0; *l && k < 4; l++)
				k += isalnum((unsigned char)*l) != 0;
			said = k >= 4;
		}
	}
	return (int)said;
}

/*
 * 1 when hunk h only adds #include lines of headers the deployed tree has
 * under no name (a helper the release does not have: a backport does the
 * work inline and cannot include it).
 */
int effect_adds_absent_headers_only(const struct prov_hunk *h, const struct prov_effect_tree *t)
{
	size_t i, k, nadd = 0;

	for (i = 0; i < h->n; i++) {
		const char *l = h->lines[i], *q, *e;
		char *name, **cand = NULL;
		size_t ncand = 0;
		int error;

		if (h->origin[i] == '-')
			return 0;
		if (h->origin[i] != '+')
			continue;
		l += strspn(l, " \t");
		if (!*l)
			continue;
		if (strncmp(l, "#include", 8) || !(q = strpbrk(l + 8, "\"<")) ||
		    !(e = strchr(q + 1, *q == '<' ? '>' : '"')) || e == q + 1)
			return 0;
		name = prov_xstrndup(q + 1, (size_t)(e - q - 1));
		error = prov_repo_find_basename(&cand, &ncand, t->tree_repo ? t->tree_repo : t->r,
						t->tree_commit ? t->tree_commit : t->deployed_hex,
						prov_basename(name), 1);
		prov_error_clear();
		for (k = 0; k < ncand; k++)
			free(cand[k]);
		free(cand);
		free(name);
		if (error < 0 || ncand)
			return 0;
		nadd++;
	}
	return nadd > 0;
}

int effect_add_evidence(struct prov_effect *out, const char *fix_hex, const struct prov_hunk *h,
			const struct located *loc, enum prov_hunk_state st, const char *via)
{
	struct prov_fix_evidence *e;

	out->ev = prov_xrealloc(out->ev, (out->n + 1) * sizeof(*out->ev));
	e = &out->ev[out->n++];
	memset(e, 0, sizeof(*e));
	e->commit = prov_xstrdup(fix_hex);
	e->file = prov_xstrdup(h->path);
	if (loc && loc->deployed && strcmp(loc->deployed, h->path))
		e->deployed_file = prov_xstrdup(loc->deployed);
	e->hunk = prov_xstrdup(h->header);
	e->function = prov_xstrdup_or_null(h->function);
	e->state = prov_hunk_state_name(st);
	e->via = prov_xstrdup_or_null(via);
	switch (st) {
	case PROV_HUNK_PRESENT_EXACT:
		out->nexact++;
		break;
	case PROV_HUNK_PRESENT_CHANGED:
		out->nchanged++;
		break;
	case PROV_HUNK_ABSENT:
		out->nabsent++;
		break;
	case PROV_HUNK_TEST_ONLY:
		out->ntest++;
		break;
	default:
		out->nunknown++;
	}
	return 0;
}

static int same_dir(const char *a, const char *b)
{
	size_t la = (size_t)(prov_basename(a) - a), lb = (size_t)(prov_basename(b) - b);

	return la == lb && !strncmp(a, b, la);
}

/*
 * A new test file the deployed tree lacks is not "not shipped" when the
 * tree has another file of the fix in that same directory (the tests there
 * are shipped): it is absent, like `patch --dry-run` says. Not when a
 * patch names the fix (a backport may leave a test out, or rename it).
 */
void effect_shipped_new_tests(struct prov_effect *out, const struct prov_hunks *hs, const struct located *locs,
			      size_t nlocs)
{
	size_t i, k;

	if (out->named_by)
		return;	/* a patch naming the fix may leave a test out: not proof */
	for (i = 0; i < hs->n && i < out->n; i++) {
		struct prov_fix_evidence *e = &out->ev[i];

		if (!hs->v[i].new_file || strcmp(e->state, prov_hunk_state_name(PROV_HUNK_TEST_ONLY)))
			continue;
		for (k = 0; k < nlocs; k++)
			if (locs[k].found && locs[k].deployed && !strcmp(locs[k].deployed, locs[k].path) &&
			    same_dir(locs[k].path, hs->v[i].path)) {
				e->state = prov_hunk_state_name(PROV_HUNK_ABSENT);
				out->ntest--;
				out->nabsent++;
				break;
			}
	}
}

/*
 * A new file of the fix that the deployed tree lacks is evidence of absence
 * only when none of the fix's other hunks is present: with them present, the
 * backport did the work elsewhere (a helper inlined), not applicable.
 */
void effect_new_files_apart(struct prov_effect *out, const struct prov_hunks *hs)
{
	size_t i, present = 0;

	for (i = 0; i < hs->n && i < out->n; i++)
		if (!hs->v[i].new_file && (!strcmp(out->ev[i].state, prov_hunk_state_name(PROV_HUNK_PRESENT_EXACT)) ||
					   !strcmp(out->ev[i].state, prov_hunk_state_name(PROV_HUNK_PRESENT_CHANGED))))
			present++;
	for (i = 0; present && i < hs->n && i < out->n; i++) {
		struct prov_fix_evidence *e = &out->ev[i];

		if (!hs->v[i].new_file || strcmp(e->state, prov_hunk_state_name(PROV_HUNK_ABSENT)) ||
		    prov_hunk_is_test_path(e->file))
			continue;
		e->state = prov_hunk_state_name(PROV_HUNK_UNKNOWN);
		e->note = "a new file of the fix; the deployed tree has the fix's other changes without it";
		out->nabsent--;
		out->nunknown++;
		out->nna++;
	}
}
