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

/* Module base names of the GNU C library and its dynamic linker. */
static const char *const glibc_modules[] = {
	"libc.so", "libc-", "ld-linux", "ld64.so", "ld.so", "libm.so", "libm-", "libmvec.so",
	"libpthread.so", "libdl.so", "librt.so", "libresolv.so", "libutil.so", "libanl.so",
	"libnss_", NULL
};

static int glibc_module(const char *module)
{
	const char *base;
	size_t i;

	if (!module)
		return 0;
	base = strrchr(module, '/');
	base = base ? base + 1 : module;
	for (i = 0; glibc_modules[i]; i++)
		if (prov_starts_with(base, glibc_modules[i]))
			return 1;
	return 0;
}

/* "operator" as a C++ operator's name: at the start or after "::" or a space. */
static size_t operator_len(const char *fn, size_t i)
{
	static const char ops[] = "<>=!+-*/%&|^~[],";
	size_t k;

	if (strncmp(fn + i, "operator", 8) != 0 || (i && fn[i - 1] != ':' && fn[i - 1] != ' '))
		return 0;
	k = i + 8;
	if (fn[k] == '(' && fn[k + 1] == ')')
		return k + 2 - i;
	while (fn[k] && strchr(ops, fn[k]))
		k++;
	return k - i;
}

/*
 * Where a demangled name's argument list starts: the first '(' outside
 * template arguments, a lambda's braces and "(anonymous namespace)", and
 * not an operator's own "()"; the end of the name when there is none.
 */
static size_t args_start(const char *fn)
{
	size_t i = 0, op;
	int angle = 0, brace = 0;

	while (fn[i]) {
		if (strncmp(fn + i, "(anonymous namespace)", 21) == 0) {
			i += 21;
			continue;
		}
		if ((op = operator_len(fn, i)) != 0) {
			i += op;
			continue;
		}
		if (fn[i] == '<')
			angle++;
		else if (fn[i] == '>' && angle)
			angle--;
		else if (fn[i] == '{')
			brace++;
		else if (fn[i] == '}' && brace)
			brace--;
		else if (fn[i] == '(' && !angle && !brace)
			break;
		i++;
	}
	return i;
}

char *prov_signature_name(const char *function, const char *module, int python)
{
	const char *fn = function, *at;
	size_t n;
	int gi = 0;

	if (unnamed(fn))
		return NULL;
	if (python)
		return prov_xstrdup(fn);
	fn = qualified(fn);
	n = args_start(fn);
	at = memchr(fn, '@', n);
	if (at)
		n = (size_t)(at - fn);
	while (n && fn[n - 1] == ' ')
		n--;
	/* glibc's internal aliases: __GI___clock_nanosleep is clock_nanosleep's */
	while (n > 5 && strncmp(fn, "__GI_", 5) == 0) {
		fn += 5;
		n -= 5;
		gi = 1;
	}
	if (gi || glibc_module(module)) {
		while (n > 1 && *fn == '_') {
			fn++;
			n--;
		}
		if (n > 5 && strncmp(fn, "libc_", 5) == 0) {
			fn += 5;
			n -= 5;
		}
		if (n > 5 && strncmp(fn + n - 5, "_impl", 5) == 0)
			n -= 5;
		else if (n > 9 && strncmp(fn + n - 9, "_internal", 9) == 0)
			n -= 9;
	}
	return n ? prov_xstrndup(fn, n) : NULL;
}

/* The name rules: whole names, prefixes, the C library's string functions. */
static int name_skipped(const char *fn, const char *module)
{
	size_t i;

	fn = qualified(fn);
	for (i = 0; skip_names[i]; i++)
		if (name_is(fn, skip_names[i]))
			return 1;
	for (i = 0; skip_prefixes[i]; i++)
		if (prov_starts_with(fn, skip_prefixes[i]))
			return 1;
	return libc_string_fn(fn, module);
}

int prov_signature_skips(const struct prov_sig_frame *f)
{
	const char *base;
	char *name;
	size_t i;
	int skip;

	if (f->signal_frame || unnamed(f->function))
		return 1;
	if (f->python)
		return 0;	/* Python frames are the program's own */
	/* only a host with the separate debug file sees an inlined call */
	if (f->inlined && f->separate_debug)
		return 1;
	if (name_skipped(f->function, f->module))
		return 1;
	name = prov_signature_name(f->function, f->module, 0);
	skip = !name || name_skipped(name, f->module);
	free(name);
	if (skip)
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

/* "|NAME" with the frame's signature name: 1, or 0 when it has none. */
static size_t add_name(struct prov_buf *b, const struct prov_sig_frame *f)
{
	char *name = prov_signature_name(f->function, f->module, f->python);

	if (!name)
		return 0;
	prov_buf_printf(b, "|%s", name);
	free(name);
	return 1;
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
		k += add_name(&b, &frames[i]);
	}
	/* nothing but machinery: its named frames, rather than the signal alone */
	rules_found = k != 0;
	for (i = from; !rules_found && i < n && k < PROV_SIGNATURE_FRAMES; i++) {
		if (unnamed(frames[i].function) || frames[i].signal_frame ||
		    (frames[i].inlined && frames[i].separate_debug))
			continue;
		k += add_name(&b, &frames[i]);
	}
	return prov_buf_detach(&b);
}

/* 1 when the module at `path` had its debug info from a file other than its own. */
static int separate_debug(const struct prov_crash *c, const char *path)
{
	size_t i;

	for (i = 0; path && i < c->nmodules; i++) {
		const struct prov_module *m = &c->modules[i];

		if (m->path && strcmp(m->path, path) == 0)
			return m->debug_file && (!m->file || strcmp(m->debug_file, m->file) != 0);
	}
	return 0;
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
		f[i].inlined = t->frames[i].inlined;
		f[i].separate_debug = separate_debug(c, t->frames[i].module);
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
