/*
 * libFuzzer target: a container image's layer (a tar, any compression
 * libarchive reads) or a squashfs filesystem, applied onto an empty root as
 * `--sysroot IMAGE` does (src/image/image-layer.c, image-squashfs.c), under
 * a small budget. The first byte picks the reader; the rest is the file.
 * Whatever the bytes, nothing is written beside the root: the private
 * directory (image-fuzz/) holds the input, the root and an untouched sentinel
 * afterwards.
 */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "image.h"
#include "util.h"
#include "common.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_IMAGE_ENTRIES 256
#define FUZZ_IMAGE_BYTES ((unsigned long long)1 << 20)

static void image_sentinel_check(const char *path)
{
	struct prov_buf b = PROV_BUF_INIT;

	if (prov_read_file(&b, path, 64) < 0 || b.len != 8 || memcmp(b.buf, "sentinel", 8))
		__builtin_trap();
	prov_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_image_budget budget = { FUZZ_IMAGE_ENTRIES, FUZZ_IMAGE_BYTES, 0 };
	char *dir, *file, *root, *sentinel;
	int dfd, rootfd;

	if (size < 1)
		return 0;
	dir = prov_xasprintf("%s/image-fuzz", fuzz_tmpdir());
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		abort();
	file = prov_xasprintf("%s/image", dir);
	root = prov_xasprintf("%s/root", dir);
	sentinel = prov_xasprintf("%s/sentinel", dir);
	fuzz_write(file, data + 1, size - 1);
	fuzz_write(sentinel, "sentinel", 8);
	if (mkdir(root, 0700) < 0 || (rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		abort();
	if (data[0] & 1)
		(void)prov_image_apply_squashfs(rootfd, file, 0, size - 1, "fuzz", &budget);
	else
		(void)prov_image_apply_layer(rootfd, file, "fuzz", &budget);
	close(rootfd);
	/* confined: only the input, the root and the sentinel, which is unchanged */
	if (fuzz_dir_count(dir) != 3)
		__builtin_trap();
	image_sentinel_check(sentinel);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    prov_remove_tree_at(dfd, "root") < 0)
		abort();
	close(dfd);
	unlink(file);
	unlink(sentinel);
	free(dir);
	free(file);
	free(root);
	free(sentinel);
	prov_error_clear();
	return 0;
}
