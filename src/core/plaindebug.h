#ifndef PROV_PLAINDEBUG_H
#define PROV_PLAINDEBUG_H

/*
 * Debug files whose DWARF sections are compressed (SHF_COMPRESSED, as
 * Debian's -dbg and -dbgsym packages ship them) kept uncompressed in the
 * cache directory. libdw inflates every debug section of a file when it
 * opens it (dwarf_begin_elf): on a small core that is most of the run
 * (libc's debug file: 20 ms; python3.11's: 100 ms and 50 MiB). An
 * uncompressed copy is mapped instead: only the pages read are touched.
 */

/*
 * A descriptor of the uncompressed copy in dir of the debug file at path,
 * whose module has the build ID id (idlen bytes), made now when not there
 * yet ("<build-id>-<size>-<mtime>.debug"); -1 when path is missing, has no
 * compressed section, is too large, has another build ID, or the cache
 * cannot be written: the caller then opens path as it would have.
 */
int prov_plain_debug_open(const char *dir, const unsigned char *id, int idlen, const char *path);

#endif
