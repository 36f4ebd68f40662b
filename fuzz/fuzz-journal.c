/*
 * libFuzzer target: systemd-coredump journal entries (import --journal):
 * the input is an entry's fields, "NAME=value" each, separated by 0x1e (a
 * value may hold NUL bytes and newlines, as sd-journal gives them), through
 * prov_journal_entry_add and prov_journal_entry_check. Checked: an entry
 * that passes has a signal 0..127 and a pid; every kept text is NUL-free and
 * within PROV_JOURNAL_MAX_VALUE; a kept host name has no '/' or space.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "journal.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void journal_text_ok(const char *s)
{
	if (s && strlen(s) > PROV_JOURNAL_MAX_VALUE)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_journal_entry e;
	const char *p = (const char *)data, *end = p + size;
	int r;

	if (size > (1 << 20))
		return 0;
	prov_journal_entry_init(&e);
	while (p <= end) {
		const char *sep = memchr(p, 0x1e, (size_t)(end - p));
		size_t len = sep ? (size_t)(sep - p) : (size_t)(end - p);

		prov_journal_entry_add(&e, p, len);
		if (!sep)
			break;
		p = sep + 1;
	}
	r = prov_journal_entry_check(&e);
	if (r != 0 && r != PROV_EINPUT)
		__builtin_trap();
	if (r == 0 && (e.signal < 0 || e.signal > 127 || e.pid < 0 || !e.coredump))
		__builtin_trap();
	if (e.host && (strchr(e.host, '/') || strchr(e.host, ' ') || !*e.host))
		__builtin_trap();
	journal_text_ok(e.facts.exe);
	journal_text_ok(e.facts.cmdline);
	journal_text_ok(e.facts.cgroup);
	journal_text_ok(e.filename);
	journal_text_ok(e.root);
	journal_text_ok(e.host);
	if (e.filename && e.filename[0] != '/')
		__builtin_trap();
	for (int i = 0; i < PROV_COLLECT_NVARS; i++)
		if (e.facts.var[i] && strlen(e.facts.var[i]) > 256)
			__builtin_trap();
	prov_journal_entry_release(&e);
	prov_error_clear();
	return 0;
}
