/* Reading a stored report, alike on both backends: fields, signature, identity hash, crash row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"
#include "store-int.h"
#include "buf.h"
#include "error.h"
#include "jsonread.h"
#include "sha256.h"
#include "signature.h"
#include "util.h"
#include "banned.h"

const struct prov_jv *store_jget(const struct prov_jv *v, const char *key)
{
	return v && v->type == PROV_JV_OBJECT ? prov_jv_get(v, key) : NULL;
}

const char *store_jstr(const struct prov_jv *v, const char *key)
{
	return prov_jv_str(store_jget(v, key));
}

int store_jint(int64_t *out, const struct prov_jv *v)
{
	if (!v || v->type != PROV_JV_NUMBER || !v->str)
		return -1;
	return prov_parse_i64(out, v->str, v->len) < 0 ? -1 : 0;
}

const struct prov_jv *store_jarray(const struct prov_jv *v, const char *key)
{
	const struct prov_jv *a = store_jget(v, key);

	return a && a->type == PROV_JV_ARRAY ? a : NULL;
}

const struct prov_jv *store_crashed_thread(const struct prov_jv *report, size_t *index)
{
	const struct prov_jv *threads = store_jarray(report, "threads");
	size_t i;

	for (i = 0; threads && i < threads->n; i++) {
		const struct prov_jv *c = store_jget(&threads->items[i], "crashed");

		if (c && c->type == PROV_JV_BOOL && c->boolean) {
			if (index)
				*index = i;
			return &threads->items[i];
		}
	}
	return NULL;
}

static int jtrue(const struct prov_jv *v, const char *key)
{
	const struct prov_jv *b = store_jget(v, key);

	return b && b->type == PROV_JV_BOOL && b->boolean;
}

/* 1 when the report's module at `path` had its debug info from a file other than its own. */
static int separate_debug(const struct prov_jv *report, const char *path)
{
	const struct prov_jv *mods = store_jarray(report, "modules");
	size_t i;

	for (i = 0; path && mods && i < mods->n; i++) {
		const char *p = store_jstr(&mods->items[i], "path");
		const char *file = store_jstr(&mods->items[i], "file");
		const char *debug = store_jstr(&mods->items[i], "debug_file");

		if (p && strcmp(p, path) == 0)
			return debug && (!file || strcmp(debug, file) != 0);
	}
	return 0;
}

/* The signature of a stored report: the rule of prov_crash_signature (signature.h). */
char *store_signature(const struct prov_jv *report)
{
	const struct prov_jv *sig = store_jget(report, "signal"), *t = store_crashed_thread(report, NULL);
	const struct prov_jv *frames = store_jarray(t, "frames");
	const char *kind = store_jstr(store_jget(report, "input"), "kind");
	struct prov_sig_frame *f = NULL;
	int64_t number = 0, crash_index = -1, index;
	size_t i, n = frames ? frames->n : 0, from;
	char *out;

	if (store_jint(&number, store_jget(sig, "number")) < 0 || number < 0 || number > 1024)
		number = 0;
	if (store_jint(&crash_index, store_jget(t, "crash_frame")) < 0)
		crash_index = -1;
	/* a core's analyzer decided the crash site; a text backtrace leaves it to the rules */
	from = kind && strcmp(kind, "core") == 0 ? 0 : (size_t)-1;
	if (n)
		f = prov_xcalloc(n, sizeof(*f));
	for (i = 0; i < n; i++) {
		const struct prov_jv *fr = &frames->items[i];
		const char *lang = store_jstr(fr, "language");

		f[i].function = store_jstr(fr, "function");
		f[i].module = store_jstr(fr, "module");
		f[i].python = lang && strcmp(lang, "python") == 0;
		f[i].signal_frame = jtrue(fr, "signal_frame");
		f[i].in_handler = jtrue(fr, "in_signal_handler");
		f[i].inlined = jtrue(fr, "inlined");
		f[i].separate_debug = separate_debug(report, f[i].module);
		if (crash_index >= 0 && store_jint(&index, store_jget(fr, "index")) == 0 && index == crash_index)
			from = i;
	}
	out = prov_signature_frames((int)number, f, n, from);
	free(f);
	return out;
}

int store_check_report(const struct prov_jv *r)
{
	const char *schema = store_jstr(r, "schema");

	if (!r || r->type != PROV_JV_OBJECT)
		return prov_error_set(PROV_EINPUT, "not a JSON object");
	if (!schema || strcmp(schema, "provenance/1") != 0)
		return prov_error_set(PROV_EINPUT, "not a provenance report (no \"schema\": \"provenance/1\")");
	if (!store_jarray(r, "threads"))
		return prov_error_set(PROV_EINPUT, "a report without \"threads\"");
	return 0;
}

char *prov_store_signature_of(const char *json, size_t len)
{
	struct prov_jv *r = NULL;
	char *sig = NULL;

	if (prov_jv_parse(&r, json, len) < 0)
		return NULL;
	if (store_check_report(r) == 0)
		sig = store_signature(r);
	prov_jv_free(r);
	return sig;
}

/*
 * A canonical byte stream of a value for the content hash: the same report
 * pretty-printed or on one line hashes alike. "determinism" is left out:
 * it says how many inputs of one run shared the crash, not what crashed.
 */
void store_hash_value(struct prov_sha256 *h, const struct prov_jv *v, int top)
{
	char tag[24];
	size_t i;

	snprintf(tag, sizeof(tag), "%d:%zu:", (int)v->type,
		 v->type == PROV_JV_ARRAY || v->type == PROV_JV_OBJECT ? v->n : v->len);
	prov_sha256_update(h, tag, strlen(tag));
	switch (v->type) {
	case PROV_JV_BOOL:
		prov_sha256_update(h, v->boolean ? "t" : "f", 1);
		break;
	case PROV_JV_NUMBER:
	case PROV_JV_STRING:
		prov_sha256_update(h, v->str, v->len);
		break;
	case PROV_JV_ARRAY:
		for (i = 0; i < v->n; i++)
			store_hash_value(h, &v->items[i], 0);
		break;
	case PROV_JV_OBJECT:
		for (i = 0; i < v->n; i++) {
			if (top && !strcmp(v->keys[i], "determinism"))
				continue;
			prov_sha256_update(h, v->keys[i], strlen(v->keys[i]) + 1);
			store_hash_value(h, &v->items[i], 0);
		}
		break;
	default:
		break;
	}
}

void store_report_read(struct store_report *out, const struct prov_jv *r,
		       const struct prov_store_meta *meta)
{
	const struct prov_jv *crash = store_jget(r, "crash");
	const struct prov_jv *pats = store_jarray(crash, "patterns");
	const struct prov_jv *image = store_jget(store_jget(r, "input"), "sysroot");
	const char *time_s = store_jstr(crash, "time");
	unsigned char digest[PROV_SHA256_LEN];
	struct prov_buf patterns = PROV_BUF_INIT;
	struct prov_sha256 h;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->host = store_jstr(crash, "host");
	if (!out->host || !*out->host)
		out->host = meta && meta->host ? meta->host : "unknown";
	if (time_s && prov_store_parse_time(out->normtime, time_s) == 0)
		out->time = out->normtime;
	else
		out->time = meta ? meta->time : NULL;
	out->signature = meta && meta->signature ? prov_xstrdup(meta->signature) :
			 store_signature(r);
	out->image[0] = store_jstr(image, "kind");
	out->image[1] = store_jstr(image, "digest");
	out->image[2] = store_jstr(image, "ref");

	prov_sha256_init(&h);
	store_hash_value(&h, r, 1);
	prov_sha256_update(&h, out->host, strlen(out->host) + 1);
	if (out->time)
		prov_sha256_update(&h, out->time, strlen(out->time) + 1);
	prov_sha256_final(digest, &h);
	for (i = 0; i < PROV_SHA256_LEN; i++)
		snprintf(out->hash + 2 * i, 3, "%02x", digest[i]);

	for (i = 0; pats && i < pats->n; i++) {
		const char *id = store_jstr(&pats->items[i], "id");

		if (id)
			prov_buf_printf(&patterns, "%s%s", patterns.len ? "," : "", id);
	}
	out->patterns = patterns.len ? prov_buf_detach(&patterns) : NULL;
	prov_buf_release(&patterns);
	prov_store_format_time(out->now, (int64_t)time(NULL));
}

void store_report_release(struct store_report *rep)
{
	free(rep->signature);
	free(rep->patterns);
	rep->signature = rep->patterns = NULL;
}
