#!/usr/bin/env bash
# Hostile archives and downloads for the srcimport API: path traversal,
# absolute paths, symlinks pointing out, device files, a decompression bomb,
# too many entries, a truncated archive, a checksum and a size mismatch, a
# dropped connection (resumed with Range), a size cap, a stalled server.
# Each gives its clear error; nothing is written outside the cache and $T.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"

san=${SANITIZE:+-fsanitize=$SANITIZE -fno-omit-frame-pointer}
${CC:-cc} -std=gnu11 -g -D_GNU_SOURCE $san $PROV_INC -o "$T/tool" "$TOP/fixtures/srcpkg/srcimport-tool.c" \
	"$TOP/libprovenance.a" $(pkg-config --libs libdw libelf libgit2 libarchive sqlite3 libcurl libdebuginfod capstone) \
	-lasm -lpthread -lstdc++ || fail "cannot build the srcimport driver"

www=$T/www
mkdir -p "$www"
touch "$T/stamp"
sleep 1

# --- hostile archives, made with python's tarfile ------------------------------
python3 - "$www" <<'PY'
import io, sys, tarfile
www = sys.argv[1]
def tar(name, entries):
    with tarfile.open(f"{www}/{name}", "w:gz") as t:
        for e in entries:
            t.addfile(*e)
def f(path, data=b"x\n"):
    i = tarfile.TarInfo(path); i.size = len(data); return (i, io.BytesIO(data))
def sym(path, target):
    i = tarfile.TarInfo(path); i.type = tarfile.SYMTYPE; i.linkname = target; return (i,)
def dev(path):
    i = tarfile.TarInfo(path); i.type = tarfile.CHRTYPE; i.devmajor = 1; i.devminor = 3; return (i,)
tar("traversal.tar.gz", [f("pkg-1/ok.c"), f("pkg-1/../../srcimport-evil-traversal")])
tar("absolute.tar.gz", [f("pkg-1/ok.c"), f("/tmp/srcimport-evil-absolute")])
tar("dotgit.tar.gz", [f("pkg-1/ok.c"), f("pkg-1/.git/hooks/post-checkout")])
tar("symlinks.tar.gz", [f("pkg-1/ok.c"), sym("pkg-1/passwd", "/etc/passwd"),
                        sym("pkg-1/up", "../../.."), f("pkg-1/up/srcimport-evil-through-link"),
                        dev("pkg-1/null")])
tar("many.tar.gz", [f("pkg-1/f%03d" % i) for i in range(200)])
PY
# a bomb: 1 GiB of zeros in one tar member, ~1 MB compressed
truncate -s 1G "$T/zeros"
tar -C "$T" -cf - zeros | gzip -1 >"$www/bomb.tar.gz"
rm -f "$T/zeros"
note "bomb: $(stat -c %s "$www/bomb.tar.gz") bytes compressed, 1 GiB unpacked"
# a truncated archive: a real one cut in the middle
cp -r "$TOP/fixtures/srcpkg/libfoo-1.0" "$T/libfoo-1.0"
head -c 200000 /dev/urandom >"$T/libfoo-1.0/random.bin"
tar -C "$T" -czf "$T/full.tar.gz" libfoo-1.0
head -c $(( $(stat -c %s "$T/full.tar.gz") / 2 )) "$T/full.tar.gz" >"$www/truncated.tar.gz"
# the same archive, for the download tests
cp "$T/full.tar.gz" "$www/flaky.tar.gz"
cp "$T/full.tar.gz" "$www/whole.tar.gz"
cp "$T/full.tar.gz" "$www/stall.tar.gz"

# a Debian source package whose orig tarball was replaced after signing the checksums
"$TOP/fixtures/srcpkg/build-srcpkg.sh" "$T/s" >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "fixture build failed"; }
mkdir -p "$www/bad-sum" "$www/bad-size"
cp "$T/s/www/debian/pool/main/libf/libfoo/"* "$www/bad-sum/"
cp "$T/s/www/debian/pool/main/libf/libfoo/"* "$www/bad-size/"
orig=$www/bad-sum/libfoo_1.0.orig.tar.gz
python3 - "$orig" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[-9] ^= 0xff            # same size, other bytes (the gzip CRC)
open(p, "wb").write(bytes(b))
PY
printf 'extra' >>"$www/bad-size/libfoo_1.0.orig.tar.gz"

python3 "$TOP/fixtures/srcpkg/flaky-server.py" "$T/port" "$www" "$T/requests.log" 2>"$T/server.err" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
[ -s "$T/port" ] || fail "the test server did not start: $(cat "$T/server.err")"
u=http://127.0.0.1:$(cat "$T/port")
cache=$T/cache
fast="-c fetch.retryDelayMs=10"

expect() {	# expect EXIT ERE WHAT -- ARGS...
	local want=$1 re=$2 what=$3; shift 4
	check_exit "$want" "$what" -- "$T/tool" $fast "$@"
	check_match "$(cat "$T/last.err")" "$re" "$what: message"
}

expect 2 "archive '$u/traversal.tar.gz' has an entry that climbs out with '\.\.': 'pkg-1/\.\./\.\./srcimport-evil-traversal'" \
	"../ entry" -- archive "$cache" "$u/traversal.tar.gz"
expect 2 "archive '$u/absolute.tar.gz' has an entry with an absolute path '/tmp/srcimport-evil-absolute'" \
	"absolute path entry" -- archive "$cache" "$u/absolute.tar.gz"
expect 2 "archive '$u/dotgit.tar.gz' has an entry inside '\.git'" \
	".git entry" -- archive "$cache" "$u/dotgit.tar.gz"
expect 4 "archive '$u/bomb.tar.gz' unpacks to more than 67108864 bytes \(import.maxBytes\)" \
	"decompression bomb" -- -c import.maxBytes=64m archive "$cache" "$u/bomb.tar.gz"
expect 4 "archive '$u/many.tar.gz' has more than 50 entries \(import.maxEntries\)" \
	"entry cap" -- -c import.maxEntries=50 archive "$cache" "$u/many.tar.gz"
expect 2 "archive '$u/truncated.tar.gz' is truncated or corrupt" \
	"truncated archive" -- archive "$cache" "$u/truncated.tar.gz"
[ -z "$(ls "$cache/downloads" | grep -v '\.part$' | while read -r f; do cmp -s "$cache/downloads/$f" "$www/truncated.tar.gz" && echo "$f"; done)" ] ||
	fail "the broken download is still trusted in the cache"
echo "ok: the truncated download was dropped from the cache"

# symlinks are stored, not followed; devices skipped; a file under a symlinked dir stays inside the tree
check_exit 0 "symlinks and devices" -- "$T/tool" archive "$cache" "$u/symlinks.tar.gz"
grep -q "'pkg-1/null' is a device, FIFO or socket: skipped" "$T/last.err" || fail "no warning for the device entry"
repo=$(sed -n 's/^repo=//p' "$T/last.out")
check_eq "$(git --git-dir="$repo" ls-tree refs/imports/archive passwd | cut -c1-6)" 120000 "symlink stored with mode 120000"
check_eq "$(git --git-dir="$repo" cat-file -p refs/imports/archive:passwd)" /etc/passwd "symlink blob holds its target"
check_eq "$(git --git-dir="$repo" ls-tree -r --name-only refs/imports/archive | tr '\n' ' ')" "ok.c passwd up/srcimport-evil-through-link " "tree entries (device skipped, link replaced by the later directory)"

# checksums from the .dsc
expect 2 "checksum mismatch for 'libfoo_1.0.orig.tar.gz' from '$u/bad-sum/libfoo_1.0.orig.tar.gz'" \
	"checksum mismatch" -- debian "$cache" "$u/bad-sum" libfoo 1.0-1
expect 2 "size mismatch for 'libfoo_1.0.orig.tar.gz' from '$u/bad-size/libfoo_1.0.orig.tar.gz'" \
	"size mismatch" -- debian "$cache" "$u/bad-size" libfoo 1.0-1
check_eq "$(git --git-dir="$cache/imports/debian-libfoo.git" for-each-ref | wc -l)" 0 "no ref after failed imports"
expect 3 "no libfoo_2.0-1.dsc under '$u/bad-sum'" "missing .dsc" -- debian "$cache" "$u/bad-sum" libfoo 2.0-1
expect 2 "'\.\./etc' is not a Debian source package name" "bad source name" -- debian "$cache" "$u" ../etc 1.0-1

# downloads: a dropped connection is resumed with a Range request
check_exit 0 "download cut in the middle, retried" -- "$T/tool" $fast fetch "$cache" "$u/flaky.tar.gz"
cmp "$(sed -n 's/^path=//p' "$T/last.out")" "$www/flaky.tar.gz" || fail "resumed download differs from the file"
grep -q "^GET /flaky.tar.gz bytes=[1-9][0-9]*-$" "$T/requests.log" || { cat "$T/requests.log"; fail "no Range request after the cut"; }
echo "ok: resumed with $(grep '^GET /flaky' "$T/requests.log" | tail -1 | cut -d' ' -f3), file identical"
expect 4 "download of '$u/whole.tar.gz' is larger than fetch.maxSize \(1024 bytes\)" \
	"size cap" -- -c fetch.maxSize=1k fetch "$cache" "$u/whole.tar.gz"
expect 1 "cannot download '$u/stall.tar.gz'" "stalled server, total timeout" -- \
	-c fetch.timeout=2 -c fetch.retries=1 fetch "$cache" "$u/stall.tar.gz"
expect 3 "'$u/nothing.tar.gz' not found \(HTTP 404\)" "404" -- fetch "$cache" "$u/nothing.tar.gz"
expect 2 "only http, https and file URLs" "ftp URL" -- fetch "$cache" "ftp://127.0.0.1/x.tar.gz"
expect 3 "is not in the cache and downloads are off" "offline" -- --offline fetch "$cache" "$u/whole.tar.gz"

# nothing written outside the cache and $T
for p in /tmp/srcimport-evil-absolute "$T/srcimport-evil-traversal" "$cache/srcimport-evil-traversal" "$T/../srcimport-evil-traversal" /srcimport-evil-through-link; do
	[ ! -e "$p" ] || fail "'$p' was written"
done
outside=$(find "$T" -newer "$T/stamp" -name 'srcimport-evil-*' 2>/dev/null)
[ -z "$outside" ] || fail "hostile names written on disk: $outside"
outside=$(find / -xdev \( -path /proc -o -path /sys -o -path "$T" \) -prune -o -newer "$T/stamp" -name 'srcimport-evil-*' -print 2>/dev/null | head)
[ -z "$outside" ] || fail "hostile names written outside \$T: $outside"
echo "ok: no entry of a hostile archive reached the disk"
