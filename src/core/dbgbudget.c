/* One time and size budget for every debuginfod query of a run (dbgbudget.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbgbudget.h"
#include "error.h"
#include "util.h"
#include "banned.h"

static uint64_t budget_ms = 60 * 1000;
/* the largest download (debuginfod.maxSize): an endless body stops here */
static uint64_t max_bytes = PROV_DBGBUDGET_DEFAULT_MAX_SIZE;
/* a smaller cap for the downloads in flight (prov_dbgbudget_cap), 0 = none */
static uint64_t cap_bytes;
static uint64_t started_ms;
static int spent;

void prov_dbgbudget_init(const struct prov_config *cfg)
{
	const char *v = cfg ? prov_config_get(cfg, "debuginfod.totaltimeout") : NULL;

	if (v && *v) {
		char *end;
		unsigned long long n = strtoull(v, &end, 10);

		if (*end || n > 86400)
			prov_warn("ignoring debuginfod.totalTimeout = '%s': not a number of seconds", v);
		else
			budget_ms = (uint64_t)n * 1000;
	}
	v = cfg ? prov_config_get(cfg, "debuginfod.maxsize") : NULL;
	if (v && *v) {
		char *end;
		unsigned long long n = strtoull(v, &end, 10);
		int shift = *end == 'k' || *end == 'K' ? 10 : *end == 'm' || *end == 'M' ? 20 :
			    *end == 'g' || *end == 'G' ? 30 : 0;

		if (shift)
			end++;
		if (*end || !n || n > (1ull << (62 - shift)))
			prov_warn("ignoring debuginfod.maxSize = '%s': not a size (BYTES, or with k, m, g)", v);
		else
			max_bytes = (uint64_t)n << shift;
	}
	{
		/* libdebuginfod also sends it to the server and checks a Content-Length against it */
		char num[32];

		snprintf(num, sizeof(num), "%llu", (unsigned long long)max_bytes);
		setenv("DEBUGINFOD_MAXSIZE", num, 0);
	}
}

static int progress(debuginfod_client *c, long a, long b)
{
	uint64_t now = prov_now_ms();

	(void)c;
	(void)b;
	/* a: bytes of this download so far (a body without Content-Length is not
	 * checked by libdebuginfod itself) */
	if (a > 0 && cap_bytes && (uint64_t)a > cap_bytes) {
		prov_warn("debuginfod: a download passed %llu bytes, more than will be read of it; abandoned",
			  (unsigned long long)cap_bytes);
		return -1;
	}
	if (a > 0 && (uint64_t)a > max_bytes) {
		prov_warn("debuginfod: a download passed debuginfod.maxSize (%llu bytes); abandoned",
			  (unsigned long long)max_bytes);
		return -1;
	}
	if (!started_ms) {
		const char *urls = getenv("DEBUGINFOD_URLS");

		started_ms = now ? now : 1;
		/* one line when the network is first used, as for git fetches */
		fprintf(stderr, "asking debuginfod %s for missing files by build ID\n",
			urls ? urls : "");
	}
	if (!budget_ms || now - started_ms <= budget_ms)
		return 0;
	if (!spent) {
		spent = 1;
		unsetenv("DEBUGINFOD_URLS");
		prov_warn("debuginfod: gave up after %llu s in total (debuginfod.totalTimeout); no more queries this run",
			  (unsigned long long)(budget_ms / 1000));
	}
	return -1;
}

void prov_dbgbudget_attach(debuginfod_client *client)
{
	if (!client)
		return;
	debuginfod_set_progressfn(client, progress);
}

uint64_t prov_dbgbudget_cap(uint64_t bytes)
{
	uint64_t old = cap_bytes;

	cap_bytes = bytes < max_bytes ? bytes : 0;
	return old;
}

int prov_dbgbudget_spent(void)
{
	return spent;
}
