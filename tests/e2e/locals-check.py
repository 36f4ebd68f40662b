#!/usr/bin/env python3
"""Compare frames[].args/locals of `provenance analyze --format json` with gdb.

  locals-check.py JSON EXE CORE [--sysroot DIR] [--min N] [--frames N]

For every frame of the crashing thread that has args/locals (the first
--frames, default 8), gdb selects the same frame (`frame N`, checked by
function name) and prints `info args` / `info locals`. Rules, per name gdb
lists:
  - gdb says <optimized out>: provenance has no value either;
  - gdb shows a value: provenance shows the same value (pointers: the same
    address, and the same string for char *; floating point: the same
    number), or no value with a note saying only the entry value was
    recorded (gdb reads those back through the caller's call site);
  - gdb shows a value for a variable held in a call-clobbered register of an
    outer frame (gdb assumes the register unchanged by the call): provenance
    may say it is not known, with a note saying so;
  - values gdb abbreviates (<repeats N times>, ...) are not compared;
  - each variable's type is gdb's `whatis` (the innermost block's, as info
    locals shows), except function pointer and anonymous types, which
    provenance writes shorter ("(*)(...)", "{...}"); DWARF's base type
    names ("long unsigned int") are compared as gdb spells them
    ("unsigned long").
Exit 0 when it holds and at least --min values were compared equal.
"""
import json
import re
import subprocess
import sys

args = sys.argv[1:]
sysroot = None
minimum = 1
max_frames = 8
while "--sysroot" in args:
    i = args.index("--sysroot")
    sysroot = args[i + 1]
    del args[i:i + 2]
if "--min" in args:
    i = args.index("--min")
    minimum = int(args[i + 1])
    del args[i:i + 2]
if "--frames" in args:
    i = args.index("--frames")
    max_frames = int(args[i + 1])
    del args[i:i + 2]
report, exe, core = args

d = json.load(open(report))
thread = next(t for t in d["threads"] if t["crashed"])
frames = [f for f in thread["frames"] if f.get("args") is not None][:max_frames]
if not frames:
    sys.exit("no frame of the crashing thread has args/locals")

cmd = ["gdb", "-nx", "-batch", "-ex", "set width 0", "-ex", "set pagination off",
       "-ex", "set print frame-arguments none"]
if sysroot:
    cmd += ["-ex", "set sysroot " + sysroot]
cmd += ["-ex", "file " + exe, "-ex", "core-file " + core]
for f in frames:
    n = f["index"]
    cmd += ["-ex", "echo @@FRAME %d\\n" % n, "-ex", "frame %d" % n,
            "-ex", "echo @@ARGS\\n", "-ex", "info args",
            "-ex", "echo @@LOCALS\\n", "-ex", "info locals"]
    for v in f["args"] + f["locals"]:
        cmd += ["-ex", "echo @@TYPE %s\\n" % v["name"], "-ex", "whatis " + v["name"]]
out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                     timeout=300).stdout

gdb = {}
cur = None
part = None
for line in out.splitlines():
    m = re.match(r"^@@FRAME (\d+)$", line)
    if m:
        cur = {"function": None, "args": {}, "locals": {}, "types": {}}
        gdb[int(m.group(1))] = cur
        part = None
        continue
    if cur is None:
        continue
    m = re.match(r"^@@TYPE (\S+)$", line)
    if m:
        part = ("type", m.group(1))
        continue
    m = re.match(r"^type = (.*)$", line)
    if m and isinstance(part, tuple):
        cur["types"].setdefault(part[1], m.group(1))
        continue
    if line == "@@ARGS":
        part = "args"
        continue
    if line == "@@LOCALS":
        part = "locals"
        continue
    m = re.match(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(", line)
    if m and part is None:
        cur["function"] = m.group(1)
        continue
    m = re.match(r"^([A-Za-z_][A-Za-z_0-9]*) = (.*)$", line)
    if m and part in ("args", "locals"):
        # the innermost block's variable wins when a name repeats
        cur[part].setdefault(m.group(1), m.group(2))


def norm(n):
    return re.sub(r"^(__GI_)?_*", "", n or "")


# DWARF's names of C's base types (GCC's DW_AT_name) as gdb's whatis prints them
GDB_BASE = [("long long unsigned int", "unsigned long long"), ("long long int", "long long"),
            ("long unsigned int", "unsigned long"), ("short unsigned int", "unsigned short"),
            ("long int", "long"), ("short int", "short")]


def gdb_spelling(t):
    for dwarf, gdb in GDB_BASE:
        t = re.sub(r"\b%s\b" % dwarf, gdb, t)
    return t


def same(ours, theirs):
    if ours == theirs:
        return True
    if theirs.startswith("0x") or theirs.startswith("@0x"):
        ot, tt = ours.split(" ", 1) + [""], theirs.split(" ", 1) + [""]
        if ot[0] != tt[0]:
            return False
        if tt[1].startswith('"'):
            return ot[1] == tt[1]
        return True     # gdb adds <symbol> to code pointers
    try:
        return float(ours) == float(theirs)
    except ValueError:
        return False


compared = skipped = types = 0
bad = []
for f in frames:
    g = gdb.get(f["index"])
    if not g or norm(g["function"]) != norm(f["function"]):
        print("skip frame #%d: gdb's frame is %s, ours %s"
              % (f["index"], g and g["function"], f["function"]))
        continue
    for kind in ("args", "locals"):
        ours = {v["name"]: v for v in f[kind]}
        for name, gv in g[kind].items():
            where = "#%d %s %s %s" % (f["index"], f["function"], kind[:-1], name)
            v = ours.get(name)
            if v is None:
                bad.append("%s: gdb shows '%s', provenance lists no such variable" % (where, gv))
                continue
            gt = g["types"].get(name)
            if gt and v["type"] and "(...)" not in v["type"] and "{...}" not in v["type"]:
                if gt != gdb_spelling(v["type"]):
                    bad.append("%s: gdb's type '%s', provenance '%s'" % (where, gt, v["type"]))
                else:
                    types += 1
            if gv == "<optimized out>":
                if v["value"] is not None:
                    bad.append("%s: gdb says optimized out, provenance says '%s'" % (where, v["value"]))
                else:
                    compared += 1
                continue
            if v["value"] is None:
                if "did not preserve" in (v["note"] or ""):
                    print("note: %s: gdb assumes the inner frame's register: '%s'; provenance: %s"
                          % (where, gv, v["note"]))
                    skipped += 1
                elif "entry value" in (v["note"] or ""):
                    print("note: %s: gdb recovers the entry value '%s'; provenance: %s"
                          % (where, gv, v["note"]))
                    skipped += 1
                else:
                    bad.append("%s: gdb shows '%s', provenance none (%s)" % (where, gv, v["note"]))
                continue
            if "<repeats" in gv or "..." in gv or "{...}" in v["value"] or gv.startswith("<"):
                skipped += 1
                continue
            if same(v["value"], gv):
                compared += 1
                print("ok: %s = %s" % (where, v["value"]))
            else:
                bad.append("%s: gdb '%s', provenance '%s'" % (where, gv, v["value"]))

print("compared %d values and %d types with gdb, %d values not comparable" % (compared, types, skipped))
for b in bad:
    print("MISMATCH " + b)
if bad:
    sys.exit(1)
if compared < minimum:
    sys.exit("only %d values compared (wanted at least %d); gdb said:\n%s" % (compared, minimum, out))
