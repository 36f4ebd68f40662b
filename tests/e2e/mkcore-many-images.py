#!/usr/bin/env python3
# mkcore-many-images.py OUT N: an ELF64 core (x86-64) whose NT_FILE maps N
# distinct ELF images (/usr/lib/libimgK.so, 128 bytes each, packed from
# 0x10000000: a one-PT_LOAD ELF header whose segment is those 128 bytes) in
# one PT_LOAD of the core. One NT_PRSTATUS thread (pid 1234). Written
# from the ELF and core(5) layouts (issue 27: libdwfl's module list).
import struct, sys
n = int(sys.argv[2])
LO = 0x10000000
PAGE = 4096
SZ = 128
img = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
       struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 1, 64, 0, 0) +
       struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, SZ, SZ, 8))
img += b"\0" * (SZ - len(img))
names = b"".join(b"/usr/lib/libimg%d.so\0" % i for i in range(n))
desc = (struct.pack("<QQ", n, PAGE) +
        b"".join(struct.pack("<QQQ", LO + i * SZ, LO + (i + 1) * SZ, 0) for i in range(n)) + names)
def note(name, typ, d):
    nm = name + b"\0"
    return struct.pack("<III", len(nm), len(d), typ) + nm + b"\0" * (-len(nm) % 4) + d + b"\0" * (-len(d) % 4)
prstatus = bytearray(336)
struct.pack_into("<I", prstatus, 32, 1234)  # pr_pid
notes = note(b"CORE", 1, bytes(prstatus)) + note(b"CORE", 0x46494c45, desc)
off_notes = 64 + 2 * 56
off_load = (off_notes + len(notes) + PAGE - 1) & ~(PAGE - 1)
size = (n * SZ + PAGE - 1) & ~(PAGE - 1)
eh = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
      struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, 2, 64, 0, 0))
phs = struct.pack("<IIQQQQQQ", 4, 4, off_notes, 0, 0, len(notes), 0, 4)
phs += struct.pack("<IIQQQQQQ", 1, 5, off_load, LO, 0, size, size, PAGE)
with open(sys.argv[1], "wb") as f:
    f.write(eh + phs + notes)
    f.seek(off_load)
    f.write(img * n)
    f.truncate(off_load + size)
