#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <git2.h>

#include "cachedir.h"
#include "error.h"
#include "fetch.h"
#include "sha256.h"
#include "sources.h"
#include "sources-git.h"
#include "srcimport.h"
#include "util.h"
#include "banned.h"

/* A directory tree being built in memory; files point at blobs already written. */
struct tnode {
	char *name;
	unsigned mode;	/* GIT_FILEMODE_* */
	git_oid oid;	/* blobs */
	struct tnode **kids;	/* trees */
	size_t n, alloc;
	size_t *hslots;	/* name hash -> kid index + 1 (big directories), or NULL */
	size_t nhslots;
};

struct import_state {
	git_repository *repo;
	uint64_t max_bytes, max_entries;
	uint64_t bytes, entries;
	uint64_t skipped;
	uint64_t line_compares, patches_applied;	/* work counts of a series */
};

/* child names compared by tnode_slot on this thread: a work count for the stats */
static __thread uint64_t tnode_compares;

static void tnode_free(struct tnode *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		tnode_free(t->kids[i]);
	free(t->kids);
	free(t->hslots);
	free(t->name);
	free(t);
}

static struct tnode *tnode_new(const char *name, size_t len, unsigned mode)
{
	struct tnode *t = prov_xcalloc(1, sizeof(*t));

	t->name = prov_xstrndup(name, len);
	t->mode = mode;
	return t;
}

static uint64_t tnode_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* (Re)build the name index of a directory: kids at most a quarter of the slots. */
static void tnode_index(struct tnode *dir)
{
	size_t i, n = 64;

	while (n < dir->n * 4)
		n *= 2;
	free(dir->hslots);
	dir->hslots = prov_xcalloc(n, sizeof(*dir->hslots));
	dir->nhslots = n;
	for (i = 0; i < dir->n; i++) {
		size_t h = tnode_hash(dir->kids[i]->name, strlen(dir->kids[i]->name)) & (n - 1);

		while (dir->hslots[h])
			h = (h + 1) & (n - 1);
		dir->hslots[h] = i + 1;
	}
}

/*
 * The child called name. A directory of 200k entries made a linear search
 * per entry quadratic: past 16 children a hash index answers.
 */
static struct tnode **tnode_slot(struct tnode *dir, const char *name, size_t len)
{
	size_t i, h;

	if (dir->n <= 16) {
		for (i = dir->n; i-- > 0;) {
			tnode_compares++;
			if (strlen(dir->kids[i]->name) == len && !memcmp(dir->kids[i]->name, name, len))
				return &dir->kids[i];
		}
		return NULL;
	}
	if (!dir->hslots)
		tnode_index(dir);
	for (h = tnode_hash(name, len) & (dir->nhslots - 1); dir->hslots[h];
	     h = (h + 1) & (dir->nhslots - 1)) {
		struct tnode *k = dir->kids[dir->hslots[h] - 1];

		tnode_compares++;
		if (strlen(k->name) == len && !memcmp(k->name, name, len))
			return &dir->kids[dir->hslots[h] - 1];
	}
	return NULL;
}

/* Append a child known not to be there, keeping the index. */
static void tnode_append(struct tnode *dir, struct tnode *kid)
{
	PROV_ALLOC_GROW(dir->kids, dir->n + 1, dir->alloc);
	dir->kids[dir->n++] = kid;
	if (dir->hslots) {
		size_t h;

		if (dir->n * 4 > dir->nhslots) {
			tnode_index(dir);
			return;
		}
		for (h = tnode_hash(kid->name, strlen(kid->name)) & (dir->nhslots - 1);
		     dir->hslots[h]; h = (h + 1) & (dir->nhslots - 1))
			;
		dir->hslots[h] = dir->n;
	}
}

static void tnode_add(struct tnode *dir, struct tnode *kid)
{
	struct tnode **slot = tnode_slot(dir, kid->name, strlen(kid->name));

	if (slot) {	/* a later entry of the same name wins, as tar does */
		tnode_free(*slot);
		*slot = kid;
		return;
	}
	tnode_append(dir, kid);
}

/* Remove and return the child called name, or NULL. */
static struct tnode *tnode_take(struct tnode *dir, const char *name)
{
	struct tnode **slot = tnode_slot(dir, name, strlen(name)), *t;

	if (!slot)
		return NULL;
	t = *slot;
	*slot = dir->kids[--dir->n];
	free(dir->hslots);	/* indexes moved: rebuilt when next needed */
	dir->hslots = NULL;
	return t;
}

/*
 * Check an archive path and split it: no absolute path, no "..", no ".git"
 * component; "." and empty components dropped. Returns the number of
 * components (0 for the archive root) or an error.
 */
static int split_path(const char ***out_parts, size_t **out_lens, const char *path, const char *what)
{
	const char **parts = NULL;
	size_t *lens = NULL, n = 0, alloc = 0, lalloc = 0;
	const char *p = path;
	int error;

	if (strlen(path) > PROV_SRCIMPORT_MAX_PATH)
		return prov_error_set(PROV_ELIMIT, "archive '%s' has an entry path longer than %d bytes",
				      what, PROV_SRCIMPORT_MAX_PATH);
	if (*path == '/')
		return prov_error_set(PROV_EINPUT, "archive '%s' has an entry with an absolute path '%s'",
				      what, path);
	while (*p) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == 2 && !memcmp(p, "..", 2)) {
			error = prov_error_set(PROV_EINPUT, "archive '%s' has an entry that climbs out with '..': '%s'",
					       what, path);
			goto fail;
		}
		if (len == 4 && !strncasecmp(p, ".git", 4)) {
			error = prov_error_set(PROV_EINPUT, "archive '%s' has an entry inside '.git': '%s'",
					       what, path);
			goto fail;
		}
		if (len && !(len == 1 && *p == '.')) {
			if (n >= PROV_SRCIMPORT_MAX_DEPTH) {
				error = prov_error_set(PROV_ELIMIT, "archive '%s' has an entry deeper than %d directories",
						       what, PROV_SRCIMPORT_MAX_DEPTH);
				goto fail;
			}
			PROV_ALLOC_GROW(parts, n + 1, alloc);
			PROV_ALLOC_GROW(lens, n + 1, lalloc);
			parts[n] = p;
			lens[n++] = len;
		}
		p += len;
		if (*p == '/')
			p++;
	}
	*out_parts = parts;
	*out_lens = lens;
	return (int)n;
fail:
	free(parts);
	free(lens);
	return error;
}

/* The directory node for the first n components, created as needed. */
static struct tnode *tnode_mkdirs(struct tnode *root, const char **parts, const size_t *lens, size_t n)
{
	struct tnode *d = root;
	size_t i;

	for (i = 0; i < n; i++) {
		struct tnode **slot = tnode_slot(d, parts[i], lens[i]);
		if (slot && (*slot)->mode != GIT_FILEMODE_TREE) {
			tnode_free(*slot);	/* a file replaced by a directory */
			*slot = tnode_new(parts[i], lens[i], GIT_FILEMODE_TREE);
		} else if (!slot) {
			struct tnode *t = tnode_new(parts[i], lens[i], GIT_FILEMODE_TREE);
			tnode_append(d, t);
			slot = &d->kids[d->n - 1];
		}
		d = *slot;
	}
	return d;
}

static const struct tnode *tnode_lookup(const struct tnode *root, const char **parts,
					const size_t *lens, size_t n)
{
	const struct tnode *d = root;
	size_t i;

	for (i = 0; i < n && d; i++) {
		struct tnode **slot = tnode_slot((struct tnode *)d, parts[i], lens[i]);
		d = slot ? *slot : NULL;
	}
	return d;
}

/* Write a tree for t (empty directories are dropped: *out_empty = 1). */
static int tnode_write(git_oid *out, int *out_empty, git_repository *repo, const struct tnode *t)
{
	git_treebuilder *tb = NULL;
	size_t i;
	int error = 0, any = 0;

	if (git_treebuilder_new(&tb, repo, NULL) < 0)
		return prov_error_from_git(PROV_ERROR, "cannot create a tree");
	for (i = 0; i < t->n; i++) {
		const struct tnode *k = t->kids[i];
		git_oid oid;

		if (k->mode == GIT_FILEMODE_TREE) {
			int empty = 0;
			if ((error = tnode_write(&oid, &empty, repo, k)) < 0)
				goto cleanup;
			if (empty)
				continue;
		} else {
			oid = k->oid;
		}
		if (git_treebuilder_insert(NULL, tb, k->name, &oid, k->mode) < 0) {
			error = prov_error_from_git(PROV_EINPUT, "cannot store the entry '%s'", k->name);
			goto cleanup;
		}
		any = 1;
	}
	if (git_treebuilder_write(out, tb) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot write a tree");
		goto cleanup;
	}
	*out_empty = !any;
cleanup:
	git_treebuilder_free(tb);
	return error;
}

/* Read the current entry's data into a blob, counting bytes against the cap. */
#define SMALL_BLOB ((la_int64_t)4 << 20)

static int entry_to_blob(git_oid *out, struct import_state *st, struct archive *a,
			 struct archive_entry *e, const char *what, const char *path)
{
	git_writestream *ws = NULL;
	char buf[65536];
	int error = 0;

	/* Small files in memory: the stream goes through a temporary file. */
	if (archive_entry_size_is_set(e) && archive_entry_size(e) >= 0 &&
	    archive_entry_size(e) <= SMALL_BLOB) {
		size_t want = (size_t)archive_entry_size(e), got = 0;
		char *mem;

		if (st->bytes + want > st->max_bytes)
			return prov_error_set(PROV_ELIMIT, "archive '%s' unpacks to more than %llu bytes (import.maxBytes): refusing it",
					      what, (unsigned long long)st->max_bytes);
		mem = prov_xmalloc(want ? want : 1);
		while (got < want) {
			la_ssize_t n = archive_read_data(a, mem + got, want - got);
			if (n <= 0) {
				free(mem);
				return prov_error_set(PROV_EINPUT, "archive '%s' is truncated or corrupt at '%s': %s",
						      what, path, n < 0 && archive_error_string(a) ?
						      archive_error_string(a) : "short entry");
			}
			got += (size_t)n;
		}
		st->bytes += want;
		error = git_blob_create_from_buffer(out, st->repo, mem, want) < 0 ?
			prov_error_from_git(PROV_ERROR, "cannot write a blob") : 0;
		free(mem);
		return error;
	}
	if (git_blob_create_from_stream(&ws, st->repo, NULL) < 0)
		return prov_error_from_git(PROV_ERROR, "cannot create a blob");
	for (;;) {
		la_ssize_t n = archive_read_data(a, buf, sizeof(buf));
		if (n == 0)
			break;
		if (n < 0) {
			error = prov_error_set(PROV_EINPUT, "archive '%s' is truncated or corrupt at '%s': %s",
					       what, path, archive_error_string(a) ? archive_error_string(a) : "read error");
			goto fail;
		}
		if (st->bytes + (uint64_t)n > st->max_bytes) {
			error = prov_error_set(PROV_ELIMIT, "archive '%s' unpacks to more than %llu bytes (import.maxBytes): refusing it",
					       what, (unsigned long long)st->max_bytes);
			goto fail;
		}
		st->bytes += (uint64_t)n;
		if (ws->write(ws, buf, (size_t)n) < 0) {
			error = prov_error_from_git(PROV_ERROR, "cannot write a blob");
			goto fail;
		}
	}
	if (git_blob_create_from_stream_commit(out, ws) < 0)
		return prov_error_from_git(PROV_ERROR, "cannot write a blob");
	return 0;
fail:
	ws->free(ws);
	return error;
}

/*
 * Read every entry of the archive file into root. `what` names the archive
 * (its URL) in messages.
 */
static int import_file(struct tnode *root, struct import_state *st, const char *file, const char *what)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	const char **parts = NULL;
	size_t *lens = NULL;
	int error = 0, r;

	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	archive_read_support_format_gnutar(a);
	archive_read_support_format_zip(a);
	archive_read_support_format_7zip(a);
	archive_read_support_format_cpio(a);
	if (archive_read_open_filename(a, file, 65536) != ARCHIVE_OK) {
		error = prov_error_set(PROV_EINPUT, "cannot read archive '%s': %s", what,
				       archive_error_string(a) ? archive_error_string(a) : "unknown format");
		goto cleanup;
	}
	for (;;) {
		const char *path, *link;
		struct tnode *dir, *node;
		unsigned mode;
		int n;

		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r == ARCHIVE_WARN) {
			prov_warn("archive '%s': %s", what, archive_error_string(a) ? archive_error_string(a) : "warning");
		} else if (r != ARCHIVE_OK) {
			error = prov_error_set(PROV_EINPUT, "archive '%s' is truncated or corrupt: %s", what,
					       archive_error_string(a) ? archive_error_string(a) : "read error");
			goto cleanup;
		}
		if (++st->entries > st->max_entries) {
			error = prov_error_set(PROV_ELIMIT, "archive '%s' has more than %llu entries (import.maxEntries): refusing it",
					       what, (unsigned long long)st->max_entries);
			goto cleanup;
		}
		path = archive_entry_pathname(e);
		if (!path)
			path = archive_entry_pathname_utf8(e);
		if (!path) {
			error = prov_error_set(PROV_EINPUT, "archive '%s' has an entry without a readable name", what);
			goto cleanup;
		}
		free(parts);
		free(lens);
		parts = NULL;
		lens = NULL;
		if ((n = split_path(&parts, &lens, path, what)) < 0) {
			error = n;
			goto cleanup;
		}
		if (archive_entry_filetype(e) == AE_IFDIR) {
			tnode_mkdirs(root, parts, lens, (size_t)n);
			continue;
		}
		if (n == 0) {
			error = prov_error_set(PROV_EINPUT, "archive '%s' has a file entry without a name", what);
			goto cleanup;
		}
		link = archive_entry_hardlink(e);
		if (link) {
			const char **lparts = NULL;
			size_t *llens = NULL;
			const struct tnode *target;
			int ln = split_path(&lparts, &llens, link, what);

			if (ln < 0) {
				error = ln;
				goto cleanup;
			}
			target = tnode_lookup(root, lparts, llens, (size_t)ln);
			free(lparts);
			free(llens);
			if (!target || target->mode == GIT_FILEMODE_TREE) {
				prov_warn("archive '%s': hard link '%s' to '%s' which is not an earlier file: skipped",
					  what, path, link);
				st->skipped++;
				continue;
			}
			node = tnode_new(parts[n - 1], lens[n - 1], target->mode);
			node->oid = target->oid;
			dir = tnode_mkdirs(root, parts, lens, (size_t)n - 1);
			tnode_add(dir, node);
			continue;
		}
		switch (archive_entry_filetype(e)) {
		case AE_IFREG:
			mode = (archive_entry_perm(e) & 0111) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
			node = tnode_new(parts[n - 1], lens[n - 1], mode);
			if ((error = entry_to_blob(&node->oid, st, a, e, what, path)) < 0) {
				tnode_free(node);
				goto cleanup;
			}
			break;
		case AE_IFLNK:
			/* Stored as git stores it: a blob holding the target, never followed. */
			link = archive_entry_symlink(e);
			if (!link)
				link = "";
			if (strlen(link) > PROV_SRCIMPORT_MAX_PATH) {
				error = prov_error_set(PROV_ELIMIT, "archive '%s' has a symlink target longer than %d bytes",
						       what, PROV_SRCIMPORT_MAX_PATH);
				goto cleanup;
			}
			node = tnode_new(parts[n - 1], lens[n - 1], GIT_FILEMODE_LINK);
			if (git_blob_create_from_buffer(&node->oid, st->repo, link, strlen(link)) < 0) {
				tnode_free(node);
				error = prov_error_from_git(PROV_ERROR, "cannot write a blob");
				goto cleanup;
			}
			break;
		default:
			prov_warn("archive '%s': '%s' is a device, FIFO or socket: skipped", what, path);
			st->skipped++;
			continue;
		}
		dir = tnode_mkdirs(root, parts, lens, (size_t)n - 1);
		tnode_add(dir, node);
	}
cleanup:
	free(parts);
	free(lens);
	archive_read_free(a);
	return error;
}

/* The only top-level directory of root when there is exactly one entry and it is one. */
static struct tnode *strip_top(struct tnode *root)
{
	if (root->n == 1 && root->kids[0]->mode == GIT_FILEMODE_TREE)
		return root->kids[0];
	return root;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* An open, locked repository for an import. */
struct import_repo {
	git_repository *repo;
	char *path;
	int lock_fd;
};

static void import_repo_release(struct import_repo *r)
{
	git_repository_free(r->repo);
	free(r->path);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
}

/* Open <cache>/imports/<name>.git, creating it (in a side directory, renamed into place). */
static int import_repo_open(struct import_repo *out, const char *cache_dir, const char *name)
{
	char *dir = prov_cachedir_path(cache_dir, PROV_CACHEDIR_IMPORTS);
	char *lock = prov_xasprintf("%s/%s.lock", dir, name);
	char *tmp = prov_xasprintf("%s/%s.git.new", dir, name);
	struct stat st;
	int error = 0;

	out->repo = NULL;
	out->path = prov_xasprintf("%s/%s.git", dir, name);
	out->lock_fd = -1;
	if ((error = prov_mkdir_p(dir, 0755, 0)) < 0)
		goto cleanup;
	out->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (out->lock_fd < 0 || flock(out->lock_fd, LOCK_EX) < 0) {
		error = prov_error_set(PROV_ERROR, "cannot lock '%s': %s", lock, strerror(errno));
		goto cleanup;
	}
	if (stat(out->path, &st) < 0) {
		/* Left by a killed run: never trusted, removed. */
		if (lstat(tmp, &st) == 0)
			nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		if (git_repository_init(&out->repo, tmp, 1) < 0) {
			error = prov_error_from_git(PROV_ERROR, "cannot create the import repository");
			goto cleanup;
		}
		git_repository_free(out->repo);
		out->repo = NULL;
		if (rename(tmp, out->path) < 0) {
			error = prov_error_set(PROV_ERROR, "cannot rename '%s' to '%s': %s", tmp, out->path,
					       strerror(errno));
			goto cleanup;
		}
	}
	if (git_repository_open_bare(&out->repo, out->path) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot open the import repository");
		goto cleanup;
	}
cleanup:
	if (error < 0) {
		import_repo_release(out);
		out->repo = NULL;
		out->path = NULL;
		out->lock_fd = -1;
	}
	free(dir);
	free(lock);
	free(tmp);
	return error;
}

/* The commit a ref points at, and the Patches-Applied trailer of its message. */
static int ref_lookup(char **out_hex, int *out_npatches, git_repository *repo, const char *refname)
{
	git_oid oid;
	git_commit *c = NULL;
	const char *msg, *p;
	int n = 0;

	if (git_reference_name_to_id(&oid, repo, refname) < 0 || git_commit_lookup(&c, repo, &oid) < 0) {
		git_error_clear();
		return PROV_ENOTFOUND;
	}
	msg = git_commit_message(c);
	p = msg ? strstr(msg, "\nPatches-Applied: ") : NULL;
	if (p) {
		p += strlen("\nPatches-Applied: ");
		if (prov_parse_int(&n, p, strcspn(p, "\n")) < 0)
			n = 0;
	}
	*out_hex = prov_xstrdup(git_oid_tostr_s(&oid));
	if (out_npatches)
		*out_npatches = n;
	git_commit_free(c);
	return 0;
}

static int commit_tree(git_oid *out, git_repository *repo, const git_oid *tree_oid,
		       const git_oid *parent_oid, const char *msg)
{
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_commit *parent = NULL;
	const git_commit *parents[1];
	int error = 0;

	/* Fixed author and time: the same import gives the same commit everywhere. */
	if (git_signature_new(&sig, "provenance", "provenance@invalid", 0, 0) < 0 ||
	    git_tree_lookup(&tree, repo, tree_oid) < 0 ||
	    (parent_oid && git_commit_lookup(&parent, repo, parent_oid) < 0)) {
		error = prov_error_from_git(PROV_ERROR, "cannot prepare the import commit");
		goto cleanup;
	}
	parents[0] = parent;
	if (git_commit_create(out, repo, NULL, sig, sig, NULL, msg, tree, parent ? 1 : 0, parents) < 0)
		error = prov_error_from_git(PROV_ERROR, "cannot write the import commit");
cleanup:
	git_commit_free(parent);
	git_tree_free(tree);
	git_signature_free(sig);
	return error;
}

static int limits_from_config(struct import_state *st, const struct prov_config *cfg)
{
	const char *v = cfg ? prov_config_get(cfg, "import.maxentries") : NULL;
	int error;

	if ((error = prov_fetch_config_size(&st->max_bytes, cfg, "import.maxbytes",
					    PROV_SRCIMPORT_DEFAULT_MAX_BYTES)) < 0)
		return error;
	st->max_entries = PROV_SRCIMPORT_DEFAULT_MAX_ENTRIES;
	if (v && prov_parse_u64(&st->max_entries, v, (size_t)-1, 10) < 0)
		return prov_error_set(PROV_EINPUT, "bad value '%s' for 'import.maxEntries'", v);
	return 0;
}

static int fetch(char **out, const char *url, const struct prov_srcimport_opts *o, uint64_t *ms)
{
	struct prov_fetch_opts fo = { o->ctx };
	uint64_t t0 = prov_now_ms();
	int error = prov_fetch_file(out, url, &fo);

	*ms += prov_now_ms() - t0;
	return error;
}

/* A name for the archive's repository: its base name without extensions, sanitised, and a hash. */
static char *archive_repo_name(const char *url)
{
	struct prov_buf b = PROV_BUF_INIT;
	char hex[2 * PROV_SHA256_LEN + 1];
	const char *base = prov_basename(url);
	size_t len = strcspn(base, "?#"), i;
	static const char *const exts[] = { ".gz", ".xz", ".bz2", ".zst", ".lz4", ".lzma", ".tgz",
					    ".tar", ".zip", ".7z", NULL };
	int again = 1;

	while (again) {
		again = 0;
		for (i = 0; exts[i]; i++) {
			size_t el = strlen(exts[i]);
			if (len > el && !strncasecmp(base + len - el, exts[i], el)) {
				len -= el;
				again = 1;
			}
		}
	}
	if (len > 64)
		len = 64;
	for (i = 0; i < len; i++)
		prov_buf_putc(&b, isalnum((unsigned char)base[i]) || strchr("._-", base[i]) ? base[i] : '-');
	if (!b.len || b.buf[0] == '.')
		prov_buf_puts(&b, "archive");
	prov_sha256_hex(hex, url, strlen(url));
	prov_buf_printf(&b, "-%.12s", hex);
	return prov_buf_detach(&b);
}

/* The ref that makes an import trusted: written last, after every object. */
static int record_import(git_repository *repo, const char *refname, const git_oid *commit,
			 const char *why)
{
	git_reference *ref = NULL;

	if (git_reference_create(&ref, repo, refname, commit, 1, why) < 0)
		return prov_error_from_git(PROV_ERROR, "cannot record the import");
	git_reference_free(ref);
	return 0;
}

/* import_file of a download: one that is not an archive is not kept (fetched again next time). */
static int import_download(struct tnode *root, struct import_state *st, const char *file, const char *url,
			   const struct prov_srcimport_opts *o)
{
	int error = import_file(root, st, file, url);

	if (error == PROV_EINPUT)
		prov_fetch_forget(o->ctx->cache_dir, url);
	return error;
}

/* One import into a repository of the cache: what the archive and Debian imports share. */
struct import_run {
	struct import_repo ir;
	struct import_state st;
	struct prov_srcimport_stats stats;
	char *hex;	/* the imported commit */
	uint64_t t0;	/* when the import (after the download) began */
	uint64_t compares0;	/* tnode_compares when the run began */
};

#define IMPORT_RUN_INIT { .ir = { NULL, NULL, -1 }, .compares0 = tnode_compares }

/*
 * Open the repository <cache>/imports/<name>: 1 when refname is in it
 * already (run->hex, *out_npatches), 0 when it is to be imported.
 */
static int import_begin(struct import_run *r, const struct prov_srcimport_opts *o, const char *name,
			const char *refname, int *out_npatches)
{
	int error;

	prov_git_init_once();
	if ((error = limits_from_config(&r->st, o->ctx->config)) < 0 ||
	    (error = import_repo_open(&r->ir, o->ctx->cache_dir, name)) < 0)
		return error;
	if (ref_lookup(&r->hex, out_npatches, r->ir.repo, refname) == 0) {
		r->stats.cached = 1;
		return 1;
	}
	r->st.repo = r->ir.repo;
	return 0;
}

/* Record the imported commit at refname. */
static int import_record(struct import_run *r, const char *refname, const git_oid *commit,
			 const char *why)
{
	int error = record_import(r->ir.repo, refname, commit, why);

	if (error < 0)
		return error;
	r->hex = prov_xstrdup(git_oid_tostr_s(commit));
	r->stats.import_ms = prov_now_ms() - r->t0;
	return 0;
}

/* Hand out the repository's path and the commit (imported or cached). */
static void import_hand_out(struct import_run *r, char **out_repo, char **out_commit)
{
	*out_repo = r->ir.path;
	r->ir.path = NULL;
	*out_commit = r->hex;
	r->hex = NULL;
}

/* Fill the caller's stats (also after a failure: the work so far) and release the run. */
static void import_run_release(struct import_run *r, const struct prov_srcimport_opts *o)
{
	r->stats.bytes = r->st.bytes;
	r->stats.entries = r->st.entries;
	r->stats.name_compares = tnode_compares - r->compares0;
	r->stats.line_compares = r->st.line_compares;
	r->stats.patches_applied = r->st.patches_applied;
	if (o->stats)
		*o->stats = r->stats;
	import_repo_release(&r->ir);
	free(r->hex);
}

int prov_srcimport_archive(char **out_repo, char **out_commit, const char *url,
			   const struct prov_srcimport_opts *o)
{
	struct import_run r = IMPORT_RUN_INIT;
	struct tnode *root = tnode_new("", 0, GIT_FILEMODE_TREE);
	char *name = NULL, *file = NULL, *msg = NULL;
	git_oid tree_oid, commit_oid;
	int error, empty = 0;

	{
		char *real = o->ctx->config ? prov_config_rewrite_url(o->ctx->config, url) : prov_xstrdup(url);
		int ok = prov_fetch_url_ok(real);

		free(real);
		if (!ok) {
			error = prov_error_set(PROV_EINPUT, "archive URL '%s' is not http, https or file", url);
			goto cleanup;
		}
	}
	name = archive_repo_name(url);
	if ((error = import_begin(&r, o, name, "refs/imports/archive", NULL)) < 0)
		goto cleanup;
	if (error == 1)
		goto done;
	if ((error = fetch(&file, url, o, &r.stats.download_ms)) < 0)
		goto cleanup;
	r.t0 = prov_now_ms();
	if ((error = import_download(root, &r.st, file, url, o)) < 0)
		goto cleanup;
	if ((error = tnode_write(&tree_oid, &empty, r.ir.repo, strip_top(root))) < 0)
		goto cleanup;
	if (empty) {
		prov_fetch_forget(o->ctx->cache_dir, url);
		error = prov_error_set(PROV_EINPUT, "archive '%s' holds no files", url);
		goto cleanup;
	}
	/* Contents, not the URL: the same archive from any mirror is the same commit. */
	{
		char sha[2 * PROV_SHA256_LEN + 1];
		uint64_t size;

		if ((error = prov_sha256_file(sha, &size, file)) < 0)
			goto cleanup;
		msg = prov_xasprintf("Import release archive %s\n\nArchive-Sha256: %s\nEntries: %llu\nBytes: %llu\n",
				     prov_basename(url), sha, (unsigned long long)r.st.entries,
				     (unsigned long long)r.st.bytes);
	}
	if ((error = commit_tree(&commit_oid, r.ir.repo, &tree_oid, NULL, msg)) < 0 ||
	    (error = import_record(&r, "refs/imports/archive", &commit_oid, "provenance: import archive")) < 0)
		goto cleanup;
done:
	import_hand_out(&r, out_repo, out_commit);
	error = 0;
cleanup:
	import_run_release(&r, o);
	tnode_free(root);
	free(name);
	free(file);
	free(msg);
	return error;
}

/* ---- Debian source packages ---- */

static int valid_source_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n < 2 || n > 128 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
		return 0;
	for (i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || strchr("+.-", s[i])))
			return 0;
	return 1;
}

static int valid_version(const char *s)
{
	size_t i, n = strlen(s);

	if (n < 1 || n > 256 || !isalnum((unsigned char)s[0]))
		return 0;
	for (i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || strchr(".+~:-", s[i])))
			return 0;
	return 1;
}

int prov_srcimport_pool_dir(char **out, const char *source, const char *area)
{
	if (!valid_source_name(source))
		return prov_error_set(PROV_EINPUT, "'%s' is not a Debian source package name", source);
	if (prov_starts_with(source, "lib") && strlen(source) > 3)
		*out = prov_xasprintf("pool/%s/lib%c/%s", area, source[3], source);
	else
		*out = prov_xasprintf("pool/%s/%c/%s", area, source[0], source);
	return 0;
}

struct dsc_file {
	char sha256[2 * PROV_SHA256_LEN + 1];
	uint64_t size;
	char *name;
	char *path;	/* in the download cache */
	char *url;
};

struct dsc {
	char *format;
	char *source;
	char *version;
	struct dsc_file *files;
	size_t nfiles, alloc;
};

static void dsc_release(struct dsc *d)
{
	size_t i;

	free(d->format);
	free(d->source);
	free(d->version);
	for (i = 0; i < d->nfiles; i++) {
		free(d->files[i].name);
		free(d->files[i].path);
		free(d->files[i].url);
	}
	free(d->files);
}

static int valid_file_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 255 || s[0] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == '\\' || (unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return 0;
	return 1;
}

/* Parse one "sha256 size name" line of Checksums-Sha256. */
static int dsc_add_file(struct dsc *d, const char *line, size_t len, const char *what)
{
	const char *p = line, *end = line + len, *f[3];
	size_t flen[3], i;
	struct dsc_file *df;

	for (i = 0; i < 3; i++) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		f[i] = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		flen[i] = (size_t)(p - f[i]);
	}
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (!flen[0] && !flen[1] && !flen[2])
		return 0;
	if (flen[0] != 2 * PROV_SHA256_LEN || p != end || !valid_file_name(f[2], flen[2]))
		return prov_error_set(PROV_EINPUT, "'%s': malformed Checksums-Sha256 line '%.*s'", what,
				      (int)(len > 200 ? 200 : len), line);
	for (i = 0; i < flen[0]; i++)
		if (!isxdigit((unsigned char)f[0][i]))
			return prov_error_set(PROV_EINPUT, "'%s': malformed SHA-256 '%.*s'", what,
					      (int)flen[0], f[0]);
	if (d->nfiles >= PROV_SRCIMPORT_MAX_DSC_FILES)
		return prov_error_set(PROV_ELIMIT, "'%s' lists more than %d files", what,
				      PROV_SRCIMPORT_MAX_DSC_FILES);
	PROV_ALLOC_GROW(d->files, d->nfiles + 1, d->alloc);
	df = &d->files[d->nfiles];
	memset(df, 0, sizeof(*df));
	for (i = 0; i < flen[0]; i++)
		df->sha256[i] = (char)tolower((unsigned char)f[0][i]);
	df->sha256[flen[0]] = '\0';
	if (prov_parse_u64(&df->size, f[1], flen[1], 10) < 0)
		return prov_error_set(PROV_EINPUT, "'%s': malformed size '%.*s'", what, (int)flen[1], f[1]);
	df->name = prov_xstrndup(f[2], flen[2]);
	d->nfiles++;
	return 0;
}

/*
 * Parse a .dsc (RFC 822 style, maybe inside an OpenPGP clear-signed
 * wrapper whose signature is not checked here).
 */
static int dsc_parse(struct dsc *d, const char *text, size_t len, const char *what)
{
	const char *p = text, *end = text + len;
	int signed_msg = 0, in_body = 1, in_sums = 0, seen_sums = 0, error = 0;

	if (len >= 34 && !memcmp(text, "-----BEGIN PGP SIGNED MESSAGE-----", 34)) {
		signed_msg = 1;
		in_body = 0;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *colon;
		size_t ll;

		if (le > p && le[-1] == '\r')
			le--;
		ll = (size_t)(le - p);
		if (!in_body) {
			if (ll == 0)	/* end of the armour headers */
				in_body = 1;
			goto next;
		}
		if (signed_msg && ll >= 5 && !memcmp(p, "-----", 5)) {
			if (ll >= 29 && !memcmp(p, "-----BEGIN PGP SIGNATURE-----", 29))
				break;
		}
		if (signed_msg && ll >= 2 && p[0] == '-' && p[1] == ' ') {	/* dash-escaped */
			p += 2;
			ll -= 2;
		}
		if (ll == 0) {
			in_sums = 0;
			goto next;
		}
		if (p[0] == ' ' || p[0] == '\t') {
			if (in_sums && (error = dsc_add_file(d, p, ll, what)) < 0)
				return error;
			goto next;
		}
		in_sums = 0;
		colon = memchr(p, ':', ll);
		if (!colon)
			return prov_error_set(PROV_EINPUT, "'%s': malformed line '%.*s'", what,
					      (int)(ll > 200 ? 200 : ll), p);
		{
			size_t kl = (size_t)(colon - p);
			const char *v = colon + 1;
			size_t vl;

			while (v < p + ll && (*v == ' ' || *v == '\t'))
				v++;
			vl = (size_t)(p + ll - v);
			while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
				vl--;
			if (kl == 6 && !strncasecmp(p, "Format", 6) && !d->format)
				d->format = prov_xstrndup(v, vl);
			else if (kl == 6 && !strncasecmp(p, "Source", 6) && !d->source)
				d->source = prov_xstrndup(v, vl);
			else if (kl == 7 && !strncasecmp(p, "Version", 7) && !d->version)
				d->version = prov_xstrndup(v, vl);
			else if (kl == 16 && !strncasecmp(p, "Checksums-Sha256", 16) && !seen_sums) {
				in_sums = seen_sums = 1;
				if (vl && (error = dsc_add_file(d, v, vl, what)) < 0)
					return error;
			}
		}
next:
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!d->format || !d->source || !d->version)
		return prov_error_set(PROV_EINPUT, "'%s' lacks a Format, Source or Version field", what);
	if (!seen_sums || !d->nfiles)
		return prov_error_set(PROV_EINPUT, "'%s' has no Checksums-Sha256 files", what);
	return 0;
}

static const char *const tar_exts[] = { ".tar.gz", ".tar.xz", ".tar.bz2", ".tar.lzma", ".tar.zst", ".tar", NULL };

/* If name is prefix + middle + a tarball extension, return middle's length via out. */
static int has_tar_ext(const char *name, size_t *out_stem)
{
	size_t n = strlen(name), i;

	for (i = 0; tar_exts[i]; i++) {
		size_t el = strlen(tar_exts[i]);
		if (n > el && !strcmp(name + n - el, tar_exts[i])) {
			*out_stem = n - el;
			return 1;
		}
	}
	return 0;
}

/* Debian's rules for a version in file names: no epoch. */
static const char *strip_epoch(const char *v)
{
	const char *c = strchr(v, ':');

	return c ? c + 1 : v;
}

/* Percent-escape what a ref name cannot hold (':', '~', ...). */
static int version_refname(char **out, const char *source, const char *version)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *p;
	int valid = 0;

	prov_buf_printf(&b, "refs/imports/%s/", source);
	for (p = version; *p; p++) {
		if (isalnum((unsigned char)*p) || strchr(".+-_", *p))
			prov_buf_putc(&b, *p);
		else
			prov_buf_printf(&b, "%%%02X", (unsigned char)*p);
	}
	if (git_reference_name_is_valid(&valid, b.buf) < 0 || !valid) {
		prov_buf_release(&b);
		return prov_error_set(PROV_EINPUT, "version '%s' of '%s' cannot be recorded as a ref", version,
				      source);
	}
	*out = prov_buf_detach(&b);
	return 0;
}

/* ---- quilt patches ---- */

/* Strip n leading components from a patch path; NULL when there are too few or ".." is there. */
static char *patch_path(const char *p, size_t len, int strip)
{
	size_t i = 0;
	int k;
	const char *q;

	if (len == 9 && !memcmp(p, "/dev/null", 9))
		return prov_xstrdup("/dev/null");
	for (k = 0; k < strip; k++) {
		q = memchr(p + i, '/', len - i);
		if (!q)
			return NULL;
		i = (size_t)(q - p) + 1;
		while (i < len && p[i] == '/')
			i++;
	}
	if (i >= len)
		return NULL;
	{
		char *s = prov_xstrndup(p + i, len - i);
		char *norm = prov_path_normalize(s);
		free(s);
		if (!*norm || norm[0] == '/' || !strcmp(norm, "..") || prov_starts_with(norm, "../")) {
			free(norm);
			return NULL;
		}
		return norm;
	}
}

/* The path of a ---/+++ line: up to a tab (timestamp follows) or the end, trailing blanks dropped. */
static void header_path(const char **out, size_t *out_len, const char *line, size_t ll)
{
	const char *p = line + 4;
	size_t n = ll - 4;
	const char *tab = memchr(p, '\t', n);

	if (tab)
		n = (size_t)(tab - p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\r'))
		n--;
	*out = p;
	*out_len = n;
}

static int parse_range_count(long *out, const char **pp, const char *end)
{
	const char *p = *pp, *s;
	uint64_t v;

	s = p;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	if (p == s)
		return -1;
	*out = 1;
	if (p < end && *p == ',') {
		s = ++p;
		while (p < end && isdigit((unsigned char)*p))
			p++;
		if (p == s || prov_parse_u64(&v, s, (size_t)(p - s), 10) < 0 || v > 100000000)
			return -1;
		*out = (long)v;
	}
	*pp = p;
	return 0;
}

/*
 * The git header of one file. A file whose old side is /dev/null or whose
 * first hunk starts at -0,0 (diff -N) is created; the reverse is deleted.
 */
static int emit_file_header(struct prov_buf *out, const char *oldp, const char *newp,
			    int creates, int deletes)
{
	if (!strcmp(oldp, "/dev/null") || (creates && strcmp(newp, "/dev/null")))
		return prov_buf_printf(out, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n",
				       newp, newp, newp);
	if (!strcmp(newp, "/dev/null") || deletes)
		return prov_buf_printf(out, "diff --git a/%s b/%s\ndeleted file mode 100644\n--- a/%s\n+++ /dev/null\n",
				       oldp, oldp, oldp);
	/* patch(1) -pN: the new name is the file changed */
	return prov_buf_printf(out, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", newp, newp, newp, newp);
}

/*
 * A git diff, as is, except the sections that create an empty file (a "diff
 * --git" with "new file mode" and no "---"/"+++" nor binary data): libgit2's
 * parser refuses them ("invalid patch header") where git and patch(1) accept
 * them. The empty file is then not created: nothing else depends on it.
 */
static int git_diff_copy(struct prov_buf *out, const char *patch, size_t len)
{
	const char *p = patch, *end = patch + len;
	int error = 0;

	while (p < end) {
		const char *sec = p, *q = p, *next;
		int is_diff = (size_t)(end - p) >= 11 && !memcmp(p, "diff --git ", 11);
		int creates = 0, has_body = 0;

		/* a section: from this line to the next "diff --git" line */
		do {
			const char *nl = memchr(q, '\n', (size_t)(end - q));
			size_t ll = nl ? (size_t)(nl - q) : (size_t)(end - q);

			if (ll >= 14 && !memcmp(q, "new file mode ", 14))
				creates = 1;
			else if ((ll >= 4 && (!memcmp(q, "--- ", 4) || !memcmp(q, "+++ ", 4))) ||
				 (ll >= 16 && !memcmp(q, "GIT binary patch", 16)) ||
				 (ll >= 13 && !memcmp(q, "Binary files ", 13)) ||
				 (ll >= 6 && (!memcmp(q, "rename", 6) || !memcmp(q, "copy ", 5))))
				has_body = 1;
			q = nl ? nl + 1 : end;
		} while (q < end && !((size_t)(end - q) >= 11 && !memcmp(q, "diff --git ", 11)));
		next = q;
		if (!(is_diff && creates && !has_body) && (error = prov_buf_add(out, sec, (size_t)(next - sec))) < 0)
			return error;
		p = next;
	}
	return error;
}

/* The ---/+++ files and hunks of a quilt (patch -pN) diff, appended to out as a git diff. */
static int quilt_copy(struct prov_buf *out, const char *patch, size_t len, int strip, const char *name)
{
	const char *p = patch, *end = patch + len;
	char *pend_old = NULL, *pend_new = NULL;
	long old_left = 0, new_left = 0;
	int in_hunk = 0, have_file = 0, after_hunk = 0, error = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t ll = (size_t)(le - p);
		const char *next = nl ? nl + 1 : end;

		if (in_hunk) {
			char c = ll ? p[0] : ' ';

			if (c != ' ' && c != '-' && c != '+' && c != '\\') {
				error = prov_error_set(PROV_EINPUT, "patch '%s' has a hunk shorter than its header says",
						       name);
				goto cleanup;
			}
			if (c == ' ') {
				old_left--;
				new_left--;
			} else if (c == '-') {
				old_left--;
			} else if (c == '+') {
				new_left--;
			}
			/* an empty line is a context line whose blank was trimmed */
			if ((error = ll ? prov_buf_add(out, p, ll) : prov_buf_putc(out, ' ')) < 0 ||
			    (error = prov_buf_putc(out, '\n')) < 0)
				goto cleanup;
			if (old_left < 0 || new_left < 0) {
				error = prov_error_set(PROV_EINPUT, "patch '%s' has a hunk longer than its header says",
						       name);
				goto cleanup;
			}
			if (old_left == 0 && new_left == 0) {
				in_hunk = 0;
				after_hunk = 1;
			}
			p = next;
			continue;
		}
		if (after_hunk && ll && p[0] == '\\') {	/* "\ No newline at end of file" */
			if ((error = prov_buf_add(out, p, ll)) < 0 || (error = prov_buf_putc(out, '\n')) < 0)
				goto cleanup;
			p = next;
			continue;
		}
		after_hunk = 0;
		if (ll >= 4 && !memcmp(p, "--- ", 4) && (size_t)(end - next) >= 4 && !memcmp(next, "+++ ", 4)) {
			const char *nl2 = memchr(next, '\n', (size_t)(end - next));
			const char *le2 = nl2 ? nl2 : end;
			const char *a, *b;
			size_t al, bl;

			header_path(&a, &al, p, ll);
			header_path(&b, &bl, next, (size_t)(le2 - next));
			free(pend_old);
			free(pend_new);
			pend_old = patch_path(a, al, strip);
			pend_new = patch_path(b, bl, strip);
			if (!pend_old || !pend_new ||
			    (!strcmp(pend_old, "/dev/null") && !strcmp(pend_new, "/dev/null"))) {
				error = prov_error_set(PROV_EINPUT, "patch '%s': cannot use the file names '%.*s' and '%.*s' with -p%d",
						       name, (int)(al > 200 ? 200 : al), a, (int)(bl > 200 ? 200 : bl), b, strip);
				goto cleanup;
			}
			have_file = 1;
			p = nl2 ? nl2 + 1 : end;
			continue;
		}
		if (have_file && ll >= 4 && !memcmp(p, "@@ -", 4)) {
			const char *q = p + 4;

			if (parse_range_count(&old_left, &q, le) < 0 || q + 2 > le || q[0] != ' ' || q[1] != '+')
				goto bad_hunk;
			q += 2;
			if (parse_range_count(&new_left, &q, le) < 0 || q + 3 > le || memcmp(q, " @@", 3))
				goto bad_hunk;
			if (pend_old) {
				error = emit_file_header(out, pend_old, pend_new,
							 ll >= 9 && !memcmp(p, "@@ -0,0 +", 9),
							 memmem(p, ll, " +0,0 @@", 8) != NULL);
				if (error < 0)
					goto cleanup;
				free(pend_old);
				free(pend_new);
				pend_old = pend_new = NULL;
			}
			if ((error = prov_buf_add(out, p, ll)) < 0 || (error = prov_buf_putc(out, '\n')) < 0)
				goto cleanup;
			in_hunk = old_left > 0 || new_left > 0;
			p = next;
			continue;
		}
		/* Descriptions, Index: lines, ====: not part of the diff. */
		p = next;
	}
	if (in_hunk)
		error = prov_error_set(PROV_EINPUT, "patch '%s' ends inside a hunk", name);
	goto cleanup;
bad_hunk:
	{
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);

		error = prov_error_set(PROV_EINPUT, "patch '%s' has a malformed hunk header '%.*s'", name,
				       (int)(ll > 200 ? 200 : ll), p);
	}
cleanup:
	free(pend_old);
	free(pend_new);
	return error;
}

int prov_srcimport_quilt_to_git(struct prov_buf *out, const char *patch, size_t len,
				int strip, const char *name)
{
	const char *first;
	size_t pre;
	int error;

	prov_buf_reset(out);
	first = len >= 11 && !memcmp(patch, "diff --git ", 11) ? patch : memmem(patch, len, "\ndiff --git ", 12);
	if (!first)
		return quilt_copy(out, patch, len, strip, name);
	if (strip != 1)
		return prov_error_set(PROV_EINPUT, "patch '%s' is a git diff with -p%d: only -p1 is supported for git diffs",
				      name, strip);
	/* files before the first "diff --git" line written the quilt way
	 * (---/+++ only: a hand-edited patch), which libgit2 refuses as is */
	pre = first == patch ? 0 : (size_t)(first - patch) + 1;
	if (pre && (error = quilt_copy(out, patch, pre, strip, name)) < 0)
		return error;
	return git_diff_copy(out, patch + pre, len - pre);
}

static int read_blob_at(struct prov_buf *out, git_repository *repo, const git_oid *tree_oid,
			const char *path, size_t cap)
{
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	int error = 0;

	prov_buf_reset(out);
	if (git_tree_lookup(&tree, repo, tree_oid) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read the imported tree");
		goto cleanup;
	}
	if (git_tree_entry_bypath(&te, tree, path) < 0 || git_tree_entry_type(te) != GIT_OBJECT_BLOB) {
		git_error_clear();
		error = PROV_ENOTFOUND;
		goto cleanup;
	}
	if (git_blob_lookup(&blob, repo, git_tree_entry_id(te)) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read a blob");
		goto cleanup;
	}
	if ((size_t)git_blob_rawsize(blob) > cap) {
		error = prov_error_set(PROV_ELIMIT, "'%s' is larger than %zu bytes", path, cap);
		goto cleanup;
	}
	error = prov_buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
cleanup:
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_tree_free(tree);
	return error;
}

/* ---- hunk offsets (patch(1) finds a hunk whose lines moved; libgit2 does not) ---- */

/* hunk lines compared while relocating, for a whole series (2000 patches each searching 900k lines ran past 120 s) */
#define RELOCATE_MAX_COMPARES ((uint64_t)50 * 1000 * 1000)
/*
 * Bytes of the files the patches of a series rewrite, in all: libgit2
 * reads, applies and writes the whole file for each patch (1000 one-line
 * patches to a 5 MB file took 73 s of CPU).
 */
#define SERIES_MAX_PATCHED_BYTES ((uint64_t)256 << 20)

struct lines {
	const char **at;	/* start of each line */
	size_t *len;	/* without the newline */
	size_t n, alloc, lalloc;
};

static void lines_split(struct lines *l, const char *s, size_t len)
{
	const char *end = s + len;

	l->n = 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t ll = nl ? (size_t)(nl - s) : (size_t)(end - s);
		PROV_ALLOC_GROW(l->at, l->n + 1, l->alloc);
		PROV_ALLOC_GROW(l->len, l->n + 1, l->lalloc);
		l->at[l->n] = s;
		l->len[l->n++] = ll;
		s = nl ? nl + 1 : end;
	}
}

static void lines_release(struct lines *l)
{
	free(l->at);
	free(l->len);
}

/* Where the hunk's old lines (pre) are in the file, nearest to `want`, not before `min`; -1 if nowhere, -2 past the budget. */
static long find_hunk(const struct lines *file, const struct lines *pre, long want, long min,
		      uint64_t *compares)
{
	long n = (long)file->n, m = (long)pre->n, k;

	if (m == 0)
		return want;
	for (k = 0; k <= n; k++) {
		long cand[2] = { want + k, want - k };
		int c;
		for (c = 0; c < (k ? 2 : 1); c++) {
			long p = cand[c], i;
			/* every place looked at counts, even one out of range */
			if (++*compares > RELOCATE_MAX_COMPARES)
				return -2;
			if (p < min || p + m > n)
				continue;
			for (i = 0; i < m; i++) {
				if (++*compares > RELOCATE_MAX_COMPARES)
					return -2;
				if (file->len[p + i] != pre->len[i] ||
				    memcmp(file->at[p + i], pre->at[i], pre->len[i]))
					break;
			}
			if (i == m)
				return p;
		}
		if (want + k >= n && want - k < min)
			break;
	}
	return -1;
}

/*
 * Rewrite the hunk headers of a git-style diff so that each hunk starts
 * where its old lines really are in the file at tree_oid (nearest match, in
 * order), as patch(1) and dpkg-source allow (offsets, no fuzz). Hunks that
 * match nowhere are left for libgit2 to refuse.
 */
static int relocate_hunks(struct prov_buf *out, const struct prov_buf *in, git_repository *repo,
			  const git_oid *tree_oid, uint64_t *compares, uint64_t *patched)
{
	struct prov_buf file = PROV_BUF_INIT;
	struct lines fl = { 0 }, pre = { 0 };
	const char *p = in->buf, *end = in->buf + in->len;
	int have_file = 0, error = 0;
	long min = 0, delta = 0, shift = 0;
	struct prov_buf hunk = PROV_BUF_INIT;

	prov_buf_reset(out);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *next = nl ? nl + 1 : end;
		size_t ll = (size_t)(le - p);

		if (ll >= 4 && !memcmp(p, "--- ", 4)) {
			have_file = 0;
			fl.n = 0;
			min = delta = shift = 0;
			if (ll > 6 && !memcmp(p, "--- a/", 6)) {
				char *path = prov_xstrndup(p + 6, ll - 6);
				error = read_blob_at(&file, repo, tree_oid, path, PROV_SRCIMPORT_MAX_PATCH);
				free(path);
				if (error == 0) {
					*patched += file.len;	/* libgit2 rewrites it whole */
					if (*patched > SERIES_MAX_PATCHED_BYTES)
						goto cleanup;	/* the caller says so */
					lines_split(&fl, file.buf, file.len);
					have_file = 1;
				} else if (error == PROV_ELIMIT) {
					*patched += PROV_SRCIMPORT_MAX_PATCH;
				} else if (error != PROV_ENOTFOUND) {
					goto cleanup;
				}
				error = 0;
			}
		} else if (have_file && ll >= 4 && !memcmp(p, "@@ -", 4)) {
			const char *q = p + 4, *h, *s, *rest;
			uint64_t a, b = 1, c, d = 1, nold, nnew;
			long at;

			s = q;
			while (q < le && *q >= '0' && *q <= '9')
				q++;
			if (prov_parse_u64(&a, s, (size_t)(q - s), 10) < 0 || a > 100000000)
				goto copy;
			if (q < le && *q == ',') {
				s = ++q;
				while (q < le && *q >= '0' && *q <= '9')
					q++;
				if (prov_parse_u64(&b, s, (size_t)(q - s), 10) < 0 || b > 100000000)
					goto copy;
			}
			if (q + 2 > le || q[0] != ' ' || q[1] != '+')
				goto copy;
			s = q += 2;
			while (q < le && *q >= '0' && *q <= '9')
				q++;
			if (prov_parse_u64(&c, s, (size_t)(q - s), 10) < 0)
				goto copy;
			if (q < le && *q == ',') {
				s = ++q;
				while (q < le && *q >= '0' && *q <= '9')
					q++;
				if (prov_parse_u64(&d, s, (size_t)(q - s), 10) < 0 || d > 100000000)
					goto copy;
			}
			rest = q;	/* " @@ ..." */
			(void)c;
			/* the hunk's old lines */
			/*
			 * the hunk's old lines, as many as its header counts: a
			 * git format-patch signature ("-- " then the version) after
			 * the last hunk is not one of them
			 */
			prov_buf_reset(&hunk);
			pre.n = 0;
			for (h = next, nold = 0, nnew = 0; h < end && (nold < b || nnew < d);) {
				const char *hn = memchr(h, '\n', (size_t)(end - h));
				size_t hl = hn ? (size_t)(hn - h) : (size_t)(end - h);
				if (hl && (h[0] == ' ' || h[0] == '-')) {
					PROV_ALLOC_GROW(pre.at, pre.n + 1, pre.alloc);
					PROV_ALLOC_GROW(pre.len, pre.n + 1, pre.lalloc);
					pre.at[pre.n] = h + 1;
					pre.len[pre.n++] = hl - 1;
					nold++;
					nnew += h[0] == ' ';
				} else if (hl && h[0] == '+') {
					nnew++;
				} else if (!(hl && h[0] == '\\')) {
					break;
				}
				h = hn ? hn + 1 : end;
			}
			if (b == 0) {	/* pure insertion after line a: move it as the previous hunk moved */
				at = (long)a + shift;
				if (at < 0)
					at = 0;
			} else {
				at = find_hunk(&fl, &pre, (long)a - 1 + shift, min, compares);
				if (at == -2) {
					error = PROV_ELIMIT;	/* the caller says so */
					goto cleanup;
				}
				if (at < 0)
					goto copy;
				shift = at - ((long)a - 1);
				min = at + (long)pre.n;
				at += 1;
			}
			error = prov_buf_printf(out, "@@ -%ld,%llu +%ld,%llu%.*s\n", at, (unsigned long long)b,
						(d == 0 ? at : at + delta + (b == 0 ? 1 : 0)) , (unsigned long long)d,
						(int)(le - rest), rest);
			if (error < 0)
				goto cleanup;
			delta += (long)d - (long)b;
			p = next;
			continue;
		}
copy:
		if ((error = prov_buf_add(out, p, ll)) < 0 || (nl && (error = prov_buf_putc(out, '\n')) < 0))
			goto cleanup;
		p = next;
	}
cleanup:
	prov_buf_release(&file);
	prov_buf_release(&hunk);
	lines_release(&fl);
	lines_release(&pre);
	return error;
}

/*
 * A file a patch changes without saying its mode (a quilt patch, a git diff
 * without "index ... MODE" or "new mode") keeps the mode it had, as patch(1)
 * and dpkg-source keep it: libgit2 writes such a file as 100644, so an
 * executable script changed by a patch lost its x bit.
 */
static int keep_modes(git_index *index, git_tree *before, git_diff *diff)
{
	size_t i, n = git_diff_num_deltas(diff);

	for (i = 0; i < n; i++) {
		const git_diff_delta *dd = git_diff_get_delta(diff, i);
		const git_index_entry *ie;
		git_tree_entry *te = NULL;
		git_index_entry copy;

		if (dd->status != GIT_DELTA_MODIFIED || dd->new_file.mode || !dd->new_file.path ||
		    git_tree_entry_bypath(&te, before, dd->new_file.path) < 0)
			continue;
		ie = git_index_get_bypath(index, dd->new_file.path, 0);
		if (ie && ie->mode != (uint32_t)git_tree_entry_filemode(te) &&
		    git_tree_entry_filemode(te) == GIT_FILEMODE_BLOB_EXECUTABLE) {
			copy = *ie;
			copy.mode = GIT_FILEMODE_BLOB_EXECUTABLE;
			if (git_index_add(index, &copy) < 0) {
				git_tree_entry_free(te);
				return prov_error_from_git(PROV_ERROR, "cannot keep a patched file's mode");
			}
		}
		git_tree_entry_free(te);
	}
	return 0;
}

/* Apply one patch (git-style text) to *tree_oid, replacing it. */
static int apply_patch(git_oid *tree_oid, git_repository *repo, const struct prov_buf *diff_text,
		       const char *name)
{
	git_diff *diff = NULL;
	git_tree *tree = NULL;
	git_index *index = NULL;
	int error = 0;

	if (git_diff_from_buffer(&diff, diff_text->buf, diff_text->len) < 0) {
		error = prov_error_from_git(PROV_EINPUT, "cannot parse patch '%s'", name);
		goto cleanup;
	}
	if (git_tree_lookup(&tree, repo, tree_oid) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read the tree to patch");
		goto cleanup;
	}
	if (git_apply_to_tree(&index, repo, tree, diff, NULL) < 0) {
		error = prov_error_from_git(PROV_EINPUT, "patch '%s' does not apply", name);
		goto cleanup;
	}
	if ((error = keep_modes(index, tree, diff)) < 0)
		goto cleanup;
	if (git_index_write_tree_to(tree_oid, index, repo) < 0)
		error = prov_error_from_git(PROV_ERROR, "cannot write the patched tree");
cleanup:
	git_index_free(index);
	git_tree_free(tree);
	git_diff_free(diff);
	return error;
}

/* The size of the blob at `path` in the tree, or 0 when there is none. */
static uint64_t blob_size_at(git_repository *repo, git_tree *tree, const char *path)
{
	git_tree_entry *te = NULL;
	git_odb *odb = NULL;
	size_t len = 0;
	git_object_t type;
	uint64_t size = 0;

	if (git_tree_entry_bypath(&te, tree, path) == 0 && git_tree_entry_type(te) == GIT_OBJECT_BLOB &&
	    git_repository_odb(&odb, repo) == 0 &&
	    git_odb_read_header(&len, &type, odb, git_tree_entry_id(te)) == 0)
		size = len;
	git_error_clear();
	git_odb_free(odb);
	git_tree_entry_free(te);
	return size;
}

/* Bytes of the files a git-style diff rewrites, as they are in the tree (a new file: 0). */
static uint64_t diff_patched_bytes(git_repository *repo, git_tree *tree, const struct prov_buf *diff)
{
	const char *p = diff->buf, *end = diff->buf + diff->len;
	uint64_t sum = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (le - p > 6 && !memcmp(p, "--- a/", 6)) {
			char *path = prov_xstrndup(p + 6, (size_t)(le - p - 6));

			sum += blob_size_at(repo, tree, path);
			free(path);
		}
		p = nl ? nl + 1 : end;
	}
	return sum;
}

struct series_entry {
	char *name, *path;
	int strip;
};

/*
 * Quilt's series grammar: one patch a line, "#" comments (at the start or
 * after blanks), options after the name; only -pN / -p N is supported.
 */
int prov_quilt_series_next(char **name, int *strip, const char **pos, const char *end)
{
	const char *p = *pos;

	*name = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *s = p, *e, *hash;

		p = nl ? nl + 1 : end;
		*pos = p;
		hash = memchr(s, '#', (size_t)(le - s));
		if (hash && (hash == s || hash[-1] == ' ' || hash[-1] == '\t'))
			le = hash;
		while (s < le && isspace((unsigned char)*s))
			s++;
		if (s == le)
			continue;
		e = s;
		while (e < le && !isspace((unsigned char)*e))
			e++;
		*name = prov_xstrndup(s, (size_t)(e - s));
		*strip = 1;
		for (s = e; s < le;) {
			while (s < le && isspace((unsigned char)*s))
				s++;
			if (s == le)
				break;
			e = s;
			while (e < le && !isspace((unsigned char)*e))
				e++;
			if (e - s >= 3 && s[0] == '-' && s[1] == 'p' &&
			    prov_parse_int(strip, s + 2, (size_t)(e - s - 2)) == 0 && *strip >= 0 && *strip <= 16) {
				;
			} else if (e - s == 2 && s[0] == '-' && s[1] == 'p' && e < le) {
				/* "-p 0" */
				s = e;
				while (s < le && isspace((unsigned char)*s))
					s++;
				e = s;
				while (e < le && !isspace((unsigned char)*e))
					e++;
				if (prov_parse_int(strip, s, (size_t)(e - s)) < 0 || *strip < 0 || *strip > 16) {
					int error = prov_error_set(PROV_EINPUT, "debian/patches/series: bad -p for '%s'", *name);

					free(*name);
					*name = NULL;
					return error;
				}
			} else {
				int error = prov_error_set(PROV_EINPUT, "debian/patches/series: unsupported option '%.*s' for '%s'",
							   (int)(e - s > 64 ? 64 : e - s), s, *name);

				free(*name);
				*name = NULL;
				return error;
			}
			s = e;
		}
		return 1;
	}
	return 0;
}

/* Apply debian/patches/series; *out = patches applied. */
static int apply_series(int *out, git_oid *tree_oid, struct import_state *st)
{
	git_repository *repo = st->repo;
	struct prov_buf series = PROV_BUF_INIT, patch = PROV_BUF_INIT, git_text = PROV_BUF_INIT;
	const char *p, *end;
	struct series_entry *ents = NULL;
	size_t nents = 0, ents_alloc = 0, i;
	git_tree *tree = NULL;
	/* one relocation budget for the whole series, not one per patch; the same for patched bytes */
	uint64_t compares = 0, patched = 0;
	int n = 0, error;

	error = read_blob_at(&series, repo, tree_oid, "debian/patches/series", (size_t)1 << 20);
	if (error == PROV_ENOTFOUND) {
		*out = 0;
		error = 0;
		goto cleanup;
	}
	if (error < 0)
		goto cleanup;
	p = series.buf;
	end = series.buf + series.len;
	for (;;) {
		char *name = NULL, *path = NULL;
		int strip = 1, more = prov_quilt_series_next(&name, &strip, &p, end);

		if (more < 0) {
			error = more;
			goto cleanup;
		}
		if (!more)
			break;
		if (n >= PROV_SRCIMPORT_MAX_PATCHES) {
			error = prov_error_set(PROV_ELIMIT, "debian/patches/series lists more than %d patches",
					       PROV_SRCIMPORT_MAX_PATCHES);
			free(name);
			goto cleanup;
		}
		{
			char *joined = prov_xasprintf("debian/patches/%s", name);
			path = prov_path_normalize(joined);
			free(joined);
		}
		if (!prov_starts_with(path, "debian/patches/")) {
			error = prov_error_set(PROV_EINPUT, "debian/patches/series names a patch outside debian/patches: '%s'",
					       name);
			free(name);
			free(path);
			goto cleanup;
		}
		/* quilt applies a patch once: a series naming one twice is refused */
		for (i = 0; i < nents; i++)
			if (!strcmp(ents[i].path, path))
				break;
		if (i < nents) {
			error = prov_error_set(PROV_EINPUT, "debian/patches/series lists '%s' twice", name);
			free(name);
			free(path);
			goto cleanup;
		}
		PROV_ALLOC_GROW(ents, nents + 1, ents_alloc);
		ents[nents].name = name;
		ents[nents].path = path;
		ents[nents++].strip = strip;
		n++;
	}
	/*
	 * The bytes the series rewrites, before anything is applied: each
	 * patch costs libgit2 the whole of every file it touches (as the
	 * files are now; those a patch creates are counted as they are
	 * patched, below).
	 */
	if (git_tree_lookup(&tree, repo, tree_oid) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read the tree to patch");
		goto cleanup;
	}
	for (i = 0; i < nents && patched <= SERIES_MAX_PATCHED_BYTES; i++) {
		error = read_blob_at(&patch, repo, tree_oid, ents[i].path, PROV_SRCIMPORT_MAX_PATCH);
		if (error == PROV_ENOTFOUND)
			error = prov_error_set(PROV_EINPUT, "debian/patches/series names '%s', which is not in debian/patches",
					       ents[i].name);
		if (error == 0)
			error = prov_srcimport_quilt_to_git(&git_text, patch.buf, patch.len, ents[i].strip,
							    ents[i].path);
		if (error < 0)
			goto cleanup;
		patched += patch.len + diff_patched_bytes(repo, tree, &git_text);
	}
	if (patched > SERIES_MAX_PATCHED_BYTES) {
		error = prov_error_set(PROV_ELIMIT, "debian/patches/series: the patches rewrite more than "
				       "%llu bytes of files in all; not imported",
				       (unsigned long long)SERIES_MAX_PATCHED_BYTES);
		goto cleanup;
	}
	patched = 0;
	for (i = 0; i < nents; i++) {
		const char *name = ents[i].name, *path = ents[i].path;

		error = read_blob_at(&patch, repo, tree_oid, path, PROV_SRCIMPORT_MAX_PATCH);
		if (error == 0)
			error = prov_srcimport_quilt_to_git(&git_text, patch.buf, patch.len, ents[i].strip, path);
		if (error == 0) {
			patched += patch.len;
			error = relocate_hunks(&patch, &git_text, repo, tree_oid, &compares, &patched);
		}
		if (error == PROV_ELIMIT && compares > RELOCATE_MAX_COMPARES)
			error = prov_error_set(PROV_ELIMIT, "debian/patches/series: finding where the hunks "
					       "moved took more than %llu line compares (at '%s'); not imported",
					       (unsigned long long)RELOCATE_MAX_COMPARES, name);
		else if (error == 0 && patched > SERIES_MAX_PATCHED_BYTES)
			error = prov_error_set(PROV_ELIMIT, "debian/patches/series: the patches rewrite "
					       "more than %llu bytes of files in all (at '%s'); not imported",
					       (unsigned long long)SERIES_MAX_PATCHED_BYTES, name);
		if (error == 0) {
			st->patches_applied++;
			error = apply_patch(tree_oid, repo, &patch, path);
		}
		if (error < 0)
			goto cleanup;
	}
	*out = n;
cleanup:
	st->line_compares += compares;
	git_tree_free(tree);
	for (i = 0; i < nents; i++) {
		free(ents[i].name);
		free(ents[i].path);
	}
	free(ents);
	prov_buf_release(&series);
	prov_buf_release(&patch);
	prov_buf_release(&git_text);
	return error;
}

/* A security update's version: ~debNNuN or +debNNuN (2.9.14+dfsg-1.3~deb12u1). */
static int security_version(const char *v)
{
	const char *p = v;

	while ((p = strstr(p, "deb"))) {
		if (p > v && (p[-1] == '~' || p[-1] == '+')) {
			size_t n = strspn(p + 3, "0123456789");

			if (n && p[3 + n] == 'u' && p[4 + n] >= '0' && p[4 + n] <= '9')
				return 1;
		}
		p += 3;
	}
	return 0;
}

/*
 * Fetch the .dsc: the main archive's pool areas in order, then its flat
 * directory; the security archive's pool/updates areas (config
 * sources.debianSecurityBaseUrl; unset: Debian's when base is Debian's
 * main archive, else none). A security
 * version (~debNNuN, +debNNuN) tries the security archive first. At most
 * 9 URLs; only "not found" moves on to the next.
 */
static int fetch_dsc(char **out_path, char **out_url, const char *base, const char *source,
		     const char *version, const struct prov_srcimport_opts *o, uint64_t *ms)
{
	static const char *const areas[] = { "main", "contrib", "non-free", "non-free-firmware", NULL };
	const char *fv = strip_epoch(version);
	const char *sec = o->ctx->config ? prov_config_get(o->ctx->config, "sources.debiansecuritybaseurl") : NULL;
	const char *bases[2];
	size_t blen[2];
	int i, k, sec_first, error = PROV_ENOTFOUND;

	/* unset: Debian's own security archive beside Debian's own main archive;
	 * a site's mirror of the main archive says where its security mirror is */
	if (!sec)
		sec = !strcmp(base, PROV_SRCIMPORT_DEBIAN_URL) || !strcmp(base, PROV_SRCIMPORT_DEBIAN_URL "/")
			      ? PROV_SRCIMPORT_DEBIAN_SECURITY_URL : "";
	sec_first = security_version(version) && *sec;
	bases[0] = sec_first ? sec : base;
	bases[1] = sec_first ? base : (*sec ? sec : NULL);
	for (k = 0; k < 2 && bases[k]; k++) {
		int updates = bases[k] == sec;

		blen[k] = strlen(bases[k]);
		while (blen[k] && bases[k][blen[k] - 1] == '/')
			blen[k]--;
		for (i = 0; ; i++) {
			char *url, *pool = NULL;

			if (areas[i]) {
				if ((error = prov_srcimport_pool_dir(&pool, source, areas[i])) < 0)
					return error;
				/* "pool/main/..." -> "pool/updates/main/..." */
				url = prov_xasprintf("%.*s/%s%s/%s_%s.dsc", (int)blen[k], bases[k],
						     updates ? "pool/updates/" : "", updates ? pool + 5 : pool,
						     source, fv);
				free(pool);
			} else if (!updates) {
				url = prov_xasprintf("%.*s/%s_%s.dsc", (int)blen[k], bases[k], source, fv);
			} else {
				break;
			}
			error = fetch(out_path, url, o, ms);
			if (error == 0) {
				*out_url = url;
				return 0;
			}
			free(url);
			if (error != PROV_ENOTFOUND)
				return error;
			if (!areas[i])
				break;
		}
	}
	if (error == PROV_ENOTFOUND)
		error = prov_error_set(PROV_ENOTFOUND, "no %s_%s.dsc under '%.*s'%s%.*s%s%s", source, fv,
				       (int)blen[0], bases[0], k > 1 ? " nor '" : "", k > 1 ? (int)blen[1] : 0,
				       k > 1 ? bases[1] : "", k > 1 ? "'" : "",
				       o->ctx->offline ? " in the cache (--offline)" : "");
	return error;
}

enum dsc_kind { DSC_IGNORE, DSC_ORIG, DSC_COMPONENT, DSC_DEBIAN, DSC_NATIVE };

static enum dsc_kind classify(const char *name, const char *source, char **out_component)
{
	size_t stem, sl = strlen(source);
	const char *c;

	*out_component = NULL;
	if (prov_ends_with(name, ".asc"))
		return DSC_IGNORE;
	if (strncmp(name, source, sl) || name[sl] != '_' || !has_tar_ext(name, &stem))
		return DSC_IGNORE;
	if (stem > 7 && !strncmp(name + stem - 7, ".debian", 7))
		return DSC_DEBIAN;
	if (stem > 5 && !strncmp(name + stem - 5, ".orig", 5))
		return DSC_ORIG;
	c = strstr(name + sl, ".orig-");
	if (c && (size_t)(c - name) < stem) {
		size_t cl = stem - (size_t)(c + 6 - name), i;
		for (i = 0; i < cl; i++)
			if (!(isalnum((unsigned char)c[6 + i]) || c[6 + i] == '-'))
				return DSC_IGNORE;
		if (!cl)
			return DSC_IGNORE;
		*out_component = prov_xstrndup(c + 6, cl);
		return DSC_COMPONENT;
	}
	return DSC_NATIVE;
}

/*
 * The .dsc of source=version (read into *text, parsed into *d) and every file
 * it lists, fetched from beside it and checked against its sizes and SHA-256.
 */
static int fetch_verified(struct dsc *d, struct prov_buf *text, char **dsc_path, char **dsc_url,
			  const char *base_url, const char *source, const char *version,
			  const struct prov_srcimport_opts *o, struct prov_srcimport_stats *stats)
{
	char *dir_url = NULL;
	size_t i;
	int error;

	if ((error = fetch_dsc(dsc_path, dsc_url, base_url, source, version, o, &stats->download_ms)) < 0 ||
	    (error = prov_read_file(text, *dsc_path, PROV_SRCIMPORT_MAX_DSC)) < 0)
		goto cleanup;
	if ((error = dsc_parse(d, text->buf, text->len, *dsc_url)) < 0) {
		prov_fetch_forget(o->ctx->cache_dir, *dsc_url);
		goto cleanup;
	}
	if (strcmp(d->source, source) || strcmp(d->version, version)) {
		prov_fetch_forget(o->ctx->cache_dir, *dsc_url);
		error = prov_error_set(PROV_EINPUT, "'%s' describes %s %s, not %s %s", *dsc_url, d->source,
				       d->version, source, version);
		goto cleanup;
	}
	if (strcmp(d->format, "3.0 (quilt)") && strcmp(d->format, "3.0 (native)") && strcmp(d->format, "1.0")) {
		error = prov_error_set(PROV_EINPUT, "'%s' has source format '%s': only 3.0 (quilt), 3.0 (native) and native 1.0 are supported",
				       *dsc_url, d->format);
		goto cleanup;
	}
	dir_url = prov_xstrndup(*dsc_url, (size_t)(prov_basename(*dsc_url) - *dsc_url));
	for (i = 0; i < d->nfiles; i++) {
		struct dsc_file *f = &d->files[i];
		char got[2 * PROV_SHA256_LEN + 1];
		uint64_t size = 0, t1;

		f->url = prov_xasprintf("%s%s", dir_url, f->name);
		if ((error = fetch(&f->path, f->url, o, &stats->download_ms)) < 0)
			goto cleanup;
		t1 = prov_now_ms();
		error = prov_sha256_file(got, &size, f->path);
		stats->download_ms += prov_now_ms() - t1;
		if (error < 0)
			goto cleanup;
		if (size != f->size || strcmp(got, f->sha256)) {
			prov_fetch_forget(o->ctx->cache_dir, f->url);
			if (size != f->size)
				error = prov_error_set(PROV_EINPUT, "size mismatch for '%s' from '%s': the .dsc says %llu bytes, got %llu",
						       f->name, f->url, (unsigned long long)f->size,
						       (unsigned long long)size);
			else
				error = prov_error_set(PROV_EINPUT, "checksum mismatch for '%s' from '%s': the .dsc says SHA-256 %s, got %s",
						       f->name, f->url, f->sha256, got);
			goto cleanup;
		}
	}

	error = 0;
cleanup:
	free(dir_url);
	return error;
}

/*
 * The tree of the upstream tarballs into *root (which the caller frees): the
 * orig (or native) tarball, its single top directory stripped, then each
 * orig-<component> tarball as <component>/, as dpkg-source unpacks them.
 */
static int import_tarballs(struct tnode **root, int *native, struct import_state *st, const struct dsc *d,
			   const char *dsc_url, const char *source, const struct prov_srcimport_opts *o)
{
	char *component = NULL;
	size_t i;
	int error = 0, have_orig = 0;

	*root = tnode_new("", 0, GIT_FILEMODE_TREE);
	/* The orig tarball first, then its components, as dpkg-source does. */
	for (i = 0; i < d->nfiles; i++) {
		enum dsc_kind k = classify(d->files[i].name, source, &component);
		free(component);
		component = NULL;
		if (k == DSC_ORIG || k == DSC_NATIVE) {
			struct tnode *t = tnode_new("", 0, GIT_FILEMODE_TREE), *top;

			if (have_orig) {
				tnode_free(t);
				error = prov_error_set(PROV_EINPUT, "'%s' lists more than one main tarball", dsc_url);
				goto cleanup;
			}
			error = import_download(t, st, d->files[i].path, d->files[i].url, o);
			if (error < 0) {
				tnode_free(t);
				goto cleanup;
			}
			/* Keep the stripped directory's contents as the root. */
			top = strip_top(t);
			if (top != t) {
				t->n = 0;
				tnode_free(t);
				free(top->name);
				top->name = prov_xstrdup("");
				t = top;
			}
			tnode_free(*root);
			*root = t;
			have_orig = 1;
			*native = k == DSC_NATIVE;
		}
	}
	if (!have_orig) {
		error = prov_error_set(PROV_EINPUT, "'%s' lists no .orig.tar or native tarball", dsc_url);
		goto cleanup;
	}
	for (i = 0; i < d->nfiles; i++) {
		enum dsc_kind k = classify(d->files[i].name, source, &component);
		struct tnode *t, *top;

		if (k == DSC_COMPONENT) {
			t = tnode_new("", 0, GIT_FILEMODE_TREE);
			error = import_download(t, st, d->files[i].path, d->files[i].url, o);
			if (error < 0) {
				tnode_free(t);
				goto cleanup;
			}
			top = strip_top(t);
			if (top != t)
				t->n = 0;
			else
				t = NULL;
			tnode_free(t);
			free(top->name);
			top->name = component;
			component = NULL;
			tnode_free(tnode_take(*root, top->name));
			tnode_add(*root, top);
		}
		free(component);
		component = NULL;
	}
	error = 0;
cleanup:
	free(component);
	return error;
}

int prov_srcimport_debian(char **out_repo, char **out_commit, int *out_npatches,
			  const char *base_url, const char *source, const char *version,
			  const struct prov_srcimport_opts *o)
{
	struct import_run r = IMPORT_RUN_INIT;
	struct dsc d = { 0 };
	struct prov_buf text = PROV_BUF_INIT;
	struct tnode *root = NULL, *deb = NULL;
	char *name = NULL, *refname = NULL, *dsc_path = NULL, *dsc_url = NULL;
	char *msg = NULL, *component = NULL;
	char dsc_sha[2 * PROV_SHA256_LEN + 1];
	git_oid upstream_tree, upstream_commit, tree_oid, commit_oid;
	size_t i;
	int error, empty = 0, npatches = 0, native = 0, have_debian = 0;

	prov_git_init_once();	/* version_refname asks libgit2 */
	if (!valid_source_name(source)) {
		error = prov_error_set(PROV_EINPUT, "'%s' is not a Debian source package name", source);
		goto cleanup;
	}
	if (!valid_version(version)) {
		error = prov_error_set(PROV_EINPUT, "'%s' is not a Debian version", version);
		goto cleanup;
	}
	if ((error = version_refname(&refname, source, version)) < 0)
		goto cleanup;
	name = prov_xasprintf("debian-%s", source);
	if ((error = import_begin(&r, o, name, refname, &npatches)) < 0)
		goto cleanup;
	if (error == 1)
		goto done;
	if ((error = fetch_verified(&d, &text, &dsc_path, &dsc_url, base_url, source, version, o,
				    &r.stats)) < 0)
		goto cleanup;
	r.t0 = prov_now_ms();
	if ((error = import_tarballs(&root, &native, &r.st, &d, dsc_url, source, o)) < 0)
		goto cleanup;
	if ((error = tnode_write(&upstream_tree, &empty, r.ir.repo, root)) < 0)
		goto cleanup;
	/* Contents, not URLs: the same package from any mirror is the same commit. */
	prov_sha256_hex(dsc_sha, text.buf, text.len);
	msg = prov_xasprintf("Import %s %s (%s)\n\nSource: %s\nVersion: %s\nDsc-Sha256: %s\n",
			     source, version, native ? "native source" : "upstream tarballs",
			     source, version, dsc_sha);
	if ((error = commit_tree(&upstream_commit, r.ir.repo, &upstream_tree, NULL, msg)) < 0)
		goto cleanup;
	commit_oid = upstream_commit;

	if (!native) {
		for (i = 0; i < d.nfiles; i++) {
			enum dsc_kind k = classify(d.files[i].name, source, &component);
			free(component);
			component = NULL;
			if (k != DSC_DEBIAN)
				continue;
			if (have_debian) {
				error = prov_error_set(PROV_EINPUT, "'%s' lists more than one debian tarball", dsc_url);
				goto cleanup;
			}
			deb = tnode_new("", 0, GIT_FILEMODE_TREE);
			if ((error = import_download(deb, &r.st, d.files[i].path, d.files[i].url, o)) < 0)
				goto cleanup;
			have_debian = 1;
		}
		if (!have_debian) {
			error = prov_error_set(PROV_EINPUT, "'%s' (format %s) lists no .debian.tar", dsc_url, d.format);
			goto cleanup;
		}
		{
			struct tnode *debdir = tnode_take(deb, "debian");
			if (!debdir || debdir->mode != GIT_FILEMODE_TREE) {
				tnode_free(debdir);
				error = prov_error_set(PROV_EINPUT, "the debian tarball of '%s' has no debian/ directory",
						       dsc_url);
				goto cleanup;
			}
			if (deb->n)
				prov_warn("the debian tarball of '%s' has entries outside debian/: ignored", dsc_url);
			/* dpkg-source replaces an upstream debian/ directory. */
			tnode_free(tnode_take(root, "debian"));
			tnode_add(root, debdir);
		}
		if ((error = tnode_write(&tree_oid, &empty, r.ir.repo, root)) < 0 ||
		    (error = apply_series(&npatches, &tree_oid, &r.st)) < 0)
			goto cleanup;
		free(msg);
		msg = prov_xasprintf("Debian source %s %s with %d patch%s\n\nSource: %s\nVersion: %s\nDsc-Sha256: %s\nPatches-Applied: %d\n",
				     source, version, npatches, npatches == 1 ? "" : "es", source, version,
				     dsc_sha, npatches);
		if ((error = commit_tree(&commit_oid, r.ir.repo, &tree_oid, &upstream_commit, msg)) < 0)
			goto cleanup;
	}
	if ((error = import_record(&r, refname, &commit_oid, "provenance: import Debian source")) < 0)
		goto cleanup;
done:
	import_hand_out(&r, out_repo, out_commit);
	if (out_npatches)
		*out_npatches = npatches;
	error = 0;
cleanup:
	import_run_release(&r, o);
	tnode_free(root);
	tnode_free(deb);
	dsc_release(&d);
	prov_buf_release(&text);
	free(name);
	free(refname);
	free(dsc_path);
	free(dsc_url);
	free(msg);
	free(component);
	return error;
}
