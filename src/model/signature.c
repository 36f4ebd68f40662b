/*
 * The crash signature: the crash's signal and the first frames that are the
 * crash, not the machinery around it (docs/signature.md has the rules).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "signature.h"
#include "util.h"
#include "banned.h"

/* Whole names (compared up to "(" or "@"): signal, abort and assert
 * machinery, allocator entry points, process and thread start-up. */
static const char *const skip_names[] = {
	/* signal handling */
	"<signal handler called>", "__restore_rt", "__kernel_rt_sigreturn",
	/* abort, raise, assert, fatal errors */
	"abort", "__GI_abort", "raise", "__GI_raise", "gsignal", "pthread_kill",
	"__pthread_kill", "__pthread_kill_implementation", "__pthread_kill_internal",
	"__GI___pthread_kill", "tgkill", "syscall", "__assert_fail", "__assert_fail_base",
	"__GI___assert_fail", "__assert_perror_fail", "__assert", "__libc_message",
	"__libc_fatal", "__fortify_fail", "__chk_fail", "__stack_chk_fail",
	/* the allocator */
	"malloc", "free", "calloc", "realloc", "cfree", "memalign", "aligned_alloc",
	"posix_memalign", "valloc", "pvalloc", "__libc_malloc", "__libc_free", "__libc_calloc",
	"__libc_realloc", "__libc_memalign", "__GI___libc_malloc", "__GI___libc_free",
	"__GI___libc_realloc", "_int_malloc", "_int_free", "_int_realloc", "_int_memalign",
	"malloc_printerr", "__malloc_assert", "unlink_chunk", "malloc_consolidate",
	"tcache_get", "tcache_put", "operator new", "operator new[]", "operator delete",
	"operator delete[]",
	/* start-up */
	"_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
	"start_thread", "clone", "clone3", "__clone", "__clone3", "__GI___clone3",
	/* the interpreter's entry and eval loop; ctypes' call glue */
	"run_eval_code_obj", "run_mod", "pyrun_file", "Py_RunMain", "Py_BytesMain", "Py_Main",
	"_ctypes_callproc", "_call_function_pointer", "PyCFuncPtr_call",
	NULL
};

/* Name prefixes: C++ standard library and runtime internals (libstdc++,
 * libc++, the C++ ABI and unwinder), sanitizer runtimes, the CPython eval
 * loop and call machinery between Python frames. */
static const char *const skip_prefixes[] = {
	"std::", "__gnu_cxx::", "__gnu_debug::", "__cxxabiv1::", "__cxa_", "_Unwind_",
	"__asan", "__sanitizer", "__ubsan", "__tsan", "__msan", "__lsan", "__hwasan",
	"__interceptor_", "___interceptor_",
	"_PyEval_", "PyEval_", "_PyObject_", "PyObject_", "_PyFunction_", "PyVectorcall_",
	"_PyVectorcall_", "method_vectorcall", "cfunction_", "slot_tp_", "vectorcall_",
	"pymain_", "_PyRun_", "PyRun_", "_PyCFunction_", "PyCFunction_",
	NULL
};

/* Module base names (prefixes): runtimes whose every frame is machinery. */
static const char *const skip_modules[] = {
	"libstdc++.so", "libc++.so", "libc++abi.so", "libgcc_s.so", "libasan.so", "libtsan.so",
	"libubsan.so", "libmsan.so", "liblsan.so", "libhwasan.so", "libjemalloc.so",
	"libtcmalloc", "libclang_rt.", "libffi.so", NULL
};

/* The C library's string and memory functions (and their __strlen_evex,
 * __memmove_avx_unaligned_erms variants): the bad pointer is the caller's. */
static const char *const libc_string_fns[] = {
	"memcpy", "memmove", "memset", "memcmp", "memchr", "memrchr", "mempcpy", "bcmp",
	"strlen", "strnlen", "strcmp", "strncmp", "strcasecmp", "strncasecmp", "strcpy",
	"strncpy", "stpcpy", "stpncpy", "strcat", "strncat", "strchr", "strrchr", "strchrnul",
	"strstr", "strdup", "strndup", "wcslen", "wcsnlen", "wcscmp", "wcscpy", "wmemset",
	"wmemcpy", "rawmemchr", NULL
};

static int libc_string_fn(const char *fn, const char *module)
{
	const char *base;
	size_t i, n;

	if (module) {
		base = strrchr(module, '/');
		base = base ? base + 1 : module;
		if (!prov_starts_with(base, "libc.so") && !prov_starts_with(base, "libc-"))
			return 0;
	}
	while (*fn == '_')
		fn++;
	for (i = 0; libc_string_fns[i]; i++) {
		n = strlen(libc_string_fns[i]);
		if (strncmp(fn, libc_string_fns[i], n) == 0 &&
		    (fn[n] == '\0' || fn[n] == '_' || fn[n] == '@' || fn[n] == '('))
			return 1;
	}
	return 0;
}

/* "name" equals `want` up to an argument list or a symbol version. */
static int name_is(const char *name, const char *want)
{
	size_t n = strlen(want);

	return strncmp(name, want, n) == 0 &&
	       (name[n] == '\0' || name[n] == '(' || name[n] == '@' || name[n] == ' ');
}

static int unnamed(const char *fn)
{
	return !fn || !*fn || strcmp(fn, "??") == 0;
}

/*
 * The qualified name without the return type the demangler puts before a
 * template function ("void std::__cxx11::basic_string<…>::_M_construct<…>(…)").
 */
static const char *qualified(const char *fn)
{
	size_t i, space = 0;

	if (prov_starts_with(fn, "operator "))
		return fn;
	for (i = 0; fn[i] && fn[i] != '(' && fn[i] != '<'; i++)
		if (fn[i] == ' ')
			space = i + 1;
	return fn + space;
}

int prov_signature_skips(const struct prov_sig_frame *f)
{
	const char *fn = f->function, *base;
	size_t i;

	if (f->signal_frame || unnamed(fn))
		return 1;
	if (f->python)
		return 0;	/* Python frames are the program's own */
	fn = qualified(fn);
	for (i = 0; skip_names[i]; i++)
		if (name_is(fn, skip_names[i]))
			return 1;
	for (i = 0; skip_prefixes[i]; i++)
		if (prov_starts_with(fn, skip_prefixes[i]))
			return 1;
	if (libc_string_fn(fn, f->module))
		return 1;
	if (f->module) {
		base = strrchr(f->module, '/');
		base = base ? base + 1 : f->module;
		for (i = 0; skip_modules[i]; i++)
			if (prov_starts_with(base, skip_modules[i]))
				return 1;
	}
	return 0;
}

/* "handler" in the name, any case: SignalHandler, FatalSignalHandler, failure_handler... */
static int handler_name(const char *fn)
{
	const char *want = "handler";
	size_t i, k;

	for (i = 0; fn && fn[i]; i++) {
		for (k = 0; want[k] && tolower((unsigned char)fn[i + k]) == want[k]; k++)
			;
		if (!want[k])
			return 1;
	}
	return 0;
}

/*
 * Where the crash site starts when the input does not say (a text
 * backtrace): after the first signal frame when every frame above it is
 * machinery or a signal handler (a name with "handler", or a frame the
 * analyzer marked), else 0.
 */
static size_t guess_crash_frame(const struct prov_sig_frame *frames, size_t n)
{
	size_t i, s;

	for (s = 0; s < n && !frames[s].signal_frame; s++)
		;
	if (s + 1 >= n)
		return 0;
	for (i = 0; i < s; i++)
		if (!prov_signature_skips(&frames[i]) && !frames[i].in_handler &&
		    !handler_name(frames[i].function))
			return 0;
	return s + 1;
}

char *prov_signature_frames(int signo, const struct prov_sig_frame *frames, size_t n,
			    size_t crash_frame)
{
	struct prov_buf b = PROV_BUF_INIT;
	size_t i, from, k = 0;
	int rules_found;

	from = crash_frame == (size_t)-1 ? guess_crash_frame(frames, n) :
	       crash_frame < n ? crash_frame : 0;
	prov_buf_printf(&b, "%d", signo);
	for (i = from; i < n && k < PROV_SIGNATURE_FRAMES; i++) {
		if (prov_signature_skips(&frames[i]))
			continue;
		prov_buf_printf(&b, "|%s", frames[i].function);
		k++;
	}
	/* nothing but machinery: its named frames, rather than the signal alone */
	rules_found = k != 0;
	for (i = from; !rules_found && i < n && k < PROV_SIGNATURE_FRAMES; i++) {
		if (unnamed(frames[i].function) || frames[i].signal_frame)
			continue;
		prov_buf_printf(&b, "|%s", frames[i].function);
		k++;
	}
	return prov_buf_detach(&b);
}

char *prov_crash_signature(const struct prov_crash *c)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	struct prov_sig_frame *f = NULL;
	size_t i, n = t ? t->nframes : 0, from;
	char *sig;

	if (n)
		f = prov_xcalloc(n, sizeof(*f));
	for (i = 0; i < n; i++) {
		f[i].function = t->frames[i].function;
		f[i].module = t->frames[i].module;
		f[i].python = t->frames[i].python;
		f[i].signal_frame = prov_frame_is_signal(&t->frames[i]);
		f[i].in_handler = t->frames[i].in_handler;
	}
	/* a core's analyzer decided the crash site; a text backtrace leaves it to the rules */
	if (t && t->has_crash_frame)
		from = prov_thread_crash_frame(t);
	else
		from = c->kind == PROV_INPUT_CORE ? 0 : (size_t)-1;
	sig = prov_signature_frames(c->has_signal ? c->signal.number : 0, f, n, from);
	free(f);
	return sig;
}
