#!/usr/bin/env python3
"""Turn bench/out/results.jsonl (written by timeit.py and run-bench.sh)
into the Markdown tables of bench/out/results.md.

usage: report.py MACHINE.txt RESULTS.jsonl > results.md
"""
import json
import sys

CORE_TOOLS = ["prov-analyze", "prov-analyze-json", "prov-resolve-cold",
              "prov-resolve-warm", "eu-stack", "eu-stack-n0", "gdb", "eu-unstrip"]
CORES = ["small", "wide", "large", "deep"]


def fmt_t(r):
    if r is None:
        return "n/a (not run)"
    if r.get("median") is None:
        return "n/a (%s)" % (r.get("error") or "no result").replace("|", "/")
    t = r["median"]
    return "%.0f ms" % (t * 1000) if t < 10 else "%.1f s" % t


def fmt_min(r):
    if r is None or r.get("median") is None or not r.get("runs"):
        return ""
    t = min(r["runs"])
    return "%.0f ms" % (t * 1000) if t < 10 else "%.1f s" % t


def fmt_rss(r):
    if r is None or r.get("peak_rss_kib") is None:
        return "n/a"
    return "%.1f MiB" % (r["peak_rss_kib"] / 1024.0)


def ratio(a, b):
    if not a or not b or a.get("median") is None or b.get("median") is None \
            or b["median"] <= 0:
        return None
    return a["median"] / b["median"]


def fmt_ratio(x):
    return "n/a" if x is None else "%.2f×" % x


def size(n):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return "%.1f %s" % (n / div, unit)
    return "%d B" % n


def main():
    machine = open(sys.argv[1]).read().strip().splitlines()
    recs = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    by = {}
    for r in recs:
        by[(r["section"], r.get("input"), r.get("tool"))] = r
    sizes = {r["input"]: r["bytes"] for r in recs if r["section"] == "coresize"}

    out = []
    w = out.append
    w("# provenance benchmark results")
    w("")
    w("Machine and tools:")
    w("")
    for line in machine:
        w("- " + line)
    w("")
    w("Medians of the timed runs after one untimed warm-up per tool; the page "
      "cache is warm (never dropped). Peak RSS is the largest `ru_maxrss` of "
      "the timed runs. `resolve` cold = empty `--cache` directory before each "
      "run; warm = the same directory again. eu-stack runs with `-s -i -n 4096` "
      "(4096 = provenance's per-thread frame cap); `eu-stack-n0` is uncapped.")
    w("")

    cores = [c for c in CORES if any(k[0] == "core" and k[1] == c for k in by)]
    if cores:
        w("## Cores")
        w("")
        w("| core | size | tool | median | min | peak RSS | median ÷ eu-stack | median ÷ gdb |")
        w("|---|---|---|---|---|---|---|---|")
        for c in cores:
            eu = by.get(("core", c, "eu-stack"))
            gdb = by.get(("core", c, "gdb"))
            for t in CORE_TOOLS:
                r = by.get(("core", c, t))
                if r is None:
                    continue
                prov = t.startswith("prov-")
                w("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    c, size(sizes[c]) if c in sizes else "?", t, fmt_t(r), fmt_min(r), fmt_rss(r),
                    fmt_ratio(ratio(r, eu)) if prov else "",
                    fmt_ratio(ratio(r, gdb)) if prov else ""))
        w("")

    pk = [r for r in recs if r["section"] == "packages"]
    if pk:
        w("## Package resolution (host dpkg database)")
        w("")
        w("| modules | tool | median | min | peak RSS | ÷ dpkg -S loop |")
        w("|---|---|---|---|---|---|")
        base = next((r for r in pk if r["tool"] == "dpkg-S-each"), None)
        for r in pk:
            w("| %s | %s | %s | %s | %s | %s |" % (
                r["input"], r["tool"], fmt_t(r), fmt_min(r), fmt_rss(r),
                fmt_ratio(ratio(r, base)) if r["tool"] != "dpkg-S-each" else ""))
        ag = next((r for r in recs if r["section"] == "agreement"), None)
        if ag:
            w("")
            w("Agreement of `resolve --format json` package names with `dpkg -S`: %s" %
              (ag["error"] or "%d of %d modules" % (ag["agree"], ag["total"])))
        w("")

    fx = [r for r in recs if r["section"] == "fixcheck"]
    if fx:
        w("## fixcheck (50,000 commits, 2,000 annotated tags)")
        w("")
        w("| pair | tool | median | min | peak RSS | provenance ÷ git (merge-base + tag --contains) |")
        w("|---|---|---|---|---|---|")
        for r in fx:
            extra = ""
            if r["tool"] == "prov-fixcheck":
                mb = by.get(("fixcheck", r["input"], "git-merge-base"))
                tc = by.get(("fixcheck", r["input"], "git-tag-contains"))
                if mb and tc and mb.get("median") is not None and tc.get("median") is not None \
                        and r.get("median") is not None:
                    extra = fmt_ratio(r["median"] / (mb["median"] + tc["median"]))
            w("| %s | %s | %s | %s | %s | %s |" % (r["input"], r["tool"], fmt_t(r),
                                                    fmt_min(r), fmt_rss(r), extra))
        w("")
        for a in (r for r in recs if r["section"] == "fixagree"):
            w("- %s: provenance %s; git says %s: **%s**" % (
                a["input"], a["got"], a["expected"], "agree" if a["ok"] else "DISAGREE"))
        w("")

    st = [r for r in recs if r["section"] == "store"]
    ss = next((r for r in recs if r["section"] == "storesize"), None)
    if st:
        w("## Crash store (reports from 100 simulated hosts)")
        w("")
        w("| reports | tool | median | min | peak RSS |")
        w("|---|---|---|---|---|")
        for r in st:
            w("| %s | %s | %s | %s | %s |" % (r["input"], r["tool"], fmt_t(r), fmt_min(r), fmt_rss(r)))
        if ss:
            w("")
            w("Store size: %s for %d crashes, %.1f KiB per crash (the JSON-lines reports: %.1f KiB each)." % (
                size(ss["bytes"]), ss["crashes"], ss["bytes"] / 1024 / max(ss["crashes"], 1),
                ss["report_bytes"] / 1024 / max(ss["crashes"], 1)))
    sx = [r for r in recs if r["section"] == "suspects"]
    if sx:
        w("## Suspects (50,000 commits; crash line rewritten 20,000 commits before the head)")
        w("")
        w("| input | tool | median | min | peak RSS |")
        w("|---|---|---|---|---|")
        for r in sx:
            w("| %s | %s | %s | %s | %s |" % (r["input"], r["tool"], fmt_t(r), fmt_min(r), fmt_rss(r)))
        for a in (r for r in recs if r["section"] == "suspectagree"):
            w("")
            w("Suspects against `git log -L` over the crash line and its function: provenance "
              "%d commits, git %d: **%s**" % (a["got"], a["expected"], "agree" if a["ok"] else "DISAGREE"))
    tx = [r for r in recs if r["section"] == "text"]
    if tx:
        tsize = {r["input"]: r["bytes"] for r in recs if r["section"] == "textsize"}
        w("## Text backtraces (fixtures/text concatenated)")
        w("")
        w("| input | size | tool | median | min | peak RSS | throughput (median) |")
        w("|---|---|---|---|---|---|---|")
        for r in tx:
            n = tsize.get(r["input"], 0)
            tp = "%.1f MB/s" % (n / 1e6 / r["median"]) if n and r.get("median") else "n/a"
            w("| %s | %s | %s | %s | %s | %s | %s |" % (r["input"], size(n), r["tool"], fmt_t(r),
                                                       fmt_min(r), fmt_rss(r), tp))
    bp = [r for r in recs if r["section"] == "backport"]
    if bp:
        w("## fixcheck on a release branch (5,000 commits past the merge base)")
        w("")
        w("| fix | tool | median | min | peak RSS |")
        w("|---|---|---|---|---|")
        for r in bp:
            w("| %s | %s | %s | %s | %s |" % (r["input"], r["tool"], fmt_t(r), fmt_min(r), fmt_rss(r)))
        for a in (r for r in recs if r["section"] == "backportagree"):
            w("")
            w("- provenance %s; git patch-id says %s: **%s**" % (
                a["got"], a["expected"], "agree" if a["ok"] else "DISAGREE"))
        w("")

    # Targets
    py = [r for r in recs if r["section"] == "python"]
    if py:
        base = by.get(("python", "python64", "prov-analyze-no-python"))
        w("## Python frames (64-thread Python core)")
        w("")
        w("| tool | median | min | peak RSS | median ÷ analyze --no-python |")
        w("|---|---|---|---|---|")
        for r in py:
            w("| %s | %s | %s | %s | %s |" % (r["tool"], fmt_t(r), fmt_min(r), fmt_rss(r),
                                           fmt_ratio(ratio(r, base))))
        w("")

    fa = [r for r in recs if r["section"] == "firstanswer"]
    if fa:
        base = next((r["median"] for r in fa if r["tool"] == "prov-resolve-offline"), None)
        w("## First answer: resolve with an empty cache, a forge on 127.0.0.1")
        w("")
        w("| tool | median | min | peak RSS | median - --offline |")
        w("|---|---|---|---|---|")
        for r in fa:
            d = "" if base is None or r.get("median") is None else "%+.0f ms" % ((r["median"] - base) * 1000)
            w("| %s | %s | %s | %s | %s |" % (r["tool"], fmt_t(r), fmt_min(r), fmt_rss(r), d))
        w("")
        fb = [r for r in recs if r["section"] == "firstanswerbytes"]
        if fb:
            w("Bytes the forge sent for one run (tag-mapped component):")
            w("")
            w("| tool | bytes | requests | POSTs | commit = git rev-parse | found_by | fetched_by |")
            w("|---|---|---|---|---|---|---|")
            for r in fb:
                w("| %s | %s | %d | %d | %s | %s | %s |" % (r["tool"], size(r["bytes"]), r["requests"],
                                                          r["posts"], "yes" if r["commit_ok"] else "NO",
                                                          r["found_by"], r["fetched_by"]))
            w("")

    nr = [r for r in recs if r["section"] == "noroute"]
    if nr:
        first = next((r for r in recs if r["section"] == "noroutefirst"), None)
        w("## resolve with no route out (a silent upstream host), second run")
        w("")
        w("| tool | median | min | peak RSS |")
        w("|---|---|---|---|")
        for r in nr:
            w("| %s | %s | %s | %s |" % (r["tool"], fmt_t(r), fmt_min(r), fmt_rss(r)))
        if first:
            w("")
            w("First run (waits fetch.connectTimeout, notes the host as down): %d ms" % first["ms"])
        w("")

    def fmt_cpu(r):
        if r is None or r.get("cpu_median") is None:
            return "n/a"
        return "%.1f ms" % (r["cpu_median"] * 1000)

    def cpu_ratio(a, b):
        if not a or not b or a.get("cpu_median") is None or not b.get("cpu_median"):
            return None
        return a["cpu_median"] / b["cpu_median"]

    eu = [r for r in recs if r["section"] == "eustack"]
    if eu:
        w("## Issue 25: the four cores against eu-stack, by CPU time (user + system)")
        w("")
        w("| core | tool | CPU median | wall median | peak RSS | CPU ÷ eu-stack -i -s | CPU ÷ eu-stack |")
        w("|---|---|---|---|---|---|---|")
        for r in eu:
            eis = by.get(("eustack", r["input"], "eu-stack-i-s"))
            epl = by.get(("eustack", r["input"], "eu-stack"))
            w("| %s | %s | %s | %s | %s | %s | %s |" % (
                r["input"], r["tool"], fmt_cpu(r), fmt_t(r), fmt_rss(r),
                fmt_ratio(cpu_ratio(r, eis)), fmt_ratio(cpu_ratio(r, epl))))
        w("")
    su = [r for r in recs if r["section"] in ("startup", "rss")]
    if su:
        w("## Issue 25: start-up and peak RSS")
        w("")
        w("| section | input | tool | CPU median | wall median | peak RSS |")
        w("|---|---|---|---|---|---|")
        for r in su:
            w("| %s | %s | %s | %s | %s | %s |" % (r["section"], r["input"], r["tool"],
                                                 fmt_cpu(r), fmt_t(r), fmt_rss(r)))
        w("")

    w("## Targets")
    w("")
    w("| target | result | detail |")
    w("|---|---|---|")

    for c in sorted({r["input"] for r in eu}, key=lambda x: [r["input"] for r in eu].index(x)):
        a = by.get(("eustack", c, "prov-analyze-json"))
        e = by.get(("eustack", c, "eu-stack-i-s"))
        x = cpu_ratio(a, e)
        w("| analyze --format json ≤ 0.5 × eu-stack -i -s, CPU (%s) | %s | %s vs %s (%s) |" % (
            c, "n/a" if x is None else ("PASS" if x <= 0.5 else "MISS"),
            fmt_cpu(a), fmt_cpu(e), fmt_ratio(x)))
        rv = by.get(("eustack", c, "prov-resolve-offline"))
        x = cpu_ratio(rv, a)
        w("| resolve --offline ≤ 1.1 × analyze, CPU (%s) | %s | %s vs %s (%s) |" % (
            c, "n/a" if x is None else ("PASS" if x <= 1.1 else "MISS"),
            fmt_cpu(rv), fmt_cpu(a), fmt_ratio(x)))
    for r in (r for r in recs if r["section"] == "startup" and r["tool"].startswith("prov-")):
        c = r.get("cpu_median")
        w("| start-up < 5 ms CPU (%s) | %s | %s |" % (
            r["tool"], "n/a" if c is None else ("PASS" if c < 0.005 else "MISS"), fmt_cpu(r)))
    for r in (r for r in recs if r["section"] == "rss" and r["tool"].startswith("prov-")):
        k = r.get("peak_rss_kib")
        w("| peak RSS < 64 MiB (%s) | %s | %s |" % (
            r["input"], "n/a" if k is None else ("PASS" if k < 64 * 1024 else "MISS"), fmt_rss(r)))

    def med(k):
        r = by.get(k)
        return r["median"] if r and r.get("median") is not None else None

    for c in cores:
        a, e = med(("core", c, "prov-analyze")), med(("core", c, "eu-stack"))
        if a is None or e is None:
            w("| analyze ≤ eu-stack (%s) | n/a | missing figure |" % c)
        else:
            w("| analyze ≤ eu-stack (%s) | %s | %.0f ms vs %.0f ms (%.2f×) |" % (
                c, "PASS" if a <= e else "MISS", a * 1000, e * 1000, a / e))
    for c in cores:
        a, rw = med(("core", c, "prov-analyze")), med(("core", c, "prov-resolve-warm"))
        if a is None or rw is None:
            why = by.get(("core", c, "prov-resolve-warm"))
            w("| resolve warm ≤ 1.5 × analyze (%s) | n/a | %s |" % (
                c, fmt_t(why).replace("n/a ", "") if why else "not run"))
        else:
            w("| resolve warm ≤ 1.5 × analyze (%s) | %s | %.0f ms vs %.0f ms (%.2f×) |" % (
                c, "PASS" if rw <= 1.5 * a else "MISS", rw * 1000, a * 1000, rw / a))
    s = by.get(("core", "small", "prov-analyze"))
    l = by.get(("core", "large", "prov-analyze"))
    if s and l and s.get("peak_rss_kib") and l.get("peak_rss_kib"):
        rs, rl = s["peak_rss_kib"], l["peak_rss_kib"]
        w("| analyze peak RSS independent of core size (large ≤ 2 × small) | %s | "
          "small %s, large %s (%.2f×; cores %s vs %s) |" % (
              "PASS" if rl <= 2 * rs else "MISS", fmt_rss(s), fmt_rss(l), rl / rs,
              size(sizes.get("small", 0)), size(sizes.get("large", 0))))
    else:
        w("| analyze peak RSS independent of core size | n/a | small or large core not measured |")
    a, b = med(("python", "python64", "prov-analyze")), med(("python", "python64", "prov-analyze-no-python"))
    if a is not None and b is not None:
        w("| Python frames add < 10 %% to analyze (python64) | %s | %.0f ms vs %.0f ms (+%.1f %%) |" % (
            "PASS" if a < 1.1 * b else "MISS", a * 1000, b * 1000, (a / b - 1) * 100))
    for r in fx:
        if r["tool"] != "prov-fixcheck":
            continue
        if r.get("median") is None:
            w("| fixcheck < 100 ms (%s) | n/a | %s |" % (r["input"], fmt_t(r)))
        else:
            w("| fixcheck < 100 ms (%s) | %s | %.0f ms |" % (
                r["input"], "PASS" if r["median"] < 0.1 else "MISS", r["median"] * 1000))
    for r in st:
        limit = 10.0 if r["tool"] == "prov-import" else 1.0
        if r.get("median") is None:
            w("| %s < %.0f s (%s) | n/a | %s |" % (r["tool"], limit, r["input"], fmt_t(r)))
        else:
            w("| %s < %.0f s (%s) | %s | %.2f s |" % (
                r["tool"], limit, r["input"], "PASS" if r["median"] < limit else "MISS", r["median"]))
    base = med(("suspects", "50k-commits", "prov-resolve-no-suspects"))
    warm = med(("suspects", "50k-commits", "prov-resolve-suspects-warm"))
    if sx:
        if base is None or warm is None:
            w("| suspects warm run adds < 1 s | n/a | missing figure |")
        else:
            w("| suspects warm run adds < 1 s | %s | %.0f ms with, %.0f ms without (+%.0f ms) |" % (
                "PASS" if warm - base < 1 else "MISS", warm * 1000, base * 1000, (warm - base) * 1000))
    on, off = med(("noroute", "second-run", "prov-resolve")), med(("noroute", "second-run", "prov-resolve-offline"))
    if nr:
        if on is None or off is None:
            w("| resolve with no route out ≤ --offline + 2 s (second run) | n/a | missing figure |")
        else:
            w("| resolve with no route out ≤ --offline + 2 s (second run) | %s | %.0f ms vs %.0f ms (+%.0f ms) |" % (
                "PASS" if on - off <= 2 else "MISS", on * 1000, off * 1000, (on - off) * 1000))
    for r in bp:
        if r["tool"] != "prov-fixcheck-warm":
            continue
        if r.get("median") is None:
            w("| backport check < 1 s warm (%s) | n/a | %s |" % (r["input"], fmt_t(r)))
        else:
            w("| backport check < 1 s warm (%s) | %s | %.0f ms |" % (
                r["input"], "PASS" if r["median"] < 1.0 else "MISS", r["median"] * 1000))
    w("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
