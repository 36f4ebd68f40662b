#!/usr/bin/env python3
"""Check a provenance JSON report against the design's contract (docs/design.md).

  check-json-contract.py FILE [--kind core|text]

Every contract key must be present (unknown = null, never missing) with the
contract's type. Extra keys are allowed. Exit 0 when it holds, 1 with one line
per problem otherwise. Other tests may reuse it.
"""
import json
import re
import sys

HEX = re.compile(r"^0x[0-9a-f]+$")
HEXID = re.compile(r"^[0-9a-f]+$")
problems = []


def bad(path, what):
    problems.append("%s: %s" % (path, what))


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check(obj, path, key, kind, nullable=False):
    """kind: 'str' 'int' 'bool' 'hex' 'hexid' 'list' 'dict' or a tuple of allowed strings."""
    if not isinstance(obj, dict):
        bad(path, "not an object")
        return None
    if key not in obj:
        bad(path + "." + key, "missing")
        return None
    v = obj[key]
    p = path + "." + key
    if v is None:
        if not nullable:
            bad(p, "is null")
        return None
    ok = {
        "str": lambda: isinstance(v, str),
        "int": lambda: is_int(v),
        "bool": lambda: isinstance(v, bool),
        "hex": lambda: isinstance(v, str) and HEX.match(v) is not None,
        "hexid": lambda: isinstance(v, str) and HEXID.match(v) is not None,
        "list": lambda: isinstance(v, list),
        "dict": lambda: isinstance(v, dict),
    }
    if isinstance(kind, tuple):
        if v not in kind:
            bad(p, "%r not one of %s" % (v, "|".join(kind)))
    elif not ok[kind]():
        bad(p, "%r is not %s" % (v, kind))
    return v


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__.strip())
        return 2
    kind = None
    if "--kind" in args:
        i = args.index("--kind")
        kind = args[i + 1]
        del args[i:i + 2]
    try:
        with open(args[0]) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        print("not JSON: %s" % e)
        return 1
    if not isinstance(d, dict):
        print("top level is not an object")
        return 1
    if d.get("schema") != "provenance/1":
        bad("schema", "%r is not 'provenance/1'" % d.get("schema"))
    inp = check(d, "", "input", "dict")
    if inp is not None:
        check(inp, "input", "path", "str")
        k = check(inp, "input", "kind", ("core", "text"))
        if kind and k != kind:
            bad("input.kind", "%r, expected %r" % (k, kind))
    proc = check(d, "", "process", "dict", nullable=True)
    if proc is not None:
        check(proc, "process", "pid", "int", nullable=True)
        check(proc, "process", "executable", "str", nullable=True)
        check(proc, "process", "cmdline", "str", nullable=True)
    sig = check(d, "", "signal", "dict", nullable=True)
    if sig is not None:
        check(sig, "signal", "number", "int")
        check(sig, "signal", "name", "str")
        check(sig, "signal", "code", "int", nullable=True)
        check(sig, "signal", "code_name", "str", nullable=True)
        check(sig, "signal", "address", "hex", nullable=True)
    crash = check(d, "", "crash", "dict")
    if crash is not None:
        check(crash, "crash", "thread", "int", nullable=True)
        check(crash, "crash", "context", ("runtime", "exit", "module-load", "unknown"))
        pats = check(crash, "crash", "patterns", "list")
        for i, p in enumerate(pats or []):
            check(p, "crash.patterns[%d]" % i, "id", "str")
            check(p, "crash.patterns[%d]" % i, "evidence", "str")
    threads = check(d, "", "threads", "list")
    for i, t in enumerate(threads or []):
        tp = "threads[%d]" % i
        check(t, tp, "tid", "int", nullable=True)
        check(t, tp, "name", "str", nullable=True)
        check(t, tp, "crashed", "bool")
        regs = check(t, tp, "registers", "dict", nullable=True)
        for r, v in (regs or {}).items():
            if not (isinstance(v, str) and HEX.match(v)):
                bad(tp + ".registers." + r, "%r is not hex" % (v,))
        frames = check(t, tp, "frames", "list")
        for j, f in enumerate(frames or []):
            fp = "%s.frames[%d]" % (tp, j)
            check(f, fp, "index", "int")
            check(f, fp, "pc", "hex", nullable=True)
            check(f, fp, "function", "str", nullable=True)
            check(f, fp, "module", "str", nullable=True)
            check(f, fp, "file", "str", nullable=True)
            check(f, fp, "line", "int", nullable=True)
            check(f, fp, "inlined", "bool")
            check(f, fp, "repo_path", "str", nullable=True)
            check(f, fp, "component", "str", nullable=True)
    mods = check(d, "", "modules", "list")
    for i, m in enumerate(mods or []):
        mp = "modules[%d]" % i
        check(m, mp, "path", "str")
        check(m, mp, "start", "hex", nullable=True)
        check(m, mp, "end", "hex", nullable=True)
        check(m, mp, "build_id", "hexid", nullable=True)
        pkg = check(m, mp, "package", "dict", nullable=True)
        if pkg is not None:
            check(pkg, mp + ".package", "kind",
                  ("dpkg", "rpm", "pip", "conda", "rocm", "elf-note", "git", "path"))
            check(pkg, mp + ".package", "name", "str")
            check(pkg, mp + ".package", "version", "str")
            check(pkg, mp + ".package", "source", "str", nullable=True)
        check(m, mp, "component", "str", nullable=True)
    comps = check(d, "", "components", "list")
    for i, c in enumerate(comps or []):
        cp = "components[%d]" % i
        check(c, cp, "name", "str")
        check(c, cp, "version", "str", nullable=True)
        check(c, cp, "commit", "hexid", nullable=True)
        check(c, cp, "repo", "str", nullable=True)
        check(c, cp, "ref", "str", nullable=True)
        check(c, cp, "found_by", "str")
    srcs = check(d, "", "sources", "list")
    for i, s in enumerate(srcs or []):
        sp = "sources[%d]" % i
        check(s, sp, "component", "str")
        check(s, sp, "commit", "hexid")
        check(s, sp, "path", "str")
        check(s, sp, "line", "int")
        lines = check(s, sp, "lines", "list")
        for j, ln in enumerate(lines or []):
            check(ln, "%s.lines[%d]" % (sp, j), "number", "int")
            check(ln, "%s.lines[%d]" % (sp, j), "text", "str")
    # contract addition (issue 15): suspects[] in resolve reports
    sus = check(d, "", "suspects", "list") if "suspects" in d else None
    for i, s in enumerate(sus or []):
        sp = "suspects[%d]" % i
        check(s, sp, "commit", "hexid")
        check(s, sp, "subject", "str")
        check(s, sp, "date", "str", nullable=True)
        check(s, sp, "component", "str")
        check(s, sp, "path", "str")
        check(s, sp, "function", "str", nullable=True)
        check(s, sp, "first_tag", "str", nullable=True)
        check(s, sp, "how_related", ("changes crash line", "changes function"))
        fr = check(s, sp, "frames", "list")
        for j, x in enumerate(fr or []):
            if not is_int(x):
                bad("%s.frames[%d]" % (sp, j), "not an integer")
    for p in problems:
        print("contract: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
