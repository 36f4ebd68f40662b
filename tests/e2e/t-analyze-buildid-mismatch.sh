#!/usr/bin/env bash
# A core resolved against a root whose library was upgraded after the crash:
# the installed file has another build ID than the crashed module. The module
# keeps its package name (dpkg-query -S), its version is the installed one
# (dpkg-query -W) marked as such ("build_id_match": false), no commit or
# source lines come from it, and the text and Markdown reports say so.
# Ground truth: eu-unstrip (the core's build ID), eu-readelf (the file's),
# dpkg-query on the root's database.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v chroot >/dev/null || skip "no chroot"
command -v eu-unstrip >/dev/null || skip "no eu-unstrip"
command -v dpkg-query >/dev/null || skip "no dpkg-query"
[ "$(id -u)" = 0 ] || unshare -r true 2>/dev/null || skip "needs root or user namespaces for chroot"

"$TOP/fixtures/demo/build-scenario.sh" "$T/s" >"$T/build.log" 2>&1 || {
	rc=$?; cat "$T/build.log"; [ $rc = 77 ] && skip "scenario left no core"; fail "scenario build failed"; }
root=$T/s/root
core=$root/core
lib=/usr/lib/x86_64-linux-gnu/libgreet.so.1.0.0
insteadof="url.file://$T/s/upstream.insteadOf=https://example.invalid/libgreet.git"
resolve() {
	"$PROVENANCE" resolve "$core" --offline --sysroot "$root" --mapping "$TOP/fixtures/demo/greet.map" \
		-c "$insteadof" "$@"
}

# the crashed module's build ID, as eu-unstrip reads it from the core
core_id=$(eu-unstrip -n --core "$core" | awk '/libgreet\.so/{sub(/@.*/, "", $2); print $2}')
[ -n "$core_id" ] || fail "eu-unstrip does not list libgreet in the core"

# control: the installed file is the crashed build
resolve --format json >"$T/same.json" 2>"$T/same.err"
mod='[m for m in d["modules"] if m["path"].endswith("libgreet.so.1.0.0")][0]'
check_eq "$(json_get "$T/same.json" "$mod[\"build_id_match\"]")" true "same build: build_id_match"

# the host is upgraded after the crash: another build of the library, 1.0.0-2
src=$T/s/build/src/greet.c
cc -O2 -g -fPIC -shared -Wl,-soname,libgreet.so.1 -Wl,--build-id -DREBUILT_AFTER_THE_CRASH \
	-I"$T/s/build/include" -o "$root$lib" "$src" -Wl,--defsym=rebuilt_marker=0 || fail "cannot rebuild the library"
sed -i 's/^Version: 1.0.0-1$/Version: 1.0.0-2/' "$root/var/lib/dpkg/status"
file_id=$(eu-readelf -n "$root$lib" | awk '/Build ID:/{print $3}')
[ -n "$file_id" ] && [ "$file_id" != "$core_id" ] || fail "the rebuilt library has the same build ID ($file_id)"
owner=$(dpkg-query --admindir="$root/var/lib/dpkg" -S "$lib" | cut -d: -f1)
version=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' "$owner")

resolve --format json >"$T/r.json" 2>"$T/r.err"
rc=$?
[ $rc = 1 ] || { cat "$T/r.err"; fail "resolve exited $rc, expected 1 (incomplete)"; }
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "JSON contract"
check_eq "$(json_get "$T/r.json" "$mod[\"build_id\"]")" "$core_id" "module build ID (eu-unstrip)"
check_eq "$(json_get "$T/r.json" "$mod[\"build_id_match\"]")" false "module build_id_match"
check_eq "$(json_get "$T/r.json" "$mod[\"package\"][\"name\"]")" "$owner" "package name (dpkg-query -S)"
check_eq "$(json_get "$T/r.json" "$mod[\"package\"][\"version\"]")" "$version" "installed version (dpkg-query -W)"
check_eq "$(json_get "$T/r.json" "$mod[\"package\"][\"build_id_match\"]")" false "package build_id_match"
check_eq "$(json_get "$T/r.json" "$mod[\"file\"]")" null "the mismatched file is not used"
comp='[c for c in d["components"] if c["name"]=="libgreet"][0]'
check_eq "$(json_get "$T/r.json" "$comp[\"commit\"]")" null "no commit from a build that did not crash"
check_eq "$(json_get "$T/r.json" 'len([s for s in d["sources"] if s["component"]=="libgreet"])')" 0 "no source lines from it"
check_match "$(json_get "$T/r.json" "$comp[\"note\"]")" "does not match the crash" "component note"

resolve >"$T/r.txt" 2>/dev/null
grep -q "installed $owner $version .*does not match the crash" "$T/r.txt" || { cat "$T/r.txt"; fail "text report: no mismatch warning"; }
grep -q -- "--sysroot" "$T/r.txt" || fail "text report: no --sysroot suggestion"
echo "ok: text report: $(grep -m1 'does not match the crash' "$T/r.txt")"
resolve --format markdown >"$T/r.md" 2>/dev/null
grep -q "installed $owner $version .*does not match the crash" "$T/r.md" || { cat "$T/r.md"; fail "Markdown report: no mismatch warning"; }
echo "ok: Markdown report warns"
exit 0
