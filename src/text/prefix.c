/*
 * Text backtraces: log prefixes in front of every line (timestamps, syslog,
 * CRI, "[stderr] ", OpenMPI's "[host:pid] ", "web-1  | ", "; ") are cut off.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "util.h"
#include "banned.h"

/* ---- log prefixes ---- */

/* "2024-05-01T12:00:00.123Z", "2024-05-01 12:00:00,123", "12:00:00.5" */
static size_t timestamp_len(const char *s)
{
	const char *p = s;

	if (tp_isdigit((unsigned char)p[0]) && tp_isdigit((unsigned char)p[1]) &&
	    tp_isdigit((unsigned char)p[2]) && tp_isdigit((unsigned char)p[3]) && p[4] == '-' &&
	    tp_isdigit((unsigned char)p[5]) && tp_isdigit((unsigned char)p[6]) && p[7] == '-' &&
	    tp_isdigit((unsigned char)p[8]) && tp_isdigit((unsigned char)p[9])) {
		p += 10;
		if (*p != 'T' && *p != ' ')
			return 0;
		p++;
	}
	if (!(tp_isdigit((unsigned char)p[0]) && tp_isdigit((unsigned char)p[1]) && p[2] == ':' &&
	      tp_isdigit((unsigned char)p[3]) && tp_isdigit((unsigned char)p[4]) && p[5] == ':' &&
	      tp_isdigit((unsigned char)p[6]) && tp_isdigit((unsigned char)p[7])))
		return 0;
	p += 8;
	if (*p == '.' || *p == ',') {
		p++;
		while (tp_isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'Z') {
		p++;
	} else if ((*p == '+' || *p == '-') && tp_isdigit((unsigned char)p[1]) &&
		   tp_isdigit((unsigned char)p[2])) {
		p += 3;
		if (*p == ':')
			p++;
		while (tp_isdigit((unsigned char)*p))
			p++;
	}
	return (size_t)(p - s);
}

static int is_alpha(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* syslog: "Apr 14 21:02:39 " then "[18] ", "host prog[12]: " or "host prog: " */
static size_t syslog_len(const char *s)
{
	const char *p = s, *q;
	size_t n;

	if (!(is_alpha(p[0]) && is_alpha(p[1]) && is_alpha(p[2]) && p[3] == ' ' &&
	      (p[4] == ' ' || tp_isdigit((unsigned char)p[4])) && tp_isdigit((unsigned char)p[5]) &&
	      p[6] == ' '))
		return 0;
	n = timestamp_len(p + 7);
	if (!n || p[7 + n] != ' ')
		return 0;
	p += 7 + n + 1;
	if (*p == '[') {
		for (q = p + 1; tp_isdigit((unsigned char)*q); q++)
			;
		if (q > p + 1 && q[0] == ']' && q[1] == ' ')
			return (size_t)(q + 2 - s);
		return (size_t)(p - s);
	}
	/* "host prog[pid]: " */
	for (q = p; *q && *q != ' ' && q - p < 64; q++)
		;
	if (*q == ' ' && q > p) {
		const char *r = q + 1, *e;

		for (e = r; *e && *e != ' ' && *e != ':' && e - r < 64; e++)
			;
		if (e[0] == ':' && e[1] == ' ' && e > r && (e[-1] == ']' || is_alpha(e[-1])))
			return (size_t)(e + 2 - s);
	}
	return (size_t)(p - s);
}

/* "[stderr] ", "[node07:31337] " (OpenMPI): a word, or host:pid, in brackets */
static size_t tag_len(const char *s)
{
	const char *q = s + 1, *colon = NULL;
	int alpha = 0;

	if (s[0] != '[')
		return 0;
	for (; *q && *q != ']' && q - s < 64; q++) {
		if (*q == ':' && !colon)
			colon = q;
		else if (is_alpha(*q))
			alpha = 1;
		else if (!tp_isdigit((unsigned char)*q) && *q != '-' && *q != '_' && *q != '.')
			return 0;
	}
	if (*q != ']' || q[1] != ' ' || !alpha)
		return 0;
	if (colon) {
		const char *d;

		for (d = colon + 1; d < q; d++)
			if (!tp_isdigit((unsigned char)*d))
				return 0;
		if (d == colon + 1)
			return 0;
	} else if (q - s == 3 && s[1] == 'b' && s[2] == 't') {
		return 0;	/* "[bt] #3 ...": read as a frame list */
	}
	return (size_t)(q + 2 - s);
}

/* Length of one known log prefix at s, 0 when none. */
static size_t known_prefix(const char *s)
{
	size_t n;
	const char *p;

	if ((n = syslog_len(s)) > 0 || (n = tag_len(s)) > 0)
		return n;
	/* glog dumps kept in comments */
	if (s[0] == ';' && (s[1] == ' ' || s[1] == '\0'))
		return s[1] ? 2 : 1;

	if ((n = timestamp_len(s)) > 0) {
		p = s + n;
		if (*p == ':' && p[1] == ' ')
			p++;
		if (*p != ' ' && *p != '\t' && *p != '|')
			return *p == '\0' ? n : 0;
		if (*p == '|')
			p++;
		/* one separator only: the indentation after it is the line's own */
		if (*p == ' ' || *p == '\t')
			p++;
		/* CRI log lines: "<ts> stderr F <msg>" */
		if ((strncmp(p, "stdout ", 7) == 0 || strncmp(p, "stderr ", 7) == 0) &&
		    (p[7] == 'F' || p[7] == 'P') && p[8] == ' ')
			p += 9;
		return (size_t)(p - s);
	}
	if (s[0] == '#' && s[1] == '#' && s[2] == '[') {
		p = strchr(s + 3, ']');
		if (p && p - s < 32)
			return (size_t)(p + 1 - s);
	}
	if (s[0] == '[') {
		/* "[rank3]: ", "[1,0]<stderr>: ", "[12:00:01.5] ", "[2024-05-01 12:00:00] " */
		const char *q = s + 1;
		int colon = 0, ok = 1;

		while (*q && *q != ']' && q - s < 48) {
			if (*q == ' ' && !tp_isdigit((unsigned char)q[1]))
				ok = 0;
			if (*q == ':')
				colon = 1;
			q++;
		}
		if (*q == ']' && ok && q > s + 1) {
			p = q + 1;
			if (*p == '<') {
				const char *r = strchr(p, '>');

				if (r && r - p < 16)
					p = r + 1;
			}
			if (*p == ':' && p[1] == ' ')
				return (size_t)(tp_ws(p + 1) - s);
			if (colon && tp_isdigit((unsigned char)s[1]) && timestamp_len(s + 1) > 0 &&
			    *p == ' ')
				return (size_t)(tp_ws(p) - s);
		}
	}
	if ((s[0] == '|' || s[0] == '>') && (s[1] == ' ' || s[1] == '\0' || s[1] == '\t'))
		return s[1] ? 2 : 1;
	return 0;
}

/* Does the text look like the start of something a family reads? */
static int looks_like_trace(const char *s)
{
	s = tp_ws(s);
	return (s[0] == '#' && tp_isdigit((unsigned char)s[1])) ||
	       prov_starts_with(s, "Thread ") || prov_starts_with(s, "Traceback ") ||
	       prov_starts_with(s, "Stack trace of thread") || prov_starts_with(s, "frame #") ||
	       prov_starts_with(s, "File \"") || prov_starts_with(s, "TID ") ||
	       prov_starts_with(s, "Fatal Python error") || prov_starts_with(s, "Program ") ||
	       (s[0] == '=' && s[1] == '=');
}

/* Strip prefixes from the line in place; returns the new start. */
char *tp_strip_prefix(struct tp_state *st, char *line)
{
	char *s = line;
	int rounds;
	size_t n;

	if (st->learned && strncmp(s, st->learned, st->learned_len) == 0)
		s += st->learned_len;
	for (rounds = 0; rounds < 4; rounds++) {
		n = known_prefix(s);
		if (!n)
			break;
		s += n;
	}
	if (!looks_like_trace(s)) {
		/* "web-1  | #0 ...": learn the literal prefix for the block */
		char *bar = strstr(s, "| ");

		if (bar && bar - s < 64 && bar > s && looks_like_trace(bar + 2)) {
			free(st->learned);
			st->learned_len = (size_t)(bar + 2 - s);
			st->learned = prov_xstrndup(s, st->learned_len);
			s = bar + 2;
		}
	}
	return s;
}
