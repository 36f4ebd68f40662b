/*
 * Function definitions by name in source text: a token scanner for C-family
 * sources. The walk over a commit's tree (libgit2) is in
 * src/sources/srclocate.c; the index of its results in cache/defs.c.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "srcdefs.h"
#include "util.h"
#include "banned.h"

#define MAX_DEFS 2000000
#define MAX_DEPTH 64
#define MAX_QNAME 1024

struct tok {
	const char *s;
	unsigned int len;
	int line;
	char kind;	/* 'i' identifier, 'p' punctuation, 'c' "::", 's' string, 'n' number */
};

struct scan {
	struct tok *t;
	size_t n, alloc;
	struct prov_defs *d;
	const char *path;
};

static int ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static int ident_char(int c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

static void push(struct scan *sc, const char *s, size_t len, int line, char kind)
{
	PROV_ALLOC_GROW(sc->t, sc->n + 1, sc->alloc);
	sc->t[sc->n].s = s;
	sc->t[sc->n].len = (unsigned int)len;
	sc->t[sc->n].line = line;
	sc->t[sc->n].kind = kind;
	sc->n++;
}

/* Tokens of the text, without comments, preprocessor lines, string and character contents. */
static void tokenize(struct scan *sc, const char *s, size_t len)
{
	size_t i = 0;
	int line = 1, bol = 1;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n') {
			line++;
			bol = 1;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++;
			continue;
		}
		if (c == '#' && bol) {	/* preprocessor line, with continuations */
			while (i < len && s[i] != '\n') {
				if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\n') {
					line++;
					i++;
				} else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
					break;
				}
				i++;
			}
			if (i < len && s[i] == '/')
				bol = 0;	/* a comment inside the directive: read it below */
			continue;
		}
		bol = 0;
		if (c == '/' && i + 1 < len && s[i + 1] == '/') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			i += 2;
			while (i + 1 < len && !(s[i] == '*' && s[i + 1] == '/')) {
				if (s[i] == '\n')
					line++;
				i++;
			}
			i = i + 2 < len ? i + 2 : len;
			continue;
		}
		if (c == '"' || c == '\'') {
			size_t start = i++;
			int sline = line;

			while (i < len && (unsigned char)s[i] != c && s[i] != '\n') {
				if (s[i] == '\\' && i + 1 < len) {
					if (s[i + 1] == '\n')
						line++;
					i++;
				}
				i++;
			}
			if (i < len && (unsigned char)s[i] == c)
				i++;
			if (c == '"')
				push(sc, s + start, i - start, sline, 's');
			else
				push(sc, s + start, i - start, sline, 'n');
			continue;
		}
		if (ident_start(c)) {
			size_t start = i;

			while (i < len && ident_char((unsigned char)s[i]))
				i++;
			/* raw string literal: R"delim( ... )delim" */
			if (i < len && s[i] == '"' && s[i - 1] == 'R' && i - start <= 3) {
				size_t d0 = i + 1, d1 = d0;
				int sline = line;

				while (d1 < len && d1 - d0 < 16 && s[d1] != '(')
					d1++;
				if (d1 < len && s[d1] == '(') {
					size_t k = d1 + 1, dl = d1 - d0;

					while (k < len) {
						if (s[k] == '\n')
							line++;
						if (s[k] == ')' && k + 1 + dl < len &&
						    memcmp(s + k + 1, s + d0, dl) == 0 && s[k + 1 + dl] == '"')
							break;
						k++;
					}
					i = k + 2 + dl < len ? k + 2 + dl : len;
					push(sc, s + start, 1, sline, 's');
					continue;
				}
			}
			push(sc, s + start, i - start, line, 'i');
			continue;
		}
		if (c >= '0' && c <= '9') {
			size_t start = i;

			while (i < len && (ident_char((unsigned char)s[i]) || s[i] == '.' ||
					   (s[i] == '\'' && i + 1 < len && ident_char((unsigned char)s[i + 1]))))
				i++;
			push(sc, s + start, i - start, line, 'n');
			continue;
		}
		if (c == ':' && i + 1 < len && s[i + 1] == ':') {
			push(sc, s + i, 2, line, 'c');
			i += 2;
			continue;
		}
		push(sc, s + i, 1, line, 'p');
		i++;
	}
}

static int is_p(const struct scan *sc, size_t i, char c)
{
	return i < sc->n && sc->t[i].kind == 'p' && sc->t[i].s[0] == c;
}

static int is_i(const struct scan *sc, size_t i, const char *w)
{
	size_t l = strlen(w);

	return i < sc->n && sc->t[i].kind == 'i' && sc->t[i].len == l && memcmp(sc->t[i].s, w, l) == 0;
}

/* Index after the group opened at i ('{' or '('). */
static size_t skip_group(const struct scan *sc, size_t i)
{
	char open = sc->t[i].s[0], close = open == '{' ? '}' : open == '(' ? ')' : ']';
	size_t depth = 0;

	for (; i < sc->n; i++) {
		if (is_p(sc, i, open))
			depth++;
		else if (is_p(sc, i, close) && --depth == 0)
			return i + 1;
	}
	return sc->n;
}

static int not_a_name(const struct tok *t)
{
	static const char *const words[] = {
		"if", "for", "while", "switch", "return", "sizeof", "alignof", "alignas",
		"decltype", "noexcept", "throw", "requires", "typeof", "__typeof__", "asm",
		"__asm__", "__asm", "__attribute__", "__declspec", "_Alignas", "_Static_assert",
		"static_assert", "catch", "__launch_bounds__", "defined", "int", "void", "char",
		"short", "long", "unsigned", "signed", "float", "double", "bool", "_Bool", "auto",
		"const", "volatile", "static", "inline", "extern", "struct", "union", "enum",
		"class", "typedef", "using", "new", "delete", "else", "do", "case", "goto", NULL,
	};
	size_t k;

	for (k = 0; words[k]; k++)
		if (strlen(words[k]) == t->len && memcmp(words[k], t->s, t->len) == 0)
			return 1;
	return 0;
}

static void add_def(struct scan *sc, const char *prefix, const char *name, int line)
{
	struct prov_defs *d = sc->d;
	struct prov_def *e;
	const char *last = name, *p;

	if (d->n >= MAX_DEFS) {
		d->truncated = 1;
		return;
	}
	for (p = name; (p = strstr(p, "::")); p += 2)
		last = p + 2;
	PROV_ALLOC_GROW(d->items, d->n + 1, d->alloc);
	e = &d->items[d->n++];
	e->qname = prov_xasprintf("%s%s", prefix, name);
	e->name = prov_xstrdup(last);
	e->path = prov_xstrdup(sc->path);
	e->line = line;
}

/*
 * Is the statement [stmt, brace) a function definition's head? Its name
 * (qualified as written) into `name`, line into *line.
 */
static int function_head(const struct scan *sc, size_t stmt, size_t brace, struct prov_buf *name,
			 int *line)
{
	size_t k, j;
	int depth = 0, seen_eq = 0;

	for (k = stmt; k < brace; k++) {
		const struct tok *t = &sc->t[k];

		if (is_p(sc, k, ')')) {
			depth--;
			continue;
		}
		if (!is_p(sc, k, '(')) {
			if (depth == 0 && is_p(sc, k, '='))
				seen_eq = 1;
			continue;
		}
		if (depth++ != 0 || k == stmt)
			continue;
		j = k - 1;
		t = &sc->t[j];
		/* operator==, operator(), operator new */
		{
			size_t o = j, steps = 0;

			while (o > stmt && sc->t[o].kind == 'p' && steps < 3 && !is_p(sc, o, ')')) {
				o--;
				steps++;
			}
			if (is_i(sc, o, "operator") || (is_p(sc, k + 1, ')') && is_i(sc, j, "operator"))) {
				size_t q;

				if (seen_eq && !is_p(sc, o + 1, '='))
					return 0;
				prov_buf_reset(name);
				prov_buf_puts(name, "operator");
				for (q = o + 1; q <= j; q++)
					prov_buf_add(name, sc->t[q].s, sc->t[q].len);
				if (is_i(sc, j, "operator"))
					prov_buf_puts(name, "()");
				*line = sc->t[o].line;
				j = o;
				goto qualify;
			}
			if (is_i(sc, o, "operator") || (o > stmt && is_i(sc, o - 1, "operator") &&
							 sc->t[o].kind == 'i')) {
				/* operator new / operator delete / conversion operators */
				prov_buf_reset(name);
				prov_buf_printf(name, "operator %.*s", (int)sc->t[o].len, sc->t[o].s);
				*line = sc->t[o].line;
				j = o - 1;
				goto qualify;
			}
		}
		if (t->kind != 'i' || not_a_name(t))
			continue;	/* __attribute__((...)) and the like: the next group */
		if (seen_eq)
			return 0;	/* an initializer */
		prov_buf_reset(name);
		prov_buf_add(name, t->s, t->len);
		*line = t->line;
		if (j > stmt && is_p(sc, j - 1, '~')) {
			prov_buf_reset(name);
			prov_buf_printf(name, "~%.*s", (int)t->len, t->s);
			j--;
		}
qualify:
		/* walk back over A::B<T>:: */
		while (j >= stmt + 2 && sc->t[j - 1].kind == 'c') {
			size_t q = j - 2;
			char *rest;

			if (is_p(sc, q, '>')) {
				int ad = 0;

				while (q > stmt) {
					if (is_p(sc, q, '>'))
						ad++;
					else if (is_p(sc, q, '<') && --ad == 0)
						break;
					q--;
				}
				if (q == stmt)
					break;
				q--;
			}
			if (sc->t[q].kind != 'i')
				break;
			rest = prov_buf_detach(name);
			prov_buf_printf(name, "%.*s::%s", (int)sc->t[q].len, sc->t[q].s, rest);
			free(rest);
			j = q;
		}
		return name->len > 0;
	}
	return 0;
}

static size_t parse_scope(struct scan *sc, size_t i, const char *prefix, int depth)
{
	size_t stmt = i;
	struct prov_buf name = PROV_BUF_INIT;

	prov_buf_init(&name, MAX_QNAME);
	while (i < sc->n) {
		if (is_p(sc, i, '}')) {
			i++;
			break;
		}
		if (is_p(sc, i, ';')) {
			stmt = ++i;
			continue;
		}
		if (is_i(sc, i, "namespace") && i == stmt) {
			size_t j = i + 1;
			struct prov_buf ns = PROV_BUF_INIT;

			prov_buf_init(&ns, MAX_QNAME);
			while (j < sc->n && !is_p(sc, j, '{') && !is_p(sc, j, ';') && !is_p(sc, j, '=')) {
				if (sc->t[j].kind == 'i' && !is_i(sc, j, "inline"))
					prov_buf_add(&ns, sc->t[j].s, sc->t[j].len);
				else if (sc->t[j].kind == 'c')
					prov_buf_puts(&ns, "::");
				j++;
			}
			if (is_p(sc, j, '{') && depth < MAX_DEPTH) {
				char *np = prov_xasprintf("%s%s%s", prefix, ns.buf, ns.len ? "::" : "");

				i = parse_scope(sc, j + 1, np, depth + 1);
				free(np);
				stmt = i;
			} else {
				i = j;
			}
			prov_buf_release(&ns);
			continue;
		}
		if (is_i(sc, i, "extern") && i + 2 < sc->n && sc->t[i + 1].kind == 's' &&
		    is_p(sc, i + 2, '{') && depth < MAX_DEPTH) {
			i = parse_scope(sc, i + 3, prefix, depth + 1);
			stmt = i;
			continue;
		}
		if (is_i(sc, i, "class") || is_i(sc, i, "struct") || is_i(sc, i, "union") ||
		    is_i(sc, i, "enum")) {
			size_t j = i + 1, nm = 0;
			int have = 0;

			while (j < sc->n && !is_p(sc, j, '{') && !is_p(sc, j, ';') && !is_p(sc, j, '(') &&
			       !is_p(sc, j, '=') && !is_p(sc, j, ')') && !is_p(sc, j, ',') &&
			       !is_p(sc, j, '>')) {
				if (is_p(sc, j, ':'))
					break;
				if (sc->t[j].kind == 'i' && !is_i(sc, j, "final") && !is_i(sc, j, "class") &&
				    !is_i(sc, j, "struct")) {
					nm = j;
					have = 1;
				}
				j++;
			}
			if (is_p(sc, j, ':')) {	/* bases: find the body */
				while (j < sc->n && !is_p(sc, j, '{') && !is_p(sc, j, ';') && !is_p(sc, j, '('))
					j++;
			}
			if (is_p(sc, j, '{')) {
				if (is_i(sc, i, "enum") || depth >= MAX_DEPTH) {
					i = skip_group(sc, j);
				} else {
					char *np = have ? prov_xasprintf("%s%.*s::", prefix, (int)sc->t[nm].len,
									 sc->t[nm].s) : prov_xstrdup(prefix);

					i = parse_scope(sc, j + 1, np, depth + 1);
					free(np);
				}
				continue;	/* declarators may follow, up to ';' */
			}
			i++;
			continue;
		}
		if (is_p(sc, i, '(')) {
			i = skip_group(sc, i);
			continue;
		}
		if (is_p(sc, i, '{')) {
			int line = 0;

			if (function_head(sc, stmt, i, &name, &line)) {
				add_def(sc, prefix, name.buf, line);
				i = skip_group(sc, i);
				stmt = i;
			} else {
				i = skip_group(sc, i);
			}
			continue;
		}
		i++;
	}
	prov_buf_release(&name);
	return i;
}

void prov_defs_scan_text(struct prov_defs *d, const char *path, const char *text, size_t len)
{
	struct scan sc = { 0 };
	size_t i = 0;

	sc.d = d;
	sc.path = path;
	tokenize(&sc, text, len);
	/* a stray '}' at file level ends parse_scope early: go on after it */
	while (i < sc.n)
		i = parse_scope(&sc, i, "", 0);
	d->files++;
	d->bytes += len;
	free(sc.t);
}

void prov_defs_release(struct prov_defs *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->items[i].qname);
		free(d->items[i].name);
		free(d->items[i].path);
	}
	free(d->items);
	memset(d, 0, sizeof(*d));
}

int prov_defs_wants_path(const char *path)
{
	static const char *const exts[] = {
		".c", ".cc", ".cpp", ".cxx", ".c++", ".cp", ".h", ".hh", ".hpp", ".hxx", ".h++",
		".inl", ".ipp", ".tcc", ".cu", ".cuh", ".hip", ".C", ".H", NULL,
	};
	size_t k;

	for (k = 0; exts[k]; k++)
		if (prov_ends_with(path, exts[k]))
			return 1;
	return 0;
}

static void remove_all(char *s, const char *what)
{
	char *p;
	size_t l = strlen(what);

	while ((p = strstr(s, what)))
		memmove(p, p + l, strlen(p + l) + 1);
}

char *prov_defs_normalize_name(const char *function)
{
	char *s, *o, *start;
	const char *p;
	int angle = 0, paren = 0;
	size_t n;

	if (!function || !*function)
		return NULL;
	s = prov_xstrdup(function);
	remove_all(s, "(anonymous namespace)::");
	remove_all(s, "{anonymous}::");
	/* symbol versions and compiler clones: name@VER, name.cold, name.isra.0 */
	for (o = s; *o; o++)
		if (*o == '@' || (*o == '.' && o > s && ident_char((unsigned char)o[-1])))
			break;
	*o = '\0';
	/* drop template arguments and everything from the parameter list on */
	o = s;
	for (p = s; *p; p++) {
		if (!strncmp(p, "operator", 8) && !ident_char((unsigned char)p[8]) && !angle && !paren) {
			/* keep the operator's symbol: operator<<, operator() */
			memmove(o, p, 8);
			o += 8;
			p += 8;
			while (*p == ' ')
				p++;
			if (p[0] == '(' && p[1] == ')') {
				*o++ = '(';
				*o++ = ')';
				p += 2;
			}
			while (*p && *p != '(')
				*o++ = *p++;
			break;
		}
		if (*p == '<')
			angle++;
		else if (*p == '>' && angle)
			angle--;
		else if (*p == '(' && !angle) {
			if (p > s && (ident_char((unsigned char)p[-1]) || p[-1] == '>'))
				break;
			paren++;
		} else if (*p == ')' && !angle && paren)
			paren--;
		else if (!angle)
			*o++ = *p;
	}
	*o = '\0';
	/* the return type of template functions: the part after the last space */
	start = s;
	for (o = s; *o; o++)
		if (*o == ' ' && strncmp(o + 1, "operator", 8) != 0 &&
		    !(o > s + 8 && !strncmp(o - 8, "operator", 8)))
			start = o + 1;
	n = strlen(start);
	while (n && start[n - 1] == ' ')
		n--;
	if (!n || !(ident_start((unsigned char)start[0]) || start[0] == '~')) {
		free(s);
		return NULL;
	}
	o = prov_xstrndup(start, n);
	free(s);
	return o;
}

int prov_defs_match(const char *qname, const char *want)
{
	size_t lq, lw;
	const char *longer, *shorter;
	size_t ll, ls;

	if (!qname || !want)
		return 0;
	if (!strcmp(qname, want))
		return 2;
	lq = strlen(qname);
	lw = strlen(want);
	longer = lq > lw ? qname : want;
	shorter = lq > lw ? want : qname;
	ll = lq > lw ? lq : lw;
	ls = lq > lw ? lw : lq;
	if (!strcmp(longer + ll - ls, shorter) && ll - ls >= 2 &&
	    !strncmp(longer + ll - ls - 2, "::", 2))
		return 1;
	return 0;
}
