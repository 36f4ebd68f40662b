#ifndef PROV_HUNKS_H
#define PROV_HUNKS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The hunks of a unified diff (git's or a quilt patch) and whether each one's
 * effect is in a file: the in-process, per-hunk, whitespace-blind version of
 * `git apply --check --reverse` (present) and `patch --dry-run` with fuzz
 * (absent), plus a comparison by the changed lines alone for backports whose
 * context drifted (docs/fixcheck.md).
 *
 * Lines are compared with every blank (space, tab, CR, ...) removed; lines
 * that are empty then are skipped on both sides.
 */
struct prov_hunk {
	char *path;	/* the file the hunk is in (new name; old name for a deletion), first -p components stripped */
	char *old_path;	/* NULL for a new file */
	char *header;	/* "@@ -a,b +c,d @@" */
	char *function;	/* the text after the header's second "@@", trimmed, or NULL */
	long old_start, new_start;
	char *origin;	/* ' ', '-' or '+' per line */
	char **lines;	/* without origin and newline */
	size_t n;
	int new_file;	/* "--- /dev/null" */
	int deleted_file;	/* "+++ /dev/null" */
};

struct prov_hunks {
	struct prov_hunk *v;
	size_t n;
};

#define PROV_HUNKS_MAX 20000	/* hunks kept per diff; the rest are dropped */
#define PROV_HUNK_MAX_LINES 100000	/* lines per hunk */
#define PROV_HUNKS_MAX_TEXT ((size_t)64 << 20)
#define PROV_HUNK_FUZZY_MAX 2000	/* larger hunks are compared exactly only */

/*
 * Parse `text`: "--- "/"+++ " pairs followed by "@@ -a,b +c,d @@" hunks;
 * anything else (DEP-3 headers, "diff --git", "index", "Index:") is
 * skipped. strip: path components dropped from the "+++"/"---" names (1 for
 * git's a/ b/). Never fails: a cut hunk ends where its lines end; NUL bytes
 * end the text. Release with prov_hunks_release.
 */
void prov_hunks_parse(struct prov_hunks *out, const char *text, size_t len, int strip);
void prov_hunks_release(struct prov_hunks *h);

/* A file's lines, normalised once for many hunks. */
struct prov_hunk_file {
	uint64_t *hash;	/* non-empty normalised lines only */
	size_t n;
	/* their tokens (identifiers, numbers, operators), hashed and sorted, for
	 * lines changed a little (another variable name): tok[i][0..ntok[i]) */
	uint32_t **tok;
	unsigned char *ntok;
	uint32_t *vocab;	/* every token of the file, sorted, once each */
	size_t nvocab;
};

void prov_hunk_file_init(struct prov_hunk_file *f, const char *text, size_t len);
void prov_hunk_file_release(struct prov_hunk_file *f);

enum prov_hunk_state {
	PROV_HUNK_UNKNOWN = 0,
	PROV_HUNK_PRESENT_EXACT,	/* its post-image (context and + lines) is in the file */
	PROV_HUNK_PRESENT_CHANGED,	/* its + lines are there, near each other, and its - lines are gone from
					 * there; or each changed line's token change is made on a like line */
	PROV_HUNK_ABSENT,	/* it would apply forward with fuzz, or its - lines are there and its + lines are not */
	PROV_HUNK_TEST_ONLY	/* not a state of prov_hunk_match: a test file's hunk, missing */
};

/* "present-exact", "present-changed-lines", "absent", "test-only", "unknown" (static). */
const char *prov_hunk_state_name(enum prov_hunk_state s);

/*
 * The state of hunk h in file f (NULL: the file does not exist there: a new
 * file's hunk is absent, a deleted file's present, any other unknown). Work
 * is O(file lines x hunk lines), no allocation beyond the hunk's size.
 */
enum prov_hunk_state prov_hunk_match(const struct prov_hunk *h, const struct prov_hunk_file *f);
/*
 * The same, knowing the fix's own file before (pre) and after (post) it
 * (either may be NULL): a + line the file already had before the fix, or
 * a - line it still has after, is no evidence (it is found in the deployed
 * file whether the fix is there or not); a line changed a little counts
 * only when the tokens it brings that the file did not have are there.
 */
enum prov_hunk_state prov_hunk_match_fix(const struct prov_hunk *h, const struct prov_hunk_file *f,
					 const struct prov_hunk_file *pre, const struct prov_hunk_file *post);
/*
 * The same; *how (may be NULL) says on what a verdict rests when it is weaker
 * than a pre- or post-image found: PROV_HUNK_BY_CODE_AROUND for "absent" by
 * the code around the hunk only (its two context lines still adjacent, or its
 * distinctive - lines still there with the context drifted: a distribution
 * patch naming the fix outweighs it; also the whole pre-image found when
 * the fix's own file has it more than once before the fix or still after
 * it: it may be another place), PROV_HUNK_BY_TOKENS for "present" by
 * lines changed a little (token changes), found anywhere in f (the caller may
 * check that it is in the hunk's function); else 0.
 */
#define PROV_HUNK_BY_CODE_AROUND 1u
#define PROV_HUNK_BY_TOKENS 2u
enum prov_hunk_state prov_hunk_match_fix_ex(const struct prov_hunk *h, const struct prov_hunk_file *f,
					    const struct prov_hunk_file *pre, const struct prov_hunk_file *post,
					    unsigned *how);

/*
 * 1 when hunk h's change is in text[0..len) (the deployed code where it goes:
 * its function, or the whole file) with its lines re-wrapped (joined, split,
 * re-indented): each block of + lines, as one stream of C tokens (blanks,
 * line breaks and comments left out; literals whole), is there, block after
 * block in order; a block that says something (5 tokens, one word of 4
 * bytes) is there once and is not in pre[0..pre_len) (the fix's file before
 * it; NULL: not known), at least one such; and no block of - lines is there
 * as a stream outside the + blocks found. A token changed is no match.
 * Linear in len + pre_len per block (at most 16 blocks; hunks over
 * PROV_HUNK_FUZZY_MAX lines: 0).
 */
int prov_hunk_rewrapped(const struct prov_hunk *h, const char *text, size_t len, const char *pre, size_t pre_len);

/*
 * 1 when the code hunk h changes is not in file f at all (a hunk a backport
 * drops because the release does not have that code yet): none of its
 * distinctive context or - lines is there, nor a line like a - line.
 */
int prov_hunk_not_applicable(const struct prov_hunk *h, const struct prov_hunk_file *f);

/*
 * 1 when hunks later[0..n) (a whole patch applied after the one carrying
 * `fix`, that removes fix's + lines again) put back what `fix` removed: its
 * - lines that say something are all among their + lines; for a fix that
 * only adds, when they add nothing. A revert, not a change of the fix.
 */
int prov_hunk_restores_removed(const struct prov_hunk *later, size_t n, const struct prov_hunk *fix);
/*
 * 1 when the names hunk `fix` brings into its file (identifiers of four
 * bytes or more in its + lines that the fix's own file before it, pre,
 * lacks; at least two) are all among the + lines of hunks by[0..nby) (a
 * patch naming the fix that rewrote the hunk: a test converted to another
 * framework, another type): the hunk's new code is there, written another way.
 */
int prov_hunk_names_added_by(const struct prov_hunk *fix, const struct prov_hunk_file *pre,
			     const struct prov_hunk *const *by, size_t nby);
/*
 * 1 when hunk `fix` brings names into its file (identifiers its file
 * before the fix, pre, lacks; at least one, one of its + lines having a name
 * of eight bytes or more) none of which is in the deployed file f nor in
 * the + lines of hunks by[0..nby) (the patches naming the fix): the
 * backport did without the fix's own mechanism (another variable, another
 * flag) in that hunk.
 */
int prov_hunk_names_nowhere(const struct prov_hunk *fix, const struct prov_hunk_file *pre,
			    const struct prov_hunk_file *f, const struct prov_hunk *const *by, size_t nby);
/* 1 when h changes blanks only (lines of blanks added or removed, lines re-indented). */
int prov_hunk_blanks_only(const struct prov_hunk *h);
/* 1 when every changed line of h is a comment only (a C-style comment's line). */
int prov_hunk_comments_only(const struct prov_hunk *h);
/*
 * 1 for a documentation file: NEWS, ChangeLog, CHANGES, RELEASE-NOTES,
 * README, ... (with any extension), *.md, *.rst, *.adoc, *.html, man
 * pages (*.1, *.3, *.5, *.8), anything under a doc/, docs/ or man/ directory.
 */
int prov_hunk_is_doc_path(const char *path);
/* 1 for a test file: a tests/, test/, testsuite/, testing/ directory, *_test.*, test_*.*, *_tests.*, *.test. */
int prov_hunk_is_test_path(const char *path);

/*
 * An addition not made, by the code around it in one function: h only adds
 * one block of lines (one distinctive at least); the nearest context lines
 * around it that say where are in fd (the deployed function) with only
 * lines like the hunk's between them (braces: their number may differ),
 * at one place there and at one place in fpre (the fix's own function
 * before it); no distinctive + line is in fd, and no more lines like one
 * (token similarity 0.7) than in fpre. pre, post: the fix's whole file
 * before and after it, for what is distinctive (may be NULL).
 */
int prov_hunk_addition_absent_in(const struct prov_hunk *h, const struct prov_hunk_file *fd,
				 const struct prov_hunk_file *fpre, const struct prov_hunk_file *pre,
				 const struct prov_hunk_file *post);
/*
 * How often h's pre-image (post: its post-image), blank lines aside, is in f:
 * 0, 1, or 2 for several; -1 when it says too little to be looked for in
 * any file (fewer than 3 lines of 4 letters or digits, or no change but
 * blanks).
 */
int prov_hunk_image_count(const struct prov_hunk *h, const struct prov_hunk_file *f, int post);
/*
 * The longest run of non-blank bytes on the lines of h's pre-image (post:
 * post-image): a file whose raw text lacks it cannot have that image
 * (blanks aside). Its length, 0 when none; *key points into h.
 */
size_t prov_hunk_image_key(const struct prov_hunk *h, int post, const char **key);

/*
 * 1 when hunk `patch` (of a distribution patch) carries the changed lines
 * of `fix`: the fix's distinctive + lines are among the patch's + lines
 * and its distinctive - lines among the patch's - lines (for a hunk with
 * only trivial changed lines: all of them).
 */
int prov_hunk_carries(const struct prov_hunk *patch, const struct prov_hunk *fix);

/*
 * 1 when the - lines of hunks later[0..n) (of a patch applied after the
 * one carrying `fix`) remove the + lines of hunk `fix` again: its
 * distinctive ones (when it has none, every + line with enough letters and
 * digits to say something, at least two of those), at least one; all but
 * one (changed in between by another patch) when at least three others are.
 */
int prov_hunk_removes_added(const struct prov_hunk *const *later, size_t n, const struct prov_hunk *fix);

#endif
