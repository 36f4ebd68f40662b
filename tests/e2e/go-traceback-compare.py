#!/usr/bin/env python3
# Compare every thread's Go frames in a provenance JSON report with the Go
# runtime's own GOTRACEBACK=crash output (one "PC=0x... m=N" block per M).
# Usage: go-traceback-compare.py RUNTIME_STDERR REPORT_JSON [--min-match N] [--live]
# Prints one line per M block and a summary; exit 1 when a block's frames
# differ, no block matched a thread, or a futexsleep/netpoll caller is missing.
# --live: the report is of a core taken (gcore) before the signal, while the
# threads slept in system calls: the signal rewinds an interrupted system
# call's pc by 2 (the syscall instruction, for the restart), so a first frame
# 2 bytes before ours, in the same function, is compared from its caller on;
# threads may have moved in between, so a block that differs is reported
# but fails only through --min-match.
import json, re, sys

err, rep = sys.argv[1], sys.argv[2]
live = "--live" in sys.argv
min_match = int(sys.argv[sys.argv.index("--min-match") + 1]) if "--min-match" in sys.argv else 1

blocks = []  # (m, pc, [(func, file, line, pc or None)])
cur = None
lines = open(err, errors="replace").read().splitlines()
i = 0
while i < len(lines):
    m = re.match(r"^PC=(0x[0-9a-f]+) m=(\d+)", lines[i])
    if m:
        cur = (int(m.group(2)), int(m.group(1), 16), [], False)
        blocks.append(cur)
        # the M's own stack: up to the register dump, the next "goroutine" or the end
        i += 1
        seen_g = False
        while i < len(lines) and not re.match(r"^(rax |-----|PC=)", lines[i]):
            if lines[i].startswith("goroutine "):
                if seen_g:
                    break
                seen_g = True
                if "[syscall" in lines[i]:
                    blocks[-1] = cur = cur[:3] + (True,)
            # "pkg.(*T).Method(0xc0, {0x1, 0x2})": the arguments hold no parentheses
            f = re.match(r"^(\S+?)\(([^()]*)\)$", lines[i])
            if f and i + 1 < len(lines):
                n = re.match(r"^\t(\S+):(\d+)(?: \+0x[0-9a-f]+)?(?: .*pc=(0x[0-9a-f]+))?", lines[i + 1])
                if n:
                    fn = "runtime.gopanic" if f.group(1) == "panic" else f.group(1)
                    cur[2].append((fn, n.group(1), int(n.group(2)),
                                   int(n.group(3), 16) if n.group(3) else None))
                    i += 2
                    continue
            i += 1
        continue
    i += 1

d = json.load(open(rep))
threads = []  # (tid, frames after the last signal frame)
for t in d["threads"]:
    fr = t["frames"]
    last = max([k for k, f in enumerate(fr) if f.get("signal_frame")], default=-1)
    threads.append((t["tid"], [(f.get("function"), f.get("file"), f.get("line"),
                                int(f["pc"], 16) if f.get("pc") else None) for f in fr[last + 1:]]))

def align(truth, ours, syscall):
    """(ti, oi): where the runtime's frames meet ours, by pc. A goroutine in a
    system call is printed from the pc it entered the call at, which is not
    the thread's pc: its first frame is then skipped."""
    for ti in range(0, 2 if syscall else 1):
        if ti >= len(truth) or truth[ti][3] is None:
            continue
        for oi, f in enumerate(ours):
            if f[3] == truth[ti][3]:
                return ti, oi
        for oi, f in enumerate(ours):
            if live and ti == 0 and f[3] == truth[0][3] + 2 and f[0] == truth[0][0]:
                return 1, oi + 1
    return None

def score(truth, ours, ti, oi):
    """frames equal from the alignment on, in order: (function, file, line)"""
    k = 0
    while ti + k < len(truth) and oi + k < len(ours) and truth[ti + k][:3] == ours[oi + k][:3]:
        k += 1
    return k

pairs = []
for bi, (m, pc, truth, syscall) in enumerate(blocks):
    for tid, fr in threads:
        al = align(truth, fr, syscall)
        if al and (syscall or fr[0][3] == pc or (live and fr[0][3] == pc + 2)):
            pairs.append((score(truth, fr, *al), bi, tid, al))
pairs.sort(key=lambda p: -p[0])
used, done, result = set(), set(), {}
for s, bi, tid, al in pairs:
    if bi in done or tid in used:
        continue
    done.add(bi)
    used.add(tid)
    result[bi] = (s, tid, al)

bad = matched = callers = 0
tdict = dict(threads)
for bi, (m, pc, truth, syscall) in enumerate(blocks):
    if not truth:
        continue
    if bi not in result:
        print("m=%d pc=0x%x: no thread of the core matches" % (m, pc))
        bad += not live
        continue
    s, tid, (ti, oi) = result[bi]
    ours = tdict[tid]
    ok = s == len(truth) - ti
    matched += ok
    note = ""
    if ti and syscall:
        note = " (in a system call: the runtime printed its entry pc, compared from frame %d)" % ti
    elif ti:
        note = " (a system call the signal restarted: its pc is 2 before ours, compared from frame 1)"
    print("m=%d thread %d: %d of %d frames as the runtime printed%s%s" %
          (m, tid, s, len(truth) - ti, note, "" if ok else " (first difference: runtime %r, provenance %r)" %
           (truth[ti + s][:3], ours[oi + s][:3] if oi + s < len(ours) else None)))
    if not ok and not live:
        bad += 1
    # the caller of runtime.futex / runtime.epollwait must not be skipped
    for k, f in enumerate(ours[:-1]):
        if f[0] in ("runtime.futex", "runtime.epollwait"):
            want = {"runtime.futex": ("runtime.futexsleep", "runtime.futexwakeup"),
                    "runtime.epollwait": ("runtime.netpoll",)}[f[0]]
            callers += 1
            if ours[k + 1][0] not in want:
                print("  thread %d: %s's caller is %r, not %s" % (tid, f[0], ours[k + 1][0], " or ".join(want)))
                bad += 1
print("callers of runtime.futex/runtime.epollwait checked: %d" % callers)
print("summary: %d of %d M blocks equal the runtime's traceback" % (matched, len([b for b in blocks if b[2]])))
sys.exit(1 if bad or matched < min_match else 0)
