/*
 * The pipeline over a run's inputs (`provenance resolve INPUT...`): each
 * input through prov_pipeline_run, then --fix on each crash, then the
 * determinism line (inputs sharing a signature), then the crash store.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "fixstatus.h"
#include "json.h"
#include "pipeline.h"
#include "report.h"
#include "signature.h"
#include "store.h"
#include "util.h"
#include "banned.h"

#define MAX_SIG_GROUPS 8	/* signature groups named in a cluster log's determinism line */

/* "rank3" and srun's "3" are rank 3; other labels are named as printed */
static long rank_number(const char *label)
{
	const char *p = prov_skip_prefix(label, "rank");
	char *end;
	long v;

	if (!p)
		p = label;
	if (*p < '0' || *p > '9')
		return -1;
	v = strtol(p, &end, 10);
	return *end ? -1 : v;
}

/* "ranks 0-3, 7 and 9" / "rank 5" for the crashes whose signature is `sig` */
static void label_list(struct prov_buf *b, struct prov_crash **cs, char **sigs, size_t n,
		       const char *sig)
{
	char **items = prov_xcalloc(n, sizeof(*items));
	size_t i, k, m = 0, count = 0;

	for (i = 0; i < n; i = k) {
		long r, last;

		k = i + 1;
		if (!sigs[i] || strcmp(sigs[i], sig))
			continue;
		count++;
		r = last = rank_number(cs[i]->label ? cs[i]->label : "");
		/* a run of consecutive ranks is one item, "0-499" */
		while (r >= 0 && k < n && sigs[k] && !strcmp(sigs[k], sig) && cs[k]->label &&
		       rank_number(cs[k]->label) == last + 1) {
			last++;
			count++;
			k++;
		}
		if (r < 0)
			items[m++] = prov_xstrdup(cs[i]->label ? cs[i]->label : "(no label)");
		else if (last > r + 1)
			items[m++] = prov_xasprintf("%ld-%ld", r, last);
		else if (last == r + 1) {
			items[m++] = prov_xasprintf("%ld", r);
			items[m++] = prov_xasprintf("%ld", last);
		} else {
			items[m++] = prov_xasprintf("%ld", r);
		}
	}
	prov_buf_puts(b, count > 1 ? "ranks " : "rank ");
	for (i = 0; i < m; i++) {
		prov_buf_printf(b, "%s%s", i == 0 ? "" : i + 1 == m ? " and " : ", ", items[i]);
		free(items[i]);
	}
	free(items);
}

/*
 * A cluster log's crashes (each with its label): the ranks that share each
 * signature, the biggest group first ("non-deterministic: ranks 0 and 2
 * share this crash signature; rank 1: another"). The same line on each.
 */
static void set_label_determinism(struct prov_crash **cs, char **sigs, size_t n, size_t valid)
{
	struct prov_buf b = PROV_BUF_INIT;
	size_t *size = prov_xcalloc(n, sizeof(*size)), *order = prov_xcalloc(n, sizeof(*order));
	size_t i, k, ngroups = 0;

	/* the first crash of each signature, and how many share it */
	for (i = 0; i < n; i++) {
		if (!sigs[i])
			continue;
		for (k = 0; k < i && (!sigs[k] || strcmp(sigs[k], sigs[i])); k++)
			;
		if (k == i)
			order[ngroups++] = i;
		size[k]++;
	}
	/* biggest first, then in label order (a stable insertion sort) */
	for (i = 1; i < ngroups; i++)
		for (k = i; k > 0 && size[order[k]] > size[order[k - 1]]; k--) {
			size_t t = order[k];

			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	if (ngroups == 1) {
		prov_buf_printf(&b, "deterministic: all %zu ranks share this crash signature", valid);
	} else if (size[order[0]] == 1) {
		prov_buf_printf(&b, "non-deterministic: each of the %zu ranks has its own crash signature",
				valid);
	} else {
		prov_buf_puts(&b, "non-deterministic: ");
		for (i = 0; i < ngroups && i < MAX_SIG_GROUPS; i++) {
			prov_buf_puts(&b, i ? "; " : "");
			label_list(&b, cs, sigs, n, sigs[order[i]]);
			prov_buf_puts(&b, i ? ": another" : " share this crash signature");
		}
		if (ngroups > MAX_SIG_GROUPS)
			prov_buf_printf(&b, "; %zu more signatures", ngroups - MAX_SIG_GROUPS);
	}
	for (i = 0; i < n; i++)
		if (cs[i]) {
			free(cs[i]->determinism);
			cs[i]->determinism = prov_xstrdup(b.buf);
		}
	free(size);
	free(order);
	prov_buf_release(&b);
}

/*
 * How many different functions the crash sites of the inputs sharing
 * signature sig are in (the crashing thread's crash frame; unnamed frames
 * not counted): the same signature reached at different code is what a
 * race or memory corruption does (the runbook's non-deterministic crash).
 */
static size_t crash_site_functions(struct prov_crash **crashes, char **sig, size_t n, const char *same)
{
	const char **seen = prov_xcalloc(n ? n : 1, sizeof(*seen));
	size_t i, k, m = 0;

	for (i = 0; i < n; i++) {
		const struct prov_thread *t;
		const char *fn;
		size_t f;

		if (!crashes[i] || !sig[i] || strcmp(sig[i], same) || !(t = prov_crash_crashed_thread(crashes[i])) ||
		    !t->nframes)
			continue;
		f = t->has_crash_frame ? prov_thread_crash_frame(t) : 0;
		if (f >= t->nframes || !(fn = t->frames[f].function) || !*fn || !strcmp(fn, "??"))
			continue;
		for (k = 0; k < m && strcmp(seen[k], fn); k++)
			;
		if (k == m)
			seen[m++] = fn;
	}
	free(seen);
	return m;
}

/*
 * With several inputs, say in each how many share its crashing thread's
 * signature. Returns 1 when at least two inputs were read and all of them
 * share one signature (the same crash), else 0.
 */
static int set_determinism(struct prov_crash **crashes, size_t n)
{
	char **sig;
	size_t i, k, valid = 0, same_as_first = 0, sites;
	const char *first = NULL;
	int labelled = 0;

	if (n < 2)
		return 0;
	sig = prov_xcalloc(n, sizeof(*sig));
	for (i = 0; i < n; i++)
		if (crashes[i]) {
			sig[i] = prov_crash_signature(crashes[i]);
			valid++;
		}
	for (i = 0; i < n; i++)
		labelled |= crashes[i] && crashes[i]->label;
	if (labelled && valid >= 2) {
		set_label_determinism(crashes, sig, n, valid);
		valid = 0;	/* the loop below is for inputs */
	}
	for (i = 0; i < n && valid >= 2; i++) {
		size_t same = 0;

		if (!sig[i])
			continue;
		for (k = 0; k < n; k++)
			same += sig[k] && strcmp(sig[i], sig[k]) == 0;
		if (!first) {
			first = sig[i];
			same_as_first = same;
		}
		free(crashes[i]->determinism);
		sites = same == valid ? crash_site_functions(crashes, sig, n, sig[i]) : 0;
		if (same == valid && sites > 1)
			crashes[i]->determinism = prov_xasprintf(
				"deterministic: all %zu inputs share this crash signature, but their crash sites are in "
				"%zu different functions: suspect a data race or memory corruption", valid, sites);
		else if (same == valid)
			crashes[i]->determinism = prov_xasprintf(
				"deterministic: all %zu inputs share this crash signature", valid);
		else
			crashes[i]->determinism = prov_xasprintf(
				"non-deterministic: %zu of %zu inputs (%zu%%) share this crash signature",
				same, valid, same * 100 / valid);
	}
	for (i = 0; i < n; i++)
		free(sig[i]);
	free(sig);
	return valid >= 2 && same_as_first == valid;
}

/* Host and time of a crash for its report and the store. */
static void set_host_time(struct prov_crash *c, const char *input, const char *host,
			  const char *when)
{
	struct stat st;
	char buf[21];

	free(c->host);
	c->host = prov_xstrdup_or_null(host);
	free(c->time);
	c->time = NULL;
	if (when) {
		c->time = prov_xstrdup(when);
	} else if (strcmp(input, "-") != 0 && stat(input, &st) == 0) {
		prov_store_format_time(buf, (int64_t)st.st_mtime);
		c->time = prov_xstrdup(buf);
	}
}

/*
 * Record each crash in the store and collect what the store knew of its
 * signature before ("seen 14 times on 9 hosts since ..."), one line per
 * input in `notes`. 0 or an error (the reports are printed anyway).
 */
static int store_crashes(struct prov_buf *notes, struct prov_crash **crashes, size_t n,
			 const char *path)
{
	struct prov_store *store = NULL;
	struct prov_buf json = PROV_BUF_INIT;
	size_t i;
	int err;

	if ((err = prov_store_open(&store, path, 0)) < 0)
		return err;
	for (i = 0; i < n; i++) {
		struct prov_store_meta meta = { 0 };
		struct prov_json j;
		char *sig = NULL, *history = NULL;
		int64_t id;

		if (!crashes[i])
			continue;
		prov_buf_reset(&json);
		prov_json_init(&j, &json);
		prov_json_begin_object(&j);
		prov_report_json_body(&j, crashes[i]);
		prov_json_end_object(&j);
		if ((err = prov_json_finish(&j)) < 0)
			break;
		sig = prov_crash_signature(crashes[i]);
		meta.signature = sig;
		err = prov_store_add(&id, store, json.buf, json.len, &meta);
		free(sig);
		if (err < 0)
			break;
		if ((err = prov_store_history(&history, store, id)) < 0)
			break;
		/* hosts and versions in the store came from other machines' reports */
		for (char *p = history; p && *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		prov_buf_printf(notes, "%s: %s\n", crashes[i]->input_path,
				history ? history : "a new signature for the store");
		free(history);
	}
	prov_buf_release(&json);
	prov_store_free(store);
	return err < 0 ? err : 0;
}

/* One crash of an input: host and time, --fix, then opts->on_input. */
static void crash_done(struct prov_pipeline_input *x, struct prov_crash *c, const char *input,
		       const struct prov_pipeline_opts *opts)
{
	/* only when recording: otherwise the same crash read from a copy, a
	 * compressed file or stdin would give another report */
	if (opts->store || opts->host || opts->time)
		set_host_time(c, input, opts->host, opts->time);
	if (opts->nfixes)
		x->fix_error = prov_fix_status_check(c, opts->fixes, opts->nfixes, opts->component,
						     opts->ctx);
	x->crash = c;
	if (opts->on_input)
		opts->on_input(x, opts->on_input_arg);
}

/* One input: the pipeline, then each of its crashes (one per rank of a cluster log). */
static void run_one(struct prov_pipeline_result *res, size_t *alloc, size_t i, const char *input,
		    const struct prov_pipeline_opts *opts)
{
	struct prov_pipeline_input x = { 0 };
	struct prov_crash **cs = NULL;
	size_t k, n = 0;

	x.index = i;
	x.name = input;
	x.error = prov_pipeline_run_each(&cs, &n, &x.partial, input, opts);
	if (x.error < 0) {
		/* a slot for the failed input, as before: the reports skip it */
		PROV_ALLOC_GROW(res->crashes, res->n + 1, *alloc);
		res->crashes[res->n++] = NULL;
		if (opts->on_input)
			opts->on_input(&x, opts->on_input_arg);
		return;
	}
	x.error = 0;
	PROV_ALLOC_GROW(res->crashes, res->n + n, *alloc);
	for (k = 0; k < n; k++) {
		res->crashes[res->n++] = cs[k];
		crash_done(&x, cs[k], input, opts);
		x.fix_error = 0;
	}
	free(cs);
}

void prov_pipeline_run_all(struct prov_pipeline_result *res, const char *const *inputs,
			   size_t n, const struct prov_pipeline_opts *opts)
{
	size_t i, alloc = 0;

	memset(res, 0, sizeof(*res));
	res->store_notes = (struct prov_buf)PROV_BUF_INIT;
	for (i = 0; i < n; i++)
		run_one(res, &alloc, i, inputs[i], opts);
	if (!res->crashes)
		res->crashes = prov_xcalloc(1, sizeof(*res->crashes));
	res->same_crash = set_determinism(res->crashes, res->n);
	/* a cluster log: one section per rank, even when they all agree */
	for (i = 0; i < res->n; i++)
		if (res->crashes[i] && res->crashes[i]->label)
			res->same_crash = 0;
	if (opts->store) {
		char *path = opts->store_path && *opts->store_path ? prov_xstrdup(opts->store_path) :
			     prov_store_default_path(opts->ctx->cache_dir);

		res->store_error = store_crashes(&res->store_notes, res->crashes, res->n, path);
		free(path);
	}
}

void prov_pipeline_result_release(struct prov_pipeline_result *res)
{
	size_t i;

	for (i = 0; res->crashes && i < res->n; i++)
		prov_crash_free(res->crashes[i]);
	free(res->crashes);
	prov_buf_release(&res->store_notes);
	memset(res, 0, sizeof(*res));
}
