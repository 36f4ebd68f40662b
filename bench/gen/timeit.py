#!/usr/bin/env python3
"""Time a command: median wall-clock seconds and peak RSS over several runs.

usage: timeit.py --out FILE --section S --input I --tool T [--runs N]
                 [--warmup N] [--fresh DIR] [--timeout SEC] [--ok RC,...] -- CMD...

Each run is a child started with fork/exec and reaped with os.wait4, so the
peak RSS (ru_maxrss) is that child's own.  --fresh DIR empties DIR before
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
        pid = os.fork()
        if pid == 0:
            try:
                os.setpgid(0, 0)
                os.dup2(so.fileno(), 1)
                os.dup2(se.fileno(), 2)
                devnull = os.open(os.devnull, os.O_RDONLY)
                os.dup2(devnull, 0)
                os.execvp(cmd[0], cmd)
            except OSError as e:
                os.write(2, ("exec %s: %s\n" % (cmd[0], e)).encode())
            os._exit(127)
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
    return elapsed, ru.ru_maxrss, rc, timed_out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--section", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--fresh")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--ok", default="0")
    ap.add_argument("--reject", help="a stderr substring that means the command is not available")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")
    ok = {int(x) for x in a.ok.split(",") if x}
    safe = "".join(c if c.isalnum() or c in "-_." else "_"
                   for c in "%s-%s-%s" % (a.section, a.input, a.tool))
    outbase = os.path.join(os.path.dirname(os.path.abspath(a.out)), "logs", safe)
    os.makedirs(os.path.dirname(outbase), exist_ok=True)

    def fresh():
        if a.fresh:
            shutil.rmtree(a.fresh, ignore_errors=True)
            os.makedirs(a.fresh)

    rec = {"section": a.section, "input": a.input, "tool": a.tool,
           "cmd": " ".join(cmd), "runs": [], "rss_kib": [], "rc": None,
           "error": None}
    for _ in range(a.warmup):
        fresh()
        _, _, rc, to = run_once(cmd, outbase, a.timeout)
        if a.reject:
            with open(outbase + ".stderr", errors="replace") as f:
                if a.reject in f.read():
                    rec["rc"] = rc
                    rec["error"] = "says '%s'" % a.reject
                    break
        if to or rc not in ok:
            rec["rc"] = rc
            rec["error"] = "timed out" if to else "exit %d in warm-up" % rc
            break
    if rec["error"] is None:
        for _ in range(a.runs):
            fresh()
            el, rss, rc, to = run_once(cmd, outbase, a.timeout)
            rec["rc"] = rc
            if to:
                rec["error"] = "timed out after %.0f s" % a.timeout
                break
            if rc not in ok:
                rec["error"] = "exit %d" % rc
                break
            rec["runs"].append(el)
            rec["rss_kib"].append(rss)
    if rec["runs"] and rec["error"] is None:
        rec["median"] = statistics.median(rec["runs"])
        rec["peak_rss_kib"] = max(rec["rss_kib"])
    else:
        rec["median"] = None
        rec["peak_rss_kib"] = None
        if rec["error"]:
            try:
                with open(outbase + ".stderr", errors="replace") as f:
                    last = [l.strip() for l in f if l.strip()]
                if last:
                    rec["error"] += ": " + last[-1][:160]
            except OSError:
                pass
    with open(a.out, "a") as f:
        f.write(json.dumps(rec) + "\n")
    if rec["median"] is not None:
        print("  %-10s %-8s %-28s median %8.3f s  peak %8d KiB  (%d runs)" %
              (a.section, a.input, a.tool, rec["median"], rec["peak_rss_kib"],
               len(rec["runs"])), flush=True)
    else:
        print("  %-10s %-8s %-28s n/a (%s)" % (a.section, a.input, a.tool,
                                              rec["error"]), flush=True)


if __name__ == "__main__":
    sys.exit(main())
