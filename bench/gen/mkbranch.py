#!/usr/bin/env python3
"""Write a git fast-import stream for the backport bench: 'main' with BASE
commits, then two fixes to src/fix.c (marks :f1 and :f2, see below); a
branch 'release' forked at commit BASE/2 with NBRANCH commits, each changing
one of 500 other files, and, at NBRANCH*4/5, a copy of fix 1 with the same
change and another message (found by patch-id only). The release tip is
tagged r1. Fix 2 is never backported (the whole branch is compared).
Marks: main commits 1..BASE, fix1 = BASE+1, fix2 = BASE+2, release commits
BASE+3... ; the copy of fix1 is printed to stderr as "copy MARK".

usage: mkbranch.py BASE NBRANCH | git fast-import --export-marks=FILE
"""
import sys


def data(out, text):
    b = text.encode()
    out.write(b"data %d\n" % len(b))
    out.write(b)
    out.write(b"\n")


FIX0 = "".join("int fix_%d(void) { return %d; }\n" % (i, i) for i in range(60))


def fixed(lines_changed):
    rows = FIX0.splitlines(True)
    for i in lines_changed:
        rows[i] = "int fix_%d(void) { return -%d; } /* fixed */\n" % (i, i)
    return "".join(rows)


def main():
    base, nbranch = int(sys.argv[1]), int(sys.argv[2])
    out = sys.stdout.buffer
    who = b"Bench <bench@example.invalid>"
    t = [1500000000]

    def commit(ref, mark, msg, parent, path, content):
        t[0] += 60
        out.write(b"commit %s\nmark :%d\n" % (ref, mark))
        out.write(b"committer %s %d +0000\n" % (who, t[0]))
        data(out, msg)
        if parent:
            out.write(b"from :%d\n" % parent)
        out.write(b"M 100644 inline %s\n" % path.encode())
        data(out, content)

    commit(b"refs/heads/main", 1, "start\n", 0, "src/fix.c", FIX0)
    for i in range(2, base + 1):
        commit(b"refs/heads/main", i, "main %d\n" % i, i - 1, "src/m%03d.c" % (i % 500), "m %d\n" % i)
    commit(b"refs/heads/main", base + 1, "fix 1\n", base, "src/fix.c", fixed([10]))
    commit(b"refs/heads/main", base + 2, "fix 2\n", base + 1, "src/fix.c", fixed([10, 40]))
    parent = base // 2
    copy_at = nbranch * 4 // 5
    for k in range(nbranch):
        mark = base + 3 + k
        if k == copy_at:
            commit(b"refs/heads/release", mark, "backport the fix\n", parent, "src/fix.c", fixed([10]))
            sys.stderr.write("copy %d\n" % mark)
        else:
            commit(b"refs/heads/release", mark, "release %d\n" % k, parent,
                   "src/r%03d.c" % (k % 500), "r %d\n" % k)
        parent = mark
    out.write(b"reset refs/tags/r1\nfrom :%d\n" % parent)


if __name__ == "__main__":
    main()
