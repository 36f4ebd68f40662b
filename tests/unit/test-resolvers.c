#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "util.h"
#include "cache.h"
#include "resolver.h"
#include "kit-python.h"
#include "kit-rpm-header.h"
#include "kit-text.h"
#include "unit.h"
#include "banned.h"

/* ---- the chain, with counting fake resolvers ---- */

struct fake {
	struct prov_resolver base;
	int which;
};

static int calls[5], inits[5], frees[5];

static int fake_init(struct prov_resolver **out, int which)
{
	struct fake *f;

	inits[which]++;
	if (which == 4)
		return PROV_EPASSTHROUGH;	/* declines the whole root */
	f = prov_xcalloc(1, sizeof(*f));
	f->which = which;
	*out = &f->base;
	return 0;
}

#define INIT(n) \
	static int init##n(struct prov_resolver **out, const struct prov_resolve_ctx *ctx) \
	{ return fake_init(out, n); }
INIT(0)
INIT(1)
INIT(2)
INIT(3)
INIT(4)

static int fake_resolve(struct prov_origin *out, struct prov_resolver *r,
			const struct prov_module *mod)
{
	struct fake *f = (struct fake *)r;

	calls[f->which]++;
	switch (f->which) {
	case 0:
		return PROV_EPASSTHROUGH;
	case 1:
		if (strstr(mod->path, "boom"))
			return prov_error_set(PROV_ERROR, "boom in '%s'", mod->path);
		/* a resolver that half-fills then declines: the chain must drop it */
		out->name = prov_xstrdup("half");
		return PROV_ENOTFOUND;
	case 2:
		if (!strstr(mod->path, "claim"))
			return PROV_EPASSTHROUGH;
		out->kind = prov_xstrdup("path");
		out->name = prov_xstrdup(prov_basename(mod->path));
		return 0;
	default:
		out->kind = prov_xstrdup("path");
		out->name = prov_xstrdup("last");
		out->found_by = prov_xstrdup("custom");
		return 0;
	}
}

static int fake_inventory(struct prov_resolver *r, struct prov_origin_list *l)
{
	struct fake *f = (struct fake *)r;
	struct prov_origin *o = prov_origin_new("path");

	o->name = prov_xstrdup(f->which == 2 ? "zeta" : "alpha");
	prov_origin_list_add(l, o);
	if (f->which == 2) {
		o = prov_origin_new("path");
		o->name = prov_xstrdup("zeta");	/* duplicate: listed once */
		prov_origin_list_add(l, o);
	}
	return 0;
}

static void fake_free(struct prov_resolver *r)
{
	frees[((struct fake *)r)->which]++;
	free(r);
}

#define OPS(n, inv) \
	static const struct prov_resolver_ops ops##n = { PROV_RESOLVER_VERSION, "fake" #n, \
		init##n, fake_resolve, inv, fake_free };
OPS(0, NULL)
OPS(1, NULL)
OPS(2, fake_inventory)
OPS(3, fake_inventory)
OPS(4, NULL)

static void reset_counts(void)
{
	memset(calls, 0, sizeof(calls));
	memset(inits, 0, sizeof(inits));
	memset(frees, 0, sizeof(frees));
}

static void test_chain(void **state)
{
	const struct prov_resolver_ops *const chain[] = { &ops4, &ops0, &ops1, &ops2, &ops3, NULL };
	struct prov_resolve_ctx ctx = { NULL, NULL };
	struct prov_crash *c = prov_crash_new(PROV_INPUT_TEXT, "t");

	reset_counts();
	prov_crash_add_module(c)->path = prov_xstrdup("/a/claim.so");
	prov_crash_add_module(c)->path = prov_xstrdup("/a/other.so");
	prov_crash_add_module(c)->path = prov_xstrdup("/a/preset.so");
	c->modules[2].origin = prov_origin_new("dpkg");	/* already resolved: skipped */
	prov_crash_add_module(c);	/* no path: skipped */
	assert_ok(prov_resolve_modules_chain(c, &ctx, chain));
	assert_int_equal(inits[4], 1);	/* declined at init: never called */
	assert_int_equal(calls[4], 0);
	assert_int_equal(calls[0], 2);
	assert_int_equal(calls[1], 2);
	assert_int_equal(calls[2], 2);
	assert_int_equal(calls[3], 1);	/* only for the module fake2 did not claim */
	assert_string_equal(c->modules[0].origin->name, "claim.so");
	assert_string_equal(c->modules[0].origin->found_by, "fake2");
	assert_string_equal(c->modules[1].origin->name, "last");
	assert_string_equal(c->modules[1].origin->found_by, "custom");	/* kept when set */
	assert_string_equal(c->modules[2].origin->kind, "dpkg");
	assert_null(c->modules[3].origin);
	assert_int_equal(frees[0] + frees[1] + frees[2] + frees[3], 4);
	prov_crash_free(c);
}

static void test_chain_stops_on_error(void **state)
{
	const struct prov_resolver_ops *const chain[] = { &ops0, &ops1, &ops2, &ops3, NULL };
	struct prov_resolve_ctx ctx = { NULL, NULL };
	struct prov_crash *c = prov_crash_new(PROV_INPUT_TEXT, "t");

	reset_counts();
	prov_crash_add_module(c)->path = prov_xstrdup("/a/claim.so");
	prov_crash_add_module(c)->path = prov_xstrdup("/a/boom.so");
	prov_crash_add_module(c)->path = prov_xstrdup("/a/claim2.so");
	assert_int_equal(prov_resolve_modules_chain(c, &ctx, chain), PROV_ERROR);
	assert_non_null(strstr(prov_error_last(), "boom"));
	assert_int_equal(calls[2], 1);	/* never reached for boom or after it */
	assert_int_equal(calls[3], 0);
	assert_non_null(c->modules[0].origin);
	assert_null(c->modules[1].origin);
	assert_null(c->modules[2].origin);
	assert_int_equal(frees[0] + frees[1] + frees[2] + frees[3], 4);	/* all freed on error */
	prov_crash_free(c);
}

static void test_inventory_chain(void **state)
{
	const struct prov_resolver_ops *const chain[] = { &ops2, &ops0, &ops3, NULL };
	struct prov_resolve_ctx ctx = { NULL, NULL };
	struct prov_origin **v = NULL;
	size_t n = 0, i;

	reset_counts();
	assert_ok(prov_inventory_chain(&v, &n, &ctx, chain));
	assert_int_equal(n, 2);
	assert_string_equal(v[0]->name, "alpha");	/* sorted */
	assert_string_equal(v[0]->found_by, "fake3");
	assert_string_equal(v[1]->name, "zeta");
	assert_string_equal(v[1]->found_by, "fake2");
	for (i = 0; i < n; i++)
		prov_origin_free(v[i]);
	free(v);
}

/* ---- Debian versions ---- */

static void check_debver(const char *s, unsigned long epoch, const char *up, const char *rev,
			 const char *build)
{
	struct prov_debver v;

	assert_ok(prov_debver_split(&v, s));
	assert_int_equal(v.epoch, epoch);
	assert_string_equal(v.upstream, up);
	if (rev)
		assert_string_equal(v.revision, rev);
	else
		assert_null(v.revision);
	if (build)
		assert_string_equal(v.build, build);
	else
		assert_null(v.build);
	prov_debver_release(&v);
}

static void test_debver(void **state)
{
	struct prov_debver v;

	check_debver("1:2.0.0-43~24.04", 1, "2.0.0", "43~24.04", "24.04");
	check_debver("2.36-9+deb12u14", 0, "2.36", "9+deb12u14", "deb12u14");
	check_debver("252.38-1~deb12u1", 0, "252.38", "1~deb12u1", "deb12u1");
	check_debver("4:12.2.0-3", 4, "12.2.0", "3", NULL);
	check_debver("1.0", 0, "1.0", NULL, NULL);
	check_debver("1.2-3-4", 0, "1.2-3", "4", NULL);	/* the LAST '-' */
	check_debver("0:9.9", 0, "9.9", NULL, NULL);
	assert_int_equal(prov_debver_split(&v, ""), PROV_EINPUT);
	assert_int_equal(prov_debver_split(&v, "x:1.0"), PROV_EINPUT);
	assert_int_equal(prov_debver_split(&v, "99999999999999999999:1"), PROV_EINPUT);
	assert_int_equal(prov_debver_split(&v, "1:"), PROV_EINPUT);
	prov_debver_release(NULL);
}

/* ---- rpm headers, built here byte by byte ---- */

struct blob {
	unsigned char ents[16 * 16];
	unsigned char data[512];
	uint32_t il, dl;
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void add_entry(struct blob *b, uint32_t tag, uint32_t type, const void *data, size_t len,
		      uint32_t count)
{
	unsigned char *e = b->ents + b->il * 16;

	if (type == 4)
		while (b->dl % 4)
			b->data[b->dl++] = 0;
	put32(e, tag);
	put32(e + 4, type);
	put32(e + 8, b->dl);
	put32(e + 12, count);
	memcpy(b->data + b->dl, data, len);
	b->dl += (uint32_t)len;
	b->il++;
}

static size_t serialize(unsigned char *out, const struct blob *b)
{
	put32(out, b->il);
	put32(out + 4, b->dl);
	memcpy(out + 8, b->ents, b->il * 16);
	memcpy(out + 8 + b->il * 16, b->data, b->dl);
	return 8 + b->il * 16 + b->dl;
}

static size_t good_blob(unsigned char *out, struct blob *b)
{
	unsigned char idx[8], epoch[4];

	memset(b, 0, sizeof(*b));
	add_entry(b, 1000, 6, "qux-libs", 9, 1);
	add_entry(b, 1001, 6, "3.1.0", 6, 1);
	add_entry(b, 1002, 6, "7.el9", 6, 1);
	put32(epoch, 2);
	add_entry(b, 1003, 4, epoch, 4, 1);
	add_entry(b, 1022, 6, "x86_64", 7, 1);
	add_entry(b, 1044, 6, "qux-3.1.0-7.el9.src.rpm", 24, 1);
	add_entry(b, 1117, 8, "libqux.so.3\0qux.conf\0", 21, 2);
	add_entry(b, 1118, 8, "/usr/lib64/\0/etc/\0", 18, 2);
	put32(idx, 0);
	put32(idx + 4, 1);
	add_entry(b, 1116, 4, idx, 8, 2);
	add_entry(b, 1020, 6, "https://qux.example.org/", 25, 1);	/* URL: a homepage */
	add_entry(b, 5034, 6, "git+https://github.com/example/qux", 35, 1);	/* VCS */
	return serialize(out, b);
}

static void test_rpm_header(void **state)
{
	unsigned char raw[2048];
	struct blob b;
	struct prov_rpm_header h;
	size_t len = good_blob(raw, &b), cut;

	assert_ok(prov_rpm_header_parse(&h, raw, len));
	assert_string_equal(h.name, "qux-libs");
	assert_string_equal(h.version, "3.1.0");
	assert_string_equal(h.release, "7.el9");
	assert_int_equal(h.has_epoch, 1);
	assert_int_equal(h.epoch, 2);
	assert_string_equal(h.arch, "x86_64");
	assert_string_equal(h.sourcerpm, "qux-3.1.0-7.el9.src.rpm");
	assert_int_equal(h.nfiles, 2);
	assert_string_equal(h.files[0], "/usr/lib64/libqux.so.3");
	assert_string_equal(h.files[1], "/etc/qux.conf");
	assert_string_equal(h.url, "https://qux.example.org/");
	assert_string_equal(h.vcs, "git+https://github.com/example/qux");
	prov_rpm_header_release(&h);

	/* every truncation fails cleanly */
	for (cut = 0; cut < len; cut++)
		assert_true(prov_rpm_header_parse(&h, raw, cut) < 0);
}

static void test_rpm_header_hostile(void **state)
{
	unsigned char raw[2048];
	struct blob b;
	struct prov_rpm_header h;
	size_t len;

	/* a string offset past the data */
	len = good_blob(raw, &b);
	put32(raw + 8 + 0 * 16 + 8, 0x7fffffff);
	assert_int_equal(prov_rpm_header_parse(&h, raw, len), PROV_EINPUT);
	/* a string array whose count runs past the data */
	len = good_blob(raw, &b);
	put32(raw + 8 + 6 * 16 + 12, 50);
	assert_int_equal(prov_rpm_header_parse(&h, raw, len), PROV_EINPUT);
	/* an int32 array past the data */
	len = good_blob(raw, &b);
	put32(raw + 8 + 8 * 16 + 12, 0x40000000);
	assert_true(prov_rpm_header_parse(&h, raw, len) < 0);
	/* a dirindex past the dirnames */
	len = good_blob(raw, &b);
	{
		uint32_t off = ((uint32_t)raw[8 + 8 * 16 + 8] << 24) | ((uint32_t)raw[8 + 8 * 16 + 9] << 16) |
			       ((uint32_t)raw[8 + 8 * 16 + 10] << 8) | raw[8 + 8 * 16 + 11];

		uint32_t il = ((uint32_t)raw[0] << 24) | ((uint32_t)raw[1] << 16) |
			      ((uint32_t)raw[2] << 8) | raw[3];

		put32(raw + 8 + il * 16 + off + 4, 9);
	}
	assert_int_equal(prov_rpm_header_parse(&h, raw, len), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "dirindex"));
	/* entry count and data length that do not fit */
	len = good_blob(raw, &b);
	put32(raw, 0xffffffff);
	assert_true(prov_rpm_header_parse(&h, raw, len) < 0);
	len = good_blob(raw, &b);
	put32(raw + 4, 0xfffffff0);
	assert_int_equal(prov_rpm_header_parse(&h, raw, len), PROV_EINPUT);
	/* a name without its NUL at the end of the data */
	memset(&b, 0, sizeof(b));
	add_entry(&b, 1000, 6, "abc", 3, 1);
	len = serialize(raw, &b);
	assert_int_equal(prov_rpm_header_parse(&h, raw, len), PROV_EINPUT);
	/* wrong type for the name */
	memset(&b, 0, sizeof(b));
	add_entry(&b, 1000, 4, "\0\0\0\1", 4, 1);
	len = serialize(raw, &b);
	assert_int_equal(prov_rpm_header_parse(&h, raw, len), PROV_EINPUT);
}

/* ---- pip RECORD and METADATA ---- */

static int collect(const char *path, void *data)
{
	struct prov_buf *b = data;

	prov_buf_puts(b, path);
	prov_buf_putc(b, '|');
	return 0;
}

static void test_pip_record(void **state)
{
	struct prov_buf text = PROV_BUF_INIT, got = PROV_BUF_INIT;
	size_t nbad = 0, i;

	prov_buf_puts(&text, "mypkg/__init__.py,sha256=abc,12\r\n"
			     "\"mypkg/we,ird \"\"name\"\".so\",sha256=x,1\n"
			     "\n"
			     "../../../bin/tool,,\n"
			     "\"unterminated,quote\n");
	for (i = 0; i < 5000; i++)
		prov_buf_putc(&text, 'A');
	prov_buf_puts(&text, ",,\nbin");
	prov_buf_add(&text, "\0ary", 4);
	prov_buf_puts(&text, ",,\nlast.py");
	assert_ok(prov_pip_record_foreach(text.buf, text.len, &nbad, collect, &got));
	assert_string_equal(got.buf, "mypkg/__init__.py|mypkg/we,ird \"name\".so|../../../bin/tool|last.py|");
	assert_int_equal(nbad, 3);
	prov_buf_release(&text);
	prov_buf_release(&got);
}

static void test_pip_metadata(void **state)
{
	const char *m = "Metadata-Version: 2.1\r\nName:  torch \r\nVersion: 2.3.0+rocm6.2\r\n"
			"Summary: x\r\n\r\nName: body-not-header\n";
	char *name, *version;

	prov_pip_metadata(&name, &version, m, strlen(m));
	assert_string_equal(name, "torch");
	assert_string_equal(version, "2.3.0+rocm6.2");
	free(name);
	free(version);
	prov_pip_metadata(&name, &version, "\nName: x\n", 9);
	assert_null(name);
	assert_null(version);
}

/* ---- resolution against a fixture root built with the real tools ---- */

static char tmpdir[] = "/tmp/prov-test-resolvers.XXXXXX";
static char *root, *truth_path;
static int root_rc = -1;

static char *truth(const char *key)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *pos, *end, *line;
	size_t n, kl = strlen(key);
	char *v = NULL;

	if (prov_read_file(&b, truth_path, 1 << 20) < 0)
		return NULL;
	pos = b.buf;
	end = b.buf + b.len;
	while (prov_next_line(&line, &n, &pos, end))
		if (n > kl && memcmp(line, key, kl) == 0 && line[kl] == '=') {
			v = prov_xstrndup(line + kl + 1, n - kl - 1);
			break;
		}
	prov_buf_release(&b);
	return v;
}

static int build_root(void **state)
{
	char *cmd;
	const char *top = getenv("TOP");

	assert_non_null(mkdtemp(tmpdir));
	root = prov_xasprintf("%s/root", tmpdir);
	truth_path = prov_xasprintf("%s/truth", tmpdir);
	cmd = prov_xasprintf("'%s/fixtures/roots/build-root.sh' '%s' '%s' >'%s/build.log' 2>&1",
			     top ? top : ".", root, truth_path, tmpdir);
	root_rc = system(cmd);
	root_rc = WIFEXITED(root_rc) ? WEXITSTATUS(root_rc) : -1;
	free(cmd);
	return 0;
}

static int remove_root(void **state)
{
	char *cmd = prov_xasprintf("rm -rf '%s'", tmpdir);

	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	free(cmd);
	free(root);
	free(truth_path);
	return 0;
}

static int nwarn;
static void count_warn(const char *msg, void *data)
{
	nwarn++;
}

static void expect(const struct prov_module *m, const char *kind, const char *name,
		   const char *version_key, const char *commit_key)
{
	char *v;

	assert_non_null(m->origin);
	assert_string_equal(m->origin->kind, kind);
	assert_string_equal(m->origin->name, name);
	if (version_key) {
		v = truth(version_key);
		assert_non_null(v);
		assert_string_equal(m->origin->version, v);
		free(v);
	}
	if (commit_key) {
		v = truth(commit_key);
		assert_non_null(v);
		assert_string_equal(m->origin->commit, v);
		free(v);
	}
}

static void resolve_root(struct prov_cache *cache)
{
	struct prov_resolve_ctx ctx = { root, cache };
	struct prov_crash *c = prov_crash_new(PROV_INPUT_CORE, "t");
	static const char *const paths[] = {
		"/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.0",	/* list says /lib/...: merged /usr */
		"/lib/x86_64-linux-gnu/libbar.so.2",	/* a symlink, through the /lib symlink */
		"/usr/lib64/libqux.so.3.1.0",
		"/usr/local/lib/python3.11/site-packages/mypkg/_native.cpython-311-x86_64-linux-gnu.so",
		"/usr/local/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so",
		"/opt/conda/lib/libz.so.1.2.13",
		"/opt/rocm/lib/libamdhip64.so.6.2.41133",
		"/usr/local/cuda-12.4/lib64/libcudart.so.12",
		"/opt/myproj/build/libmyproj.so",
		"/opt/other-1.2/lib/libx.so",
		"/usr/lib/x86_64-linux-gnu/libevil.so.1",	/* symlink to the host's /etc/shadow */
		"/../../../etc/shadow",
		"/opt/conda/lib/libz.so.1.2.13 (deleted)",	/* replaced since it was mapped */
		"[vdso]",
		"libfoo.so.1.2.0",	/* a bare name, as some backtraces print */
		NULL
	};
	size_t i;
	char *rpmv = truth("rpm.qux-libs.version");

	for (i = 0; paths[i]; i++)
		prov_crash_add_module(c)->path = prov_xstrdup(paths[i]);
	assert_ok(prov_resolve_modules(c, &ctx));
	expect(&c->modules[0], "dpkg", "libfoo1", "dpkg.libfoo1.version", NULL);
	assert_string_equal(c->modules[0].origin->arch, "amd64");
	assert_string_equal(c->modules[0].origin->source, "foo");
	assert_string_equal(c->modules[0].origin->source_version, "2.0.0-43~24.04");
	assert_string_equal(c->modules[0].origin->found_by, "dpkg");
	expect(&c->modules[1], "dpkg", "libbar2", "dpkg.libbar2.version", NULL);
	/* evidence names the file that said so, and dpkg really wrote it there */
	for (i = 0; i < 2; i++) {
		char *ev = prov_xasprintf("%s%s", root, c->modules[i].origin->evidence);

		assert_true(prov_ends_with(ev, ".list"));
		assert_int_equal(access(ev, R_OK), 0);
		free(ev);
	}
	if (rpmv)
		expect(&c->modules[2], "rpm", "qux-libs", "rpm.qux-libs.version", NULL);
	expect(&c->modules[3], "pip", "mypkg", "pip.mypkg.version", "pip.mypkg.commit");
	expect(&c->modules[4], "pip", "torch", "pip.torch.version", "pip.torch.commit");
	expect(&c->modules[5], "conda", "zlib", "conda.zlib.version", NULL);
	expect(&c->modules[6], "rocm", "rocm", "rocm.version", NULL);
	expect(&c->modules[7], "path", "cuda", "cuda.version", NULL);
	expect(&c->modules[8], "git", "myproj", NULL, "git.myproj.commit");
	expect(&c->modules[9], "path", "other", NULL, NULL);
	assert_string_equal(c->modules[9].origin->version, "1.2");
	assert_int_equal(c->modules[9].origin->guess, 1);
	assert_null(c->modules[10].origin);
	assert_null(c->modules[11].origin);
	expect(&c->modules[12], "conda", "zlib", "conda.zlib.version", NULL);
	assert_null(c->modules[13].origin);
	expect(&c->modules[14], "dpkg", "libfoo1", "dpkg.libfoo1.version", NULL);
	assert_int_equal(c->modules[14].origin->guess, 1);
	assert_int_equal(c->modules[0].origin->guess, 0);
	free(rpmv);
	prov_crash_free(c);
}

static void test_fixture_root(void **state)
{
	struct prov_cache *cache = NULL;
	char *cdir;

	if (root_rc == 77)
		skip();
	assert_int_equal(root_rc, 0);
	prov_warn_set_sink(count_warn, NULL);
	nwarn = 0;
	resolve_root(NULL);
	assert_true(nwarn >= 3);	/* bad .list line, broken stanza, bad RECORD lines */
	/* the same through the cache, cold then warm */
	cdir = prov_xasprintf("%s/cache", tmpdir);
	assert_ok(prov_cache_open(&cache, cdir));
	resolve_root(cache);
	nwarn = 0;
	resolve_root(cache);
	assert_int_equal(nwarn, 0);	/* warm: the databases were not read again */
	prov_cache_free(cache);
	free(cdir);
	prov_warn_set_sink(NULL, NULL);
}

/* ---- the host: agree with dpkg ---- */

static char *run(const char *cmd)
{
	struct prov_buf b = PROV_BUF_INIT;
	char buf[4096];
	size_t n;
	FILE *f = popen(cmd, "r");

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		prov_buf_add(&b, buf, n);
	if (pclose(f) != 0) {
		prov_buf_release(&b);
		return NULL;
	}
	prov_buf_rtrim(&b);
	return prov_buf_detach(&b);
}

static void test_host_dpkg(void **state)
{
	static const char *const paths[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/ld-linux-x86-64.so.2",
		"/usr/lib/x86_64-linux-gnu/libz.so.1",
		"/usr/bin/true",
		NULL
	};
	const struct prov_resolver_ops *const dpkg_only[] = { &prov_resolver_dpkg, NULL };
	struct prov_resolve_ctx ctx = { NULL, NULL };
	struct prov_crash *c;
	size_t i, checked = 0;

	if (access("/var/lib/dpkg/status", R_OK) != 0 || access("/usr/bin/dpkg-query", X_OK) != 0)
		skip();
	c = prov_crash_new(PROV_INPUT_CORE, "host");
	for (i = 0; paths[i]; i++)
		prov_crash_add_module(c)->path = prov_xstrdup(paths[i]);
	assert_ok(prov_resolve_modules_chain(c, &ctx, dpkg_only));
	for (i = 0; paths[i]; i++) {
		/* ground truth: dpkg -S on the path, or on its /usr-less twin (merged /usr) */
		const char *alt = prov_skip_prefix(paths[i], "/usr");
		char *cmd = prov_xasprintf("dpkg-query -S '%s' 2>/dev/null || dpkg-query -S '%s' 2>/dev/null",
					   paths[i], alt ? alt : paths[i]);
		char *owner = run(cmd), *colon, *ver;

		free(cmd);
		if (access(paths[i], F_OK) != 0 || !owner)
			continue;
		/* "libc6:amd64: /lib/x86_64-linux-gnu/libc.so.6" */
		colon = strstr(owner, ": ");
		assert_non_null(colon);
		*colon = 0;
		cmd = prov_xasprintf("dpkg-query -W -f='${Version}' '%s'", owner);
		ver = run(cmd);
		free(cmd);
		if ((colon = strchr(owner, ':')))
			*colon = 0;
		assert_non_null(c->modules[i].origin);
		assert_string_equal(c->modules[i].origin->name, owner);
		assert_string_equal(c->modules[i].origin->version, ver);
		checked++;
		free(owner);
		free(ver);
	}
	assert_true(checked >= 2);
	prov_crash_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_chain_stops_on_error),
		cmocka_unit_test(test_inventory_chain),
		cmocka_unit_test(test_debver),
		cmocka_unit_test(test_rpm_header),
		cmocka_unit_test(test_rpm_header_hostile),
		cmocka_unit_test(test_pip_record),
		cmocka_unit_test(test_pip_metadata),
		cmocka_unit_test(test_fixture_root),
		cmocka_unit_test(test_host_dpkg),
	};
	return cmocka_run_group_tests(tests, build_root, remove_root);
}
