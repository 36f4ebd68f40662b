/*
 * libcurl and libdebuginfod, loaded on first use.
 *
 * Linking them costs every run about 20 shared libraries (both curl
 * flavours: libdebuginfod uses libcurl-gnutls, we use libcurl; GnuTLS,
 * OpenSSL's libssl, Kerberos, LDAP, ...) and their symbol relocations:
 * about a third of a whole text `resolve`, which downloads nothing. So the
 * program is not linked with them: this file defines the few functions of
 * theirs that we call, under their own names and prototypes (so callers
 * include <curl/curl.h> and <elfutils/debuginfod.h> as usual), and each
 * one dlopen()s the real library on its first call and forwards to it.
 * This is what elfutils' libdwfl itself does for libdebuginfod.
 *
 * These definitions are not exported (the program is not linked with
 * -rdynamic), so the real libraries, once loaded, keep calling their own
 * functions. When a library cannot be loaded, one warning says why and the
 * functions return the library's own failure values (NULL, an error code),
 * which the callers handle already. Single-threaded, as the program is.
 * A new function: add its name to the list and a stub below.
 *
 * libpq (the PostgreSQL store), libarchive (compressed inputs, source
 * package imports), capstone and libopcodes (disassembly of the crash
 * site) are loaded the same way: linked, they and theirs (Kerberos, LDAP,
 * GnuTLS, libxml2 and ICU, BFD, capstone's 77,000 relocations) were 7 of
 * the 10 ms that `provenance --version` took before its first byte. So is
 * libstdc++, for its demangler only (C++ symbols: _Z...), libsystemd,
 * for sd-journal only (`import --journal`: systemd-coredump's entries), and
 * libsquashfs (squashfs and SIF images as --sysroot; it brings liblz4).
 */
#define CURL_DISABLE_TYPECHECK	/* curl_easy_setopt is a function here, not a macro */

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>

#include <archive.h>
#include <archive_entry.h>
#include <capstone.h>
#include <curl/curl.h>
#include <dis-asm.h>
#include <elfutils/debuginfod.h>
#include <libpq-fe.h>
#include <systemd/sd-journal.h>
#include <sqfs/compressor.h>
#include <sqfs/data_reader.h>
#include <sqfs/dir_reader.h>
#include <sqfs/error.h>
#include <sqfs/inode.h>
#include <sqfs/super.h>

#include "error.h"
#include "banned.h"

struct lazylib {
	const char *soname;
	void *handle;
	int tried;
};

static struct lazylib curl_lib = { "libcurl.so.4", NULL, 0 };
static struct lazylib dbgd_lib = { "libdebuginfod.so.1", NULL, 0 };

/* The Makefile passes the sonames it linked against; these are Debian 12's. */
#ifndef SONAME_PQ
#define SONAME_PQ "libpq.so.5"
#endif
#ifndef SONAME_ARCHIVE
#define SONAME_ARCHIVE "libarchive.so.13"
#endif
#ifndef SONAME_CAPSTONE
#define SONAME_CAPSTONE "libcapstone.so.4"
#endif
#ifndef SONAME_OPCODES
#define SONAME_OPCODES "libopcodes-2.40-system.so"
#endif
static struct lazylib pq_lib = { SONAME_PQ, NULL, 0 };
static struct lazylib archive_lib = { SONAME_ARCHIVE, NULL, 0 };
static struct lazylib cs_lib = { SONAME_CAPSTONE, NULL, 0 };
static struct lazylib opcodes_lib = { SONAME_OPCODES, NULL, 0 };
#ifndef SONAME_SQUASHFS
#define SONAME_SQUASHFS "libsquashfs.so.1"
#endif
static struct lazylib sqfs_lib = { SONAME_SQUASHFS, NULL, 0 };
static struct lazylib stdcxx_lib = { "libstdc++.so.6", NULL, 0 };
static struct lazylib systemd_lib = { "libsystemd.so.0", NULL, 0 };

/* The function `name` of `lib`, loading it first; NULL (warned once) if not there. */
static void *lazy_sym(struct lazylib *lib, const char *name)
{
	void *fn;

	if (!lib->tried) {
		lib->tried = 1;
		/* RTLD_LOCAL: its symbols must not interpose anyone else's */
		if (!(lib->handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL)))
			prov_warn("cannot load %s: %s", lib->soname, dlerror());
	}
	if (!lib->handle)
		return NULL;
	if (!(fn = dlsym(lib->handle, name)))
		prov_warn("%s has no %s: %s", lib->soname, name, dlerror());
	return fn;
}

/* The pointer to `name` in `lib`, looked up once, typed as `var`. */
#define LAZY(lib, var, name)                                              \
	static __typeof__(&name) var;                                     \
	static int var##_looked;                                          \
	if (!var##_looked) {                                              \
		var##_looked = 1;                                         \
		*(void **)&var = lazy_sym(&(lib), #name);                 \
	}

/* ---- libcurl ---- */

CURLcode curl_global_init(long flags)
{
	LAZY(curl_lib, fn, curl_global_init);
	return fn ? fn(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void)
{
	LAZY(curl_lib, fn, curl_easy_init);
	return fn ? fn() : NULL;
}

/* The one variadic argument's type is given by the option's range (curl.h's CURLOPTTYPE_*). */
CURLcode curl_easy_setopt(CURL *curl, CURLoption option, ...)
{
	CURLcode rc = CURLE_FAILED_INIT;
	va_list ap;

	LAZY(curl_lib, fn, curl_easy_setopt);
	if (!fn)
		return rc;
	va_start(ap, option);
	if (option < CURLOPTTYPE_OBJECTPOINT)
		rc = fn(curl, option, va_arg(ap, long));
	else if (option < CURLOPTTYPE_FUNCTIONPOINT)
		rc = fn(curl, option, va_arg(ap, void *));
	else if (option < CURLOPTTYPE_OFF_T)
		rc = fn(curl, option, va_arg(ap, void (*)(void)));
	else if (option < CURLOPTTYPE_BLOB)
		rc = fn(curl, option, va_arg(ap, curl_off_t));
	else
		rc = fn(curl, option, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

CURLcode curl_easy_perform(CURL *curl)
{
	LAZY(curl_lib, fn, curl_easy_perform);
	return fn ? fn(curl) : CURLE_FAILED_INIT;
}

/* Every CURLINFO_* takes one pointer. */
CURLcode curl_easy_getinfo(CURL *curl, CURLINFO info, ...)
{
	CURLcode rc;
	va_list ap;

	LAZY(curl_lib, fn, curl_easy_getinfo);
	if (!fn)
		return CURLE_FAILED_INIT;
	va_start(ap, info);
	rc = fn(curl, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

const char *curl_easy_strerror(CURLcode code)
{
	LAZY(curl_lib, fn, curl_easy_strerror);
	return fn ? fn(code) : "libcurl could not be loaded";
}

void curl_easy_cleanup(CURL *curl)
{
	LAZY(curl_lib, fn, curl_easy_cleanup);
	if (fn)
		fn(curl);
}

/* ---- libdebuginfod ---- */

debuginfod_client *debuginfod_begin(void)
{
	LAZY(dbgd_lib, fn, debuginfod_begin);
	return fn ? fn() : NULL;
}

void debuginfod_end(debuginfod_client *client)
{
	LAZY(dbgd_lib, fn, debuginfod_end);
	if (fn)
		fn(client);
}

int debuginfod_find_debuginfo(debuginfod_client *client, const unsigned char *build_id,
			      int build_id_len, char **path)
{
	LAZY(dbgd_lib, fn, debuginfod_find_debuginfo);
	return fn ? fn(client, build_id, build_id_len, path) : -ENOSYS;
}

int debuginfod_find_executable(debuginfod_client *client, const unsigned char *build_id,
			       int build_id_len, char **path)
{
	LAZY(dbgd_lib, fn, debuginfod_find_executable);
	return fn ? fn(client, build_id, build_id_len, path) : -ENOSYS;
}

int debuginfod_find_source(debuginfod_client *client, const unsigned char *build_id,
			   int build_id_len, const char *filename, char **path)
{
	LAZY(dbgd_lib, fn, debuginfod_find_source);
	return fn ? fn(client, build_id, build_id_len, filename, path) : -ENOSYS;
}

void debuginfod_set_progressfn(debuginfod_client *client, debuginfod_progressfn_t fn_progress)
{
	LAZY(dbgd_lib, fn, debuginfod_set_progressfn);
	if (fn)
		fn(client, fn_progress);
}

/* ---- libpq ---- */

static char pq_missing[] = "libpq could not be loaded\n";
static char pq_empty[] = "";

void PQclear(PGresult *res)
{
	LAZY(pq_lib, fn, PQclear);
	if (fn)
		fn(res);
}

PGconn *PQconnectdb(const char *conninfo)
{
	LAZY(pq_lib, fn, PQconnectdb);
	return fn ? fn(conninfo) : NULL;
}

void PQconninfoFree(PQconninfoOption *connOptions)
{
	LAZY(pq_lib, fn, PQconninfoFree);
	if (fn)
		fn(connOptions);
}

PQconninfoOption *PQconninfoParse(const char *conninfo, char **errmsg)
{
	LAZY(pq_lib, fn, PQconninfoParse);
	return fn ? fn(conninfo, errmsg) : NULL;
}

int PQenterPipelineMode(PGconn *conn)
{
	LAZY(pq_lib, fn, PQenterPipelineMode);
	return fn ? fn(conn) : 0;
}

char *PQerrorMessage(const PGconn *conn)
{
	LAZY(pq_lib, fn, PQerrorMessage);
	return fn ? fn(conn) : pq_missing;
}

PGresult *PQexec(PGconn *conn, const char *query)
{
	LAZY(pq_lib, fn, PQexec);
	return fn ? fn(conn, query) : NULL;
}

PGresult *PQexecParams(PGconn *conn, const char *command, int nParams,
			const Oid *paramTypes, const char *const *paramValues,
			const int *paramLengths, const int *paramFormats, int resultFormat)
{
	LAZY(pq_lib, fn, PQexecParams);
	return fn ? fn(conn, command, nParams, paramTypes, paramValues, paramLengths,
		       paramFormats, resultFormat) : NULL;
}

int PQexitPipelineMode(PGconn *conn)
{
	LAZY(pq_lib, fn, PQexitPipelineMode);
	return fn ? fn(conn) : 0;
}

void PQfinish(PGconn *conn)
{
	LAZY(pq_lib, fn, PQfinish);
	if (fn)
		fn(conn);
}

char *PQfname(const PGresult *res, int field_num)
{
	LAZY(pq_lib, fn, PQfname);
	return fn ? fn(res, field_num) : NULL;
}

void PQfreemem(void *ptr)
{
	LAZY(pq_lib, fn, PQfreemem);
	if (fn)
		fn(ptr);
}

Oid PQftype(const PGresult *res, int field_num)
{
	LAZY(pq_lib, fn, PQftype);
	return fn ? fn(res, field_num) : 0;
}

PGresult *PQgetResult(PGconn *conn)
{
	LAZY(pq_lib, fn, PQgetResult);
	return fn ? fn(conn) : NULL;
}

int PQgetisnull(const PGresult *res, int tup_num, int field_num)
{
	LAZY(pq_lib, fn, PQgetisnull);
	return fn ? fn(res, tup_num, field_num) : 1;
}

char *PQgetvalue(const PGresult *res, int tup_num, int field_num)
{
	LAZY(pq_lib, fn, PQgetvalue);
	return fn ? fn(res, tup_num, field_num) : pq_empty;
}

int PQnfields(const PGresult *res)
{
	LAZY(pq_lib, fn, PQnfields);
	return fn ? fn(res) : 0;
}

int PQntuples(const PGresult *res)
{
	LAZY(pq_lib, fn, PQntuples);
	return fn ? fn(res) : 0;
}

int PQpipelineSync(PGconn *conn)
{
	LAZY(pq_lib, fn, PQpipelineSync);
	return fn ? fn(conn) : 0;
}

PGresult *PQprepare(PGconn *conn, const char *stmtName, const char *query, int nParams,
		     const Oid *paramTypes)
{
	LAZY(pq_lib, fn, PQprepare);
	return fn ? fn(conn, stmtName, query, nParams, paramTypes) : NULL;
}

int PQrequestCancel(PGconn *conn)
{
	LAZY(pq_lib, fn, PQrequestCancel);
	return fn ? fn(conn) : 0;
}

char *PQresultErrorField(const PGresult *res, int fieldcode)
{
	LAZY(pq_lib, fn, PQresultErrorField);
	return fn ? fn(res, fieldcode) : NULL;
}

ExecStatusType PQresultStatus(const PGresult *res)
{
	LAZY(pq_lib, fn, PQresultStatus);
	return fn ? fn(res) : PGRES_FATAL_ERROR;
}

int PQsendQueryParams(PGconn *conn, const char *command, int nParams,
		      const Oid *paramTypes, const char *const *paramValues,
		      const int *paramLengths, const int *paramFormats, int resultFormat)
{
	LAZY(pq_lib, fn, PQsendQueryParams);
	return fn ? fn(conn, command, nParams, paramTypes, paramValues, paramLengths,
		       paramFormats, resultFormat) : 0;
}

int PQsendQueryPrepared(PGconn *conn, const char *stmtName, int nParams,
			const char *const *paramValues, const int *paramLengths,
			const int *paramFormats, int resultFormat)
{
	LAZY(pq_lib, fn, PQsendQueryPrepared);
	return fn ? fn(conn, stmtName, nParams, paramValues, paramLengths, paramFormats,
		       resultFormat) : 0;
}

PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg)
{
	LAZY(pq_lib, fn, PQsetNoticeProcessor);
	return fn ? fn(conn, proc, arg) : NULL;
}

int PQsetSingleRowMode(PGconn *conn)
{
	LAZY(pq_lib, fn, PQsetSingleRowMode);
	return fn ? fn(conn) : 0;
}

ConnStatusType PQstatus(const PGconn *conn)
{
	LAZY(pq_lib, fn, PQstatus);
	return fn ? fn(conn) : CONNECTION_BAD;
}

/* ---- libarchive ---- */

__LA_MODE_T archive_entry_filetype(struct archive_entry *e)
{
	LAZY(archive_lib, fn, archive_entry_filetype);
	return fn ? fn(e) : 0;
}

const char *archive_entry_hardlink(struct archive_entry *e)
{
	LAZY(archive_lib, fn, archive_entry_hardlink);
	return fn ? fn(e) : NULL;
}

const char *archive_entry_pathname(struct archive_entry *e)
{
	LAZY(archive_lib, fn, archive_entry_pathname);
	return fn ? fn(e) : NULL;
}

const char *archive_entry_pathname_utf8(struct archive_entry *e)
{
	LAZY(archive_lib, fn, archive_entry_pathname_utf8);
	return fn ? fn(e) : NULL;
}

__LA_MODE_T archive_entry_perm(struct archive_entry *e)
{
	LAZY(archive_lib, fn, archive_entry_perm);
	return fn ? fn(e) : 0;
}

la_int64_t archive_entry_size(struct archive_entry *e)
{
	LAZY(archive_lib, fn, archive_entry_size);
	return fn ? fn(e) : 0;
}

int archive_entry_size_is_set(struct archive_entry *e)
{
	LAZY(archive_lib, fn, archive_entry_size_is_set);
	return fn ? fn(e) : 0;
}

const char *archive_entry_symlink(struct archive_entry *e)
{
	LAZY(archive_lib, fn, archive_entry_symlink);
	return fn ? fn(e) : NULL;
}

const char *archive_error_string(struct archive *a)
{
	LAZY(archive_lib, fn, archive_error_string);
	return fn ? fn(a) : "libarchive could not be loaded";
}

la_ssize_t archive_read_data(struct archive *a, void *buf, size_t len)
{
	LAZY(archive_lib, fn, archive_read_data);
	return fn ? fn(a, buf, len) : ARCHIVE_FATAL;
}

int archive_read_free(struct archive *a)
{
	LAZY(archive_lib, fn, archive_read_free);
	return fn ? fn(a) : ARCHIVE_FATAL;
}

struct archive *archive_read_new(void)
{
	LAZY(archive_lib, fn, archive_read_new);
	return fn ? fn() : NULL;
}

int archive_read_next_header(struct archive *a, struct archive_entry **e)
{
	LAZY(archive_lib, fn, archive_read_next_header);
	return fn ? fn(a, e) : ARCHIVE_FATAL;
}

int archive_read_open_filename(struct archive *a, const char *name, size_t block_size)
{
	LAZY(archive_lib, fn, archive_read_open_filename);
	return fn ? fn(a, name, block_size) : ARCHIVE_FATAL;
}

int archive_read_support_filter_all(struct archive *a)
{
	LAZY(archive_lib, fn, archive_read_support_filter_all);
	return fn ? fn(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_7zip(struct archive *a)
{
	LAZY(archive_lib, fn, archive_read_support_format_7zip);
	return fn ? fn(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_cpio(struct archive *a)
{
	LAZY(archive_lib, fn, archive_read_support_format_cpio);
	return fn ? fn(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_gnutar(struct archive *a)
{
	LAZY(archive_lib, fn, archive_read_support_format_gnutar);
	return fn ? fn(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_raw(struct archive *a)
{
	LAZY(archive_lib, fn, archive_read_support_format_raw);
	return fn ? fn(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_tar(struct archive *a)
{
	LAZY(archive_lib, fn, archive_read_support_format_tar);
	return fn ? fn(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_zip(struct archive *a)
{
	LAZY(archive_lib, fn, archive_read_support_format_zip);
	return fn ? fn(a) : ARCHIVE_FATAL;
}

/* ---- capstone ---- */

cs_err cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
	LAZY(cs_lib, fn, cs_open);
	return fn ? fn(arch, mode, handle) : CS_ERR_ARCH;
}

cs_err cs_option(csh handle, cs_opt_type type, size_t value)
{
	LAZY(cs_lib, fn, cs_option);
	return fn ? fn(handle, type, value) : CS_ERR_OPTION;
}

size_t cs_disasm(csh handle, const uint8_t *code, size_t code_size, uint64_t address,
		 size_t count, cs_insn **insn)
{
	LAZY(cs_lib, fn, cs_disasm);
	return fn ? fn(handle, code, code_size, address, count, insn) : 0;
}

cs_err cs_regs_access(csh handle, const cs_insn *insn, cs_regs regs_read, uint8_t *regs_read_count,
		      cs_regs regs_write, uint8_t *regs_write_count)
{
	LAZY(cs_lib, fn, cs_regs_access);
	return fn ? fn(handle, insn, regs_read, regs_read_count, regs_write, regs_write_count)
		  : CS_ERR_HANDLE;
}

void cs_free(cs_insn *insn, size_t count)
{
	LAZY(cs_lib, fn, cs_free);
	if (fn)
		fn(insn, count);
}

cs_err cs_close(csh *handle)
{
	LAZY(cs_lib, fn, cs_close);
	return fn ? fn(handle) : CS_ERR_HANDLE;
}

const char *cs_reg_name(csh handle, unsigned int reg_id)
{
	LAZY(cs_lib, fn, cs_reg_name);
	return fn ? fn(handle, reg_id) : NULL;
}

/* ---- libopcodes ---- */

disassembler_ftype disassembler(enum bfd_architecture arc, bool big, unsigned long mach,
				bfd *abfd)
{
	LAZY(opcodes_lib, fn, disassembler);
	return fn ? fn(arc, big, mach, abfd) : NULL;
}

void init_disassemble_info(struct disassemble_info *dinfo, void *stream,
			   fprintf_ftype fprintf_func, fprintf_styled_ftype fprintf_styled_func)
{
	LAZY(opcodes_lib, fn, init_disassemble_info);
	if (fn)
		fn(dinfo, stream, fprintf_func, fprintf_styled_func);
}

void disassemble_init_for_target(struct disassemble_info *dinfo)
{
	LAZY(opcodes_lib, fn, disassemble_init_for_target);
	if (fn)
		fn(dinfo);
}

int buffer_read_memory(bfd_vma memaddr, bfd_byte *myaddr, unsigned int length,
		       struct disassemble_info *info)
{
	LAZY(opcodes_lib, fn, buffer_read_memory);
	return fn ? fn(memaddr, myaddr, length, info) : EIO;
}

/* ---- libstdc++ (the C++ ABI's demangler) ---- */

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status)
{
	LAZY(stdcxx_lib, fn, __cxa_demangle);
	if (fn)
		return fn(mangled, buf, len, status);
	if (status)
		*status = -1;	/* as for a bad argument: the caller keeps the name */
	return NULL;
}

/* ---- libsystemd (sd-journal) ---- */

int sd_journal_open(sd_journal **ret, int flags)
{
	LAZY(systemd_lib, fn, sd_journal_open);
	return fn ? fn(ret, flags) : -ENOSYS;
}

int sd_journal_open_directory(sd_journal **ret, const char *path, int flags)
{
	LAZY(systemd_lib, fn, sd_journal_open_directory);
	return fn ? fn(ret, path, flags) : -ENOSYS;
}

void sd_journal_close(sd_journal *j)
{
	LAZY(systemd_lib, fn, sd_journal_close);
	if (fn)
		fn(j);
}

int sd_journal_add_match(sd_journal *j, const void *data, size_t size)
{
	LAZY(systemd_lib, fn, sd_journal_add_match);
	return fn ? fn(j, data, size) : -ENOSYS;
}

int sd_journal_seek_head(sd_journal *j)
{
	LAZY(systemd_lib, fn, sd_journal_seek_head);
	return fn ? fn(j) : -ENOSYS;
}

int sd_journal_seek_cursor(sd_journal *j, const char *cursor)
{
	LAZY(systemd_lib, fn, sd_journal_seek_cursor);
	return fn ? fn(j, cursor) : -ENOSYS;
}

int sd_journal_test_cursor(sd_journal *j, const char *cursor)
{
	LAZY(systemd_lib, fn, sd_journal_test_cursor);
	return fn ? fn(j, cursor) : -ENOSYS;
}

int sd_journal_next(sd_journal *j)
{
	LAZY(systemd_lib, fn, sd_journal_next);
	return fn ? fn(j) : -ENOSYS;
}

int sd_journal_get_cursor(sd_journal *j, char **cursor)
{
	LAZY(systemd_lib, fn, sd_journal_get_cursor);
	return fn ? fn(j, cursor) : -ENOSYS;
}

int sd_journal_get_realtime_usec(sd_journal *j, uint64_t *ret)
{
	LAZY(systemd_lib, fn, sd_journal_get_realtime_usec);
	return fn ? fn(j, ret) : -ENOSYS;
}

int sd_journal_set_data_threshold(sd_journal *j, size_t sz)
{
	LAZY(systemd_lib, fn, sd_journal_set_data_threshold);
	return fn ? fn(j, sz) : -ENOSYS;
}

int sd_journal_enumerate_data(sd_journal *j, const void **data, size_t *l)
{
	LAZY(systemd_lib, fn, sd_journal_enumerate_data);
	return fn ? fn(j, data, l) : -ENOSYS;
}

void sd_journal_restart_data(sd_journal *j)
{
	LAZY(systemd_lib, fn, sd_journal_restart_data);
	if (fn)
		fn(j);
}

int sd_journal_get_data(sd_journal *j, const char *field, const void **data, size_t *l)
{
	LAZY(systemd_lib, fn, sd_journal_get_data);
	return fn ? fn(j, field, data, l) : -ENOSYS;
}

/* ---- libsquashfs ---- */

void sqfs_free(void *ptr)
{
	LAZY(sqfs_lib, fn, sqfs_free);
	if (fn)
		fn(ptr);
}

int sqfs_super_read(sqfs_super_t *super, sqfs_file_t *file)
{
	LAZY(sqfs_lib, fn, sqfs_super_read);
	return fn ? fn(super, file) : SQFS_ERROR_INTERNAL;
}

int sqfs_compressor_config_init(sqfs_compressor_config_t *cfg, SQFS_COMPRESSOR id, size_t block_size,
				sqfs_u16 flags)
{
	LAZY(sqfs_lib, fn, sqfs_compressor_config_init);
	return fn ? fn(cfg, id, block_size, flags) : SQFS_ERROR_INTERNAL;
}

int sqfs_compressor_create(const sqfs_compressor_config_t *cfg, sqfs_compressor_t **out)
{
	LAZY(sqfs_lib, fn, sqfs_compressor_create);
	return fn ? fn(cfg, out) : SQFS_ERROR_INTERNAL;
}

sqfs_dir_reader_t *sqfs_dir_reader_create(const sqfs_super_t *super, sqfs_compressor_t *cmp, sqfs_file_t *file,
					  sqfs_u32 flags)
{
	LAZY(sqfs_lib, fn, sqfs_dir_reader_create);
	return fn ? fn(super, cmp, file, flags) : NULL;
}

int sqfs_dir_reader_open_dir(sqfs_dir_reader_t *rd, const sqfs_inode_generic_t *inode, sqfs_u32 flags)
{
	LAZY(sqfs_lib, fn, sqfs_dir_reader_open_dir);
	return fn ? fn(rd, inode, flags) : SQFS_ERROR_INTERNAL;
}

int sqfs_dir_reader_read(sqfs_dir_reader_t *rd, sqfs_dir_entry_t **out)
{
	LAZY(sqfs_lib, fn, sqfs_dir_reader_read);
	return fn ? fn(rd, out) : SQFS_ERROR_INTERNAL;
}

int sqfs_dir_reader_get_inode(sqfs_dir_reader_t *rd, sqfs_inode_generic_t **inode)
{
	LAZY(sqfs_lib, fn, sqfs_dir_reader_get_inode);
	return fn ? fn(rd, inode) : SQFS_ERROR_INTERNAL;
}

int sqfs_dir_reader_find_by_path(sqfs_dir_reader_t *rd, const sqfs_inode_generic_t *start, const char *path,
				 sqfs_inode_generic_t **out)
{
	LAZY(sqfs_lib, fn, sqfs_dir_reader_find_by_path);
	return fn ? fn(rd, start, path, out) : SQFS_ERROR_INTERNAL;
}

int sqfs_dir_reader_get_root_inode(sqfs_dir_reader_t *rd, sqfs_inode_generic_t **inode)
{
	LAZY(sqfs_lib, fn, sqfs_dir_reader_get_root_inode);
	return fn ? fn(rd, inode) : SQFS_ERROR_INTERNAL;
}

sqfs_data_reader_t *sqfs_data_reader_create(sqfs_file_t *file, size_t block_size, sqfs_compressor_t *cmp,
					    sqfs_u32 flags)
{
	LAZY(sqfs_lib, fn, sqfs_data_reader_create);
	return fn ? fn(file, block_size, cmp, flags) : NULL;
}

int sqfs_data_reader_load_fragment_table(sqfs_data_reader_t *data, const sqfs_super_t *super)
{
	LAZY(sqfs_lib, fn, sqfs_data_reader_load_fragment_table);
	return fn ? fn(data, super) : SQFS_ERROR_INTERNAL;
}

sqfs_s32 sqfs_data_reader_read(sqfs_data_reader_t *data, const sqfs_inode_generic_t *inode, sqfs_u64 offset,
			       void *buffer, sqfs_u32 size)
{
	LAZY(sqfs_lib, fn, sqfs_data_reader_read);
	return fn ? fn(data, inode, offset, buffer, size) : SQFS_ERROR_INTERNAL;
}

int sqfs_inode_get_file_size(const sqfs_inode_generic_t *inode, sqfs_u64 *size)
{
	LAZY(sqfs_lib, fn, sqfs_inode_get_file_size);
	return fn ? fn(inode, size) : SQFS_ERROR_INTERNAL;
}
