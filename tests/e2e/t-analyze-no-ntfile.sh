#!/usr/bin/env bash
# A core without an NT_FILE note (kernels before 3.7, QEMU's user mode,
# converters): a copy of a kernel core whose NT_FILE note was renumbered.
# With --exe the modules come from the dynamic linker's list in the core's
# memory: the same modules as eu-unstrip and the same frames as gdb on the
# original core. Without --exe (argv[0] relative): no "outside every mapped
# module" bad-call, a warning that the module list is incomplete, exit 1.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb eu-unstrip eu-stack python3; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers
CHK="python3 $TOP/tests/e2e/analyze-check.py"

${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -o "$T/libnull.so" "$F/libnull.c" || fail "cannot build libnull.so"
build_fixture "$F/nullmain.c" "$T/nullmain" "$T/libnull.so" -Wl,-rpath,"$T"
core=$(make_core "$T" ./nullmain) || exit 1

# renumber the NT_FILE note (0x46494c45): the layout and every offset stay valid
python3 - "$core" "$T/nofile.core" <<'PY' || fail "cannot rewrite the core"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1
phoff, = struct.unpack_from("<Q", b, 32)
phentsize, phnum = struct.unpack_from("<HH", b, 54)
done = 0
for i in range(phnum):
    p = phoff + i * phentsize
    ptype, = struct.unpack_from("<I", b, p)
    if ptype != 4:
        continue
    off, = struct.unpack_from("<Q", b, p + 8)
    size, = struct.unpack_from("<Q", b, p + 32)
    o = off
    while o + 12 <= off + size:
        nsz, dsz, ntype = struct.unpack_from("<III", b, o)
        if ntype == 0x46494c45:
            struct.pack_into("<I", b, o + 8, 0x7e57)
            done += 1
        o += 12 + (nsz + 3) // 4 * 4 + (dsz + 3) // 4 * 4
assert done == 1, done
open(sys.argv[2], "wb").write(b)
PY
eu-readelf -n "$T/nofile.core" | grep -q NT_FILE && fail "the copy still has NT_FILE"

# with --exe: modules from the link map
check_exit 0 "analyze --exe (no NT_FILE)" -- "$PROVENANCE" analyze --exe "$T/nullmain" "$T/nofile.core" --format json
cp "$T/last.out" "$T/r.json"
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["frames"][0]["function"]')" lib_read_value "frame 0 function"
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["frames"][0]["module"]')" "$T/libnull.so" "frame 0 module"
check_eq "$(json_get "$T/r.json" 'len([m for m in d["modules"] if m["path"].endswith("/nullmain")])')" 1 \
	"the executable once"
check_eq "$(json_get "$T/r.json" 'len([m for m in d["modules"] if "/libc.so" in m["path"]])')" 1 "libc once"
$CHK crashline "$T/r.json" "$F/libnull.c" || fail "crash line"
$CHK gdb "$T/r.json" "$T/nullmain" "$core" "$F" || fail "frames differ from gdb on the original core"
$CHK modules "$T/r.json" "$core" || fail "modules differ from eu-unstrip on the original core"
$CHK threads "$T/r.json" "$core" || fail "threads differ from eu-stack on the original core"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/r.json" || fail "schema"

# without --exe: incomplete, said so, no false bad-call
check_exit 1 "analyze (no NT_FILE, no --exe)" -- "$PROVENANCE" analyze "$T/nofile.core" --format json
cp "$T/last.out" "$T/n.json"
grep -q "no file note (NT_FILE): the module list is incomplete" "$T/last.err" ||
	fail "no warning that the module list is incomplete"
echo "ok: warning names the incomplete module list"
check_eq "$(json_get "$T/n.json" '[p for p in d["crash"]["patterns"] if "outside every" in json.dumps(p)]')" '[]' \
	"no bad-call from an incomplete module list"
check_eq "$(json_get "$T/n.json" 'd["threads"][0]["frames"][0]["function"]')" lib_read_value \
	"frame 0 still found in the library"
