#!/usr/bin/env python3
"""Rewrite the NT_FILE note of a 64-bit little-endian core, in place of size.

  ntfile-edit.py IN OUT drop SUBSTRING     remove the entries whose name contains it
  ntfile-edit.py IN OUT pgoff SUBSTRING N  set the first such entry's page offset to N

The note keeps its size (the names are followed by zeros), so every offset
in the core stays valid. Exit 1 when no entry matched.
"""
import struct
import sys


def main():
    src, dst, op, sub = sys.argv[1:5]
    b = bytearray(open(src, "rb").read())
    assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, "not a 64-bit LE ELF file"
    phoff, = struct.unpack_from("<Q", b, 32)
    phentsize, phnum = struct.unpack_from("<HH", b, 54)
    done = 0
    for i in range(phnum):
        p = phoff + i * phentsize
        if struct.unpack_from("<I", b, p)[0] != 4:
            continue
        off, = struct.unpack_from("<Q", b, p + 8)
        size, = struct.unpack_from("<Q", b, p + 32)
        o = off
        while o + 12 <= off + size:
            nsz, dsz, ntype = struct.unpack_from("<III", b, o)
            d = o + 12 + (nsz + 3) // 4 * 4
            if ntype == 0x46494C45:
                count, page = struct.unpack_from("<QQ", b, d)
                ents = [list(struct.unpack_from("<QQQ", b, d + 16 + 24 * k)) for k in range(count)]
                names = bytes(b[d + 16 + 24 * count:d + dsz]).split(b"\0")[:count]
                keep = []
                for e, n in zip(ents, names):
                    if sub.encode() in n and op == "drop":
                        done += 1
                        continue
                    if sub.encode() in n and op == "pgoff" and not done:
                        e[2] = int(sys.argv[5], 0) // page
                        done += 1
                    keep.append((e, n))
                out = struct.pack("<QQ", len(keep), page)
                out += b"".join(struct.pack("<QQQ", *e) for e, _ in keep)
                out += b"".join(n + b"\0" for _, n in keep)
                assert len(out) <= dsz
                b[d:d + dsz] = out + bytes(dsz - len(out))
            o = d + (dsz + 3) // 4 * 4
    if not done:
        sys.exit("no NT_FILE entry names '%s'" % sub)
    open(dst, "wb").write(b)


if __name__ == "__main__":
    main()
