#!/usr/bin/env bash
# fixcheck on a fix made of several commits: A..B (the commits in B not in
# A, merges left out) and several COMMITs with --one-fix. A repository built
# here: a three-commit fix on main (one commit through a merged topic
# branch), two of its commits cherry-picked onto release-1.x (one with -x,
# one without) and tagged v1.0.1, the third picked later and tagged v1.0.2.
# Ground truth: git rev-list --no-merges (the commits of the range),
# git cherry (which commits have an equivalent patch on the release),
# git merge-base --is-ancestor, git tag --contains, git apply --check
# [--reverse] on v1.0 (nothing of the fix in it); JSON checked against
# docs/schema/fixcheck.schema.json.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"

up=$T/up
n=0
g() {
	n=$((n + 1))
	GIT_AUTHOR_DATE="@$((1700000000 + n * 60)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + n * 60)) +0000" \
		git -C "$up" -c user.name=Up -c user.email=up@example.invalid "$@"
}
git init -q -b main "$up"
for f in a b c d; do printf 'int %s(void)\n{\n\treturn 0;\n}\n' "$f" > "$up/$f.c"; done
g add -A && g commit -qm "base" && g tag v1.0
g branch release-1.x
# the fix, three commits, the second through a merged topic branch
sed -i 's/return 0;/return 1; \/* fix part 1 *\//' "$up/a.c"; g commit -qam "fix part 1"
f1=$(g rev-parse HEAD)
g checkout -qb topic
sed -i 's/return 0;/return 2; \/* fix part 2 *\//' "$up/b.c"; g commit -qam "fix part 2"
f2=$(g rev-parse HEAD)
g checkout -q main
printf '/* unrelated */\n' >> "$up/d.c"; g commit -qam "unrelated"
g merge -q --no-ff -m "merge topic" topic
sed -i 's/return 0;/return 3; \/* fix part 3 *\//' "$up/c.c"; g commit -qam "fix part 3"
f3=$(g rev-parse HEAD)
g tag v1.1
# the release branch: parts 1 and 2, then part 3 later
g checkout -q release-1.x
g cherry-pick -x "$f1" >/dev/null
g cherry-pick "$f2" >/dev/null
g tag v1.0.1
g cherry-pick -x "$f3" >/dev/null
g tag v1.0.2
g checkout -q main

# ground truth
want_commits=$(git -C "$up" rev-list --reverse --no-merges "$f1^..$f3")
check_eq "$(echo "$want_commits" | sort | tr '\n' ' ')" "$(printf '%s\n' "$f1" "$f2" "$(git -C "$up" rev-parse main~2)" "$f3" | sort | tr '\n' ' ')" \
	"fixture: rev-list of the range (the unrelated commit is in it too)"
missing_101=$(git -C "$up" cherry v1.0.1 "$f3" v1.0 | sed -n 's/^+ //p' | tr '\n' ' ')
unrelated=$(git -C "$up" rev-parse main~2)
check_eq "$missing_101" "$unrelated $f3 " "git cherry v1.0.1: unrelated and part 3 have no equivalent"
[ -z "$(git -C "$up" cherry v1.0.2 "$f3" v1.0 | sed -n 's/^+ //p' | grep -v "$unrelated")" ] || fail "fixture: v1.0.2 lacks a part"
first_all=$(git -C "$up" tag --contains "$f3" --sort=creatordate | head -1)

fc() { "$PROVENANCE" fixcheck "$@"; }
schema=$TOP/docs/schema/fixcheck.schema.json
validate() {
	python3 - "$schema" "$1" <<'PY' || fail "$1 does not validate against the schema"
import json, sys
import jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
}

# --- a range: every commit of it, merges left out -----------------------------------------
check_exit 1 "range v1.0..$f3 at v1.0.1: the unrelated commit and part 3 missing" -- fc "v1.0..$f3" --repo "$up" --at v1.0.1 --format json
cp "$T/last.out" "$T/r1.json"
check_eq "$(json_get "$T/r1.json" 'len(d)')" 1 "one result for one range"
check_eq "$(json_get "$T/r1.json" '" ".join(sorted(d[0]["commits"]))')" "$(git -C "$up" rev-list --no-merges "v1.0..$f3" | sort | tr '\n' ' ' | sed 's/ $//')" \
	"commits = git rev-list --no-merges v1.0..$f3"
check_eq "$(json_get "$T/r1.json" 'd[0]["fix"]')" "$f3" "fix = the range's newest commit"
check_eq "$(json_get "$T/r1.json" 'd[0]["included"]')" false "not included"
check_eq "$(json_get "$T/r1.json" 'd[0]["how"]')" partial "how"
check_eq "$(json_get "$T/r1.json" '" ".join(sorted(d[0]["commits_missing"]))')" "$(echo $missing_101 | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" \
	"commits_missing = the + lines of git cherry"
check_eq "$(json_get "$T/r1.json" 'd[0]["first_tag"]')" "$first_all" "first tag containing all (git tag --contains)"
validate "$T/r1.json"
echo "ok: range JSON validates"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d[0]["commits_missing"]=["not-a-commit"]; json.dump(d,open(sys.argv[2],"w"))' "$T/r1.json" "$T/bad.json"
(validate "$T/bad.json") >/dev/null 2>&1 && fail "the schema accepts a commits_missing entry that is not a commit"
echo "ok: the schema rejects a bad commits_missing"

# --- several COMMITs as one fix --------------------------------------------------------------
check_exit 0 "--one-fix parts 1 and 2 at v1.0.1" -- fc --one-fix "$f1" "$f2" --repo "$up" --at v1.0.1 --format json
cp "$T/last.out" "$T/o1.json"
check_eq "$(json_get "$T/o1.json" 'len(d)')" 1 "--one-fix: one result"
check_eq "$(json_get "$T/o1.json" 'd[0]["how"]')" cherry-pick "--one-fix: how"
check_eq "$(json_get "$T/o1.json" 'd[0]["included"]')" true "--one-fix: included"
pick1=$(git -C "$up" log --format=%H --grep "cherry picked from commit $f1" v1.0.1)
check_match "$(json_get "$T/o1.json" 'd[0]["via"]')" "$pick1" "--one-fix: via names the -x pick of part 1 (git log --grep)"
check_eq "$(json_get "$T/o1.json" 'd[0]["commits_missing"]')" null "--one-fix: nothing missing"
validate "$T/o1.json"

check_exit 1 "--one-fix parts 1, 2, 3 at v1.0.1" -- fc --one-fix "$f1" "$f2" "$f3" --repo "$up" --at v1.0.1
check_match "$(cat "$T/last.out")" "^PARTIAL $f1 $f2 $f3 \\[3 commits\\] is partly in v1\\.0\\.1 .*partial, missing ${f3:0:12}" "text names the missing commit"
check_eq "$(wc -l < "$T/last.out")" 1 "one line for one fix"
check_exit 0 "--one-fix parts 1, 2, 3 at v1.0.2" -- fc --one-fix "$f1" "$f2" "$f3" --repo "$up" --at v1.0.2 --format json
check_eq "$(json_get "$T/last.out" 'd[0]["how"]')" cherry-pick "all three picked by v1.0.2"
# a range and a commit, meant as one fix
check_exit 0 "--one-fix range + commit at v1.0.2" -- fc --one-fix "$f1^..$f1" "$f2" --repo "$up" --at v1.0.2 --format json
check_eq "$(json_get "$T/last.out" 'len(d[0]["commits"])')" 2 "--one-fix: range + commit = 2 commits"

# --- ancestry on main, none at the base --------------------------------------------------------
git -C "$up" merge-base --is-ancestor "$f3" v1.1 || fail "fixture: part 3 not in v1.1"
check_exit 0 "range at v1.1 (on main)" -- fc "v1.0..$f3" --repo "$up" --at v1.1 --format json
check_eq "$(json_get "$T/last.out" 'd[0]["how"]')" ancestor "range on main: ancestor"
# the truth for "nothing in": each commit of the range applies on v1.0 and does not revert there
mkdir -p "$T/v10" && git -C "$up" archive v1.0 | tar -x -C "$T/v10"
for c in $(git -C "$up" rev-list --no-merges "v1.0..$f3"); do
	git -C "$up" show --format= "$c" > "$T/c.patch"
	(cd "$T/v10" && git apply --check "$T/c.patch") || fail "truth: ${c:0:12} does not apply on v1.0"
	(cd "$T/v10" && git apply --check --reverse "$T/c.patch") 2>/dev/null && fail "truth: ${c:0:12} reverts on v1.0"
done
echo "ok: git apply --check: every commit of the range applies on v1.0, none reverts"
check_exit 1 "range at v1.0: nothing in" -- fc "v1.0..$f3" --repo "$up" --at v1.0 --format json
cp "$T/last.out" "$T/n.json"
check_eq "$(json_get "$T/n.json" 'd[0]["how"]')" missing "nothing in: how missing (every commit's hunks absent)"
check_eq "$(json_get "$T/n.json" 'len(d[0]["commits_missing"])')" "$(git -C "$up" rev-list --no-merges --count "v1.0..$f3")" "nothing in: every commit missing"
validate "$T/n.json"
# without --one-fix, each argument is its own fix
check_exit 1 "two fixes, one missing" -- fc "$f1" "$f3" --repo "$up" --at v1.0.1
check_eq "$(grep -c '^YES ' "$T/last.out") $(grep -c '^NO ' "$T/last.out")" "1 1" "two lines: YES part 1, NO part 3"

# --- bad ranges --------------------------------------------------------------------------------
check_exit 64 "A...B" -- fc "v1.0...$f3" --repo "$up" --at v1.0.1
check_exit 64 "..B" -- fc "..$f3" --repo "$up" --at v1.0.1
check_exit 64 "A.." -- fc "v1.0.." --repo "$up" --at v1.0.1
check_exit 2 "empty range" -- fc "$f3..$f1" --repo "$up" --at v1.0.1
check_match "$(cat "$T/last.err")" "^provenance: range .* has no commits" "empty range message"
check_exit 2 "unknown end" -- fc "v1.0..nosuchrev" --repo "$up" --at v1.0.1
echo "all ok"
