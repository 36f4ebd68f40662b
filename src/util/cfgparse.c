/* The git-config syntax parser, from memory, for mapping files and the config file. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "cfgparse.h"
#include "error.h"
#include "util.h"
#include "banned.h"

struct cp {
	const char *p, *end;
	size_t line;
	const char *what, *path;
};

static int cp_space(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

/* at a line end: \n, \r\n or a lone \r (CR-only files) */
static int cp_eol(const struct cp *s)
{
	return s->p >= s->end || *s->p == '\n' || *s->p == '\r';
}

static void cp_skip_eol(struct cp *s)
{
	if (s->p >= s->end)
		return;
	if (*s->p == '\r' && s->p + 1 < s->end && s->p[1] == '\n')
		s->p++;
	s->p++;
	s->line++;
}

static void cp_skip_space(struct cp *s)
{
	/* \r is a line end, not a space, when it ends a line */
	while (s->p < s->end && cp_space(*s->p) && *s->p != '\r')
		s->p++;
}

/* to the line end (\n or \r, as cp_eol), without looking at each byte in C */
static void cp_to_eol(struct cp *s)
{
	const char *n = memchr(s->p, '\n', (size_t)(s->end - s->p));
	const char *r = memchr(s->p, '\r', (size_t)((n ? n : s->end) - s->p));

	s->p = r ? r : n ? n : s->end;
}

static void cp_skip_line(struct cp *s)
{
	cp_to_eol(s);
	cp_skip_eol(s);
}

static int cp_fail(const struct cp *s, const char *why)
{
	return prov_error_set(PROV_EINPUT, "%s '%s' line %zu: %s", s->what, s->path, s->line,
			      why);
}

/* [section], [section "sub"], [section.sub]: sets *section (with ".sub") */
static int cp_header(struct cp *s, struct prov_buf *section)
{
	const char *name;
	size_t n;

	prov_buf_reset(section);
	s->p++;	/* '[' */
	cp_skip_space(s);
	name = s->p;
	while (s->p < s->end && (isalnum((unsigned char)*s->p) || *s->p == '-' || *s->p == '.'))
		s->p++;
	n = (size_t)(s->p - name);
	if (!n)
		return cp_fail(s, "bad section header");
	if ((n == 7 && !strncasecmp(name, "include", 7)) ||
	    (n == 9 && !strncasecmp(name, "includeif", 9)))
		return cp_fail(s, "include sections are not allowed");
	{
		/* [section.sub] (deprecated) is all lower-case */
		size_t i;

		for (i = 0; i < n; i++)
			prov_buf_putc(section, (char)tolower((unsigned char)name[i]));
	}
	cp_skip_space(s);
	if (s->p < s->end && *s->p == '"') {
		if (memchr(name, '.', n))
			return cp_fail(s, "bad section header");
		prov_buf_putc(section, '.');
		s->p++;
		for (;;) {
			if (cp_eol(s))
				return cp_fail(s, "unterminated subsection name");
			if (*s->p == '"')
				break;
			if (*s->p == '\\') {
				s->p++;
				if (cp_eol(s))
					return cp_fail(s, "unterminated subsection name");
			}
			if (*s->p == '\0')
				return cp_fail(s, "NUL byte");
			prov_buf_putc(section, *s->p++);
		}
		s->p++;
		cp_skip_space(s);
	}
	if (s->p >= s->end || *s->p != ']')
		return cp_fail(s, "bad section header");
	s->p++;
	return 0;
}

/* a character cp_value copies as it is (no quote, escape, comment or line end) */
static int cp_plain(char c, int quoted)
{
	return c != '\n' && c != '\r' && c != '\0' && c != '"' && c != '\\' &&
	       (quoted || (c != '#' && c != ';'));
}

/* the value after '=' up to the line end (continuations join lines) */
static int cp_value(struct cp *s, struct prov_buf *value)
{
	int quoted = 0;
	size_t keep = 0;	/* length without trailing unquoted spaces */

	prov_buf_reset(value);
	cp_skip_space(s);
	for (;;) {
		char c;

		if (cp_eol(s)) {
			if (quoted)
				return cp_fail(s, "unterminated quoted value");
			break;
		}
		{
			/* a run of plain characters in one append, as one by one below */
			const char *r = s->p, *q;

			while (r < s->end && cp_plain(*r, quoted))
				r++;
			if (r - s->p > 1) {
				if (prov_buf_add(value, s->p, (size_t)(r - s->p)) < 0)
					return PROV_ELIMIT;
				for (q = r; !quoted && q > s->p && cp_space(q[-1]); q--)
					;
				if (q > s->p)
					keep = value->len - (size_t)(r - q);
				s->p = r;
				continue;
			}
		}
		c = *s->p++;
		if (c == '\0')
			return cp_fail(s, "NUL byte");
		if (!quoted && (c == '#' || c == ';')) {
			cp_to_eol(s);
			break;
		}
		if (c == '"') {
			quoted = !quoted;
			keep = value->len;
			continue;
		}
		if (c == '\\') {
			if (cp_eol(s)) {
				if (s->p >= s->end)
					return cp_fail(s, "backslash at the end of the file");
				cp_skip_eol(s);
				keep = value->len;
				continue;
			}
			c = *s->p++;
			switch (c) {
			case '\\': case '"': break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'b': c = '\b'; break;
			default:
				return cp_fail(s, "bad escape in a value");
			}
			prov_buf_putc(value, c);
			keep = value->len;
			continue;
		}
		if (prov_buf_putc(value, c) < 0)
			return PROV_ELIMIT;
		if (quoted || !cp_space(c))
			keep = value->len;
	}
	prov_buf_setlen(value, keep);
	return 0;
}

int prov_cfg_parse(const char *text, size_t len, const char *what, const char *path,
		   prov_cfg_entry_fn fn, void *data)
{
	struct cp s = { text, text + len, 1, what, path };
	struct prov_buf section = PROV_BUF_INIT, name = PROV_BUF_INIT, value = PROV_BUF_INIT;
	int have_section = 0, error = 0;

	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		s.p += 3;
	while (s.p < s.end) {
		const char *k;
		size_t kl, entry_line, i;
		int bare;

		cp_skip_space(&s);
		if (cp_eol(&s)) {
			cp_skip_eol(&s);
			continue;
		}
		if (*s.p == '#' || *s.p == ';') {
			cp_skip_line(&s);
			continue;
		}
		if (*s.p == '[') {
			if ((error = cp_header(&s, &section)) < 0)
				goto cleanup;
			have_section = 1;
			continue;	/* the rest of the line: another header, a key or nothing */
		}
		if (!isalpha((unsigned char)*s.p)) {
			error = cp_fail(&s, *s.p == '\0' ? "NUL byte" : "expected a key, a section header or a comment");
			goto cleanup;
		}
		if (!have_section) {
			error = cp_fail(&s, "a key before any [section]");
			goto cleanup;
		}
		k = s.p;
		while (s.p < s.end && (isalnum((unsigned char)*s.p) || *s.p == '-'))
			s.p++;
		kl = (size_t)(s.p - k);
		entry_line = s.line;
		cp_skip_space(&s);
		bare = 1;
		if (s.p < s.end && *s.p == '=') {
			s.p++;
			bare = 0;
			if ((error = cp_value(&s, &value)) < 0)
				goto cleanup;
		} else if (!cp_eol(&s) && *s.p != '#' && *s.p != ';') {
			error = cp_fail(&s, "expected '=' after the key");
			goto cleanup;
		} else {
			while (!cp_eol(&s))
				s.p++;
		}
		cp_skip_eol(&s);
		prov_buf_reset(&name);
		prov_buf_add(&name, section.buf, section.len);
		prov_buf_putc(&name, '.');
		for (i = 0; i < kl; i++)
			prov_buf_putc(&name, (char)tolower((unsigned char)k[i]));
		if ((error = fn(name.buf, bare ? NULL : value.buf ? value.buf : "", entry_line,
				data)) < 0)
			goto cleanup;
	}
	error = 0;
cleanup:
	prov_buf_release(&section);
	prov_buf_release(&name);
	prov_buf_release(&value);
	return error;
}
