#!/usr/bin/env bash
# arm64-root.sh DIR: a Debian 12 arm64 root with python3.11 for the aarch64
# tests, built once (make deps builds it; a test that finds none builds it
# then): the first stage of `debootstrap --foreign --arch=arm64` (download
# and unpack, nothing run: no second stage, no qemu-user-static needed),
# then python3.11-minimal, libpython3.11-minimal and libexpat1 unpacked
# into it. It lives in tests/debs/ (not removed by make clean), so CI's
# plain and sanitizer passes share one. Needs root (debootstrap) and the
# network (a Debian mirror: $PROV_DEBIAN_MIRROR, else deb.debian.org).
# Exit 0 with DIR/usr/bin/python3.11 in place; else 1 with one line why.
set -u
dir=${1:?usage: arm64-root.sh DIR}
ok() { [ -x "$1/usr/bin/python3.11" ] && [ -e "$1/lib/ld-linux-aarch64.so.1" ]; }
ok "$dir" && exit 0
command -v debootstrap >/dev/null || { echo "debootstrap is not installed"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "debootstrap needs root"; exit 1; }
mkdir -p "$(dirname "$dir")" || exit 1
exec 9>"$dir.lock"
flock 9	# another test or pass is building it: wait, then use it
ok "$dir" && exit 0
tmp=$dir.tmp.$$
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
if ! debootstrap --foreign --arch=arm64 --variant=minbase \
	--include=python3.11-minimal,libpython3.11-minimal,libexpat1 \
	bookworm "$tmp" "${PROV_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$dir.log" 2>&1; then
	echo "cannot fetch a Debian arm64 root (debootstrap: $(tail -1 "$dir.log"))"
	exit 1
fi
for p in python3.11-minimal libpython3.11-minimal libexpat1; do
	deb=$(ls "$tmp"/var/cache/apt/archives/"${p}"_*_arm64.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { echo "debootstrap fetched no $p"; exit 1; }
	# keep the root's /lib -> usr/lib (merged /usr): tar, not dpkg-deb -x
	dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$tmp" ||
		{ echo "cannot unpack $deb"; exit 1; }
done
rm -f "$tmp"/var/cache/apt/archives/*.deb
ok "$tmp" || { echo "the arm64 root has no python3.11 or dynamic linker"; exit 1; }
rm -rf "$dir" && mv "$tmp" "$dir" || exit 1
exit 0
