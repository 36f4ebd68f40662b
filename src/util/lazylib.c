/*
 * libcurl and libdebuginfod, loaded on first use.
 *
 * Linking them costs every run about 20 shared libraries (both curl
 * flavours: libdebuginfod uses libcurl-gnutls, we use libcurl; GnuTLS,
 * OpenSSL's libssl, Kerberos, LDAP, ...) and their symbol relocations:
 * about a third of a whole text `resolve`, which downloads nothing. So the
 * program is not linked with them: this file defines the few functions of
 * theirs that we call, under their own names and prototypes (so callers
 * include <curl/curl.h> and <elfutils/debuginfod.h> as usual), and each
 * one dlopen()s the real library on its first call and forwards to it.
 * This is what elfutils' libdwfl itself does for libdebuginfod.
 *
 * These definitions are not exported (the program is not linked with
 * -rdynamic), so the real libraries, once loaded, keep calling their own
 * functions. When a library cannot be loaded, one warning says why and the
 * functions return the library's own failure values (NULL, an error code),
 * which the callers handle already. Single-threaded, as the program is.
 * A new function: add its name to the list and a stub below.
 */
#define CURL_DISABLE_TYPECHECK	/* curl_easy_setopt is a function here, not a macro */

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>

#include <curl/curl.h>
#include <elfutils/debuginfod.h>

#include "error.h"
#include "banned.h"

struct lazylib {
	const char *soname;
	void *handle;
	int tried;
};

static struct lazylib curl_lib = { "libcurl.so.4", NULL, 0 };
static struct lazylib dbgd_lib = { "libdebuginfod.so.1", NULL, 0 };

/* The function `name` of `lib`, loading it first; NULL (warned once) if not there. */
static void *lazy_sym(struct lazylib *lib, const char *name)
{
	void *fn;

	if (!lib->tried) {
		lib->tried = 1;
		/* RTLD_LOCAL: its symbols must not interpose anyone else's */
		if (!(lib->handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL)))
			prov_warn("cannot load %s: %s", lib->soname, dlerror());
	}
	if (!lib->handle)
		return NULL;
	if (!(fn = dlsym(lib->handle, name)))
		prov_warn("%s has no %s: %s", lib->soname, name, dlerror());
	return fn;
}

/* The pointer to `name` in `lib`, looked up once, typed as `var`. */
#define LAZY(lib, var, name)                                              \
	static __typeof__(&name) var;                                     \
	static int var##_looked;                                          \
	if (!var##_looked) {                                              \
		var##_looked = 1;                                         \
		*(void **)&var = lazy_sym(&(lib), #name);                 \
	}

/* ---- libcurl ---- */

CURLcode curl_global_init(long flags)
{
	LAZY(curl_lib, fn, curl_global_init);
	return fn ? fn(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void)
{
	LAZY(curl_lib, fn, curl_easy_init);
	return fn ? fn() : NULL;
}

/* The one variadic argument's type is given by the option's range (curl.h's CURLOPTTYPE_*). */
CURLcode curl_easy_setopt(CURL *curl, CURLoption option, ...)
{
	CURLcode rc = CURLE_FAILED_INIT;
	va_list ap;

	LAZY(curl_lib, fn, curl_easy_setopt);
	if (!fn)
		return rc;
	va_start(ap, option);
	if (option < CURLOPTTYPE_OBJECTPOINT)
		rc = fn(curl, option, va_arg(ap, long));
	else if (option < CURLOPTTYPE_FUNCTIONPOINT)
		rc = fn(curl, option, va_arg(ap, void *));
	else if (option < CURLOPTTYPE_OFF_T)
		rc = fn(curl, option, va_arg(ap, void (*)(void)));
	else if (option < CURLOPTTYPE_BLOB)
		rc = fn(curl, option, va_arg(ap, curl_off_t));
	else
		rc = fn(curl, option, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

CURLcode curl_easy_perform(CURL *curl)
{
	LAZY(curl_lib, fn, curl_easy_perform);
	return fn ? fn(curl) : CURLE_FAILED_INIT;
}

/* Every CURLINFO_* takes one pointer. */
CURLcode curl_easy_getinfo(CURL *curl, CURLINFO info, ...)
{
	CURLcode rc;
	va_list ap;

	LAZY(curl_lib, fn, curl_easy_getinfo);
	if (!fn)
		return CURLE_FAILED_INIT;
	va_start(ap, info);
	rc = fn(curl, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

const char *curl_easy_strerror(CURLcode code)
{
	LAZY(curl_lib, fn, curl_easy_strerror);
	return fn ? fn(code) : "libcurl could not be loaded";
}

void curl_easy_cleanup(CURL *curl)
{
	LAZY(curl_lib, fn, curl_easy_cleanup);
	if (fn)
		fn(curl);
}

/* ---- libdebuginfod ---- */

debuginfod_client *debuginfod_begin(void)
{
	LAZY(dbgd_lib, fn, debuginfod_begin);
	return fn ? fn() : NULL;
}

void debuginfod_end(debuginfod_client *client)
{
	LAZY(dbgd_lib, fn, debuginfod_end);
	if (fn)
		fn(client);
}

int debuginfod_find_debuginfo(debuginfod_client *client, const unsigned char *build_id,
			      int build_id_len, char **path)
{
	LAZY(dbgd_lib, fn, debuginfod_find_debuginfo);
	return fn ? fn(client, build_id, build_id_len, path) : -ENOSYS;
}

int debuginfod_find_executable(debuginfod_client *client, const unsigned char *build_id,
			       int build_id_len, char **path)
{
	LAZY(dbgd_lib, fn, debuginfod_find_executable);
	return fn ? fn(client, build_id, build_id_len, path) : -ENOSYS;
}

int debuginfod_find_source(debuginfod_client *client, const unsigned char *build_id,
			   int build_id_len, const char *filename, char **path)
{
	LAZY(dbgd_lib, fn, debuginfod_find_source);
	return fn ? fn(client, build_id, build_id_len, filename, path) : -ENOSYS;
}

void debuginfod_set_progressfn(debuginfod_client *client, debuginfod_progressfn_t fn_progress)
{
	LAZY(dbgd_lib, fn, debuginfod_set_progressfn);
	if (fn)
		fn(client, fn_progress);
}
