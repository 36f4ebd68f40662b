#!/usr/bin/env bash
# Suspects (possible upstream fixes): a library built from tag v1.0 of a
# repository made here crashes three frames deep; upstream then moves lines
# by edits above them, changes the crash lines, renames one file, moves one
# function to another file, and backports a change on a release branch.
# The commits resolve lists for each frame are checked against
# `git log -L START,END:PATH v1.0..BRANCH` on both branches.
. "$(dirname "$0")/lib.sh"
can_dump_core

up=$T/up
export GIT_AUTHOR_NAME="Sus Upstream" GIT_AUTHOR_EMAIL=sus@example.invalid
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
g() { git -C "$up" -c advice.detachedHead=false "$@"; }
day=0
commit() {	# commit MESSAGE: everything, one day after the previous commit
	day=$((day + 1))
	local d
	d=$(printf '2024-01-%02dT10:00:00Z' "$day")
	g add -A && GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d g commit -qm "$1" || fail "commit '$1'"
}
tag() {	# tag NAME: annotated, an hour after the last commit
	local d
	d=$(printf '2024-01-%02dT11:00:00Z' "$day")
	GIT_COMMITTER_DATE=$d g tag -a "$1" -m "$1" || fail "tag $1"
}

# --- v1.0: sus_a -> sus_b -> sus_c, which dereferences NULL -------------------
git -c init.defaultBranch=main init -q "$up"
mkdir -p "$up/src"
cat >"$up/src/sus.h" <<'EOF'
int sus_a(int *p);
int sus_b(int *p);
int sus_c(int *p);
EOF
cat >"$up/src/a.c" <<'EOF'
#include "sus.h"

int sus_a(int *p)
{
	int bias = 1;

	bias += 2;
	return sus_b(p) + bias;	/* MARK-A */
}
EOF
cat >"$up/src/b.c" <<'EOF'
#include "sus.h"

int sus_b(int *p)
{
	return sus_c(p) * 2;	/* MARK-B */
}
EOF
cat >"$up/src/c.c" <<'EOF'
#include "sus.h"

int sus_keep(void)
{
	return 7;
}

int sus_c(int *p)
{
	int v = *p;	/* MARK-C */

	return v + 1;
}
EOF
commit "Start libsus"
tag v1.0

# --- a release branch with a backport -------------------------------------------
g checkout -q -b release-1.0
sed -i 's|return sus_b(p) + bias;	/\* MARK-A \*/|return p ? sus_b(p) + bias : 0;	/* MARK-A */|' "$up/src/a.c"
commit "a: backport the NULL check to 1.0"
tag v1.0.1
g checkout -q main

# --- main: lines moved by edits above, crash lines changed, rename, move ---------
printf '/* libsus\n * a banner\n * of four lines\n */\n' | cat - "$up/src/a.c" >"$T/a.c" && mv "$T/a.c" "$up/src/a.c"
commit "a: banner comment"
sed -i 's|return sus_b(p) + bias;	/\* MARK-A \*/|return p ? sus_b(p) + bias : -1;	/* MARK-A */|' "$up/src/a.c"
commit "a: fix a NULL dereference in sus_a"
sed -i 's|	bias += 2;|	bias += 3;|' "$up/src/a.c"
commit "a: tune the bias"
printf '\nint sus_a2(void)\n{\n\treturn 2;\n}\n' >>"$up/src/a.c"
commit "a: add sus_a2 below"
sed -i '1i /* first line added above everything */' "$up/src/a.c"
commit "a: one more line above"
# a topic branch forked at the deployed commit changes sus_a, merged later
g checkout -q -b topic v1.0
sed -i 's|	int bias = 1;|	int bias = 5;|' "$up/src/a.c"
commit "a: start the bias at 5"
g checkout -q main
day=$((day + 1))
d=$(printf '2024-01-%02dT10:00:00Z' "$day")
GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d g merge -q --no-ff -m "Merge the topic" topic >/dev/null || fail "merge"
tag v1.1
g mv src/b.c src/bee.c
commit "rename b.c to bee.c"
sed -i 's|return sus_c(p) \* 2;	/\* MARK-B \*/|return sus_c(p) * 2 + 0;	/* MARK-B */|' "$up/src/bee.c"
commit "bee: guard against overflow"
# sus_c moves to d.c (and c.c keeps sus_keep)
python3 - "$up/src/c.c" "$up/src/d.c" <<'PY'
import sys
src = open(sys.argv[1]).read()
i = src.index("int sus_c(")
open(sys.argv[1], "w").write(src[:i].rstrip("\n") + "\n")
open(sys.argv[2], "w").write('#include "sus.h"\n\n' + src[i:])
PY
commit "move sus_c to d.c"
moved=$(g rev-parse HEAD)
sed -i 's|int v = \*p;	/\* MARK-C \*/|int v = p ? *p : 0;	/* MARK-C */|' "$up/src/d.c"
commit "d: fix the crash in sus_c"
after_move=$(g rev-parse HEAD)
tag v2.0
deployed=$(g rev-parse 'v1.0^{commit}')

# --- build v1.0 as a distribution would, crash it ------------------------------------
g worktree add -q --detach "$T/build" v1.0
mkdir -p "$T/run"
${CC:-cc} -g -O0 -fno-inline -fno-omit-frame-pointer -fPIC -shared -Wl,-soname,libsus.so.1 \
	-fdebug-prefix-map="$T/build=/usr/src/libsus-1.0" -o "$T/run/libsus.so.1" \
	"$T/build/src/a.c" "$T/build/src/b.c" "$T/build/src/c.c" || fail "cannot build libsus"
printf '#include <stddef.h>\nint sus_a(int *p);\nint main(void) { return sus_a(NULL); }\n' >"$T/app.c"
${CC:-cc} -g -O0 -o "$T/run/app" "$T/app.c" "$T/run/libsus.so.1" -Wl,-rpath,"$T/run" ||
	fail "cannot build the app"
core=$(make_core "$T/run" "$T/run/app")
cat >"$T/sus.map" <<EOF
[component "libsus"]
	library = libsus.so*
	repo = $up
	ref = v1.0
	path-prefix = */libsus-1.0/
EOF

"$PROVENANCE" resolve "$core" --mapping "$T/sus.map" --format json >"$T/r.json" 2>"$T/r.err"
rc=$?
cat "$T/r.err"
[ $rc -le 1 ] || fail "resolve exited $rc"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "the report breaks the JSON contract"
check_eq "$(json_get "$T/r.json" '[c["commit"] for c in d["components"] if c["name"] == "libsus"][0]')" \
	"$deployed" "libsus deployed at v1.0"
frames='[t for t in d["threads"] if t["crashed"]][0]["frames"]'
check_eq "$(json_get "$T/r.json" "' '.join(f['function'] or '?' for f in $frames[:3])")" \
	"sus_c sus_b sus_a" "the crashing thread's three library frames"

# ours FUNCTION HOW: the suspects touching FUNCTION's frame, one hex a line, sorted
ours() {
	python3 - "$T/r.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fr = [t for t in d["threads"] if t["crashed"]][0]["frames"]
idx = [f["index"] for f in fr if f["function"] == sys.argv[2]][0]
how = sys.argv[3]
for s in sorted(d["suspects"], key=lambda s: s["commit"]):
    if idx in s["frames"] and (how == "any" or s["how_related"] == how):
        print(s["commit"])
PY
}
# gitlog BRANCH START END PATH: git log -L START,END:PATH v1.0..BRANCH, sorted
gitlog() {
	g log --format='commit %H' -L "$2,$3:$4" "v1.0..$1" | sed -n 's/^commit //p' | sort -u
}
# at BRANCH PATH MARK: the line number of the marked line on that branch
at() { g show "$1:$2" | grep -n "$3" | cut -d: -f1; }
# func_at BRANCH PATH NAME: "start end" of the function (its name line to its closing brace)
func_at() { g show "$1:$2" | awk -v n="$3(" 'index($0, n) && !s {s=NR} s && /^}/ {print s, NR; exit}'; }

# sus_a: lines moved by edits above (banner, one more line); the crash line
# changed on main and on the release branch; the function changed once more.
want=$( { l=$(at main src/a.c MARK-A); gitlog main "$l" "$l" src/a.c
	l=$(at release-1.0 src/a.c MARK-A); gitlog release-1.0 "$l" "$l" src/a.c; } | sort -u)
check_eq "$(ours sus_a 'changes crash line' | tr '\n' ' ')" "$(echo "$want" | tr '\n' ' ')" \
	"sus_a: commits changing its crash line = git log -L on main and release-1.0"
[ "$(echo "$want" | wc -l)" = 2 ] || fail "the fixture should have two commits on the crash line of sus_a"
read -r fs fe <<<"$(func_at main src/a.c 'int sus_a')"
read -r rs re <<<"$(func_at release-1.0 src/a.c 'int sus_a')"
want=$( { gitlog main "$fs" "$fe" src/a.c; gitlog release-1.0 "$rs" "$re" src/a.c; } | sort -u)
all=$want
check_eq "$(ours sus_a any | tr '\n' ' ')" "$(echo "$want" | tr '\n' ' ')" \
	"sus_a: commits changing the line or its function = git log -L over the function"
tune=$(g log --format=%H --grep='tune the bias' main)
topic=$(g rev-parse topic)
check_match "$want" "$topic" "git log -L sees the topic branch's commit"
check_match "$(ours sus_a 'changes function')" "$tune" "sus_a: the commit changing only its function"
check_match "$(ours sus_a 'changes function')" "$topic" "sus_a: the topic branch's commit, merged into main"

# sus_b: its file renamed, then the crash line changed: followed through the rename
l=$(at main src/bee.c MARK-B)
want=$(gitlog main "$l" "$l" src/bee.c)
all="$all
$want"
check_eq "$(ours sus_b 'changes crash line' | tr '\n' ' ')" "$(echo "$want" | tr '\n' ' ')" \
	"sus_b: through the rename b.c -> bee.c = git log -L on bee.c"
check_match "$want" "$(g log --format=%H --grep=overflow main)" "git log -L sees the change after the rename"

# sus_c: moved to d.c, then changed there. The move is listed (it deletes the
# lines from c.c); the change in d.c is not followed (documented limitation).
l=$(at main src/d.c MARK-C)
git_d=$(gitlog main "$l" "$l" src/d.c)
check_match "$git_d" "$moved" "git log -L on d.c reaches the move"
check_match "$git_d" "$after_move" "git log -L on d.c sees the later change"
check_eq "$(ours sus_c any | tr '\n' ' ')" "$moved " "sus_c: only the move (later changes in d.c are not followed)"
all="$all
$moved"

# --- every suspect: subject, date, first tag as git says --------------------------------
python3 - "$T/r.json" >"$T/sus.tsv" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["suspects"]:
    print("\t".join([s["commit"], s["subject"], s["date"], s["first_tag"] or "-", s["component"], s["path"]]))
PY
n=0
while IFS=$'\t' read -r c subj date ftag comp path; do
	n=$((n + 1))
	check_eq "$subj" "$(g log -1 --format=%s "$c")" "subject of ${c:0:12}"
	check_eq "$date" "$(TZ=UTC g log -1 --date=format-local:%Y-%m-%d --format=%cd "$c")" "date of ${c:0:12}"
	check_eq "$ftag" "$(g tag --contains "$c" --sort=taggerdate | head -1 | sed 's/^$/-/')" "first tag containing ${c:0:12}"
	check_eq "$comp" libsus "component of ${c:0:12}"
done <"$T/sus.tsv"
check_eq "$n" "$(echo "$all" | sort -u | wc -l)" "as many suspects as git log -L found for the three frames"
# ranking: crash line first, then messages saying fix/crash/..., then newest first
python3 - "$T/r.json" <<'PY' || fail "suspects are not ranked"
import json, sys
s = json.load(open(sys.argv[1]))["suspects"]
keys = [(s_["how_related"] != "changes crash line", not s_["fix_words"]) for s_ in s]
assert keys == sorted(keys), keys
assert s[-1]["how_related"] == "changes function", s[-1]
print("ok: ranked crash line first, fix words next")
PY
check_match "$(json_get "$T/r.json" 'd["suspects_fixcheck"]')" "^provenance fixcheck [0-9a-f]{12} --repo $up --at ${deployed:0:12}$" \
	"suggested fixcheck command"
cmd=$(json_get "$T/r.json" 'd["suspects_fixcheck"]')
top=$(json_get "$T/r.json" 'd["suspects"][0]["commit"]')
# shellcheck disable=SC2086 # the suggested command line, word-split as a shell would
"$PROVENANCE" ${cmd#provenance } >"$T/fc.out"
rc=$?
if g merge-base --is-ancestor "$top" "$deployed"; then want=0; else want=1; fi
check_eq "$rc" "$want" "the suggested fixcheck runs and answers as git merge-base"

# --- the same again: from the cache, the same answer --------------------------------
"$PROVENANCE" resolve "$core" --mapping "$T/sus.map" --format json >"$T/r2.json" 2>/dev/null
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["suspects"]; b=json.load(open(sys.argv[2]))["suspects"]; sys.exit(a != b)' \
	"$T/r.json" "$T/r2.json" || fail "the second (cached) run gives other suspects"
rows=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from suspects").fetchone()[0])' \
	"$PROVENANCE_CACHE/cache.sqlite")
check_eq "$rows" 3 "cached results: one per (commit, path, ranges) of the three files"
echo "ok: the cached run gives the same suspects"

# --- markdown and text -------------------------------------------------------------------
"$PROVENANCE" resolve "$core" --mapping "$T/sus.map" --format markdown >"$T/r.md" 2>/dev/null
grep -q '^### Possible upstream fixes' "$T/r.md" || fail "markdown lacks the section"
for c in $(cut -f1 "$T/sus.tsv"); do
	grep -q "\`${c:0:12}\`" "$T/r.md" || fail "markdown lacks ${c:0:12}"
done
"$PROVENANCE" resolve "$core" --mapping "$T/sus.map" >"$T/r.txt" 2>/dev/null
grep -q '^Possible upstream fixes' "$T/r.txt" || fail "text lacks the section"
echo "ok: markdown and text list the suspects"

# --- --no-suspects ------------------------------------------------------------------------
"$PROVENANCE" resolve "$core" --mapping "$T/sus.map" --no-suspects --format json >"$T/n.json" 2>/dev/null
check_eq "$(json_get "$T/n.json" 'len(d["suspects"])')" 0 "--no-suspects lists none"
# --- deployed at the head: nothing after it -------------------------------------------------
sed 's/ref = v1.0$/ref = v2.0/' "$T/sus.map" >"$T/head.map"
"$PROVENANCE" resolve "$core" --mapping "$T/head.map" --format json >"$T/h.json" 2>/dev/null
check_eq "$(g rev-list --count v2.0..main)" 0 "git: no commit after v2.0 on main"
check_eq "$(json_get "$T/h.json" 'len(d["suspects"])')" 0 "deployed at the head: no suspects"
check_match "$(json_get "$T/h.json" 'd["suspects_frames"]')" '^[1-9]' "deployed at the head: frames were looked at"
"$PROVENANCE" resolve "$core" --mapping "$T/head.map" --format markdown 2>/dev/null |
	grep -q '^No upstream commit after the deployed one changed' || fail "markdown does not say none was found"
echo "all suspects checks passed"
