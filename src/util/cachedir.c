/* The names of the cache directory's parts (cachedir.h). */
#include <stdarg.h>
#include <stdlib.h>

#include "alloc.h"
#include "buf.h"
#include "cachedir.h"
#include "banned.h"

static const char *const names[] = {
	[PROV_CACHEDIR_DB] = "cache.sqlite",
	[PROV_CACHEDIR_STORE] = "store.sqlite",
	[PROV_CACHEDIR_MIRRORS] = "mirrors",
	[PROV_CACHEDIR_IMPORTS] = "imports",
	[PROV_CACHEDIR_DOWNLOADS] = "downloads",
	[PROV_CACHEDIR_DEBUGINFOD] = "debuginfod",
	[PROV_CACHEDIR_TMP] = "tmp",
};

const char *prov_cachedir_name(enum prov_cachedir_part part)
{
	return names[part];
}

char *prov_cachedir_path(const char *cache_dir, enum prov_cachedir_part part)
{
	return prov_xasprintf("%s/%s", cache_dir, names[part]);
}

char *prov_cachedir_pathf(const char *cache_dir, enum prov_cachedir_part part,
			  const char *fmt, ...)
{
	struct prov_buf b = PROV_BUF_INIT;
	va_list ap;

	prov_buf_printf(&b, "%s/%s/", cache_dir, names[part]);
	va_start(ap, fmt);
	prov_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return prov_buf_detach(&b);
}
