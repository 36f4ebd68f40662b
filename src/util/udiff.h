#ifndef PROV_UDIFF_H
#define PROV_UDIFF_H

#include <stddef.h>

/*
 * The one unified-diff reader (git's diffs, quilt and patch(1) patches,
 * format-patch mails): an iterator that yields the files ("--- "/"+++ "
 * pairs), the hunks ("@@ -a,b +c,d @@") and their lines, in order, so that
 * each caller (the hunk matcher, per-file patch ids, the quilt importer)
 * keeps its own policy and none keeps its own parser. It allocates only the
 * two path names of the current file.
 *
 * Names: cut at a tab (a timestamp follows) or CR, trailing blanks dropped;
 * "/dev/null" is the missing side of an added or deleted file. The first
 * `strip` components are dropped (patch -pN; repeated slashes count as one),
 * then the name is normalised (prov_path_normalize) and refused when it is
 * empty, absolute, climbs out (".." first), or is quoted (git's C-quoted
 * names are not unquoted). A refused side makes the file not usable: its
 * hunks are reported as PROV_UDIFF_OTHER lines. With
 * PROV_UDIFF_STRIP_AT_MOST, a name with fewer components than `strip` keeps
 * what it has instead of being refused.
 *
 * Hunk headers: "@@ -A[,B] +C[,D] @@ function"; an omitted count is 1; each
 * number has at most 9 digits and is at most PROV_UDIFF_MAX_NUM; blanks
 * before the closing "@@" are optional. A header that is not one, after a
 * usable file, is PROV_UDIFF_BAD_HUNK.
 *
 * Hunk bodies: ' ', '-' and '+' lines as the header counts them; an empty
 * line is a context line whose blank was trimmed; "\ No newline at end of
 * file" lines (any line starting with '\', inside a hunk or right after it)
 * are PROV_UDIFF_NOEOL and not counted. A line that is none of these while
 * the counts are not used up ends the hunk (PROV_UDIFF_CUT; the line is
 * then read again); so does the end of the text. A count may go below zero
 * when the other side still has lines (old_left, new_left say so).
 */

#define PROV_UDIFF_MAX_NUM 100000000L

enum prov_udiff_event {
	PROV_UDIFF_END = 0,	/* no more text */
	PROV_UDIFF_FILE,	/* a "--- "/"+++ " pair (two lines): old_path, new_path, file_ok */
	PROV_UDIFF_HUNK,	/* a hunk header: the PROV_UDIFF_HUNK fields */
	PROV_UDIFF_BAD_HUNK,	/* "@@ -" after a usable file, but not a hunk header */
	PROV_UDIFF_LINE,	/* a hunk line: origin, text */
	PROV_UDIFF_NOEOL,	/* a '\' line in or right after a hunk */
	PROV_UDIFF_CUT,	/* the hunk ended before its counts: line is the line that ended it (NULL at the end) */
	PROV_UDIFF_GIT,	/* a "diff --git " line outside a hunk (a git section starts) */
	PROV_UDIFF_OTHER	/* anything else: descriptions, "Index:", "index", git extended headers */
};

enum prov_udiff_flags {
	PROV_UDIFF_STRIP_AT_MOST = 1 << 0	/* strip up to `strip` components, keep a shorter name whole */
};

struct prov_udiff {
	/* the text still to read */
	const char *p, *end;
	int strip;
	unsigned flags;
	/* every event: its first line, without the newline (len 0 and NULL at a CUT at the end) */
	const char *line;
	size_t len;
	/* PROV_UDIFF_FILE, kept until the next one */
	char *old_path, *new_path;	/* stripped and checked; NULL for /dev/null or a refused name */
	int new_file, deleted_file;	/* "--- /dev/null", "+++ /dev/null" */
	int file_ok;	/* both sides a usable name or /dev/null, not both /dev/null: hunks may follow */
	const char *old_raw, *new_raw;	/* the names as written (cut at a tab, trailing blanks dropped) */
	size_t old_raw_len, new_raw_len;
	/* PROV_UDIFF_HUNK */
	long old_start, old_count, new_start, new_count;
	size_t header_len;	/* of line up to and with the closing "@@" */
	const char *function;	/* the text after the closing "@@", trimmed, or NULL */
	size_t function_len;
	long old_left, new_left;	/* lines the header still counts */
	int in_hunk;	/* counts not used up */
	int after_hunk;	/* the last hunk line was just read: a '\' line is still the hunk's */
	/* PROV_UDIFF_LINE */
	char origin;	/* ' ', '-', '+' */
	const char *text;	/* the line without its origin */
	size_t text_len;
};

/* Start reading text[0..len) (a NUL byte ends it). Release with prov_udiff_release. */
void prov_udiff_init(struct prov_udiff *d, const char *text, size_t len, int strip, unsigned flags);
void prov_udiff_release(struct prov_udiff *d);

/* The next event (enum prov_udiff_event); PROV_UDIFF_END once the text is read. Never fails. */
int prov_udiff_next(struct prov_udiff *d);

/* Stop reading the current hunk: its remaining lines are read as if outside it. */
void prov_udiff_end_hunk(struct prov_udiff *d);

/*
 * One side's name of a "--- "/"+++ " line (the 4-byte prefix included), by
 * the rules above: 0 with *out a copy (NULL for /dev/null, *dev_null 1);
 * -1 when refused. Caller frees *out.
 */
int prov_udiff_path(char **out, int *dev_null, const char *line, size_t len, int strip, unsigned flags);

/* Whether a line starts a diff ("---", "--- ", "+++ ", "diff ", "Index: ", "@@ -"): where a patch's header ends. */
int prov_udiff_is_diff_start(const char *line, size_t len);

#endif
