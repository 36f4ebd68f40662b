/* The Markdown report (report-md.c's subset of Markdown) as HTML for the web view, every byte escaped. */
#include <stdlib.h>
#include <string.h>

#include "web.h"
#include "util.h"
#include "banned.h"

/* s[0..n) as HTML text. */
static void esc(struct prov_buf *b, const char *s, size_t n)
{
	char *t = prov_xstrndup(s, n);

	prov_web_html(b, t);
	free(t);
}

/* One line's inline Markdown: `code`, **strong**, \| ; the rest is text. */
static void inline_md(struct prov_buf *b, const char *s, size_t n)
{
	size_t i = 0, from = 0;
	int strong = 0;

	while (i < n) {
		const char *close;

		if (s[i] == '`' && (close = memchr(s + i + 1, '`', n - i - 1))) {
			esc(b, s + from, i - from);
			prov_buf_puts(b, "<code>");
			esc(b, s + i + 1, (size_t)(close - s) - i - 1);
			prov_buf_puts(b, "</code>");
			i = from = (size_t)(close - s) + 1;
		} else if (s[i] == '*' && i + 1 < n && s[i + 1] == '*') {
			esc(b, s + from, i - from);
			prov_buf_puts(b, strong ? "</strong>" : "<strong>");
			strong = !strong;
			i = from = i + 2;
		} else if (s[i] == '\\' && i + 1 < n && s[i + 1] == '|') {
			esc(b, s + from, i - from);
			prov_buf_putc(b, '|');
			i = from = i + 2;
		} else {
			i++;
		}
	}
	esc(b, s + from, n - from);
	if (strong)
		prov_buf_puts(b, "</strong>");
}

/* A table row "| a | b \| c |" as <tr> of th or td cells. */
static void table_row(struct prov_buf *b, const char *s, size_t n, const char *tag)
{
	size_t i, start;

	if (n && s[n - 1] == '|')
		n--;
	prov_buf_puts(b, "<tr>");
	for (i = start = 1; i <= n; i++) {
		if (i < n && !(s[i] == '|' && s[i - 1] != '\\'))
			continue;
		while (start < i && s[start] == ' ')
			start++;
		prov_buf_printf(b, "<%s>", tag);
		inline_md(b, s + start, i - start - (i > start && s[i - 1] == ' ' ? 1 : 0));
		prov_buf_printf(b, "</%s>", tag);
		start = i + 1;
	}
	prov_buf_puts(b, "</tr>\n");
}

static int is_rule_row(const char *s, size_t n)
{
	return n > 1 && s[0] == '|' && strspn(s, "|-: ") >= n;
}

enum block { NONE, PARA, UL, OL, TABLE, CODE };

static void close_block(struct prov_buf *b, enum block *in)
{
	static const char *const ends[] = { "", "</p>\n", "</ul>\n", "</ol>\n", "</tbody></table>\n",
					    "</code></pre>\n" };

	prov_buf_puts(b, ends[*in]);
	*in = NONE;
}

/* "1. " and the like: the item's text starts at *at. */
static int ordered_item(const char *s, size_t n, size_t *at)
{
	size_t d = 0;

	while (d < n && d < 9 && s[d] >= '0' && s[d] <= '9')
		d++;
	if (!d || d + 1 >= n || s[d] != '.' || s[d + 1] != ' ')
		return 0;
	*at = d + 2;
	return 1;
}

static void line_md(struct prov_buf *b, const char *s, size_t n, enum block *in, int *header_row)
{
	size_t h = 0, at;

	if (*in == CODE) {
		if (n >= 3 && !strncmp(s, "```", 3)) {
			close_block(b, in);
		} else {
			esc(b, s, n);
			prov_buf_putc(b, '\n');
		}
		return;
	}
	if (n >= 3 && !strncmp(s, "```", 3)) {
		close_block(b, in);
		prov_buf_puts(b, "<pre><code>");
		*in = CODE;
		return;
	}
	while (h < n && h < 6 && s[h] == '#')
		h++;
	if (h && h < n && s[h] == ' ') {
		close_block(b, in);
		prov_buf_printf(b, "<h%zu>", h);
		inline_md(b, s + h + 1, n - h - 1);
		prov_buf_printf(b, "</h%zu>\n", h);
		return;
	}
	if (n && s[0] == '|') {
		if (*in != TABLE) {
			close_block(b, in);
			prov_buf_puts(b, "<table class=\"md\"><tbody>\n");
			*in = TABLE;
			*header_row = 1;
		}
		if (!is_rule_row(s, n))
			table_row(b, s, n, *header_row ? "th" : "td");
		*header_row = 0;
		return;
	}
	if (n >= 2 && s[0] == '-' && s[1] == ' ') {
		if (*in != UL) {
			close_block(b, in);
			prov_buf_puts(b, "<ul>\n");
			*in = UL;
		}
		prov_buf_puts(b, "<li>");
		inline_md(b, s + 2, n - 2);
		prov_buf_puts(b, "</li>\n");
		return;
	}
	if (ordered_item(s, n, &at)) {
		if (*in != OL) {
			close_block(b, in);
			prov_buf_puts(b, "<ol>\n");
			*in = OL;
		}
		prov_buf_puts(b, "<li>");
		inline_md(b, s + at, n - at);
		prov_buf_puts(b, "</li>\n");
		return;
	}
	if (!n || (n == 3 && !strncmp(s, "---", 3))) {
		close_block(b, in);
		if (n)
			prov_buf_puts(b, "<hr>\n");
		return;
	}
	if (*in != PARA) {
		close_block(b, in);
		prov_buf_puts(b, "<p>");
		*in = PARA;
	}
	/* two spaces at the end: a line break */
	if (n >= 2 && s[n - 1] == ' ' && s[n - 2] == ' ') {
		inline_md(b, s, n - 2);
		prov_buf_puts(b, "<br>\n");
	} else {
		inline_md(b, s, n);
		prov_buf_putc(b, '\n');
	}
}

void prov_web_markdown(struct prov_buf *b, const char *md, size_t len)
{
	enum block in = NONE;
	int header_row = 0;
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(md + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - md) - i : len - i;

		line_md(b, md + i, n, &in, &header_row);
		i += n + 1;
	}
	close_block(b, &in);
}
