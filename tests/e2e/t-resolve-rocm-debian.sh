#!/usr/bin/env bash
# Debian 12's own HIP runtime, libamdhip64-5 5.2.3 (source rocm-hipamd): the
# real package, unpacked (dpkg -x) into a root made here with its dpkg status
# entry (dpkg-deb -f) and file list (dpkg -c). ROCm 5.2 was built from
# ROCm-Developer-Tools/hipamd, not the ROCm >= 7 monorepo the mapping named
# before (the bug): the version-dependent mapping picks hipamd and the tag
# rocm-<upstream version>. Offline, no repository is needed to see the choice.
# The paste's BuildId is the unpacked file's (readelf -n).
. "$(dirname "$0")/lib.sh"
[ -x "$PROVENANCE" ] || skip "provenance is not built"
command -v dpkg-deb >/dev/null || skip "dpkg-deb not installed"
deb=$(ls "$TOP"/tests/debs/libamdhip64-5_*.deb /var/cache/apt/archives/libamdhip64-5_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || skip "the Debian package libamdhip64-5 was not downloaded (make deps: apt-get download libamdhip64-5 into tests/debs)"

root=$T/root
mkdir -p "$root/var/lib/dpkg/info"
dpkg -x "$deb" "$root" || fail "dpkg -x $deb"
pkg=$(dpkg-deb -f "$deb" Package)
ver=$(dpkg-deb -f "$deb" Version)
src=$(dpkg-deb -f "$deb" Source)
arch=$(dpkg-deb -f "$deb" Architecture)
{
	printf 'Package: %s\nStatus: install ok installed\nArchitecture: %s\nVersion: %s\n' "$pkg" "$arch" "$ver"
	[ -n "$src" ] && printf 'Source: %s\n' "$src"
	echo
} >"$root/var/lib/dpkg/status"
dpkg -c "$deb" | awk '{ p=$6; sub(/^\./, "", p); if (p == "") p="/."; sub(/\/$/, "", p); print p }' \
	>"$root/var/lib/dpkg/info/$pkg:$arch.list"
lib=$(dpkg -c "$deb" | awk '{ print $6 }' | grep -E '/libamdhip64\.so\.[0-9.]+$' | sort | tail -1)
lib=${lib#.}
[ -f "$root$lib" ] || fail "no libamdhip64 in $deb"
bid=$(readelf -n "$root$lib" | sed -n 's/.*Build ID: *//p' | head -1)
up=${ver#*:}
up=${up%-*}

cat >"$T/bt.txt" <<BT
==9==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x7f0000001234 bp 0x1 sp 0x2 T0)
    #0 0x7f0000001234 in hipLaunchKernel ($lib+0x1234) (BuildId: $bid)
    #1 0x555500001000 in main (/usr/bin/app+0x1000)
BT
"$PROVENANCE" resolve "$T/bt.txt" --sysroot "$root" --offline --no-suspects --format json >"$T/out.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve exited $rc"; }
m="[m for m in d['modules'] if m['path'] == '$lib'][0]"
check_eq "$(json_get "$T/out.json" "$m['package']['name']")" "$pkg" "package (dpkg-deb -f Package)"
check_eq "$(json_get "$T/out.json" "$m['package']['version']")" "$ver" "version (dpkg-deb -f Version)"
check_eq "$(json_get "$T/out.json" "$m['package']['guess']")" false "not a guess"
[ -n "$bid" ] && check_match "$(json_get "$T/out.json" "$m['note']")" "build ID matches the file under the sysroot" "the paste's BuildId is the unpacked file's"
c="[c for c in d['components'] if c['name'] == 'clr'][0]"
check_match "$(json_get "$T/out.json" "$c['repo']")" "ROCm-Developer-Tools/hipamd" "5.2-era upstream: hipamd"
check_eq "$(json_get "$T/out.json" "$c['ref']")" "rocm-$up" "tag rocm-<upstream version>"
check_eq "$(json_get "$T/out.json" "$c['subdir']")" null "no monorepo subdir"
check_eq "$(json_get "$T/out.json" "$c['commit']")" null "offline, no mirror: no commit is claimed"
check_eq "$(json_get "$T/out.json" "$c['commit_is']")" null "no commit, no certainty"
echo "ok: Debian's libamdhip64-5 maps to its 5.2-era upstream"
