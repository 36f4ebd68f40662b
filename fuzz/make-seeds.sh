#!/usr/bin/env bash
# Generate the seed corpora of the fuzz targets into fixtures/fuzz-seeds/<target>/
# (fuzz-core, fuzz-rpm, ...: a directory named "core" would be git-ignored)
# from real tools and real files (a crasher's core, rpmbuild, the host's dpkg
# database and pip metadata, the shipped mappings) plus hand-made shapes.
# The seeds are committed; rerun this to refresh them.
#   fuzz/make-seeds.sh [OUTDIR]
set -eu
cd "$(dirname "$0")/.."
out=${1:-fixtures/fuzz-seeds}
w=$(mktemp -d /tmp/prov-seeds.XXXXXX)
trap 'rm -rf "$w"' EXIT
for t in core dpkg rpm pip json mapping pathrw input text dep3 udiff; do mkdir -p "$out/fuzz-$t"; done

# ---- core: the PT_NOTE segment of a real core (fuzz-core wraps it), and a tiny whole core ----
if [ "$(cat /proc/sys/kernel/core_pattern)" = core ] || [ "$(cut -c1 /proc/sys/kernel/core_pattern)" != '|' ]; then
	cc -g -O0 -fPIC -shared -o "$w/libnull.so" fixtures/crashers/libnull.c
	cc -g -O0 -o "$w/nullmain" fixtures/crashers/nullmain.c "$w/libnull.so" -Wl,-rpath,"$w"
	cc -g -O0 -o "$w/abort" fixtures/crashers/abort.c
	for p in nullmain abort; do
		( cd "$w" && ulimit -c unlimited && exec "./$p" ) >/dev/null 2>&1 || true
		c=$(ls -t "$w"/core* 2>/dev/null | head -1)
		[ -n "$c" ] || { echo "no core from $p (core_pattern?)" >&2; continue; }
		python3 - "$c" "$out/fuzz-core/notes-$p" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
phoff, = struct.unpack_from('<Q', d, 0x20)
phentsize, phnum = struct.unpack_from('<HH', d, 0x36)
for i in range(phnum):
    t, fl, off, va, pa, fs, ms, al = struct.unpack_from('<IIQQQQQQ', d, phoff + i * phentsize)
    if t == 4:
        open(sys.argv[2], 'wb').write(d[off:off + fs])
        break
PY
		rm -f "$c"
	done
fi
python3 - "$out/fuzz-core" <<'PY'
import struct, sys
def note(t, desc, owner=b'CORE\0'):
    pad = lambda b: b + b'\0' * ((4 - len(b) % 4) % 4)
    return struct.pack('<III', len(owner), len(desc), t) + pad(owner) + pad(desc)
prstatus = bytearray(336); struct.pack_into('<H', prstatus, 12, 11); struct.pack_into('<i', prstatus, 32, 42)
struct.pack_into('<Q', prstatus, 112 + 16 * 8, 0x400010)
siginfo = bytearray(128); struct.pack_into('<iiiQ', siginfo, 0, 11, 0, 1, 0)
paths = b'/usr/lib/libfoo.so.1\0/etc/shadow\0'
ntfile = struct.pack('<QQ', 2, 4096) + struct.pack('<QQQ', 0x400000, 0x401000, 0) + \
         struct.pack('<QQQ', 0x7f0000000000, 0x7f0000001000, 0) + paths
notes = note(1, bytes(prstatus)) + note(0x53494749, bytes(siginfo)) + note(0x46494c45, ntfile)
open(sys.argv[1] + '/synthetic', 'wb').write(notes)
# NT_FILE whose count lies
bad = struct.pack('<QQ', 0xffffffff, 4096) + b'x' * 24
open(sys.argv[1] + '/ntfile-count', 'wb').write(note(1, bytes(prstatus)) + note(0x46494c45, bad))
PY

# ---- rpm: the main header of a real package, without its magic (rpmdb.sqlite's Packages.blob) ----
if command -v rpmbuild >/dev/null; then
	mkdir -p "$w/rpm/SPECS" "$w/rpm/SOURCES"
	echo hi >"$w/rpm/SOURCES/libqux.so.3"
	cat >"$w/rpm/SPECS/qux.spec" <<'SPEC'
Name: qux
Version: 3.1.0
Release: 2.fc40
Epoch: 1
Summary: seed
License: MIT
BuildArch: x86_64
%description
seed
%install
mkdir -p %{buildroot}/usr/lib64
cp %{_sourcedir}/libqux.so.3 %{buildroot}/usr/lib64/
%files
/usr/lib64/libqux.so.3
SPEC
	if rpmbuild --quiet --define "_topdir $w/rpm" -bb "$w/rpm/SPECS/qux.spec" >/dev/null 2>&1; then
		python3 - "$(ls "$w"/rpm/RPMS/*/*.rpm | head -1)" "$out/fuzz-rpm/qux" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = 96                                  # the lead
il, dl = struct.unpack_from('>II', d, off + 8)
off += 16 + il * 16 + dl
off = (off + 7) & ~7                      # the signature header is padded to 8
il, dl = struct.unpack_from('>II', d, off + 8)
open(sys.argv[2], 'wb').write(d[off + 8:off + 16 + il * 16 + dl])
PY
	fi
fi
printf '\0\0\0\1\0\0\0\4\0\0\3\350\0\0\0\6\0\0\0\0\0\0\0\1qux\0' >"$out/fuzz-rpm/name-only"

# ---- pip: RECORD and METADATA of an installed distribution ----
for d in /usr/lib/python3/dist-packages/*.dist-info; do
	[ -f "$d/RECORD" ] || continue
	head -c 4000 "$d/RECORD" >"$out/fuzz-pip/RECORD"
	head -c 4000 "$d/METADATA" >"$out/fuzz-pip/METADATA" 2>/dev/null || true
	break
done
printf '"a,b.py",sha256=x,1\n"unterminated,\nx\0y,,\n../../etc/passwd,,\n' >"$out/fuzz-pip/RECORD-quotes"
printf 'Metadata-Version: 2.1\r\nName: torch\r\nVersion: 2.3.0+rocm6.0\r\n\r\nName: body\n' >"$out/fuzz-pip/METADATA-crlf"

# ---- json: the shapes the resolvers read ----
printf '%s' '{"type":"deb","os":"debian","name":"libfoo","version":"1:2.0-1","architecture":"amd64"}' >"$out/fuzz-json/note-package"
printf '%s' '{"url":"https://github.com/pytorch/pytorch","vcs_info":{"vcs":"git","commit_id":"0123456789abcdef0123456789abcdef01234567","requested_revision":"v2.3.0"}}' >"$out/fuzz-json/direct-url"
printf '%s' '{"name":"zlib","version":"1.2.13","build":"h5eee18b_0","channel":"https://conda.anaconda.org/main","files":["lib/libz.so.1","lib/libz.so.1.2.13"],"n":-1.5e+300}' >"$out/fuzz-json/conda-meta"
printf '%s' '["\ud83d\ude00 \u0000 \"esc\" \\", true, false, null, [[[[]]]], {"":{}}]' >"$out/fuzz-json/escapes"

# ---- mapping: the shipped files ----
cp mappings/*.map "$out/fuzz-mapping/"
printf '[component "x"]\n\tlibrary = libx.so*\n\trepo = https://example.org/x.git\n\tref = v{major}.{minor}.{patch}\n\tref = {upstream_version}\n\tpath-prefix = */x/\n\tsubdir = a/b\n' >"$out/fuzz-mapping/small.map"
printf '[component "x"]\n\tlibrary = libx.so*\n\trepo = https://example.org/x.git\n[component "x@<5.6"]\n\trepo = https://example.org/old.git\n\tref = rocm-{upstream_version}\n[component "x@>=5.6,<7"]\n\tsubdir = p/x\n\tsubdir-paths = true\n\tpath-prefix = */x/\n[component "x@=1.2.3.4"]\n\tref = v1\n' >"$out/fuzz-mapping/ranges.map"

# ---- pathrw: file NUL comp_dir NUL path-prefix NUL FROM=TO NUL subdir NUL repo URL ----
printf '%s\0%s\0%s\0%s\0%s\0%s' ../src/greet.c /build/greet-AbC123/obj '*/greet/' '/home/ci=.' '' https://example.org/greet.git >"$out/fuzz-pathrw/debian"
printf '%s\0%s\0%s\0%s\0%s\0%s' /longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/rocm-systems/projects/clr/hipamd/src/hip_module.cpp '' '*/rocm-systems/' '' projects/clr https://github.com/ROCm/rocm-systems.git >"$out/fuzz-pathrw/rpm-monorepo"
printf '%s\0%s\0%s\0%s\0%s\0%s' /proc/self/cwd/external/abseil/absl/base.cc '' '' '/proc/self/cwd=' '' '' >"$out/fuzz-pathrw/bazel"
printf '%s\0%s\0%s\0%s\0%s\0%s' a/../../../etc/passwd /tmp/pip-req-build-x1y2/ '' '' sub https://x/y/ >"$out/fuzz-pathrw/climb"

# ---- input: a text backtrace, a tiny core, the same compressed four ways, and bombs ----
cp fixtures/text/gdb/core-bt-full.txt "$out/fuzz-input/text" 2>/dev/null || printf '#0  0x1 in main () at a.c:3\n' >"$out/fuzz-input/text"
python3 - "$w/core" "$w/bomb" <<'PY'
import struct, sys
eh = b'\x7fELF\x02\x01\x01' + b'\0' * 9 + struct.pack('<HHIQQQIHHHHHH', 4, 62, 1, 0, 64, 0, 0, 64, 56, 1, 0, 0, 0)
ph = struct.pack('<IIQQQQQQ', 4, 0, 120, 0, 0, 0, 0, 4)
open(sys.argv[1], 'wb').write(eh + ph)
with open(sys.argv[2], 'wb') as f:       # a core header then 16 MiB of zeros
    f.write(eh + ph)
    f.truncate(16 << 20)
PY
# (named tiny-core*: .gitignore ignores core and core.*)
cp "$w/core" "$out/fuzz-input/tiny-core"
zstd -q -c "$w/core" >"$out/fuzz-input/tiny-core.zst"
xz -c "$w/core" >"$out/fuzz-input/tiny-core.xz"
lz4 -q -c "$w/core" >"$out/fuzz-input/tiny-core.lz4"
gzip -c "$w/core" >"$out/fuzz-input/tiny-core.gz"
zstd -q -19 -c "$w/bomb" >"$out/fuzz-input/bomb.zst"
gzip -9 -c "$w/bomb" >"$out/fuzz-input/bomb.gz"

# ---- dpkg: status NUL diversions NUL "pkg:arch\n" list ... (from the host's database) ----
if [ -f /var/lib/dpkg/status ]; then
	python3 - "$out/fuzz-dpkg" <<'PY'
import os, sys
st = open('/var/lib/dpkg/status', encoding='utf-8', errors='replace').read().split('\n\n')
pick = [s for s in st if s.startswith('Package: libc6\n') or s.startswith('Package: zlib1g\n')][:2]
lists = []
for s in pick:
    name = s.split('\n', 1)[0].split(': ', 1)[1]
    arch = [l.split(': ', 1)[1] for l in s.split('\n') if l.startswith('Architecture: ')][0]
    for cand in (f'{name}:{arch}', name):
        p = f'/var/lib/dpkg/info/{cand}.list'
        if os.path.exists(p):
            ls = [l for l in open(p).read().split('\n') if '.so' in l][:8]
            lists.append(cand + '\n' + '\n'.join(ls) + '\n')
            break
status = '\n\n'.join(pick) + '\n'
div = '/usr/lib/x86_64-linux-gnu/libfoo.so.1\n/usr/lib/x86_64-linux-gnu/libfoo.so.1.distrib\nzlib1g\n'
data = status + '\0' + div + '\0' + '\0'.join(lists)
open(sys.argv[1] + '/host', 'wb').write(data.encode())
PY
fi
printf 'Package: a\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1:2-3\nSource: b (4)\n\0\0a:amd64\n/usr/lib/liba.so.1\n/lib/../usr/lib/liba.so.1\n' >"$out/fuzz-dpkg/small"
# ---- text: the shapes of the kernel fault lines and compute-sanitizer
# reports the parsers read field by field (fixtures/text/ is seeded too, by
# run-fuzz.sh): every optional part present, absent and broken ----
text_seeds() {
	local d=$1/fuzz-text
	mkdir -p "$d"
	printf '[ 8123.456789] indexer[6442]: segfault at 0 ip 00007f8c1bb45113 sp 00007ffda9b6e760 error 6 in libstore.so.1[7f8c1bb45000+1000]\n' >"$d/kernel-old"
	printf 'Nov 24 09:58:01 host kernel: a b[88120]: segfault at 7f2b00000010 ip 00007f2b4c81a3d2 sp 00007ffe1a2b3c40 error 4 in lib x[y].so[4c3d2,7f2b4c7ce000+2a3000] likely on CPU 12 (core 4, socket 1)\n' >"$d/kernel-new"
	printf 'p[1]: segfault at 0 ip 0 sp 0 error 15\np[2]: segfault at ffffffffffffffffff ip 1 sp 2 error 6 in x[+]\np[]: segfault at 0 ip 1 sp 2 error 6 in x[1,2+3] likely on CPU \n' >"$d/kernel-broken"
	printf 'traps: solver[3131] trap divide error ip:55d0c2a01189 sp:7ffc8e0a1f30 error:0 in solver[55d0c2a01000+1000]\ntraps: r[3140] general protection fault ip:7f11d2c4a0b7 sp:7ffd33e2a8d0 error:0\ntraps: r[3141] general protection ip:1 sp:2 error:0 in l[0+0]\ntraps: r[9] trap invalid opcode ip:1 sp:\n' >"$d/kernel-traps"
	printf '========= COMPUTE-SANITIZER\n========= Invalid __global__ write of size 4 bytes\n=========     at copy_kernel(int*, int)+0x70 in copy_kernel.cu:42\n=========     by thread (31,0,0) in block (0,0,0)\n=========     Address 0x7fba2fe00100 is out of bounds\n=========     Saved host backtrace up to driver entry point at kernel launch time\n=========     Host Frame: [0x2e1f0f] in libcuda.so.1\n=========     Host Frame:main in copy.cu:80 [0xa4f2] in copy\n=========\n========= ERROR SUMMARY: 1 error\n' >"$d/cudasan"
	printf '========= Invalid __shared__ read of size \n=========     by thread (1,2 in block (\n=========     Address 0x is out of bounds\n=========     at 0x in :\n========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaDeviceSynchronize.\n=========     Host Frame: [0x1] in\n' >"$d/cudasan-broken"
}
text_seeds "$out"
# ---- dep3: distribution patches: the fixtures' quilt patches (DEP-3 headers), a
# git format-patch of a real commit, and hand-made shapes (CRLF, fuzz-like hunks) ----
for p in fixtures/srcpkg/debian/patches/*.patch; do
	[ -f "$p" ] && cp "$p" "$out/fuzz-dep3/quilt-$(basename "$p")"
done
git log -1 --format=%H >/dev/null 2>&1 && git format-patch -1 --stdout HEAD -- Makefile 2>/dev/null | head -c 65536 >"$out/fuzz-dep3/format-patch" || true
printf 'Description: x\r\nOrigin: upstream, https://example.invalid/commit/0123456789abcdef\r\nApplied-Upstream: 2.0, commit:abcdef1234567\r\n(cherry picked from commit 89abcdef01234567)\r\n---\r\n--- a/src/x.c\r\n+++ b/src/x.c\r\n@@ -1,4 +1,4 @@ int f(void)\r\n {\r\n-\treturn n > 1;\r\n+\treturn n >= 1;\r\n }\r\n' >"$out/fuzz-dep3/crlf"
printf -- '--- /dev/null\n+++ b/new.c\n@@ -0,0 +1,2 @@\n+int a;\n+int b;\n--- a/gone.c\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-int a;\n-int b;\n' >"$out/fuzz-dep3/newdel"
# ---- udiff: the one diff reader (-p from the first byte): a git format-patch
# with a rename, a quilt -p0 patch, and names and hunks it must refuse
printf 'From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n---\n x.c | 2 +-\n\ndiff --git a/src/x.c b/src/x.c\nindex 1111111..2222222 100644\n--- a/src/x.c\n+++ b/src/x.c\n@@ -1,3 +1,3 @@ int f(void)\n {\n-\treturn n > 1;\n+\treturn n >= 1;\n }\ndiff --git a/o.c b/r.c\nsimilarity index 100%%\nrename from o.c\nrename to r.c\n-- \n2.39.2\n' >"$out/fuzz-udiff/git"
printf '\001Index: a.c\n===\n--- a.c.orig\t2024-01-01\n+++ a.c\t2024-01-01\n@@ -1,2 +1,3 @@\n one\n+half\n\n--- /dev/null\n+++ new.txt\n@@ -0,0 +1 @@\n+new\n\\ No newline at end of file\n' >"$out/fuzz-udiff/quilt-p0"
printf '\001--- a/../../etc/passwd\n+++ b//x.c\n@@ -1 +1@@\n-a\n+b\n--- "a/q"\n+++ /dev/null\n@@ -1,x +1 @@\n@@ -1,3 +1,3 @@\n-a\n' >"$out/fuzz-udiff/hostile"
# kernel fault lines and compute-sanitizer reports: the text fixtures of those formats
mkdir -p "$out/fuzz-kernel" "$out/fuzz-cudasan" "$out/fuzz-version"
cp fixtures/text/kernel/*.txt "$out/fuzz-kernel/"
cp fixtures/text/compute-sanitizer/*.txt "$out/fuzz-cudasan/"
# version ranges: RANGE NUL VERSION NUL REF-TEMPLATE (fuzz/fuzz-version.c)
printf '>=5.6,<7\0006.1.40091.60100-82~22.04\000rocm-{version}' >"$out/fuzz-version/rocm-range"
printf '>=2.0,<2.20.1\0001:2.19.3-1~24.04\000v{upstream_version}' >"$out/fuzz-version/debian-epoch"
printf '<1.13\0001.13.0+cu118\000release/{major}.{minor}.{patch}' >"$out/fuzz-version/pip-local"
printf '==6.4.3\0006.4.3\000{patch}' >"$out/fuzz-version/exact"
printf '>=,<\000.\000{unknown}' >"$out/fuzz-version/broken"
# cluster job logs (fuzz/fuzz-labels.c): ranks interleaved behind srun,
# torchrun, journald and RFC 3339 prefixes, OpenMPI tags, caffe2's [N] after
# syslog times, torchrun's glog prefix
mkdir -p "$out/fuzz-labels"
python3 tests/e2e/gen-ranks.py --ranks 6 --odd 1 --cuda 2 --segv 3 --noise 1 --summary --prefix srun-torchrun >"$out/fuzz-labels/srun-torchrun.txt"
python3 tests/e2e/gen-ranks.py --ranks 4 --segv 1 --prefix journald >"$out/fuzz-labels/journald.txt"
python3 tests/e2e/gen-ranks.py --ranks 4 --cuda 0 --prefix rfc3339 >"$out/fuzz-labels/rfc3339.txt"
cp fixtures/text/launchers/caffe2-syslog-index.txt fixtures/text/launchers/nccl-watchdog.txt "$out/fuzz-labels/"
# systemd-coredump journal entries (fuzz/fuzz-journal.c): NAME=value fields
# separated by 0x1e, as sd-journal gives them (values may hold newlines, NULs)
mkdir -p "$out/fuzz-journal"
printf 'MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\036_BOOT_ID=0123456789abcdef0123456789abcdef\036_HOSTNAME=node1\036COREDUMP_PID=4242\036COREDUMP_UID=1000\036COREDUMP_SIGNAL=11\036COREDUMP_TIMESTAMP=1764000000123456\036COREDUMP_COMM=app\036COREDUMP_EXE=/usr/bin/app\036COREDUMP_CMDLINE=app --rank 3\036COREDUMP_CGROUP=/system.slice/app.service\036COREDUMP_ENVIRON=HOME=/root\nSLURM_JOB_ID=77\nRANK=3\036COREDUMP_FILENAME=/var/lib/systemd/coredump/core.app.1000.0123456789abcdef0123456789abcdef.4242.1764000000123456.zst' >"$out/fuzz-journal/coredump"
printf 'MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\036COREDUMP_PID=-1\036COREDUMP_SIGNAL=999999999999999999999\036COREDUMP_HOSTNAME=a/b c\036COREDUMP_EXE=/x\000y\036COREDUMP_FILENAME=relative\036_MACHINE_ID=XYZ\036COREDUMP_ENVIRON=RANK\nRANK=\nSLURM_PROCID=\033[31m\036COREDUMP\036=\036COREDUMP_PID=1' >"$out/fuzz-journal/hostile"
echo "seeds in $out: $(find "$out" -type f | wc -l) files, $(du -sh "$out" | cut -f1)"
