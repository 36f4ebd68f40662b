/* Source archives imported as git commits: the in-memory tree, archive entries, the import repository. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
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
#include "srcimport-int.h"
#include "util.h"
#include "banned.h"

/* child names compared by tnode_slot on this thread: a work count for the stats */
__thread uint64_t tnode_compares;

void tnode_free(struct tnode *t)
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

struct tnode *tnode_new(const char *name, size_t len, unsigned mode)
{
	struct tnode *t = prov_xcalloc(1, sizeof(*t));

	t->name = prov_xstrndup(name, len);
	t->mode = mode;
	return t;
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
		size_t h = prov_hash_bytes(dir->kids[i]->name, strlen(dir->kids[i]->name)) & (n - 1);

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
	for (h = prov_hash_bytes(name, len) & (dir->nhslots - 1); dir->hslots[h];
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
		for (h = prov_hash_bytes(kid->name, strlen(kid->name)) & (dir->nhslots - 1);
		     dir->hslots[h]; h = (h + 1) & (dir->nhslots - 1))
			;
		dir->hslots[h] = dir->n;
	}
}

void tnode_add(struct tnode *dir, struct tnode *kid)
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
struct tnode *tnode_take(struct tnode *dir, const char *name)
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
int tnode_write(git_oid *out, int *out_empty, git_repository *repo, const struct tnode *t)
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
struct tnode *tnode_strip_top(struct tnode *root)
{
	if (root->n == 1 && root->kids[0]->mode == GIT_FILEMODE_TREE)
		return root->kids[0];
	return root;
}

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
			prov_remove_tree_at(AT_FDCWD, tmp);
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

int si_commit_tree(git_oid *out, git_repository *repo, const git_oid *tree_oid,
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

int si_fetch(char **out, const char *url, const struct prov_srcimport_opts *o, uint64_t *ms)
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
int import_download(struct tnode *root, struct import_state *st, const char *file, const char *url,
			   const struct prov_srcimport_opts *o)
{
	int error = import_file(root, st, file, url);

	if (error == PROV_EINPUT)
		prov_fetch_forget(o->ctx->cache_dir, url);
	return error;
}

/*
 * Open the repository <cache>/imports/<name>: 1 when refname is in it
 * already (run->hex, *out_npatches), 0 when it is to be imported.
 */
int import_begin(struct import_run *r, const struct prov_srcimport_opts *o, const char *name,
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
int import_record(struct import_run *r, const char *refname, const git_oid *commit,
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
void import_hand_out(struct import_run *r, char **out_repo, char **out_commit)
{
	*out_repo = r->ir.path;
	r->ir.path = NULL;
	*out_commit = r->hex;
	r->hex = NULL;
}

/* Fill the caller's stats (also after a failure: the work so far) and release the run. */
void import_run_release(struct import_run *r, const struct prov_srcimport_opts *o)
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
	if ((error = si_fetch(&file, url, o, &r.stats.download_ms)) < 0)
		goto cleanup;
	r.t0 = prov_now_ms();
	if ((error = import_download(root, &r.st, file, url, o)) < 0)
		goto cleanup;
	if ((error = tnode_write(&tree_oid, &empty, r.ir.repo, tnode_strip_top(root))) < 0)
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
	if ((error = si_commit_tree(&commit_oid, r.ir.repo, &tree_oid, NULL, msg)) < 0 ||
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
