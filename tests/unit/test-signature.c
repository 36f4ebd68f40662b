/*
 * The crash signature rules (src/model/signature.c, docs/signature.md) on
 * frame lists taken from real crashes: the frames as gdb's `bt` printed them
 * for cores of fixtures/crashers/sighandler.c (LLVM's and glog's handlers),
 * an assert(), a std::string copied from a corrupted string (g++ -O2: the
 * copy faults in libc's memcpy under libstdc++'s _M_construct), and
 * fixtures/crashers/sighandler.py (Python's faulthandler over ctypes). The
 * expected signatures are read off those lists by the documented rules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "signature.h"
#include "util.h"
#include "banned.h"

#define NOCRASH ((size_t)-1)
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check(int signo, const struct prov_sig_frame *f, size_t n, size_t crash_frame,
		  const char *want)
{
	char *sig = prov_signature_frames(signo, f, n, crash_frame);

	assert_non_null(sig);
	assert_string_equal(sig, want);
	free(sig);
}

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define EXE "/tmp/sighandler"

/* LLVM's handler: SA_RESETHAND, prints, re-raises with tgkill (syscall) */
static const struct prov_sig_frame llvm[] = {
	{ "syscall", LIBC, 0, 0, 1 },
	{ "llvm_handler", EXE, 0, 0, 1 },
	{ "<signal handler called>", LIBC, 0, 1, 0 },
	{ "read_slot", EXE, 0, 0, 0 },
	{ "sum_slots", EXE, 0, 0, 0 },
	{ "main", EXE, 0, 0, 0 },
	{ "__libc_start_call_main", LIBC, 0, 0, 0 },
	{ "__libc_start_main_impl", LIBC, 0, 0, 0 },
	{ "_start", EXE, 0, 0, 0 },
};

static void test_reraised_llvm(void **state)
{
	(void)state;
	/* a core: the analyzer says the crash site is #3 */
	check(11, llvm, N(llvm), 3, "11|read_slot|sum_slots|main");
	/* the same frames as a text backtrace (no crash site given): the frames
	 * above the signal frame are machinery and a handler */
	check(11, llvm, N(llvm), NOCRASH, "11|read_slot|sum_slots|main");
}

/* LLVM's own names, as a text backtrace prints them (the runbook) */
static void test_reraised_llvm_text(void **state)
{
	static const struct prov_sig_frame f[] = {
		{ "syscall", NULL, 0, 0, 0 },
		{ "SignalHandler(int)", NULL, 0, 0, 0 },
		{ "<signal handler called>", NULL, 0, 1, 0 },
		{ "Model::ToGpu()", NULL, 0, 0, 0 },
		{ "Model::Load(std::string const&)", NULL, 0, 0, 0 },
		{ "main", NULL, 0, 0, 0 },
	};
	static const struct prov_sig_frame own_code_above[] = {
		{ "compute_checksum", NULL, 0, 0, 0 },
		{ "<signal handler called>", NULL, 0, 1, 0 },
		{ "worker_loop", NULL, 0, 0, 0 },
	};

	(void)state;
	check(11, f, N(f), NOCRASH, "11|Model::ToGpu|Model::Load|main");
	/* a frame above the signal frame that is neither machinery nor a
	 * handler: that code crashed (say a SIGPROF handler), start at #0 */
	check(11, own_code_above, N(own_code_above), NOCRASH, "11|compute_checksum|worker_loop");
}

/* glog's handler calls abort(): the core says SIGABRT, the fault is SIGSEGV */
static void test_glog_abort(void **state)
{
	static const struct prov_sig_frame f[] = {
		{ "__pthread_kill_implementation", LIBC, 0, 0, 1 },
		{ "__GI_raise", LIBC, 0, 0, 1 },
		{ "__GI_abort", LIBC, 0, 0, 1 },
		{ "glog_handler", EXE, 0, 0, 1 },
		{ "<signal handler called>", LIBC, 0, 1, 0 },
		{ "read_slot", EXE, 0, 0, 0 },
		{ "sum_slots", EXE, 0, 0, 0 },
		{ "main", EXE, 0, 0, 0 },
	};

	(void)state;
	check(11, f, N(f), 5, "11|read_slot|sum_slots|main");
	check(6, f, N(f), NOCRASH, "6|read_slot|sum_slots|main");
}

/* a handler that faults itself: the analyzer keeps frame #0 (crash_frame 0) */
static void test_handler_faults(void **state)
{
	(void)state;
	check(11, llvm, N(llvm), 0, "11|llvm_handler|read_slot|sum_slots");
}

static void test_assert(void **state)
{
	static const struct prov_sig_frame f[] = {
		{ "__pthread_kill_implementation", LIBC, 0, 0, 0 },
		{ "__pthread_kill_internal", LIBC, 0, 0, 0 },
		{ "__GI_raise", LIBC, 0, 0, 0 },
		{ "__GI_abort", LIBC, 0, 0, 0 },
		{ "__assert_fail_base", LIBC, 0, 0, 0 },
		{ "__GI___assert_fail", LIBC, 0, 0, 0 },
		{ "check_config", "/tmp/assert", 0, 0, 0 },
		{ "load", "/tmp/assert", 0, 0, 0 },
		{ "main", "/tmp/assert", 0, 0, 0 },
		{ "__libc_start_call_main", LIBC, 0, 0, 0 },
	};

	(void)state;
	check(6, f, N(f), 0, "6|check_config|load|main");
}

static void test_std_string(void **state)
{
	static const struct prov_sig_frame f[] = {
		{ "__memmove_avx512_unaligned_erms", LIBC, 0, 0, 0 },
		{ "void std::__cxx11::basic_string<char, std::char_traits<char>, "
		  "std::allocator<char> >::_M_construct<char*>(char*, char*, "
		  "std::forward_iterator_tag)", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
		  0, 0, 0 },
		{ "copy_name", "/tmp/str2", 0, 0, 0 },
		{ "handle", "/tmp/str2", 0, 0, 0 },
		{ "main", "/tmp/str2", 0, 0, 0 },
	};
	/* inline helpers of std::string in the program's own module (the issue's
	 * "11|syscall|…basic_string::_M_data|…_M_is_local|…") */
	static const struct prov_sig_frame inl[] = {
		{ "syscall", LIBC, 0, 0, 1 },
		{ "SignalHandler(int)", "/tmp/app", 0, 0, 1 },
		{ "<signal handler called>", LIBC, 0, 1, 0 },
		{ "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
		  ">::_M_data() const", "/tmp/app", 0, 0, 0 },
		{ "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
		  ">::_M_is_local() const", "/tmp/app", 0, 0, 0 },
		{ "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
		  ">::_M_dispose()", "/tmp/app", 0, 0, 0 },
		{ "Model::~Model()", "/tmp/app", 0, 0, 0 },
		{ "Model::ToGpu()", "/tmp/app", 0, 0, 0 },
		{ "main", "/tmp/app", 0, 0, 0 },
	};

	(void)state;
	check(11, f, N(f), 0, "11|copy_name|handle|main");
	check(11, inl, N(inl), 3, "11|Model::~Model|Model::ToGpu|main");
	check(11, inl, N(inl), NOCRASH, "11|Model::~Model|Model::ToGpu|main");
}

static void test_python_chain(void **state)
{
#define PY "/usr/bin/python3.11"
#define CT "/usr/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so"
#define FFI "/usr/lib/x86_64-linux-gnu/libffi.so.8.1.2"
	static const struct prov_sig_frame f[] = {
		{ "__pthread_kill_implementation", LIBC, 0, 0, 1 },
		{ "__GI_raise", LIBC, 0, 0, 1 },
		{ "<signal handler called>", LIBC, 0, 1, 0 },
		{ "__strlen_evex", LIBC, 0, 0, 0 },
		{ "string_at", CT, 0, 0, 0 },
		{ NULL, FFI, 0, 0, 0 },
		{ NULL, FFI, 0, 0, 0 },
		{ "ffi_call", FFI, 0, 0, 0 },
		{ "_call_function_pointer", CT, 0, 0, 0 },
		{ "_ctypes_callproc", CT, 0, 0, 0 },
		{ "PyCFuncPtr_call", CT, 0, 0, 0 },
		{ "_PyObject_MakeTpCall", PY, 0, 0, 0 },
		{ "string_at", NULL, 1, 0, 0 },	/* ctypes/__init__.py's wrapper */
		{ "read_header", NULL, 1, 0, 0 },
		{ "main", NULL, 1, 0, 0 },
		{ "<module>", NULL, 1, 0, 0 },
		{ "_PyEval_EvalFrameDefault", PY, 0, 0, 0 },
		{ "_PyEval_Vector", PY, 0, 0, 0 },
		{ "PyEval_EvalCode", PY, 0, 0, 0 },
		{ "run_eval_code_obj", PY, 0, 0, 0 },
		{ "Py_BytesMain", PY, 0, 0, 0 },
	};

	(void)state;
	/* the C string_at (strlen is libc's), then the Python chain */
	check(11, f, N(f), 3, "11|string_at|string_at|read_header");
}

static void test_fallback(void **state)
{
	static const struct prov_sig_frame f[] = {
		{ "raise", LIBC, 0, 0, 0 },
		{ NULL, NULL, 0, 0, 0 },
		{ "abort", LIBC, 0, 0, 0 },
	};

	(void)state;
	check(6, f, N(f), 0, "6|raise|abort");
	check(0, NULL, 0, NOCRASH, "0");
}

/* A name as the signature spells it (docs/signature.md, "Names"). */
static void name_is_(const char *fn, const char *module, const char *want)
{
	char *got = prov_signature_name(fn, module, 0);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_names(void **state)
{
	(void)state;
	/* glibc with and without libc6-dbg: the same core of sleep(1) */
	name_is_("__GI___clock_nanosleep", LIBC, "clock_nanosleep");
	name_is_("clock_nanosleep", LIBC, "clock_nanosleep");
	name_is_("__GI___nanosleep", LIBC, "nanosleep");
	name_is_("__nanosleep", LIBC, "nanosleep");
	name_is_("__libc_malloc", LIBC, "malloc");
	name_is_("__libc_start_main_impl", LIBC, "start_main");
	name_is_("__libc_start_main@@GLIBC_2.34", LIBC, "start_main");
	name_is_("__pthread_kill_internal", LIBC, "pthread_kill");
	name_is_("_dl_fixup", "/lib64/ld-linux-x86-64.so.2", "dl_fixup");
	/* __GI_ is glibc's alone: normalised in any module (a text backtrace has none) */
	name_is_("__GI_raise", NULL, "raise");
	/* outside glibc, underscores and suffixes are the program's own */
	name_is_("__do_work_impl", EXE, "__do_work_impl");
	/* C++: no return type, argument list or cv-qualifiers; template arguments kept */
	name_is_("Box<int>::get() const", EXE, "Box<int>::get");
	name_is_("int sum<int>(std::vector<Box<int>, std::allocator<Box<int> > > const&)", EXE,
		 "sum<int>");
	name_is_("(anonymous namespace)::parse(char const*)", EXE, "(anonymous namespace)::parse");
	name_is_("Foo::operator()(int) const", EXE, "Foo::operator()");
	name_is_("bool operator< <int>(Key<int> const&, Key<int> const&)", EXE, "operator< <int>");
	name_is_("main::{lambda(int)#1}::operator()(int) const", EXE,
		 "main::{lambda(int)#1}::operator()");
	name_is_("operator new(unsigned long)", EXE, "operator new");
	name_is_("??", EXE, NULL);
	name_is_("", EXE, NULL);
	name_is_(NULL, EXE, NULL);
}

/* The same core of sleep(1), analysed with and without libc6-dbg. */
static const struct prov_sig_frame sleep_dbg[] = {
	{ "__GI___clock_nanosleep", LIBC, 0, 0, 0, 0, 1 },
	{ "__GI___nanosleep", LIBC, 0, 0, 0, 0, 1 },
	{ NULL, "/usr/bin/sleep", 0, 0, 0, 0, 0 },
	{ "__libc_start_call_main", LIBC, 0, 0, 0, 0, 1 },
};
static const struct prov_sig_frame sleep_plain[] = {
	{ "clock_nanosleep", LIBC, 0, 0, 0, 0, 0 },
	{ "__nanosleep", LIBC, 0, 0, 0, 0, 0 },
	{ NULL, "/usr/bin/sleep", 0, 0, 0, 0, 0 },
	{ NULL, LIBC, 0, 0, 0, 0, 0 },
};

/* A C++ program whose debug file only some hosts have: run() is inlined into main. */
#define TMPL "/usr/bin/tmpl"
static const struct prov_sig_frame tmpl_dbg[] = {
	{ "Box<int>::get() const", TMPL, 0, 0, 0, 0, 1 },
	{ "int sum<int>(std::vector<Box<int>, std::allocator<Box<int> > > const&)", TMPL, 0, 0, 0, 0, 1 },
	{ "run", TMPL, 0, 0, 0, 1, 1 },
	{ "main", TMPL, 0, 0, 0, 0, 1 },
	{ "__libc_start_call_main", LIBC, 0, 0, 0, 0, 1 },
};
static const struct prov_sig_frame tmpl_symtab[] = {
	{ "Box<int>::get() const", TMPL, 0, 0, 0, 0, 0 },
	{ "int sum<int>(std::vector<Box<int>, std::allocator<Box<int> > > const&)", TMPL, 0, 0, 0, 0, 0 },
	{ "main", TMPL, 0, 0, 0, 0, 0 },
	{ "__libc_start_call_main", LIBC, 0, 0, 0, 0, 0 },
};

static void test_host_independent(void **state)
{
	(void)state;
	check(11, sleep_dbg, N(sleep_dbg), 0, "11|clock_nanosleep|nanosleep");
	check(11, sleep_plain, N(sleep_plain), 0, "11|clock_nanosleep|nanosleep");
	check(11, tmpl_dbg, N(tmpl_dbg), 0, "11|Box<int>::get|sum<int>|main");
	check(11, tmpl_symtab, N(tmpl_symtab), 0, "11|Box<int>::get|sum<int>|main");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reraised_llvm),
		cmocka_unit_test(test_reraised_llvm_text),
		cmocka_unit_test(test_glog_abort),
		cmocka_unit_test(test_handler_faults),
		cmocka_unit_test(test_assert),
		cmocka_unit_test(test_std_string),
		cmocka_unit_test(test_python_chain),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_host_independent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
