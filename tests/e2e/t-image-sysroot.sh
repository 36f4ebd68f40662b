#!/usr/bin/env bash
# --sysroot as a container image (docs/containers.md): the fixture root of
# t-env-sysroot.sh (real dpkg/rpm databases, pip, conda, git), with a
# program, its library and a core made in it under chroot when this host
# can, packed as an OCI layout of two layers (written here with tar,
# sha256sum and a few JSON files, as the OCI image-spec describes), as an
# oci-archive (a tar of the layout) and as a docker-archive (skopeo copy).
# The lower layer holds an older dpkg status and two packages that the
# upper layer removes (a whiteout, an opaque whiteout): env and resolve on
# each image answer as on the unpacked tree; the upper layer wins; the
# whiteouts remove what they name; the report names the manifest digest
# computed here. Hostile layers are refused (exit 2) or confined; a layer
# or manifest whose content no longer matches its digest is refused.
# test: slow
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v zstd >/dev/null || skip "no zstd"

"$TOP/fixtures/roots/build-root.sh" "$T/root" "$T/truth" || { rc=$?; [ $rc = 77 ] && exit 77; fail "cannot build the fixture root"; }
truth() { grep -m1 "^$1=" "$T/truth" | cut -d= -f2-; }
R=$T/root
sp=$(dirname "$(find "$R" -type d -name 'mypkg-1.2.3.dist-info' | head -1)")
sp=${sp#"$R"}

# ---- a core made in the root (chroot), when this host can ----
have_core=
F=$TOP/fixtures/crashers
LIBDIR=/provenance-test-lib
BINDIR=/provenance-test-bin
if [ "$(id -u)" = 0 ] && command -v chroot >/dev/null && [ ! -e "$LIBDIR" ] && [ ! -e "$BINDIR" ] &&
	! grep -q '^[|/]' /proc/sys/kernel/core_pattern; then
	mkdir -p "$R$LIBDIR" "$R$BINDIR"
	${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -o "$R$LIBDIR/libnull.so" "$F/libnull.c" || fail "cannot build libnull.so"
	${CC:-cc} $CFLAGS_FIXTURE -o "$R$BINDIR/prog" "$F/nullmain.c" -L"$R$LIBDIR" -lnull \
		-Wl,-rpath,"$LIBDIR" -Wl,--no-as-needed || fail "cannot build prog"
	for lib in $(ldd "$R$BINDIR/prog" | grep -Eo '/[^ ]+' | grep -v "$LIBDIR"); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
	( chroot "$R" "$BINDIR/prog" ) >/dev/null 2>&1
	if [ $? -ge 128 ]; then
		core=$(make_core "$R" chroot "$R" "$BINDIR/prog") || exit 1
		mv "$core" "$T/core"
		have_core=1
	fi
fi
[ -n "$have_core" ] || note "no core made under chroot here (needs root, chroot, a relative core_pattern): resolve part not checked"

# ---- the two layers ----
# lower: the root, with an older libfoo1 in the dpkg status and two more
# packages (a pip one and a conda one, each with a shared library)
cp -a "$R" "$T/lower"
sed -i '/^Package: libfoo1$/,/^$/s/^Version: .*/Version: 0.0.1-lower/' "$T/lower/var/lib/dpkg/status"
grep -q '^Version: 0.0.1-lower' "$T/lower/var/lib/dpkg/status" || fail "cannot edit the lower dpkg status"
mkdir -p "$T/lower$sp/ghostpip-1.0.dist-info" "$T/lower$sp/ghostpip"
printf 'Metadata-Version: 2.1\nName: ghostpip\nVersion: 1.0\n' >"$T/lower$sp/ghostpip-1.0.dist-info/METADATA"
printf 'ghostpip/libghost.so,,\n' >"$T/lower$sp/ghostpip-1.0.dist-info/RECORD"
cp "$R/opt/conda/lib/libz.so.1.2.13" "$T/lower$sp/ghostpip/libghost.so"
cp "$R/opt/conda/lib/libz.so.1.2.13" "$T/lower/opt/conda/lib/libghostc.so.1"
printf '{"name": "ghostconda", "version": "9.9", "build": "0", "files": ["lib/libghostc.so.1"]}\n' \
	>"$T/lower/opt/conda/conda-meta/ghostconda-9.9-0.json"
# upper: the real dpkg status, a whiteout of the pip package, and an
# opaque conda-meta with the real conda files again
mkdir -p "$T/upper/var/lib/dpkg" "$T/upper$sp" "$T/upper/opt/conda/conda-meta"
cp "$R/var/lib/dpkg/status" "$T/upper/var/lib/dpkg/status"
: >"$T/upper$sp/.wh.ghostpip-1.0.dist-info"
: >"$T/upper/opt/conda/conda-meta/.wh..wh..opq"
cp "$R"/opt/conda/conda-meta/*.json "$T/upper/opt/conda/conda-meta/"

check_exit 0 "env on the lower layer alone" -- "$PROVENANCE" env --sysroot "$T/lower" --format json
for g in ghostpip ghostconda; do
	json_get "$T/last.out" "[c['name'] for c in d['components']]" | grep -q "$g" ||
		fail "the lower layer alone does not list $g: the whiteout check would prove nothing"
done
echo "ok: the lower layer alone lists ghostpip and ghostconda"

tar -C "$T/lower" --numeric-owner -cf - . | gzip -n >"$T/lower.tar.gz"
tar -C "$T/upper" --numeric-owner -cf - . | zstd -q >"$T/upper.tar.zst"

# mkoci DIR TAG LAYER...: an OCI image layout of these layer files
# (.gz, .zst or plain tar); prints the manifest's sha256
mkoci() {
	local dir=$1 tag=$2; shift 2
	local layers="" diffs="" f h mt
	mkdir -p "$dir/blobs/sha256"
	for f in "$@"; do
		h=$(sha256sum "$f" | cut -d' ' -f1)
		cp "$f" "$dir/blobs/sha256/$h"
		case "$f" in
		*.gz) mt=application/vnd.oci.image.layer.v1.tar+gzip; d=$(gzip -dc "$f" | sha256sum | cut -d' ' -f1) ;;
		*.zst) mt=application/vnd.oci.image.layer.v1.tar+zstd; d=$(zstd -qdc "$f" | sha256sum | cut -d' ' -f1) ;;
		*) mt=application/vnd.oci.image.layer.v1.tar; d=$h ;;
		esac
		layers="$layers${layers:+,}{\"mediaType\":\"$mt\",\"digest\":\"sha256:$h\",\"size\":$(stat -c %s "$f")}"
		diffs="$diffs${diffs:+,}\"sha256:$d\""
	done
	printf '{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[%s]},"config":{}}' "$diffs" >"$T/config.json"
	local ch cs
	ch=$(sha256sum "$T/config.json" | cut -d' ' -f1); cs=$(stat -c %s "$T/config.json")
	cp "$T/config.json" "$dir/blobs/sha256/$ch"
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[%s]}' \
		"$ch" "$cs" "$layers" >"$T/manifest.json"
	local mh ms
	mh=$(sha256sum "$T/manifest.json" | cut -d' ' -f1); ms=$(stat -c %s "$T/manifest.json")
	cp "$T/manifest.json" "$dir/blobs/sha256/$mh"
	printf '{"imageLayoutVersion":"1.0.0"}' >"$dir/oci-layout"
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"%s"}}]}' \
		"$mh" "$ms" "$tag" >"$dir/index.json"
	echo "$mh"
}
mdigest=$(mkoci "$T/oci" v1 "$T/lower.tar.gz" "$T/upper.tar.zst")
tar -C "$T/oci" -cf "$T/image.oci.tar" .
# docker images take no zstd layers: a second layout, both layers gzip, for skopeo
tar -C "$T/upper" --numeric-owner -cf - . | gzip -n >"$T/upper.tar.gz"
mkoci "$T/oci-gz" v1 "$T/lower.tar.gz" "$T/upper.tar.gz" >/dev/null

# the truth: env and resolve on the unpacked tree
check_exit 0 "env on the unpacked tree" -- "$PROVENANCE" env --sysroot "$R" --format json
comps() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d["components"], sort_keys=True, indent=0))' "$1"; }
comps "$T/last.out" >"$T/tree.comps"
check_eq "$(json_get "$T/last.out" "[c['version'] for c in d['components'] if c['name']=='libfoo1'][0]")" \
	"$(truth dpkg.libfoo1.version)" "tree: libfoo1 version"
if [ -n "$have_core" ]; then
	check_exit_any() { "$@" >"$T/last.out" 2>"$T/last.err"; }
	check_exit_any "$PROVENANCE" resolve "$T/core" --sysroot "$R" --format json --offline
	python3 - "$T/last.out" "$R" >"$T/tree.resolve" <<'PY' || fail "resolve on the tree: no JSON"
import json, sys
d = json.load(open(sys.argv[1])); root = sys.argv[2]
print(json.dumps({"frames": [[f.get(k) for k in ("function", "file", "line", "module")] for f in d["threads"][0]["frames"]],
                  "modules": sorted([m["path"], (m["file"] or "")[len(root):] if m["file"] else None, m.get("build_id")] for m in d["modules"])}, indent=0))
PY
	grep -q lib_read_value "$T/tree.resolve" || { cat "$T/tree.resolve"; fail "resolve on the tree: no lib_read_value frame"; }
fi

docker=
if command -v skopeo >/dev/null &&
	skopeo --insecure-policy copy -q "oci:$T/oci-gz:v1" "docker-archive:$T/image.docker.tar:example/img:v1" >"$T/skopeo.err" 2>&1; then
	docker=1
	# the truth for a docker archive: the sha256 of the config file its manifest.json names
	cfg=$(tar -xOf "$T/image.docker.tar" manifest.json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Config"])')
	ddigest=$(tar -xOf "$T/image.docker.tar" "$cfg" | sha256sum | cut -d' ' -f1)
else
	note "skopeo cannot write a docker-archive here: $(head -1 "$T/skopeo.err")"
fi

# each form: kind, spec, expected digest, expected ref
forms="oci|oci:$T/oci:v1|$mdigest|v1
oci|oci:$T/oci|$mdigest|
oci-archive|oci-archive:$T/image.oci.tar|$mdigest|
oci-archive|$T/image.oci.tar|$mdigest|"
[ -n "$docker" ] && forms="$forms
docker-archive|docker-archive:$T/image.docker.tar|$ddigest|
docker-archive|$T/image.docker.tar|$ddigest|"
while IFS='|' read -r kind spec digest ref; do
	check_exit 0 "env --sysroot $spec" -- "$PROVENANCE" env --sysroot "$spec" --format json
	comps "$T/last.out" >"$T/img.comps"
	diff -u "$T/tree.comps" "$T/img.comps" || fail "$spec: env components differ from the unpacked tree's"
	echo "ok: $spec: env components as on the unpacked tree"
	json_get "$T/last.out" "[c['name'] for c in d['components']]" | grep -Eq 'ghostpip|ghostconda' &&
		fail "$spec: a whited-out package is listed"
	echo "ok: $spec: the whiteout and the opaque whiteout removed ghostpip and ghostconda"
	check_eq "$(json_get "$T/last.out" "[c['version'] for c in d['components'] if c['name']=='libfoo1'][0]")" \
		"$(truth dpkg.libfoo1.version)" "$spec: the upper layer's dpkg status wins"
	check_eq "$(json_get "$T/last.out" "[d['sysroot'][k] for k in ('kind','digest','ref')]")" \
		"$(python3 -c 'import json,sys; print(json.dumps([sys.argv[1], "sha256:"+sys.argv[2], sys.argv[3] or None]))' "$kind" "$digest" "$ref")" \
		"$spec: env's sysroot (kind, digest computed here, ref)"
	if [ -n "$have_core" ]; then
		"$PROVENANCE" resolve "$T/core" --sysroot "$spec" --format json --offline >"$T/img.json" 2>"$T/img.err"
		check_eq "$(json_get "$T/img.json" "[d['input']['sysroot'][k] for k in ('kind','digest','ref')]")" \
			"$(python3 -c 'import json,sys; print(json.dumps([sys.argv[1], "sha256:"+sys.argv[2], sys.argv[3] or None]))' "$kind" "$digest" "$ref")" \
			"$spec: input.sysroot"
		root=$(json_get "$T/img.json" "[m['file'] for m in d['modules'] if m['path']=='$LIBDIR/libnull.so'][0]")
		root=${root%"$LIBDIR/libnull.so"}
		case "$root" in "$PROVENANCE_CACHE"/images/*/rootfs) ;; *) fail "$spec: the library is not read from the cache's unpacked root ($root)" ;; esac
		python3 - "$T/img.json" "$root" >"$T/img.resolve" <<'PY' || fail "resolve on the image: no JSON"
import json, sys
d = json.load(open(sys.argv[1])); root = sys.argv[2]
print(json.dumps({"frames": [[f.get(k) for k in ("function", "file", "line", "module")] for f in d["threads"][0]["frames"]],
                  "modules": sorted([m["path"], (m["file"] or "")[len(root):] if m["file"] else None, m.get("build_id")] for m in d["modules"])}, indent=0))
PY
		diff -u "$T/tree.resolve" "$T/img.resolve" || fail "$spec: resolve differs from the unpacked tree's"
		echo "ok: $spec: resolve gives the same frames and modules as the unpacked tree"
	fi
done <<<"$forms"

# a directory stays a directory, even an OCI layout without the oci: prefix
if [ -n "$have_core" ]; then
	"$PROVENANCE" resolve "$T/core" --sysroot "$R" --format json --offline >"$T/dir.json" 2>/dev/null
	check_eq "$(json_get "$T/dir.json" "d['input']['sysroot']")" '{"kind": "dir", "digest": null, "ref": null}' "a directory: input.sysroot"
	"$PROVENANCE" resolve "$T/core" --format json --offline >"$T/none.json" 2>/dev/null
	check_eq "$(json_get "$T/none.json" "d['input']['sysroot']")" "null" "no --sysroot: input.sysroot is null"
fi
check_exit 0 "an OCI layout directory without the prefix is a directory" -- "$PROVENANCE" env --sysroot "$T/oci" --format json
check_eq "$(json_get "$T/last.out" "len(d['components'])")" 0 "the layout read as a plain directory"

# ---- hostile images: refused (exit 2, one line) or confined ----
# hostile NAME PYTHON: a layer tar written by PYTHON (t = an open tarfile), as an OCI layout
hostile() {
	python3 - "$T/$1.tar" <<PY || fail "cannot write the $1 layer"
import io, sys, tarfile
t = tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT)
def reg(name, data=b""):
	i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))
def link(name, target, kind=tarfile.SYMTYPE):
	i = tarfile.TarInfo(name); i.type = kind; i.linkname = target; t.addfile(i)
$2
t.close()
PY
	mkoci "$T/h-$1" x "$T/$1.tar" >/dev/null
}
one_line() {	# the refusal is one line on stderr, naming WHAT
	[ "$(wc -l <"$T/last.err")" = 1 ] || { cat "$T/last.err"; fail "$1: not one line"; }
	grep -q -- "$2" "$T/last.err" || { cat "$T/last.err"; fail "$1: the line does not say '$2'"; }
}
mkdir -p "$T/escape"
hostile dotdot 'reg("etc/ok", b"x"); reg("../../escape/evil", b"x")'
check_exit 2 "a layer entry with '..'" -- "$PROVENANCE" env --sysroot "oci:$T/h-dotdot"
one_line "'..'" "climbs out"
[ -e "$T/escape/evil" ] || [ -n "$(find "$T" -name evil)" ] && fail "'..' entry written"
echo "ok: '..' refused, nothing written"

hostile hardout 'reg("etc/ok", b"x"); link("etc/pw", "../../../etc/passwd", tarfile.LNKTYPE)'
check_exit 2 "a hard link that climbs out" -- "$PROVENANCE" env --sysroot "oci:$T/h-hardout"
one_line "hard link out" "climbs out"
hostile hardabs 'reg("etc/ok", b"x"); link("etc/pw", "/etc/passwd", tarfile.LNKTYPE)'
check_exit 2 "a hard link to a host path" -- "$PROVENANCE" env --sysroot "oci:$T/h-hardabs"
one_line "hard link absolute" "not a file of the image"
echo "ok: hard links out of the image refused"

# an absolute symlink is confined: the dpkg status links to a host file
# that lists a package; read inside the root, the link leads nowhere
printf 'Package: hostsecret\nStatus: install ok installed\nVersion: 6.6.6\nArchitecture: amd64\n\n' >"$T/hoststatus"
hostile abslink "reg('var/lib/dpkg/info/.keep'); link('var/lib/dpkg/status', '$T/hoststatus'); link('usr/lib/libz.so.1', '/usr/lib/x86_64-linux-gnu/libz.so.1')"
check_exit 0 "an image with absolute symlinks" -- "$PROVENANCE" env --sysroot "oci:$T/h-abslink" --format json
grep -q hostsecret "$T/last.out" && fail "an absolute symlink read the host's file"
echo "ok: absolute symlinks resolved inside the root (the host's file not read)"

hostile device 'i = tarfile.TarInfo("dev/sda"); i.type = tarfile.BLKTYPE; i.devmajor = 8; t.addfile(i); i = tarfile.TarInfo("dev/fifo"); i.type = tarfile.FIFOTYPE; t.addfile(i); reg("etc/ok", b"x")'
check_exit 0 "an image with device nodes" -- "$PROVENANCE" env --sysroot "oci:$T/h-device" --format json
grep -q "device nodes, FIFOs and sockets were skipped" "$T/last.err" || { cat "$T/last.err"; fail "no warning for the skipped device nodes"; }
[ -n "$(find "$PROVENANCE_CACHE/images" -name sda -o -name fifo)" ] && fail "a device node or FIFO was made"
echo "ok: device nodes and FIFOs skipped"

# a bomb: 64 MiB of zeros, a few KB compressed, against a budget of 1 MB
python3 - "$T/bomb.tar" <<'PY'
import sys, tarfile
class Zero:
	def read(self, n): return b"\0" * n
t = tarfile.open(sys.argv[1], "w")
i = tarfile.TarInfo("big"); i.size = 64 << 20; t.addfile(i, Zero())
t.close()
PY
gzip -n "$T/bomb.tar"
mkoci "$T/h-bomb" x "$T/bomb.tar.gz" >/dev/null
check_exit 2 "a tarball bomb" -- env PROVENANCE_IMAGE_MAX_BYTES=1000000 "$PROVENANCE" env --sysroot "oci:$T/h-bomb"
one_line "bomb" "more file data than the limit"
# many whiteouts: past the entry budget, refused
hostile whiteouts 'for n in range(5000): reg(".wh.f%d" % n)'
check_exit 2 "a layer of many whiteouts" -- env PROVENANCE_IMAGE_MAX_ENTRIES=1000 "$PROVENANCE" env --sysroot "oci:$T/h-whiteouts"
one_line "whiteouts" "more entries than the limit"
echo "ok: bomb and whiteout flood refused within the budgets"

# a digest that names a path, and not an image
sed -i 's/"digest":"sha256:[0-9a-f]*"/"digest":"sha256:..\/..\/..\/etc\/passwd"/' "$T/h-dotdot/index.json"
check_exit 2 "a manifest digest that is a path" -- "$PROVENANCE" env --sysroot "oci:$T/h-dotdot"
one_line "digest path" "not sha256"
head -c 5000 /dev/urandom >"$T/junk"
check_exit 2 "a file that is no image" -- "$PROVENANCE" env --sysroot "$T/junk"
check_exit 2 "an oci: directory with no tag v9" -- "$PROVENANCE" env --sysroot "oci:$T/oci:v9"
one_line "no tag" "no image tagged 'v9'"

# a tampered layer: the lower blob replaced by another tar (its name, the
# manifest's digest, unchanged), read with a cache that has not seen this
# manifest: refused before anything is unpacked
cp -a "$T/oci" "$T/tampered"
lowhex=$(sha256sum "$T/lower.tar.gz" | cut -d' ' -f1)
[ -f "$T/tampered/blobs/sha256/$lowhex" ] || fail "the layout has no lower layer blob"
mkdir -p "$T/evil-layer/var/lib/dpkg"
printf 'Package: injected\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\n\n' >"$T/evil-layer/var/lib/dpkg/status"
tar -C "$T/evil-layer" --numeric-owner -cf - . | gzip -n >"$T/tampered/blobs/sha256/$lowhex"
check_exit 2 "an OCI layer changed after its digest was written" -- \
	env PROVENANCE_CACHE="$T/cache-tampered" "$PROVENANCE" env --sysroot "oci:$T/tampered" --format json
one_line "tampered layer" "layer 1 of 2 does not match its digest sha256:${lowhex:0:12}"
[ -n "$(find "$T/cache-tampered" -name status 2>/dev/null)" ] && fail "the tampered layer was unpacked"
# the manifest blob itself changed: refused too
mh=${mdigest}
cp -a "$T/oci" "$T/tampered-m"
printf ' ' >>"$T/tampered-m/blobs/sha256/$mh"
check_exit 2 "an OCI manifest changed after its digest was written" -- \
	env PROVENANCE_CACHE="$T/cache-tampered-m" "$PROVENANCE" env --sysroot "oci:$T/tampered-m"
one_line "tampered manifest" "manifest does not match its digest"
echo "ok: a tampered layer and a tampered manifest refused (exit 2, one line), nothing unpacked"
exit 0
