#!/usr/bin/env bash
# The Debian security archive as it is: a +deb12uN .dsc lists
# X.orig.tar.gz.asc, but security.debian.org's pool/updates holds only the
# orig tarball (the signature 404s there). Files the .dsc lists are looked
# for beside it, then in the same area of the other archive, and checked
# against the .dsc's SHA-256; a signature found in neither is not needed to
# build the tree (a warning says it was not available). Two python3
# http.server on 127.0.0.1 serve a main pool/ and a security pool/updates/
# laid out like Debian's. Ground truth: dpkg-source -x of the complete
# package (signature present), git, the servers' request logs.
. "$(dirname "$0")/lib.sh"
command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"
command -v python3 >/dev/null || skip "no python3"

# --- upstream: v1.0, then a fix ----------------------------------------------
up=$T/up
g() { git -C "$up" -c user.name=Up -c user.email=up@example.invalid "$@"; }
git init -q "$up"
{ echo "/* libbar */"; for i in $(seq 1 40); do echo "int f$i(int x) { return x + $i; }"; done; } >"$up/bar.c"
g add -A && g commit -qm "libbar 1.0" && g tag v1.0
sed -i 's/return x + 38;/return x > 0 ? x + 38 : 0;/' "$up/bar.c"
g commit -qam "bar: f38 of a negative is 0"
fix=$(g rev-parse HEAD)
g format-patch -1 --stdout >"$T/fix.patch"

# --- 1.0-1 (main), 1.0-1+deb12u1 and +deb12u2 (security): each .dsc lists the
# orig tarball's signature, as real uploads with an upstream signature do
mkpkg() {	# mkpkg VERSION
	local d=$T/pkg/$1/libbar-1.0
	mkdir -p "$d"
	git -C "$up" archive --prefix=libbar-1.0/ v1.0 | tar -x -C "$T/pkg/$1"
	git -C "$up" archive --prefix=libbar-1.0/ v1.0 | gzip -n >"$T/pkg/$1/libbar_1.0.orig.tar.gz"
	printf -- '-----BEGIN PGP SIGNATURE-----\n\nnot a real signature\n-----END PGP SIGNATURE-----\n' \
		>"$T/pkg/$1/libbar_1.0.orig.tar.gz.asc"
	mkdir -p "$d/debian/source" "$d/debian/patches"
	echo "3.0 (quilt)" >"$d/debian/source/format"
	printf 'Source: libbar\nSection: libs\nPriority: optional\nMaintainer: T <t@example.invalid>\nStandards-Version: 4.6.2\n\nPackage: libbar1\nArchitecture: any\nDescription: test\n test\n' >"$d/debian/control"
	printf 'libbar (%s) bookworm-security; urgency=medium\n\n  * test\n\n -- T <t@example.invalid>  Mon, 01 Jan 2024 00:00:00 +0000\n' "$1" >"$d/debian/changelog"
	if [ "$1" != 1.0-1 ]; then
		cp "$T/fix.patch" "$d/debian/patches/fix-f38.patch"
		echo fix-f38.patch >"$d/debian/patches/series"
	fi
	(cd "$T/pkg/$1" && dpkg-source -b libbar-1.0 >/dev/null 2>&1) || fail "dpkg-source -b $1"
	grep -q 'libbar_1.0.orig.tar.gz.asc' "$T/pkg/$1/libbar_$1.dsc" || fail "fixture: the $1 .dsc does not list the signature"
}
main=$T/www-main/debian/pool/main/libb/libbar
sec=$T/www-sec/debian-security/pool/updates/main/libb/libbar
mkdir -p "$main" "$sec"
for v in 1.0-1 1.0-1+deb12u1 1.0-1+deb12u2; do mkpkg "$v"; done
cmp -s "$T/pkg/1.0-1/libbar_1.0.orig.tar.gz" "$T/pkg/1.0-1+deb12u1/libbar_1.0.orig.tar.gz" || fail "fixture: two orig tarballs"
# the main archive: 1.0-1 with its signature
cp "$T/pkg/1.0-1/"libbar_1.0* "$main/"
# the security archive: the uploads and the orig tarball, no signature
cp "$T/pkg/1.0-1+deb12u1/"libbar_1.0-1+deb12u1* "$T/pkg/1.0-1+deb12u1/libbar_1.0.orig.tar.gz" "$sec/"
cp "$T/pkg/1.0-1+deb12u2/"libbar_1.0-1+deb12u2* "$sec/"
[ ! -e "$sec/libbar_1.0.orig.tar.gz.asc" ] || fail "fixture: the security pool has the signature"
# ground truth: dpkg-source -x of the complete upload
(cd "$T" && dpkg-source -x "$T/pkg/1.0-1+deb12u1/libbar_1.0-1+deb12u1.dsc" "$T/x" >/dev/null 2>&1) || fail "dpkg-source -x"
grep -q 'return x > 0 ? x + 38 : 0;' "$T/x/bar.c" || fail "fixture: the patch does not carry the fix"

serve() {	# serve DIR LOG: prints the port and the pid
	local port
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	python3 -m http.server --bind 127.0.0.1 "$port" --directory "$1" >"$2" 2>&1 &
	echo "$port $!"
}
read -r pm hm < <(serve "$T/www-main" "$T/main.log")
read -r ps hs < <(serve "$T/www-sec" "$T/sec.log")
trap 'kill $hm $hs 2>/dev/null; rm -rf "$T"' EXIT
for p in $pm $ps; do for i in $(seq 50); do curl -sf "http://127.0.0.1:$p/" >/dev/null 2>&1 && break; sleep 0.1; done; done
curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$ps/debian-security/pool/updates/main/libb/libbar/libbar_1.0.orig.tar.gz.asc" | grep -q 404 ||
	fail "fixture: the security server does not 404 the signature"
cache=$T/cache
P() { "$PROVENANCE" --cache "$cache" -c "sources.debianBaseUrl=http://127.0.0.1:$pm/debian" \
	-c "sources.debianSecurityBaseUrl=http://127.0.0.1:$ps/debian-security" "$@"; }

# +deb12u1: the signature 404s in the security pool, the main archive has it
check_exit 0 "+deb12u1, signature only in the main archive" -- P fixcheck "$fix" --repo "$up" --at v1.0 --debian-source libbar=1.0-1+deb12u1 --format json
check_eq "$(json_get "$T/last.out" 'd[0]["how"]')" distribution-patch "verdict: fix carried by the security upload's patch"
check_eq "$(json_get "$T/last.out" 'd[0]["via"]')" debian/patches/fix-f38.patch "the patch named"
grep -q '"GET /debian-security/pool/updates/main/libb/libbar/libbar_1.0.orig.tar.gz.asc HTTP/1.1" 404' "$T/sec.log" || fail "the security archive was not asked for the signature first"
grep -q '"GET /debian/pool/main/libb/libbar/libbar_1.0.orig.tar.gz.asc HTTP/1.1" 200' "$T/main.log" || fail "the signature was not fetched from the main archive's same area"
grep -q '"GET /debian/pool/main/libb/libbar/libbar_1.0.orig.tar.gz HTTP' "$T/main.log" && fail "the orig tarball the security archive has was fetched from the main archive"
git --git-dir="$cache/imports/debian-libbar.git" show "refs/imports/libbar/1.0-1+deb12u1:bar.c" >"$T/imported-bar.c"
cmp -s "$T/imported-bar.c" "$T/x/bar.c" || fail "the imported bar.c differs from dpkg-source -x's"
echo "ok: the imported bar.c is dpkg-source -x's"

# +deb12u2: the signature in neither archive (a fresh cache): not needed, said so
rm "$main/libbar_1.0.orig.tar.gz.asc"
rm -rf "$cache"
check_exit 0 "+deb12u2, signature in neither archive" -- P fixcheck "$fix" --repo "$up" --at v1.0 --debian-source libbar=1.0-1+deb12u2 --format json
check_eq "$(json_get "$T/last.out" 'd[0]["how"]')" distribution-patch "verdict without the signature"
check_match "$(cat "$T/last.err")" "libbar_1.0.orig.tar.gz.asc: the signature was not available" "the missing signature is said"

# a file the .dsc lists that is in neither archive (not a signature): still an error
rm "$sec/libbar_1.0-1+deb12u2.debian.tar.xz"
rm -rf "$cache"
check_exit 3 "+deb12u2 without its debian tarball" -- P fixcheck "$fix" --repo "$up" --at v1.0 --debian-source libbar=1.0-1+deb12u2
check_match "$(cat "$T/last.err")" "'libbar_1.0-1.deb12u2.debian.tar.xz', which the .dsc lists, is neither at '.*pool/updates/main/libb/libbar/' nor at '.*/debian/pool/main/libb/libbar/'" "names the missing tarball and both places"

# a copy in the other archive that differs from the .dsc's SHA-256 is refused
git -C "$up" archive --prefix=libbar-1.0/ HEAD | gzip -n >"$T/other.tar.gz"
rm "$sec/libbar_1.0.orig.tar.gz"; cp "$T/other.tar.gz" "$main/libbar_1.0.orig.tar.gz"
rm -rf "$cache"
check_exit 2 "+deb12u1, orig only in the main archive and different" -- P fixcheck "$fix" --repo "$up" --at v1.0 --debian-source libbar=1.0-1+deb12u1
check_match "$(cat "$T/last.err")" "mismatch for 'libbar_1.0.orig.tar.gz' from '.*/debian/pool/main/" "the .dsc's hashes are checked on the other archive's copy"
