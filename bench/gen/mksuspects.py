#!/usr/bin/env python3
"""Write a git fast-import stream for the suspects benchmark: NCOMMITS commits
on 'main' with strictly increasing commit times and an annotated tag every
TAGEVERY commits (v0001, ...).  src/crash.c holds crash_here(), whose line
'int v = *p;' is the crash line:
  - every 1,000th commit adds a banner line at the top of src/crash.c (the
    crash line moves down: edits above it);
  - commit TOUCH rewrites the crash line ("crash_here: fix a NULL dereference");
  - commit FUNC (if not 0) changes another line of crash_here;
  - every other commit changes one of 500 other files.
Marks: commit i is :i (1-based).

usage: mksuspects.py NCOMMITS TAGEVERY TOUCH FUNC | git fast-import
"""
import sys


def data(out, text):
    b = text.encode()
    out.write(b"data %d\n" % len(b))
    out.write(b)
    out.write(b"\n")


def crash_c(banner, fixed, func):
    lines = ["/* banner line %d */" % k for k in range(banner)]
    lines += ["#include <stddef.h>", "", "int crash_other(int x);", "int crash_here(int *p);", "",
              "int crash_other(int x)", "{", "\treturn x + 1;", "}", "",
              "int crash_here(int *p)", "{",
              "\tint v = p ? *p : 0;\t/* crash line, NULL checked */" if fixed
              else "\tint v = *p;\t/* crash line */",
              "",
              "\treturn v + 2;\t/* tuned */" if func else "\treturn v + 1;",
              "}", ""]
    return "\n".join(lines)


def main():
    n, every, touch, func = (int(a) for a in sys.argv[1:5])
    out = sys.stdout.buffer
    t0 = 1500000000
    who = b"Bench <bench@example.invalid>"
    banner = 0
    for i in range(1, n + 1):
        out.write(b"commit refs/heads/main\nmark :%d\n" % i)
        out.write(b"committer %s %d +0000\n" % (who, t0 + i * 60))
        if i == 1:
            msg = "start"
        elif i == touch:
            msg = "crash_here: fix a NULL dereference"
        elif i == func:
            msg = "crash_here: tune the result"
        elif i % 1000 == 0:
            msg = "crash.c: one more banner line"
            banner += 1
        else:
            msg = "change %d" % i
        data(out, msg + "\n")
        if i > 1:
            out.write(b"from :%d\n" % (i - 1))
        if i == 1 or i == touch or i == func or i % 1000 == 0:
            out.write(b"M 100644 inline src/crash.c\n")
            data(out, crash_c(banner, touch and i >= touch, func and i >= func))
        else:
            out.write(b"M 100644 inline src/file%03d.c\n" % (i % 500))
            data(out, "int f%d;\n" % i)
        if i % every == 0:
            out.write(b"tag v%04d\nfrom :%d\n" % (i // every, i))
            out.write(b"tagger %s %d +0000\n" % (who, t0 + i * 60 + 1))
            data(out, "release %d\n" % (i // every))


if __name__ == "__main__":
    main()
