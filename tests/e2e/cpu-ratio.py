#!/usr/bin/env python3
"""CPU time of two commands on two sizes of one input: is the work bounded?

    cpu-ratio.py LABEL SMALL-CMD LARGE-CMD MAX-RATIO

Each shell command runs 3 times; the least CPU time (user + system of the
child, not wall time: the machine is shared) counts. Fails when LARGE costs
more than MAX-RATIO times SMALL. No absolute timing is asserted.
"""
import resource
import subprocess
import sys


def cpu(cmd):
    best = None
    for _ in range(3):
        a = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=600)
        b = resource.getrusage(resource.RUSAGE_CHILDREN)
        d = (b.ru_utime - a.ru_utime) + (b.ru_stime - a.ru_stime)
        best = d if best is None else min(best, d)
    return max(best, 0.001)


label, small, large, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
t1, t2 = cpu(small), cpu(large)
ratio = t2 / t1
print("%s: small %.3fs, large %.3fs of CPU, ratio %.2f" % (label, t1, t2, ratio))
if ratio > limit:
    print("FAIL: %s: the work was multiplied by %.2f (more than %.1f)" % (label, ratio, limit))
    sys.exit(1)
print("ok: %s: the work was multiplied by %.2f (at most %.1f)" % (label, ratio, limit))
