#!/usr/bin/env python3
"""Time a command: median wall-clock seconds, median CPU seconds (user +
system, from wait4) and peak RSS over several runs.

usage: timeit.py --out FILE --section S --input I --tool T [--runs N]
                 [--warmup N] [--fresh DIR] [--timeout SEC] [--ok RC,...]
                 [--reject TEXT] [--queue QFILE] -- CMD...
       timeit.py --run-queue QFILE --out FILE

With --queue the job is only appended to QFILE; --run-queue then runs every
queued job interleaved (warm-ups first, then run 1 of each job, run 2 of
each job, ...), so that load from other processes on the machine falls on
all tools alike, and empties QFILE.

Each run is a child started with posix_spawn and reaped with os.wait4, so
its CPU time is the command's own; the peak RSS (ru_maxrss) is at least this
interpreter's (about 11 MiB: the kernel counts the memory the child ran in
before its exec).  --fresh DIR empties DIR before
every run (warm-ups included), outside the timed part: a cold cache.
The command's stdout and stderr go to FILE.stdout/.stderr next to --out
(the last run's).  Appends one JSON line to --out.  Never raises on a
failing command: the record says what happened.
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import sys
import time


def run_once(cmd, outbase, timeout):
    with open(outbase + ".stdout", "wb") as so, open(outbase + ".stderr", "wb") as se:
        t0 = time.monotonic()
        # posix_spawn (a vfork in glibc): the child's CPU time is the
        # command's own, not that of copying this interpreter as fork does
        # (about 2 ms: as much as a whole start-up)
        try:
            pid = os.posix_spawnp(cmd[0], cmd, os.environ, setpgroup=0, file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, so.fileno(), 1),
                (os.POSIX_SPAWN_DUP2, se.fileno(), 2)])
        except OSError as e:
            se.write(("exec %s: %s\n" % (cmd[0], e)).encode())
            se.flush()
            return time.monotonic() - t0, 0, 127, False, 0.0
        deadline = t0 + timeout
        timed_out = False
        while True:
            wpid, status, ru = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                break
            if time.monotonic() > deadline:
                timed_out = True
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                wpid, status, ru = os.wait4(pid, 0)
                break
            time.sleep(0.002)
        elapsed = time.monotonic() - t0
    if os.WIFSIGNALED(status):
        rc = 128 + os.WTERMSIG(status)
    else:
        rc = os.WEXITSTATUS(status)
    return elapsed, ru.ru_maxrss, rc, timed_out, ru.ru_utime + ru.ru_stime


def job_from_args(a, cmd):
    return {"section": a.section, "input": a.input, "tool": a.tool,
            "runs": a.runs, "warmup": a.warmup, "fresh": a.fresh,
            "timeout": a.timeout, "ok": a.ok, "reject": a.reject, "cmd": cmd}


class Job:
    def __init__(self, spec, out):
        self.s = spec
        self.ok = {int(x) for x in spec["ok"].split(",") if x}
        safe = "".join(c if c.isalnum() or c in "-_." else "_"
                       for c in "%s-%s-%s" % (spec["section"], spec["input"], spec["tool"]))
        self.outbase = os.path.join(os.path.dirname(os.path.abspath(out)), "logs", safe)
        os.makedirs(os.path.dirname(self.outbase), exist_ok=True)
        self.rec = {"section": spec["section"], "input": spec["input"],
                    "tool": spec["tool"], "cmd": " ".join(spec["cmd"]),
                    "runs": [], "rss_kib": [], "cpu": [], "rc": None, "error": None}

    def fresh(self):
        if self.s["fresh"]:
            shutil.rmtree(self.s["fresh"], ignore_errors=True)
            os.makedirs(self.s["fresh"])

    def run(self, timed):
        """One run; False when the job failed (and is done)."""
        self.fresh()
        el, rss, rc, to, cpu = run_once(self.s["cmd"], self.outbase, self.s["timeout"])
        self.rec["rc"] = rc
        if self.s["reject"]:
            with open(self.outbase + ".stderr", errors="replace") as f:
                if self.s["reject"] in f.read():
                    self.rec["error"] = "says '%s'" % self.s["reject"]
                    return False
        if to:
            self.rec["error"] = "timed out after %.0f s" % self.s["timeout"]
            return False
        if rc not in self.ok:
            self.rec["error"] = "exit %d%s" % (rc, "" if timed else " in warm-up")
            return False
        if timed:
            self.rec["runs"].append(el)
            self.rec["rss_kib"].append(rss)
            self.rec["cpu"].append(cpu)
        return True

    def wants_more(self):
        return self.rec["error"] is None and len(self.rec["runs"]) < self.s["runs"]

    def finish(self, out):
        rec = self.rec
        if rec["runs"] and rec["error"] is None:
            rec["median"] = statistics.median(rec["runs"])
            rec["cpu_median"] = statistics.median(rec["cpu"])
            rec["peak_rss_kib"] = max(rec["rss_kib"])
        else:
            rec["median"] = None
            rec["cpu_median"] = None
            rec["peak_rss_kib"] = None
            if rec["error"]:
                try:
                    with open(self.outbase + ".stderr", errors="replace") as f:
                        last = [l.strip() for l in f if l.strip()]
                    if last:
                        rec["error"] += ": " + last[-1][:160]
                except OSError:
                    pass
        with open(out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        if rec["median"] is not None:
            print("  %-10s %-8s %-22s median %8.3f s  min %8.3f s  cpu %8.3f s  peak %8d KiB"
                  "  (%d runs)" %
                  (rec["section"], rec["input"], rec["tool"], rec["median"],
                   min(rec["runs"]), rec["cpu_median"], rec["peak_rss_kib"],
                   len(rec["runs"])), flush=True)
        else:
            print("  %-10s %-8s %-22s n/a (%s)" % (rec["section"], rec["input"],
                                                  rec["tool"], rec["error"]), flush=True)


def run_jobs(specs, out):
    jobs = [Job(s, out) for s in specs]
    for j in jobs:
        for _ in range(j.s["warmup"]):
            if not j.run(False):
                break
    while True:
        active = [j for j in jobs if j.wants_more()]
        if not active:
            break
        for j in active:
            j.run(True)
    for j in jobs:
        j.finish(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--run-queue")
    ap.add_argument("--queue")
    ap.add_argument("--section")
    ap.add_argument("--input")
    ap.add_argument("--tool")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--fresh")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--ok", default="0")
    ap.add_argument("--reject", help="a stderr substring that means the command is not available")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.run_queue:
        specs = []
        if os.path.exists(a.run_queue):
            with open(a.run_queue) as f:
                specs = [json.loads(l) for l in f if l.strip()]
            os.unlink(a.run_queue)
        run_jobs(specs, a.out)
        return 0
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd or not a.section or not a.input or not a.tool:
        ap.error("need --section, --input, --tool and a command")
    spec = job_from_args(a, cmd)
    if a.queue:
        with open(a.queue, "a") as f:
            f.write(json.dumps(spec) + "\n")
        return 0
    run_jobs([spec], a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
