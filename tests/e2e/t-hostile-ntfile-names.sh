#!/usr/bin/env bash
# A core whose NT_FILE names are damaged (issue 27): a real core whose file
# note's name area is overwritten with non-NUL bytes (found by python from
# the ELF and note layouts), so no name can be read. Every module is lost:
# that must be said (a warning), no "bad-call" pattern may be drawn from the
# module list being whole, and the exit code is 1 (done but incomplete).
. "$(dirname "$0")/lib.sh"
can_dump_core
mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
core=$(make_core "$T/bin" ./nullmain) || exit $?
cp "$core" "$T/damaged"
python3 - "$T/damaged" <<'PY' || fail "cannot damage the file note"
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
phoff, = struct.unpack_from("<Q", b, 32)
phentsize, phnum = struct.unpack_from("<HH", b, 54)
done = False
for i in range(phnum):
    typ, flags, off, va, pa, filesz = struct.unpack_from("<IIQQQQ", b, phoff + i * phentsize)
    if typ != 4:
        continue
    pos, end = off, off + filesz
    while pos + 12 <= end:
        nsz, dsz, ntype = struct.unpack_from("<III", b, pos)
        d = pos + 12 + ((nsz + 3) & ~3)
        if ntype == 0x46494c45:
            count, = struct.unpack_from("<Q", b, d)
            names = d + 16 + count * 24
            for k in range(names, d + dsz):
                b[k] = 0x41
            done = True
        pos = d + ((dsz + 3) & ~3)
if not done:
    sys.exit(1)
open(p, "wb").write(b)
PY
"$PROVENANCE" --cache "$T/c" resolve --offline --format json "$T/damaged" >"$T/r.json" 2>"$T/r.err"; rc=$?
cat "$T/r.err"
check_eq "$rc" 1 "exit code with every module lost"
grep -q "NT_FILE" "$T/r.err" || fail "no warning that the file note is damaged"
check_eq "$(json_get "$T/r.json" '[p["id"] for p in d["crash"]["patterns"] if p["id"] == "bad-call"]')" "[]" \
	"bad-call drawn from a module list known incomplete"
echo "ok: damaged NT_FILE names: warned, exit 1, no false bad-call"
