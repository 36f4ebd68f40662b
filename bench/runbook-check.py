#!/usr/bin/env python3
# bench/runbook-check.py: one scenario of bench/runbook-scenarios.sh, field by
# field of the runbook's report template (seeds/003), provenance's Markdown and
# JSON against gdb (runbook-gdb-truth.py), dpkg and the scenario's source.
# Prints "scenario|field|verdict|detail" lines: right, wrong, not filled.
import argparse
import difflib
import json
import os
import re
import signal
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument("scenario")
ap.add_argument("--md", required=True)
ap.add_argument("--json", required=True)
ap.add_argument("--truth", required=True)
ap.add_argument("--signal", help="the fault's signal, from the scenario's source")
ap.add_argument("--context", required=True, help="runtime | exit-time cleanup | ... (source)")
ap.add_argument("--determinism", default="unknown (single occurrence)")
ap.add_argument("--pattern", action="append", default=[], help="expected pattern id (source)")
ap.add_argument("--faulthandler", help="the run's stderr: faulthandler's dump of the Python frames")
ap.add_argument("--step", help="regex a recommended step must match")
ap.add_argument("--snapshot", action="store_true", help="a gcore snapshot: no signal")
ap.add_argument("--cycle-funcs", default="", help="the functions of the deadlocked threads (source): a snapshot, or a core a watchdog's signal ended")
ap.add_argument("--repo", help="a local git repository: the component's upstream (Git Hash, fix status truth)")
ap.add_argument("--ref", help="the deployed build's ref in --repo (git rev-parse REF^{commit} is the Git Hash)")
ap.add_argument("--component", help="the component --repo is (the environment table's row)")
ap.add_argument("--fix", action="append", default=[], help="a --fix commit given to resolve (git merge-base --is-ancestor FIX REF is the truth)")
ap.add_argument("--no-pattern", action="append", default=[], help="a pattern id the report must not claim (source)")
a = ap.parse_args()

md = open(a.md).read()
d = json.load(open(a.json))
g = json.load(open(a.truth))
rows = []
fmap = {}  # provenance's frame number -> gdb's
TAILCALL = 3  # gdb.TAILCALL_FRAME


def out(field, verdict, detail):
    rows.append((field, verdict, detail.replace("|", "/").replace("\n", " ")))


def git(*args):
    return subprocess.run(["git", "-C", a.repo] + list(args), capture_output=True, text=True).stdout.strip()


def hdr(name):
    m = re.search(r"^\*\*" + re.escape(name) + r":\*\* *(.*?) *$", md, re.M)
    return m.group(1) if m else None


def section(title):
    m = re.search(r"^### " + re.escape(title) + r"[^\n]*\n(.*?)(?=^### |\Z)", md, re.M | re.S)
    return m.group(1) if m else None


def signame(n):
    try:
        return signal.Signals(n).name
    except ValueError:
        return str(n)


def same_name(name):
    """a frame's name as both sides can spell it: no parameter list, no
    template return type, no leading underscores (aliases: __clone3/clone3)"""
    n = noparams(noparams(name))
    depth = 0
    for i, c in enumerate(n):
        depth += {"<": 1, ">": -1}.get(c, 0)
        if c == " " and depth == 0 and not n[:i].endswith("operator"):
            n = n[i + 1:]
            break
    return n.lstrip("_")


def short(name):
    return name if len(name) < 60 else name[:57] + "..."


def noparams(name):
    """a C++ name without its parameter list (gdb's frame.name() has none)"""
    name = re.sub(r" const$", "", name)
    if not name.endswith(")") or name == "<signal handler called>":
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(name[i], 0)
        if depth == 0:
            return name[:i]
    return name


def snapshot_checks():
    """a gcore snapshot: the report's hang analysis against gdb (every thread's
    frames, the mutexes' owners)"""
    snap = "no thread crashed" in md
    out("signal", "right" if snap and hdr("Crash signal") is None else "wrong",
        "says it is a snapshot, no thread crashed (gdb gcore made it)" if snap else "does not say snapshot")
    for f in ("thread", "context", "determinism"):
        out(f, "not filled", "snapshot: no crashing thread (the hang analysis replaces it)")
    bad, n = [], 0
    for m in re.finditer(r"^#### Thread (\d+)\n\n(.*?)(?=^#### |^### |\Z)", md, re.M | re.S):
        tid, body = m.group(1), m.group(2)
        names = [noparams(x.group(1)) for x in re.finditer(r"^\| #\d+[^|]*\| `?(.*?)`? \|", body, re.M)]
        truth = [noparams(x) for x in g["all_threads"].get(tid, [])]
        n += 1
        if tid not in g["all_threads"]:
            bad.append("thread %s not in gdb's info threads" % tid)
        elif [x.lstrip("_") for x in names] != [x.lstrip("_") for x in truth]:
            bad.append("thread %s: %s vs gdb %s" % (tid, names, truth))
    out("chain", "wrong" if bad or not n else "right",
        "%d thread tables vs gdb thread apply all bt (%d threads)%s" % (n, len(g["all_threads"]),
                                                                       ("; " + "; ".join(bad[:8])) if bad else ""))
    out("instruction", "not filled", "snapshot: no faulting instruction")
    bad, det, ok = cycle_check()
    out("root-cause", "wrong" if bad or not ok else "right", det)


def cycle_check():
    """the deadlock cycle and each wait's holder against gdb's mutex owners:
    (problems, detail, a cycle was named)"""
    ex = g.get("exprs", {})
    owner = {}
    for k, v in ex.items():
        if k.startswith("&"):
            addr = re.search(r"0x[0-9a-f]+", v)
            own = ex.get(k[1:] + ".__data.__owner")
            if addr and own is not None:
                owner[int(addr.group(0), 16)] = own
    bad, nw = [], 0
    for m in re.finditer(r"thread (\d+) waits on `mutex (0x[0-9a-f]+)`, held by thread (\d+)", md):
        nw += 1
        want = owner.get(int(m.group(2), 16))
        if want != m.group(3):
            bad.append("mutex %s held by %s, gdb __owner %s" % (m.group(2), m.group(3), want))
    cyc = re.search(r"deadlock: thread ([\d >-]+)", md)
    cset = set(re.findall(r"\d+", cyc.group(1))) if cyc else set()
    want = set(t for t, fr in g["all_threads"].items() if set(fr) & set(a.cycle_funcs.split(",")))
    if cset != want:
        bad.append("cycle %s vs gdb's threads in %s: %s" % (sorted(cset), a.cycle_funcs, sorted(want)))
    return bad, "deadlock cycle %s (gdb: threads in %s); %d mutex waits, holders vs gdb's m.__data.__owner %s%s" \
        % (sorted(cset), a.cycle_funcs, nw, owner, ("; " + "; ".join(bad)) if bad else ""), cyc is not None


if a.snapshot:
    snapshot_checks()

# Crash signal
s = hdr("Crash signal")
si = g.get("siginfo")
if a.snapshot:
    pass
elif s is None:
    out("signal", "not filled", "no **Crash signal:** line" + (" (gcore snapshot: no signal)" if a.snapshot else ""))
elif a.snapshot:
    ok = not re.match(r"SIG[A-Z]+ \(", s)
    out("signal", "right" if ok else "wrong", "snapshot; says: " + s)
else:
    name = s.split()[0]
    re_ = (d.get("signal") or {}).get("reraised")
    truth = signame(si["signo"]) if si else None
    if re_:
        ok = re_.get("name") == truth and name == a.signal
        out("signal", "right" if ok else "wrong",
            "says %s (re-raised %s); gdb $_siginfo (the re-raise): %s; the fault (source): %s"
            % (name, re_.get("name"), truth, a.signal))
    else:
        ok = name == truth and (a.signal is None or name == a.signal)
        det = "says %s; gdb $_siginfo: %s" % (s, truth)
        m = re.search(r"fault address (0x[0-9a-f]+)", s)
        if m and si and "addr" in si:
            ok = ok and int(m.group(1), 16) == int(si["addr"], 16)
            det += " si_addr %s" % si["addr"]
        out("signal", "right" if ok else "wrong", det)

# Crashing thread
s = hdr("Crashing thread") if not a.snapshot else None
sel = [t for t in g["threads"] if t["selected"]]
if a.snapshot:
    pass
elif s is None:
    out("thread", "not filled", "no **Crashing thread:** line")
else:
    m = re.search(r"Thread (\d+)", s)
    tid = int(m.group(1)) if m else None
    truth = sel[0]["lwp"] if sel else None
    if a.snapshot:
        out("thread", "right" if tid is None or tid in [t["lwp"] for t in g["threads"]] else "wrong",
            "says %s; snapshot: gdb's threads %s" % (s, [t["lwp"] for t in g["threads"]]))
    else:
        out("thread", "right" if tid == truth else "wrong", "says %s; gdb info threads (*): LWP %s" % (s, truth))

# Crash context, Determinism
for f, want in (() if a.snapshot else (("Crash context", a.context), ("Determinism", a.determinism))):
    s = hdr(f)
    if s is None:
        out(f.split()[-1].lower(), "not filled", "no **%s:** line" % f)
    else:
        out(f.split()[-1].lower(), "right" if s.startswith(want) else "wrong", "says %s; truth: %s" % (s, want))

# Crash call chain
sec = section("Crash call chain")
gf = g["frames"]
if a.snapshot:
    pass
elif sec is None:
    out("chain", "not filled", "no table")
else:
    tab = []
    for line in sec.splitlines():
        m = re.match(r"\| #(\d+)[^|]*\| `?(.*?)`? \| (.*?) \| (.*?) \|$", line)
        line = line.split("|")[1] if m else line
        if m:
            fn = m.group(2).strip("` ")
            tab.append((int(m.group(1)), fn, m.group(3), m.group(4), line))
    bad = []
    # Python frames (from the interpreter's state) are not gdb's: they are
    # compared with faulthandler's dump, the native rows with gdb's bt
    py = [r for r in tab if "(Python)" in r[4]]
    if py:
        fh = []
        if a.faulthandler and os.path.exists(a.faulthandler):
            fh = re.findall(r'^  File "(.*)", line (\d+) in (.*)$', open(a.faulthandler).read(), re.M)
        got = [(r[1], re.sub(r".*— ", "", r[2])) for r in py]
        want = [(f[2], "%s:%s" % (f[0], f[1])) for f in fh]
        if got != want:
            bad.append("Python rows %s vs faulthandler %s" % (got, want))
    if [r[0] for r in tab] != list(range(len(tab))):
        bad.append("rows not numbered #0..#%d" % (len(tab) - 1))
    tab = [r for r in tab if "(Python)" not in r[4]]
    # align the native rows with gdb's frames (difflib): a frame one side has
    # and the other lacks (an inlined frame) is named, the rest compared
    key = [same_name(r[1]) for r in tab]
    # gdb's tail-call frames (type TAILCALL_FRAME, made from DW_TAG_call_site)
    # are frames no unwinder sees (eu-stack has none): counted, not compared
    tail = [t for t in gf if t["type"] == TAILCALL]
    gidx = [k for k, t in enumerate(gf) if t["type"] != TAILCALL]
    gkey = [same_name("<signal handler called>" if gf[k]["signal_frame"] else (gf[k]["function"] or "??")) for k in gidx]
    sm = difflib.SequenceMatcher(None, key, gkey, autojunk=False)
    n = 0
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op != "equal":
            bad.append("%s: provenance %s / gdb %s" % (op, ["#%d %s" % (tab[k][0], short(tab[k][1])) for k in range(i1, i2)],
                                                      ["#%d %s" % (gidx[k], short(gkey[k])) for k in range(j1, j2)]))
            continue
        for k in range(i2 - i1):
            num, fn, lib, comp = tab[i1 + k][:4]
            t = gf[gidx[j1 + k]]
            fmap[num] = gidx[j1 + k]
            n += 1
            if t.get("solib"):
                base = os.path.basename(t["solib"])
                if not lib.startswith(base) and not lib.startswith(os.path.basename(os.path.realpath(t["solib"]))):
                    bad.append("#%d lib %s vs gdb %s" % (num, lib, base))
                m = re.search(r"— (.*):(\d+)", lib)
                if m and t.get("file") and (os.path.basename(m.group(1)) != os.path.basename(t["file"]) or int(m.group(2)) != t["line"]):
                    bad.append("#%d %s vs gdb %s:%s" % (num, m.group(0)[2:], t["file"], t["line"]))
    det = "%d native rows, gdb bt %d frames; %d compared (function, module, file:line)%s%s" % (
        len(tab), len(gf), n, "; %d Python rows vs faulthandler's dump" % len(py) if py else "",
        "; gdb's tail-call frames not shown (eu-stack shows none either): %s" % [t["function"] for t in tail] if tail else "")
    out("chain", "wrong" if bad else "right", det + ("; " + "; ".join(bad[:4]) if bad else ""))

# Crashing instruction
sec = section("Crashing instruction")
if a.snapshot:
    pass
elif sec is None:
    out("instruction", "not filled", "no section" + (" (snapshot)" if a.snapshot else ""))
else:
    bad = []
    m = re.search(r"=> (0x[0-9a-f]+):\s+(\S+)", sec)
    gm = re.search(r"=> (0x[0-9a-f]+)[^:]*:\s+(\S+)", g["insn"] or "")
    if not m:
        bad.append("no => line")
    elif not gm:
        bad.append("gdb x/i: %s" % g["insn"])
    else:
        if int(m.group(1), 16) != int(gm.group(1), 16):
            bad.append("pc %s vs gdb %s" % (m.group(1), gm.group(1)))
        if m.group(2).lower() != gm.group(2).lower():
            bad.append("insn %s vs gdb %s" % (m.group(2), gm.group(2)))
    regs = dict(re.findall(r"\b(r[a-z0-9]{1,2})\s+(0x[0-9a-f]{16})\b", sec))
    nreg = 0
    for r, v in regs.items():
        t = g["regs"].get(r)
        if t is None:
            continue
        nreg += 1
        if int(v, 16) != int(t, 16):
            bad.append("%s %s vs gdb %s" % (r, v, t))
    out("instruction", "wrong" if bad else "right",
        "pc+mnemonic vs gdb x/i $pc in frame #%d, %d registers vs gdb info registers%s"
        % (g["crash_frame"], nreg, ("; " + "; ".join(bad[:4])) if bad else ""))

# Container environment: every chain module a package owns, its version (dpkg-query)
sec = section("Container environment")
if sec is None:
    out("environment", "not filled", "no table")
else:
    tab = {}
    for line in sec.splitlines():
        m = re.match(r"\| (.*?) \| (.*?) \| (.*?) \|", line)
        if m and m.group(1) not in ("Component", "-----------") and not m.group(1).startswith("-"):
            tab[m.group(1).strip("` ")] = (m.group(2).strip(), m.group(3).strip())
    bad, chk, need = [], 0, set()
    libs = set(os.path.realpath(f["solib"]) for f in gf if f.get("solib"))
    for mod in d.get("modules", []):
        p = mod.get("file") or mod.get("path")
        if not p or os.path.realpath(p) not in libs:
            continue
        cands = [mod["path"], os.path.realpath(p)]
        cands += [c[4:] for c in cands if c.startswith("/usr/")]
        cands += ["/usr" + c for c in cands if not c.startswith("/usr/")]
        for c in cands:
            r = subprocess.run(["dpkg", "-S", c], capture_output=True, text=True)
            if r.returncode == 0:
                break
        if r.returncode != 0:
            if mod.get("package"):
                bad.append("%s: package %s, dpkg -S owns nothing" % (p, mod["package"]["name"]))
            continue
        pkg = r.stdout.split(":")[0].split(",")[0]
        ver = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True, text=True).stdout
        chk += 1
        mp = mod.get("package") or {}
        if mp.get("name") != pkg or mp.get("version") != ver:
            bad.append("%s: %s %s vs dpkg %s %s" % (p, mp.get("name"), mp.get("version"), pkg, ver))
        comp = mod.get("component")
        need.add(comp)
        if comp not in tab:
            bad.append("component %s (%s) not in the table" % (comp, pkg))
        elif tab[comp][0] != ver and tab[comp][0] != mp.get("source_version"):
            bad.append("%s version %s vs dpkg %s" % (comp, tab[comp][0], ver))
    extra = [c for c in tab if c not in need]
    hashes = sum(1 for v in tab.values() if v[1] not in ("—", "-", ""))
    gitdet = ""
    if a.repo:
        want = git("rev-parse", a.ref + "^{commit}")
        got = re.sub(r"[`\s].*$", "", tab.get(a.component, ("", ""))[1].strip("`")) if a.component in tab else None
        gitdet = "; %s Git Hash %s vs git rev-parse %s^{commit} %s" % (a.component, got, a.ref, want)
        if got != want:
            bad.append("%s Git Hash %s vs git rev-parse %s" % (a.component, got, want))
    out("environment", "wrong" if bad else "right",
        "%d rows, %d chain modules checked with dpkg -S/dpkg-query, %d git hashes filled%s%s%s"
        % (len(tab), chk, hashes, gitdet, ("; rows not from a chain module: " + ",".join(extra)) if extra else "",
           ("; " + "; ".join(bad[:4])) if bad else ""))

# Root cause (the tool's "Crash pattern" / hang sections)
ids = [p["id"] for p in (d.get("crash") or {}).get("patterns") or []]
miss = [p for p in a.pattern if p not in ids]
if a.snapshot:
    pass
elif not ids:
    out("root-cause", "not filled", "no pattern; expected (source) %s" % a.pattern)
else:
    bad = ["missing %s" % p for p in miss] + ["claims %s" % p for p in a.no_pattern if p in ids]
    det = "patterns %s; expected from the source %s%s" % (ids, a.pattern, ", not %s" % a.no_pattern if a.no_pattern else "")
    if a.cycle_funcs:
        cbad, cdet, cok = cycle_check()
        bad += cbad + ([] if cok else ["no deadlock cycle named"])
        det += "; " + cdet
    out("root-cause", "wrong" if bad else "right", det + ("; " + "; ".join(bad) if bad else ""))

# Evidence: each printed argument/local vs gdb's value in that frame
sec = section("Evidence")
if sec is None and a.snapshot:
    out("evidence", "not filled", "snapshot: no evidence section (the waits and owners are the evidence)")
elif sec is None:
    out("evidence", "not filled", "no section")
else:
    agree, bad, nogdb, omit = 0, [], 0, []
    fr = None
    for line in sec.splitlines():
        m = re.match(r"Frame #(\d+)", line)
        if m:
            fr = int(m.group(1))
            continue
        m = re.match(r"- (?:arg|local) `([^`]+)` \(`[^`]*`\)(?: = `(.*)`|: \*optimized out)", line)
        if not m or fr is None or fr not in fmap:
            continue
        name, val = m.group(1), m.group(2)
        t = gf[fmap[fr]]["vars"].get(name)
        if t is None:
            nogdb += 1
            continue
        if val is None:
            ok = t == "<optimized out>"
        elif t == "<optimized out>":
            ok = False
        elif val.startswith("{"):
            ok = t.startswith("{")
        else:
            tv = re.sub(r"^\([^)]*\) ", "", t).split(" ")[0]
            ok = val.split(" ")[0] == tv
        if ok:
            agree += 1
        elif val is None:
            omit.append("#%d %s (gdb %s)" % (fr, name, t))
        else:
            bad.append("#%d %s=%s vs gdb %s" % (fr, name, val if val is not None else "<optimized out>", t))
    out("evidence", "wrong" if bad else "right",
        "%d values equal gdb's, %d differ, %d gdb does not list, %d 'optimized out' where gdb has a value%s%s"
        % (agree, len(bad), nogdb, len(omit), ("; " + "; ".join(bad[:8])) if bad else "",
           ("; not shown: " + "; ".join(omit[:3])) if omit else ""))

# Upstream fix status, Recommended next steps
s = section("Upstream fix status")
if s is None:
    out("fix-status", "not filled", "no section")
else:
    if not a.fix:
        out("fix-status", "right" if "Not checked" in s else "wrong", s.strip().splitlines()[0])
    else:
        bad, det = [], []
        for fx in a.fix:
            line = [x for x in s.splitlines() if x.startswith("- `%s" % fx[:12])]
            anc = subprocess.run(["git", "-C", a.repo, "merge-base", "--is-ancestor", fx, a.ref]).returncode == 0
            said = None
            if line and "**is included**" in line[0]:
                said = True
            elif line and "**NOT included**" in line[0]:
                said = False
            det.append("%.12s: says %s, git merge-base --is-ancestor: %s" % (
                fx, {True: "included", False: "not included", None: "nothing" if not line else "undetermined"}[said],
                "ancestor" if anc else "not an ancestor"))
            if said != anc:
                bad.append(det[-1])
        # the suspects: commits after the deployed one, on the upstream's HEAD
        after = git("log", "--format=%H", a.ref + "..HEAD").split()
        ps = section("Possible upstream fixes") or ""
        named = re.findall(r"^- `([0-9a-f]{7,40})`", ps, re.M)
        wrong = [n for n in named if not any(h.startswith(n) for h in after)]
        det.append("possible fixes %s; git log %s..HEAD: %s" % (named, a.ref, [h[:12] for h in after]))
        if wrong or (after and not named):
            bad.append("possible fixes %s not in git log %s..HEAD" % (wrong or "none", a.ref))
        out("fix-status", "wrong" if bad else "right", "; ".join(det))
s = section("Recommended next steps")
if s is None:
    out("next-steps", "not filled", "no section")
else:
    n = len(re.findall(r"^\d+\. ", s, re.M))
    if a.step:
        ok = re.search(a.step, s) is not None
        out("next-steps", "right" if ok else "wrong", "%d steps; expected one matching /%s/" % (n, a.step))
    else:
        out("next-steps", "right" if n else "not filled", "%d steps (judgement: read, not compared)" % n)

for f, v, det in rows:
    print("%s|%s|%s|%s" % (a.scenario, f, v, det))
