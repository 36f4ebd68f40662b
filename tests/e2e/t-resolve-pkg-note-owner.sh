#!/usr/bin/env bash
# The binary package owns the module: libudev.so.1 carries systemd's package
# note (name "systemd", the source project), dpkg says package libudev1. The
# bug: the note's name was reported as the package. Now dpkg wins and the
# note stays as evidence (the source). Ground truth: dpkg-query --admindir on
# the root made here, readelf -n for the note.
. "$(dirname "$0")/lib.sh"
[ -x "$PROVENANCE" ] || skip "provenance is not built"
command -v dpkg-query >/dev/null || skip "dpkg-query not installed"
cd "$T"
root=$T/root
dir=/usr/lib/x86_64-linux-gnu
mkdir -p "$root$dir" "$root/var/lib/dpkg/info"
echo 1 >"$root/var/lib/dpkg/info/format"	# multiarch list names (pkg:arch.list), as dpkg writes
echo 'int udev_new(void) { return 0; }' >udev.c
meta='{"type":"deb","os":"debian","name":"systemd","version":"252.30-1~deb12u2","architecture":"amd64"}'
${CC:-cc} -g -shared -fPIC -o "$root$dir/libudev.so.1" udev.c -Xlinker "--package-metadata=$meta" 2>"$T/ld.err" ||
	skip "the linker cannot write package notes (--package-metadata needs binutils 2.39): $(head -1 "$T/ld.err")"
note=$(readelf -n "$root$dir/libudev.so.1" | sed -n 's/^ *Packaging Metadata: //p')
[ -n "$note" ] || fail "readelf shows no package note"
note_name=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["name"])' "$note")
cat >"$root/var/lib/dpkg/status" <<'ST'
Package: libudev1
Status: install ok installed
Architecture: amd64
Multi-Arch: same
Source: systemd
Version: 252.30-1~deb12u2
Maintainer: Debian systemd Maintainers <pkg-systemd-maintainers@lists.alioth.debian.org>
Description: libudev shared library

ST
printf '/.\n/usr\n/usr/lib\n%s\n%s/libudev.so.1\n' "$dir" "$dir" >"$root/var/lib/dpkg/info/libudev1:amd64.list"
owner=$(dpkg-query --admindir="$root/var/lib/dpkg" -S "$dir/libudev.so.1" 2>"$T/dq.err" | cut -d: -f1)
[ -n "$owner" ] || { cat "$T/dq.err"; fail "dpkg-query -S finds no owner in the root"; }
ver=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' "$owner")
srcpkg=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${source:Package}' "$owner")
cat >"$T/bt.txt" <<BT
#0  0x00007f0000001234 in udev_new () from $dir/libudev.so.1
#1  0x0000555500001000 in main ()
BT
"$PROVENANCE" resolve "$T/bt.txt" --sysroot "$root" --offline --no-suspects --format json >"$T/out.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve exited $rc"; }
p="[m['package'] for m in d['modules'] if m['path'].endswith('libudev.so.1')][0]"
check_eq "$(json_get "$T/out.json" "$p['name']")" "$owner" "package = dpkg-query -S owner (not the note's '$note_name')"
check_eq "$(json_get "$T/out.json" "$p['kind']")" dpkg "kind dpkg"
check_eq "$(json_get "$T/out.json" "$p['version']")" "$ver" "version from dpkg"
check_eq "$(json_get "$T/out.json" "$p['source']")" "$srcpkg" "source (dpkg's Source:, the note's name too)"
check_match "$(json_get "$T/out.json" "$p['evidence']")" "package note: $note_name" "the note kept as evidence"

# without the dpkg entry the note is all there is
rm "$root/var/lib/dpkg/info/libudev1:amd64.list"
: >"$root/var/lib/dpkg/status"
"$PROVENANCE" resolve "$T/bt.txt" --sysroot "$root" --offline --no-suspects --format json >"$T/note.json" 2>"$T/err"
check_eq "$(json_get "$T/note.json" "$p['kind']")" elf-note "no dpkg entry: the note"
check_eq "$(json_get "$T/note.json" "$p['name']")" "$note_name" "no dpkg entry: the note's name (readelf -n)"

# a note name dpkg does not give as Source: kept as the source
printf 'Package: libudev1\nStatus: install ok installed\nArchitecture: amd64\nVersion: %s\n\n' "$ver" >"$root/var/lib/dpkg/status"
printf '/.\n%s/libudev.so.1\n' "$dir" >"$root/var/lib/dpkg/info/libudev1:amd64.list"
"$PROVENANCE" resolve "$T/bt.txt" --sysroot "$root" --offline --no-suspects --format json >"$T/nosrc.json" 2>"$T/err"
check_eq "$(json_get "$T/nosrc.json" "$p['name']")" "$owner" "no Source: field: still dpkg's package"
check_eq "$(json_get "$T/nosrc.json" "$p['source']")" "$owner" "no Source: field: dpkg's source is the package's name"
check_match "$(json_get "$T/nosrc.json" "$p['evidence']")" "package note: $note_name" "no Source: field: the note kept as evidence"
echo "ok: the binary package owns the module"
