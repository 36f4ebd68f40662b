/*
 * libFuzzer target: any bytes as a unified diff read by the one reader
 * (src/util/udiff.c), -p from the first byte: every event, and the
 * reader's promises checked (names safe, counts in range, lines inside the
 * text).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "udiff.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A name the reader hands out: relative, no "..", not empty. */
static void udiff_check_name(const char *s)
{
	if (s && (!*s || s[0] == '/' || !strcmp(s, "..") || !strncmp(s, "../", 3) || strstr(s, "/../")))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct prov_udiff d;
	int ev, strip = size ? data[0] % 4 : 1;
	unsigned flags = size && (data[0] & 4) ? PROV_UDIFF_STRIP_AT_MOST : 0;

	prov_udiff_init(&d, text, size, strip, flags);
	while ((ev = prov_udiff_next(&d)) != PROV_UDIFF_END) {
		if (d.line && (d.line < text || d.line + d.len > text + size))
			__builtin_trap();
		if (ev == PROV_UDIFF_FILE) {
			udiff_check_name(d.old_path);
			udiff_check_name(d.new_path);
		} else if (ev == PROV_UDIFF_HUNK) {
			if (d.old_count < 0 || d.old_count > PROV_UDIFF_MAX_NUM || d.new_count < 0 ||
			    d.new_count > PROV_UDIFF_MAX_NUM || d.header_len > d.len)
				__builtin_trap();
		} else if (ev == PROV_UDIFF_LINE) {
			if (d.origin != ' ' && d.origin != '-' && d.origin != '+')
				__builtin_trap();
		}
	}
	prov_udiff_release(&d);
	return 0;
}
