#!/usr/bin/env bash
# fixcheck on what the whole quilt series does to a fix (issue 21, found on a
# third set of real packages: unbound, openssh, mosquitto, nghttp2, libraw).
# One upstream history, two Debian revisions of libqux 1.0:
#  M. a fix carried by one patch whose added lines a later patch (a later
#     upstream fix) moves into another function: in 1.0-2 the fix's hunk applies
#     forward again (its pre-image is back), yet it was applied: present,
#     via the carrying patch, "a later patch ... changes its lines again";
#  R. a fix carried by one patch, one hunk of it reverted by a later
#     regression patch (its - line put back): that hunk decided apart
#     ("reverts it", via the reverting patch); the other hunk decides: adapted;
#  P. a fix adding the same check after three look-alike blocks (two of
#     them; the third is left as it was), written with another cast by the
#     Debian patch: its pre-image is found at the third block, which is not
#     where the fix goes (the fix's own file has that pre-image three times
#     before it and once after): not absent; adapted, never "partial";
#  W. a missing fix with a hunk that adds a line of blanks only: decided
#     apart (not "present-exact"), the code hunk absent: missing;
#  S. a fix that also deletes a function it made unused (read_one), carried
#     without that deletion because a Debian patch calls the function: the
#     deletion decided apart ("still calls"), adapted, never "partial";
#  N. a test fix written for a test framework 1.0 does not use (upstream
#     moved from CUnit to munit after 1.0), carried converted back by the
#     patch naming it: neither applies nor reverts, but the names it brings
#     (its callback, its test) are what that patch adds: present, adapted;
#  X. a fix whose second hunk sets a new flag (user_from_cmdline) the
#     backport does without (it checks at another place, its own way): that
#     hunk applies forward, but its new name is nowhere in 1.0-2 nor in the
#     patch naming the fix: decided apart, adapted, never "partial";
#  D. a fix adding a limit (a member of two structures, its default, its
#     check), carried by a patch naming it that keeps the structures as they
#     are (their ABI) and puts the new members in a structure of a new
#     header, their default in a function of its own: the additions apply
#     forward at the fix's place, but the patch naming the fix adds their
#     lines at another place: present, adapted, never "partial".
# Ground truth per hunk on the trees dpkg-source -x unpacks: patch --dry-run
# forward / -R (-F2, blanks ignored), grep of the patches' - and + lines.
# test: slow
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v python3 >/dev/null || skip "no python3"
command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"
command -v patch >/dev/null || skip "no patch"

up=$T/up
. "$TOP/tests/e2e/fixrepo.sh"

git init -q -b main "$up" && mkdir -p "$up/src"
cat > "$up/src/a.c" <<'EOF'
/* a.c: requests */
#include "a.h"

int parse(struct req *q, int n)
{
	int r = 0;

	r = step(q, n);
	q->done = 1;
	return r;
}

int mode(struct req *q)
{
	q->retries = 4;
	q->timeout = 30;
	q->window = 64;
	q->backoff = 2;
	q->jitter = 0;
	q->keepalive = 1;
	q->linger = 0;
	q->nodelay = 1;

	return q->retries;
}
EOF
cat > "$up/src/s.c" <<'EOF'
/* s.c: the state machine */
#include "s.h"

long run(struct st *st, long len)
{
	int rv;

	if (st->state == IGN) {
		return (long)len;
	}
	switch (st->state) {
	case 1:
		rv = on_one(st);
		if (fatal(rv)) {
			return rv;
		}

		reset(st);

		break;
	case 2:
		rv = on_two(st);
		if (fatal(rv)) {
			return rv;
		}

		reset(st);

		break;
	case 3:
		rv = on_three(st);
		if (fatal(rv)) {
			return rv;
		}

		reset(st);

		break;
	}
	return 0;
}
EOF
cat > "$up/src/w.c" <<'EOF'
/* w.c: windows */
#include "w.h"

int win_open(struct win *w)
{
	w->open = 1;
	return 0;
}

/* the sizes */
static const int sizes[] = {
	1, 2, 4, 8,
	16, 32, 64,
};

int win_size(struct win *w, int k)
{
	if (k < 0)
		return -1;
	return sizes[k];
}
EOF
cat > "$up/src/r.c" <<'EOF'
/* r.c: reads */
#include "r.h"

int read_one(struct conn *c)
{
	if (c->fd < 0)
		return 0;
	return c->pending > 0;
}

/* r_none: nothing to read */
int read_none(struct conn *c)
{
	return c->fd < 0;
}
EOF
cat > "$up/src/q.c" <<'EOF'
/* q.c: queues */
#include "r.h"

int read_all(struct conn *c)
{
	int n = 0;

	while (read_one(c))
		n++;
	return n;
}
EOF
mkdir -p "$up/tests"
cat > "$up/tests/t_s.c" <<'EOF'
/* t_s.c: tests (CUnit) */
#include <CUnit/CUnit.h>

void test_run(void)
{
	CU_ASSERT(run_ok() == 1);
}
EOF
cat > "$up/src/u.c" <<'EOF'
/* u.c: users */
#include "u.h"

int user_parse(struct opts *o, const char *arg)
{
	o->user = arg;
	return 0;
}

/*
 * the defaults, after the command line
 * (and after the configuration files)
 */
void user_defaults(struct opts *o)
{
	if (o->user == NULL)
		o->user = pw_name();
	o->port = 22;
}

int user_check(struct opts *o)
{
	o->checked = 1;
	return 0;
}
EOF
cat > "$up/src/h.h" <<'EOF'
/* h.h: headers */
struct hconf {
	int max_len;
	int max_line;
};

struct hreq {
	int nlines;
	int state;
};
EOF
cat > "$up/src/h.c" <<'EOF'
/* h.c: header parsing */
#include "h.h"

static struct hconf conf;

int h_conf_init(struct hconf *c)
{
	c->max_len = 8192;
	c->max_line = 4096;
	return 0;
}

int h_conf_len(const struct hconf *c)
{
	return c->max_len;
}

int h_line(struct hreq *r, const char *line)
{
	r->nlines++;
	r->state = parse_line(line);
	return r->state;
}
EOF
commit "1.0" >/dev/null
g tag v1.0
ed "$up/src/s.c" "long run(struct st *st, long len)" "nssize run(struct st *st, nssize len)" \
	"		return (long)len;" "		return (nssize)len;"
commit "s: nssize" >/dev/null
# M: a check in parse, then moved into q_init by a later fix
qinit='
int q_init(struct req *q)
{
	if (q->len > MAX_LEN || q->len < 0)
		return -EINVAL;
	return q->len <= q->cap ? 0 : -EINVAL;
}'
ed "$up/src/a.c" "	r = step(q, n);
	q->done = 1;" "	r = step(q, n);
	if (q->len > MAX_LEN || q->len < 0)
		return -EINVAL;
	q->done = 1;"
fixM=$(commit "parse: check the length")
ed "$up/src/a.c" "	if (q->len > MAX_LEN || q->len < 0)
		return -EINVAL;
	q->done = 1;" "	q->done = 1;"
printf '%s\n' "$qinit" >> "$up/src/a.c"
fixM2=$(commit "q_init: the length checked once, also against the capacity")
# R: two hunks in mode (one retries, one the timeout far below)
ed "$up/src/a.c" "	q->retries = 4;" "	q->retries = 1;" "	return q->retries;" "	q->timeout_ms = q->timeout * 1000;
	return q->retries;"
fixR=$(commit "mode: one retry, the timeout in ms")
# P: the IGN check after the first two blocks
ed "$up/src/s.c" "		rv = on_one(st);
		if (fatal(rv)) {
			return rv;
		}
" "		rv = on_one(st);
		if (fatal(rv)) {
			return rv;
		}
		if (st->state == IGN) {
			return (nssize)len;
		}
" "		rv = on_two(st);
		if (fatal(rv)) {
			return rv;
		}
" "		rv = on_two(st);
		if (fatal(rv)) {
			return rv;
		}
		if (st->state == IGN) {
			return (nssize)len;
		}
"
fixP=$(commit "run: stop after a callback that ignores all")
# W: a line of blanks in win_open, a bound in win_size
ed "$up/src/w.c" "	w->open = 1;" "	w->open = 1;
  " "	if (k < 0)" "	if (k < 0 || k >= 7)"
fixW=$(commit "win_size: bound")
# S: read_all bounded without read_one, which goes
ed "$up/src/q.c" "	while (read_one(c))" "	while (n < c->max && c->fd >= 0 && c->pending > n)"
python3 - "$up/src/r.c" <<'PY' || fail "S: remove read_one"
import sys
p = sys.argv[1]; s = open(p).read()
a = s.index("int read_one("); b = s.index("/* r_none")
open(p, "w").write(s[:a] + s[b:])
PY
fixS=$(commit "read_all: bounded; read_one goes")
# X: user names from the command line validated, the defaults not
ed "$up/src/u.c" "	o->user = arg;
	return 0;" "	o->user = arg;
	if (!valid_user(arg))
		return -1;
	return 0;" "	if (o->user == NULL)
		o->user = pw_name();" "	if (o->user == NULL) {
		o->user = pw_name();
		o->user_from_cmdline = 0;
	}"
fixX=$(commit "user: validate names from the command line")
# D: a limit on the number of header lines
ed "$up/src/h.h" "	int max_line;" "	int max_line;
	int max_headers;" "	int state;" "	int state;
	int count;"
ed "$up/src/h.c" "	c->max_line = 4096;" "	c->max_line = 4096;
	c->max_headers = 100;" "	r->nlines++;" "	r->nlines++;
	if (++r->count > conf.max_headers)
		return -E2BIG;"
fixD=$(commit "h: max_headers")
# N: the tests move to munit, then a test of the IGN stop
ed "$up/tests/t_s.c" "(CUnit)" "(munit)" "#include <CUnit/CUnit.h>" '#include "munit.h"' "	CU_ASSERT(run_ok() == 1);" "	assert_int(1, ==, run_ok());"
commit "tests: munit" >/dev/null
printf '\nstatic int term_on_frame_cb(struct st *st)\n{\n\tassert_int(0, ==, terminate(st));\n\treturn 0;\n}\n\nvoid test_run_ign(void)\n{\n\tassert_int(0, ==, run_with(term_on_frame_cb));\n}\n' >> "$up/tests/t_s.c"
fixN=$(commit "tests: the IGN stop")
g tag v1.1

# --- two Debian revisions: 1.0-1 (an unrelated patch), 1.0-2 (M, M2, R and its revert, P) -----
w=$T/deb
pkg=libqux pool=$w/www/debian/pool/main/libq/libqux
mkdir -p "$pool"
g archive --prefix=libqux-1.0/ v1.0 | gzip -n > "$w/libqux_1.0.orig.tar.gz"
git clone -q "$up" "$w/work" && git -C "$w/work" checkout -q v1.0
wk=$w/work
cp "$w/libqux_1.0.orig.tar.gz" "$w/www/debian/pool/main/libq/libqux/"
ed "$wk/src/w.c" "/* w.c: windows */" "/* w.c: windows (Debian) */"
quilt_patch 01-unrelated.patch "Description: a comment"
printf '/* g.c: a Debian transport */\n#include "r.h"\n\nint gss_read(struct conn *c)\n{\n\treturn read_one(c);\n}\n' > "$wk/src/g.c"
quilt_patch 05-gss.patch "Description: a Debian transport that reads one at a time"
build_pkg 1
ed "$wk/src/a.c" "	r = step(q, n);
	q->done = 1;" "	r = step(q, n);
	if (q->len > MAX_LEN || q->len < 0)
		return -EINVAL;
	q->done = 1;"
quilt_patch 10-len.patch "Description: parse: check the length
Origin: upstream, https://git.example.invalid/libqux/commit/$fixM"
ed "$wk/src/a.c" "	q->retries = 4;" "	q->retries = 1;" "	return q->retries;" "	q->timeout_ms = q->timeout * 1000;
	return q->retries;"
quilt_patch 20-mode.patch "Description: mode: one retry, the timeout in ms
Origin: upstream, https://git.example.invalid/libqux/commit/$fixR"
ed "$wk/src/s.c" "		rv = on_one(st);
		if (fatal(rv)) {
			return rv;
		}
" "		rv = on_one(st);
		if (fatal(rv)) {
			return rv;
		}
		if (st->state == IGN) {
			return (long)len;
		}
" "		rv = on_two(st);
		if (fatal(rv)) {
			return rv;
		}
" "		rv = on_two(st);
		if (fatal(rv)) {
			return rv;
		}
		if (st->state == IGN) {
			return (long)len;
		}
"
quilt_patch 30-ign.patch "Description: run: stop after a callback that ignores all (long, not nssize, in 1.0)
Origin: backport, https://git.example.invalid/libqux/commit/$fixP"
ed "$wk/src/a.c" "	if (q->len > MAX_LEN || q->len < 0)
		return -EINVAL;
	q->done = 1;" "	q->done = 1;"
printf '%s\n' "$qinit" >> "$wk/src/a.c"
quilt_patch 40-len-ok.patch "Description: q_init
Origin: upstream, https://git.example.invalid/libqux/commit/$fixM2"
ed "$wk/src/a.c" "	q->retries = 1;" "	q->retries = 4;"
quilt_patch 50-regression.patch "Description: mode: back to four retries (one broke slow servers)"
printf '\nstatic int term_on_frame_cb(struct st *s)\n{\n\tCU_ASSERT(terminate(s) == 0);\n\treturn 0;\n}\n\nstatic void test_run_ign(void)\n{\n\tCU_ASSERT_EQUAL(run_with(term_on_frame_cb), 0);\n}\n' >> "$wk/tests/t_s.c"
quilt_patch 55-ign-test.patch "Description: tests: the IGN stop (CUnit, not munit, in 1.0)
Origin: backport, https://git.example.invalid/libqux/commit/$fixN"
ed "$wk/src/u.c" "	o->user = arg;
	return 0;" "	o->user = arg;
	if (!valid_user(arg))
		return -1;
	return 0;"
quilt_patch 65-user.patch "Description: user: validate names from the command line (only there: no flag needed in 1.0)
Origin: backport, https://git.example.invalid/libqux/commit/$fixX"
ed "$wk/src/q.c" "	while (read_one(c))" "	while (n < c->max && c->fd >= 0 && c->pending > n)"
quilt_patch 60-bound.patch "Description: read_all: bounded (read_one kept: 05-gss.patch calls it)
Origin: upstream, https://git.example.invalid/libqux/commit/$fixS"
printf '/* hc.h: the header count, apart (struct hconf and struct hreq as they were) */\nstruct hc {\n\tint max_headers;\n\tint count;\n};\n\nstruct hc *hc_of(struct hreq *r);\n' > "$wk/src/hc.h"
ed "$wk/src/h.c" '#include "h.h"' '#include "h.h"
#include "hc.h"' "	r->nlines++;" "	r->nlines++;
	if (++hc_of(r)->count > hc_of(r)->max_headers)
		return -E2BIG;" "	return r->state;
}" "	return r->state;
}

int hc_init(struct hc *c)
{
	c->max_headers = 100;
	return 0;
}"
quilt_patch 70-max-headers.patch "Description: h: max_headers, in a structure of its own (the ABI kept)
Origin: backport, https://git.example.invalid/libqux/commit/$fixD"
build_pkg 2

# --- ground truth ---------------------------------------------------------------------------
lines() { # lines SIGN PATCH: the patch's - or + lines, without the sign
	grep "^$1" "$w/$2" | grep -v "^$1$1$1 " | cut -c2-
}
x1=$w/x1 x2=$w/x2

# M: the hunk applies forward on 1.0-2 again, not in reverse; 10-len.patch adds its lines,
# 40-len-ok.patch (later in the series) removes them from parse and adds them in q_init
fwd "$x2" "$fixM" 0 && ! rev "$x2" "$fixM" 0 || fail "truth M: the hunk is not 'absent' from 1.0-2 by patch"
for l in '	if (q->len > MAX_LEN || q->len < 0)' '		return -EINVAL;'; do
	lines + 10-len.patch | grep -qxF -- "$l" || fail "truth M: 10-len.patch does not add '$l'"
	lines - 40-len-ok.patch | grep -qxF -- "$l" || fail "truth M: 40-len-ok.patch does not remove '$l'"
done
lines + 40-len-ok.patch | grep -qxF -- '	if (q->len > MAX_LEN || q->len < 0)' || fail "truth M: the check is not moved"
# R: hunk 0 (retries) applies forward on 1.0-2, not in reverse; hunk 1 (timeout) reverts;
# 50-regression.patch puts the - line back
fwd "$x2" "$fixR" 0 && ! rev "$x2" "$fixR" 0 || fail "truth R: hunk 0 not 'absent' from 1.0-2"
rev "$x2" "$fixR" 1 || fail "truth R: hunk 1 not in 1.0-2"
lines + 50-regression.patch | grep -qxF -- '	q->retries = 4;' || fail "truth R: the regression patch does not put the line back"
# P: both hunks apply forward on 1.0-2 (at the third block: patch finds the context there), none
# reverts (the cast); the release's file has the check after the first two blocks, with (long)
for k in 0 1; do
	fwd "$x2" "$fixP" $k && ! rev "$x2" "$fixP" $k || fail "truth P: hunk $k not 'absent' from 1.0-2 by patch"
done
check_eq "$(grep -c 'return (long)len;' "$x2/src/s.c")" 3 "truth P: the check at the top and after two blocks in 1.0-2"
hunk "$fixP" 0 | sed 's/(nssize)/(long)/' | patch -d "$x2" -p1 --dry-run -s -f -l -R -F2 >/dev/null 2>&1 ||
	fail "truth P: hunk 0 not in 1.0-2 with the release's cast"
# W: hunk 0 changes blanks only; hunk 1 applies forward on 1.0-1, not in reverse
[ -z "$(hunk "$fixW" 0 | grep '^[-+]' | grep -v '^---' | grep -v '^+++' | cut -c2- | tr -d ' \t')" ] ||
	fail "truth W: hunk 0 changes more than blanks"
fwd "$x1" "$fixW" 1 && ! rev "$x1" "$fixW" 1 || fail "truth W: hunk 1 not absent from 1.0-1"
# S: the q.c hunk reverts on 1.0-2; the r.c hunk (the deletion) applies forward there, not in
# reverse; 05-gss.patch adds a call of read_one
g show --format= "$fixS" -- src/q.c > "$T/s0.patch"; g show --format= "$fixS" -- src/r.c > "$T/s1.patch"
(cd "$x2" && git apply --check --reverse "$T/s0.patch") || fail "truth S: the q.c hunk not in 1.0-2"
(cd "$x2" && git apply --check "$T/s1.patch") && ! (cd "$x2" && git apply --check --reverse "$T/s1.patch" 2>/dev/null) ||
	fail "truth S: the deletion not 'absent' from 1.0-2"
lines + 05-gss.patch | grep -q '^	return read_one(c);$' || fail "truth S: 05-gss.patch does not call read_one"
# X: hunk 0 reverts on 1.0-2, hunk 1 applies forward (not in reverse); its new name is
# nowhere in 1.0-2 nor in the Debian patches
rev "$x2" "$fixX" 0 || fail "truth X: hunk 0 not in 1.0-2"
fwd "$x2" "$fixX" 1 && ! rev "$x2" "$fixX" 1 || fail "truth X: hunk 1 not 'absent' from 1.0-2"
! grep -rq user_from_cmdline "$x2" || fail "truth X: user_from_cmdline in 1.0-2"
g show "$fixX^:src/u.c" | grep -q user_from_cmdline && fail "truth X: user_from_cmdline not new"
# N: the fix neither applies nor reverts on 1.0-2 (git apply --check both ways); its new names
# are in 1.0-2's file
g show --format= "$fixN" > "$T/n.patch"
(cd "$x2" && git apply --check "$T/n.patch" 2>/dev/null) && fail "truth N: applies on 1.0-2"
(cd "$x2" && git apply --check --reverse "$T/n.patch" 2>/dev/null) && fail "truth N: reverts on 1.0-2"
for name in term_on_frame_cb terminate test_run_ign run_with; do
	grep -q "$name" "$x2/tests/t_s.c" || fail "truth N: $name not in 1.0-2"
	g show "$fixN^:tests/t_s.c" | grep -q "$name" && fail "truth N: $name not new"
done
# D: the additions (h_conf_init, h.h) apply forward on 1.0-2, not in reverse; the patch
# naming the fix adds their lines; the check reverts with the patch's way to the count
for k in 0 2; do
	fwd "$x2" "$fixD" $k && ! rev "$x2" "$fixD" $k || fail "truth D: hunk $k not at its place in 1.0-2"
done
for l in '	int max_headers;' '	int count;' '	c->max_headers = 100;'; do
	lines + 70-max-headers.patch | grep -qxF -- "$l" || fail "truth D: 70-max-headers.patch does not add '$l'"
done
hunk "$fixD" 1 | sed 's/++r->count > conf.max_headers/++hc_of(r)->count > hc_of(r)->max_headers/' |
	patch -d "$x2" -p1 --dry-run -s -f -l -R -F2 >/dev/null 2>&1 || fail "truth D: the check not in 1.0-2"
for k in 0 1 2; do
	fwd "$x1" "$fixD" $k && ! rev "$x1" "$fixD" $k || fail "truth D: hunk $k not absent from 1.0-1"
done

serve_archive
cache=$T/cache
fc() { local rev=$1; shift; "$PROVENANCE" --cache "$cache" -c "sources.debianBaseUrl=http://127.0.0.1:$port/debian" \
	fixcheck "$@" --repo "$up" --at v1.0 --debian-source "libqux=1.0-$rev" --format json; }
get() { json_get "$T/last.out" "$1"; }
states() { get '" ".join(e["state"] for e in d[0]["evidence"])'; }
validate() {
	python3 -c 'import jsonschema' 2>/dev/null || return 0
	python3 - "$TOP/docs/schema/fixcheck.schema.json" "$T/last.out" <<'PY' || fail "fixcheck JSON does not validate"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
}

check_exit 0 "M: moved by a later patch" -- fc 2 "$fixM"
check_eq "$(states) $(get 'd[0]["evidence"][0]["via"]')" "present-changed-lines debian/patches/10-len.patch" "M on 1.0-2"
check_match "$(get 'd[0]["how"]')" '^(distribution-patch|adapted)$' "M on 1.0-2: how"
check_match "$(get 'd[0]["evidence"][0]["note"]')" "later patch of the series changes its lines again" "M: the note"
validate
check_exit 0 "M2 on 1.0-2" -- fc 2 "$fixM2"
check_exit 1 "M on 1.0-1" -- fc 1 "$fixM"
check_eq "$(states) $(get 'd[0]["how"]')" "absent missing" "M on 1.0-1"
check_exit 0 "R: one hunk reverted by a later patch" -- fc 2 "$fixR"
check_eq "$(states) $(get 'd[0]["how"]') $(get 'd[0]["evidence"][0]["via"]')" \
	"unknown present-exact adapted debian/patches/50-regression.patch" "R on 1.0-2"
check_match "$(get 'd[0]["evidence"][0]["note"]')" "reverts it" "R: the note"
validate
check_exit 1 "R on 1.0-1" -- fc 1 "$fixR"
check_eq "$(states) $(get 'd[0]["how"]')" "absent absent missing" "R on 1.0-1"
check_exit 0 "P: a look-alike pre-image where the fix does not go" -- fc 2 "$fixP"
check_eq "$(get 'd[0]["included"]') $(get 'd[0]["how"]')" "true adapted" "P on 1.0-2: never partial"
check_match "$(states)" "^(present-changed-lines|unknown) (present-changed-lines|unknown)$" "P on 1.0-2: no hunk absent"
validate
check_exit 1 "W: a line of blanks decides nothing" -- fc 1 "$fixW"
check_eq "$(get 'd[0]["how"]') $(get 'd[0]["evidence"][0]["note"]') $(get 'd[0]["evidence"][1]["state"]')" \
	"missing it changes blanks only absent" "W on 1.0-1"
validate
check_exit 0 "S: a deletion of a function a Debian patch calls" -- fc 2 "$fixS"
check_eq "$(get '" ".join(e["file"] + ":" + e["state"] for e in d[0]["evidence"])') $(get 'd[0]["how"]')" \
	"src/q.c:present-exact src/r.c:unknown adapted" "S on 1.0-2"
check_match "$(get 'd[0]["evidence"][1]["note"]')" "removes a function the deployed tree still calls" "S: the note"
validate
check_exit 1 "S on 1.0-1" -- fc 1 "$fixS"
check_eq "$(get 'd[0]["how"]')" missing "S on 1.0-1"
check_exit 0 "N: a test converted back to the release's framework" -- fc 2 "$fixN"
check_eq "$(states) $(get 'd[0]["how"]') $(get 'd[0]["evidence"][0]["via"]')" \
	"present-changed-lines adapted debian/patches/55-ign-test.patch" "N on 1.0-2"
validate
fc 1 "$fixN" >"$T/last.out" 2>"$T/last.err"; rc=$?
[ "$rc" = 1 ] || [ "$rc" = 3 ] || fail "N on 1.0-1: exit $rc"
check_eq "$(get 'd[0]["included"] is True')" false "N on 1.0-1: never included"
check_exit 0 "X: the fix's own flag left out by the backport" -- fc 2 "$fixX"
check_eq "$(states) $(get 'd[0]["how"]')" "present-exact unknown adapted" "X on 1.0-2"
check_match "$(get 'd[0]["evidence"][1]["note"]')" "patch naming the fix changes this file another way" "X: the note"
validate
check_exit 1 "X on 1.0-1" -- fc 1 "$fixX"
check_eq "$(states) $(get 'd[0]["how"]')" "absent absent missing" "X on 1.0-1"
check_exit 0 "D: additions a patch naming the fix makes at another place" -- fc 2 "$fixD"
check_eq "$(get 'd[0]["included"]') $(get 'd[0]["how"]')" "true adapted" "D on 1.0-2: never partial"
check_eq "$(get '" ".join(e["file"] + ":" + e["state"] for e in d[0]["evidence"])')" \
	"src/h.c:present-changed-lines src/h.c:present-changed-lines src/h.h:present-changed-lines" "D on 1.0-2"
check_match "$(get 'd[0]["evidence"][0]["note"]') $(get 'd[0]["evidence"][2]["via"]')" \
	"adds its lines at another place debian/patches/70-max-headers.patch" "D: the note"
validate
check_exit 1 "D on 1.0-1" -- fc 1 "$fixD"
check_eq "$(states) $(get 'd[0]["how"]')" "absent absent absent missing" "D on 1.0-1"
echo "all ok"
