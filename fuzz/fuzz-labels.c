/*
 * libFuzzer target: any bytes through the prefix reader of cluster job logs
 * (src/text/labels.c, issue 33): tp_groups_split must keep every group's
 * text whole lines ending in '\n', no longer than the input, labels in the
 * groups after the unlabelled one only; tp_label_prefix on each line cuts
 * no more than the line; prov_text_parse_all reads the same bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "labels.h"
#include "model.h"
#include "textparse.h"
#include "util.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void labels_check_lines(const char *data, size_t size)
{
	char *copy = prov_xstrndup(data, size), *line, *next;

	for (line = copy; line; line = next) {
		char *label = NULL, *task = NULL;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (tp_label_prefix(line, &label, &task) > strlen(line))
			abort();
		free(label);
		free(task);
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_groups gs;
	struct prov_crash **cs = NULL;
	size_t i, n = 0, total = 0;

	if (size > (1 << 20))
		return 0;
	memset(&gs, 0, sizeof(gs));
	if (tp_groups_split(&gs, (const char *)data, size, 64 << 10) == 0) {
		for (i = 0; i < gs.n; i++) {
			const struct tp_group *g = &gs.g[i];

			if (g->text.len && g->text.buf[g->text.len - 1] != '\n')
				abort();	/* whole lines only */
			if (i > 0 && !g->label)
				abort();	/* only the first group is unlabelled */
			total += g->text.len;
		}
		/* prefixes are cut, never added (the last line may gain its '\n') */
		if (total > size + 1)
			abort();
	}
	tp_groups_release(&gs);
	prov_error_clear();
	labels_check_lines((const char *)data, size);
	if (prov_text_parse_all(&cs, &n, "fuzz", (const char *)data, size) == 0) {
		for (i = 0; i < n; i++)
			prov_crash_free(cs[i]);
		free(cs);
	}
	prov_error_clear();
	return 0;
}
