#ifndef PROV_IMAGE_H
#define PROV_IMAGE_H

/*
 * A container image as --sysroot (docs/containers.md): an OCI image layout
 * ("oci:DIR[:TAG]"), a tar of one ("oci-archive:FILE"), what docker/podman
 * save write ("docker-archive:FILE[:TAG]"), or a plain directory. Without a
 * prefix a directory is a directory and a file is told by its content.
 *
 * The image's layers are applied in order, with OCI whiteouts, into
 * <cache>/images/<digest>/rootfs, once: every later run with the same image
 * reads that tree. Entries are confined to the root: one with "..", a hard
 * link that climbs out, is refused (PROV_EINPUT); symlinks are written as
 * they are and read through prov_root_open, which resolves them inside the
 * root; device nodes, FIFOs and sockets are skipped. Work is bounded: at
 * most PROV_IMAGE_MAX_ENTRIES entries and PROV_IMAGE_MAX_BYTES bytes of file
 * data in all (the environment variables PROVENANCE_IMAGE_MAX_ENTRIES and
 * PROVENANCE_IMAGE_MAX_BYTES lower or raise them); past either, PROV_EINPUT.
 */

#define PROV_IMAGE_MAX_ENTRIES 2000000
#define PROV_IMAGE_MAX_BYTES ((unsigned long long)16 << 30)

struct prov_image {
	const char *kind;	/* "oci", "oci-archive", "docker-archive", "dir" */
	char *digest;	/* "sha256:<hex>": the manifest's (docker: the config's); NULL for "dir" */
	char *ref;	/* the tag named after the path, else NULL */
	char *root;	/* the directory to read as the root */
};

/*
 * Open `spec` (--sysroot's value) as a root. cache_dir is where images are
 * unpacked (NULL: only a directory is accepted). 0 and *img filled (free
 * with prov_image_release); PROV_EINPUT with one line naming what is wrong.
 */
int prov_image_open(struct prov_image *img, const char *spec, const char *cache_dir);
void prov_image_release(struct prov_image *img);

/* ---- image-layer.c ---- */

struct prov_image_budget {
	unsigned long long entries_left, bytes_left;
	unsigned long skipped;	/* device nodes, FIFOs, sockets */
};

/* The budget from the defaults and the environment. */
void prov_image_budget_init(struct prov_image_budget *b);

/*
 * Apply the tar `layer` (any compression libarchive reads) onto the
 * directory rootfd: whiteouts remove what they name, other entries are
 * written, confined to rootfd. `what` names the layer in messages.
 * 0, or PROV_EINPUT / PROV_ERROR with the message set.
 */
int prov_image_apply_layer(int rootfd, const char *layer, const char *what,
			   struct prov_image_budget *b);

/*
 * Unpack the outer tar of an archive image (regular files and directories
 * only) into the directory dirfd. 0, or PROV_EINPUT with the message set.
 */
int prov_image_unpack_outer(int dirfd, const char *archive, struct prov_image_budget *b);

#endif
