#!/usr/bin/env bash
# An image is read lazily (docs/containers.md, "What is read"): a root with
# a program, its library (padded past the size written up front), the host's
# libc, a dpkg database that owns the library, and 50 MB of random data no
# run needs (usr/share/big/blob), packed as an OCI layout of two layers and
# as a squashfs. After env and resolve of a core made in the root (chroot):
# the blob is not in the cache (find: a 0-byte placeholder; du of the cache
# under its size); the core's modules are, with the bytes of the layer's
# entry (cmp with tar -xO / unsquashfs -cat); env and resolve answer as on
# the unpacked tree. A second run reuses the tree (its record was rewritten
# after the modules were filled in) and a placeholder whose source is gone
# fails loudly, never reads empty.
# test: slow
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v gensquashfs >/dev/null || skip "no gensquashfs (squashfs-tools-ng)"
command -v unsquashfs >/dev/null || command -v sqfs2tar >/dev/null || skip "no unsquashfs nor sqfs2tar"
[ "$(id -u)" = 0 ] && command -v chroot >/dev/null || skip "needs root and chroot to make a core inside the root"
grep -q '^[|/]' /proc/sys/kernel/core_pattern && skip "core_pattern is not relative: no core here"

R=$T/root
F=$TOP/fixtures/crashers
LIBDIR=/provenance-test-lib
BINDIR=/provenance-test-bin
mkdir -p "$R$LIBDIR" "$R$BINDIR" "$R/usr/share/big" "$R/var/lib/dpkg/info" "$R/etc"
# a library past the 64 KiB written up front: 200 KB of read-only data
printf 'const char lazy_pad[200000] = { 1 };\n' >"$T/pad.c"
${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -o "$R$LIBDIR/libnull.so" "$F/libnull.c" "$T/pad.c" || fail "cannot build libnull.so"
${CC:-cc} $CFLAGS_FIXTURE -o "$R$BINDIR/prog" "$F/nullmain.c" -L"$R$LIBDIR" -lnull \
	-Wl,-rpath,"$LIBDIR" -Wl,--no-as-needed || fail "cannot build prog"
for lib in $(ldd "$R$BINDIR/prog" | grep -Eo '/[^ ]+' | grep -v "$LIBDIR"); do
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
[ "$(stat -c %s "$R$LIBDIR/libnull.so")" -gt 65536 ] || fail "libnull.so is not past 64 KiB"
head -c 50000000 /dev/urandom >"$R/usr/share/big/blob"
cat >"$R/var/lib/dpkg/status" <<'EOF'
Package: libnull-test
Status: install ok installed
Maintainer: Test <test@example.org>
Architecture: amd64
Version: 1.2-3
Description: the test's library

EOF
printf '%s\n' "$LIBDIR" "$LIBDIR/libnull.so" >"$R/var/lib/dpkg/info/libnull-test.list"
printf 'ID=debian\nVERSION_ID="12"\n' >"$R/etc/os-release"
( chroot "$R" "$BINDIR/prog" ) >/dev/null 2>&1
[ $? -ge 128 ] || fail "prog did not crash under chroot"
core=$(make_core "$R" chroot "$R" "$BINDIR/prog") || exit 1
mv "$core" "$T/core"
check_eq "$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Version}' libnull-test)" 1.2-3 "dpkg-query on the root"

# ---- truth on the unpacked tree ----
comps() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d["components"], sort_keys=True, indent=0))' "$1"; }
resolved() {	# FILE ROOT: frames and modules, the module files relative to ROOT
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); root = sys.argv[2]
print(json.dumps({"frames": [[f.get(k) for k in ("function", "file", "line", "module")] for f in d["threads"][0]["frames"]],
                  "modules": sorted([m["path"], (m["file"] or "")[len(root):] if m["file"] else None, m.get("build_id"),
                                     [[o.get("kind"), o.get("package"), o.get("version")] for o in ([m["origin"]] if m.get("origin") else [])]]
                                    for m in d["modules"])}, indent=0))
PY
}
check_exit 0 "env on the unpacked tree" -- "$PROVENANCE" env --sysroot "$R" --format json
comps "$T/last.out" >"$T/tree.comps"
grep -q 'libnull-test' "$T/tree.comps" || fail "env on the tree does not list libnull-test"
"$PROVENANCE" resolve "$T/core" --sysroot "$R" --format json --offline >"$T/tree.json" 2>"$T/tree.err"
resolved "$T/tree.json" "$R" >"$T/tree.resolve" || fail "resolve on the tree: no JSON"
grep -q lib_read_value "$T/tree.resolve" || { cat "$T/tree.resolve"; fail "resolve on the tree: no lib_read_value frame"; }
modfiles=$(json_get "$T/tree.json" "' '.join(m['file'][len('$R'):] for m in d['modules'] if m['file'])")
echo "$modfiles" | grep -q "$LIBDIR/libnull.so" || fail "resolve on the tree does not read libnull.so ($modfiles)"
echo "ok: the tree: env lists libnull-test, resolve names lib_read_value; modules: $modfiles"

# ---- the images: an OCI layout (lower: the root; upper: a newer dpkg status), a squashfs ----
mkdir -p "$T/upper/var/lib/dpkg"
cp "$R/var/lib/dpkg/status" "$T/upper/var/lib/dpkg/status"
tar -C "$R" --numeric-owner -cf - . | gzip -n -1 >"$T/lower.tar.gz"
tar -C "$T/upper" --numeric-owner -cf - . >"$T/upper.tar"
# mk_layout DIR LAYER...: an OCI layout at DIR of these layers (.tar.gz or .tar), in order
mk_layout() {
	local dir=$1 f h mt d ch mh layers="" diffs=""
	shift
	mkdir -p "$dir/blobs/sha256"
	for f in "$@"; do
		h=$(sha256sum "$f" | cut -d' ' -f1)
		cp "$f" "$dir/blobs/sha256/$h"
		case "$f" in
		*.gz) mt=application/vnd.oci.image.layer.v1.tar+gzip; d=$(gzip -dc "$f" | sha256sum | cut -d' ' -f1) ;;
		*) mt=application/vnd.oci.image.layer.v1.tar; d=$h ;;
		esac
		layers="$layers${layers:+,}{\"mediaType\":\"$mt\",\"digest\":\"sha256:$h\",\"size\":$(stat -c %s "$f")}"
		diffs="$diffs${diffs:+,}\"sha256:$d\""
	done
	printf '{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[%s]},"config":{}}' "$diffs" >"$dir.config"
	ch=$(sha256sum "$dir.config" | cut -d' ' -f1)
	cp "$dir.config" "$dir/blobs/sha256/$ch"
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[%s]}' \
		"$ch" "$(stat -c %s "$dir.config")" "$layers" >"$dir.manifest"
	mh=$(sha256sum "$dir.manifest" | cut -d' ' -f1)
	cp "$dir.manifest" "$dir/blobs/sha256/$mh"
	printf '{"imageLayoutVersion":"1.0.0"}' >"$dir/oci-layout"
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s}]}' \
		"$mh" "$(stat -c %s "$dir.manifest")" >"$dir/index.json"
}
mk_layout "$T/oci" "$T/lower.tar.gz" "$T/upper.tar"
( cd "$R" && find . -mindepth 1 | sed 's|^\./||' | sort | while IFS= read -r p; do
	if [ -L "$p" ]; then echo "slink /$p 0777 0 0 $(readlink "$p")"
	elif [ -d "$p" ]; then echo "dir /$p 0755 0 0"
	elif [ -f "$p" ]; then echo "file /$p $(stat -c %a "$p") 0 0 $R/$p"
	fi; done ) >"$T/sqfs.list"
gensquashfs -q -F "$T/sqfs.list" "$T/image.sqsh" >/dev/null 2>"$T/gensquashfs.err" ||
	{ cat "$T/gensquashfs.err"; fail "gensquashfs failed"; }

# layer_cat SPEC PATH: the bytes of PATH as the image holds them
layer_cat() {
	case "$1" in
	oci:*) gzip -dc "$T/lower.tar.gz" | tar -xOf - "./$2" ;;
	*) if command -v unsquashfs >/dev/null; then unsquashfs -cat "$T/image.sqsh" "$2"
	   else sqfs2tar "$T/image.sqsh" | tar -xOf - "$2"; fi ;;
	esac
}

for spec in "oci:$T/oci" "squashfs:$T/image.sqsh"; do
	rm -rf "$PROVENANCE_CACHE"
	check_exit 0 "env --sysroot $spec" -- "$PROVENANCE" env --sysroot "$spec" --format json
	comps "$T/last.out" >"$T/img.comps"
	diff -u "$T/tree.comps" "$T/img.comps" || fail "$spec: env components differ from the unpacked tree's"
	"$PROVENANCE" resolve "$T/core" --sysroot "$spec" --format json --offline >"$T/img.json" 2>"$T/img.err"
	root=$(json_get "$T/img.json" "[m['file'] for m in d['modules'] if m['path']=='$LIBDIR/libnull.so'][0]")
	root=${root%"$LIBDIR/libnull.so"}
	case "$root" in "$PROVENANCE_CACHE"/images/*/rootfs) ;; *) fail "$spec: the library is not read from the cache's tree ($root)" ;; esac
	resolved "$T/img.json" "$root" >"$T/img.resolve"
	diff -u "$T/tree.resolve" "$T/img.resolve" || fail "$spec: resolve differs from the unpacked tree's"
	echo "ok: $spec: env and resolve answer as on the unpacked tree"
	# the blob is not extracted: a 0-byte placeholder, and the cache is far under its size
	blob=$root/usr/share/big/blob
	[ -f "$blob" ] || fail "$spec: the blob's name is not in the tree (a listing would miss it)"
	check_eq "$(stat -c %s "$blob")" 0 "$spec: the blob in the cache holds no bytes"
	used=$(du -sb "$PROVENANCE_CACHE" | cut -f1)
	[ "$used" -lt 50000000 ] || fail "$spec: the cache holds $used bytes: the 50 MB blob was extracted"
	echo "ok: $spec: the 50 MB blob is not extracted (cache: $used bytes)"
	# every module the core names is, with the image's bytes
	for m in $modfiles; do
		[ -s "$root$m" ] || fail "$spec: module $m is not in the cache"
		layer_cat "$spec" "${m#/}" >"$T/want" || fail "$spec: cannot read $m from the image"
		cmp "$T/want" "$root$m" || fail "$spec: module $m differs from the image's"
	done
	echo "ok: $spec: the core's modules ($modfiles) are extracted, bytes as in the image"
	# again: the tree is reused (no "not as it was made" warning), same answers
	"$PROVENANCE" resolve "$T/core" --sysroot "$spec" --format json --offline >"$T/again.json" 2>"$T/again.err"
	grep -q "not as it was made" "$T/again.err" && { cat "$T/again.err"; fail "$spec: the tree is not reused after files were filled in"; }
	resolved "$T/again.json" "$root" >"$T/again.resolve"
	diff -u "$T/tree.resolve" "$T/again.resolve" || fail "$spec: a second resolve differs"
	echo "ok: $spec: a second run reuses the tree"
done

# a placeholder whose layer is gone: the open fails with a warning, the file never reads empty
rm -rf "$PROVENANCE_CACHE"
check_exit 0 "env on the layout" -- "$PROVENANCE" env --sysroot "oci:$T/oci" --format json
lh=$(sha256sum "$T/lower.tar.gz" | cut -d' ' -f1)
mv "$T/oci/blobs/sha256/$lh" "$T/lower.away"
"$PROVENANCE" resolve "$T/core" --sysroot "oci:$T/oci" --format json --offline >"$T/gone.json" 2>"$T/gone.err"
# again: the failure is remembered while the layer file is as it was (not retried on every run)
"$PROVENANCE" resolve "$T/core" --sysroot "oci:$T/oci" --format json --offline >"$T/gone2.json" 2>"$T/gone2.err"
mv "$T/lower.away" "$T/oci/blobs/sha256/$lh"
grep -q "could not be extracted from the image: .*as on an earlier run" "$T/gone2.err" ||
	{ cat "$T/gone2.err"; fail "the second run with the layer gone does not say the file could not be extracted"; }
file=$(json_get "$T/gone2.json" "[m['file'] for m in d['modules'] if m['path']=='$LIBDIR/libnull.so'][0]")
case "$file" in None | null | "") ;; *) fail "libnull.so was read on the second run although its layer is gone ($file)" ;; esac
# the layer back: the files are filled in, as the layer holds them
"$PROVENANCE" resolve "$T/core" --sysroot "oci:$T/oci" --format json --offline >"$T/back.json" 2>"$T/back.err"
grep "could not be extracted" "$T/back.err" && fail "the layer is back, but its files are still said not to be extractable"
file=$(json_get "$T/back.json" "[m['file'] for m in d['modules'] if m['path']=='$LIBDIR/libnull.so'][0]")
cmp "$R$LIBDIR/libnull.so" "$file" || fail "the layer is back: libnull.so is not the layer's file ($file)"
echo "ok: with the layer back, its files are filled in"
grep -q "could not be extracted from the image" "$T/gone.err" || { cat "$T/gone.err"; fail "no warning for a file whose layer is gone"; }
file=$(json_get "$T/gone.json" "[m['file'] for m in d['modules'] if m['path']=='$LIBDIR/libnull.so'][0]")
case "$file" in None | null | "") ;; *) fail "libnull.so was read although its layer is gone ($file)" ;; esac
echo "ok: a file whose layer is gone is not read (warning: $(grep -m1 'could not be extracted' "$T/gone.err"))"

# files left out of an upper layer, behind entries a layer may hold before
# them (a device node, a FIFO, a pax long name, a hard link): the bench
# image's failure was every record naming the first layer, so each file of
# a later layer was looked for in the wrong tar ("the layer no longer holds
# X where the index says"). Layer 3 holds big.bin (and a hard link to it)
# that /usr/local/bin's links lead to (env's Go scan opens them: filled in
# when the tree is made) and libnull.so again (resolve opens it: filled in then).
mkdir -p "$T/top"
head -c 300000 /dev/urandom >"$T/top/big.bin"
python3 - "$T/top.tar.gz" "$T/top/big.bin" "$R$LIBDIR/libnull.so" "${LIBDIR#/}/libnull.so" <<'PY' || fail "cannot write layer 3"
import io, sys, tarfile
out, big, lib, librel = sys.argv[1:5]
with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as t:
    def add(name, type=tarfile.DIRTYPE, data=None, **kw):
        ti = tarfile.TarInfo(name); ti.type = type; ti.mode = 0o755 if type == tarfile.DIRTYPE else 0o644
        for k, v in kw.items(): setattr(ti, k, v)
        if data is not None: ti.size = len(data)
        t.addfile(ti, io.BytesIO(data) if data is not None else None)
    add("dev"); add("dev/null-test", tarfile.CHRTYPE, devmajor=1, devminor=3)
    add("run"); add("run/fifo-test", tarfile.FIFOTYPE)
    long = "opt/" + "long-name-" * 12 + "/" + "n" * 120
    add("opt"); add("opt/" + "long-name-" * 12); add(long, tarfile.REGTYPE, b"x" * 100000)
    add("opt/lazy-top")
    add("opt/lazy-top/big.bin", tarfile.REGTYPE, open(big, "rb").read(), mode=0o755)
    add("opt/lazy-top/big-link.bin", tarfile.LNKTYPE, linkname="opt/lazy-top/big.bin")
    add("usr"); add("usr/local"); add("usr/local/bin")
    add("usr/local/bin/toptool", tarfile.SYMTYPE, linkname="../../../opt/lazy-top/big.bin")
    add("usr/local/bin/toptool2", tarfile.SYMTYPE, linkname="/opt/lazy-top/big-link.bin")
    add("usr/local/bin/toptool3", tarfile.SYMTYPE, linkname="../lib/tool3.bin")
    add("usr/local/lib"); add("usr/local/lib/tool3.bin", tarfile.REGTYPE, open(big, "rb").read()[::-1], mode=0o755)
    add(librel, tarfile.REGTYPE, open(lib, "rb").read(), mode=0o755)
PY
python3 -c 'import sys; open(sys.argv[2], "wb").write(open(sys.argv[1], "rb").read()[::-1])' "$T/top/big.bin" "$T/top/tool3.bin"
mk_layout "$T/oci3" "$T/lower.tar.gz" "$T/upper.tar" "$T/top.tar.gz"
rm -rf "$PROVENANCE_CACHE"
check_exit 0 "env on the 3-layer layout" -- "$PROVENANCE" env --sysroot "oci:$T/oci3" --format json
grep "could not be extracted" "$T/last.err" && fail "env on the 3-layer layout: files of layer 3 could not be extracted"
comps "$T/last.out" >"$T/img3.comps"
diff -u "$T/tree.comps" "$T/img3.comps" || fail "3 layers: env components differ from the unpacked tree's"
root3=$(ls -d "$PROVENANCE_CACHE"/images/*/rootfs)
for f in big.bin big-link.bin; do
	cmp "$T/top/big.bin" "$root3/opt/lazy-top/$f" || fail "3 layers: $f is not the layer's file"
done
cmp "$T/top/tool3.bin" "$root3/usr/local/lib/tool3.bin" || fail "3 layers: tool3.bin (after its link in the layer) is not the layer's file"
echo "ok: 3 layers: env, and layer 3's big.bin (and its hard link), tool3.bin filled in, behind a device, a FIFO, a long name"
"$PROVENANCE" resolve "$T/core" --sysroot "oci:$T/oci3" --format json --offline >"$T/img3.json" 2>"$T/img3.err"
grep "could not be extracted" "$T/img3.err" && fail "resolve on the 3-layer layout: files could not be extracted"
resolved "$T/img3.json" "$root3" >"$T/img3.resolve"
diff -u "$T/tree.resolve" "$T/img3.resolve" || fail "3 layers: resolve differs from the unpacked tree's"
cmp "$R$LIBDIR/libnull.so" "$root3$LIBDIR/libnull.so" || fail "3 layers: libnull.so (layer 3) is not the layer's file"
check_exit 0 "env on the 3-layer layout again" -- "$PROVENANCE" env --sysroot "oci:$T/oci3" --format json
grep -E "could not be extracted|not as it was made" "$T/last.err" && fail "3 layers: the second env did not reuse the tree"
echo "ok: 3 layers: resolve fills libnull.so from layer 3; a second env reuses the tree"
