#!/usr/bin/env python3
"""Check provenance's Python frames (JSON on stdin is not used: file args).

usage: python-frames-check.py REPORT.json SCRIPT.py MODE [GDB-PY-BT.txt]
MODE crash: the crashing thread runs level3 <- level2 <- level1 <- <module>;
MODE park: the main thread sleeps in level3 (MARK-park) under the same chain;
MODE crash-unplaced: as crash, for an interpreter whose eval frames have no
name (stripped, no -dbg): the Python frames follow the native ones, noted.
Expected lines come from the script's MARK- comments; the other four threads
each run one parked function. With a gdb `thread apply all py-bt` output,
every thread's Python frames must be gdb's, frame for frame.
"""
import json
import re
import sys

report, script, mode = sys.argv[1], sys.argv[2], sys.argv[3]
placed = mode != "crash-unplaced"
if not placed:
    mode = "crash"
d = json.load(open(report))
marks = {}
for n, text in enumerate(open(script), 1):
    m = re.search(r"# MARK-(\w+)", text)
    if m:
        marks[m.group(1)] = n
base = script.rsplit("/", 1)[-1]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def pyframes(t):
    return [f for f in t["frames"] if f.get("language") == "python"]


def own(t):
    return [(f["function"], f["line"]) for f in pyframes(t)
            if (f["file"] or "").endswith("/" + base)]


threads = {t["tid"]: t for t in d["threads"]}
for t in d["threads"]:
    for i, f in enumerate(t["frames"]):
        if f["index"] != i:
            fail("thread %s: frame %d has index %s" % (t["tid"], i, f["index"]))
main_top = "park" if mode == "park" else "level3"
want_main = [("level3", marks[main_top]), ("level2", marks["level2"]),
             ("level1", marks["level1"]), ("<module>", marks["main"])]
if mode == "crash":
    main = [t for t in d["threads"] if t["crashed"]]
    if len(main) != 1:
        fail("no crashed thread")
    main = main[0]
    if not main["holds_gil"]:
        fail("the crashing thread should hold the GIL")
else:
    main = [t for t in d["threads"] if own(t)[:1] == [("level3", marks["park"])]]
    if len(main) != 1:
        fail("no thread parked in level3 at line %d" % marks["park"])
    main = main[0]
if own(main) != want_main:
    fail("main thread's frames %r, expected %r" % (own(main), want_main))
print("ok: main thread", own(main))
# Each Python frame group sits right above (innermost of) a native eval frame.
fr = main["frames"]
if not placed:
    if "without their native eval frame" not in (main["python_note"] or ""):
        fail("no note on the unplaced Python frames: %r" % main["python_note"])
    natives = [i for i, f in enumerate(fr) if f.get("language") != "python"]
    if natives != list(range(len(natives))):
        fail("unplaced Python frames should follow every native frame")
    print("ok: Python frames follow the native ones, noted")
mod = [i for i, f in enumerate(fr) if f["function"] == "<module>"][0]
nxt = fr[mod + 1] if mod + 1 < len(fr) else None
if not placed:
    pass
elif not nxt or nxt.get("language") == "python" or not re.match(
        r"_?PyEval_EvalFrame(Default|Ex)$", nxt["function"] or ""):
    fail("the frame after <module> is %r, not the eval frame" % (nxt,))
if mode == "crash" and fr[0].get("language") == "python":
    fail("the crashing thread's innermost frame should be native")
if placed:
    print("ok: <module> sits at", nxt["function"])
for name in ("sleeper", "locker", "getter", "event_waiter"):
    mark = {"event_waiter": "event"}.get(name, name)
    hits = [t for t in d["threads"] if (name, marks[mark]) in own(t)]
    if len(hits) != 1:
        fail("thread running %s at line %d: %d found" % (name, marks[mark], len(hits)))
    print("ok: %s at line %d in thread %s" % (name, marks[mark], hits[0]["tid"]))

if len(sys.argv) > 4:
    gdb = {}
    lwp = None
    for text in open(sys.argv[4], errors="replace"):
        m = re.match(r"Thread \d+ \(Thread 0x[0-9a-f]+ \(LWP (\d+)\)\)", text)
        if m:
            lwp = int(m.group(1))
            gdb[lwp] = []
            continue
        m = re.match(r'  File "(.*)", line (\d+), in (.*)$', text)
        if m and lwp is not None:
            gdb[lwp].append((m.group(1), int(m.group(2)), m.group(3)))
    if len(gdb) != len(d["threads"]):
        fail("gdb saw %d threads, provenance %d" % (len(gdb), len(d["threads"])))
    for tid, frames in gdb.items():
        ours = [(f["file"], f["line"], f["function"].split(".")[-1])
                for f in pyframes(threads[tid])]
        if ours != frames:
            fail("thread %d: provenance %r, gdb py-bt %r" % (tid, ours, frames))
        print("ok: thread %d: %d frames as gdb py-bt" % (tid, len(frames)))
print("ok: all checks")
