#!/usr/bin/env bash
# --sysroot as a squashfs image (enroot .sqsh) and as an Apptainer SIF
# (docs/containers.md): the fixture root of t-env-sysroot.sh (real dpkg/rpm
# databases, pip, conda, git), with a program, its library and a core made
# in it under chroot when this host can, packed with gensquashfs
# (squashfs-tools-ng) and, around that squashfs, as a SIF written here by a
# small python3 writer that follows the sylabs/sif format (Apptainer is not
# in Debian: the SIF is synthetic). env and resolve on each answer as on the
# unpacked tree; the digest in the report is the file's sha256 computed
# here. Hostile squashfs images (made with mksquashfs, metadata left
# uncompressed so that a name can be patched into '..' or 'a/b'), hostile
# SIF headers: refused (exit 2, one line) or confined.
# test: slow
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v gensquashfs >/dev/null || skip "no gensquashfs (squashfs-tools-ng)"

"$TOP/fixtures/roots/build-root.sh" "$T/root" "$T/truth" || { rc=$?; [ $rc = 77 ] && exit 77; fail "cannot build the fixture root"; }
truth() { grep -m1 "^$1=" "$T/truth" | cut -d= -f2-; }
R=$T/root

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

# ---- the images ----
gensquashfs -q -D "$R" -c zstd -j 1 "$T/root.sqsh" >/dev/null || fail "gensquashfs cannot pack the root"

# mksif OUT SQUASHFS [ENCRYPTED]: a SIF (format "01") with a definition-file
# object, then the squashfs as the primary system partition (fstype 1, or 5
# when ENCRYPTED), the data at 32768 as Apptainer lays it out
cat >"$T/mksif.py" <<'PY'
import struct, sys
out, sq = sys.argv[1], open(sys.argv[2], "rb").read()
fstype = 5 if len(sys.argv) > 3 else 1
DESC = "<i?IIIqqqqqqq128s384s"
assert struct.calcsize(DESC) == 585
deffile = b"Bootstrap: docker\nFrom: debian:12\n"
dataoff, ndesc = 32768, 48
defoff = dataoff
sqoff = (defoff + len(deffile) + 4095) // 4096 * 4096
descs = [struct.pack(DESC, 0x4001, True, 1, 0xf0000001, 0, defoff, len(deffile), len(deffile), 0, 0, 0, 0, b"", b""),
         struct.pack(DESC, 0x4004, True, 2, 0xf0000001, 0, sqoff, len(sq), len(sq), 0, 0, 0, 0, b"",
                     struct.pack("<ii3s", fstype, 2, b"02\0"))]
table = b"".join(descs) + b"\0" * (585 * (ndesc - len(descs)))
hdr = struct.pack("<32s10s3s3s16sqqqqqqqq", b"#!/usr/bin/env run-singularity\n", b"SIF_MAGIC",
                  b"01", b"02", b"\x11" * 16, 0, 0, ndesc - len(descs), ndesc, 4096, 585 * len(descs),
                  dataoff, sqoff + len(sq) - dataoff)
assert len(hdr) == 128
f = open(out, "wb")
f.write(hdr + b"\0" * (4096 - 128) + table)
f.write(b"\0" * (defoff - f.tell()) + deffile)
f.write(b"\0" * (sqoff - f.tell()) + sq)
PY
python3 "$T/mksif.py" "$T/root.sif" "$T/root.sqsh" || fail "cannot write the SIF"
sqdigest=$(sha256sum "$T/root.sqsh" | cut -d' ' -f1)
sifdigest=$(sha256sum "$T/root.sif" | cut -d' ' -f1)

# ---- the truth: env and resolve on the unpacked tree ----
check_exit 0 "env on the unpacked tree" -- "$PROVENANCE" env --sysroot "$R" --format json
comps() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d["components"], sort_keys=True, indent=0))' "$1"; }
comps "$T/last.out" >"$T/tree.comps"
check_eq "$(json_get "$T/last.out" "[c['version'] for c in d['components'] if c['name']=='libfoo1'][0]")" \
	"$(truth dpkg.libfoo1.version)" "tree: libfoo1 version"
resolved() {	# the frames and modules of a resolve report, module files relative to root $2
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); root = sys.argv[2]
print(json.dumps({"frames": [[f.get(k) for k in ("function", "file", "line", "module")] for f in d["threads"][0]["frames"]],
                  "modules": sorted([m["path"], (m["file"] or "")[len(root):] if m["file"] else None, m.get("build_id")] for m in d["modules"])}, indent=0))
PY
}
if [ -n "$have_core" ]; then
	"$PROVENANCE" resolve "$T/core" --sysroot "$R" --format json --offline >"$T/tree.json" 2>/dev/null
	resolved "$T/tree.json" "$R" >"$T/tree.resolve" || fail "resolve on the tree: no JSON"
	grep -q lib_read_value "$T/tree.resolve" || { cat "$T/tree.resolve"; fail "resolve on the tree: no lib_read_value frame"; }
fi

# each form: kind, spec, expected digest
forms="squashfs|$T/root.sqsh|$sqdigest
squashfs|squashfs:$T/root.sqsh|$sqdigest
sif|$T/root.sif|$sifdigest
sif|sif:$T/root.sif|$sifdigest"
while IFS='|' read -r kind spec digest; do
	check_exit 0 "env --sysroot $spec" -- "$PROVENANCE" env --sysroot "$spec" --format json
	comps "$T/last.out" >"$T/img.comps"
	diff -u "$T/tree.comps" "$T/img.comps" || fail "$spec: env components differ from the unpacked tree's"
	echo "ok: $spec: env components as on the unpacked tree"
	check_eq "$(json_get "$T/last.out" "[d['sysroot'][k] for k in ('kind','digest','ref')]")" \
		"$(python3 -c 'import json,sys; print(json.dumps([sys.argv[1], "sha256:"+sys.argv[2], None]))' "$kind" "$digest")" \
		"$spec: env's sysroot (kind, digest computed here)"
	python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/env.schema.json" "$T/last.out" ||
		fail "$spec: env JSON does not validate against env.schema.json"
	if [ -n "$have_core" ]; then
		"$PROVENANCE" resolve "$T/core" --sysroot "$spec" --format json --offline >"$T/img.json" 2>"$T/img.err"
		python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/img.json" ||
			fail "$spec: resolve JSON does not validate against report.schema.json"
		check_eq "$(json_get "$T/img.json" "[d['input']['sysroot'][k] for k in ('kind','digest','ref')]")" \
			"$(python3 -c 'import json,sys; print(json.dumps([sys.argv[1], "sha256:"+sys.argv[2], None]))' "$kind" "$digest")" \
			"$spec: input.sysroot"
		root=$(json_get "$T/img.json" "[m['file'] for m in d['modules'] if m['path']=='$LIBDIR/libnull.so'][0]")
		root=${root%"$LIBDIR/libnull.so"}
		case "$root" in "$PROVENANCE_CACHE"/images/*/rootfs) ;; *) fail "$spec: the library is not read from the cache's unpacked root ($root)" ;; esac
		resolved "$T/img.json" "$root" >"$T/img.resolve" || fail "resolve on the image: no JSON"
		diff -u "$T/tree.resolve" "$T/img.resolve" || fail "$spec: resolve differs from the unpacked tree's"
		echo "ok: $spec: resolve gives the same frames and modules as the unpacked tree"
	fi
done <<<"$forms"

# ---- hostile squashfs images: refused (exit 2, one line) or confined ----
one_line() {	# the refusal is one line on stderr, naming WHAT
	[ "$(wc -l <"$T/last.err")" = 1 ] || { cat "$T/last.err"; fail "$1: not one line"; }
	grep -q -- "$2" "$T/last.err" || { cat "$T/last.err"; fail "$1: the line does not say '$2'"; }
}
if command -v mksquashfs >/dev/null; then
	# mksq DIR OUT [PSEUDO...]: DIR packed with every table uncompressed
	mksq() {
		local d=$1 o=$2; shift 2
		mksquashfs "$d" "$o" -noI -noD -noF -noX -no-xattrs -all-root -quiet -noappend "$@" >/dev/null ||
			fail "mksquashfs cannot pack $d"
	}
	# patch IN OUT FROM TO: the one occurrence of the name FROM becomes TO (same length)
	patch_name() {
		python3 - "$@" <<'PY' || fail "cannot patch $3 in $1"
import sys
b = open(sys.argv[1], "rb").read(); f, t = sys.argv[3].encode(), sys.argv[4].encode()
assert len(f) == len(t) and b.count(f) == 1, b.count(f)
open(sys.argv[2], "wb").write(b.replace(f, t))
PY
	}
	mkdir -p "$T/h1/etc" "$T/escape"
	echo x >"$T/h1/etc/ok"
	echo evil >"$T/h1/QQ"
	echo evil >"$T/h1/etc/aZZb"
	mksq "$T/h1" "$T/h1.sqsh"
	patch_name "$T/h1.sqsh" "$T/dotdot.sqsh" QQ ..
	check_exit 2 "a squashfs entry named '..'" -- "$PROVENANCE" env --sysroot "$T/dotdot.sqsh"
	one_line "'..'" "not a plain name"
	patch_name "$T/h1.sqsh" "$T/slash.sqsh" aZZb a/.b
	check_exit 2 "a squashfs entry named with a '/'" -- "$PROVENANCE" env --sysroot "$T/slash.sqsh"
	one_line "'/'" "not a plain name"
	[ -n "$(find "$T/escape" "$PROVENANCE_CACHE" -name .b)" ] && fail "an entry with '/' was written"
	echo "ok: squashfs names with '..' and '/' refused"

	# absolute symlinks (a file, a folder), a symlink loop: confined, no hang
	printf 'Package: hostsecret\nStatus: install ok installed\nVersion: 6.6.6\nArchitecture: amd64\n\n' >"$T/hoststatus"
	mkdir -p "$T/hostdpkg" "$T/h2/var/lib/dpkg" "$T/h2/usr/lib" "$T/h2/opt" "$T/h2/dev"
	cp "$T/hoststatus" "$T/hostdpkg/status"
	ln -s "$T/hoststatus" "$T/h2/var/lib/dpkg/status"
	ln -s "$T/hostdpkg" "$T/h2/var/lib/rpm"
	ln -s loop-b "$T/h2/usr/lib/loop-a"
	ln -s loop-a "$T/h2/usr/lib/loop-b"
	ln -s ../../usr/lib/loop-a "$T/h2/opt/conda"
	mksq "$T/h2" "$T/links.sqsh" -p "dev/sda b 600 0 0 8 0" -p "dev/fifo i 600 0 0 f"
	check_exit 0 "a squashfs with absolute symlinks and a loop" -- "$PROVENANCE" env --sysroot "$T/links.sqsh" --format json
	grep -q hostsecret "$T/last.out" && fail "an absolute symlink read the host's file"
	grep -q "device nodes, FIFOs and sockets were skipped" "$T/last.err" || { cat "$T/last.err"; fail "no warning for the skipped device node and FIFO"; }
	[ -n "$(find "$PROVENANCE_CACHE/images" -name sda -o -name fifo)" ] && fail "a device node or FIFO was made"
	echo "ok: absolute symlinks and a symlink loop confined (the host's file not read), device nodes skipped"

	# a bomb (64 MiB of zeros, a few KB packed) against a 1 MB budget; 2000 entries against 1000
	mkdir -p "$T/h3" "$T/h4"
	head -c $((64 << 20)) /dev/zero >"$T/h3/big"
	gensquashfs -q -D "$T/h3" -c zstd -j 1 "$T/bomb.sqsh" >/dev/null || fail "cannot pack the bomb"
	rm -f "$T/h3/big"
	[ "$(stat -c %s "$T/bomb.sqsh")" -lt 1000000 ] || fail "the bomb is not small"
	check_exit 2 "a squashfs bomb" -- env PROVENANCE_IMAGE_MAX_BYTES=1000000 "$PROVENANCE" env --sysroot "$T/bomb.sqsh"
	one_line "bomb" "more file data than the limit"
	( cd "$T/h4" && seq 2000 | xargs touch )
	gensquashfs -q -D "$T/h4" -c zstd -j 1 "$T/many.sqsh" >/dev/null || fail "cannot pack many files"
	check_exit 2 "a squashfs of many entries" -- env PROVENANCE_IMAGE_MAX_ENTRIES=1000 "$PROVENANCE" env --sysroot "$T/many.sqsh"
	one_line "entries" "more entries than the limit"
	echo "ok: squashfs bomb and entry flood refused within the budgets"
else
	note "no mksquashfs (squashfs-tools): hostile squashfs names and links not checked"
fi

# a truncated squashfs: one line, exit 2
head -c 3000 "$T/root.sqsh" >"$T/short.sqsh"
check_exit 2 "a truncated squashfs" -- "$PROVENANCE" env --sysroot "$T/short.sqsh"
[ "$(wc -l <"$T/last.err")" = 1 ] || { cat "$T/last.err"; fail "truncated squashfs: not one line"; }

# ---- hostile SIF headers ----
python3 "$T/mksif.py" "$T/enc.sif" "$T/root.sqsh" encrypted || fail "cannot write the encrypted SIF"
check_exit 2 "a SIF whose root is encrypted" -- "$PROVENANCE" env --sysroot "$T/enc.sif"
one_line "encrypted" "encrypted"
head -c 20000 "$T/root.sif" >"$T/cut.sif"
check_exit 2 "a SIF cut inside its descriptor table" -- "$PROVENANCE" env --sysroot "$T/cut.sif"
one_line "cut table" "out of bounds"
head -c 40000 "$T/root.sif" >"$T/cut2.sif"
check_exit 2 "a SIF cut inside its partition" -- "$PROVENANCE" env --sysroot "$T/cut2.sif"
one_line "cut partition" "out of the file"
check_exit 2 "sif: on a squashfs" -- "$PROVENANCE" env --sysroot "sif:$T/root.sqsh"
one_line "sif: on a squashfs" "not a sif image"
echo "ok: hostile SIF headers refused"
exit 0
