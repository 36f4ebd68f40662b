/* Negative error codes with one stored message per thread, and their exit codes (error.h). */
#include <stdarg.h>
#include <stdio.h>

#include "error.h"
#include "banned.h"

static __thread char last_msg[1024];
static __thread int last_code;
static prov_warn_fn warn_fn;
static void *warn_data;

int prov_error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	last_code = code;
	return code;
}

const char *prov_error_last(void)
{
	return last_msg;
}

int prov_error_last_code(void)
{
	return last_code;
}

void prov_error_clear(void)
{
	last_msg[0] = '\0';
	last_code = PROV_OK;
}

void prov_warn_set_sink(prov_warn_fn fn, void *data)
{
	warn_fn = fn;
	warn_data = data;
}

void prov_warn(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!warn_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn_fn(msg, warn_data);
}

int prov_error_exit_code(int code)
{
	switch (code) {
	case PROV_OK:
		return 0;
	case PROV_EINPUT:
	case PROV_ELIMIT:
		return 2;
	case PROV_EUNKNOWN:
		return 3;
	case PROV_EUSAGE:
		return 64;
	default:
		return 1;
	}
}
