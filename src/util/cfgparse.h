#ifndef PROV_CFGPARSE_H
#define PROV_CFGPARSE_H

#include <stddef.h>

/*
 * A parser for git-config syntax from memory, for mapping files and the
 * config file. It never opens anything: [include] and [includeIf] sections
 * are refused (whatever surrounds them: a BOM, another header on the same
 * line, \f \v \r, CR-only line ends), never followed.
 *
 * Accepted: an optional UTF-8 BOM; lines ending in \n, \r\n or \r;
 * whitespace is space, \t, \f, \v, \r; comments from '#' or ';'; section
 * headers [section], [section "sub"], [section.sub], several on one line and
 * a key = value after them; bare keys (value NULL, "true" to git); values
 * with "quotes", escapes \\ \" \n \t \b and backslash-newline continuation.
 *
 * fn gets each entry as "section.key" or "section.sub.key" (section and key
 * lower-case, the subsection as written) and its 1-based line. A negative
 * return from fn stops the parse and is returned. Syntax errors return
 * PROV_EINPUT with "<what> '<path>' line N: ..." set.
 */
typedef int (*prov_cfg_entry_fn)(const char *name, const char *value, size_t line,
				 void *data);

int prov_cfg_parse(const char *text, size_t len, const char *what, const char *path,
		   prov_cfg_entry_fn fn, void *data);

#endif
