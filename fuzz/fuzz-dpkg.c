/*
 * libFuzzer target: the dpkg resolver through a fake root. The input is
 * split on NUL bytes: var/lib/dpkg/status, var/lib/dpkg/diversions, then up
 * to four .list files whose first line names the file
 * ("pkg" or "pkg:arch") and whose second line is also looked up as a module.
 * Then a crash's modules are resolved and the inventory taken.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "error.h"
#include "model.h"
#include "resolver.h"
#include "common.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define NLISTS 4

static char *dpkg_root;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *p;

	if (dpkg_root)
		return 0;	/* once per process */
	dpkg_root = prov_xasprintf("%s/dpkg-root", fuzz_tmpdir());
	mkdir(dpkg_root, 0700);
	p = prov_xasprintf("%s/usr", dpkg_root);
	mkdir(p, 0700);
	free(p);
	p = prov_xasprintf("%s/usr/lib", dpkg_root);
	mkdir(p, 0700);
	free(p);
	p = prov_xasprintf("%s/lib", dpkg_root);
	if (symlink("usr/lib", p) < 0 && errno != EEXIST)
		abort();
	free(p);
	p = prov_xasprintf("%s/var", dpkg_root);
	mkdir(p, 0700);
	free(p);
	p = prov_xasprintf("%s/var/lib", dpkg_root);
	mkdir(p, 0700);
	free(p);
	p = prov_xasprintf("%s/var/lib/dpkg", dpkg_root);
	mkdir(p, 0700);
	free(p);
	p = prov_xasprintf("%s/var/lib/dpkg/info", dpkg_root);
	mkdir(p, 0700);
	free(p);
	return 0;
}

/* A file name from the first line of a list: no '/', never "." or "..". */
static char *list_name(const char *text, const char **rest)
{
	const char *nl = strchr(text, '\n');
	size_t len = nl ? (size_t)(nl - text) : strlen(text), i;
	char *name;

	if (len > 200)
		len = 200;
	name = prov_xstrndup(text, len);
	for (i = 0; name[i]; i++)
		if (name[i] == '/')
			name[i] = '_';
	*rest = nl ? nl + 1 : text + strlen(text);
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		free(name);
		return NULL;
	}
	return name;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *f[2 + NLISTS] = { NULL };
	size_t n = fuzz_split(f, 2 + NLISTS, data, size), i, nout = 0;
	char *written[NLISTS] = { NULL };
	char *status = NULL, *div = NULL;
	struct prov_resolve_ctx ctx = { dpkg_root, NULL };
	static const struct prov_resolver_ops *const chain[] = { &prov_resolver_dpkg, NULL };
	struct prov_origin **inv = NULL;
	struct prov_crash *c = prov_crash_new(PROV_INPUT_TEXT, "fuzz");
	struct prov_module *m;

	status = prov_xasprintf("%s/var/lib/dpkg/status", dpkg_root);
	div = prov_xasprintf("%s/var/lib/dpkg/diversions", dpkg_root);
	fuzz_write(status, f[0], strlen(f[0]));
	if (n > 1)
		fuzz_write(div, f[1], strlen(f[1]));
	m = prov_crash_add_module(c);
	m->path = prov_xstrdup("/usr/lib/x86_64-linux-gnu/libc.so.6");
	m = prov_crash_add_module(c);
	m->path = prov_xstrdup("/lib/libfoo.so.1");
	for (i = 2; i < n; i++) {
		const char *rest, *nl;
		char *name = list_name(f[i], &rest);

		if (!name)
			continue;
		written[i - 2] = prov_xasprintf("%s/var/lib/dpkg/info/%s.list", dpkg_root, name);
		free(name);
		fuzz_write(written[i - 2], rest, strlen(rest));
		nl = strchr(rest, '\n');
		m = prov_crash_add_module(c);
		m->path = nl ? prov_xstrndup(rest, (size_t)(nl - rest)) : prov_xstrdup(rest);
	}
	prov_resolve_modules_chain(c, &ctx, chain);
	prov_error_clear();
	if (prov_inventory_chain(&inv, &nout, &ctx, chain) == 0) {
		for (i = 0; i < nout; i++)
			prov_origin_free(inv[i]);
		free(inv);
	}
	for (i = 0; i < NLISTS; i++) {
		if (written[i])
			unlink(written[i]);
		free(written[i]);
	}
	unlink(div);
	free(status);
	free(div);
	prov_crash_free(c);
	fuzz_fields_free(f, n);
	prov_error_clear();
	return 0;
}
