#!/usr/bin/env bash
# Source for frames without line information, located by function name: a
# C++ library built stripped from a bundled repository (fixtures/byname),
# crashed in ns::Beta::process(int). Expected definitions come from grep of
# the tree; the library is checked to have no .symtab and no DWARF; the
# definitions are indexed once per commit (a second run reads the cache).
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in g++ git strip readelf python3; do command -v $c >/dev/null || skip "$c not installed"; done
B=$TOP/fixtures/byname

# the upstream repository, tagged v2.0
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
cp -r "$B/repo" "$T/up"
git -C "$T/up" -c init.defaultBranch=main init -q && git -C "$T/up" add -A &&
	git -C "$T/up" commit -qm "shapes" && git -C "$T/up" tag v2.0 || fail "cannot make the repository"
commit=$(git -C "$T/up" rev-parse HEAD)

# a stripped library: dynamic symbols only
mkdir -p "$T/run"
g++ -O0 -fPIC -shared -o "$T/run/libshapes.so" "$T/up/libs/shapes/shapes.cpp" || fail "cannot build libshapes"
strip --strip-all "$T/run/libshapes.so"
readelf -S "$T/run/libshapes.so" | grep -Eq '\.symtab|\.debug_info' && fail "libshapes.so is not stripped"
g++ -O0 -g -o "$T/run/app" "$B/app.cpp" "$T/run/libshapes.so" -Wl,-rpath,"$T/run" || fail "cannot build app"
core=$(make_core "$T/run" ./app) || exit 1

cat >"$T/shapes.map" <<MAP
[component "shapes"]
	library = libshapes.so*
	repo = https://example.invalid/shapes.git
	subdir = libs/shapes
	ref = v2.0
MAP
run() {
	"$PROVENANCE" resolve "$core" --mapping "$T/shapes.map" \
		-c "url.file://$T/up.insteadOf=https://example.invalid/shapes.git" "$@"
}
run --format json >"$T/r.json" 2>"$T/r.err"
rc=$?
cat "$T/r.err"
[ $rc -le 1 ] || fail "resolve exited $rc"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "JSON contract"

fr='[t for t in d["threads"] if t["crashed"]][0]["frames"]'
check_eq "$(json_get "$T/r.json" "$fr[0][\"function\"]")" "ns::Beta::process(int)" "frame 0 (from the dynamic symbol table)"
check_eq "$(json_get "$T/r.json" "$fr[0][\"line\"]")" null "frame 0 has no line"
check_eq "$(json_get "$T/r.json" "$fr[0][\"located_by\"]")" name "frame 0 located by name"
check_eq "$(json_get "$T/r.json" "[c['commit'] for c in d['components'] if c['name']=='shapes'][0]")" "$commit" "component commit = v2.0"

# ground truth: Beta's definitions in the component's subdir, by grep
want=$(cd "$T/up" && grep -n '^int Beta::process(' libs/shapes/shapes.cpp | cut -d: -f1 | sed 's|^|libs/shapes/shapes.cpp:|' | sort | tr '\n' ' ')
got=$(json_get "$T/r.json" '" ".join(sorted("%s:%d" % (s["path"], s["line"]) for s in d["sources"] if s["frame"] == 0 and s["located_by"] == "name"))')
check_eq "$got " "$want" "frame 0 candidates = Beta::process definitions in libs/shapes (not Alpha's, not other/decoy.cpp)"
check_eq "$(json_get "$T/r.json" '[s["candidates"] for s in d["sources"] if s["frame"] == 0][0]')" 2 "two candidates (the overloads)"
check_eq "$(json_get "$T/r.json" '[s["function"] for s in d["sources"] if s["frame"] == 0][0]')" "ns::Beta::process" "qualified name of the candidates"
# the excerpt is the tree's text from the definition's line on
line=$(cd "$T/up" && grep -n '^int Beta::process(int v)' libs/shapes/shapes.cpp | cut -d: -f1)
check_eq "$(json_get "$T/r.json" "[l['text'] for s in d['sources'] if s['frame'] == 0 for l in s['lines'] if l['number'] == $line][0]")" \
	"$(git -C "$T/up" show "v2.0:libs/shapes/shapes.cpp" | sed -n "${line}p")" "first line of the definition (git show)"
# an extern "C" function: one definition
line=$(cd "$T/up" && grep -n '^extern "C" int shapes_run(' libs/shapes/shapes.cpp | cut -d: -f1)
check_eq "$(json_get "$T/r.json" '" ".join("%s:%d:%d" % (s["path"], s["line"], s["candidates"]) for s in d["sources"] if s["frame"] == 1)')" \
	"libs/shapes/shapes.cpp:$line:1" "frame 1 shapes_run: its one definition"

# every format says it is a guess
run --format markdown >"$T/r.md" 2>/dev/null
grep -q 'located by name (a guess, one of several candidates)' "$T/r.md" || fail "markdown does not call the by-name source a guess"
echo "ok: markdown says 'a guess'"
run >"$T/r.txt" 2>/dev/null
grep -q 'located by name (a guess' "$T/r.txt" || fail "text does not call the by-name source a guess"
echo "ok: text says 'a guess'"

# indexed once: the cache holds the commit's definitions; a second run agrees
python3 - "$PROVENANCE_CACHE/cache.sqlite" "$commit" <<'PY' || fail "definitions not in the cache"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("SELECT count(*) FROM srcdefs JOIN srcdefs_sets s ON s.id = set_id WHERE s.commit_id = ? AND s.subdir = 'libs/shapes'", (sys.argv[2],)).fetchone()[0]
assert n == 4, n  # Alpha::process, two Beta::process, shapes_run
print("ok: %d definitions cached for the commit" % n)
PY
run --format json --offline >"$T/r2.json" 2>/dev/null
check_eq "$(json_get "$T/r2.json" '[(s["path"], s["line"]) for s in d["sources"]]')" \
	"$(json_get "$T/r.json" '[(s["path"], s["line"]) for s in d["sources"]]')" "second run (from the cache) finds the same"
exit 0
