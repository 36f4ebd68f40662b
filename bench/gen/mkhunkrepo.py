#!/usr/bin/env python3
"""Write a git fast-import stream for the fixcheck-hunks bench: 'main' with
NCOMMITS commits, each changing one line of one of 200 files src/fN.c (40
lines each), tags v0.K every 1000 commits and v1.0 at NCOMMITS/2; src/fix.c
changes only three times after v1.0: a line near its fix points (context
drift), then fix D (mark :900001, carried by the package with the old
context) and fix X (mark :900002, never carried). The tip is tagged v2.0.

usage: mkhunkrepo.py NCOMMITS | git fast-import --export-marks=FILE
"""
import sys

FILES = 200
LINES = 40


def data(out, text):
    b = text.encode()
    out.write(b"data %d\n" % len(b))
    out.write(b)
    out.write(b"\n")


def fixfile(drift=False, d=False, x=False):
    rows = ["int fix_%d(int v) { return v + %d; }\n" % (i, i) for i in range(60)]
    if drift:
        rows[18] = "int fix_18(int v) { return v + 18; } /* reviewed */\n"
    if d:
        rows[20] = "int fix_20(int v) { return v > 0 ? v + 20 : 0; }\n"
    if x:
        rows[40] = "int fix_40(int v) { return v > 0 ? v + 40 : 0; }\n"
    return "".join(rows)


def main():
    n = int(sys.argv[1])
    out = sys.stdout.buffer
    who = b"Bench <bench@example.invalid>"
    t = [1500000000]
    content = [["int f%d_%d(void) { return %d; }\n" % (f, l, l) for l in range(LINES)] for f in range(FILES)]

    def commit(mark, msg, changes):
        t[0] += 60
        out.write(b"commit refs/heads/main\nmark :%d\n" % mark)
        out.write(b"committer %s %d +0000\n" % (who, t[0]))
        data(out, msg)
        for path, text in changes:
            out.write(b"M 100644 inline %s\n" % path.encode())
            data(out, text)

    def tag(name, mark):
        out.write(b"reset refs/tags/%s\nfrom :%d\n\n" % (name.encode(), mark))

    first = [("src/f%d.c" % f, "".join(content[f])) for f in range(FILES)]
    first.append(("src/fix.c", fixfile()))
    commit(1, "start\n", first)
    for i in range(2, n - 2):
        f, l = i % FILES, (i // FILES) % LINES
        content[f][l] = "int f%d_%d(void) { return %d; }\n" % (f, l, i)
        changes = [("src/f%d.c" % f, "".join(content[f]))]
        if i == n // 2 + 10:
            changes.append(("src/fix.c", fixfile(drift=True)))
        commit(i, "change %d\n" % i, changes)
        if i == n // 2:
            tag("v1.0", i)
        elif i % 1000 == 0:
            tag("v0.%d" % (i // 1000), i)
    commit(900001, "fix D\n", [("src/fix.c", fixfile(drift=True, d=True))])
    commit(900002, "fix X\n", [("src/fix.c", fixfile(drift=True, d=True, x=True))])
    tag("v2.0", 900002)


main()
