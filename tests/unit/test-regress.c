/*
 * Replays every input that fuzzing found (fixtures/regress/<target>/) and
 * every seed (fixtures/fuzz-seeds/<target>/) through the entry point of its
 * libFuzzer target, built here with the normal compiler and flags, so that
 * `make check` (and a SANITIZE=address,undefined build) keeps them fixed.
 * The targets' own checks (__builtin_trap on a broken contract) apply.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>

#include "buf.h"
#include "config.h"
#include "core.h"
#include "image.h"
#include "error.h"
#include "input.h"
#include "jsonread.h"
#include "mapping.h"
#include "model.h"
#include "pathrw.h"
#include "textparse.h"
#include "util.h"
#include "kit-rpm-header.h"

/* Each target's entry points under a name of its own. */
#define LLVMFuzzerTestOneInput fuzz_core_one
#define LLVMFuzzerInitialize fuzz_core_init
#include "../../fuzz/fuzz-core.c"
#undef LLVMFuzzerTestOneInput
#undef LLVMFuzzerInitialize
#define LLVMFuzzerTestOneInput fuzz_dpkg_one
#define LLVMFuzzerInitialize fuzz_dpkg_init
#include "../../fuzz/fuzz-dpkg.c"
#undef LLVMFuzzerTestOneInput
#undef LLVMFuzzerInitialize
#define LLVMFuzzerTestOneInput fuzz_rpm_one
#include "../../fuzz/fuzz-rpm.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_pip_one
#include "../../fuzz/fuzz-pip.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_json_one
#include "../../fuzz/fuzz-json.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_mapping_one
#define LLVMFuzzerInitialize fuzz_mapping_init
#include "../../fuzz/fuzz-mapping.c"
#undef LLVMFuzzerTestOneInput
#undef LLVMFuzzerInitialize
#define LLVMFuzzerTestOneInput fuzz_pathrw_one
#include "../../fuzz/fuzz-pathrw.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_input_one
#include "../../fuzz/fuzz-input.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_text_one
#include "../../fuzz/fuzz-text.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_dep3_one
#include "../../fuzz/fuzz-dep3.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_udiff_one
#include "../../fuzz/fuzz-udiff.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_kernel_one
#include "../../fuzz/fuzz-kernel.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_web_request_one
#include "../../fuzz/fuzz-web-request.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_cudasan_one
#include "../../fuzz/fuzz-cudasan.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_version_one
#include "../../fuzz/fuzz-version.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_labels_one
#include "../../fuzz/fuzz-labels.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_gopclntab_one
#include "../../fuzz/fuzz-gopclntab.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_journal_one
#include "../../fuzz/fuzz-journal.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_sif_one
#include "../../fuzz/fuzz-sif.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_image_one
#include "../../fuzz/fuzz-image.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_cargo_one
#include "../../fuzz/fuzz-cargo.c"
#undef LLVMFuzzerTestOneInput

#include "unit.h"
#include "banned.h"

#ifdef __SANITIZE_ADDRESS__
/*
 * elfutils leaks 16 bytes on some malformed cores (see fuzz/lsan.supp); the
 * suppression needs the slow unwinder (libdw has no frame pointers). Tests
 * run from the top of the tree (tests/run-tests.sh).
 */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "suppressions=fuzz/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0";
}
#endif

typedef int (*one_fn)(const uint8_t *data, size_t size);

static const char *top(void)
{
	const char *t = getenv("TOP");

	return t && *t ? t : ".";
}

/* Feed every regular file of `dir` to fn; the number replayed. */
static size_t replay_dir(const char *dir, one_fn fn)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct dirent *e;
	size_t n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *path;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "README"))
			continue;
		path = prov_xasprintf("%s/%s", dir, e->d_name);
		if (prov_read_file(&b, path, (size_t)16 << 20) == 0) {
			print_message("replay %s\n", path);
			fn((const uint8_t *)b.buf, b.len);
			n++;
		}
		free(path);
	}
	closedir(d);
	prov_buf_release(&b);
	return n;
}

/* Regressions and seeds of one target; at least one seed must exist. */
static void replay(const char *target, one_fn fn, int need_seeds)
{
	char *reg = prov_xasprintf("%s/fixtures/regress/%s", top(), target);
	char *seeds = prov_xasprintf("%s/fixtures/fuzz-seeds/%s", top(), target);
	size_t nseeds;

	replay_dir(reg, fn);
	nseeds = replay_dir(seeds, fn);
	if (need_seeds)
		assert_true(nseeds > 0);
	free(reg);
	free(seeds);
}

/* The targets keep a few strings for the life of a fuzzing process; free
 * them here so that LeakSanitizer builds of this test stay quiet. */
static void core_done(void)
{
	free(core_root);
	free(core_file);
	core_root = core_file = NULL;
}

static void test_core(void **state)
{
	fuzz_core_init(NULL, NULL);
	replay("fuzz-core", fuzz_core_one, 1);
	core_done();
}

static void test_dpkg(void **state)
{
	fuzz_dpkg_init(NULL, NULL);
	replay("fuzz-dpkg", fuzz_dpkg_one, 1);
	free(dpkg_root);
	dpkg_root = NULL;
}

static void test_rpm(void **state)
{
	replay("fuzz-rpm", fuzz_rpm_one, 1);
}

static void test_pip(void **state)
{
	replay("fuzz-pip", fuzz_pip_one, 1);
}

static void test_json(void **state)
{
	replay("fuzz-json", fuzz_json_one, 1);
}

static void test_mapping(void **state)
{
	fuzz_mapping_init(NULL, NULL);
	replay("fuzz-mapping", fuzz_mapping_one, 1);
}

static void test_pathrw(void **state)
{
	replay("fuzz-pathrw", fuzz_pathrw_one, 1);
}

static void test_input(void **state)
{
	replay("fuzz-input", fuzz_input_one, 1);
}

static void test_text(void **state)
{
	char *dir = prov_xasprintf("%s/fixtures/text", top());
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	replay("fuzz-text", fuzz_text_one, 0);
	/* the text fixtures are the fuzz target's seeds (fuzz/run-fuzz.sh):
	 * every format directory goes through it here too */
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		char *sub;

		if (e->d_name[0] == '.')
			continue;
		sub = prov_xasprintf("%s/%s", dir, e->d_name);
		n += replay_dir(sub, fuzz_text_one);
		free(sub);
	}
	closedir(d);
	free(dir);
	assert_true(n > 0);
}

static void test_dep3(void **state)
{
	replay("fuzz-dep3", fuzz_dep3_one, 1);
}

static void test_udiff(void **state)
{
	replay("fuzz-udiff", fuzz_udiff_one, 1);
}

/* A seed that reaches the parser's success path: what `format` names. */
static void seed_parses(const char *target, const char *seed, int kernel)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_crash *c = NULL;
	char *p = prov_xasprintf("%s/fixtures/fuzz-seeds/%s/%s", top(), target, seed);

	assert_ok(prov_read_file(&b, p, 1 << 20));
	assert_ok(prov_text_parse(&c, seed, b.buf, b.len));
	if (kernel)
		assert_non_null(c->kernel_line);
	else
		assert_true(c->nthreads > 0 && c->threads[0].nframes > 0);
	prov_crash_free(c);
	prov_buf_release(&b);
	free(p);
}

static void test_web_request(void **state)
{
	(void)state;
	replay("fuzz-web-request", fuzz_web_request_one, 1);
}

static void test_kernel(void **state)
{
	replay("fuzz-kernel", fuzz_kernel_one, 1);
	seed_parses("fuzz-kernel", "dmesg-old.txt", 1);
}

static void test_cudasan(void **state)
{
	replay("fuzz-cudasan", fuzz_cudasan_one, 1);
	seed_parses("fuzz-cudasan", "global-read.txt", 0);
}

static void test_version(void **state)
{
	replay("fuzz-version", fuzz_version_one, 1);
	/* the seeds' ranges are well formed (the shipped ROCm mappings use the first) */
	assert_int_equal(prov_version_in_range(">=5.6,<7", "6.1.40091.60100-82~22.04"), 1);
	assert_int_equal(prov_version_in_range(">=2.0,<2.20.1", "1:2.19.3-1~24.04"), 1);
}

static void test_labels(void **state)
{
	replay("fuzz-labels", fuzz_labels_one, 1);
}

static void test_gopclntab(void **state)
{
	replay("fuzz-gopclntab", fuzz_gopclntab_one, 1);
}

static void test_cargo(void **state)
{
	replay("fuzz-cargo", fuzz_cargo_one, 1);
}

/* Feed a seed's fields (0x1e-separated) to an entry. */
static void journal_seed(struct prov_journal_entry *e, const char *name)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path = prov_xasprintf("%s/fixtures/fuzz-seeds/fuzz-journal/%s", top(), name);
	size_t pos = 0;

	assert_int_equal(prov_read_file(&b, path, 1 << 20), 0);
	prov_journal_entry_init(e);
	while (pos <= b.len) {
		const char *sep = memchr(b.buf + pos, 0x1e, b.len - pos);
		size_t len = sep ? (size_t)(sep - b.buf) - pos : b.len - pos;

		prov_journal_entry_add(e, b.buf + pos, len);
		pos += len + 1;
	}
	prov_buf_release(&b);
	free(path);
}

static void test_journal(void **state)
{
	struct prov_journal_entry e;

	replay("fuzz-journal", fuzz_journal_one, 1);
	/* the seeds mean what they say: a systemd-coredump entry, and a hostile one */
	journal_seed(&e, "coredump");
	assert_int_equal(prov_journal_entry_check(&e), 0);
	assert_int_equal(e.pid, 4242);
	assert_int_equal(e.signal, 11);
	assert_string_equal(e.host, "node1");
	assert_string_equal(e.uid, "1000");
	assert_true(e.usec == 1764000000123456ULL);
	assert_string_equal(e.facts.cmdline, "app --rank 3");
	assert_string_equal(e.facts.var[prov_collect_job_var("SLURM_JOB_ID", 12)], "77");
	assert_string_equal(e.facts.var[prov_collect_job_var("RANK", 4)], "3");
	assert_null(e.facts.var[prov_collect_job_var("SLURM_PROCID", 12)]);
	prov_journal_entry_release(&e);
	journal_seed(&e, "hostile");
	assert_int_equal(prov_journal_entry_check(&e), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "COREDUMP_PID"));
	assert_null(e.host);
	assert_null(e.facts.exe);	/* a NUL byte in it */
	assert_null(e.filename);	/* not absolute */
	prov_journal_entry_release(&e);
	prov_error_clear();
}

/* The SIF seeds (written by hand after sylabs/sif): what each one must give. */
static int sif_seed(const char *name, struct prov_sif_part *p)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path = prov_xasprintf("%s/fixtures/fuzz-seeds/fuzz-sif/%s", top(), name);
	int err;

	assert_int_equal(prov_read_file(&b, path, 1 << 20), 0);
	err = prov_sif_find_rootfs((const unsigned char *)b.buf, b.len, b.len, p);
	prov_buf_release(&b);
	free(path);
	return err;
}

static void test_sif(void **state)
{
	struct prov_sif_part p;

	replay("fuzz-sif", fuzz_sif_one, 1);
	assert_int_equal(sif_seed("primsys", &p), 0);
	assert_true(p.offset == 2600 && p.size == 64);
	assert_int_equal(sif_seed("system-only", &p), 0);
	assert_true(p.offset == 2600 && p.size == 64);
	assert_int_equal(sif_seed("encrypted", &p), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "encrypted"));
	assert_int_equal(sif_seed("out-of-file", &p), PROV_EINPUT);
	assert_int_equal(sif_seed("unused", &p), PROV_EINPUT);
}

/* An image seed (its first byte picks the reader) applied onto a fresh root
 * under the default budget; the root's fd in *rootfd, its path returned. */
static char *image_seed(const char *name, int *rootfd, int *err)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_image_budget budget;
	char *path = prov_xasprintf("%s/fixtures/fuzz-seeds/fuzz-image/%s", top(), name);
	char *file = prov_xasprintf("%s/image-seed", fuzz_tmpdir());
	char *root = prov_xasprintf("%s/image-seed-root-%s", fuzz_tmpdir(), name);

	assert_int_equal(prov_read_file(&b, path, 1 << 20), 0);
	assert_true(b.len > 1);
	fuzz_write(file, b.buf + 1, b.len - 1);
	assert_int_equal(mkdir(root, 0700), 0);
	*rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(*rootfd >= 0);
	prov_image_budget_init(&budget);
	*err = b.buf[0] & 1 ? prov_image_apply_squashfs(*rootfd, file, 0, b.len - 1, name, &budget)
			    : prov_image_apply_layer(*rootfd, file, name, &budget);
	unlink(file);
	prov_buf_release(&b);
	free(path);
	free(file);
	return root;
}

static void test_image(void **state)
{
	struct stat st;
	char *root;
	int fd, err;

	replay("fuzz-image", fuzz_image_one, 1);
	/* the seeds mean what they say */
	root = image_seed("layer-plain", &fd, &err);
	assert_int_equal(err, 0);
	assert_int_equal(fstatat(fd, "var/lib/dpkg/status", &st, AT_SYMLINK_NOFOLLOW), 0);
	close(fd);
	free(root);
	root = image_seed("layer-gzip", &fd, &err);
	assert_int_equal(err, 0);
	assert_int_equal(fstatat(fd, "lib/libx.so.1", &st, AT_SYMLINK_NOFOLLOW), 0);
	close(fd);
	free(root);
	root = image_seed("layer-hostile", &fd, &err);	/* "../escape" refuses the layer */
	assert_int_equal(err, PROV_EINPUT);
	close(fd);
	free(root);
	root = image_seed("squashfs-plain", &fd, &err);
	assert_int_equal(err, 0);
	assert_int_equal(fstatat(fd, "etc/os-release", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(fstatat(fd, "lib/abs", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISLNK(st.st_mode));
	close(fd);
	free(root);
	prov_error_clear();
}

/* The seeds are real: a real rpm header and real JSON shapes parse. */
static void test_seeds_parse(void **state)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_rpm_header h;
	struct prov_jv *v = NULL;
	char *p;

	p = prov_xasprintf("%s/fixtures/fuzz-seeds/fuzz-rpm/qux", top());
	if (prov_read_file(&b, p, 1 << 20) == 0) {	/* absent when rpmbuild was */
		assert_ok(prov_rpm_header_parse(&h, (const unsigned char *)b.buf, b.len));
		assert_string_equal(h.name, "qux");
		assert_string_equal(h.version, "3.1.0");
		assert_int_equal(h.nfiles, 1);
		assert_string_equal(h.files[0], "/usr/lib64/libqux.so.3");
		prov_rpm_header_release(&h);
	}
	free(p);
	/* the mapping seeds are loadable (a fuzzer stuck on one error path is useless) */
	{
		struct prov_mappings m;

		git_libgit2_init();
		prov_mappings_init(&m);
		p = prov_xasprintf("%s/fixtures/fuzz-seeds/fuzz-mapping/small.map", top());
		assert_ok(prov_mappings_load_file(&m, p));
		assert_int_equal(m.n, 1);
		assert_string_equal(m.items[0].repo, "https://example.org/x.git");
		prov_mappings_release(&m);
		free(p);
		git_libgit2_shutdown();
	}
	/* compressed seeds decompress (made by zstd, xz, lz4, gzip); bombs hit the cap */
	{
		static const char *const kinds[][2] = {
			{ "tiny-core.zst", "zstd" }, { "tiny-core.xz", "xz" },
			{ "tiny-core.lz4", "lz4" }, { "tiny-core.gz", "gzip" },
		};
		struct prov_input in;
		char *tmp = prov_xasprintf("%s/seeds-tmp", fuzz_tmpdir());
		size_t i;

		for (i = 0; i < 4; i++) {
			p = prov_xasprintf("%s/fixtures/fuzz-seeds/fuzz-input/%s", top(), kinds[i][0]);
			memset(&in, 0, sizeof(in));
			assert_ok(prov_input_open(&in, p, tmp, 1 << 20));
			assert_int_equal(in.type, PROV_INPUT_TYPE_CORE);
			assert_string_equal(in.compression, kinds[i][1]);
			prov_input_release(&in);
			free(p);
		}
		/* a core header (64 + 56 bytes, one empty PT_NOTE) then 16 MiB of
		 * zeros: only the core its headers describe is spooled (issue 27) */
		p = prov_xasprintf("%s/fixtures/fuzz-seeds/fuzz-input/bomb.zst", top());
		memset(&in, 0, sizeof(in));
		assert_ok(prov_input_open(&in, p, tmp, 1 << 20));
		{
			struct stat st;

			assert_int_equal(stat(in.path, &st), 0);
			assert_int_equal(st.st_size, 64 + 56);
		}
		prov_input_release(&in);
		assert_int_equal(fuzz_dir_count(tmp), 0);
		free(p);
		free(tmp);
	}
	/* the core seed taken from a real crash analyzes: threads and modules */
	{
		struct prov_crash *c = NULL;
		struct prov_core_opts opts;

		p = prov_xasprintf("%s/fixtures/fuzz-seeds/fuzz-core/notes-nullmain", top());
		if (prov_read_file(&b, p, 1 << 20) == 0) {	/* absent where no core could be made */
			fuzz_core_init(NULL, NULL);
			core_write((const uint8_t *)b.buf, b.len);
			memset(&opts, 0, sizeof(opts));
			opts.sysroot = core_root;
			assert_ok(prov_core_analyze(&c, core_file, &opts));
			assert_true(c->nthreads >= 1);
			print_message("seed core: %zu threads, %zu modules\n", c->nthreads, c->nmodules);
			assert_true(c->has_signal);
			assert_int_equal(c->signal.number, 11);	/* nullmain dies of SIGSEGV */
			prov_crash_free(c);
			core_done();
		}
		free(p);
	}
	p = prov_xasprintf("%s/fixtures/fuzz-seeds/fuzz-json/direct-url", top());
	assert_ok(prov_read_file(&b, p, 1 << 20));
	assert_ok(prov_jv_parse(&v, b.buf, b.len));
	assert_string_equal(prov_jv_get_str(prov_jv_get(v, "vcs_info"), "commit_id"),
			    "0123456789abcdef0123456789abcdef01234567");
	prov_jv_free(v);
	free(p);
	prov_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core),
		cmocka_unit_test(test_dpkg),
		cmocka_unit_test(test_rpm),
		cmocka_unit_test(test_pip),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_pathrw),
		cmocka_unit_test(test_input),
		cmocka_unit_test(test_dep3),
		cmocka_unit_test(test_udiff),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_cudasan),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_web_request),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_gopclntab),
		cmocka_unit_test(test_cargo),
		cmocka_unit_test(test_journal),
		cmocka_unit_test(test_sif),
		cmocka_unit_test(test_image),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_seeds_parse),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char *cmd = prov_xasprintf("rm -rf '%s'", fuzz_tmpdir());

	/* the targets' private directory (under /tmp) */
	if (system(cmd) < 0)
		rc = 1;
	free(cmd);
	return rc;
}
