#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "error.h"
#include "pathrw.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

static void rw(const struct prov_pathrw_ctx *ctx, const char *file, const char *comp_dir,
	       const char *want, const char *want_rule)
{
	char *out = NULL, *rule = NULL;
	int r = prov_pathrw_rewrite(&out, &rule, file, comp_dir, ctx);

	if (!want) {
		if (r != PROV_ENOTFOUND)
			fprintf(stderr, "'%s': expected no rewrite, got '%s' (%s)\n", file, out, rule);
		assert_int_equal(r, PROV_ENOTFOUND);
		assert_null(out);
		return;
	}
	if (r != 0 || strcmp(out, want) || strcmp(rule, want_rule))
		fprintf(stderr, "'%s': expected '%s' (%s), got %d '%s' (%s)\n", file, want,
			want_rule, r, out ? out : "", rule ? rule : "");
	assert_ok(r);
	assert_string_equal(out, want);
	assert_string_equal(rule, want_rule);
	free(out);
	free(rule);
}

static void test_rpm(void **state)
{
	(void)state;
	/* ROCm RPM debug info */
	rw(NULL, "/longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/clr/hipamd/src/hip_module.cpp",
	   NULL, "hipamd/src/hip_module.cpp", "rpm-longer-pathname");
	/* Fedora debuginfo, name-version-release.arch */
	rw(NULL, "/usr/src/debug/glibc-2.38-14.fc39.x86_64/malloc/malloc.c", NULL,
	   "malloc/malloc.c", "rpm-usr-src-debug");
	/* older name-version */
	rw(NULL, "/usr/src/debug/zlib-1.2.11/inflate.c", NULL, "inflate.c", "rpm-usr-src-debug");
	rw(NULL, "/usr/src/debug/", NULL, NULL, NULL);
}

static void test_debian(void **state)
{
	(void)state;
	rw(NULL, "/build/glibc-SzIz7B/glibc-2.31/malloc/malloc.c", NULL, "malloc/malloc.c",
	   "debian-build");
	rw(NULL, "/build/glibc-6iIyft/glibc-2.28/nptl/../sysdeps/unix/sysv/linux/raise.c", NULL,
	   "sysdeps/unix/sysv/linux/raise.c", "debian-build");
	rw(NULL, "/build/reproducible-path/glibc-2.36/stdlib/abort.c", NULL, "stdlib/abort.c",
	   "debian-build");
	rw(NULL, "/build/zlib-Ab12Cd/inflate.c", NULL, "inflate.c", "debian-build");
	/* DWARF name relative to the comp_dir */
	rw(NULL, "./nptl/pthread_kill.c", NULL, "nptl/pthread_kill.c", "relative");
	rw(NULL, "malloc.c", "/build/glibc-XyZ123/glibc-2.36/malloc", "malloc/malloc.c",
	   "debian-build");
}

static void test_conda_pip(void **state)
{
	(void)state;
	rw(NULL, "/home/conda/feedstock_root/build_artifacts/libtorch_1700000000000/work/aten/src/ATen/native/Foo.cpp",
	   NULL, "aten/src/ATen/native/Foo.cpp", "conda-build");
	rw(NULL, "/opt/conda/conda-bld/zlib_1600000000/work/inflate.c", NULL, "inflate.c",
	   "conda-build");
	rw(NULL, "/tmp/pip-req-build-a1b2c3d4/csrc/flash_attn/flash_api.cpp", NULL,
	   "csrc/flash_attn/flash_api.cpp", "pip-build");
	rw(NULL, "/tmp/pip-install-3k2j1h/flash-attn_0123abcd/csrc/x.cu", NULL, "csrc/x.cu",
	   "pip-build");
}

static void test_bazel(void **state)
{
	(void)state;
	rw(NULL, "/proc/self/cwd/external/xla/xla/service/gpu/gpu_executable.cc", NULL,
	   "xla/service/gpu/gpu_executable.cc", "bazel-external");
	rw(NULL, "/proc/self/cwd/jaxlib/gpu/solver_kernels.cc", NULL,
	   "jaxlib/gpu/solver_kernels.cc", "bazel-proc-self-cwd");
	rw(NULL, "external/com_google_absl/absl/base/internal/raw_logging.cc", NULL,
	   "absl/base/internal/raw_logging.cc", "bazel-external");
}

static void test_tmp_and_repo_name(void **state)
{
	struct prov_pathrw_ctx ctx = { 0 };

	(void)state;
	rw(NULL, "/tmp/build-xyz/src/main.c", NULL, "src/main.c", "tmp-build-dir");
	ctx.repo_name = "pytorch";
	rw(&ctx, "/home/user/src/pytorch/aten/src/ATen/cmake/../x.cpp", NULL, "aten/src/ATen/x.cpp",
	   "repo-name");
	/* repo-name before tmp: /tmp/tmpabc/pytorch/... keeps the repository root */
	rw(&ctx, "/tmp/tmpabc/pytorch/c10/core/Allocator.cpp", NULL, "c10/core/Allocator.cpp",
	   "repo-name");
	/* not a whole component */
	rw(&ctx, "/home/user/pytorch-old/x.c", NULL, NULL, NULL);
}

static void test_path_prefix_and_subdir(void **state)
{
	char *prefixes[] = { (char *)"*/rocm-systems/", (char *)"*/clr/" };
	struct prov_pathrw_ctx ctx = { 0 };

	(void)state;
	ctx.path_prefixes = prefixes;
	ctx.npath_prefixes = 2;
	ctx.subdir = "projects/clr";
	ctx.subdir_paths = 1;
	/* a monorepo checkout: already repo-relative after the prefix, no double subdir */
	rw(&ctx, "/home/ci/rocm-systems/projects/clr/hipamd/src/hip_memory.cpp", NULL,
	   "projects/clr/hipamd/src/hip_memory.cpp", "path-prefix");
	/* the old standalone clr checkout: relative to the sub-project */
	rw(&ctx, "/src/clr/rocclr/device/device.cpp", NULL,
	   "projects/clr/rocclr/device/device.cpp", "path-prefix+subdir");
	/* path-prefix wins over the RPM rule; the shortest match is taken */
	rw(&ctx, "/longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/clr/hipamd/clr/x.cpp",
	   NULL, "projects/clr/hipamd/clr/x.cpp", "path-prefix+subdir");
	rw(&ctx, "hipamd/src/x.cpp", NULL, "projects/clr/hipamd/src/x.cpp", "relative+subdir");
	ctx.subdir_paths = 0;
	rw(&ctx, "/src/clr/rocclr/device/device.cpp", NULL, "rocclr/device/device.cpp",
	   "path-prefix");
}

static void test_hostile_ctx(void **state)
{
	char *prefixes[] = { (char *)"*a*a*a*a*a*b/" };
	struct prov_pathrw_ctx ctx = { 0 };
	struct prov_buf longp = PROV_BUF_INIT;
	int i;

	(void)state;
	/* a backtracking glob is skipped, not run */
	ctx.path_prefixes = prefixes;
	ctx.npath_prefixes = 1;
	prov_buf_putc(&longp, '/');
	for (i = 0; i < 200; i++)
		prov_buf_puts(&longp, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/");
	rw(&ctx, longp.buf, NULL, NULL, NULL);
	prov_buf_release(&longp);
	/* a subdir that would climb out is refused (mapping files never give one) */
	ctx.npath_prefixes = 0;
	ctx.subdir = "../..";
	ctx.subdir_paths = 1;
	rw(&ctx, "a/b.c", NULL, NULL, NULL);
	ctx.subdir = "/etc";
	rw(&ctx, "a/b.c", NULL, NULL, NULL);
	assert_false(prov_pathrw_glob_ok("*a*a*a*a*a*a"));
	assert_true(prov_pathrw_glob_ok("*/rocm-systems/"));
}

static void test_substitute_path(void **state)
{
	struct prov_config *cfg = prov_config_new();
	struct prov_pathrw_ctx ctx = { 0 };

	(void)state;
	assert_ok(prov_config_add_arg(cfg, "substitute-path./home/CI/work/proj=src"));
	assert_ok(prov_config_add_arg(cfg, "substitute-path./opt/sdk/="));
	ctx.config = cfg;
	/* user rules come first, before the known prefixes */
	rw(&ctx, "/home/CI/work/proj/a/b.c", NULL, "src/a/b.c", "substitute-path");
	rw(&ctx, "/opt/sdk/include/x.h", NULL, "include/x.h", "substitute-path");
	/* only at a component boundary */
	rw(&ctx, "/home/CI/work/project/a.c", NULL, NULL, NULL);
	prov_config_free(cfg);
}

static void test_rejects(void **state)
{
	(void)state;
	rw(NULL, "/usr/include/stdio.h", NULL, NULL, NULL);
	rw(NULL, "../../etc/passwd", NULL, NULL, NULL);
	rw(NULL, "/build/x-abcdef/../../etc/passwd", NULL, NULL, NULL);
	rw(NULL, "", NULL, NULL, NULL);
	rw(NULL, NULL, NULL, NULL, NULL);
	rw(NULL, "/tmp/x", NULL, NULL, NULL);
	rw(NULL, "a//b/./c/../d.c", NULL, "a/b/d.c", "relative");
}

static void test_repo_name(void **state)
{
	char *n;

	(void)state;
	n = prov_pathrw_repo_name("https://github.com/ROCm/rocm-systems.git");
	assert_string_equal(n, "rocm-systems");
	free(n);
	n = prov_pathrw_repo_name("file:///srv/git/zlib/");
	assert_string_equal(n, "zlib");
	free(n);
	assert_null(prov_pathrw_repo_name("https://"));
	assert_null(prov_pathrw_repo_name(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rpm),
		cmocka_unit_test(test_debian),
		cmocka_unit_test(test_conda_pip),
		cmocka_unit_test(test_bazel),
		cmocka_unit_test(test_tmp_and_repo_name),
		cmocka_unit_test(test_path_prefix_and_subdir),
		cmocka_unit_test(test_hostile_ctx),
		cmocka_unit_test(test_substitute_path),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_repo_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
