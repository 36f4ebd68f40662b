/* The resolvers' kit: the upstream repository a package's own metadata names (DEP-5, METADATA, about.json, VCS URLs). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kit-upstream.h"
#include "kit-root.h"
#include "kit-text.h"
#include "jsonread.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * An upstream repository derived from a package's own metadata, for a
 * module that no mapping names: DEP-5 Source / Upstream-Contact in
 * /usr/share/doc/PKG/copyright (dpkg), Project-URL / Home-page in a pip
 * distribution's METADATA, dev_url / home in a conda package's
 * info/about.json, the URL / VCS tag of an rpm header (read by the rpm
 * resolver into vcs_url). Everything here comes from the crashed system and
 * is untrusted: reads are bounded, only URLs that look like repositories of
 * a known forge (or end in .git) are kept, never file:// or a local path,
 * never credentials.
 */

#define PREFIX_CAP (64 << 10)	/* the header of a copyright file or METADATA */
#define ABOUT_CAP (1 << 20)
#define URL_MAX 512

/* Forges whose repositories are https://HOST/OWNER/NAME. */
static const char *const two_level[] = {
	"github.com", "bitbucket.org", "codeberg.org", "gitee.com", "sr.ht", "git.sr.ht", NULL
};
/* GitLab instances: https://HOST/GROUP[/SUBGROUP...]/NAME, pages after "/-/". */
static const char *const gitlabs[] = {
	"gitlab.com", "salsa.debian.org", "gitlab.gnome.org", "gitlab.freedesktop.org",
	"invent.kde.org", "gitlab.kitware.com", "framagit.org", "gitlab.xfce.org", NULL
};

static int in_list(const char *const *v, const char *s, size_t n)
{
	size_t i;

	for (i = 0; v[i]; i++)
		if (strlen(v[i]) == n && strncasecmp(v[i], s, n) == 0)
			return 1;
	return 0;
}

static int path_char_ok(int ch)
{
	return isalnum(ch) || ch == '.' || ch == '_' || ch == '-' || ch == '~' || ch == '/' ||
	       ch == '+';
}

char *prov_repo_url_from(const char *s, size_t n)
{
	struct prov_buf out = PROV_BUF_INIT;
	const char *host, *hend, *path, *pend, *p;
	size_t hl, i;
	int https = 0;
	char *res = NULL;

	if (n > 4 && strncasecmp(s, "git+", 4) == 0) {
		s += 4;
		n -= 4;
	}
	if (n > URL_MAX)
		return NULL;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
			return NULL;
	if (n > 8 && strncasecmp(s, "https://", 8) == 0) {
		host = s + 8;
		https = 1;
	} else if (n > 7 && strncasecmp(s, "http://", 7) == 0) {
		host = s + 7;
	} else if (n > 6 && strncasecmp(s, "git://", 6) == 0) {
		host = s + 6;
	} else {
		return NULL;	/* file://, ssh with a user, scp-like, a path, mailto: */
	}
	for (hend = host; hend < s + n && *hend != '/' && *hend != '?' && *hend != '#'; hend++)
		if (!(isalnum((unsigned char)*hend) || *hend == '.' || *hend == '-'))
			return NULL;	/* user@host (credentials), host:port, odd names */
	hl = (size_t)(hend - host);
	if (hl < 3 || !memchr(host, '.', hl) || host[0] == '.' || host[0] == '-')
		return NULL;
	path = hend;
	for (pend = path; pend < s + n && *pend != '?' && *pend != '#'; pend++)
		;
	/* no percent-escapes, "..", or other surprises in the path */
	for (p = path; p < pend; p++)
		if (!path_char_ok((unsigned char)*p))
			return NULL;
	for (p = path; p + 1 < pend; p++)
		if ((p[0] == '.' && p[1] == '.') || (p[0] == '/' && p[1] == '/'))
			return NULL;
	while (pend > path && pend[-1] == '/')
		pend--;
	if (in_list(two_level, host, hl) || in_list(gitlabs, host, hl)) {
		const char *seg[2] = { NULL, NULL }, *end = pend;
		size_t nseg = 0;

		if (in_list(gitlabs, host, hl)) {
			/* everything before "/-/" is the project path */
			for (p = path; p + 3 <= pend; p++)
				if (!strncmp(p, "/-/", 3)) {
					end = p;
					break;
				}
		} else {
			/* OWNER/NAME and nothing after */
			for (p = path; p < pend && nseg < 2; p++)
				if (*p == '/')
					seg[nseg++] = p;
			if (nseg == 2) {
				for (p = seg[1] + 1; p < pend && *p != '/'; p++)
					;
				end = p;
			}
		}
		/* at least OWNER/NAME */
		for (p = path + 1, nseg = 0; p < end; p++)
			if (*p == '/')
				nseg++;
		if (end - path < 4 || nseg < 1 || end[-1] == '/')
			goto cleanup;
		if (end - path > 4 && !strncmp(end - 4, ".git", 4))
			end -= 4;
		prov_buf_printf(&out, "https://%.*s%.*s.git", (int)hl, host, (int)(end - path), path);
		for (i = 8; i < 8 + hl; i++)
			out.buf[i] = (char)tolower((unsigned char)out.buf[i]);
		res = prov_buf_detach(&out);
		goto cleanup;
	}
	/* another host: only what says it is a git repository */
	if ((pend - path >= 5 && !strncmp(pend - 4, ".git", 4)) ||
	    (hl > 4 && !strncasecmp(host, "git.", 4)) || (hl > 8 && !strncasecmp(host, "anongit.", 8))) {
		if (pend - path < 2)
			goto cleanup;
		prov_buf_printf(&out, "%s%.*s%.*s", https ? "https://" : (s[0] == 'g' || s[0] == 'G') ?
				"git://" : "http://", (int)hl, host, (int)(pend - path), path);
		res = prov_buf_detach(&out);
	}
cleanup:
	prov_buf_release(&out);
	return res;
}

/* The first repository URL among the words of s[0..n). */
static char *first_repo_url(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t j;
		char *u;

		while (i < n && strchr(" \t\r\n,;<>()[]\"'", s[i]))
			i++;
		for (j = i; j < n && !strchr(" \t\r\n,;<>()[]\"'", s[j]); j++)
			;
		if (j > i) {
			/* a sentence's full stop is not part of the URL */
			size_t k = j;

			while (k > i && (s[k - 1] == '.' || s[k - 1] == ':'))
				k--;
			if ((u = prov_repo_url_from(s + i, k - i)))
				return u;
		}
		i = j;
	}
	return NULL;
}

char *prov_dep5_upstream(const char *text, size_t len)
{
	const char *pos = text, *end = text + len, *line;
	struct prov_buf source = PROV_BUF_INIT, contact = PROV_BUF_INIT;
	struct prov_buf *cur = NULL;
	size_t n;
	int format = 0;
	char *url = NULL;

	/* the header paragraph: Format, Upstream-Name, Upstream-Contact, Source */
	while (prov_next_line(&line, &n, &pos, end)) {
		size_t i;

		if (n && line[n - 1] == '\r')
			n--;
		for (i = 0; i < n && (line[i] == ' ' || line[i] == '\t'); i++)
			;
		if (i == n)
			break;	/* the header ends */
		if (n > 4096 || memchr(line, 0, n)) {
			cur = NULL;
			continue;
		}
		if (i > 0) {
			/* a continuation line of the field before */
			if (cur && cur->len < 8192) {
				prov_buf_putc(cur, ' ');
				prov_buf_add(cur, line + i, n - i);
			}
			continue;
		}
		cur = NULL;
		if (n > 7 && !strncasecmp(line, "Format:", 7))
			format = 1;
		else if (n > 21 && !strncasecmp(line, "Format-Specification:", 21))
			format = 1;
		else if (n > 7 && !strncasecmp(line, "Source:", 7)) {
			cur = &source;
			prov_buf_add(cur, line + 7, n - 7);
		} else if (n > 17 && !strncasecmp(line, "Upstream-Contact:", 17)) {
			cur = &contact;
			prov_buf_add(cur, line + 17, n - 17);
		}
	}
	if (format) {
		url = source.len ? first_repo_url(source.buf, source.len) : NULL;
		if (!url && contact.len)
			url = first_repo_url(contact.buf, contact.len);
	}
	prov_buf_release(&source);
	prov_buf_release(&contact);
	return url;
}

/* Project-URL labels that name the source, best first. */
static int label_rank(const char *l, size_t n)
{
	static const char *const best[] = { "source", "source code", "repository", "code", "github",
		"git", "sources", "vcs", NULL };
	static const char *const good[] = { "homepage", "home", "home-page", NULL };

	while (n && (l[n - 1] == ' ' || l[n - 1] == '\t'))
		n--;
	if (in_list(best, l, n))
		return 0;
	if (in_list(good, l, n))
		return 1;
	return 2;
}

char *prov_pip_upstream(const char *text, size_t len)
{
	const char *pos = text, *end = text + len, *line;
	char *best = NULL;
	int best_rank = 99;
	size_t n;

	while (prov_next_line(&line, &n, &pos, end)) {
		const char *v = NULL;
		size_t vl = 0;
		int rank = 99;
		char *u;

		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			break;	/* the body starts */
		if (n > 4096 || memchr(line, 0, n))
			continue;
		if (n > 12 && !strncasecmp(line, "Project-URL:", 12)) {
			const char *comma = memchr(line + 12, ',', n - 12);
			const char *l = line + 12;

			if (!comma)
				continue;
			while (l < comma && (*l == ' ' || *l == '\t'))
				l++;
			rank = label_rank(l, (size_t)(comma - l));
			v = comma + 1;
			vl = n - (size_t)(v - line);
		} else if (n > 10 && !strncasecmp(line, "Home-page:", 10)) {
			rank = 1;
			v = line + 10;
			vl = n - 10;
		} else {
			continue;
		}
		if (rank >= best_rank)
			continue;
		if ((u = first_repo_url(v, vl))) {
			free(best);
			best = u;
			best_rank = rank;
		}
	}
	return best;
}

char *prov_conda_upstream(const char *text, size_t len)
{
	static const char *const keys[] = { "dev_url", "home", "doc_source_url", "doc_url", NULL };
	struct prov_jv *v = NULL;
	char *url = NULL;
	size_t i;

	if (prov_jv_parse(&v, text, len) < 0) {
		prov_error_clear();
		return NULL;
	}
	for (i = 0; keys[i] && !url; i++) {
		const char *s = prov_jv_get_str(v, keys[i]);

		if (s)
			url = first_repo_url(s, strlen(s));
	}
	prov_jv_free(v);
	return url;
}

/* At most cap bytes from the start of a regular file under root. */
static int read_prefix(struct prov_buf *out, const char *root, const char *path, size_t cap)
{
	char chunk[8192];
	struct stat st;
	int fd;

	prov_buf_reset(out);
	fd = prov_root_open(root, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return PROV_ENOTFOUND;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return PROV_ENOTFOUND;
	}
	while (out->len < cap) {
		size_t want = cap - out->len < sizeof(chunk) ? cap - out->len : sizeof(chunk);
		ssize_t got = read(fd, chunk, want);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		prov_buf_add(out, chunk, (size_t)got);
	}
	close(fd);
	return 0;
}

/* A name that is one path component (a package name from a database). */
static int one_component(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..") && strlen(s) < 256;
}

static void set_upstream(struct prov_origin *o, char *url, const char *by, const char *evidence)
{
	o->upstream_url = url;
	o->upstream_by = prov_xstrdup(by);
	o->upstream_evidence = prov_xstrdup_or_null(evidence);
}

/* Every derivation leaves an origin alone that has an upstream already, or no kind. */
static int settled(const struct prov_origin *o)
{
	return !o || o->upstream_url || !o->kind;
}

int prov_upstream_from_dep5(struct prov_origin *o, const char *root)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path, *url;

	if (settled(o))
		return 1;
	if (!one_component(o->name))
		return 0;
	path = prov_xasprintf("/usr/share/doc/%s/copyright", o->name);
	if (read_prefix(&b, root, path, PREFIX_CAP) == 0 &&
	    (url = prov_dep5_upstream(b.buf, b.len)))
		set_upstream(o, url, "derived:dep5-source", path);
	free(path);
	prov_buf_release(&b);
	return 1;
}

int prov_upstream_from_pip_metadata(struct prov_origin *o, const char *root)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path, *url;

	if (settled(o))
		return 1;
	if (!o->evidence ||
	    !(prov_ends_with(o->evidence, ".dist-info") || prov_ends_with(o->evidence, ".egg-info")))
		return 0;
	path = prov_xasprintf("%s/%s", o->evidence,
			      prov_ends_with(o->evidence, ".egg-info") ? "PKG-INFO" : "METADATA");
	if (read_prefix(&b, root, path, PREFIX_CAP) != 0) {
		free(path);
		path = prov_xstrdup(o->evidence);	/* a flat egg-info file */
		read_prefix(&b, root, path, PREFIX_CAP);
	}
	if (b.len && (url = prov_pip_upstream(b.buf, b.len)))
		set_upstream(o, url, "derived:pip-project-url", path);
	free(path);
	prov_buf_release(&b);
	return 1;
}

int prov_upstream_from_conda_about(struct prov_origin *o, const char *root)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *slash;
	char *path, *url;
	size_t dl;

	if (settled(o))
		return 1;
	if (!o->evidence || !prov_ends_with(o->evidence, ".json"))
		return 0;
	/* <prefix>/conda-meta/NAME-VER-BUILD.json: <prefix>/pkgs/NAME-VER-BUILD/info/about.json */
	slash = strrchr(o->evidence, '/');
	dl = slash ? (size_t)(slash - o->evidence) : 0;
	if (slash && dl >= 11 && !strncmp(slash - 11, "/conda-meta", 11)) {
		const char *base = slash + 1;

		path = prov_xasprintf("%.*s/pkgs/%.*s/info/about.json", (int)(dl - 11), o->evidence,
				      (int)(strlen(base) - 5), base);
		if (prov_root_read(&b, root, path, ABOUT_CAP) == 0 &&
		    (url = prov_conda_upstream(b.buf, b.len)))
			set_upstream(o, url, "derived:conda-about", path);
		prov_error_clear();
		free(path);
	}
	prov_buf_release(&b);
	return 1;
}

void prov_upstream_from_vcs(struct prov_origin *o, const char *by)
{
	char *url;

	if (settled(o))
		return;
	if (o->vcs_url && (url = prov_repo_url_from(o->vcs_url, strlen(o->vcs_url))))
		set_upstream(o, url, by, o->evidence);
}
