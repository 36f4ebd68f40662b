#!/usr/bin/env python3
"""Per-file wall time of `PROV resolve FILE --format json --offline` (as score.py
runs it), median of RUNS runs per file; several PROVs are interleaved run by run
so that they see the same machine load.  usage: bench/per-file-times.py CORPUS RUNS PROV...
(e.g. bench/per-file-times.py CORPUS 3 ./provenance, CORPUS a directory of *.txt
backtraces such as the team's external text corpus, which is not in this repository).  A copy of the
program elsewhere needs the tree's mappings/ beside it (a symlink) to do the same work."""
import os, subprocess, sys, time, statistics
corpus, runs, provs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
files = sorted(f for f in os.listdir(corpus) if f.endswith(".txt"))
res = {p: [] for p in provs}
for f in files:
    ts = {p: [] for p in provs}
    for _ in range(runs):
        for p in provs:
            t0 = time.perf_counter()
            subprocess.run([p, "resolve", os.path.join(corpus, f), "--format", "json", "--offline"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            ts[p].append((time.perf_counter() - t0) * 1000)
    for p in provs:
        res[p].append((statistics.median(ts[p]), f))
for p in provs:
    r = sorted(res[p])
    ms = [x[0] for x in r]
    print("%s: files %d  median %.1f ms  p90 %.1f ms  max %.1f ms (%s)  min %.1f ms  >50ms %d" % (
        p, len(ms), statistics.median(ms), ms[int(len(ms) * 0.9)], ms[-1], r[-1][1], ms[0],
        sum(1 for m in ms if m > 50)))
