#!/usr/bin/env bash
# aarch64 return addresses signed above bit 39, with the kernel's PAC mask
# note (issue 39 #15). Linux writes NT_ARM_PAC_MASK ({data_mask, insn_mask},
# GENMASK(54, vabits)) under the note owner "LINUX", as every regset note but
# the CORE ones. A QEMU core of a PAC-built program (qemu-aarch64 -cpu max
# signs the saved return addresses, with a 48-bit VA: signatures from bit 48)
# is rewritten by this test as a kernel with a 39-bit VA would leave it: every
# return address saved on the stack (signed by QEMU) also gets signature bits in 39..47,
# and a "LINUX" NT_ARM_PAC_MASK note with the masks for 39 bits is added.
# Only that note tells a reader which bits to strip. Truth: the call chain of
# the source, and each caller's pc is the address after its `bl` (objdump).
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in aarch64-linux-gnu-gcc aarch64-linux-gnu-objdump qemu-aarch64 python3; do
	command -v $c >/dev/null || skip "$c not installed (apt-get install gcc-aarch64-linux-gnu qemu-user)"
done
printf '%s\n' '#include <stdio.h>' \
	'__attribute__((noinline)) int deref(int *p) { return *p; }' \
	'__attribute__((noinline)) int middle(int *p) { return deref(p) + 1; }' \
	'__attribute__((noinline)) int outer(int *p) { return middle(p) * 2; }' \
	'int main(void) { printf("%d\n", outer(0)); return 0; }' >"$T/pac.c"
aarch64-linux-gnu-gcc -g -O1 -static -mbranch-protection=standard -o "$T/pac" "$T/pac.c" 2>/dev/null || skip "cannot build a static aarch64 program"
aarch64-linux-gnu-objdump -d --no-show-raw-insn "$T/pac" >"$T/pac.dis"
grep -A1 '<middle>:' "$T/pac.dis" | grep -q paciasp || skip "the compiler signs no return address (no paciasp)"
rm -f "$T"/qemu_pac_*.core
( cd "$T" && ulimit -c unlimited && exec qemu-aarch64 -cpu max ./pac ) >/dev/null 2>&1
rm -f "$T/core"
core=$(ls "$T"/qemu_pac_*.core 2>/dev/null | head -1)
[ -n "$core" ] || skip "qemu-aarch64 wrote no core"

# the return addresses of the source's calls (after each bl)
python3 - "$T/pac.dis" >"$T/rets" <<'P'
import re, sys
cur = None
calls = {("middle", "deref"), ("outer", "middle"), ("main", "outer")}
for line in open(sys.argv[1]):
    m = re.match(r'^[0-9a-f]+ <(.+)>:$', line)
    if m:
        cur = m.group(1)
        continue
    m = re.match(r'^\s*([0-9a-f]+):\s+bl\s+[0-9a-f]+ <(.+)>', line)
    if m and (cur, m.group(2)) in calls:
        print(cur, '0x%x' % (int(m.group(1), 16) + 4))
P
[ "$(wc -l <"$T/rets")" = 3 ] || fail "objdump: the three calls of the source not found"
want="deref $(while read -r f pc; do printf '%s:%s ' "$f" "$pc"; done < <(grep -w middle "$T/rets"; grep -w outer "$T/rets"; grep -w main "$T/rets"))"
want=${want% }

# the kernel's 39-bit VA: signatures also in 39..47, and the LINUX note
python3 - "$core" "$T/k.core" "$T/rets" <<'P' || fail "cannot rewrite the core"
import struct, sys
src, dst, rets = sys.argv[1:]
b = bytearray(open(src, "rb").read())
want = {int(l.split()[1], 16) for l in open(rets)}
phoff, = struct.unpack_from("<Q", b, 32)
phentsize, phnum = struct.unpack_from("<HH", b, 54)
low48, extra = (1 << 48) - 1, 0x00002a8000000000   # bits 39, 41, 43, 45 (39..47)
signed = 0
note_ph = None
for i in range(phnum):
    o = phoff + i * phentsize
    p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", b, o)
    if p_type == 4:
        note_ph = o
    if p_type != 1 or not p_filesz:
        continue
    for k in range(p_offset, p_offset + p_filesz - 7, 8):
        w, = struct.unpack_from("<Q", b, k)
        if (w & low48) in want:
            struct.pack_into("<Q", b, k, w | extra)
            signed += 1
if signed < 2 or note_ph is None:
    sys.exit("found %d signed return addresses, note segment %r" % (signed, note_ph))
# the note segment moves to the end of the file, with NT_ARM_PAC_MASK added
_, _, n_off, _, _, n_filesz = struct.unpack_from("<IIQQQQ", b, note_ph)
notes = bytes(b[n_off:n_off + n_filesz])
mask = ((1 << 55) - 1) & ~((1 << 39) - 1)          # GENMASK(54, 39)
pac = struct.pack("<III", 6, 16, 0x406) + b"LINUX\0\0\0" + struct.pack("<QQ", mask, mask)
while len(b) % 8:
    b.append(0)
new_off = len(b)
b += notes + pac
struct.pack_into("<QQQQ", b, note_ph + 8, new_off, 0, 0, len(notes) + len(pac))
open(dst, "wb").write(b)
print("signed %d return addresses above bit 39" % signed)
P

check_exit 0 "analyze (a LINUX NT_ARM_PAC_MASK note, 39-bit VA)" -- "$PROVENANCE" analyze --exe "$T/pac" "$T/k.core" --format json
check_eq "$(json_get "$T/last.out" '" ".join((f["function"] or "??") + ("" if i == 0 else ":" + f["pc"]) for i, f in enumerate(d["threads"][0]["frames"][:4]))')" \
	"$want" "frames through return addresses signed above bit 39 (source; pcs after each bl)"
