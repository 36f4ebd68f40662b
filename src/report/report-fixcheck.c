/* fixcheck's output: one JSON object per fix, or one line of text per fix. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "util.h"
#include "banned.h"

static void json_words(struct prov_json *j, const char *key, const char *list, const char *sep)
{
	const char *p = list;

	prov_json_key(j, key);
	if (!list) {
		prov_json_null(j);
		return;
	}
	prov_json_begin_array(j);
	while (*p) {
		size_t l = strcspn(p, sep);
		char *w = prov_xstrndup(p, l);

		if (l)
			prov_json_string(j, w);
		free(w);
		p += l;
		p += strspn(p, sep);
	}
	prov_json_end_array(j);
}

/* "a b" of full ids -> "a12 b12"; patch names as they are. */
static void short_via(struct prov_buf *b, const char *via)
{
	const char *p = via;

	while (p && *p) {
		size_t l = strcspn(p, " ");

		if (b->len && b->buf[b->len - 1] != ' ' && b->buf[b->len - 1] != '(')
			prov_buf_putc(b, ' ');
		prov_buf_add(b, p, l == 40 ? 12 : l);
		p += l;
		p += strspn(p, " ");
	}
}

static int fixcheck_json(struct prov_buf *out, const struct prov_fixcheck *r)
{
	struct prov_json j;
	size_t i, k;

	prov_json_init(&j, out);
	prov_json_begin_array(&j);
	for (i = 0; i < r->n; i++) {
		const struct prov_fixcheck_item *it = &r->items[i];
		const struct prov_backport *bp = &it->bp;

		prov_json_begin_object(&j);
		prov_json_kv_string(&j, "schema", "provenance/1");
		prov_json_kv_string(&j, "fix", it->fix);
		prov_json_kv_string(&j, "deployed", r->deployed);
		if (bp->undetermined && !it->note)
			prov_json_kv_null(&j, "included");
		else
			prov_json_kv_bool(&j, "included", it->note ? 0 : bp->included);
		if (it->note) {
			prov_json_kv_string(&j, "deployed_is", "approximate");
			prov_json_kv_string(&j, "note", it->note);
		}
		prov_json_kv_string(&j, "how", bp->how);
		prov_json_kv_string(&j, "via", bp->via);
		prov_json_kv_string(&j, "first_tag", bp->first_tag);
		prov_json_kv_string(&j, "component", r->component);
		json_words(&j, "files_present", bp->files_present, ", ");
		json_words(&j, "files_missing", bp->files_missing, ", ");
		prov_json_kv_string(&j, "branch", bp->branch);
		prov_json_kv_string(&j, "branch_tag", bp->branch_tag);
		prov_json_kv_string(&j, "branch_via", bp->branch_via);
		prov_json_kv_string(&j, "patch_id", bp->patchid);
		prov_json_key(&j, "commits");
		prov_json_begin_array(&j);
		for (k = 0; k < it->ncommits; k++)
			prov_json_string(&j, it->commits[k]);
		prov_json_end_array(&j);
		json_words(&j, "commits_missing", bp->commits_missing, " ");
		prov_report_json_fix_evidence(&j, bp->evidence, bp->nevidence);
		json_words(&j, "named_by", bp->named_by, " ");
		prov_json_kv_string(&j, "reason", bp->reason);
		prov_json_end_object(&j);
	}
	prov_json_end_array(&j);
	return prov_json_finish(&j);
}

/* After "YES|NO|PARTIAL <fix> ... (first in tag T)": how it is in, or what is missing. */
static void text_how(struct prov_buf *out, const struct prov_backport *bp, int partial)
{
	if (bp->undetermined) {
		prov_buf_printf(out, ": could not be determined: %s", bp->reason ? bp->reason : "?");
		return;	/* no advice on a guess */
	} else if (bp->how && !strcmp(bp->how, "ancestor")) {
		prov_buf_puts(out, ": ancestor");
	} else if (bp->how && !strcmp(bp->how, "missing")) {
		/* "NO" says it; the hunks follow at the end */
	} else if (bp->how && !partial) {
		prov_buf_printf(out, ": %s ", bp->how);
		short_via(out, bp->via);
	} else if (partial && bp->commits_missing) {
		prov_buf_puts(out, ": partial, missing ");
		short_via(out, bp->commits_missing);
		if (bp->via) {
			prov_buf_puts(out, " (in: ");
			short_via(out, bp->via);
			prov_buf_putc(out, ')');
		}
		if (bp->files_missing)
			prov_buf_printf(out, ", files not changed as the fix does: %s", bp->files_missing);
	} else if (partial) {
		prov_buf_printf(out, ": partial, %s changed as the fix does (", bp->files_present);
		short_via(out, bp->via);
		prov_buf_printf(out, "), not %s", bp->files_missing);
	}
	if (!bp->included && bp->branch_tag) {
		prov_buf_printf(out, "; upgrade to %s, same branch %s (cherry-pick ",
				bp->branch_tag, bp->branch);
		short_via(out, bp->branch_via);
		prov_buf_putc(out, ')');
	} else if (!bp->included && bp->first_tag) {
		prov_buf_printf(out, "; upgrade to %s or backport it", bp->first_tag);
	}
}

static void fixcheck_text(struct prov_buf *out, const struct prov_fixcheck *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct prov_fixcheck_item *it = &r->items[i];
		const struct prov_backport *bp = &it->bp;
		int partial = bp->how && !strcmp(bp->how, "partial");

		if (it->note) {
			prov_buf_printf(out, "UNKNOWN %s (%s): %s\n", it->arg, r->component, it->note);
			continue;
		}
		prov_buf_printf(out, "%s %s", bp->included ? "YES" : partial ? "PARTIAL" :
				bp->undetermined ? "UNKNOWN" : "NO", it->arg);
		if (it->ncommits > 1)
			prov_buf_printf(out, " [%zu commits]", it->ncommits);
		prov_buf_printf(out, " %s %s", bp->included ? "is in" : partial ? "is partly in" :
				bp->undetermined ? "may or may not be in" : "is not in", r->at_label);
		if (r->debsrc)
			prov_buf_printf(out, " + %s", r->debsrc);
		if (r->rpmspec)
			prov_buf_printf(out, " + %s", prov_basename(r->rpmspec));
		if (r->component)
			prov_buf_printf(out, " (%s)", r->component);
		if (bp->first_tag)
			prov_buf_printf(out, " (first in tag %s)", bp->first_tag);
		else
			prov_buf_puts(out, " (in no tag)");
		text_how(out, bp, partial);
		prov_report_fix_evidence(out, bp->evidence, bp->nevidence, bp->how);
		prov_buf_putc(out, '\n');
	}
}

int prov_report_fixcheck(struct prov_buf *out, const struct prov_fixcheck *r,
			 enum prov_format format)
{
	if (format == PROV_FORMAT_JSON)
		return fixcheck_json(out, r);
	fixcheck_text(out, r);
	return 0;
}
