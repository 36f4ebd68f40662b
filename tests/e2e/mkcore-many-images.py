#!/usr/bin/env python3
# mkcore-many-images.py OUT N [--lib FILE NAME BASE]... [--pc ADDR] [--stack WORD]...
#
# An ELF64 core (x86-64) whose NT_FILE maps N distinct ELF images
# (/usr/lib/libimgK.so, 128 bytes each, packed from 0x10000000: a one-PT_LOAD
# ELF header whose segment is those 128 bytes) in one PT_LOAD of the core.
# One NT_PRSTATUS thread (pid 1234). Written from the ELF and core(5)
# layouts (issue 27: libdwfl's module list).
#
# --lib maps a real ELF shared object FILE at BASE (hex) under the NT_FILE
# name NAME, each of its PT_LOADs page by page with the file's bytes (as the
# kernel maps and dumps it), after the packed images. --pc sets the thread's
# rip; --stack puts words on a stack page (0x7ffd00000000) and sets rsp to
# its first.
import struct, sys

PAGE = 4096
LO = 0x10000000
SZ = 128
STACK = 0x7ffd00000000


def loads(data):
    """(vaddr, offset, filesz, memsz) of an ELF64 file's PT_LOADs."""
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    out = []
    for i in range(phnum):
        p_type, _, off, vaddr, _, filesz, memsz, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize)
        if p_type == 1:
            out.append((vaddr, off, filesz, memsz))
    return out


args = sys.argv[1:]
out, n = args[0], int(args[1])
libs, pc, stack = [], 0, []
i = 2
while i < len(args):
    if args[i] == "--lib":
        libs.append((open(args[i + 1], "rb").read(), args[i + 2].encode(), int(args[i + 3], 16)))
        i += 4
    elif args[i] == "--pc":
        pc = int(args[i + 1], 16)
        i += 2
    elif args[i] == "--stack":
        stack.append(int(args[i + 1], 16))
        i += 2
    else:
        sys.exit("mkcore-many-images.py: unknown argument %r" % args[i])

img = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
       struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 1, 64, 0, 0) +
       struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, SZ, SZ, 8))
img += b"\0" * (SZ - len(img))

# NT_FILE entries (start, end, page offset, name) and the core's PT_LOADs
# (vaddr, bytes, flags), both in address order
files = [(LO + k * SZ, LO + (k + 1) * SZ, 0, b"/usr/lib/libimg%d.so" % k) for k in range(n)]
segs = [(LO, img * n, 5)]
for data, name, base in libs:
    for vaddr, off, filesz, memsz in loads(data):
        start = base + (vaddr & ~(PAGE - 1))
        end = (base + vaddr + memsz + PAGE - 1) & ~(PAGE - 1)
        foff = off & ~(PAGE - 1)
        body = data[foff:foff + (end - start)]
        files.append((start, end, foff // PAGE, name))
        segs.append((start, body + b"\0" * (end - start - len(body)), 5))
if stack:
    segs.append((STACK, b"".join(struct.pack("<Q", w) for w in stack).ljust(PAGE, b"\0"), 6))

desc = (struct.pack("<QQ", len(files), PAGE) +
        b"".join(struct.pack("<QQQ", s, e, o) for s, e, o, _ in files) +
        b"".join(nm + b"\0" for _, _, _, nm in files))


def note(name, typ, d):
    nm = name + b"\0"
    return struct.pack("<III", len(nm), len(d), typ) + nm + b"\0" * (-len(nm) % 4) + d + b"\0" * (-len(d) % 4)


prstatus = bytearray(336)
struct.pack_into("<I", prstatus, 32, 1234)  # pr_pid
struct.pack_into("<H", prstatus, 12, 11 if pc else 0)  # pr_cursig: SIGSEGV
struct.pack_into("<Q", prstatus, 112 + 16 * 8, pc)  # pr_reg: rip
struct.pack_into("<Q", prstatus, 112 + 19 * 8, STACK if stack else 0)  # rsp
notes = note(b"CORE", 1, bytes(prstatus)) + note(b"CORE", 0x46494c45, desc)
off_notes = 64 + (1 + len(segs)) * 56
off = (off_notes + len(notes) + PAGE - 1) & ~(PAGE - 1)
eh = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
      struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, 1 + len(segs), 64, 0, 0))
phs = struct.pack("<IIQQQQQQ", 4, 4, off_notes, 0, 0, len(notes), 0, 4)
body_at = []
for vaddr, body, flags in segs:
    size = (len(body) + PAGE - 1) & ~(PAGE - 1)
    phs += struct.pack("<IIQQQQQQ", 1, flags, off, vaddr, 0, size, size, PAGE)
    body_at.append((off, body))
    off += size
with open(out, "wb") as f:
    f.write(eh + phs + notes)
    for at, body in body_at:
        f.seek(at)
        f.write(body)
    f.truncate(off)
