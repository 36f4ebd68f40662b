#!/usr/bin/env python3
"""Scaling check for the hostile-input tests: is the work proportional?

    scaling.py LABEL TINY-CMD N-CMD 2N-CMD [MAX-RATIO]

Each shell command runs 3 times; the fastest run counts (the machine is
shared). With t0 the tiny input's time (start-up), the ratio
(t(2N) - t0) / (t(N) - t0) is about 2 for linear work and 4 for quadratic.
It fails above MAX-RATIO (default 3). The same check compares any two
inputs that should cost about the same (MAX-RATIO then says how much more
the second may cost). When even 2N costs under 0.15 s beyond start-up the work
is below the noise and passes. No absolute timing is asserted.
"""
import subprocess, sys, time

def best(cmd):
    t = None
    for _ in range(3):
        a = time.monotonic()
        subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        d = time.monotonic() - a
        t = d if t is None else min(t, d)
    return t

label, c0, c1, c2 = sys.argv[1:5]
limit = float(sys.argv[5]) if len(sys.argv) > 5 else 3.0
t0, t1, t2 = best(c0), best(c1), best(c2)
w1, w2 = max(t1 - t0, 0.001), max(t2 - t0, 0.001)
ratio = w2 / w1
print("%s: start-up %.3fs, N %.3fs, 2N %.3fs, ratio %.2f" % (label, t0, t1, t2, ratio))
if w2 < 0.15:
    print("ok: %s: below the noise (linear enough)" % label)
    sys.exit(0)
if ratio > limit:
    print("FAIL: %s: the work was multiplied by %.2f (more than %.1f)" % (label, ratio, limit))
    sys.exit(1)
print("ok: %s: the work was multiplied by %.2f (at most %.1f)" % (label, ratio, limit))
