/* resolve's output: the report of each crash of a run, and the crash store's notes. */
#include <string.h>

#include "json.h"
#include "report.h"
#include "banned.h"

static int resolve_json(struct prov_buf *out, struct prov_crash *const *crashes, size_t n)
{
	struct prov_json j;
	size_t i, shown = 0;

	prov_json_init(&j, out);
	if (n > 1)
		prov_json_begin_array(&j);
	for (i = 0; i < n; i++) {
		if (!crashes[i])
			continue;
		prov_json_begin_object(&j);
		prov_report_json_body(&j, crashes[i]);
		prov_json_end_object(&j);
		shown++;
	}
	if (n > 1)
		prov_json_end_array(&j);
	return shown || n > 1 ? prov_json_finish(&j) : 0;
}

/* The crash store's notes after the reports: "INPUT: what the store knew" lines. */
static void store_notes_section(struct prov_buf *out, const struct prov_buf *notes, int md)
{
	const char *p = notes->buf, *nl;

	prov_buf_puts(out, md ? "\n**Crash store:**\n\n" : "\nstore:\n");
	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		prov_buf_printf(out, "%s%.*s\n", md ? "- " : "   ", (int)(nl - p), p);
	}
}

int prov_report_resolve(struct prov_buf *out, struct prov_crash *const *crashes, size_t n,
			int same_crash, const struct prov_buf *store_notes,
			enum prov_format format, unsigned int flags)
{
	int md = format == PROV_FORMAT_MARKDOWN, error = 0;
	size_t i, first = 0;

	if (format == PROV_FORMAT_JSON)
		return resolve_json(out, crashes, n);
	while (first < n && !crashes[first])
		first++;
	/* the same crash several times: one report, the inputs listed */
	if (same_crash) {
		prov_buf_puts(out, md ? "**Inputs:** " : "inputs: ");
		for (i = 0; i < n; i++)
			if (crashes[i])
				prov_buf_printf(out, "%s%s", out->buf[out->len - 1] == ' ' ? "" : ", ",
						crashes[i]->input_path);
		prov_buf_puts(out, md ? " — the same crash; the report of the first follows.\n\n" :
				   " (the same crash; the report of the first follows)\n\n");
	}
	for (i = 0; i < n && !error; i++) {
		if (!crashes[i] || (same_crash && i != first))
			continue;
		if (out->len)
			prov_buf_puts(out, md ? "\n---\n\n" : "\n");
		if (md)
			error = prov_report_markdown(out, crashes[i], flags);
		else
			error = prov_report_text(out, crashes[i], flags);
	}
	if (store_notes && store_notes->len)
		store_notes_section(out, store_notes, md);
	return error;
}
