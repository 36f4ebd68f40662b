/* The resolvers' kit: Python distributions' files (METADATA, RECORD), site-packages and the commits packages embed. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kit-python.h"
#include "kit-root.h"
#include "kit-text.h"
#include "util.h"
#include "banned.h"

void prov_pip_metadata(char **name, char **version, const char *text, size_t len)
{
	const char *pos = text, *end = text + len, *line;
	size_t n;

	*name = NULL;
	*version = NULL;
	while (prov_next_line(&line, &n, &pos, end)) {
		const char *v;
		size_t vl;

		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			break;	/* the body starts */
		if (n > 4096)
			continue;
		if (!*name && n > 5 && strncasecmp(line, "Name:", 5) == 0) {
			v = line + 5;
			vl = n - 5;
		} else if (!*version && n > 8 && strncasecmp(line, "Version:", 8) == 0) {
			v = line + 8;
			vl = n - 8;
		} else {
			continue;
		}
		while (vl && (*v == ' ' || *v == '\t')) {
			v++;
			vl--;
		}
		while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			vl--;
		if (!vl || memchr(v, 0, vl))
			continue;
		if (line[0] == 'N' || line[0] == 'n')
			*name = prov_xstrndup(v, vl);
		else
			*version = prov_xstrndup(v, vl);
	}
}

int prov_pip_record_foreach(const char *text, size_t len, size_t *nbad,
			    int (*fn)(const char *path, void *data), void *data)
{
	const char *pos = text, *end = text + len, *line;
	size_t n;
	struct prov_buf p = PROV_BUF_INIT;
	int err = 0;

	*nbad = 0;
	while (prov_next_line(&line, &n, &pos, end)) {
		size_t i = 0;

		if (n && line[n - 1] == '\r')
			n--;
		if (!n)
			continue;
		if (n > 4096 || memchr(line, 0, n)) {
			(*nbad)++;
			continue;
		}
		prov_buf_reset(&p);
		if (line[0] == '"') {
			/* CSV quoting: "" is a quote */
			for (i = 1; i < n; i++) {
				if (line[i] == '"') {
					if (i + 1 < n && line[i + 1] == '"') {
						prov_buf_putc(&p, '"');
						i++;
						continue;
					}
					break;
				}
				prov_buf_putc(&p, line[i]);
			}
			if (i >= n) {
				(*nbad)++;
				continue;
			}
		} else {
			const char *comma = memchr(line, ',', n);

			prov_buf_add(&p, line, comma ? (size_t)(comma - line) : n);
		}
		if (!p.len)
			continue;
		if ((err = fn(p.buf, data)) != 0)
			break;
	}
	prov_buf_release(&p);
	return err;
}

char *prov_py_site_of(const char *path, const char **rel)
{
	const char *p = path, *best = NULL;

	while ((p = strstr(p, "-packages/"))) {
		const char *start = p;

		while (start > path && start[-1] != '/')
			start--;
		if ((size_t)(p - start) == 4 && (strncmp(start, "site", 4) == 0 || strncmp(start, "dist", 4) == 0))
			best = p;
		p++;
	}
	if (!best)
		return NULL;
	*rel = best + strlen("-packages/");
	return prov_xstrndup(path, (size_t)(best - path) + strlen("-packages"));
}

char *prov_py_embedded_commit(const char *root, const char *site, const char *top, char **evidence)
{
	static const char *const files[] = { "version.py", "commit_info.py", "_version.py", NULL };
	struct prov_buf b = PROV_BUF_INIT;
	char *found = NULL;
	size_t i;

	if (!top || !*top || strchr(top, '/') || !strcmp(top, "..") || !strcmp(top, "."))
		return NULL;
	for (i = 0; files[i] && !found; i++) {
		char *p = prov_xasprintf("%s/%s/%s", site, top, files[i]);
		const char *pos, *end, *line;
		size_t n;

		if (prov_root_read(&b, root, p, 1 << 20) == 0) {
			pos = b.buf;
			end = b.buf + b.len;
			while (!found && prov_next_line(&line, &n, &pos, end)) {
				size_t k;

				/* git_version = '...' (torch), "full-revisionid": "..." (numpy's
				 * versioneer), commit = "..." : any quoted 40-hex */
				for (k = 0; k + 42 <= n; k++) {
					if ((line[k] == '\'' || line[k] == '"') &&
					    prov_is_hex_commit(line + k + 1, 40) && line[k + 41] == line[k]) {
						found = prov_xstrndup(line + k + 1, 40);
						*evidence = prov_xstrdup(p);
						break;
					}
				}
			}
		}
		free(p);
	}
	prov_buf_release(&b);
	return found;
}

void prov_py_add_commit(struct prov_origin *o, const char *root, const char *site, const char *top)
{
	char *ev = NULL, *c;

	if (o->commit || !top || !*top)
		return;
	c = prov_py_embedded_commit(root, site, top, &ev);
	if (c) {
		o->commit = c;
		free(o->evidence);
		o->evidence = ev;
	}
}

void prov_py_commit_of(struct prov_origin *o, const char *root, const char *path)
{
	const char *rel = NULL, *slash;
	char *norm, *site, *top;

	if (o->commit || o->guess)
		return;
	norm = prov_path_normalize(path);
	site = prov_py_site_of(norm, &rel);
	if (site && (slash = strchr(rel, '/'))) {
		top = prov_xstrndup(rel, (size_t)(slash - rel));
		prov_py_add_commit(o, root, site, top);
		free(top);
	}
	free(site);
	free(norm);
}
