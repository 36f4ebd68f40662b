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

/*
 * With several inputs, say in each how many share its crashing thread's
 * signature. Returns 1 when at least two inputs were read and all of them
 * share one signature (the same crash), else 0.
 */
static int set_determinism(struct prov_crash **crashes, size_t n)
{
	char **sig;
	size_t i, k, valid = 0, same_as_first = 0;
	const char *first = NULL;

	if (n < 2)
		return 0;
	sig = prov_xcalloc(n, sizeof(*sig));
	for (i = 0; i < n; i++)
		if (crashes[i]) {
			sig[i] = prov_crash_signature(crashes[i]);
			valid++;
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
		if (same == valid)
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

/* One input: the pipeline, host and time, --fix. */
static void run_one(struct prov_pipeline_result *res, size_t i, const char *input,
		    const struct prov_pipeline_opts *opts)
{
	struct prov_pipeline_input x = { 0 };

	x.index = i;
	x.name = input;
	x.error = prov_pipeline_run(&res->crashes[i], &x.partial, input, opts);
	if (x.error >= 0) {
		x.error = 0;
		/* only when recording: otherwise the same crash read from a copy, a
		 * compressed file or stdin would give another report */
		if (opts->store || opts->host || opts->time)
			set_host_time(res->crashes[i], input, opts->host, opts->time);
		if (opts->nfixes) {
			x.fix_error = prov_fix_status_check(res->crashes[i], opts->fixes, opts->nfixes,
							    opts->component, opts->ctx);
		}
		x.crash = res->crashes[i];
	}
	if (opts->on_input)
		opts->on_input(&x, opts->on_input_arg);
}

void prov_pipeline_run_all(struct prov_pipeline_result *res, const char *const *inputs,
			   size_t n, const struct prov_pipeline_opts *opts)
{
	size_t i;

	memset(res, 0, sizeof(*res));
	res->store_notes = (struct prov_buf)PROV_BUF_INIT;
	res->n = n;
	res->crashes = prov_xcalloc(n ? n : 1, sizeof(*res->crashes));
	for (i = 0; i < n; i++)
		run_one(res, i, inputs[i], opts);
	res->same_crash = set_determinism(res->crashes, n);
	if (opts->store) {
		char *path = opts->store_path && *opts->store_path ? prov_xstrdup(opts->store_path) :
			     prov_store_default_path(opts->ctx->cache_dir);

		res->store_error = store_crashes(&res->store_notes, res->crashes, n, path);
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
