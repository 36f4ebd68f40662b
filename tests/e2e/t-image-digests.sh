#!/usr/bin/env bash
# Image digests checked (docs/containers.md): a docker-archive's layers
# against its config's rootfs.diff_ids (the sha256 of each uncompressed
# layer tar), and an image already unpacked in the cache against the record
# written when it was unpacked. The archives are written here with python's
# tarfile as `docker save` lays them out; the truth is sha256sum of the
# layer and dpkg-query --admindir on the image's own dpkg status.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v dpkg-query >/dev/null || skip "no dpkg-query"

# the image's root: a dpkg status with one package that owns a shared library
mkdir -p "$T/root/var/lib/dpkg/info" "$T/root/usr/lib" "$T/root/etc"
printf '/.\n/usr\n/usr/lib\n/usr/lib/libhello.so.1\n' >"$T/root/var/lib/dpkg/info/hello.list"
lz=$(ldd "$PROVENANCE_BIN" | grep -Eo '/[^ ]*libz\.so[^ ]*' | head -1)
[ -f "$lz" ] || skip "no libz to stand in as a package's library"
cp -L "$lz" "$T/root/usr/lib/libhello.so.1"
printf 'Package: hello\nStatus: install ok installed\nPriority: optional\nSection: misc\nMaintainer: x <x@example.org>\nArchitecture: amd64\nVersion: 2.10-3\nDescription: hello\n hello\n\n' \
	>"$T/root/var/lib/dpkg/status"
echo 'ID=debian' >"$T/root/etc/os-release"
truth=$(dpkg-query --admindir="$T/root/var/lib/dpkg" -W -f '${Version}' hello) || fail "dpkg-query cannot read the fixture status"
[ "$truth" = 2.10-3 ] || fail "dpkg-query says '$truth'"
tar -C "$T/root" --numeric-owner -cf "$T/layer.tar" .
gzip -nc "$T/layer.tar" >"$T/layer.tar.gz"
diff_id=$(sha256sum "$T/layer.tar" | cut -d' ' -f1)

# mkdocker OUT LAYERFILE DIFFID: a docker-archive (manifest.json, the
# config naming DIFFID, the layer file as it is)
mkdocker() {
	python3 - "$@" <<'PY' || fail "cannot write $1"
import hashlib, io, json, sys, tarfile
out, layer, diff = sys.argv[1:4]
cfg = json.dumps({"architecture": "amd64", "os": "linux", "config": {},
                  "rootfs": {"type": "layers", "diff_ids": ["sha256:" + diff]}}).encode()
ch = hashlib.sha256(cfg).hexdigest()
data = open(layer, "rb").read()
man = json.dumps([{"Config": ch + ".json", "RepoTags": ["example/img:v1"], "Layers": ["l1/layer.tar"]}]).encode()
t = tarfile.open(out, "w")
def add(name, b):
    i = tarfile.TarInfo(name); i.size = len(b); t.addfile(i, io.BytesIO(b))
add(ch + ".json", cfg); add("l1/layer.tar", data); add("manifest.json", man)
t.close()
print(ch)
PY
}
version() { json_get "$T/last.out" "[c['version'] for c in d['components'] if c['name']=='hello'][0]"; }

# ---- 1. docker-archive layers against the config's diff_ids ----
cfg=$(mkdocker "$T/good.tar" "$T/layer.tar" "$diff_id")
check_exit 0 "a docker-archive whose layer is its diff_id" -- "$PROVENANCE" env --sysroot "docker-archive:$T/good.tar" --format json
check_eq "$(version)" "$truth" "docker-archive: hello's version"
check_eq "$(json_get "$T/last.out" "d['sysroot']['digest']")" "sha256:$cfg" "docker-archive: the config's digest"
echo "ok: an untouched docker-archive is read"

# a gzip layer: its diff_id is the uncompressed tar's sha256, not the file's
mkdocker "$T/gz.tar" "$T/layer.tar.gz" "$diff_id" >/dev/null
check_exit 0 "a docker-archive with a gzip layer" -- env PROVENANCE_CACHE="$T/cache-gz" "$PROVENANCE" env --sysroot "docker-archive:$T/gz.tar" --format json
check_eq "$(version)" "$truth" "docker-archive, gzip layer: hello's version"
echo "ok: a gzip layer is checked against the sha256 of its uncompressed tar"

# the layer's bytes altered, manifest and config as they were
python3 - "$T/layer.tar" "$T/altered.tar" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
assert b.count(b"Version: 2.10-3") == 1
open(sys.argv[2], "wb").write(b.replace(b"Version: 2.10-3", b"Version: 6.66-6"))
PY
altered=$(sha256sum "$T/altered.tar" | cut -d' ' -f1)
[ "$altered" != "$diff_id" ] || fail "the altered layer has the same sha256"
mkdocker "$T/bad.tar" "$T/altered.tar" "$diff_id" >/dev/null
check_exit 2 "a docker-archive whose layer was altered" -- env PROVENANCE_CACHE="$T/cache-bad" "$PROVENANCE" env --sysroot "docker-archive:$T/bad.tar" --format json
[ "$(wc -l <"$T/last.err")" = 1 ] || { cat "$T/last.err"; fail "altered layer: not one line"; }
grep -q "layer 1 of 1 does not match the config's diff_id sha256:${diff_id:0:12}.*its content is sha256:${altered:0:12}" "$T/last.err" ||
	{ cat "$T/last.err"; fail "altered layer: the line does not name both digests"; }
[ -s "$T/last.out" ] && fail "altered layer: something was reported"
[ -n "$(find "$T/cache-bad" -path '*rootfs*' -name status 2>/dev/null)" ] && fail "altered layer: it was unpacked"
# without the prefix, told by content: refused the same way
check_exit 2 "the altered docker-archive, no prefix" -- env PROVENANCE_CACHE="$T/cache-bad2" "$PROVENANCE" env --sysroot "$T/bad.tar"
grep -q "does not match the config's diff_id" "$T/last.err" || { cat "$T/last.err"; fail "no prefix: not refused for its diff_id"; }
# the gzip form altered: refused too
gzip -nc "$T/altered.tar" >"$T/altered.tar.gz"
mkdocker "$T/badgz.tar" "$T/altered.tar.gz" "$diff_id" >/dev/null
check_exit 2 "a docker-archive whose gzip layer was altered" -- env PROVENANCE_CACHE="$T/cache-badgz" "$PROVENANCE" env --sysroot "docker-archive:$T/badgz.tar"
grep -q "does not match the config's diff_id" "$T/last.err" || { cat "$T/last.err"; fail "gzip altered: not refused for its diff_id"; }
echo "ok: an altered layer is refused (exit 2, one line naming both digests), nothing unpacked"

# ---- 2. an image already unpacked in the cache is checked before reuse ----
C=$T/cache-re
run() { check_exit 0 "$1" -- env PROVENANCE_CACHE="$C" "$PROVENANCE" env --sysroot "docker-archive:$T/good.tar" --format json; }
run "first run (unpacks)"
check_eq "$(version)" "$truth" "first run"
st=$(find "$C" -path "*/$cfg/rootfs/var/lib/dpkg/status")
[ -f "$st" ] || fail "the unpacked status is not at <cache>/images/$cfg/rootfs"
run "second run (reuses)"
check_eq "$(version)" "$truth" "second run"
grep -q "not as it was made" "$T/last.err" && { cat "$T/last.err"; fail "an untouched cached tree was unpacked again"; }
echo "ok: an untouched cached tree is reused"

tampered() {	# the run after $1 gives the image's version and says it unpacked again
	run "after $1"
	check_eq "$(version)" "$truth" "after $1: the image's version, not the cache's"
	grep -q "not as it was made" "$T/last.err" || { cat "$T/last.err"; fail "after $1: no line saying the copy was unpacked again"; }
	check_eq "$(dpkg-query --admindir="$(dirname "$st")" -W -f '${Version}' hello)" "$truth" "after $1: the cached status rebuilt"
	echo "ok: $1: unpacked again, the image's version"
}
sed -i 's/^Version: 2.10-3$/Version: 9.99-9/' "$st"
check_eq "$(dpkg-query --admindir="$(dirname "$st")" -W -f '${Version}' hello)" 9.99-9 "the tampered cached status"
tampered "the cached status edited (sed -i)"
# edited in place: same inode, same size, its mtime put back
python3 - "$st" <<'PY'
import os, sys
p = sys.argv[1]; s = os.stat(p)
with open(p, "r+b") as f:
    b = f.read(); f.seek(0); f.write(b.replace(b"Version: 2.10-3", b"Version: 7.77-7"))
os.utime(p, ns=(s.st_atime_ns, s.st_mtime_ns))
assert os.stat(p).st_ino == s.st_ino and os.stat(p).st_mtime_ns == s.st_mtime_ns
PY
tampered "the cached status edited in place, mtime restored"
rm -f "$st"
tampered "the cached status removed"
echo 'Package: injected' >"$(dirname "$st")/status-old"
tampered "a file added to the cached tree"
[ -e "$(dirname "$st")/status-old" ] && fail "the added file is still there"
rm -f "${st%/rootfs/var/lib/dpkg/status}/complete"
tampered "the record removed"
exit 0
