/*
 * Text backtraces: small string helpers shared by the driver and every
 * format (numbers, "path:line[:col]", argument lists, plausible names).
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "util.h"
#include "banned.h"

int tp_isdigit(int ch)
{
	return ch >= '0' && ch <= '9';
}

int tp_isxdigit(int ch)
{
	return tp_isdigit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static int is_blank(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

const char *tp_ws(const char *s)
{
	while (is_blank((unsigned char)*s))
		s++;
	return s;
}

char *tp_strndup(const char *s, size_t n)
{
	while (n && is_blank((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && is_blank((unsigned char)s[n - 1]))
		n--;
	return prov_xstrndup(s, n);
}

void tp_set(char **dst, const char *s, size_t n)
{
	free(*dst);
	*dst = tp_strndup(s, n);
	if (!**dst) {
		free(*dst);
		*dst = NULL;
	}
}

int tp_hex(uint64_t *out, const char *s, const char **end)
{
	const char *p = s;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return -1;
	p += 2;
	while (tp_isxdigit((unsigned char)*p))
		p++;
	if (p == s + 2 || p - s > 18)
		return -1;
	if (prov_parse_u64(out, s, (size_t)(p - s), 16) < 0)
		return -1;
	*end = p;
	return 0;
}

int tp_dec(int *out, const char *s, const char **end)
{
	const char *p = s;

	while (tp_isdigit((unsigned char)*p))
		p++;
	if (p == s || p - s > 9)
		return -1;
	if (prov_parse_int(out, s, (size_t)(p - s)) < 0)
		return -1;
	*end = p;
	return 0;
}

static int all_digits(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 9)
		return 0;
	for (i = 0; i < n; i++)
		if (!tp_isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

int tp_file_line(const char *s, size_t n, size_t *path_len, int *line, int *col)
{
	size_t i, c1 = 0, c2 = 0;
	int have1 = 0, have2 = 0;

	/* the last one or two ":digits" groups */
	for (i = n; i > 0; i--) {
		if (s[i - 1] == ':') {
			if (!have1) {
				c1 = i - 1;
				have1 = 1;
			} else {
				c2 = i - 1;
				have2 = 1;
				break;
			}
		} else if (!tp_isdigit((unsigned char)s[i - 1])) {
			break;
		}
	}
	if (!have1 || !all_digits(s + c1 + 1, n - c1 - 1))
		return -1;
	if (have2 && all_digits(s + c2 + 1, c1 - c2 - 1) && c2 > 0) {
		if (prov_parse_int(line, s + c2 + 1, c1 - c2 - 1) < 0 ||
		    prov_parse_int(col, s + c1 + 1, n - c1 - 1) < 0)
			return -1;
		*path_len = c2;
		return 0;
	}
	if (c1 == 0)
		return -1;
	if (prov_parse_int(line, s + c1 + 1, n - c1 - 1) < 0)
		return -1;
	*col = 0;
	*path_len = c1;
	return 0;
}

long tp_match_open(const char *s, size_t close)
{
	long depth = 0;
	size_t i = close + 1;

	while (i > 0) {
		i--;
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return (long)i;
	}
	return -1;
}

void tp_strip_args(char *fn)
{
	size_t n = strlen(fn);
	long open;

	for (;;) {
		while (n && is_blank((unsigned char)fn[n - 1]))
			n--;
		if (n >= 6 && memcmp(fn + n - 6, " const", 6) == 0)
			n -= 6;
		else if (n >= 9 && memcmp(fn + n - 9, " volatile", 9) == 0)
			n -= 9;
		else if (n >= 2 && (memcmp(fn + n - 2, " &", 2) == 0))
			n -= 2;
		else if (n >= 3 && (memcmp(fn + n - 3, " &&", 3) == 0))
			n -= 3;
		else
			break;
	}
	fn[n] = '\0';
	if (!n || fn[n - 1] != ')')
		return;
	open = tp_match_open(fn, n - 1);
	if (open <= 0)
		return;
	/* "operator()" itself is a name, not an argument list */
	if ((size_t)open + 2 == n && open >= 8 && memcmp(fn + open - 8, "operator", 8) == 0)
		return;
	while (open > 0 && is_blank((unsigned char)fn[open - 1]))
		open--;
	if (open > 0)
		fn[open] = '\0';
}

int tp_plausible_function(const char *s, size_t n)
{
	size_t i;
	int angle = 0, paren = 0, space = 0, op = 0, scoped = 0;

	if (!n || n > 8192)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch == 0x7f)
			return 0;
		if (ch == '<')
			angle++;
		else if (ch == '>' && angle)
			angle--;
		else if (ch == '(')
			paren++;
		else if (ch == ')' && paren)
			paren--;
		else if (ch == ' ' && !angle && !paren)
			space = 1;
		if (ch == 'o' && n - i >= 8 && memcmp(s + i, "operator", 8) == 0)
			op = 1;
		if ((ch == ':' && i + 1 < n && s[i + 1] == ':') || ch == '(' || ch == '<')
			scoped = 1;
	}
	/*
	 * spaces outside templates and argument lists: "operator new", a C++
	 * name with its return type, qualifiers or a thunk ("void ns::f<int>()",
	 * "Foo::bar() const", "non-virtual thunk to X::y()"); prose has none of
	 * "::", "(" or "<"
	 */
	if (space && !op && !scoped)
		return 0;
	if (space && !op) {
		/* a name's brackets are balanced */
		if (paren || angle)
			return 0;
		/* "(LWP 12) f (a=1) at x.c:3" is a whole line, not a name */
		if (s[0] == '(' && !(n >= 21 && memcmp(s, "(anonymous namespace)", 21) == 0))
			return 0;
		for (i = 0; i + 4 <= n; i++)
			if (memcmp(s + i, " at ", 4) == 0 || (i + 6 <= n && memcmp(s + i, " from ", 6) == 0))
				return 0;
	}
	return 1;
}
