#!/usr/bin/env python3
"""Write a git fast-import stream: NCOMMITS commits on 'main' with strictly
increasing commit times, an annotated tag every TAGEVERY commits
(v0001, v0002, ...), and one commit on a side branch 'side' forked from the
middle that no tag contains.  Marks: commit i is :i (1-based), the side
commit is :NCOMMITS+1.

usage: mkrepo.py NCOMMITS TAGEVERY | git fast-import --export-marks=FILE
"""
import sys


def data(out, text):
    b = text.encode()
    out.write(b"data %d\n" % len(b))
    out.write(b)
    out.write(b"\n")


def main():
    n = int(sys.argv[1])
    every = int(sys.argv[2])
    out = sys.stdout.buffer
    t0 = 1500000000
    who = b"Bench <bench@example.invalid>"
    for i in range(1, n + 1):
        out.write(b"commit refs/heads/main\nmark :%d\n" % i)
        out.write(b"committer %s %d +0000\n" % (who, t0 + i * 60))
        data(out, "change %d\n" % i)
        if i > 1:
            out.write(b"from :%d\n" % (i - 1))
        data_line = "commit %d\n" % i
        out.write(b"M 100644 inline src/file%03d.c\n" % (i % 500))
        data(out, data_line)
        if i % every == 0:
            out.write(b"tag v%04d\nfrom :%d\n" % (i // every, i))
            out.write(b"tagger %s %d +0000\n" % (who, t0 + i * 60 + 1))
            data(out, "release %d\n" % (i // every))
    side = n + 1
    out.write(b"commit refs/heads/side\nmark :%d\n" % side)
    out.write(b"committer %s %d +0000\n" % (who, t0 + (n + 1) * 60))
    data(out, "side fix, never merged\n")
    out.write(b"from :%d\n" % (n // 2))
    out.write(b"M 100644 inline src/side.c\n")
    data(out, "side\n")


if __name__ == "__main__":
    main()
