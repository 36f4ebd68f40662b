#!/usr/bin/env bash
# fixcheck INPUT --component / resolve --fix on a component whose deployed
# source is a Debian source package import (mapping `debian-source`): the
# fixes are looked up in the upstream repository the mapping names beside it
# (`repo`, `ref`), the deployed build being that tag plus the package's quilt
# series. The package is made by dpkg-source -b (fixtures/srcpkg), the crash
# by running its library in a root; the upstream repository is built here
# with one fix that Debian carries as a patch and one it does not.
# Ground truth: dpkg-source -x (the patch carrying the fix, by grep), git
# merge-base --is-ancestor, git tag --contains, the import's upstream tree =
# git write-tree of the upstream tag.
. "$(dirname "$0")/lib.sh"
command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"
command -v python3 >/dev/null || skip "no python3"

"$TOP/fixtures/srcpkg/build-srcpkg.sh" "$T/s" >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "fixture build failed"; }
root=$T/s/root
[ -f "$root/core" ] || skip "no core was made ($(cat /proc/sys/kernel/core_pattern))"

# --- the upstream repository ------------------------------------------------------
up=$T/up
g() { git -C "$up" -c user.name=Up -c user.email=up@example.invalid "$@"; }
mkdir -p "$up"
git init -q "$up"
cp "$TOP/fixtures/srcpkg/libfoo-1.0/README" "$up/"
g add -A && g commit -qm "start libfoo"
old=$(g rev-parse HEAD)
cp -r "$TOP/fixtures/srcpkg/libfoo-1.0/." "$up/"
g add -A && g commit -qm "libfoo 1.0" && g tag v1.0
# upstream's fix, which Debian carries as 01-document-null.patch
g apply -p1 "$T/s/patched/debian/patches/01-document-null.patch" || fail "cannot apply the Debian patch upstream"
g commit -qam "document the NULL contract of foo_length"
fixa=$(g rev-parse HEAD)
# another upstream fix, not in the Debian package
printf '/* foo_count never returns a negative count */\n' >> "$up/include/foo.h"
g commit -qam "document foo_count"
fixb=$(g rev-parse HEAD)
g tag v1.1

# ground truth
git -C "$up" merge-base --is-ancestor "$fixa" v1.0 && fail "fixture: fix A is an ancestor of v1.0"
git -C "$up" merge-base --is-ancestor "$old" v1.0 || fail "fixture: the first commit is not in v1.0"
want_patch=debian/patches/$(grep -l '^+.*Debian: document that foo_length' "$T/s/patched/debian/patches/"*.patch | xargs -n1 basename)
check_eq "$want_patch" debian/patches/01-document-null.patch "the patch of dpkg-source -x carrying fix A (grep)"
grep -q 'foo_count never returns' "$T/s/patched/debian/patches/"* "$T/s/patched/include/foo.h" && fail "fixture: fix B is in the package"
first_b=$(git -C "$up" tag --contains "$fixb" | head -1)

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 "$port" --directory "$T/s/www" >"$T/http.log" 2>&1 &
http_pid=$!
trap 'kill $http_pid 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && break; sleep 0.1; done
base=http://127.0.0.1:$port/debian
cache=$T/cache

cat > "$T/up.map" <<MAP
[component "libfoo"]
	package = libfoo
	repo = file://$up
	ref = v{upstream_version}
	debian-source = {source}
MAP
cat > "$T/noup.map" <<MAP
[component "libfoo"]
	package = libfoo
	debian-source = {source}
MAP
P() { "$PROVENANCE" --cache "$cache" -c "sources.debianBaseUrl=$base" "$@"; }
fc() { P fixcheck "$@" "$root/core" --component libfoo --sysroot "$root" --mapping "$T/up.map"; }

# --- fix A: in the package as its Debian patch ------------------------------------------
check_exit 0 "fixcheck (debian-source component): fix A carried by the package" -- fc "$fixa" --format json
cp "$T/last.out" "$T/a.json"
check_eq "$(json_get "$T/a.json" 'd[0]["included"]')" true "fix A included"
check_eq "$(json_get "$T/a.json" 'd[0]["how"]')" distribution-patch "fix A how"
check_eq "$(json_get "$T/a.json" 'd[0]["via"]')" "$want_patch" "fix A via = the series patch carrying it"
check_eq "$(json_get "$T/a.json" 'd[0]["fix"]')" "$fixa" "fix A commit"
check_eq "$(json_get "$T/a.json" 'd[0]["deployed"]')" "$(git -C "$up" rev-parse 'v1.0^{commit}')" "deployed = the upstream tag of the package's upstream version"
check_eq "$(json_get "$T/a.json" 'd[0]["component"]')" libfoo "component"
# the import's upstream commit is that tag's tree (the orig tarball)
imp=$(ls -d "$cache"/imports/debian-libfoo.git)
check_eq "$(git --git-dir="$imp" rev-parse 'refs/imports/libfoo/1.0-1^^{tree}')" "$(git -C "$up" rev-parse 'v1.0^{tree}')" \
	"import's upstream tree = git write-tree of v1.0"

check_exit 0 "text" -- fc "$fixa"
check_match "$(cat "$T/last.out")" "^YES $fixa is in v1\\.0 \\+ Debian source with 2 patches \\(libfoo\\).*distribution-patch debian/patches/01-document-null\\.patch" "text line"

# --- fix B: not in it; an old commit: ancestor ---------------------------------------------
check_exit 1 "fix B not in the package" -- fc "$fixb" --format json
cp "$T/last.out" "$T/b.json"
check_eq "$(json_get "$T/b.json" 'd[0]["included"]')" false "fix B included"
(cd "$T/s/patched" && git -C "$up" show "$fixb" | patch -p1 --dry-run -s) >/dev/null || fail "patch --dry-run: fix B does not apply to the package"
check_eq "$(json_get "$T/b.json" 'd[0]["how"]')" missing "fix B how (applies forward: patch --dry-run)"
check_eq "$(json_get "$T/b.json" 'd[0]["first_tag"]')" "$first_b" "fix B first tag (git tag --contains)"
check_exit 0 "an upstream commit before v1.0" -- fc "$old" --format json
check_eq "$(json_get "$T/last.out" 'd[0]["how"]')" ancestor "old commit how (git merge-base --is-ancestor)"

# --- no upstream repository in the mapping: could not determine (3), never bad input ----------
check_exit 3 "no upstream repository known" -- P fixcheck "$fixa" "$root/core" --component libfoo --sysroot "$root" --mapping "$T/noup.map"
check_match "$(cat "$T/last.err")" "^provenance: .*libfoo is built from an imported source \\(Debian source with 2 patches\\).*no upstream repository.*'repo' and 'ref'" "reason on stderr"
[ "$(wc -l < "$T/last.err")" -le 2 ] || fail "more than a short reason on stderr"
check_exit 64 "--debian-source with --component is a usage error" -- \
	P fixcheck "$fixa" "$root/core" --component libfoo --sysroot "$root" --debian-source libfoo=1.0-1

# --- resolve --fix: the same answers ------------------------------------------------------------
check_exit 0 "resolve --fix A" -- P resolve "$root/core" --sysroot "$root" --mapping "$T/up.map" --fix "$fixa" --format json
cp "$T/last.out" "$T/r.json"
check_eq "$(json_get "$T/r.json" 'd["fixes"][0]["how"]')" distribution-patch "resolve: fix A how"
check_eq "$(json_get "$T/r.json" 'd["fixes"][0]["via"]')" "$want_patch" "resolve: fix A via"
check_eq "$(json_get "$T/r.json" 'd["fixes"][0]["included"]')" true "resolve: fix A included"
check_exit 1 "resolve --fix B" -- P resolve "$root/core" --sysroot "$root" --mapping "$T/up.map" --fix "$fixb" --format json
check_eq "$(json_get "$T/last.out" 'd["fixes"][0]["first_tag"]')" "$first_b" "resolve: fix B first tag"
check_eq "$(json_get "$T/last.out" 'd["fixes"][0]["how"]')" missing "resolve: fix B how = fixcheck's"
check_eq "$(json_get "$T/last.out" 'json.dumps(d["fixes"][0]["evidence"], sort_keys=True)')" \
	"$(json_get "$T/b.json" 'json.dumps(d[0]["evidence"], sort_keys=True)')" "resolve: fix B evidence = fixcheck's"
check_exit 1 "resolve --fix B (markdown)" -- P resolve "$root/core" --sysroot "$root" --mapping "$T/up.map" --fix "$fixb" --format markdown
check_match "$(cat "$T/last.out")" "NOT included.*hunks: 1 absent \[include/foo\.h @@ .* absent\]" "resolve: markdown names the absent hunk"
check_exit 3 "resolve --fix, no upstream repository" -- P resolve "$root/core" --sysroot "$root" --mapping "$T/noup.map" --fix "$fixa" --format json
check_match "$(json_get "$T/last.out" 'd["fixes"][0]["note"]')" "no upstream repository" "resolve: the note says why"
# --- a fix of two commits (A..B): one carried by the package, one not ----------------------
range="v1.0..$fixb"
check_eq "$(git -C "$up" rev-list --reverse "$range" | tr '\n' ' ')" "$fixa $fixb " "git rev-list $range"
check_exit 1 "fixcheck $range: partial" -- fc "$range" --format json
check_eq "$(json_get "$T/last.out" 'd[0]["how"]')" partial "range: how"
check_eq "$(json_get "$T/last.out" '" ".join(d[0]["commits_missing"])')" "$fixb" "range: the commit the package lacks"
check_eq "$(json_get "$T/last.out" 'd[0]["via"]')" "$want_patch" "range: via = the patch carrying the other"
check_exit 1 "resolve --fix $range" -- P resolve "$root/core" --sysroot "$root" --mapping "$T/up.map" --fix "$range" --format json
check_eq "$(json_get "$T/last.out" 'd["fixes"][0]["how"]')" partial "resolve range: how"
check_eq "$(json_get "$T/last.out" 'd["fixes"][0]["commits_missing"]')" "$fixb" "resolve range: commits_missing"
check_eq "$(json_get "$T/last.out" 'd["fixes"][0]["fix"]')" "$fixb" "resolve range: fix = its newest commit"
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 - "$TOP/docs/schema/report.schema.json" "$T/last.out" <<'PY' || fail "resolve --fix A..B JSON does not validate"
import json, sys
import jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
	echo "ok: resolve --fix A..B JSON validates against docs/schema/report.schema.json"
fi
check_exit 1 "resolve --fix $range (text)" -- P resolve "$root/core" --sysroot "$root" --mapping "$T/up.map" --fix "$range"
check_match "$(cat "$T/last.out")" "NO +v1\.0\.\.$fixb is not in .*partly \(debian/patches/01-document-null\.patch; missing commits ${fixb:0:12}\)" "resolve range: text"
check_exit 1 "resolve --fix $range (markdown)" -- P resolve "$root/core" --sysroot "$root" --mapping "$T/up.map" --fix "$range" --format markdown
check_match "$(cat "$T/last.out")" "missing commits ${fixb:0:12}" "resolve range: markdown"
check_exit 0 "resolve --fix $fixa^..$fixa" -- P resolve "$root/core" --sysroot "$root" --mapping "$T/up.map" --fix "$fixa^..$fixa" --format json
check_eq "$(json_get "$T/last.out" 'd["fixes"][0]["how"]')" distribution-patch "resolve one-commit range: how"
echo "all ok"
