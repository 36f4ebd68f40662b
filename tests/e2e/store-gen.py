#!/usr/bin/env python3
"""Make many crash reports from a few real ones, as if from many hosts.

  store-gen.py OUT.jsonl TRUTH.json N HOSTS SEED TEMPLATE.json...

Each output line is a template report (made by `provenance resolve --format
json` on a real core) with its host, time, input path and component versions
changed: host nodeNNN (HOSTS of them), a unique time, and for some reports a
synthetic component "rccl" whose version depends on the template (template 0
only ever with 2.20.1, the others with 2.19.3 or 2.20.1), so that triage has
a version split to find; about a third of those rccl commits are
"approximate" (found_by "branch tip"), the rest "exact" ("tag").  TRUTH.json holds what the generator did, computed
here from its own choices: per template the count, hosts, first and last
time, the signature (docs/signature.md's rules, written again here), rccl versions (and how many
of each were approximate), and the latest report whose
components are the template's own (no rccl).
"""
import datetime
import json
import os
import random
import re
import sys

out_path, truth_path, n, nhosts, seed = sys.argv[1:6]
n, nhosts = int(n), int(nhosts)
rng = random.Random(int(seed))
templates = [json.load(open(p)) for p in sys.argv[6:]]
base = datetime.datetime(2026, 10, 2, 8, 0, 0, tzinfo=datetime.timezone.utc)


# The signature rules of docs/signature.md, written again here from the
# document (not from src/model/signature.c): the signal number, then the
# first three function names from the crash site that the rules keep.
SKIP_NAMES = {
    "<signal handler called>", "__restore_rt", "__kernel_rt_sigreturn",
    "abort", "__GI_abort", "raise", "__GI_raise", "gsignal", "pthread_kill", "__pthread_kill",
    "__pthread_kill_implementation", "__pthread_kill_internal", "__GI___pthread_kill", "tgkill",
    "syscall", "__assert_fail", "__assert_fail_base", "__GI___assert_fail",
    "__assert_perror_fail", "__assert", "__libc_message", "__libc_fatal", "__fortify_fail",
    "__chk_fail", "__stack_chk_fail",
    "malloc", "free", "calloc", "realloc", "cfree", "memalign", "aligned_alloc",
    "posix_memalign", "valloc", "pvalloc", "__libc_malloc", "__libc_free", "__libc_calloc",
    "__libc_realloc", "__libc_memalign", "__GI___libc_malloc", "__GI___libc_free",
    "__GI___libc_realloc", "_int_malloc", "_int_free", "_int_realloc", "_int_memalign",
    "malloc_printerr", "__malloc_assert", "unlink_chunk", "malloc_consolidate", "tcache_get",
    "tcache_put", "operator new", "operator new[]", "operator delete", "operator delete[]",
    "_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
    "start_thread", "clone", "clone3", "__clone", "__clone3", "__GI___clone3",
    "run_eval_code_obj", "run_mod", "pyrun_file", "Py_RunMain", "Py_BytesMain", "Py_Main",
    "_ctypes_callproc", "_call_function_pointer", "PyCFuncPtr_call",
}
SKIP_PREFIXES = (
    "std::", "__gnu_cxx::", "__gnu_debug::", "__cxxabiv1::", "__cxa_", "_Unwind_", "__asan",
    "__sanitizer", "__ubsan", "__tsan", "__msan", "__lsan", "__hwasan", "__interceptor_",
    "___interceptor_", "_PyEval_", "PyEval_", "_PyObject_", "PyObject_", "_PyFunction_",
    "PyVectorcall_", "_PyVectorcall_", "method_vectorcall", "cfunction_", "slot_tp_",
    "vectorcall_", "pymain_", "_PyRun_", "PyRun_", "_PyCFunction_", "PyCFunction_",
)
SKIP_MODULES = ("libstdc++.so", "libc++.so", "libc++abi.so", "libgcc_s.so", "libasan.so",
                "libtsan.so", "libubsan.so", "libmsan.so", "liblsan.so", "libhwasan.so",
                "libjemalloc.so", "libtcmalloc", "libclang_rt.", "libffi.so")
STRING_FNS = ("memcpy memmove memset memcmp memchr memrchr mempcpy bcmp strlen strnlen strcmp "
              "strncmp strcasecmp strncasecmp strcpy strncpy stpcpy stpncpy strcat strncat "
              "strchr strrchr strchrnul strstr strdup strndup wcslen wcsnlen wcscmp wcscpy "
              "wmemset wmemcpy rawmemchr").split()


GLIBC_MODULES = ("libc.so", "libc-", "ld-linux", "ld64.so", "ld.so", "libm.so", "libm-",
                 "libmvec.so", "libpthread.so", "libdl.so", "librt.so", "libresolv.so",
                 "libutil.so", "libanl.so", "libnss_")


def args_start(fn):
    """Where the argument list starts: the first '(' outside <>, {} and
    "(anonymous namespace)", not an operator's own "()"."""
    i = angle = brace = 0
    while i < len(fn):
        if fn.startswith("(anonymous namespace)", i):
            i += 21
            continue
        if fn.startswith("operator", i) and (i == 0 or fn[i - 1] in ": "):
            i += 8
            if fn.startswith("()", i):
                i += 2
            else:
                while i < len(fn) and fn[i] in "<>=!+-*/%&|^~[],":
                    i += 1
            continue
        c = fn[i]
        if c == "<":
            angle += 1
        elif c == ">" and angle:
            angle -= 1
        elif c == "{":
            brace += 1
        elif c == "}" and brace:
            brace -= 1
        elif c == "(" and not angle and not brace:
            return i
        i += 1
    return i


def sig_name(f):
    """docs/signature.md "Names": the frame's name as the signature spells it."""
    fn = f.get("function")
    if fn in (None, "", "??"):
        return None
    if f.get("language") == "python":
        return fn
    if not fn.startswith("operator "):
        cut = re.search(r"[(<]", fn)
        head = fn[:cut.start()] if cut else fn
        if " " in head:
            fn = fn[head.rindex(" ") + 1:]
    fn = fn[:args_start(fn)].split("@")[0].rstrip(" ")
    gi = False
    while len(fn) > 5 and fn.startswith("__GI_"):
        fn, gi = fn[5:], True
    if gi or os.path.basename(f.get("module") or "").startswith(GLIBC_MODULES):
        while len(fn) > 1 and fn.startswith("_"):
            fn = fn[1:]
        if len(fn) > 5 and fn.startswith("libc_"):
            fn = fn[5:]
        if len(fn) > 5 and fn.endswith("_impl"):
            fn = fn[:-5]
        elif len(fn) > 9 and fn.endswith("_internal"):
            fn = fn[:-9]
    return fn or None


def name_skipped(fn, module):
    if not fn.startswith("operator "):
        cut = re.search(r"[(<]", fn)
        head = fn[:cut.start()] if cut else fn
        if " " in head:
            fn = fn[head.rindex(" ") + 1:]
    base = re.split(r"[(@ ]", fn, 1)[0] if not fn.startswith("operator ") else fn.split("(")[0]
    if base in SKIP_NAMES or fn.startswith(SKIP_PREFIXES):
        return True
    mod = os.path.basename(module or "")
    return (not mod or mod.startswith(("libc.so", "libc-"))) and \
        any(re.match(r"^_*%s(?:$|[_@(])" % s, fn) for s in STRING_FNS)


def skipped(f, separate=frozenset()):
    fn = f.get("function")
    if f.get("signal_frame") or fn in (None, "", "??"):
        return True
    if f.get("language") == "python":
        return False
    if f.get("inlined") and f.get("module") in separate:
        return True
    name = sig_name(f)
    if name_skipped(fn, f.get("module")) or not name or name_skipped(name, f.get("module")):
        return True
    return os.path.basename(f.get("module") or "").startswith(SKIP_MODULES)


def signature(r):
    sig = str((r.get("signal") or {}).get("number") or 0)
    for t in r["threads"]:
        if not t.get("crashed"):
            continue
        frames = t["frames"]
        start = 0
        if t.get("crash_frame") is not None:
            start = [i for i, f in enumerate(frames) if f["index"] == t["crash_frame"]][0]
        elif r["input"]["kind"] != "core":
            s = [i for i, f in enumerate(frames) if f.get("signal_frame")]
            if s and s[0] + 1 < len(frames) and all(
                    skipped(f) or "handler" in (f.get("function") or "").lower()
                    for f in frames[:s[0]]):
                start = s[0] + 1
        separate = frozenset(m.get("path") for m in r.get("modules") or []
                             if m.get("debug_file") and m.get("debug_file") != m.get("file"))
        kept = [sig_name(f) for f in frames[start:] if not skipped(f, separate)][:3]
        if not kept:
            kept = [sig_name(f) for f in frames[start:]
                    if sig_name(f) and not f.get("signal_frame") and
                    not (f.get("inlined") and f.get("module") in separate)][:3]
        sig += "".join("|" + k for k in kept)
        break
    return sig


truth = {"total": n, "hosts": set(), "templates": []}
for i, t in enumerate(templates):
    truth["templates"].append({"signature": signature(t), "count": 0, "hosts": set(),
                               "first": None, "last": None, "rccl": {}, "rccl_approximate": {},
                               "last_plain": None, "frames": sum(len(th["frames"]) for th in t["threads"])})

with open(out_path, "w") as out:
    # unique times: minute i plus a random second, shuffled over the reports
    minutes = list(range(n))
    rng.shuffle(minutes)
    for i in range(n):
        k = 0 if rng.random() < 0.6 else 1 + rng.randrange(len(templates) - 1) if len(templates) > 1 else 0
        r = json.loads(json.dumps(templates[k]))
        host = "node%03d" % rng.randrange(nhosts)
        when = base + datetime.timedelta(minutes=minutes[i], seconds=rng.randrange(60))
        ts = when.strftime("%Y-%m-%dT%H:%M:%SZ")
        r["crash"]["host"] = host
        r["crash"]["time"] = ts
        r["input"]["path"] = "/scratch/%s/core.%d" % (host, 1000 + i)
        rc = None
        approx = False
        if rng.random() < 0.7:
            rc = "2.20.1" if k == 0 else rng.choice(["2.19.3", "2.20.1"])
            approx = rng.random() < 0.33
            r["components"].append({"name": "rccl", "version": rc, "commit": None, "repo": None,
                                    "ref": None, "subdir": None,
                                    "commit_is": "approximate" if approx else "exact",
                                    "found_by": "branch tip" if approx else "tag", "note": None})
        out.write(json.dumps(r, separators=(",", ":")) + "\n")
        tt = truth["templates"][k]
        tt["count"] += 1
        tt["hosts"].add(host)
        truth["hosts"].add(host)
        tt["first"] = ts if tt["first"] is None or ts < tt["first"] else tt["first"]
        tt["last"] = ts if tt["last"] is None or ts > tt["last"] else tt["last"]
        if rc:
            tt["rccl"][rc] = tt["rccl"].get(rc, 0) + 1
            tt["rccl_approximate"][rc] = tt["rccl_approximate"].get(rc, 0) + approx
        elif tt["last_plain"] is None or ts > tt["last_plain"][0]:
            tt["last_plain"] = [ts, host]

truth["hosts"] = len(truth["hosts"])
for tt in truth["templates"]:
    tt["hosts"] = len(tt["hosts"])
json.dump(truth, open(truth_path, "w"), indent=1)
