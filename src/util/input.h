#ifndef PROV_INPUT_H
#define PROV_INPUT_H

#include <stdint.h>

#include "buf.h"

/*
 * Input detection by content, not by name: an ELF core, a core compressed
 * with zstd, xz, lz4 or gzip (systemd-coredump's storage), or text. "-" reads
 * standard input. Compressed cores are decompressed (libarchive, sparse-aware:
 * runs of zeros become holes) into a temporary file in `tmpdir`, removed by
 * prov_input_release().
 */
enum prov_input_type {
	PROV_INPUT_TYPE_CORE,
	PROV_INPUT_TYPE_TEXT,
};

struct prov_input {
	enum prov_input_type type;
	char *name;	/* as the user gave it ("-" for stdin) */
	char *path;	/* core: the file to analyze (the temporary one when decompressed) */
	char *compression;	/* "zstd", "xz", "lz4", "gzip" or NULL */
	char *tmpfile;	/* to remove, or NULL */
	/* tmpfile's lock file (tmpfile + ".lock"), held with flock while it lives */
	int has_lock, lock_fd;
	struct prov_buf text;	/* text input */
};

#define PROV_INPUT_MAX_TEXT ((size_t)64 << 20)
#define PROV_INPUT_DEFAULT_MAX_CORE ((uint64_t)64 << 30)
/* a named FIFO as INPUT must have data (or a closed writer) within this */
#define PROV_INPUT_FIFO_WAIT_MS 2000

/*
 * Open `name`. `tmpdir` receives decompressed cores (created 0700 if
 * missing). `max_core` caps the decompressed size (PROV_ELIMIT beyond it).
 * PROV_EINPUT: missing, unreadable, empty, an ELF file that is not a core,
 * a compressed file that does not decompress, binary data that is not a core.
 */
int prov_input_open(struct prov_input *out, const char *name, const char *tmpdir,
		    uint64_t max_core);
void prov_input_release(struct prov_input *in);

/*
 * Remove temporaries of runs that are gone from `tmpdir`. A run holds an
 * exclusive flock on input-PID-START-XXXXXX.lock for as long as its
 * input-PID-START-XXXXXX lives, so a temporary is removed only when nobody
 * holds its lock: a run in another PID namespace, container or host sharing
 * the cache (an NFS home) keeps its file, whatever its pid means here.
 * Files without a lock file (older versions) are judged by pid and start
 * time as before. Every prov_input_open and `cache clear` call it. Returns
 * how many temporaries were removed.
 */
int prov_input_remove_stale(const char *tmpdir);

struct prov_config;
/* The cap on a decompressed core: config core.maxSize (bytes), else the default. */
uint64_t prov_input_max_core(const struct prov_config *cfg);

#endif
