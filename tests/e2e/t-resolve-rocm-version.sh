#!/usr/bin/env bash
# ROCm's runbook layout: hip-runtime-amd 6.1.40091.60100-82~22.04 (dpkg) in
# /opt/rocm-6.1.0 (.info/version 6.1.0-82). The version encodes release
# 6.1.0 (60100), so the deployed commit is tag rocm-6.1.0: exact. The bug:
# the tag was not found, the release branch's tip (which already has a fix
# the deployed 6.1.0 lacks) was taken for the deployed build, and
# `resolve --fix` said "included" (exit 0). A release whose tag the
# repository lacks (6.1.2) falls back to the branch tip: approximate,
# labelled so, and a fix verdict on it is "could not be determined" (exit 3).
# Ground truth: git (rev-parse, merge-base) and the dpkg status the test writes.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
[ -x "$PROVENANCE" ] || skip "provenance is not built"

# upstream ROCm/clr: tag rocm-6.1.0, then a fix on release/rocm-rel-6.1
up=$T/up/clr.git
w=$T/work
git init -q -b develop "$w"
git -C "$w" config user.email dev@example.invalid
git -C "$w" config user.name dev
mkdir -p "$w/hipamd/src"
for i in $(seq 1 12); do echo "int line$i = $i; /* rocm-6.1.0 */"; done >"$w/hipamd/src/hip_module.cpp"
git -C "$w" add -A && git -C "$w" commit -qm "hipamd: module launch"
git -C "$w" tag rocm-6.1.0
git -C "$w" checkout -qb release/rocm-rel-6.1
sed -i 's|int line5 = 5; /\* rocm-6.1.0 \*/|int line5 = 5; /* FIXED: null check */|' "$w/hipamd/src/hip_module.cpp"
git -C "$w" commit -qam "hipamd: fix a null dereference in module launch"
fix=$(git -C "$w" rev-parse HEAD)
git -C "$w" checkout -q develop
mkdir -p "$T/up"
git clone -q --bare "$w" "$up"
tag=$(git -C "$up" rev-parse 'rocm-6.1.0^{commit}')
tip=$(git -C "$up" rev-parse 'release/rocm-rel-6.1^{commit}')
git -C "$up" merge-base --is-ancestor "$fix" "$tag" && fail "setup: the fix must not be in rocm-6.1.0"
git -C "$up" merge-base --is-ancestor "$fix" "$tip" || fail "setup: the fix must be in the branch tip"
redirect="url.file://$T/up/.insteadOf=https://github.com/ROCm/"

mkroot() {	# mkroot DIR ROCM_DIR PKG_VERSION INFO_VERSION
	local r=$1 d=$2
	mkdir -p "$r/var/lib/dpkg/info" "$r$d/lib" "$r$d/.info"
	echo "$4" >"$r$d/.info/version"
	printf 'not an ELF file\n' >"$r$d/lib/libamdhip64.so.6"
	cat >"$r/var/lib/dpkg/status" <<ST
Package: hip-runtime-amd
Status: install ok installed
Architecture: amd64
Version: $3

ST
	printf '/.\n%s\n%s/lib\n%s/lib/libamdhip64.so.6\n' "$d" "$d" "$d" >"$r/var/lib/dpkg/info/hip-runtime-amd.list"
}
paste() {	# paste FILE ROCM_DIR: an ASan report with a frame in libamdhip64
	cat >"$1" <<BT
==9==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x7f0000001234 bp 0x1 sp 0x2 T0)
    #0 0x7f0000001234 in hip::ihipModuleLaunchKernel /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/clr/hipamd/src/hip_module.cpp:5 ($2/lib/libamdhip64.so.6+0x1234)
    #1 0x555500001000 in main /src/app/main.c:3 (/usr/bin/app+0x1000)
BT
}
clr() { json_get "$1" "[c for c in d['components'] if c['name']=='clr'][0]['$2']"; }

# 1. 6.1.0: the tag the version names
mkroot "$T/r610" /opt/rocm-6.1.0 6.1.40091.60100-82~22.04 6.1.0-82
paste "$T/bt610.txt" /opt/rocm-6.1.0
"$PROVENANCE" -c "$redirect" resolve "$T/bt610.txt" --sysroot "$T/r610" --no-suspects --format json >"$T/r610.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve exited $rc"; }
check_eq "$(json_get "$T/r610.json" "[m['package']['version'] for m in d['modules'] if m['path'].endswith('libamdhip64.so.6')][0]")" \
	"6.1.40091.60100-82~22.04" "package version (the dpkg status written here)"
check_eq "$(clr "$T/r610.json" ref)" rocm-6.1.0 "6.1.0: the tag the version names"
check_eq "$(clr "$T/r610.json" commit)" "$tag" "6.1.0: commit = git rev-parse rocm-6.1.0"
check_eq "$(clr "$T/r610.json" commit_is)" exact "6.1.0: exact"
check_eq "$(clr "$T/r610.json" found_by)" mapping:tag "6.1.0: found by the tag"
check_match "$(clr "$T/r610.json" repo)" "ROCm/clr" "6.1.0: ROCm/clr (5.6-6.x)"
check_eq "$(json_get "$T/r610.json" "d['sources'][0]['lines'][[l['number'] for l in d['sources'][0]['lines']].index(5)]['text']")" \
	"$(git -C "$up" show rocm-6.1.0:hipamd/src/hip_module.cpp | sed -n 5p)" "6.1.0: the crash line at the tag"
check_exit 1 "6.1.0: resolve --fix: not in the deployed tag (git merge-base)" -- \
	"$PROVENANCE" -c "$redirect" resolve "$T/bt610.txt" --sysroot "$T/r610" --no-suspects --fix "$fix"
check_exit 1 "fixcheck --at rocm-6.1.0 agrees" -- "$PROVENANCE" fixcheck "$fix" --repo "$up" --at rocm-6.1.0

# env on the same root: the same tag and certainty
"$PROVENANCE" -c "$redirect" env --sysroot "$T/r610" --format json >"$T/env610.json" 2>"$T/err" || { cat "$T/err"; fail "env exited $?"; }
e="[c for c in d['components'] if c['name']=='hip-runtime-amd'][0]"
check_eq "$(json_get "$T/env610.json" "$e['component']")" clr "env: component"
check_eq "$(json_get "$T/env610.json" "$e['ref']")" rocm-6.1.0 "env: ref"
check_eq "$(json_get "$T/env610.json" "$e['commit']")" "$tag" "env: commit of rocm-6.1.0"
check_eq "$(json_get "$T/env610.json" "$e['commit_is']")" exact "env: exact"

# 2. /opt/rocm-6.1.0 without a dpkg entry: .info/version 6.1.0-82 names the tag too
mkdir -p "$T/r610info/opt"
cp -a "$T/r610/opt/rocm-6.1.0" "$T/r610info/opt/"
"$PROVENANCE" -c "$redirect" resolve "$T/bt610.txt" --sysroot "$T/r610info" --no-suspects --format json >"$T/info.json" 2>"$T/err"
check_eq "$(json_get "$T/info.json" "[m['package']['kind'] for m in d['modules'] if m['path'].endswith('libamdhip64.so.6')][0]")" rocm ".info/version: kind rocm"
check_eq "$(clr "$T/info.json" commit)" "$tag" ".info/version: commit of rocm-6.1.0"
check_eq "$(clr "$T/info.json" commit_is)" exact ".info/version: exact"

# 3. 6.1.2: no tag rocm-6.1.2 in the repository: the branch tip, approximate
mkroot "$T/r612" /opt/rocm-6.1.2 6.1.40093.60102-1~22.04 6.1.2-1
paste "$T/bt612.txt" /opt/rocm-6.1.2
"$PROVENANCE" -c "$redirect" resolve "$T/bt612.txt" --sysroot "$T/r612" --no-suspects --format json >"$T/r612.json" 2>"$T/err"
check_eq "$(clr "$T/r612.json" ref)" release/rocm-rel-6.1 "6.1.2: the release branch"
check_eq "$(clr "$T/r612.json" commit)" "$tip" "6.1.2: its tip (git rev-parse)"
check_eq "$(clr "$T/r612.json" commit_is)" approximate "6.1.2: approximate"
check_eq "$(clr "$T/r612.json" found_by)" mapping:branch-tip "6.1.2: found by a branch tip"
check_eq "$(json_get "$T/r612.json" "d['sources'][0]['commit_is']")" approximate "6.1.2: source lines labelled"
# suspects from a branch tip say so: the tip is not the deployed build
"$PROVENANCE" -c "$redirect" resolve "$T/bt612.txt" --sysroot "$T/r612" --format json >"$T/r612s.json" 2>"$T/err"
check_match "$(json_get "$T/r612s.json" "d['suspects_note']")" "approximate .*mapping:branch-tip.*counted from ${tip:0:12}" \
	"6.1.2: suspects note the approximate commit"
check_exit 3 "6.1.2: resolve --fix on a branch tip: could not be determined" -- \
	"$PROVENANCE" -c "$redirect" resolve "$T/bt612.txt" --sysroot "$T/r612" --no-suspects --fix "$fix" --format json
check_eq "$(json_get "$T/last.out" "d['fixes'][0]['included']")" null "6.1.2: never 'included'"
check_match "$(json_get "$T/last.out" "d['fixes'][0]['note']")" "in the branch tip release/rocm-rel-6.1 .*the deployed build may predate it" "6.1.2: says what is known"
check_exit 3 "6.1.2: fixcheck INPUT --component: could not be determined" -- \
	"$PROVENANCE" -c "$redirect" fixcheck "$fix" "$T/bt612.txt" --sysroot "$T/r612" --component clr
check_match "$(cat "$T/last.out")" "^UNKNOWN .*in the branch tip" "6.1.2: fixcheck text"
check_exit 3 "6.1.2: fixcheck JSON" -- \
	"$PROVENANCE" -c "$redirect" fixcheck "$fix" "$T/bt612.txt" --sysroot "$T/r612" --component clr --format json
check_eq "$(json_get "$T/last.out" "d[0]['included']")" false "6.1.2: fixcheck JSON included false"
check_eq "$(json_get "$T/last.out" "d[0]['deployed_is']")" approximate "6.1.2: fixcheck JSON deployed_is"
"$PROVENANCE" -c "$redirect" resolve "$T/bt612.txt" --sysroot "$T/r612" --no-suspects --format markdown >"$T/r612.md" 2>/dev/null
check_match "$(grep '^### Source at the crash' "$T/r612.md")" "approximate" "6.1.2: Markdown source heading"
check_match "$(grep '^| clr ' "$T/r612.md")" "approximate" "6.1.2: Markdown environment table"
"$PROVENANCE" -c "$redirect" resolve "$T/bt612.txt" --sysroot "$T/r612" --no-suspects >"$T/r612.txt" 2>/dev/null
check_match "$(grep 'approximate' "$T/r612.txt" | head -1)" "approximate" "6.1.2: text says approximate"
check_exit 3 "6.1.2: resolve --fix, Markdown" -- \
	"$PROVENANCE" -c "$redirect" resolve "$T/bt612.txt" --sysroot "$T/r612" --no-suspects --fix "$fix" --format markdown
check_match "$(grep -F "\`$fix\`: " "$T/last.out" | head -1)" "could not be determined: in the branch tip" "6.1.2: Markdown fix status says what is known"
grep -q 'is included' "$T/last.out" && fail "6.1.2: Markdown says included"
echo "ok: ROCm versions name their tag; branch tips are approximate"
