/*
 * Helpers shared by the libFuzzer targets (fuzz/fuzz-*.c): a private
 * temporary directory made once per process, files written from the input,
 * and splitting the input into fields on NUL bytes. Header-only: each target
 * is one translation unit linked with the library sources, and
 * tests/unit/test-regress.c includes them all (entry points renamed by
 * macros), so static names must not clash between targets.
 */
#ifndef PROV_FUZZ_COMMON_H
#define PROV_FUZZ_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

#include "util.h"

/* A directory for this process, removed by nobody (tmp): created on first use. */
static inline const char *fuzz_tmpdir(void)
{
	static char dir[64];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/prov-fuzz.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	return dir;
}

/* Write [data, data+len) to path (truncating); abort on failure. */
static inline void fuzz_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	const char *p = data;

	if (fd < 0)
		abort();
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			abort();
		p += n;
		len -= (size_t)n;
	}
	close(fd);
}

/*
 * Split the input on NUL bytes into at most `max` fields, each a new
 * NUL-terminated copy (the last takes the rest). Returns the count; free
 * with fuzz_fields_free.
 */
static inline size_t fuzz_split(char **fields, size_t max, const uint8_t *data, size_t size)
{
	size_t n = 0, start = 0, i;

	for (i = 0; i <= size && n < max; i++) {
		if (i == size || (data[i] == 0 && n + 1 < max)) {
			fields[n++] = prov_xstrndup((const char *)data + start, i - start);
			start = i + 1;
			if (i == size)
				break;
		}
	}
	return n;
}

static inline void fuzz_fields_free(char **fields, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(fields[i]);
}

/* Number of entries in dir other than "." and ".." (0 when missing). */
static inline size_t fuzz_dir_count(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

#endif
