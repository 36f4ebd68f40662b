/* env's output: the installed components as a text table, Markdown or JSON. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "util.h"
#include "banned.h"

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* As resolve names them: the mapping's component, else the package. */
static const char *shown_name(const struct prov_origin *o, const struct prov_env_map *m)
{
	return m && m->component ? m->component : o->name;
}

static void md_cell(struct prov_buf *b, const char *s)
{
	prov_buf_puts(b, " ");
	for (; s && *s; s++) {
		if (*s == '|')
			prov_buf_puts(b, "\\|");
		else if (*s == '\n' || *s == '\r')
			prov_buf_putc(b, ' ');
		else
			prov_buf_putc(b, *s);
	}
	prov_buf_puts(b, " |");
}

static void write_markdown(struct prov_buf *b, const struct prov_origin *const *v, size_t n,
			   const struct prov_env_map *map)
{
	size_t i;

	prov_buf_puts(b, "| Component | Version | Git Hash |\n|---|---|---|\n");
	for (i = 0; i < n; i++) {
		prov_buf_putc(b, '|');
		md_cell(b, shown_name(v[i], &map[i]));
		md_cell(b, v[i]->version);
		if (v[i]->commit && map[i].commit_is && !strcmp(map[i].commit_is, "approximate")) {
			char *cellv = prov_xasprintf("%s (approximate)", v[i]->commit);

			md_cell(b, cellv);
			free(cellv);
		} else {
			md_cell(b, v[i]->commit);
		}
		prov_buf_putc(b, '\n');
	}
}

static size_t width(const char *s)
{
	return s ? strlen(s) : 0;
}

static void pad(struct prov_buf *b, const char *s, size_t w)
{
	size_t l = width(s);

	prov_buf_puts(b, or_empty(s));
	while (l++ < w)
		prov_buf_putc(b, ' ');
}

static void write_text(struct prov_buf *b, const struct prov_origin *const *v, size_t n,
		       const struct prov_env_map *map)
{
	size_t i, wn = strlen("COMPONENT"), wv = strlen("VERSION"), wc = strlen("GIT HASH");

	for (i = 0; i < n; i++) {
		if (width(shown_name(v[i], &map[i])) > wn)
			wn = width(shown_name(v[i], &map[i]));
		if (width(v[i]->version) > wv)
			wv = width(v[i]->version);
		if (width(v[i]->commit) > wc)
			wc = width(v[i]->commit);
	}
	if (wn > 60)
		wn = 60;
	if (wv > 40)
		wv = 40;
	pad(b, "COMPONENT", wn + 2);
	pad(b, "VERSION", wv + 2);
	pad(b, "GIT HASH", wc + 2);
	prov_buf_puts(b, "FOUND BY\n");
	for (i = 0; i < n; i++) {
		pad(b, shown_name(v[i], &map[i]) ? shown_name(v[i], &map[i]) : "-", wn + 2);
		pad(b, v[i]->version ? v[i]->version : "-", wv + 2);
		pad(b, v[i]->commit ? v[i]->commit : "-", wc + 2);
		prov_buf_puts(b, or_empty(map[i].derived ? v[i]->upstream_by : v[i]->found_by));
		if (v[i]->commit && map[i].commit_is)
			prov_buf_printf(b, " (commit %s%s%s)", map[i].commit_is,
					map[i].found_by ? ", " : "", map[i].found_by ? map[i].found_by : "");
		prov_buf_putc(b, '\n');
	}
}

static int write_json(struct prov_buf *b, const struct prov_origin *const *v, size_t n,
		      const struct prov_env_map *map, const struct prov_env_root *root)
{
	struct prov_json j;
	size_t i;

	prov_json_init(&j, b);
	prov_json_begin_object(&j);
	prov_json_kv_string(&j, "schema", "provenance/1");
	if (root) {
		prov_json_key(&j, "sysroot");
		prov_json_begin_object(&j);
		prov_json_kv_string(&j, "kind", root->kind);
		prov_json_kv_string(&j, "digest", root->digest);
		prov_json_kv_string(&j, "ref", root->ref);
		prov_json_end_object(&j);
	} else {
		prov_json_kv_null(&j, "sysroot");
	}
	prov_json_key(&j, "components");
	prov_json_begin_array(&j);
	for (i = 0; i < n; i++) {
		prov_json_begin_object(&j);
		prov_json_kv_string(&j, "name", v[i]->name);
		prov_json_kv_string(&j, "version", v[i]->version);
		prov_json_kv_string(&j, "commit", v[i]->commit);
		prov_json_kv_string(&j, "repo", v[i]->vcs_url ? v[i]->vcs_url : map[i].repo);
		prov_json_kv_string(&j, "ref", v[i]->branch ? v[i]->branch : map[i].ref);
		prov_json_kv_string(&j, "component", map[i].component);
		prov_json_kv_string(&j, "found_by", map[i].derived ? v[i]->upstream_by : v[i]->found_by);
		prov_json_kv_string(&j, "commit_found_by", map[i].found_by);
		prov_json_kv_string(&j, "commit_is", v[i]->commit ? map[i].commit_is : NULL);
		prov_json_kv_string(&j, "kind", v[i]->kind);
		prov_json_kv_string(&j, "evidence", v[i]->evidence);
		prov_json_end_object(&j);
	}
	prov_json_end_array(&j);
	prov_json_end_object(&j);
	return prov_json_finish(&j);
}

int prov_report_env(struct prov_buf *out, const struct prov_origin *const *v,
		    const struct prov_env_map *map, size_t n, enum prov_format format,
		    const struct prov_env_root *root)
{
	if (format == PROV_FORMAT_JSON)
		return write_json(out, v, n, map, root);
	if (format == PROV_FORMAT_MARKDOWN)
		write_markdown(out, v, n, map);
	else
		write_text(out, v, n, map);
	return 0;
}
