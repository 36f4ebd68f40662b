#!/usr/bin/env python3
"""Compare a core whose crash a signal handler caught with gdb.

  sighandler-check.py JSON EXE CORE EXPR [--sysroot DIR]

gdb's `bt` shows `<signal handler called>` at frame G; the frame after it
(G+1) is the interrupted one. Checks, against gdb:
  - ours has a frame with "signal_frame": true, and the crashing thread's
    crash_frame is the one after it;
  - the function and file:line of that frame are gdb's frame G+1;
  - the registers (general ones and rip) are gdb's `frame G+1` + `info registers`;
  - the faulting instruction (ours marked current) is at gdb's `x/i $pc` address,
    with the same mnemonic;
  - the fault address is the value of EXPR in gdb's frame G+1 (or, when EXPR
    starts with "up:", in the frame above it: its caller).
Prints what it compared; exit 0 when it holds, 1 otherwise.
"""
import json
import os
import re
import subprocess
import sys

REGS = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11",
        "r12", "r13", "r14", "r15", "rip"]


SYSROOT = []


def gdb(exe, core, *cmds):
    args = ["gdb", "-nx", "-batch", "-ex", "set width 0", "-ex", "set pagination off"] + SYSROOT
    for c in cmds:
        args += ["-ex", c]
    p = subprocess.run(args + [exe, core], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=180)
    return p.stdout


def norm(n):
    n = (n or "").split("::")[-1]
    n = re.sub(r"\(.*$", "", n)
    return re.sub(r"^(__GI_)?_*", "", n)


def main():
    js, exe, core, expr = sys.argv[1:5]
    if sys.argv[5:7] and sys.argv[5] == "--sysroot":
        SYSROOT.extend(["-ex", "set sysroot " + sys.argv[6], "-ex", "set debuginfod enabled off"])
    d = json.load(open(js))
    t = [t for t in d["threads"] if t["crashed"]][0]
    ok = True
    sig = [i for i, f in enumerate(t["frames"]) if f.get("signal_frame")]
    if not sig:
        print("no frame with signal_frame: true")
        return 1
    k = sig[0] + 1
    ours = t["frames"][k]
    if t.get("crash_frame") != ours["index"]:
        print("crash_frame %r is not the frame after the signal frame (#%d)" % (t.get("crash_frame"), ours["index"]))
        ok = False
    for f in t["frames"][:sig[0]]:
        if not f.get("in_signal_handler"):
            print("frame #%d above the signal frame is not marked in_signal_handler" % f["index"])
            ok = False

    bt = gdb(exe, core, "bt")
    g = None
    lines = {}
    for line in bt.splitlines():
        m = re.match(r"^#(\d+)\s+(.*)$", line)
        if m:
            lines[int(m.group(1))] = m.group(2)
            if "<signal handler called>" in m.group(2) and g is None:
                g = int(m.group(1))
    if g is None or g + 1 not in lines:
        print("gdb shows no <signal handler called> frame:\n" + bt)
        return 1
    theirs = lines[g + 1]
    m = re.match(r"^(?:0x[0-9a-f]+ in )?(.+?) \(.*?\)(?: at (\S+):(\d+))?", theirs)
    fn, file, line = m.group(1), m.group(2), m.group(3)
    print("gdb frame %d (after <signal handler called>): %s at %s:%s; ours #%d %s at %s:%s"
          % (g + 1, fn, file, line, ours["index"], ours["function"], ours["file"], ours["line"]))
    if norm(fn) != norm(ours["function"]):
        print("function differs")
        ok = False
    if file and (not ours["file"] or os.path.basename(file) != os.path.basename(ours["file"])
                 or int(line) != ours["line"]):
        print("file:line differs")
        ok = False

    out = gdb(exe, core, "frame %d" % (g + 1), "info registers", "x/i $pc", "p/x %s" % expr.replace("up:", ""))
    if expr.startswith("up:"):
        out += gdb(exe, core, "frame %d" % (g + 2), "p/x %s" % expr[3:])
    regs = {}
    for line in out.splitlines():
        m = re.match(r"^(\w+)\s+(0x[0-9a-f]+)\s", line)
        if m and m.group(1) in REGS:
            regs[m.group(1)] = int(m.group(2), 16)
    for r in REGS:
        mine = t["registers"].get(r)
        if r not in regs or mine is None or int(mine, 16) != regs[r]:
            print("register %s: ours %s, gdb %s" % (r, mine, hex(regs[r]) if r in regs else None))
            ok = False
    print("registers compared: %s" % " ".join(REGS))
    m = re.search(r"^=> (0x[0-9a-f]+)(?: <.*>)?:\s+(\S+)", out, re.M)
    cur = [i for i in d["instructions"] if i["current"]]
    if not m or not cur:
        print("no faulting instruction (gdb %r, ours %r)" % (m and m.group(0), cur))
        ok = False
    else:
        print("gdb x/i $pc: %s %s; ours %s %s" % (m.group(1), m.group(2), cur[0]["address"], cur[0]["text"]))
        gm = re.sub(r"[lqwb]$", "", m.group(2))
        if int(m.group(1), 16) != int(cur[0]["address"], 16) or not cur[0]["text"].split()[0].startswith(gm[:3]):
            print("faulting instruction differs")
            ok = False
    vals = re.findall(r"^\$\d+ = (?:\([^)]*\) )?(0x[0-9a-f]+)", out, re.M)
    want = int(vals[-1], 16) if vals else None
    got = d["signal"].get("address")
    print("fault address: ours %s, gdb %s = %s" % (got, expr, hex(want) if want is not None else None))
    if want is None or got is None or int(got, 16) != want:
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
