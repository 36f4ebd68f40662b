#!/usr/bin/env bash
# fixcheck on real-looking distribution backports: a Debian source package
# (dpkg-source -b, quilt patches with DEP-3 headers) whose patches carry
# upstream fixes the way distributions do: with drifted context, adapted
# (another variable name, a hunk dropped because the release lacks that
# code), squashed (two commits in one patch, one commit over two patches),
# on a file upstream renamed since the release, without the tests; plus a fix
# really missing and one whose code was rewritten upstream (undetermined:
# exit 3, never "not included").
# Ground truth per hunk, computed here on the tree dpkg-source -x unpacks:
# git apply --check --reverse (present exactly), patch --dry-run -R -F3
# (present by its changed lines: the context ignored), patch --dry-run
# forward (absent), the rename from git diff -M, and the upstream variable
# rename (made by this test) undone for the adapted hunk.
# test: slow
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v python3 >/dev/null || skip "no python3"
command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"
command -v patch >/dev/null || skip "no patch"

up=$T/up
. "$TOP/tests/e2e/fixrepo.sh"

git init -q -b main "$up" && mkdir -p "$up/src" "$up/lib" "$up/tests"
cat > "$up/src/net.c" <<'EOF'
/* net.c: network reads */
#include <stddef.h>

int net_read(int fd, char *buf, int len)
{
	int r;

	/* read once */
	r = do_read(fd, buf, len);
	if (r < 0) return r;
	buf[r] = 0;
	return r;
}

int net_write(int fd, const char *buf, int len)
{
	int w;

	w = do_write(fd, buf, len);
	if (w != len) return -1;
	return w;
}

int net_close(int fd)
{
	int c;

	c = do_close(fd);
	if (c) log_close_failure(fd);
	return c;
}

int net_open(const char *host)
{
	int o = do_open(host);

	if (o < 0) log_open_failure(host);
	return o;
}
EOF
cat > "$up/src/parse.c" <<'EOF'
/* parse.c */
int parse_len(int n, int max)
{
	int ok = 1;

	if (n > max) ok = 0;
	return ok;
}

int parse_hdr(const char *h)
{
	int k = 0;

	while (h[k] && h[k] != ':') k++;
	return k;
}

int parse_tail(const char *t)
{
	int z = 0;

	while (t[z]) z++;
	return z;
}

/* end of parse.c */
EOF
cat > "$up/src/old.c" <<'EOF'
int old_func(int a)
{
	int b = a * 2;

	b += 7;
	return b;
}
EOF
cat > "$up/src/miss.c" <<'EOF'
int miss_func(int v)
{
	int r = v;

	if (v > 100) r = 100;
	return r;
}
EOF
cat > "$up/lib/x.c" <<'EOF'
int x_init(int flags)
{
	int st = 0;

	if (flags & 4) st = 1;
	return st;
}
EOF
cat > "$up/src/misc.c" <<'EOF'
/* misc.c */
int misc_a(void)
{
	return 1;
}

int str_trim(char *s)
{
	int n = 0;

	while (s[n] == ' ') n++;
	return n;
}
EOF
cat > "$up/tests/test_net.c" <<'EOF'
#include "net.h"
int test_net_open(void)
{
	return net_open("localhost") >= 0;
}
EOF
# a test helper that later moves to another file (not C: no definition index finds it)
printf '# runtests.pl\nsub stopserver {\n    my ($pid) = @_;\n    kill %sTERM%s, $pid;\n    return 0;\n}\n1;\n' "'" "'" > "$up/tests/runtests.pl"
commit "libfoo 1.0" >/dev/null
g tag v1.0
# upstream work after the release
ed "$up/src/net.c" "	int r;

	/* read once */" "	int r = 0;

	/* read once, no retry (do_read handles EINTR) */"
commit "net: comments" >/dev/null
g mv lib/x.c lib/sub-x.c 2>/dev/null; mkdir -p "$up/lib/sub"; g mv lib/sub-x.c lib/sub/x.c
commit "move x.c to lib/sub" >/dev/null
# the variable n of parse_len becomes len (this test's own rename: undone below for the truth)
ed "$up/src/parse.c" "int parse_len(int n, int max)" "int parse_len(int len, int max)" "if (n > max)" "if (len > max)" \
	"/* end of parse.c */" "int parse_ext(const char *e, int elen)
{
	int q = 0;

	if (elen > 64) q = -1;
	return q;
}

/* end of parse.c */"
commit "parse: len, parse_ext" >/dev/null
ed "$up/src/old.c" "	int b = a * 2;

	b += 7;
	return b;" "	long wide = (long)a << 1;

	wide += 7;
	return (int)wide;"
commit "old: rewrite" >/dev/null
# str_trim moves from misc.c into a new strutil.c (misc.c stays: no rename)
python3 - "$up/src/misc.c" "$up/src/strutil.c" <<'PY2'
import sys
s = open(sys.argv[1]).read()
i = s.index("int str_trim")
open(sys.argv[1], "w").write(s[:i].rstrip("\n") + "\n")
open(sys.argv[2], "w").write("/* strutil.c: string helpers */\n#include <stddef.h>\n\n" + s[i:])
PY2
commit "str_trim to strutil.c" >/dev/null
# stopserver moves from runtests.pl into a new servers.pm
python3 - "$up/tests/runtests.pl" "$up/tests/servers.pm" <<'PY2'
import sys
s = open(sys.argv[1]).read()
i, j = s.index("sub stopserver"), s.index("1;")
open(sys.argv[1], "w").write(s[:i] + s[j:])
open(sys.argv[2], "w").write("# servers.pm: the test servers\n" + s[i:j] + "1;\n")
PY2
commit "stopserver to servers.pm" >/dev/null
# the fixes
ed "$up/src/net.c" "if (r < 0) return r;" "if (r <= 0) return -1;"; fixD=$(commit "net_read: fail on EOF")
ed "$up/src/parse.c" "if (len > max) ok = 0;" "if (len >= max) ok = 0;" "if (elen > 64) q = -1;" "if (elen >= 64) q = -1;"
fixA=$(commit "parse: off by one")
ed "$up/src/net.c" "if (w != len) return -1;" "if (w < 0 || w != len) return -1;"; fixS1=$(commit "net_write: negative")
ed "$up/src/parse.c" "while (h[k] && h[k] != ':') k++;" "while (h[k] && h[k] != ':' && k < 255) k++;"; fixS2=$(commit "parse_hdr: bound")
ed "$up/src/net.c" "if (c) log_close_failure(fd);" "if (c != 0) log_close_failure(fd);"
ed "$up/src/parse.c" "while (t[z]) z++;" "while (t[z] && z < 4096) z++;"; fixM=$(commit "close and tail")
ed "$up/lib/sub/x.c" "if (flags & 4) st = 1;" "if (flags & 6) st = 1;"; fixR=$(commit "x_init: flag 2")
ed "$up/src/net.c" "if (o < 0) log_open_failure(host);" "if (o < 0) return log_open_failure(host), -1;"
printf 'int test_net_open_bad(void)\n{\n\treturn net_open("") < 0;\n}\n' >> "$up/tests/test_net.c"
fixT=$(commit "net_open: fail, with a test")
ed "$up/src/miss.c" "if (v > 100) r = 100;" "if (v > 100 || v < 0) r = 100;"; fixX=$(commit "miss: negative")
ed "$up/src/old.c" "wide += 7;" "wide += 9;"; fixW=$(commit "old: nine")
ed "$up/src/strutil.c" "while (s[n] == ' ') n++;" "while (s[n] == ' ' || s[n] == '\t') n++;"; fixF=$(commit "str_trim: tabs")
ed "$up/tests/servers.pm" "kill 'TERM', \$pid;" "kill 'KILL', \$pid;"; fixP=$(commit "stopserver: KILL")
g tag v1.1

# --- the Debian source package: v1.0 plus quilt patches ----------------------------------
w=$T/deb
mkdir -p "$w/www/debian/pool/main/libf/libfoo"
g archive --prefix=libfoo-1.0/ v1.0 | gzip -n > "$w/libfoo_1.0.orig.tar.gz"
git clone -q "$up" "$w/work" && git -C "$w/work" checkout -q v1.0
wk=$w/work
pn=0
mkpatch() { # mkpatch NAME HEADER: the working tree's changes as a quilt patch with a DEP-3 header
	printf '%s\n---\n' "$2" > "$w/$1"
	git -C "$wk" diff >> "$w/$1"
	git -C "$wk" -c user.name=d -c user.email=d@example.invalid commit -qam "$1"
	echo "$1" >> "$w/series"
}
ed "$wk/src/net.c" "if (r < 0) return r;" "if (r <= 0) return -1;"
mkpatch 10-drift.patch "Description: fail on EOF
Origin: upstream, https://git.example.invalid/libfoo/commit/$fixD
Bug: https://bugs.example.invalid/1"
ed "$wk/src/parse.c" "if (n > max) ok = 0;" "if (n >= max) ok = 0;"
mkpatch 11-adapt.patch "Description: off by one (parse_ext does not exist in 1.0)
Origin: backport, ${fixA:0:10}"
ed "$wk/src/net.c" "if (w != len) return -1;" "if (w < 0 || w != len) return -1;"
ed "$wk/src/parse.c" "while (h[k] && h[k] != ':') k++;" "while (h[k] && h[k] != ':' && k < 255) k++;"
mkpatch 20-squash.patch "Description: two upstream fixes
 (cherry picked from commit $fixS1)
 (cherry picked from commit $fixS2)"
ed "$wk/src/net.c" "if (c) log_close_failure(fd);" "if (c != 0) log_close_failure(fd);"
mkpatch 30a-spread.patch "Description: close part
Origin: upstream, commit:${fixM:0:12}"
ed "$wk/src/parse.c" "while (t[z]) z++;" "while (t[z] && z < 4096) z++;"
mkpatch 30b-spread.patch "Description: tail part
Origin: upstream, commit:${fixM:0:12}"
ed "$wk/lib/x.c" "if (flags & 4) st = 1;" "if (flags & 6) st = 1;"
mkpatch 40-rename.patch "Description: flag 2
Applied-Upstream: $fixR"
ed "$wk/src/net.c" "if (o < 0) log_open_failure(host);" "if (o < 0) return log_open_failure(host), -1;"
mkpatch 50-tests.patch "Description: net_open fails (the test is not shipped)
Origin: upstream, https://git.example.invalid/libfoo/commit/?id=${fixT:0:12}"
ed "$wk/src/misc.c" "while (s[n] == ' ') n++;" "while (s[n] == ' ' || s[n] == '\t') n++;"
mkpatch 70-moved.patch "Description: str_trim: tabs (in misc.c in 1.0)
Origin: upstream, $fixF"
ed "$wk/tests/runtests.pl" "kill 'TERM', \$pid;" "kill 'KILL', \$pid;"
mkpatch 80-elsewhere.patch "Description: stopserver: KILL (in runtests.pl in 1.0)
Origin: upstream, commit:${fixP:0:12}"
# a patch that names fix X but does not carry it (evidence, not proof)
ed "$wk/src/net.c" "/* net.c: network reads */" "/* net.c: network reads (see upstream fix) */"
mkpatch 60-named.patch "Description: mentions the miss fix, carries something else
Origin: vendor, https://git.example.invalid/libfoo/commit/$fixX"

tar -C "$w" -xzf "$w/libfoo_1.0.orig.tar.gz"
mkdir -p "$w/libfoo-1.0/debian/source" "$w/libfoo-1.0/debian/patches"
cp "$TOP/fixtures/srcpkg/debian/control" "$TOP/fixtures/srcpkg/debian/rules" "$TOP/fixtures/srcpkg/debian/changelog" "$w/libfoo-1.0/debian/"
echo "3.0 (quilt)" > "$w/libfoo-1.0/debian/source/format"
cp "$w"/*.patch "$w/series" "$w/libfoo-1.0/debian/patches/"
(cd "$w" && dpkg-source --no-check -b libfoo-1.0) >"$w/b.log" 2>&1 || { cat "$w/b.log"; fail "dpkg-source -b"; }
cp "$w"/libfoo_1.0-1.dsc "$w"/libfoo_1.0.orig.tar.gz "$w"/libfoo_1.0-1.debian.tar.* "$w/www/debian/pool/main/libf/libfoo/"
(cd "$w" && dpkg-source --no-check -x libfoo_1.0-1.dsc "$w/x") >/dev/null 2>&1 || fail "dpkg-source -x"
tree=$w/x

# --- ground truth per hunk ---------------------------------------------------------------------
# the hunks of a commit as one patch file each: $T/h/<sha>-<k>.patch
split_hunks() {
	mkdir -p "$T/h"
	g show --format= "$1" | python3 -c '
import sys
out, hdr, cur, k = sys.argv[1], [], None, 0
def flush():
    global cur, k
    if cur:
        open("%s-%d.patch" % (out, k), "w").write("".join(hdr + cur)); k += 1
    cur = None
for line in sys.stdin:
    if line.startswith("diff --git"):
        flush(); hdr = [line]
    elif line.startswith("@@"):
        flush(); cur = [line]
    elif cur is not None:
        cur.append(line)
    else:
        hdr.append(line)
flush()' "$T/h/$1"
}
truth() { # truth SHA K: the state of hunk K of SHA in the patched tree
	local h=$T/h/$1-$2.patch f
	f=$(sed -n 's|^+++ b/||p' "$h"); [ -n "$f" ] || f=$(sed -n 's|^--- a/||p' "$h")
	if [ ! -e "$tree/$f" ]; then
		# renamed since the release (git diff -M, the release against the fix's parent)
		old=$(g diff -M --name-status v1.0 "$1^" | awk -v f="$f" '$1 ~ /^R/ && $3 == f {print $2}')
		# else the file that defines the hunk's function (grep)
		fn=$(sed -n 's/^@@ [^@]* @@ [a-z ]*\b\([a-z_]*\)(.*/\1/p' "$h")
		[ -z "$old" ] && [ -n "$fn" ] && old=$(cd "$tree" && grep -rl --exclude-dir=.pc "^[a-z].* $fn(" --include=*.c . | sed 's|^\./||')
		[ -n "$old" ] && sed -i "s|a/$f|a/$old|g; s|b/$f|b/$old|g" "$h" && f=$old
	fi
	if (cd "$tree" && git apply --check --reverse "$h") 2>/dev/null; then echo present-exact
	elif patch -d "$tree" -p1 --dry-run -s -f -l -R -F3 -i "$h" >/dev/null 2>&1; then echo present-changed-lines
	elif patch -d "$tree" -p1 --dry-run -s -f -l -F2 -i "$h" >/dev/null 2>&1; then
		echo absent	# a test file the tree has is judged like any other
	elif sed 's/\blen\b/n/g' "$h" | patch -d "$tree" -p1 --dry-run -s -f -l -R -F3 >/dev/null 2>&1; then
		echo present-changed-lines	# the upstream rename len -> n undone
	else
		# test-only: a test file the deployed tree does not have (not shipped)
		case "$f" in tests/*) [ -e "$tree/$f" ] && echo unknown || echo test-only ;; *) echo unknown ;; esac
	fi
}
truths() { local s k out=; for s in "$@"; do split_hunks "$s"; k=0; while [ -f "$T/h/$s-$k.patch" ]; do out="$out $(truth "$s" $k)"; k=$((k + 1)); done; done; echo "${out# }"; }

serve_archive
cache=$T/cache
fc() { "$PROVENANCE" --cache "$cache" -c "sources.debianBaseUrl=http://127.0.0.1:$port/debian" \
	fixcheck "$@" --repo "$up" --at v1.0 --debian-source libfoo=1.0-1; }
states() { json_get "$T/last.out" '" ".join(e["state"] for e in d[0]["evidence"])'; }
field() { json_get "$T/last.out" "d[0][\"$1\"]"; }
vias() { json_get "$T/last.out" '" ".join(str(e["via"]) for e in d[0]["evidence"])'; }
validate() {
	python3 -c 'import jsonschema' 2>/dev/null || return 0
	python3 - "$TOP/docs/schema/fixcheck.schema.json" "$T/last.out" <<'PY' || fail "fixcheck JSON does not validate"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
}

# drift: the same -/+ lines, other context
want=$(truths "$fixD"); check_eq "$want" present-changed-lines "truth: drift (patch -R -F3 only)"
check_exit 0 "drift" -- fc "$fixD" --format json
check_eq "$(states)" "$want" "drift: hunk states"
check_eq "$(field how) $(field included)" "adapted true" "drift: how"
check_eq "$(vias)" debian/patches/10-drift.patch "drift: via the patch"
check_eq "$(json_get "$T/last.out" '" ".join(d[0]["named_by"])')" debian/patches/10-drift.patch "drift: DEP-3 Origin names the fix"
validate

# adapted: another variable name; a hunk for code 1.0 does not have
want=$(truths "$fixA"); check_eq "$want" "present-changed-lines unknown" "truth: adapted"
grep -q parse_ext "$tree/src/parse.c" && fail "fixture: parse_ext is in 1.0"
check_exit 0 "adapted" -- fc "$fixA" --format json
check_eq "$(states)" "$want" "adapted: hunk states"
check_eq "$(field how)" adapted "adapted: how"
check_match "$(json_get "$T/last.out" 'd[0]["evidence"][1]["note"]')" "not in the deployed file" "adapted: the dropped hunk says why"
check_eq "$(json_get "$T/last.out" 'd[0]["evidence"][0]["via"]')" debian/patches/11-adapt.patch "adapted: via"

# squashed: two commits in one patch
want=$(truths "$fixS1" "$fixS2"); check_eq "$want" "present-exact present-exact" "truth: squash"
check_exit 0 "two commits in one patch" -- fc --one-fix "$fixS1" "$fixS2" --format json
check_eq "$(states)" "$want" "squash: hunk states"
check_eq "$(field how) $(vias)" "distribution-patch debian/patches/20-squash.patch debian/patches/20-squash.patch" "squash: how, via"
# one commit over two patches
want=$(truths "$fixM")
check_exit 0 "one commit over two patches" -- fc "$fixM" --format json
check_eq "$(states)" "$want" "spread: hunk states"
check_eq "$(field how) $(vias)" "distribution-patch debian/patches/30a-spread.patch debian/patches/30b-spread.patch" "spread: how, via"

# renamed since the release
want=$(truths "$fixR")
check_exit 0 "renamed file" -- fc "$fixR" --format json
check_eq "$(states)" "$want" "rename: hunk states"
check_eq "$(json_get "$T/last.out" 'd[0]["evidence"][0]["file"] + " " + d[0]["evidence"][0]["deployed_file"]')" \
	"lib/sub/x.c $(g diff -M --name-status v1.0 "$fixR^" | awk '$1 ~ /^R/ {print $2}')" "rename: found where git diff -M says"
check_eq "$(field how)" distribution-patch "rename: how"

# the function moved to another file since the release: found by its definition
want=$(truths "$fixF"); check_eq "$want" present-exact "truth: moved function (grep finds it in misc.c)"
check_exit 0 "function in another file" -- fc "$fixF" --format json
check_eq "$(states) $(field how)" "$want distribution-patch" "moved: states, how"
check_eq "$(json_get "$T/last.out" 'd[0]["evidence"][0]["deployed_file"]')" src/misc.c "moved: found in misc.c"

# the test hunk not shipped
# (the release has tests/test_net.c: its hunk is absent, named, and the fix still in)
want=$(truths "$fixT"); check_eq "$want" "present-exact absent" "truth: tests"
check_exit 0 "test hunk not carried" -- fc "$fixT" --format json
check_eq "$(states) $(field how)" "$want adapted" "tests: states, how"

# the change made in another file (where the code lived in the release), by the patch naming it
split_hunks "$fixP"; h=$T/h/$fixP-0.patch; sed -i 's|tests/servers.pm|tests/runtests.pl|g' "$h"
want=$( (cd "$tree" && patch -p1 --dry-run -s -f -l -R -F3 -i "$h" >/dev/null 2>&1) && echo present-changed-lines)
check_eq "$want" present-changed-lines "truth: elsewhere (patch -R on runtests.pl)"
check_exit 0 "change made in the file the code lived in" -- fc "$fixP" --format json
check_eq "$(states) $(field how) $(vias)" "present-changed-lines adapted debian/patches/80-elsewhere.patch" \
	"elsewhere: found in the naming patch"

# really missing
want=$(truths "$fixX"); check_eq "$want" absent "truth: missing"
check_exit 1 "really missing" -- fc "$fixX" --format json
check_eq "$(field how) $(field included) $(field first_tag)" "missing false v1.1" "missing: how, first tag"
check_eq "$(json_get "$T/last.out" '" ".join(d[0]["named_by"])')" debian/patches/60-named.patch "missing: the patch naming it is listed, not believed"
validate

# code rewritten upstream after 1.0, then fixed: the fix's hunk neither applies nor reverts on
# 1.0-1, but its - line came with the rewrite (git blame on its parent), and the rewrite is not
# in 1.0-1 (its hunk applies forward, not in reverse): missing, via the rewrite (never "included")
want=$(truths "$fixW"); check_eq "$want" unknown "truth: rewrite (patch, as is)"
rw=$(g log --format=%H -1 --grep='^old: rewrite$')
check_eq "$(g blame -l -s -L '/wide += 7;/,+1' "$fixW^" -- src/old.c | cut -c1-40)" "$rw" "truth: the - line comes from the rewrite"
check_eq "$(truths "$rw")" absent "truth: the rewrite is not in 1.0-1"
check_exit 1 "rewritten code" -- fc "$fixW" --format json
check_eq "$(states) $(field included) $(field how) $(vias)" "absent false missing $rw" "rewrite: absent via the rewrite"
validate
check_exit 1 "rewritten code (text)" -- fc "$fixW"
check_match "$(cat "$T/last.out")" "^NO $fixW " "rewrite: text"

# text says the same as JSON
check_exit 0 "text" -- fc "$fixA"
check_match "$(cat "$T/last.out")" "^YES $fixA is in v1\.0 .*adapted .*hunks: 1 by changed lines, 1 neither present nor absent" "adapted: text"
echo "all ok"
