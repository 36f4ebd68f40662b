#!/usr/bin/env python3
"""Check the crashing thread's Python frames' args/locals in a provenance
JSON report against the crashed script's own dump of its frames (types,
repr(), len()) and, given gdb's py-locals output, against gdb.

usage: python-locals-check.py REPORT.json TRUTH.json [GDB.txt]
"""
import json
import re
import sys

FUNCS = ("outer", "middle", "inner")
LITERAL = ("int", "float", "str", "bytes", "NoneType", "bool")
errors = []


def err(msg):
    errors.append(msg)


def addr_of(s):
    m = re.search(r"at (?:remote )?(0x[0-9a-f]+)", s)
    return int(m.group(1), 16) if m else None


report = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
crashed = [t for t in report["threads"] if t.get("crashed")]
if len(crashed) != 1:
    sys.exit("expected one crashed thread, got %d" % len(crashed))
frames = {}
for f in crashed[0]["frames"]:
    if f["language"] == "python" and f["function"] not in frames:
        frames[f["function"]] = f

checked = 0
for fn in FUNCS:
    f = frames.get(fn)
    if f is None:
        err("%s: no Python frame" % fn)
        continue
    if f["args"] is None or f["locals"] is None:
        err("%s: args/locals not read" % fn)
        continue
    ours = {v["name"]: v for v in f["args"] + f["locals"]}
    if sorted(v["name"] for v in f["args"]) != sorted(truth[fn]["args"]):
        err("%s: args %s, the signature says %s"
            % (fn, [v["name"] for v in f["args"]], truth[fn]["args"]))
    want = truth[fn]["locals"]
    for name, w in want.items():
        v = ours.get(name)
        if v is None:
            err("%s: %s missing" % (fn, name))
            continue
        if v["type"] != w["type"]:
            err("%s: %s type %r, Python says %r" % (fn, name, v["type"], w["type"]))
        val = v["value"]
        if w["type"] in LITERAL:
            if val == w["repr"]:
                pass
            elif (val and val.endswith("...") and v["note"]
                  and w["repr"].startswith(val[:-4])
                  and ("of %d characters" % (len(w["repr"]) - 2)) in v["note"]):
                pass  # a long string, shown capped, with its true length
            else:
                err("%s: %s = %r, Python says %r" % (fn, name, val, w["repr"]))
        elif "len" in w:
            if not val or ("len %d>" % w["len"]) not in val:
                err("%s: %s = %r, Python says len %d" % (fn, name, val, w["len"]))
        else:
            a = addr_of(w["repr"])
            if a is not None and addr_of(val or "") != a:
                err("%s: %s = %r, Python says %r" % (fn, name, val, w["repr"]))
        checked += 1
    for name, v in ours.items():
        if name not in want and (v["value"] is not None or "unbound" not in (v["note"] or "")):
            err("%s: %s = %r (%r) is not a bound local in Python" %
                (fn, name, v["value"], v["note"]))

gdb_checked = 0
if len(sys.argv) > 3:
    # "Locals for FUNC" then "name = repr" lines (python3.11-gdb.py py-locals)
    gdb = {}
    cur = None
    for line in open(sys.argv[3], errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"Locals for (\S+)$", line)
        if m:
            cur = m.group(1) if m.group(1) not in gdb else None
            if cur:
                gdb[cur] = {}
            continue
        m = re.match(r"([A-Za-z_]\w*) = (.*)$", line)
        if cur and m:
            gdb[cur][m.group(1)] = m.group(2)
    for fn in FUNCS + ("string_at",):
        if fn not in gdb:
            err("gdb: no py-locals for %s" % fn)
            continue
        f = frames.get(fn)
        ours = {v["name"]: v for v in (f["args"] or []) + (f["locals"] or [])} if f else {}
        for name, g in gdb[fn].items():
            v = ours.get(name)
            if v is None:
                err("gdb: %s: %s missing" % (fn, name))
                continue
            val = v["value"] or ""
            if g.startswith("<"):
                # gdb's proxies: <float at remote 0x..>, <Thing() at remote 0x..>
                if v["type"] != "float" and addr_of(g) != addr_of(val):
                    err("gdb: %s: %s = %r, gdb %r" % (fn, name, val, g))
            elif g.startswith(("[", "(", "{")):
                if not val.startswith("<" + v["type"] + " object at "):
                    err("gdb: %s: %s = %r, gdb %r" % (fn, name, val, g))
            elif val != g and not (val.endswith("...") and g.startswith(val[:-4])):
                err("gdb: %s: %s = %r, gdb %r" % (fn, name, val, g))
            gdb_checked += 1

for e in errors:
    print("python-locals-check: " + e)
print("python-locals-check: %d values against the script, %d against gdb, %d errors"
      % (checked, gdb_checked, len(errors)))
sys.exit(1 if errors else 0)
