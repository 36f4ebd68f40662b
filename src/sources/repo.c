/* The repository object the sources files share: libgit2 set up, freed, its errors wrapped once. */
#include <stdarg.h>
#include <stdlib.h>

#include "error.h"
#include "sources.h"
#include "sources-git.h"
#include "sources-int.h"
#include "banned.h"

static int git_ready;

void prov_git_init_once(void)
{
	if (git_ready)
		return;
	git_libgit2_init();
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	git_ready = 1;
}

void prov_git_shutdown(void)
{
	if (!git_ready)
		return;
	git_ready = 0;
	git_libgit2_shutdown();
}

int prov_repo_stale(const struct prov_repo *r)
{
	return r && r->stale;
}

void prov_repo_free(struct prov_repo *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->ntags; i++)
		free(r->tags[i].name);
	free(r->tags);
	git_repository_free(r->repo);
	free(r->path);
	free(r->url);
	free(r->fetch_error);
	free(r);
}

git_repository *prov_repo_git(struct prov_repo *r)
{
	return r->repo;
}

int prov_error_from_git(int code, const char *fmt, ...)
{
	const git_error *ge = git_error_last();
	struct prov_buf msg = PROV_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	prov_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	prov_error_set(code, "%s: %s", msg.buf,
		       ge && ge->message ? ge->message : "unknown libgit2 error");
	prov_buf_release(&msg);
	return code;
}
