#!/usr/bin/env bash
# --debian-source finds a package in Debian's security archive
# (<security>/pool/updates/main/...) when the main archive lacks the version,
# and asks the security archive first for a ~debNNuN/+debNNuN version; the
# .dsc cached from there serves --offline. Two python3 -m http.server on
# 127.0.0.1 serve a generated main pool/ and a security pool/updates/. The
# package is made here with dpkg-source -b; its patch is a git format-patch
# (a "-- " signature after its last hunk, which sits at an offset, and an
# empty file created by a git diff with no ---/+++), as real security
# patches are (each of the two made an import fail before). Ground truth: dpkg-source -x of the same .dsc, the servers'
# request logs, git.
. "$(dirname "$0")/lib.sh"
command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"
command -v python3 >/dev/null || skip "no python3"

# --- upstream: v1.0, then a fix -------------------------------------------------
up=$T/up
g() { git -C "$up" -c user.name=Up -c user.email=up@example.invalid "$@"; }
git init -q "$up"
{ echo "/* libbar */"; for i in $(seq 1 40); do echo "int f$i(int x) { return x + $i; }"; done; } >"$up/bar.c"
printf '#!/bin/sh\necho run\n' >"$up/run.sh"
chmod 755 "$up/run.sh"
g add -A && g commit -qm "libbar 1.0" && g tag v1.0
sed -i 's/return x + 5;/return x > 0 ? x + 5 : 0;/; s/return x + 38;/return x > 0 ? x + 38 : 0;/' "$up/bar.c"
: >"$up/a-empty.txt"
g add -A && g commit -qm "bar: f5 and f38 of a negative are 0"
fix=$(g rev-parse HEAD)
# the Debian patch: git format-patch of the fix made on a tree with 3 more
# lines at the top (so its two hunks sit at an offset in 1.0: the last one,
# before the signature, must move as the first did)
w=$T/w; git clone -q "$up" "$w"
gw() { git -C "$w" -c user.name=Up -c user.email=up@example.invalid "$@"; }
gw checkout -q v1.0
sed -i '1i /* a */\n/* b */\n/* c */' "$w/bar.c"
gw commit -qam "three lines"
gw cherry-pick "$fix" >/dev/null || fail "cherry-pick"
gw format-patch -1 --stdout >"$T/fix.patch"
grep -q '^-- $' "$T/fix.patch" || fail "fixture: no format-patch signature"
grep -q '^new file mode' "$T/fix.patch" || fail "fixture: no empty file created"
# a plain quilt patch (no git header, no mode) of an executable script
mkdir -p "$T/r/a" "$T/r/b"
cp "$up/run.sh" "$T/r/a/"
printf '#!/bin/sh\necho run, patched\n' >"$T/r/b/run.sh"
(cd "$T/r" && diff -u a/run.sh b/run.sh) >"$T/run.patch"

# --- the source packages: 1.0-1 (main), 1.0-1+deb12u1 and 1.0-2 (security only) --
mkpkg() {	# mkpkg VERSION
	local d=$T/pkg/$1/libbar-1.0
	mkdir -p "$d"
	git -C "$up" archive --prefix=libbar-1.0/ v1.0 | tar -x -C "$T/pkg/$1"
	[ -f "$T/pkg/$1/libbar_1.0.orig.tar.gz" ] || git -C "$up" archive --prefix=libbar-1.0/ v1.0 | gzip -n >"$T/pkg/$1/libbar_1.0.orig.tar.gz"
	mkdir -p "$d/debian/source" "$d/debian/patches"
	echo "3.0 (quilt)" >"$d/debian/source/format"
	printf 'Source: libbar\nSection: libs\nPriority: optional\nMaintainer: T <t@example.invalid>\nStandards-Version: 4.6.2\n\nPackage: libbar1\nArchitecture: any\nDescription: test\n test\n' >"$d/debian/control"
	printf 'libbar (%s) bookworm-security; urgency=medium\n\n  * test\n\n -- T <t@example.invalid>  Mon, 01 Jan 2024 00:00:00 +0000\n' "$1" >"$d/debian/changelog"
	cp "$T/fix.patch" "$d/debian/patches/fix-f38.patch"
	cp "$T/run.patch" "$d/debian/patches/run.patch"
	printf 'fix-f38.patch\nrun.patch\n' >"$d/debian/patches/series"
	(cd "$T/pkg/$1" && dpkg-source -b libbar-1.0 >/dev/null 2>&1) || fail "dpkg-source -b $1"
}
main=$T/www-main/debian/pool/main/libb/libbar
sec=$T/www-sec/debian-security/pool/updates/main/libb/libbar
mkdir -p "$main" "$sec"
for v in 1.0-1 1.0-1+deb12u1 1.0-2; do mkpkg "$v"; done
cp "$T/pkg/1.0-1/"libbar_1.0* "$main/"
cp "$T/pkg/1.0-1+deb12u1/"libbar_1.0* "$sec/"
cp "$T/pkg/1.0-2/"libbar_1.0-2* "$sec/"
cmp -s "$T/pkg/1.0-2/libbar_1.0.orig.tar.gz" "$sec/libbar_1.0.orig.tar.gz" || fail "fixture: two orig tarballs"
# ground truth: dpkg-source -x applies the patch; the fix's lines are there
(cd "$T" && dpkg-source -x "$sec/libbar_1.0-1+deb12u1.dsc" "$T/x" >/dev/null 2>&1) || fail "dpkg-source -x"
[ "$(grep -c 'return x > 0 ? x + \(5\|38\) : 0;' "$T/x/bar.c")" = 2 ] || fail "fixture: the patch does not carry the fix"
[ "$(grep -c '^@@' "$T/fix.patch")" = 2 ] || fail "fixture: the patch should have two hunks (the empty file has none)"

serve() {	# serve DIR LOG: prints the port
	local port
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	python3 -m http.server --bind 127.0.0.1 "$port" --directory "$1" >"$2" 2>&1 &
	echo "$port $!"
}
read -r pm hm < <(serve "$T/www-main" "$T/main.log")
read -r ps hs < <(serve "$T/www-sec" "$T/sec.log")
trap 'kill $hm $hs 2>/dev/null; rm -rf "$T"' EXIT
for p in $pm $ps; do for i in $(seq 50); do curl -sf "http://127.0.0.1:$p/" >/dev/null 2>&1 && break; sleep 0.1; done; done
cache=$T/cache
P() { "$PROVENANCE" --cache "$cache" -c "sources.debianBaseUrl=http://127.0.0.1:$pm/debian" \
	-c "sources.debianSecurityBaseUrl=http://127.0.0.1:$ps/debian-security" "$@"; }
gets() { grep -c '"GET .*\.dsc' "$1"; }

# a security version: the security archive first, the main archive not asked
check_exit 0 "1.0-1+deb12u1 from the security archive" -- P fixcheck "$fix" --repo "$up" --at v1.0 --debian-source libbar=1.0-1+deb12u1 --format json
check_eq "$(json_get "$T/last.out" 'd[0]["how"]')" distribution-patch "fix carried by the security upload's patch"
check_eq "$(json_get "$T/last.out" 'd[0]["via"]')" debian/patches/fix-f38.patch "the patch named"
grep -q '"GET /debian-security/pool/updates/main/libb/libbar/libbar_1.0-1+deb12u1.dsc HTTP/1.1" 200' "$T/sec.log" || fail "the .dsc was not fetched from pool/updates/main"
check_eq "$(gets "$T/main.log")" 0 "main archive not asked for a +deb12u1 version found in the security archive"
git --git-dir="$cache/imports/debian-libbar.git" show "refs/imports/libbar/1.0-1+deb12u1:bar.c" >"$T/imported-bar.c"
cmp -s "$T/imported-bar.c" "$T/x/bar.c" || fail "the imported bar.c differs from dpkg-source -x's"
echo "ok: the imported bar.c is dpkg-source -x's"
# the whole tree, modes included (run.sh stays 755 through the quilt patch);
# dpkg-source -x does not create the empty file either
[ ! -e "$T/x/a-empty.txt" ] || fail "dpkg-source -x created the empty file: the import must too"
rm -rf "$T/x/.pc"
want_tree=$(cd "$T/x" && git init -q . && git add -A && git ls-tree -r "$(git write-tree)")
got_tree=$(git --git-dir="$cache/imports/debian-libbar.git" ls-tree -r "refs/imports/libbar/1.0-1+deb12u1")
[ "$got_tree" = "$want_tree" ] || fail "imported tree differs from dpkg-source -x: $(diff <(echo "$want_tree") <(echo "$got_tree"))"
echo "ok: imported tree = git ls-tree of dpkg-source -x (modes too: run.sh $(echo "$want_tree" | grep run.sh | cut -c1-6))"

# a version the main archive has: the main archive only
check_exit 0 "1.0-1 from the main archive" -- P fixcheck "$fix" --repo "$up" --at v1.0 --debian-source libbar=1.0-1 --format json
grep -q '"GET /debian/pool/main/libb/libbar/libbar_1.0-1.dsc HTTP/1.1" 200' "$T/main.log" || fail "1.0-1 not fetched from the main pool"
check_eq "$(grep -c 'libbar_1.0-1.dsc' "$T/sec.log")" 0 "security archive not asked for a version the main archive has"

# an ordinary version only in the security archive: main first (404s), then security
check_exit 0 "1.0-2 found after the main archive" -- P fixcheck "$fix" --repo "$up" --at v1.0 --debian-source libbar=1.0-2 --format json
grep -q '"GET /debian/pool/main/libb/libbar/libbar_1.0-2.dsc HTTP/1.1" 404' "$T/main.log" || fail "the main archive was not asked first for 1.0-2"
grep -q '"GET /debian-security/pool/updates/main/libb/libbar/libbar_1.0-2.dsc HTTP/1.1" 200' "$T/sec.log" || fail "1.0-2 not fetched from the security archive"
check_eq "$(grep -c '"GET .*libbar_1.0-2.dsc' "$T/main.log")" 5 "main archive: 4 pool areas and the flat directory, then stop"

# offline, the import gone, the downloads kept: the .dsc and files from the cache
rm -rf "$cache/imports"
before=$(( $(wc -l <"$T/main.log") + $(wc -l <"$T/sec.log") ))
check_exit 0 "offline re-use of the security .dsc" -- P fixcheck "$fix" --repo "$up" --at v1.0 --debian-source libbar=1.0-1+deb12u1 --offline --format json
check_eq "$(json_get "$T/last.out" 'd[0]["how"]')" distribution-patch "offline: same answer"
check_eq "$(( $(wc -l <"$T/main.log") + $(wc -l <"$T/sec.log") ))" "$before" "offline: no request to either server"

# without the security key and with a mirror as main archive: no security archive
check_exit 3 "1.0-2 with only a main mirror" -- "$PROVENANCE" --cache "$T/cache2" -c "sources.debianBaseUrl=http://127.0.0.1:$pm/debian" \
	fixcheck "$fix" --repo "$up" --at v1.0 --debian-source libbar=1.0-2
check_match "$(cat "$T/last.err")" "no libbar_1.0-2.dsc under 'http://127.0.0.1:$pm/debian'" "names the main archive"
# an empty key turns the security archive off even for a security version
check_exit 3 "security archive off" -- "$PROVENANCE" --cache "$T/cache3" -c "sources.debianBaseUrl=http://127.0.0.1:$pm/debian" \
	-c sources.debianSecurityBaseUrl= fixcheck "$fix" --repo "$up" --at v1.0 --debian-source libbar=1.0-1+deb12u1
