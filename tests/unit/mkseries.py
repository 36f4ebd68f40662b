#!/usr/bin/env python3
"""A Debian 3.0 (quilt) source package whose series patches one big file
(test-srcimport, issue 17 item 8).

    mkseries.py DIR SOURCE VERSION LINES PATCHES OFFSET

DIR/SOURCE_VERSION.orig.tar.gz holds SOURCE-VERSION/big.c of LINES lines
("x", the last PATCHES ones "line N"); DIR/SOURCE_VERSION-1.debian.tar.xz has PATCHES distinct patches
p0000.patch..., patch j changing line LINES-1-j to "LINE N", its hunk
claiming to start OFFSET lines before where that line is (0: in place);
DIR/SOURCE_VERSION-1.dsc names both with their sha256.
"""
import hashlib, io, os, sys, tarfile

d, src, ver = sys.argv[1], sys.argv[2], sys.argv[3]
nlines, npatches, off = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
os.makedirs(d, exist_ok=True)


def add(t, name, data):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    ti.mode = 0o644
    t.addfile(ti, io.BytesIO(data))


orig = "%s_%s.orig.tar.gz" % (src, ver)
with tarfile.open(os.path.join(d, orig), "w:gz", compresslevel=1) as t:
    add(t, "%s-%s/big.c" % (src, ver),
        b"".join(b"line %d\n" % i if i >= nlines - npatches else b"x\n" for i in range(1, nlines + 1)))
deb = "%s_%s-1.debian.tar.xz" % (src, ver)
with tarfile.open(os.path.join(d, deb), "w:xz") as t:
    add(t, "debian/source/format", b"3.0 (quilt)\n")
    series = []
    for j in range(npatches):
        n = nlines - 1 - j                     # the line it changes (1-based)
        claim = max(1, n - off)
        name = "p%04d.patch" % j
        series.append(name)
        add(t, "debian/patches/" + name,
            b"--- a/big.c\n+++ b/big.c\n@@ -%d +%d @@\n-line %d\n+LINE %d\n" % (claim, claim, n, n))
    add(t, "debian/patches/series", ("\n".join(series) + "\n").encode())
with open(os.path.join(d, "%s_%s-1.dsc" % (src, ver)), "w") as f:
    f.write("Format: 3.0 (quilt)\nSource: %s\nVersion: %s-1\nChecksums-Sha256:\n" % (src, ver))
    for name in (orig, deb):
        data = open(os.path.join(d, name), "rb").read()
        f.write(" %s %d %s\n" % (hashlib.sha256(data).hexdigest(), len(data), name))
