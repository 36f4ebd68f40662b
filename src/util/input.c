/* Input detection by content (ELF core, compressed core, text) and decompression. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <archive.h>
#include <elf.h>

#include "config.h"
#include "error.h"
#include "input.h"
#include "util.h"
#include "banned.h"

#define HEAD_SIZE 4096

static const char *compression_of(const unsigned char *h, size_t n)
{
	if (n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd)
		return "zstd";
	if (n >= 6 && !memcmp(h, "\xfd" "7zXZ\0", 6))
		return "xz";
	if (n >= 4 && h[0] == 0x04 && h[1] == 0x22 && h[2] == 0x4d && h[3] == 0x18)
		return "lz4";
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return "gzip";
	return NULL;
}

/* 0: not ELF; 1: ELF core; -1: ELF but not a core (type in *type) */
static int elf_kind(const unsigned char *h, size_t n, unsigned int *type)
{
	if (n < 4 || memcmp(h, ELFMAG, SELFMAG) != 0)
		return 0;
	/* too short to tell: the analyzer says what is truncated */
	if (n < 18)
		return 1;
	/* e_type sits right after e_ident in both classes */
	*type = h[EI_DATA] == ELFDATA2MSB ? (unsigned)(h[16] << 8 | h[17])
					  : (unsigned)(h[17] << 8 | h[16]);
	return *type == ET_CORE ? 1 : -1;
}

/*
 * Binary: a NUL followed by anything else. Trailing NUL padding is not (a
 * log whose end was zero-filled by an unclean shutdown, a file preallocated
 * and never filled): the text before it is read, the padding dropped.
 */
static int looks_binary(const unsigned char *h, size_t n)
{
	const unsigned char *z = memchr(h, '\0', n);

	if (!z)
		return 0;
	for (; z < h + n; z++)
		if (*z)
			return 1;
	return z == h + n && h[0] == '\0';	/* all NUL: nothing to read */
}

static ssize_t read_head(int fd, unsigned char *buf, size_t size)
{
	size_t got = 0;

	while (got < size) {
		ssize_t r = read(fd, buf + got, size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* a process's start time (field 22 of /proc/PID/stat, clock ticks since boot), or 0 */
static unsigned long long start_time_of(long pid)
{
	char path[64], buf[1024];
	unsigned long long t = 0;
	const char *p;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (!(p = strrchr(buf, ')')))
		return 0;
	/* field 3 follows ") " */
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	while (*p >= '0' && *p <= '9')
		t = t * 10 + (unsigned long long)(*p++ - '0');
	return t;
}

#define LOCK_SUFFIX ".lock"

static int has_lock_suffix(const char *name)
{
	size_t n = strlen(name), k = strlen(LOCK_SUFFIX);

	return n > k && !strcmp(name + n - k, LOCK_SUFFIX);
}

/*
 * Whether anyone holds the lock file `lock` (in dir dfd): 1 held, 0 nobody
 * (*fd_out then holds it shared, to close after the removal), -1 no such
 * file or it cannot be told (then the caller falls back or keeps the file).
 */
static int lock_held(int dfd, const char *lock, int *fd_out)
{
	int fd = openat(dfd, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	*fd_out = -1;
	if (fd < 0)
		return errno == ENOENT ? -1 : 1;
	/* shared: it conflicts with the owner's exclusive lock, and NFS takes it on a read-only fd */
	if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		close(fd);
		return 1;
	}
	*fd_out = fd;
	return 0;
}

int prov_input_remove_stale(const char *tmpdir)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int removed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		const char *p = e->d_name;
		unsigned long long pid = 0, start = 0;
		char *lock;
		int lfd, held;
		struct stat st;

		if (strncmp(p, "input-", 6) != 0)
			continue;
		if (has_lock_suffix(p)) {
			/* a lock file whose temporary is gone: removed when nobody holds it */
			char *data = prov_xstrndup(p, strlen(p) - strlen(LOCK_SUFFIX));

			if (fstatat(dirfd(d), data, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT &&
			    lock_held(dirfd(d), p, &lfd) == 0) {
				(void)unlinkat(dirfd(d), p, 0);
				close(lfd);
			}
			free(data);
			continue;
		}
		lock = prov_xasprintf("%s" LOCK_SUFFIX, p);
		held = lock_held(dirfd(d), lock, &lfd);
		if (held >= 0) {
			/* a run of this version: its lock decides, not its pid */
			if (!held) {
				if (unlinkat(dirfd(d), e->d_name, 0) == 0)
					removed++;
				(void)unlinkat(dirfd(d), lock, 0);
				close(lfd);
			}
			free(lock);
			continue;
		}
		free(lock);
		for (p += 6; *p >= '0' && *p <= '9'; p++)
			pid = pid * 10 + (unsigned long long)(*p - '0');
		if (*p++ != '-' || !pid || pid > 1U << 30)
			continue;
		for (; *p >= '0' && *p <= '9'; p++)
			start = start * 10 + (unsigned long long)(*p - '0');
		if (*p != '-') {
			/* input-PID-XXXXXX of older versions: only when no such process lives */
			if (kill((pid_t)pid, 0) < 0 && errno == ESRCH &&
			    unlinkat(dirfd(d), e->d_name, 0) == 0)
				removed++;
			continue;
		}
		/* dead, or the pid now belongs to another process */
		if (start_time_of((long)pid) != start &&
		    unlinkat(dirfd(d), e->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

/* Remove a temporary and its lock file, then let the lock go. */
static void remove_tmp(const char *path, int lock_fd)
{
	char *lock = prov_xasprintf("%s" LOCK_SUFFIX, path);

	unlink(path);
	unlink(lock);
	free(lock);
	if (lock_fd >= 0)
		close(lock_fd);
}

/*
 * A new temporary input-PID-START-XXXXXX and its lock file (that name plus
 * ".lock"), made first and held with an exclusive flock while the
 * temporary lives: prov_input_remove_stale in any run, in any PID
 * namespace or on any host sharing the directory, leaves a held one alone.
 */
static int make_tmp(char **out, int *fd_out, int *lock_out, const char *tmpdir)
{
	char *lock = NULL, *path = NULL;
	int fd = -1, lfd = -1, error, tries;
	struct stat st;

	/* the cache directory above it may be missing too */
	if ((error = prov_mkdir_p(tmpdir, 0700, 0)) < 0)
		return error;
	for (tries = 0; tries < 100; tries++) {
		free(lock);
		free(path);
		path = NULL;
		/* pid and start time: how older versions told a dead run's file */
		lock = prov_xasprintf("%s/input-%ld-%llu-XXXXXX" LOCK_SUFFIX, tmpdir, (long)getpid(),
				      start_time_of((long)getpid()));
		if ((lfd = mkostemps(lock, (int)strlen(LOCK_SUFFIX), O_CLOEXEC)) < 0)
			break;
		/* a cleaner may have taken the lock file between its creation and the flock */
		if (flock(lfd, LOCK_EX) < 0 || fstat(lfd, &st) < 0 || st.st_nlink == 0) {
			close(lfd);
			lfd = -1;
			unlink(lock);
			continue;
		}
		path = prov_xstrndup(lock, strlen(lock) - strlen(LOCK_SUFFIX));
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			break;
		close(lfd);
		lfd = -1;
		unlink(lock);
		if (errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;

		free(lock);
		free(path);
		return prov_error_set(PROV_ERROR, "cannot create a temporary file in '%s': %s",
				      tmpdir, strerror(e ? e : EEXIST));
	}
	free(lock);
	*out = path;
	*fd_out = fd;
	*lock_out = lfd;
	return 0;
}

/* Write a block, leaving a hole for runs of zeros (cores are mostly zeros). */
static int write_sparse(int fd, const char *data, size_t len, const char *name)
{
	static const char zeros[4096];
	size_t off = 0;

	while (off < len) {
		size_t n = len - off < 4096 ? len - off : 4096;

		if (n == 4096 && memcmp(data + off, zeros, 4096) == 0) {
			if (lseek(fd, 4096, SEEK_CUR) < 0)
				return prov_error_set(PROV_ERROR, "cannot seek in '%s': %s",
						      name, strerror(errno));
		} else {
			size_t w = 0;

			while (w < n) {
				ssize_t r = write(fd, data + off + w, n - w);

				if (r < 0 && errno == EINTR)
					continue;
				if (r < 0)
					return prov_error_set(PROV_ERROR, "cannot write '%s': %s",
							      name, strerror(errno));
				w += (size_t)r;
			}
		}
		off += n;
	}
	return 0;
}

/*
 * Copy what `rd` yields (after `head`) into a new sparse temporary file,
 * at most `max` bytes; on success in->tmpfile names it. `rd` returns the
 * bytes read, 0 at the end, or a negative error code with the message set.
 * `too_big` names the input in the message when the cap is hit.
 */
typedef ssize_t (*spool_read_fn)(void *ctx, char *buf, size_t len);

/*
 * Where an ELF64 core spooled to fd (have bytes so far) ends, from its
 * headers: the furthest of the program header table, every segment's
 * p_offset + p_filesz and the section header table. 1 known (*end), 0 more
 * bytes needed, -1 cannot tell (not a native ELF64 core, PN_XNUM): then
 * only the byte budget bounds the spool.
 */
static int elf_core_end(int fd, uint64_t have, uint64_t *end)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t e, phend, i;

	if (have < sizeof(eh))
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB) ||
	    eh.e_type != ET_CORE || eh.e_phnum == PN_XNUM ||
	    (eh.e_phnum && eh.e_phentsize != sizeof(ph)) || eh.e_phoff > ((uint64_t)1 << 62))
		return -1;
	phend = eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(ph);
	if (have < phend)
		return 0;
	e = phend > sizeof(eh) ? phend : sizeof(eh);
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph) ||
		    ph.p_offset > ((uint64_t)1 << 62) || ph.p_filesz > ((uint64_t)1 << 62))
			return -1;
		if (ph.p_offset + ph.p_filesz > e)
			e = ph.p_offset + ph.p_filesz;
	}
	if (eh.e_shoff && eh.e_shnum && eh.e_shoff < ((uint64_t)1 << 62) &&
	    eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > e)
		e = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
	*end = e;
	return 1;
}

static int spool(struct prov_input *in, const char *tmpdir, uint64_t max, spool_read_fn rd,
		 void *ctx, const unsigned char *head, size_t hlen, const char *too_big)
{
	char *chunk = prov_xmalloc(1 << 20), *tmp = NULL;
	unsigned char kind_head[HEAD_SIZE];
	size_t kind_len = 0;
	uint64_t total = hlen, end = 0;
	int fd = -1, lfd = -1, error, text = 0, end_known = 0;
	unsigned int type;

	if ((error = make_tmp(&tmp, &fd, &lfd, tmpdir)) < 0)
		goto cleanup;
	if (hlen && (error = write_sparse(fd, (const char *)head, hlen, tmp)) < 0)
		goto cleanup;
	for (;;) {
		ssize_t n;

		/* a core: only what its headers say it holds (garbage after it is never spooled) */
		if (end_known == 1 && total >= end)
			break;
		n = rd(ctx, chunk, 1 << 20);
		if (n == 0)
			break;
		if (n < 0) {
			error = (int)n;
			goto cleanup;
		}
		/*
		 * The kind is known from the first bytes: text is held to the
		 * text limit while it decompresses, not to the core limit after
		 * (a zstd bomb of text wrote 16 GiB before it was refused).
		 */
		if (!hlen && kind_len < 18) {
			size_t k = (size_t)n < sizeof(kind_head) - kind_len ? (size_t)n
									: sizeof(kind_head) - kind_len;

			memcpy(kind_head + kind_len, chunk, k);
			kind_len += k;
			if (kind_len >= 18 && !elf_kind(kind_head, kind_len, &type))
				text = 1;
		}
		if (end_known == 1 && total + (uint64_t)n > end)
			n = (ssize_t)(end - total);
		total += (uint64_t)n;
		if (text && total > PROV_INPUT_MAX_TEXT) {
			error = prov_error_set(PROV_ELIMIT, "%s more than %zu bytes of text",
					       too_big, PROV_INPUT_MAX_TEXT);
			goto cleanup;
		}
		if (total > max) {
			error = prov_error_set(PROV_ELIMIT, "%s more than %llu bytes; raise -c core.maxSize=BYTES",
					       too_big, (unsigned long long)max);
			goto cleanup;
		}
		if ((error = write_sparse(fd, chunk, (size_t)n, tmp)) < 0)
			goto cleanup;
		if (!text && !end_known) {
			end_known = elf_core_end(fd, total, &end);
			if (end_known == 1 && total > end)
				total = end;	/* the rest of the first chunk: cut by the ftruncate below */
		}
	}
	if (ftruncate(fd, (off_t)total) < 0) {
		error = prov_error_set(PROV_ERROR, "cannot size '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	in->tmpfile = tmp;
	in->has_lock = 1;
	in->lock_fd = lfd;
	tmp = NULL;
	lfd = -1;
	error = 0;
cleanup:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		remove_tmp(tmp, lfd);
		free(tmp);
	}
	free(chunk);
	return error;
}

struct archive_reader {
	struct archive *a;
	const struct prov_input *in;
};

static ssize_t read_archive(void *ctx, char *buf, size_t len)
{
	struct archive_reader *r = ctx;
	la_ssize_t n = archive_read_data(r->a, buf, len);

	if (n < 0)
		return prov_error_set(PROV_EINPUT, "'%s' is truncated or corrupt (%s): %s",
				      r->in->name, r->in->compression,
				      archive_error_string(r->a) ? archive_error_string(r->a) : "read error");
	return (ssize_t)n;
}

struct stream {
	int fd;
	const char *label;	/* "standard input" or "'NAME'" */
};

static ssize_t read_stream(void *ctx, char *buf, size_t len)
{
	const struct stream *s = ctx;

	for (;;) {
		ssize_t n = read(s->fd, buf, len);

		if (n >= 0)
			return n;
		if (errno != EINTR)
			return prov_error_set(PROV_EINPUT, "cannot read %s: %s", s->label,
					      strerror(errno));
	}
}

static int decompress(struct prov_input *in, const char *src, const char *tmpdir,
		      uint64_t max)
{
	struct archive_reader r = { archive_read_new(), in };
	struct archive_entry *entry;
	char *too_big = NULL;
	int error;

	archive_read_support_filter_all(r.a);
	archive_read_support_format_raw(r.a);
	if (archive_read_open_filename(r.a, src, 1 << 16) != ARCHIVE_OK ||
	    archive_read_next_header(r.a, &entry) != ARCHIVE_OK) {
		error = prov_error_set(PROV_EINPUT, "cannot decompress '%s' (%s): %s",
				       in->name, in->compression,
				       archive_error_string(r.a) ? archive_error_string(r.a) : "unknown error");
		goto cleanup;
	}
	too_big = prov_xasprintf("'%s' decompresses to", in->name);
	error = spool(in, tmpdir, max, read_archive, &r, NULL, 0, too_big);
cleanup:
	free(too_big);
	archive_read_free(r.a);
	return error;
}

/* Copy a stream (standard input, a pipe) to a temporary file (a core piped in). */
static int spool_stream(struct prov_input *in, struct stream *s, const unsigned char *head,
			size_t hlen, const char *tmpdir, uint64_t max)
{
	char *too_big = prov_xasprintf("%s holds", s->label);
	int error = spool(in, tmpdir, max, read_stream, s, head, hlen, too_big);

	free(too_big);
	return error;
}

/*
 * Open a pipe named as INPUT without ever blocking in open(): an anonymous
 * pipe (<(cmd), /dev/fd/N) has a writer and is read as it comes; a named
 * FIFO must have data (or its writer's end) within PROV_INPUT_FIFO_WAIT_MS.
 */
static int open_pipe(int *out, int pathfd, const char *name)
{
	struct statfs sf;
	struct pollfd pfd;
	char proc[64];
	int fd, r;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	if ((fd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return prov_error_set(PROV_EINPUT, "cannot open '%s': %s", name, strerror(errno));
	if (fstatfs(pathfd, &sf) < 0 || sf.f_type != PIPEFS_MAGIC) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		do
			r = poll(&pfd, 1, PROV_INPUT_FIFO_WAIT_MS);
		while (r < 0 && errno == EINTR);
		if (r <= 0) {
			close(fd);
			return prov_error_set(PROV_EINPUT, "'%s' is a named pipe with nothing to read (no data within %d ms)",
					      name, PROV_INPUT_FIFO_WAIT_MS);
		}
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*out = fd;
	return 0;
}

/* Decide what the (possibly decompressed) file at `path` holds. */
static int classify_file(struct prov_input *in, const char *path)
{
	unsigned char head[HEAD_SIZE];
	unsigned int type = 0;
	ssize_t n;
	int fd, kind, error = 0;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
		return prov_error_set(PROV_EINPUT, "cannot open '%s': %s", in->name,
				      strerror(errno));
	if ((n = read_head(fd, head, sizeof(head))) < 0) {
		error = prov_error_set(PROV_EINPUT, "cannot read '%s': %s", in->name,
				       strerror(errno));
		goto cleanup;
	}
	if (n == 0) {
		error = prov_error_set(PROV_EINPUT, "'%s' is empty", in->name);
		goto cleanup;
	}
	kind = elf_kind(head, (size_t)n, &type);
	if (kind == 1) {
		in->type = PROV_INPUT_TYPE_CORE;
		in->path = prov_xstrdup(path);
		goto cleanup;
	}
	if (kind < 0) {
		error = prov_error_set(PROV_EINPUT,
				       "'%s' is an ELF file but not a core (e_type %u)%s",
				       in->name, type,
				       type == ET_EXEC || type == ET_DYN ? "; pass it with --exe" : "");
		goto cleanup;
	}
	if (looks_binary(head, (size_t)n)) {
		error = prov_error_set(PROV_EINPUT, "'%s' is neither a core file nor a text backtrace",
				       in->name);
		goto cleanup;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		error = prov_error_set(PROV_EINPUT, "cannot seek in '%s'", in->name);
		goto cleanup;
	}
	in->type = PROV_INPUT_TYPE_TEXT;
	error = prov_read_fd(&in->text, fd, in->name, PROV_INPUT_MAX_TEXT);
	if (error == PROV_ELIMIT)
		error = prov_error_set(PROV_ELIMIT, "'%s' is larger than %zu bytes of text",
				       in->name, PROV_INPUT_MAX_TEXT);
	/* the NUL padding looks_binary let through */
	while (!error && in->text.len && in->text.buf[in->text.len - 1] == '\0')
		in->text.buf[--in->text.len] = '\0';
cleanup:
	close(fd);
	return error;
}

int prov_input_open(struct prov_input *out, const char *name, const char *tmpdir,
		    uint64_t max_core)
{
	struct prov_input in;
	unsigned char head[HEAD_SIZE];
	const char *comp;
	ssize_t n;
	int fd = -1, sfd = -1, error;
	struct stat st;

	memset(&in, 0, sizeof(in));
	prov_buf_init(&in.text, 0);
	prov_input_remove_stale(tmpdir);
	in.name = prov_xstrdup(name);
	if (!max_core)
		max_core = PROV_INPUT_DEFAULT_MAX_CORE;

	if (strcmp(name, "-") != 0) {
		int pathfd = open(name, O_PATH | O_CLOEXEC);

		/* looked at before it is opened: a FIFO or a device is never opened blindly */
		if (pathfd < 0 || fstat(pathfd, &st) < 0) {
			error = prov_error_set(PROV_EINPUT, "cannot open '%s': %s", in.name,
					       strerror(errno));
			if (pathfd >= 0)
				close(pathfd);
			goto cleanup;
		}
		if (S_ISFIFO(st.st_mode)) {
			error = open_pipe(&sfd, pathfd, in.name);
			close(pathfd);
			if (error < 0)
				goto cleanup;
		} else {
			close(pathfd);
			if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
				error = prov_error_set(PROV_EINPUT, "'%s' is not a regular file or a pipe",
						       in.name);
				goto cleanup;
			}
		}
	} else {
		sfd = 0;
	}
	if (sfd >= 0) {
		/* a stream cannot be read twice: what type detection read is kept */
		unsigned int type;
		struct stream s;
		char *label = strcmp(name, "-") == 0 ? prov_xstrdup("standard input")
						     : prov_xasprintf("'%s'", in.name);

		s.fd = sfd;
		s.label = label;
		n = read_head(sfd, head, sizeof(head));
		if (n < 0) {
			error = prov_error_set(PROV_EINPUT, "cannot read %s: %s", label,
					       strerror(errno));
		} else if (n == 0) {
			error = prov_error_set(PROV_EINPUT, "%s is empty", label);
		} else if (elf_kind(head, (size_t)n, &type) != 0 || compression_of(head, (size_t)n)) {
			error = spool_stream(&in, &s, head, (size_t)n, tmpdir, max_core);
		} else {
			/* text: keep it in memory */
			char chunk[65536];

			if ((error = prov_buf_add(&in.text, head, (size_t)n)) < 0)
				goto stream_done;
			for (;;) {
				ssize_t r = read_stream(&s, chunk, sizeof(chunk));

				if (r < 0) {
					error = (int)r;
					goto stream_done;
				}
				if (r == 0)
					break;
				if (in.text.len + (size_t)r > PROV_INPUT_MAX_TEXT) {
					error = prov_error_set(PROV_ELIMIT,
							       "%s is larger than %zu bytes of text",
							       label, PROV_INPUT_MAX_TEXT);
					goto stream_done;
				}
				prov_buf_add(&in.text, chunk, (size_t)r);
			}
			in.type = PROV_INPUT_TYPE_TEXT;
		}
stream_done:
		free(label);
		if (sfd > 0)
			close(sfd);
		sfd = -1;
		if (error < 0)
			goto cleanup;
		if (in.type == PROV_INPUT_TYPE_TEXT && !in.tmpfile)
			goto done;
		error = 0;
		name = in.tmpfile;
	}

	if (stat(name, &st) < 0) {
		error = prov_error_set(PROV_EINPUT, "cannot open '%s': %s", in.name,
				       strerror(errno));
		goto cleanup;
	}
	if (S_ISDIR(st.st_mode)) {
		error = prov_error_set(PROV_EINPUT, "'%s' is a directory", in.name);
		goto cleanup;
	}
	if ((fd = open(name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) {
		error = prov_error_set(PROV_EINPUT, "cannot open '%s': %s", in.name,
				       strerror(errno));
		goto cleanup;
	}
	n = read_head(fd, head, 8);
	close(fd);
	fd = -1;
	if (n < 0) {
		error = prov_error_set(PROV_EINPUT, "cannot read '%s': %s", in.name,
				       strerror(errno));
		goto cleanup;
	}
	if ((comp = compression_of(head, (size_t)n))) {
		char *spooled = in.tmpfile;
		int spooled_lock = in.has_lock ? in.lock_fd : -1;

		in.compression = prov_xstrdup(comp);
		in.tmpfile = NULL;
		in.has_lock = 0;
		error = decompress(&in, name, tmpdir, max_core);
		if (spooled) {
			remove_tmp(spooled, spooled_lock);
			free(spooled);
		}
		if (error < 0)
			goto cleanup;
		error = classify_file(&in, in.tmpfile);
	} else {
		error = classify_file(&in, name);
	}
	if (error < 0)
		goto cleanup;
done:
	*out = in;
	return 0;
cleanup:
	if (fd >= 0)
		close(fd);
	prov_input_release(&in);
	return error;
}

uint64_t prov_input_max_core(const struct prov_config *cfg)
{
	const char *v = cfg ? prov_config_get(cfg, "core.maxsize") : NULL;
	uint64_t n;

	if (v && prov_parse_u64(&n, v, (size_t)-1, 10) == 0 && n)
		return n;
	if (v)
		prov_warn("core.maxSize '%s' is not a positive number of bytes; using %llu", v,
			  (unsigned long long)PROV_INPUT_DEFAULT_MAX_CORE);
	return PROV_INPUT_DEFAULT_MAX_CORE;
}

void prov_input_release(struct prov_input *in)
{
	if (in->tmpfile) {
		remove_tmp(in->tmpfile, in->has_lock ? in->lock_fd : -1);
		free(in->tmpfile);
	} else if (in->has_lock) {
		close(in->lock_fd);
	}
	free(in->name);
	free(in->path);
	free(in->compression);
	prov_buf_release(&in->text);
	memset(in, 0, sizeof(*in));
}
