#!/usr/bin/env bash
# fixcheck says "not included" only with proof, and finds the proof where the
# exact pre-image of a hunk is gone (issue 21, the missing-fix half). Two
# Debian revisions of one source package: 1.0-1 carries none of four upstream
# fixes, 1.0-2 carries each one adapted to 1.0. The four phenomena:
#  A. an addition whose + lines the file already has elsewhere (the else
#     branch the fix removes), its context drifted upstream after 1.0: the
#     two context lines around the insertion are still adjacent in 1.0 (the
#     hunk removing the else branch neither applies nor reverts as is: its
#     - lines in its function, the + line not: absent in that function);
#  B. a change whose - lines are still in 1.0 but no longer next to each
#     other (upstream rewrote the lines between them), one of them changed a
#     little upstream (cnt != 0 -> cnt > 0);
#  C. an addition whose context is whole in 1.0-2 next to its + lines, one
#     of them adapted (another type name): not absent (was "partial");
#  D. a new test file in a test directory the release ships (tests/data has
#     the fix's other file): absent, not "not shipped";
#  E. hunks a backport leaves out that change no code (a comment removed,
#     NEWS): they decide nothing;
#  F. a hunk the patch naming the fix writes another way (neither applies
#     nor reverts): adapted when the fix's other hunks are present; the
#     other one, an addition at the end of the file, present exactly
#     (its context is inside its post-image);
#  G. a line changed a little (a type) that looks like a line of another
#     function of the release: no evidence outside the hunk's function (the
#     fix's line came with a commit 1.0 lacks: absent by that, K below);
#  H. one of the three lines a fix changes changed upstream by another
#     commit (long -> int64_t), the other two still there: absent;
#  I. a fix's new file (a helper) that the backport inlines: with the fix's
#     other hunk present, the absent new file is not evidence (not partial).
#  J. a fix of a Perl test file (tests/servers.pm) whose code was in another
#     file of its directory in 1.0 (tests/run.pl, a new file upstream, no
#     rename): found by the function line the hunk's header names; there,
#     its - line (also in another function of the fix's file) is in that
#     function and its + line (in another function before the fix) is not:
#     absent, judged in that function alone.
#  K. a fix that changes only lines an earlier upstream commit added after
#     1.0 (git blame on the fix's parent): neither applies nor reverts on
#     1.0; that earlier commit is not in 1.0 (its hunk applies forward, no
#     patch names it): absent, via that commit (its test hunk, absent from
#     a shipped test file, does not stop that search).
#  L. a fix of code 1.0 has that a Debian patch (not naming the fix) rewrote
#     in 1.0-1: neither applies nor reverts, its - line from 1.0 itself:
#     exit 3, never "not included".
#  M. a fix of a file 1.0 has under no name (src/shell.c: its code moved out of
#     src/debug.c after 1.0, its function renamed dbg_shell -> app_shell;
#     src/cat.c has a look-alike loop): found by the hunk's whole pre-image
#     in the one .c file that has it; absent there (the fix with its path
#     made src/debug.c applies on 1.0-1, not in reverse). Its test hunk (a
#     shipped test file) is absent on both revisions: it decides nothing.
#  O. a fix of code rewritten after 1.0 (like libraw's deflate_dng_load_raw):
#     its - lines came (git blame) with the rewrite, whose other file 1.0-1
#     has (a Debian patch: the rewrite is not absent as a whole), and with
#     a later change of a check another commit added into the rewritten
#     code; followed back hunk by hunk, the rewrite's hunk of that file is
#     absent, the check's hunks are additions whose place came with it:
#     absent, via the rewrite (never exit 3 for a fix the release lacks).
#  P. a fix of a check script (not a test directory) that comments out a
#     line a commit after 1.0 added with the block around it: the code it
#     changes is not in 1.0's file at all (not applicable by the lines),
#     but it came with a commit whose hunk is absent from 1.0-1: absent.
#  N. an addition whose context uses an API renamed after 1.0 (dyn_* ->
#     xdyn_*) and sits one brace deeper than 1.0's code: with the renaming
#     learnt from path.c's other lines, its nearest context lines that say
#     where are in path_work of 1.0-1, its + lines are not (patch -F2 applies
#     the renamed hunk forward, not in reverse): absent; 1.0-2's patch
#     writes it with dyn_*: included (the renamed hunk reverts).
# Ground truth per hunk on the trees dpkg-source -x unpacks: patch --dry-run
# forward / -R with fuzz (A, C, D), git apply --check for the new file (D);
# for B, where patch fails both ways, the definition itself: every - line of
# the hunk in the file (the upstream cnt > 0 undone), no + line in it (grep).
# test: slow
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v python3 >/dev/null || skip "no python3"
command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"
command -v patch >/dev/null || skip "no patch"

up=$T/up
. "$TOP/tests/e2e/fixrepo.sh"

git init -q -b main "$up" && mkdir -p "$up/src" "$up/tests/data"
cat > "$up/src/buf.c" <<'EOF'
/* buf.c: buffers */
#include <stdlib.h>

struct buf { char *data; char *spare; int size; };

void buf_reset(struct buf *b)
{
	free(b->data);
	free(b->spare);

	if (b->size > 0) {
		b->data = calloc(1, b->size);
		b->spare = calloc(1, b->size);
	} else {
		b->data = NULL;
		b->spare = NULL;
	}
	b->size = 0;
}

int buf_len(const struct buf *b)
{
	if (b->data) {
		return b->size;
	} else {
		return 0;
	}
}
EOF
cat > "$up/src/num.c" <<'EOF'
/* num.c: numbers */
#include <limits.h>

long num_parse(const char *p, int cnt, int base)
{
	long l = 0;
	int digit;

	if (cnt != 0) {
		digit = *p - '0';
		while (digit >= 0 && digit < base && cnt != 0) {
			if (l > LONG_MAX / base)
				return LONG_MAX;
			l = l * base + digit;
			digit = *++p - '0';
			cnt--;
		}
	}
	return l;
}
EOF
cat > "$up/src/ctx.c" <<'EOF'
/* ctx.c: parser contexts */
#include "ctx.h"

int ctx_set_flags(ctx_t *c, int flags)
{
	if (c == NULL) return -1;
	c->flags = flags;
	return 0;
}

/************************************************
 *              Document functions              *
 ************************************************/

int ctx_doc(ctx_t *c)
{
	return c->doc;
}
EOF
printf 'TESTS = test1 test2\n\nEXTRA_DIST = $(TESTS)\n' > "$up/tests/data/Makefile.am"
printf 'name: one\n' > "$up/tests/data/test1"
printf 'name: two\n' > "$up/tests/data/test2"
cat > "$up/src/io.c" <<'EOF'
/* io.c: input */
#include <unistd.h>

/*
 * TODO: io_read retries forever on EINTR; a signal storm
 * keeps it here.
 */

int io_peek(int fd, char *buf, int len, int max)
{
	int r = read(fd, buf, len);

	if (r > len) r = len;
	return r;
}

int io_read(int fd, char *buf, int len)
{
	int r;

	do r = read(fd, buf, len); while (r < 0);
	return r;
}
EOF
cat > "$up/src/str.c" <<'EOF'
/* str.c: strings */
#include "str.h"

int str_insert(struct str *s, int len)
{
	unsigned long len_u, pos_u;

	len_u = len;
	pos_u = s->len;
	return (int)(len_u + pos_u);
}

int str_overwrite(struct str *s, int len)
{
	return str_insert(s, len);
}
EOF
cat > "$up/src/tmp.c" <<'EOF'
/* tmp.c: temporary names */
int tmp_name(char *t)
{
	static const char letters[] = "ABCDEF0123";
	static const int nletters = sizeof (letters) - 1;
	long value;
	long long now_us;
	static int counter = 0;

	now_us = 0;
	value = now_us + counter++;
	t[0] = letters[value % nletters];
	return 0;
}
EOF
cat > "$up/src/len.c" <<'EOF'
/* len.c: lengths */
int len_of(const char *s, int max)
{
	int n = 0;

	while (s[n] && n < max) n++;
	return n;
}
EOF
printf 'int old_func(int a)\n{\n\tint b = a * 2;\n\n\tb += 7;\n\treturn b;\n}\n' > "$up/src/old.c"
mkdir -p "$up/tests"
cat > "$up/tests/run.pl" <<'EOF'
#!/usr/bin/env perl
# run.pl: the test driver
use strict;

sub starthttp {
    my ($srv, $port) = @_;
    my $pid;
    for (1 .. 10) {
        $pid = startnew("httpd --port $port");
        if($pid <= 0 || !pidexists($pid)) {
            # it is NOT alive
            stopserver($srv, "$pid");
            showlogs($srv);
            $doesntrun{$srv} = 1;
            next;
        }
        # we have a server!
        logmsg("RUN: http server is PID $pid\n");
        last;
    }
    return $pid;
}

sub startftp {
    my ($srv, $port) = @_;
    my $pid;
    for (1 .. 10) {
        $pid = startnew("ftpd --port $port");
        if($pid <= 0 || !pidexists($pid)) {
            # it is NOT alive
            stopserver($srv, "$pid");
            $doesntrun{$srv} = 1;
            next;
        }
        $doesntrun{$srv} = 0;
        # we have a server!
        last;
    }
    return $pid;
}

sub runtests {
    my @tests = @_;
    foreach my $t (@tests) {
        print "test $t\n";
    }
    return 0;
}
EOF
cat > "$up/src/debug.c" <<'EOF'
/* debug.c: debugging helpers and the shell */
#include <stdio.h>
#include <stdlib.h>

void dbg_dump(FILE *out, const char *what, int depth)
{
	int k;

	for (k = 0; k < depth; k++)
		fputc(' ', out);
	fprintf(out, "%s\n", what);
}

int dbg_shell(struct doc *doc, char *filename, shell_read_fn input, FILE *output)
{
	char command[100];
	char *cmdline, *cur;
	int i;

	while (1) {
		cmdline = input("/ > ");
		if (cmdline == NULL)
			break;
		cur = cmdline;
		i = 0;
		while ((*cur != ' ') && (*cur != '\t') && (i < 99)) {
			if (*cur == 0)
				break;
			command[i++] = *cur++;
		}
		command[i] = 0;
		if (i == 0)
			continue;

		/*
		 * Parse the argument
		 */
		while ((*cur == ' ') || (*cur == '\t'))
			cur++;
		shell_run(doc, command, cur, output);
		free(cmdline);
	}
	return 0;
}

int dbg_count(const struct doc *doc)
{
	return doc ? doc->nodes : 0;
}
EOF
cat > "$up/src/cat.c" <<'EOF'
/* cat.c: the catalog shell */
#include <stdlib.h>

int cat_shell(char *(*input)(const char *))
{
	char command[100];
	char *cmdline, *cur;
	int i;

	while ((cmdline = input("> ")) != NULL) {
		cur = cmdline;
		i = 0;
		while ((*cur != ' ') && (*cur != 0))
			command[i++] = *cur++;
		command[i] = 0;
		if (i == 0) {
			free(cmdline);
			continue;
		}

		/*
		 * Parse the argument string
		 */
		cat_run(command, cur);
		free(cmdline);
	}
	return 0;
}
EOF
cat > "$up/src/path.c" <<'EOF'
/* path.c: working paths */
#include "dyn.h"

int path_work(struct req *r, const char *home, char **out)
{
	struct dyn np;
	char *wp = r->path;
	size_t wlen = strlen(wp);

	dyn_init(&np, 1024);

	if (r->scp && wlen > 3 && !memcmp(wp, "/~/", 3)) {
		if (dyn_addn(&np, wp + 3, wlen - 3)) {
			free(wp);
			return -1;
		}
	}
	else if (r->sftp && wlen > 2 && !memcmp(wp, "/~/", 3)) {
		if (dyn_add(&np, home)) {
			free(wp);
			return -1;
		}
		if (dyn_addn(&np, wp + 2, wlen - 2)) {
			free(wp);
			return -1;
		}
	}

	if (dyn_len(&np)) {
		free(wp);
		*out = dyn_ptr(&np);
	}
	else
		*out = wp;
	return 0;
}
EOF
printf '/* tile.c: tiles */\n#include "tile.h"\n\nint tile_load(struct tiles *t)\n{\n\tunsigned pixels = t->w * t->h;\n\tunsigned bytes = pixels * 4;\n\tunsigned char *buf = malloc(bytes);\n\n\tif (!buf)\n\t\treturn -1;\n\tdecode(t, buf, bytes);\n\tfree(buf);\n\treturn 0;\n}\n' > "$up/src/tile.c"
printf '/* tile.h: tiles */\nstruct tiles;\nint tile_load(struct tiles *t);\n' > "$up/src/tile.h"
mkdir -p "$up/check"
printf '#!/bin/sh\n# pct.sh: percent expansions\n\nfor i in controlpath identityagent forwardagent; do\n\tverbose $tid $i tilde\n\ttrial $i "~" $HOME/\ndone\n' > "$up/check/pct.sh"
printf 'libbar 1.0\n\n* first release\n' > "$up/NEWS"
commit "libbar 1.0" >/dev/null
g tag v1.0

# upstream after 1.0: the code around the fixes drifts
ed "$up/src/buf.c" "		b->data = calloc(1, b->size);
		b->spare = calloc(1, b->size);" "		b->data = calloc(1, b->size);
		if (b->data == NULL)
			return;
		b->spare = calloc(1, b->size);
		if (b->spare == NULL)
			return;"
ed "$up/src/num.c" "			if (l > LONG_MAX / base)
				return LONG_MAX;
			l = l * base + digit;" "			if (ckd_mul_add(&l, base, digit))
				return LONG_MAX;" \
	"while (digit >= 0 && digit < base && cnt != 0) {" "while (digit >= 0 && digit < base && cnt > 0) {"
sed -i 's/ctx_t \*c/struct ctx *c/g' "$up/src/ctx.c"
printf 'TESTS = test1 test2 \\\n\ttest3\n\nEXTRA_DIST = $(TESTS)\n' > "$up/tests/data/Makefile.am"
printf 'name: three\n' > "$up/tests/data/test3"
commit "drift: NULL checks, ckd_mul_add, struct ctx, test3" >/dev/null

# the fixes
ed "$up/src/buf.c" "	free(b->spare);

	if" "	free(b->spare);

	b->data = NULL;
	b->spare = NULL;

	if" "			return;
	} else {
		b->data = NULL;
		b->spare = NULL;
	}" "			return;
	}"
fixA=$(commit "buf_reset: no dangling pointers")
ed "$up/src/num.c" "	if (cnt != 0) {
		digit = *p - '0';
		while (digit >= 0 && digit < base && cnt > 0) {
			if (ckd_mul_add(&l, base, digit))
				return LONG_MAX;
			digit = *++p - '0';
			cnt--;
		}
	}" "	while (cnt != 0) {
		digit = *p - '0';
		if (digit < 0 || digit >= base)
			break;
		if (ckd_mul_add(&l, base, digit))
			return LONG_MAX;
		p++;
		cnt--;
	}"
fixB=$(commit "num_parse: one loop")
ed "$up/src/ctx.c" "	return 0;
}

/****" "	return 0;
}

int ctx_set_limit(struct ctx *c, int limit)
{
	if (c == NULL) return -1;
	if (limit < 0) return -1;
	c->inc_limit = limit;
	return 0;
}

/****"
fixC=$(commit "ctx: include limit")
ed "$up/tests/data/Makefile.am" "	test3" "	test3 test9"
printf 'name: nine\nexpect: limit\n' > "$up/tests/data/test9"
fixD=$(commit "tests: test9")
# E: code, a comment dropped (comments only), NEWS; F: two hunks in io.c
ed "$up/src/io.c" "/*
 * TODO: io_read retries forever on EINTR; a signal storm
 * keeps it here.
 */
" "" "	do r = read(fd, buf, len); while (r < 0);" "	do r = read(fd, buf, len); while (r < 0 && errno == EINTR);"
printf 'libbar 1.1\n\n* io_read: retry on EINTR only\n\n' | cat - "$up/NEWS" > "$up/NEWS.new" && mv "$up/NEWS.new" "$up/NEWS"
fixE=$(commit "io_read: EINTR only")
ed "$up/src/io.c" "	if (r > len) r = len;" "	if (r > max || r > len) r = max < len ? max : len;"
printf '\nint io_max(void)\n{\n\treturn 4096;\n}\n' >> "$up/src/io.c"
fixF=$(commit "io_peek: max")
# G: str_overwrite gets its own code upstream, then a fix changes a line of it that looks like
# a line of str_insert (which 1.0 has)
ed "$up/src/str.c" "	return str_insert(s, len);" "	int ret = 0;
	int old = s->len;
	long len_u;

	len_u = len;
	s->len = len_u;
	return ret + old;"
commit "str_overwrite: own code" >/dev/null
ed "$up/src/str.c" "	int old = s->len;
	long len_u;" "	int old = s->len;
	unsigned long len_u;"
fixG=$(commit "str_overwrite: unsigned")
# H: one of the three lines a fix changes was changed upstream after 1.0 (long -> int64_t)
ed "$up/src/tmp.c" "	long value;" "	int64_t value;"
commit "tmp: int64_t" >/dev/null
ed "$up/src/tmp.c" "	int64_t value;
	long long now_us;
	static int counter = 0;" "	uint64_t value;
	unsigned long long now_us;
	static unsigned counter = 0;"
fixH=$(commit "tmp: unsigned")
# I: a fix with a new file (a helper) and a call to it
printf '/* clamp.c: bounds */\nint clamp_len(int len)\n{\n\treturn len > 4096 ? 4096 : len;\n}\n' > "$up/src/clamp.c"
ed "$up/src/len.c" "	return n;" "	return clamp_len(n);"
fixI=$(commit "len_of: clamp")
# J: the servers move to tests/servers.pm (a new file; run.pl keeps runtests), showlogs goes;
# then a fix in servers.pm's starthttp
python3 - "$up/tests" <<'PY' || fail "J: split run.pl"
import sys
d = sys.argv[1]; s = open(d + "/run.pl").read()
a = s.index("sub starthttp {"); b = s.index("sub runtests {")
open(d + "/servers.pm", "w").write("# servers.pm: the test servers\npackage servers;\n\n" +
    s[a:b].replace("            showlogs($srv);\n", "") + "1;\n")
open(d + "/run.pl", "w").write(s[:a] + 'require "servers.pm";\n\n' + s[b:])
PY
commit "tests: servers.pm" >/dev/null
ed "$up/tests/servers.pm" '            stopserver($srv, "$pid");
            $doesntrun{$srv} = 1;
            next;
        }
        # we have a server!
        logmsg' '            # no stopserver: it would stop the dependent server too
            $doesntrun{$srv} = 1;
            next;
        }
        $doesntrun{$srv} = 0;
        # we have a server!
        logmsg'
fixJ=$(commit "starthttp: no stopserver on retry")
ed "$up/src/old.c" "	b += 7;" "	b += 9;"
fixL=$(commit "old: nine")
# K: a duplicate check added after 1.0, then a fix of one of its conditions
ed "$up/src/len.c" "	int n = 0;
" "	int n = 0;

	if (max > 0 && s[0] == '\\n' &&
	    s[1] != '#' &&
	    strict_mode)
		return -1;
"
fixK0=$(commit "len_of: reject lines")
ed "$up/src/len.c" "	    s[1] != '#' &&
" ""
printf 'name: one\nexpect: comment lines\n' > "$up/tests/data/test1"
fixK=$(commit "len_of: comments are lines too (and a test)")
# O: tile_load rewritten (and tile_count declared), a check added into it, changed, then fixed
ed "$up/src/tile.c" "	unsigned pixels = t->w * t->h;
	unsigned bytes = pixels * 4;
	unsigned char *buf = malloc(bytes);

	if (!buf)
		return -1;
	decode(t, buf, bytes);
	free(buf);
" "	unsigned tilePixels = t->tw * t->th;
	unsigned pixelSize = sizeof(float) * t->samples;
	unsigned tileBytes = tilePixels * pixelSize;
	unsigned tileRowBytes = t->tw * pixelSize;

	unsigned char *cbuf = calloc(t->max_bytes, 1);
	unsigned char *ubuf = calloc(tileBytes + tileRowBytes, 1);

	for (size_t y = 0; y < t->height; y += t->th)
		decode_row(t, cbuf, ubuf, y);
	free(ubuf);
	free(cbuf);
"
ed "$up/src/tile.h" "int tile_load(struct tiles *t);" "int tile_load(struct tiles *t);
int tile_count(const struct tiles *t);"
fixO1=$(commit "tile_load: floating point tiles")
ed "$up/src/tile.c" "	unsigned tileRowBytes = t->tw * pixelSize;

" "	unsigned tileRowBytes = t->tw * pixelSize;

	if (t->max_bytes > t->limit_mb * (1024 * 1024))
		return -2;

"
fixO2=$(commit "tile_load: a memory limit")
ed "$up/src/tile.c" "	if (t->max_bytes > t->limit_mb * (1024 * 1024))" "	if ((long)t->max_bytes > (long)t->limit_mb * (1024 * 1024))"
fixO3=$(commit "tile_load: the limit in long")
ed "$up/src/tile.c" "	unsigned tilePixels = t->tw * t->th;" "	long tilePixels = (long)t->tw * t->th;" \
	"	unsigned tileBytes = tilePixels * pixelSize;
	unsigned tileRowBytes = t->tw * pixelSize;" "	long tileBytes = tilePixels * (long)pixelSize;
	long tileRowBytes = (long)t->tw * pixelSize;" \
	"	if ((long)t->max_bytes > (long)t->limit_mb * (1024 * 1024))
		return -2;
" "	if ((long)t->max_bytes > (long)t->limit_mb * 1024L * 1024L)
		return -2;
	if (tileBytes + tileRowBytes > (long)t->limit_mb * 1024L * 1024L)
		return -2;
"
fixO=$(commit "tile_load: sizes in 64 bits")
# P: user names checked (a block at the end), then one trial of it commented out
printf '\n# Literal control characters in config are acceptable\nverbose $tid user control-literal\ntrial user "$FOO" "$FOO"\n\n# Control characters expanded from config are not.\n${SSH} -G "-oUser=${FOO}" somehost && fail "user expanded ctrl"\n' >> "$up/check/pct.sh"
fixP1=$(commit "pct: user name checks")
ed "$up/check/pct.sh" 'trial user "$FOO" "$FOO"' '#trial user "$FOO" "$FOO"'
fixP=$(commit "pct: adapt to the user name check")
# M: the shell moves out of debug.c into a new shell.c, renamed app_shell; then a fix there
python3 - "$up/src" <<'PY' || fail "M: split debug.c"
import sys
d = sys.argv[1]; s = open(d + "/debug.c").read()
a = s.index("int dbg_shell("); b = s.index("int dbg_count(")
open(d + "/shell.c", "w").write("/* shell.c: the shell */\n#include <stdio.h>\n#include <stdlib.h>\n\n" +
    s[a:b].replace("int dbg_shell(struct doc *doc, char *filename, shell_read_fn input, FILE *output)",
                   "int\napp_shell(struct doc *doc, const char *filename, FILE *output)").replace('input("/ > ")', 'readline("/ > ")'))
open(d + "/debug.c", "w").write(s[:a] + s[b:])
PY
commit "shell: its own file" >/dev/null
ed "$up/src/shell.c" "		if (i == 0)
			continue;" "		if (i == 0) {
			free(cmdline);
			cmdline = NULL;
			continue;
		}"
ed "$up/tests/run.pl" '        print "test $t\n";' '        print "test $t\n";
        print "empty command line\n" if $t eq "shell-empty";'
fixM=$(commit "shell: free an empty command line (and a test)")
# N: dyn_* renamed xdyn_*; /~ alone handled; then an addition in that new block's else
sed -i 's/dyn_\(init\|add\|addn\|len\|ptr\)(/xdyn_\1(/g' "$up/src/path.c"
commit "xdyn: the dyn API renamed" >/dev/null
ed "$up/src/path.c" "	else if (r->sftp && wlen > 2 && !memcmp(wp, \"/~/\", 3)) {" \
	"	else if (r->sftp && (!strcmp(\"/~\", wp) || (wlen > 2 && !memcmp(wp, \"/~/\", 3)))) {" \
	"		if (xdyn_addn(&np, wp + 2, wlen - 2)) {
			free(wp);
			return -1;
		}
	}" "		if (wlen > 2) {
			if (xdyn_addn(&np, wp + 2, wlen - 2)) {
				free(wp);
				return -1;
			}
		}
	}"
commit "path: /~ alone" >/dev/null
ed "$up/src/path.c" "				return -1;
			}
		}
	}" "				return -1;
			}
		}
		else {
			if (xdyn_add(&np, \"/\")) {
				free(wp);
				return -1;
			}
		}
	}"
fixN=$(commit "path: /~ gets its slash")
g tag v1.1

# --- two Debian revisions: 1.0-1 (an unrelated patch), 1.0-2 (the four fixes, adapted) --------
w=$T/deb
pkg=libbar pool=$w/www/debian/pool/main/libb/libbar
mkdir -p "$pool"
g archive --prefix=libbar-1.0/ v1.0 | gzip -n > "$w/libbar_1.0.orig.tar.gz"
git clone -q "$up" "$w/work" && git -C "$w/work" checkout -q v1.0
wk=$w/work
cp "$w/libbar_1.0.orig.tar.gz" "$w/www/debian/pool/main/libb/libbar/"
ed "$wk/src/ctx.c" "/* ctx.c: parser contexts */" "/* ctx.c: parser contexts (Debian) */"
quilt_patch 01-unrelated.patch "Description: a comment"
ed "$wk/src/old.c" "	int b = a * 2;

	b += 7;
	return b;" "	long wide = (long)a << 1;

	wide += 7;
	return (int)wide;"
quilt_patch 02-old.patch "Description: old_func: no overflow (a Debian change)"
ed "$wk/src/tile.h" "int tile_load(struct tiles *t);" "int tile_load(struct tiles *t);
int tile_count(const struct tiles *t);"
quilt_patch 03-tile-count.patch "Description: tile_count declared (a Debian change)"
build_pkg 1
ed "$wk/src/buf.c" "	free(b->spare);

	if" "	free(b->spare);

	b->data = NULL;
	b->spare = NULL;

	if" "		b->spare = calloc(1, b->size);
	} else {
		b->data = NULL;
		b->spare = NULL;
	}" "		b->spare = calloc(1, b->size);
	}"
quilt_patch 10-buf.patch "Description: buf_reset: no dangling pointers
Origin: upstream, https://git.example.invalid/libbar/commit/$fixA"
ed "$wk/src/num.c" "	if (cnt != 0) {
		digit = *p - '0';
		while (digit >= 0 && digit < base && cnt != 0) {
			if (l > LONG_MAX / base)
				return LONG_MAX;
			l = l * base + digit;
			digit = *++p - '0';
			cnt--;
		}
	}" "	while (cnt != 0) {
		digit = *p - '0';
		if (digit < 0 || digit >= base)
			break;
		if (l > LONG_MAX / base)
			return LONG_MAX;
		l = l * base + digit;
		p++;
		cnt--;
	}"
quilt_patch 20-num.patch "Description: num_parse: one loop (no ckd_mul_add in 1.0)
Origin: backport, https://git.example.invalid/libbar/commit/$fixB"
ed "$wk/src/ctx.c" "	return 0;
}

/****" "	return 0;
}

int ctx_set_limit(ctx_t *c, int limit)
{
	if (c == NULL) return -1;
	if (limit < 0) return -1;
	c->inc_limit = limit;
	return 0;
}

/****"
quilt_patch 30-ctx.patch "Description: include limit
Origin: upstream, https://git.example.invalid/libbar/commit/$fixC"
ed "$wk/tests/data/Makefile.am" "TESTS = test1 test2" "TESTS = test1 test2 test9"
printf 'name: nine\nexpect: limit\n' > "$wk/tests/data/test9"
quilt_patch 40-test9.patch "Description: test9
Origin: upstream, https://git.example.invalid/libbar/commit/$fixD"
ed "$wk/src/io.c" "	do r = read(fd, buf, len); while (r < 0);" "	do r = read(fd, buf, len); while (r < 0 && errno == EINTR);"
quilt_patch 50-io.patch "Description: io_read: EINTR only (the TODO comment and NEWS left)
Origin: upstream, https://git.example.invalid/libbar/commit/$fixE"
ed "$wk/src/io.c" "	if (r > len) r = len;" "	r = r > len ? len : r;
	if (r > max) r = max;"
printf '\nint io_max(void)\n{\n\treturn 4096;\n}\n' >> "$wk/src/io.c"
quilt_patch 60-peek.patch "Description: io_peek: max (written another way)
Origin: upstream, https://git.example.invalid/libbar/commit/$fixF"
ed "$wk/src/len.c" "/* len.c: lengths */" "/* len.c: lengths */
static int clamp_len(int len)
{
	if (len > 4096)
		return 4096;
	return len;
}
" "	return n;" "	return clamp_len(n);"
quilt_patch 70-clamp.patch "Description: len_of: clamp (the helper inlined, no clamp.c)
Origin: upstream, https://git.example.invalid/libbar/commit/$fixI"
ed "$wk/tests/run.pl" '            stopserver($srv, "$pid");
            showlogs($srv);
            $doesntrun{$srv} = 1;
            next;
        }
        # we have a server!
        logmsg' '            # no stopserver: it would stop the dependent server too
            showlogs($srv);
            $doesntrun{$srv} = 1;
            next;
        }
        $doesntrun{$srv} = 0;
        # we have a server!
        logmsg'
quilt_patch 80-starthttp.patch "Description: starthttp: no stopserver on retry (in run.pl)
Origin: upstream, https://git.example.invalid/libbar/commit/$fixJ"
ed "$wk/src/debug.c" "		if (i == 0)
			continue;" "		if (i == 0) {
			free(cmdline);
			cmdline = NULL;
			continue;
		}"
quilt_patch 90-shell.patch "Description: free an empty command line (in debug.c)
Origin: upstream, https://git.example.invalid/libbar/commit/$fixM"
ed "$wk/src/path.c" "		if (dyn_addn(&np, wp + 2, wlen - 2)) {
			free(wp);
			return -1;
		}
	}" "		if (dyn_addn(&np, wp + 2, wlen - 2)) {
			free(wp);
			return -1;
		}
		else {
			if (dyn_add(&np, \"/\")) {
				free(wp);
				return -1;
			}
		}
	}"
quilt_patch 95-path.patch "Description: /~ gets its slash (dyn_* in 1.0)
Origin: upstream, https://git.example.invalid/libbar/commit/$fixN"
build_pkg 2

# --- ground truth ---------------------------------------------------------------------------
x1=$w/x1 x2=$w/x2

# A: hunk 0 applies forward on 1.0-1, not in reverse; hunk 1 neither; on 1.0-2 hunk 0 reverse
fwd "$x1" "$fixA" 0 && ! rev "$x1" "$fixA" 0 || fail "truth A: hunk 0 is not absent from 1.0-1 by patch"
fwd "$x1" "$fixA" 1 || rev "$x1" "$fixA" 1 && fail "truth A: hunk 1 applies on 1.0-1 one way"
# hunk 1 in buf_reset alone: with the upstream NULL checks made in a copy of 1.0-1's file, it
# applies forward and does not revert (absent, judged in its function)
mkdir -p "$T/a1/src" && python3 - "$x1/src/buf.c" "$T/a1/src/buf.c" <<'PY' || fail "truth A: drift"
import sys
s = open(sys.argv[1]).read()
a = "\t\tb->data = calloc(1, b->size);\n\t\tb->spare = calloc(1, b->size);\n"
b = "\t\tb->data = calloc(1, b->size);\n\t\tif (b->data == NULL)\n\t\t\treturn;\n\t\tb->spare = calloc(1, b->size);\n\t\tif (b->spare == NULL)\n\t\t\treturn;\n"
assert a in s
open(sys.argv[2], "w").write(s.replace(a, b, 1))
PY
fwd "$T/a1" "$fixA" 1 && ! rev "$T/a1" "$fixA" 1 || fail "truth A: hunk 1 not absent from buf_reset with the drift made"
[ "$(grep -c 'b->data = NULL;' "$x1/src/buf.c")" = 1 ] || fail "fixture A: the + line is not already in 1.0-1's file once"
rev "$x2" "$fixA" 0 || fail "truth A: hunk 0 not in 1.0-2 by patch -R"
# B: patch fails both ways on 1.0-1; every - line there (the upstream cnt > 0 undone), no + line
fwd "$x1" "$fixB" 0 || rev "$x1" "$fixB" 0 && fail "truth B: patch applies one way"
# (whitespace normalised; a line on both sides, only re-indented, is not changed by the fix)
hunk "$fixB" 0 | python3 -c '
import sys, re
norm = lambda l: re.sub(r"\s+", "", l)
lines = sys.stdin.read().splitlines()
minus = {norm(l[1:]) for l in lines if l.startswith("-") and not l.startswith("---")}
plus = {norm(l[1:]) for l in lines if l.startswith("+") and not l.startswith("+++")}
have = {norm(l) for l in open(sys.argv[1])}
want = {norm(l[1:]) for l in lines if l.startswith("-") and not l.startswith("---")} - plus
want = {l.replace("cnt>0", "cnt!=0") for l in want}
gone = {l for l in plus - minus if len(re.sub(r"[^A-Za-z0-9]", "", l)) >= 4}
if not want <= have: sys.exit("- lines not in 1.0-1: %r" % (want - have))
if gone & have: sys.exit("+ lines in 1.0-1: %r" % (gone & have))
' "$x1/src/num.c" || fail "truth B: not absent from 1.0-1 by its changed lines"
for l in 'while (cnt != 0) {' 'if (digit < 0 || digit >= base)'; do
	grep -qF -- "$l" "$x2/src/num.c" || fail "truth B: + line '$l' not in 1.0-2"
done
# C: absent from 1.0-1 (forward, not reverse); in 1.0-2 by patch -R once the type is the release's
fwd "$x1" "$fixC" 0 && ! rev "$x1" "$fixC" 0 || fail "truth C: not absent from 1.0-1"
rev "$x2" "$fixC" 0 && fail "truth C: patch -R applies on 1.0-2 as is"
hunk "$fixC" 0 | sed 's/struct ctx \*c/ctx_t *c/' | patch -d "$x2" -p1 --dry-run -s -f -l -R -F2 >/dev/null 2>&1 ||
	fail "truth C: not in 1.0-2 with ctx_t"
# D: the new file applies (git apply --check) on 1.0-1, the Makefile.am hunk neither way
[ -d "$x1/tests/data" ] && [ ! -e "$x1/tests/data/test9" ] || fail "fixture D"
hunk "$fixD" 1 > "$T/d1.patch"; (cd "$x1" && git apply --check "$T/d1.patch") || fail "truth D: test9 does not apply on 1.0-1"
fwd "$x1" "$fixD" 0 || rev "$x1" "$fixD" 0 && fail "truth D: the Makefile.am hunk applies one way"
(cd "$x2" && git apply --check --reverse "$T/d1.patch") || fail "truth D: test9 not in 1.0-2"

serve_archive
cache=$T/cache
fc() { local rev=$1; shift; "$PROVENANCE" --cache "$cache" -c "sources.debianBaseUrl=http://127.0.0.1:$port/debian" \
	fixcheck "$@" --repo "$up" --at v1.0 --debian-source "libbar=1.0-$rev" --format json; }
get() { json_get "$T/last.out" "$1"; }
states() { get '" ".join(e["state"] for e in d[0]["evidence"])'; }
validate() {
	python3 -c 'import jsonschema' 2>/dev/null || return 0
	python3 - "$TOP/docs/schema/fixcheck.schema.json" "$T/last.out" <<'PY' || fail "fixcheck JSON does not validate"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
}
first=$(g tag --contains "$fixA" | head -1)

# not carried (1.0-1): each one missing, first final release v1.1
check_exit 1 "A: addition not made" -- fc 1 "$fixA"
check_eq "$(states) $(get 'd[0]["how"]') $(get 'd[0]["first_tag"]')" "absent absent missing $first" "A on 1.0-1"
validate
check_exit 1 "B: - lines still there, apart" -- fc 1 "$fixB"
check_eq "$(states) $(get 'd[0]["how"]')" "absent missing" "B on 1.0-1"
check_exit 1 "C: addition not made, context whole" -- fc 1 "$fixC"
check_eq "$(states) $(get 'd[0]["how"]')" "absent missing" "C on 1.0-1"
check_exit 1 "D: new test file in a shipped test directory" -- fc 1 "$fixD"
check_eq "$(get 'd[0]["evidence"][1]["state"]') $(get 'd[0]["how"]')" "absent missing" "D on 1.0-1"
validate
# carried, adapted (1.0-2): never "not included"
for f in "$fixA" "$fixB" "$fixC"; do
	check_exit 0 "carried ${f:0:12} on 1.0-2" -- fc 2 "$f"
	check_eq "$(get 'd[0]["included"]')" true "${f:0:12} on 1.0-2: included"
	check_match "$(get 'd[0]["how"]')" '^(adapted|distribution-patch)$' "${f:0:12} on 1.0-2: how"
done
# D: its list line adapted beyond the changed-lines comparison (test9 on another line): the new
# file present, and never "not included" (exit 3 or 0)
fc 2 "$fixD" >"$T/last.out" 2>"$T/last.err"; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "D on 1.0-2: exit $rc"
check_eq "$(get 'd[0]["evidence"][1]["state"]') $(get 'd[0]["included"]')" "present-exact $([ "$rc" = 0 ] && echo true || echo null)" \
	"D on 1.0-2: test9 present, not 'not included'"
check_exit 0 "C on 1.0-2" -- fc 2 "$fixC"
check_eq "$(states)" present-changed-lines "C on 1.0-2: by changed lines, not absent"
validate
# E: the code hunk reverts on 1.0-2 and applies on 1.0-1; the comment hunk's changed lines are
# comment lines only (grep), and it still applies on 1.0-2 (left out); NEWS too
fwd "$x1" "$fixE" 2 && rev "$x2" "$fixE" 2 || fail "truth E: the code hunk"
fwd "$x2" "$fixE" 1 && ! rev "$x2" "$fixE" 1 || fail "truth E: the comment hunk is not left out of 1.0-2"
[ -z "$(hunk "$fixE" 1 | grep '^[-+]' | grep -v '^---' | grep -v '^+++' | sed 's/^[-+][[:space:]]*//' | grep -v '^/\*' | grep -v '^\*')" ] ||
	fail "truth E: the comment hunk changes more than comments"
g show --stat --format= "$fixE" | grep -q NEWS || fail "fixture E: no NEWS"
check_exit 0 "E: comment and NEWS left out" -- fc 2 "$fixE"
check_eq "$(get 'd[0]["how"]') $(get '" ".join(e["file"] for e in d[0]["evidence"])')" "adapted NEWS src/io.c src/io.c" "E on 1.0-2"
check_eq "$(get 'd[0]["evidence"][1]["state"]') $(get 'd[0]["evidence"][1]["note"]')" "absent it changes comments only" "E: the comment hunk (absent, decided apart)"
check_exit 1 "E on 1.0-1" -- fc 1 "$fixE"
check_eq "$(get 'd[0]["how"]')" missing "E on 1.0-1"
# F: hunk 1 (io_max) reverts on 1.0-2; hunk 0 neither applies nor reverts there (written
# another way by the patch naming the fix): included, adapted; on 1.0-1 both apply: missing
rev "$x2" "$fixF" 1 || fail "truth F: hunk 1 not in 1.0-2"
hunk "$fixF" 1 > "$T/f1.patch"; (cd "$x2" && git apply --check --reverse "$T/f1.patch") ||
	fail "truth F: hunk 1 (an addition at the end of the file) not in 1.0-2 exactly"
fwd "$x2" "$fixF" 0 || rev "$x2" "$fixF" 0 && fail "truth F: hunk 0 applies one way on 1.0-2"
fwd "$x1" "$fixF" 0 && fwd "$x1" "$fixF" 1 || fail "truth F: not absent from 1.0-1"
check_exit 0 "F: a hunk written another way by the naming patch" -- fc 2 "$fixF"
check_eq "$(states) $(get 'd[0]["how"]')" "unknown present-exact adapted" "F on 1.0-2"
check_match "$(get 'd[0]["evidence"][0]["note"]')" "patch naming the fix changes this file" "F: the note"
validate
check_exit 1 "F on 1.0-1" -- fc 1 "$fixF"
check_eq "$(get 'd[0]["how"]')" missing "F on 1.0-1"
# G: the hunk neither applies nor reverts on 1.0-1 (str_overwrite has none of that code);
# a line of str_insert looks like its + line: not evidence, exit 3, never "included"
fwd "$x1" "$fixG" 0 || rev "$x1" "$fixG" 0 && fail "truth G: the hunk applies one way on 1.0-1"
grep -q 'unsigned long len_u, pos_u;' "$x1/src/str.c" || fail "fixture G: no look-alike line"
# (its - line came with "str_overwrite: own code", git blame on its parent, whose hunk applies
# forward on 1.0-1 and does not revert: the fix changes code 1.0 never had, missing via it)
own=$(g log --format=%H -1 --grep='^str_overwrite: own code$')
check_eq "$(g blame -l -s -L '/long len_u;/,+1' "$fixG^" -- src/str.c | cut -c1-40)" "$own" "truth G: the - line comes from the own-code commit"
fwd "$x1" "$own" 0 && ! rev "$x1" "$own" 0 || fail "truth G: the own-code commit is not absent from 1.0-1"
check_exit 1 "G: a look-alike line in another function" -- fc 1 "$fixG"
check_eq "$(states) $(get 'd[0]["included"]') $(get 'd[0]["evidence"][0]["via"]')" "absent false $own" "G on 1.0-1: not included, never by the look-alike"
check_match "$(get 'd[0]["evidence"][0]["function"]')" "str_overwrite" "G: the hunk's header names str_overwrite (git's)"
# H: patch fails both ways on 1.0-1; with the upstream long -> int64_t undone it applies
# forward and does not revert
fwd "$x1" "$fixH" 0 || rev "$x1" "$fixH" 0 && fail "truth H: the hunk applies one way on 1.0-1 as is"
hunk "$fixH" 0 | sed 's/int64_t value;/long value;/' | patch -d "$x1" -p1 --dry-run -s -f -l -F2 >/dev/null 2>&1 ||
	fail "truth H: not absent from 1.0-1 with the upstream change undone"
check_exit 1 "H: one changed line changed by another commit" -- fc 1 "$fixH"
check_eq "$(states) $(get 'd[0]["how"]')" "absent missing" "H on 1.0-1"
# I: on 1.0-2 the new file would still be created (git apply --check) and the call reverts
# (git apply --check --reverse); the whole commit applies on 1.0-1
g show --format= "$fixI" -- src/clamp.c > "$T/i0.patch"; g show --format= "$fixI" -- src/len.c > "$T/i1.patch"
(cd "$x2" && git apply --check "$T/i0.patch") || fail "truth I: clamp.c in 1.0-2"
(cd "$x2" && git apply --check --reverse "$T/i1.patch") || fail "truth I: the call not in 1.0-2"
g show --format= "$fixI" > "$T/i.patch"; (cd "$x1" && git apply --check "$T/i.patch") || fail "truth I: not absent from 1.0-1"
check_exit 0 "I: the new file left out, the helper inlined" -- fc 2 "$fixI"
check_eq "$(get '" ".join(e["file"] + ":" + e["state"] for e in d[0]["evidence"])') $(get 'd[0]["how"]')" \
	"src/clamp.c:unknown src/len.c:present-exact adapted" "I on 1.0-2: not partial"
check_match "$(get 'd[0]["evidence"][0]["note"]')" "new file of the fix" "I: the note"
check_exit 1 "I on 1.0-1" -- fc 1 "$fixI"
check_eq "$(states) $(get 'd[0]["how"]')" "absent absent missing" "I on 1.0-1: both absent"
# J: the fix's hunk neither applies nor reverts on 1.0-1's run.pl as is (showlogs between); with
# the upstream removal of showlogs undone in a copy, it applies forward there, not in reverse
hunk "$fixJ" 0 | sed 's,tests/servers.pm,tests/run.pl,g' > "$T/j.patch"
patch -d "$x1" -p1 --dry-run -s -f -l -F2 < "$T/j.patch" >/dev/null 2>&1 ||
	patch -d "$x1" -p1 --dry-run -s -f -l -F2 -R < "$T/j.patch" >/dev/null 2>&1 && fail "truth J: applies one way as is"
mkdir -p "$T/j1/tests" && grep -v 'showlogs' "$x1/tests/run.pl" > "$T/j1/tests/run.pl"
patch -d "$T/j1" -p1 --dry-run -s -f -l -F2 < "$T/j.patch" >/dev/null 2>&1 &&
	! patch -d "$T/j1" -p1 --dry-run -s -f -l -F2 -R < "$T/j.patch" >/dev/null 2>&1 || fail "truth J: not absent from run.pl"
[ ! -e "$x1/tests/servers.pm" ] || fail "fixture J: servers.pm in 1.0"
check_exit 1 "J: a Perl function in another file of its directory" -- fc 1 "$fixJ"
check_eq "$(states) $(get 'd[0]["how"]')" "absent missing" "J on 1.0-1"
validate
mkdir -p "$T/j2/tests" && grep -v 'showlogs' "$x2/tests/run.pl" > "$T/j2/tests/run.pl"
patch -d "$T/j2" -p1 --dry-run -s -f -l -F2 -R < "$T/j.patch" >/dev/null 2>&1 || fail "truth J: not in 1.0-2"
check_exit 0 "J on 1.0-2" -- fc 2 "$fixJ"
check_eq "$(get 'd[0]["included"]')" true "J on 1.0-2: included"
# K: the fix's hunk neither applies nor reverts on 1.0-1; git blame on its parent names fixK0 for
# its - line; fixK0's hunk applies forward on 1.0-1 and does not revert
fwd "$x1" "$fixK" 0 || rev "$x1" "$fixK" 0 && fail "truth K: the hunk applies one way on 1.0-1"
kline=$(g show --format= "$fixK" | grep '^-[^-]' | head -1 | cut -c2-)
[ "$(g blame -l -s -L "/$(printf '%s' "$kline" | sed 's/[]\/$*.^[]/\\&/g')/,+1" "$fixK^" -- src/len.c | cut -c1-40)" = "$fixK0" ] ||
	fail "truth K: the - line does not come from fixK0"
fwd "$x1" "$fixK0" 0 && ! rev "$x1" "$fixK0" 0 || fail "truth K: fixK0 not absent from 1.0-1"
fwd "$x1" "$fixK" 1 && ! rev "$x1" "$fixK" 1 || fail "truth K: its test hunk (a shipped test file) is not absent from 1.0-1"
check_exit 1 "K: it changes lines an absent commit added" -- fc 1 "$fixK"
check_eq "$(states) $(get 'd[0]["how"]') $(get 'd[0]["evidence"][0]["via"]')" "absent absent missing $fixK0" "K on 1.0-1"
validate
# O: the fix's hunk neither applies nor reverts on 1.0-1; git blame on its parent names fixO1 and
# fixO3 for its - lines; fixO1's tile.c hunk applies forward on 1.0-1, not in reverse, its tile.h
# hunk reverts (03-tile-count.patch); fixO3's - line came with fixO2, an addition whose context
# lines came with fixO1; neither applies nor reverts on 1.0-1
fwd "$x1" "$fixO" 0 || rev "$x1" "$fixO" 0 && fail "truth O: the hunk applies one way on 1.0-1"
blame1() { g blame -l -s -L "/$(printf '%s' "$3" | sed 's/[]\/$*.^[]/\\&/g')/,+1" "$1^" -- "$2" | cut -c1-40; }
check_eq "$(blame1 "$fixO" src/tile.c '	unsigned tilePixels = t->tw * t->th;')" "$fixO1" "truth O: a - line from fixO1"
check_eq "$(blame1 "$fixO" src/tile.c '	unsigned tileBytes = tilePixels * pixelSize;')" "$fixO1" "truth O: a - line from fixO1"
check_eq "$(blame1 "$fixO" src/tile.c '	if ((long)t->max_bytes > (long)t->limit_mb * (1024 * 1024))')" "$fixO3" "truth O: a - line from fixO3"
check_eq "$(blame1 "$fixO3" src/tile.c '	if (t->max_bytes > t->limit_mb * (1024 * 1024))')" "$fixO2" "truth O: fixO3's - line from fixO2"
for l in '	unsigned tileBytes = tilePixels * pixelSize;' '	unsigned tileRowBytes = t->tw * pixelSize;' \
	'	unsigned char *cbuf = calloc(t->max_bytes, 1);' '	unsigned char *ubuf = calloc(tileBytes + tileRowBytes, 1);'; do
	check_eq "$(blame1 "$fixO2" src/tile.c "$l")" "$fixO1" "truth O: fixO2's context from fixO1"
done
fwd "$x1" "$fixO1" 0 && ! rev "$x1" "$fixO1" 0 || fail "truth O: fixO1's tile.c hunk not absent from 1.0-1"
rev "$x1" "$fixO1" 1 || fail "truth O: fixO1's tile.h hunk not in 1.0-1"
for c in "$fixO2" "$fixO3"; do
	fwd "$x1" "$c" 0 || rev "$x1" "$c" 0 && fail "truth O: $c applies one way on 1.0-1"
done
check_exit 1 "O: it changes code rewritten after 1.0" -- fc 1 "$fixO"
check_eq "$(states) $(get 'd[0]["how"]') $(get 'd[0]["evidence"][0]["via"]')" "absent missing $fixO1" "O on 1.0-1"
check_match "$(get 'd[0]["evidence"][0]["note"]')" "came with a commit" "O: the note"
validate
# P: the fix neither applies nor reverts on 1.0-1, its - line is nowhere in the file; git blame
# names fixP1, whose hunk applies forward on 1.0-1, not in reverse
fwd "$x1" "$fixP" 0 || rev "$x1" "$fixP" 0 && fail "truth P: the hunk applies one way on 1.0-1"
grep -q 'trial user' "$x1/check/pct.sh" && fail "truth P: its - line in 1.0-1"
check_eq "$(blame1 "$fixP" check/pct.sh 'trial user "$FOO" "$FOO"')" "$fixP1" "truth P: the - line from fixP1"
fwd "$x1" "$fixP1" 0 && ! rev "$x1" "$fixP1" 0 || fail "truth P: fixP1 not absent from 1.0-1"
check_exit 1 "P: it changes lines that came with an absent commit, nowhere in the file" -- fc 1 "$fixP"
check_eq "$(states) $(get 'd[0]["how"]') $(get 'd[0]["evidence"][0]["via"]')" "absent missing $fixP1" "P on 1.0-1"
validate
# L: neither applies nor reverts on 1.0-1; its - line is 1.0's own (git blame: the 1.0 commit)
fwd "$x1" "$fixL" 0 || rev "$x1" "$fixL" 0 && fail "truth L: the hunk applies one way on 1.0-1"
v10=$(g rev-parse v1.0)
check_match "$(g blame -l -s -L '/b += 7;/,+1' "$fixL^" -- src/old.c | cut -c1-40)" "^\^?${v10:0:39}" "truth L: the - line is 1.0's (the root)"
check_exit 3 "L: code rewritten by a Debian patch" -- fc 1 "$fixL"
check_eq "$(states) $(get 'd[0]["included"]')" "unknown null" "L on 1.0-1: undetermined"
check_match "$(get 'd[0]["reason"]')" "neither shown present nor shown absent" "L: the reason"
validate
"$PROVENANCE" --cache "$cache" -c "sources.debianBaseUrl=http://127.0.0.1:$port/debian" fixcheck "$fixL" --repo "$up" \
	--at v1.0 --debian-source libbar=1.0-1 >"$T/last.out" 2>"$T/last.err"
check_match "$(cat "$T/last.out")" "^UNKNOWN $fixL .*could not be determined" "L: text"
# M: the fix with its path made src/debug.c applies on 1.0-1 and does not revert (made src/cat.c,
# the look-alike, neither); it reverts on 1.0-2
[ ! -e "$x1/src/shell.c" ] && ! grep -q app_shell "$x1/src/debug.c" || fail "fixture M: shell.c or app_shell in 1.0"
g show --format= "$fixM" -- src/shell.c | sed 's,src/shell.c,src/debug.c,g' > "$T/m.patch"
(cd "$x1" && git apply --check "$T/m.patch" 2>/dev/null && ! git apply --check --reverse "$T/m.patch" 2>/dev/null) ||
	fail "truth M: not absent from 1.0-1's debug.c"
g show --format= "$fixM" -- src/shell.c | sed 's,src/shell.c,src/cat.c,g' > "$T/m2.patch"
g show --format= "$fixM" -- tests/run.pl > "$T/m3.patch"
(cd "$x1" && git apply --check "$T/m3.patch") && (cd "$x2" && git apply --check "$T/m3.patch") ||
	fail "truth M: its test hunk (a shipped test file) is not absent from 1.0-1 and 1.0-2"
(cd "$x1" && ! git apply --check "$T/m2.patch" 2>/dev/null && ! git apply --check --reverse "$T/m2.patch" 2>/dev/null) ||
	fail "truth M: the look-alike cat.c matches"
(cd "$x2" && git apply --check --reverse "$T/m.patch") || fail "truth M: not in 1.0-2's debug.c"
check_exit 1 "M: a file moved and its function renamed" -- fc 1 "$fixM"
check_eq "$(states) $(get 'd[0]["evidence"][0]["deployed_file"]') $(get 'd[0]["how"]') $(get 'd[0]["first_tag"]')" \
	"absent absent src/debug.c missing v1.1" "M on 1.0-1 (the code hunk found in debug.c; the test hunk absent)"
validate
check_exit 0 "M on 1.0-2" -- fc 2 "$fixM"
check_eq "$(get 'd[0]["included"]') $(get 'd[0]["how"]')" "true adapted" "M on 1.0-2: included (its test left out)"
# N: as is, the hunk neither applies nor reverts on 1.0-1 (git apply); with xdyn_ written dyn_ it
# applies forward (fuzz 2: 1.0 lacks the wlen > 2 block) and does not revert; it reverts on 1.0-2
g show --format= "$fixN" > "$T/n.patch"; sed 's/xdyn_/dyn_/g' "$T/n.patch" > "$T/n-renamed.patch"
(cd "$x1" && ! git apply --check "$T/n.patch" 2>/dev/null && ! git apply --check --reverse "$T/n.patch" 2>/dev/null) ||
	fail "truth N: applies as is"
patch -d "$x1" -p1 --dry-run -s -f -l -F2 < "$T/n-renamed.patch" >/dev/null 2>&1 &&
	! patch -d "$x1" -p1 --dry-run -s -f -l -F2 -R < "$T/n-renamed.patch" >/dev/null 2>&1 || fail "truth N: not absent from 1.0-1 renamed"
! grep -q 'xdyn_' "$x1/src/path.c" && ! grep -qF 'dyn_add(&np, "/")' "$x1/src/path.c" || fail "fixture N: 1.0-1 has the renamed API or the + line"
patch -d "$x2" -p1 --dry-run -s -f -l -F2 -R < "$T/n-renamed.patch" >/dev/null 2>&1 || fail "truth N: not in 1.0-2 renamed"
check_exit 1 "N: an API renamed, the addition one brace deeper" -- fc 1 "$fixN"
check_eq "$(states) $(get 'd[0]["how"]') $(get 'd[0]["first_tag"]')" "absent missing v1.1" "N on 1.0-1"
check_match "$(get 'd[0]["evidence"][0]["note"]')" "identifiers the deployed file spells another way" "N: the note"
validate
check_exit 0 "N on 1.0-2" -- fc 2 "$fixN"
check_eq "$(get 'd[0]["included"]') $(get 'd[0]["how"]')" "true adapted" "N on 1.0-2: included, adapted"
echo "all ok"
