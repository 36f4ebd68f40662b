#!/usr/bin/env python3
# mkcore-one-image.py OUT N: an ELF64 core (x86-64) whose NT_FILE holds N entries
# all naming one ELF image mapped at 0x400000; the image has 1 PT_LOAD and 511
# PT_NOTEs that all point at one 64 KiB note area (issue 17 item 6). One
# NT_PRSTATUS thread (pid 1234). Written from the ELF and core(5) layouts.
import struct, sys
n = int(sys.argv[2])
LO = 0x400000
# the image: ET_DYN, 1 PT_LOAD + 511 PT_NOTE all at one 64 KiB note area
nph = 512
noteoff = 0x8000
img = bytearray(noteoff + 65536)
img[0:64] = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
             struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, nph, 64, 0, 0))
ph = struct.pack("<IIQQQQQQ", 1, 4, 0, 0, 0, len(img), len(img), 0x1000)
for i in range(1, nph):
    ph += struct.pack("<IIQQQQQQ", 4, 4, noteoff, noteoff, noteoff, 65536, 65536, 4)
img[64:64 + len(ph)] = ph
# NT_FILE: n entries, all the image at LO, offset 0
names = b"".join(b"/usr/lib/libimg.so\0" for _ in range(n))
desc = struct.pack("<QQ", n, 4096) + b"".join(struct.pack("<QQQ", LO, LO + len(img), 0) for _ in range(n)) + names
def note(name, typ, d):
    nm = name + b"\0"
    return struct.pack("<III", len(nm), len(d), typ) + nm + b"\0" * (-len(nm) % 4) + d + b"\0" * (-len(d) % 4)
prstatus = bytearray(336)
struct.pack_into("<I", prstatus, 32, 1234)  # pr_pid
notes = note(b"CORE", 1, bytes(prstatus)) + note(b"CORE", 0x46494c45, desc)
off_notes = 64 + 2 * 56
off_load = (off_notes + len(notes) + 4095) & ~4095
eh = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
      struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, 2, 64, 0, 0))
phs = struct.pack("<IIQQQQQQ", 4, 4, off_notes, 0, 0, len(notes), 0, 4)
phs += struct.pack("<IIQQQQQQ", 1, 4, off_load, LO, 0, len(img), len(img), 0x1000)
out = bytearray(eh + phs + notes)
out += b"\0" * (off_load - len(out))
out += img
open(sys.argv[1], "wb").write(out)
