# gdb -batch -x runbook-gdb-truth.py EXE CORE: gdb's view of a core as JSON
# (bench/runbook-scenarios.sh's truth): threads, the selected thread's frames
# (function, pc, shared object, file:line), siginfo, the crash site's
# registers and instruction, and each frame's arguments and locals.
import gdb
import json
import os

out = {"threads": [], "frames": [], "siginfo": None, "regs": {}, "insn": None,
       "crash_frame": 0, "terminated_by": None}
gdb.execute("set width 0")
gdb.execute("set print pretty off")
gdb.execute("set disassembly-flavor intel")
gdb.execute("set backtrace past-main on")
gdb.execute("set backtrace past-entry on")
gdb.execute("disable pretty-printer", to_string=True)
inf = gdb.selected_inferior()
sel = gdb.selected_thread()
for t in inf.threads():
    out["threads"].append({"lwp": t.ptid[1], "num": t.num, "selected": t == sel})
try:
    si = gdb.parse_and_eval("$_siginfo")
    out["siginfo"] = {"signo": int(si["si_signo"]), "code": int(si["si_code"])}
    try:
        out["siginfo"]["addr"] = hex(int(si["_sifields"]["_sigfault"]["si_addr"]))
    except gdb.error:
        pass
except (gdb.error, RuntimeError):
    pass


def solib(pc):
    s = gdb.solib_name(pc)
    if s is None:
        s = gdb.current_progspace().filename
    return s


f = gdb.newest_frame()
i = 0
while f is not None and i < 64:
    e = {"index": i, "function": f.name(), "pc": hex(f.pc()), "type": int(f.type()),
         "signal_frame": f.type() == gdb.SIGTRAMP_FRAME, "vars": {}}
    if not e["signal_frame"]:
        e["solib"] = solib(f.pc() - (1 if i and f.type() == gdb.NORMAL_FRAME else 0))
        sal = f.find_sal()
        if sal.symtab is not None:
            e["file"] = sal.symtab.filename
            e["line"] = sal.line
        try:
            blk = f.block()
            while blk is not None and not blk.is_global and not blk.is_static:
                for sym in blk:
                    if (sym.is_argument or sym.is_variable) and sym.addr_class != gdb.SYMBOL_LOC_LABEL \
                            and sym.name not in e["vars"]:
                        try:
                            v = sym.value(f)
                            e["vars"][sym.name] = "<optimized out>" if v.is_optimized_out else str(v)
                        except Exception as ex:
                            e["vars"][sym.name] = "<error: %s>" % ex
                if blk.function is not None:
                    break
                blk = blk.superblock
        except RuntimeError:
            pass
    out["frames"].append(e)
    f = f.older()
    i += 1
# the crash site: the frame after the last <signal handler called>, else #0
for e in out["frames"]:
    if e["signal_frame"]:
        out["crash_frame"] = e["index"] + 1
gdb.execute("frame %d" % out["crash_frame"], to_string=True)
for r in ("rip", "rsp", "rbp", "rax", "rbx", "rcx", "rdx", "rsi", "rdi",
          "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"):
    try:
        v = gdb.parse_and_eval("$" + r)
        out["regs"][r] = None if v.is_optimized_out else hex(int(v) & 0xffffffffffffffff)
    except gdb.error:
        out["regs"][r] = None
try:
    out["insn"] = gdb.execute("x/i $pc", to_string=True).strip()
except gdb.error as ex:
    out["insn"] = "<error: %s>" % ex
# every thread's function names (a snapshot's tables; no tail-call frames), and TRUTH_EXPRS
# (comma-separated expressions, e.g. a mutex's owner) as gdb prints them
out["all_threads"] = {}
for t in inf.threads():
    t.switch()
    names, fr = [], gdb.newest_frame()
    while fr is not None and len(names) < 64:
        if fr.type() == gdb.TAILCALL_FRAME:  # from DW_TAG_call_site; no unwinder has it
            fr = fr.older()
            continue
        names.append("<signal handler called>" if fr.type() == gdb.SIGTRAMP_FRAME else (fr.name() or "??"))
        fr = fr.older()
    out["all_threads"][str(t.ptid[1])] = names
sel.switch()
out["exprs"] = {}
for e in filter(None, os.environ.get("TRUTH_EXPRS", "").split(",")):
    try:
        out["exprs"][e] = str(gdb.parse_and_eval(e))
    except gdb.error as ex:
        out["exprs"][e] = "<error: %s>" % ex
with open(os.environ["TRUTH_OUT"], "w") as fp:
    json.dump(out, fp, indent=1)
