#!/usr/bin/env python3
"""Compare `provenance analyze --format json` with ground truth tools.

  analyze-check.py gdb JSON EXE CORE [SRCDIR]   crashing thread vs gdb's `bt`
  analyze-check.py modules JSON CORE            module starts + build IDs vs eu-unstrip -n
  analyze-check.py threads JSON CORE            thread ids vs eu-stack --core
  analyze-check.py crashline JSON SRC           first frame in SRC is on its CRASH HERE line

Prints what it compared; exit 0 when it holds, 1 otherwise.
"""
import json
import os
import re
import subprocess
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def crashed(d):
    for t in d["threads"]:
        if t["crashed"]:
            return t
    sys.exit("no crashed thread in the report")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    return p.stdout


GDB_FRAME = re.compile(r"^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+) \(")
GDB_AT = re.compile(r" at (\S+):(\d+)\s*$")


def gdb_frames(exe, core):
    out = run(["gdb", "-nx", "-batch", "-ex", "set width 0", "-ex", "set pagination off",
               "-ex", "bt", exe, core])
    frames = []
    for line in out.splitlines():
        m = GDB_FRAME.match(line)
        if not m:
            continue
        if m.group(1) == "0":
            frames = []     # the banner printed frame #0 once already
        at = GDB_AT.search(line)
        frames.append({"function": m.group(2),
                       "file": os.path.basename(at.group(1)) if at else None,
                       "line": int(at.group(2)) if at else None})
    return frames


def same_function(a, b):
    """gdb may pick another alias of a libc symbol (clone3 / __clone3, __GI_raise / raise)."""
    norm = lambda n: re.sub(r"^(__GI_)?_*", "", n or "")
    return a == b or norm(a) == norm(b)


def cmd_gdb(js, exe, core, srcdir=None):
    """Every frame of ours up to main must match gdb's, in order. gdb may show
    extra frames (tail calls it synthesises) but only outside SRCDIR's files."""
    ours = [f for f in crashed(load(js))["frames"]]
    theirs = gdb_frames(exe, core)
    if not theirs:
        print("gdb printed no frames")
        return 1
    src_files = set(os.listdir(srcdir)) if srcdir else set()
    gi = 0
    ok = True
    for f in ours:
        fb = os.path.basename(f["file"]) if f["file"] else None
        j = gi
        while j < len(theirs) and not same_function(theirs[j]["function"], f["function"]):
            j += 1
        if j == len(theirs):
            print("ours #%d %s not in gdb's backtrace after gdb #%d" % (f["index"], f["function"], gi))
            ok = False
            break
        for skipped in theirs[gi:j]:
            if skipped["file"] in src_files:
                print("gdb frame %s (%s:%s) from the fixture is missing in ours" %
                      (skipped["function"], skipped["file"], skipped["line"]))
                ok = False
        g = theirs[j]
        if g["line"] is not None and (fb != g["file"] or f["line"] != g["line"]):
            print("#%d %s: ours %s:%s, gdb %s:%s" % (f["index"], f["function"], fb, f["line"],
                                                   g["file"], g["line"]))
            ok = False
        else:
            print("ok: #%d %s %s:%s" % (f["index"], f["function"], fb, f["line"]))
        gi = j + 1
        if f["function"] == "main":
            break
    else:
        if not any(f["function"] == "main" for f in ours) and any(
                g["function"] == "main" for g in theirs):
            print("gdb reaches main, ours does not")
            ok = False
    return 0 if ok else 1


UNSTRIP = re.compile(r"^0x([0-9a-f]+)\+0x[0-9a-f]+ ([0-9a-f]+|-)(?:@0x[0-9a-f]+)? ")


def cmd_modules(js, core):
    d = load(js)
    theirs = set()
    for line in run(["eu-unstrip", "-n", "--core=" + core]).splitlines():
        m = UNSTRIP.match(line)
        if m:
            theirs.add((int(m.group(1), 16), None if m.group(2) == "-" else m.group(2)))
    ours = set((int(m["start"], 16), m["build_id"]) for m in d["modules"] if m["start"])
    print("eu-unstrip: %d modules, ours: %d" % (len(theirs), len(ours)))
    if not theirs:
        print("eu-unstrip listed nothing")
        return 1
    if ours != theirs:
        for s, b in sorted(theirs - ours):
            print("missing in ours: 0x%x %s" % (s, b))
        for s, b in sorted(ours - theirs):
            print("extra in ours: 0x%x %s" % (s, b))
        return 1
    return 0


def cmd_threads(js, core):
    d = load(js)
    out = run(["eu-stack", "--core=" + core])
    theirs = set(int(x) for x in re.findall(r"^TID (\d+):", out, re.M))
    ours = set(t["tid"] for t in d["threads"])
    print("eu-stack: %d threads %s, ours: %d %s" % (len(theirs), sorted(theirs), len(ours),
                                                    sorted(ours)))
    return 0 if theirs and theirs == ours and len(d["threads"]) == len(theirs) else 1


def cmd_crashline(js, src):
    want = None
    with open(src) as f:
        for n, line in enumerate(f, 1):
            if "CRASH HERE" in line:
                want = n
                break
    if want is None:
        print("no CRASH HERE in %s" % src)
        return 1
    base = os.path.basename(src)
    real = os.path.realpath(src)
    for f in crashed(load(js))["frames"]:
        if f["file"] and os.path.realpath(f["file"]) == real:
            print("first frame in %s: #%d %s line %s (CRASH HERE is line %d)" %
                  (base, f["index"], f["function"], f["line"], want))
            return 0 if f["line"] == want else 1
    print("no frame in %s" % base)
    return 1


def main():
    a = sys.argv[1:]
    if not a:
        print(__doc__.strip())
        return 2
    return {"gdb": cmd_gdb, "modules": cmd_modules, "threads": cmd_threads,
            "crashline": cmd_crashline}[a[0]](*a[1:])


if __name__ == "__main__":
    sys.exit(main())
