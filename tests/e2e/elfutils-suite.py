#!/usr/bin/env python3
"""Compare provenance with the expectations of elfutils' own test suite.

  elfutils-suite.py TESTS-DIR PROVENANCE WORK-DIR [--believed-wrong ID]...

TESTS-DIR is the tests/ folder of Debian's elfutils source package (its
run-*.sh scripts and *.bz2 test files); nothing of it is kept here. Every
x86_64, i386 and x32 case of the scripts below is read from the scripts
themselves (their heredocs and greps) and compared with
`provenance analyze --format json` on the same core:

  run-unstrip-n.sh            modules: start, page-rounded end, build ID, name;
                              and each module listed once (no overlaps)
  run-stack-*.sh              frames: pc, function (inline frames with -i, the
                              DWARF name with -d), file:line with -s
  run-linkmap-cut.sh          frames: pc, function, module
  run-backtrace-demangle.sh   the functions its greps name, more than 2 frames
  run-backtrace-*core-*.sh    backtrace-subr.sh's check_main, check_gsignal,
                              check_backtracegen over every thread; on the
                              other architectures' cores, a JSON note for
                              what is not read, one text line saying it, and
                              the machine the ELF header names (s390 for
                              ELFCLASS32, s390x for ELFCLASS64)
  run-addrname-test.sh        the module covering each address (and the
                              function, where the address is a frame's pc)
  run-readelf-mixed-corenote.sh  signal (cursig), thread ids, pid, frame 0 pc
  (and, as EXTRA_CORES says, a ppc and an m68k core of the two scripts above;
  the ppc one's frame 0 function against eu-stack's on the same core)

The files are found the way a user would give them: the executable with
--exe (where the script gives -e), everything else under a --sysroot that
holds each test file at the path the core recorded and under
/usr/lib/debug/.build-id. Prints one line per check and totals per
architecture; exit 1 when a check disagrees and is not believed wrong.
"""
import bz2
import json
import os
import re
import struct
import subprocess
import sys

ARCHES = ("x86_64", "i386", "x32")
# cores of other architectures checked as the x86 ones are (unstrip -n's
# modules, readelf -n's threads): a big-endian ppc32 core of prelinked
# libraries without NT_FILE, an m68k core (2-byte aligned elf_prstatus)
EXTRA_CORES = {"testcore-rtlib-ppc": "ppc", "testfile-m68k-core": "m68k"}


def core_arch(s, core):
    """The architecture a core is checked under, or None to leave it out."""
    path = s.file(core)
    if not path:
        return None
    arch = elf_arch(path)
    return arch if arch in ARCHES else EXTRA_CORES.get(core)


def page_size(core):
    """The page size a core's auxv names (eu-readelf -n's PAGESZ), else 4096."""
    p = subprocess.run(["eu-readelf", "-n", core], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    m = re.search(r"^\s+PAGESZ: (\d+)$", p.stdout, re.M)
    return int(m.group(1)) if m else 4096


def eu_stack_frame0(core):
    """The function eu-stack names in the first thread's frame #0, or None."""
    p = subprocess.run(["eu-stack", "--core=" + core], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    m = re.search(r"^#0\s+0x[0-9a-f]+ (\S+)", p.stdout, re.M)
    return m.group(1) if m else None


def elf_arch(path):
    try:
        with open(path, "rb") as f:
            h = f.read(20)
    except OSError:
        return None
    if len(h) < 20 or h[:4] != b"\x7fELF":
        return None
    end = "<" if h[5] == 1 else ">"
    mach, = struct.unpack_from(end + "H", h, 18)
    if mach == 3:
        return "i386"
    if mach == 62:
        return "x86_64" if h[4] == 2 else "x32"
    return "other"


def machine_name(path):
    """The machine a core's ELF header names, as provenance's notes should:
    e_machine and class (s390 and s390x share EM_S390; ELFCLASS64 is s390x)."""
    with open(path, "rb") as f:
        h = f.read(20)
    end = "<" if h[5] == 1 else ">"
    mach, = struct.unpack_from(end + "H", h, 18)
    is64 = h[4] == 2
    names = {20: "ppc", 21: "ppc64", 22: "s390x" if is64 else "s390", 43: "sparc64",
             183: "aarch64"}
    return names.get(mach)


def build_id(path):
    """The GNU build ID of an ELF file from its section notes (hex), or None."""
    p = subprocess.run(["eu-readelf", "-n", path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    m = re.search(r"Build ID: ([0-9a-f]+)", p.stdout)
    return m.group(1) if m else None


def nt_file_names(core):
    """The file names of a core's NT_FILE note."""
    p = subprocess.run(["eu-readelf", "-n", core], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    names = set()
    infile = False
    for line in p.stdout.splitlines():
        if re.match(r"\s+\S+\s+\d+\s+FILE$", line):
            infile = True
            continue
        if infile:
            m = re.match(r"\s+[0-9a-f]+-[0-9a-f]+ [0-9a-f]+ \d+\s+(.*)$", line)
            if m:
                names.add(m.group(1))
            elif not re.match(r"\s+\d+ files:", line):
                infile = False
    return names


class Suite:
    def __init__(self, tests, prov, work, believed):
        self.tests, self.prov, self.work = tests, prov, work
        self.believed = believed
        self.rows = []
        self.reports = {}
        self.root = os.path.join(work, "root")
        os.makedirs(self.root, exist_ok=True)

    def file(self, name):
        """A test file, decompressed into the work dir once."""
        out = os.path.join(self.work, name)
        if not os.path.exists(out):
            src = os.path.join(self.tests, name + ".bz2")
            if not os.path.exists(src):
                src = os.path.join(self.tests, name)
            if not os.path.exists(src):
                return None
            data = bz2.open(src).read() if src.endswith(".bz2") else open(src, "rb").read()
            with open(out, "wb") as f:
                f.write(data)
            os.chmod(out, 0o755)
        return out

    def place(self, path, recorded):
        """The test file under the sysroot at a recorded path and by build ID."""
        targets = []
        if recorded.startswith("/"):
            targets.append(recorded)
        targets.append("/" + os.path.basename(path))
        bid = build_id(path)
        if bid:
            targets.append("/usr/lib/debug/.build-id/%s/%s" % (bid[:2], bid[2:]))
        for t in targets:
            dst = self.root + t
            if os.path.lexists(dst):
                continue
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            os.link(path, dst)	# a link out of the root would not be followed

    def analyze(self, core, exe=None, extra=()):
        """provenance's report on a test core (cached); None when it failed."""
        key = (core, exe)
        if key in self.reports:
            return self.reports[key]
        cpath = self.file(core)
        if cpath is None:
            self.reports[key] = None
            return None
        for name in extra:
            p = self.file(name)
            if p and elf_arch(p):
                self.place(p, "")
        # each test file whose name the core records goes to that path
        for rec in nt_file_names(cpath):
            p = self.file(os.path.basename(rec))
            if p and elf_arch(p):
                self.place(p, rec)
        cmd, p = self.run(cpath, exe, "json")
        rep = None
        if re.search(r"Sanitizer|runtime error:", p.stderr):
            # a sanitizer build (CI's second pass) reports and exits nonzero
            self.check("sanitizer %s" % core, elf_arch(cpath), False, "no report",
                       p.stderr[-2000:])
        try:
            rep = json.loads(p.stdout)
        except ValueError:
            sys.stderr.write("%s: exit %d, no JSON: %s\n" % (" ".join(cmd), p.returncode,
                                                             p.stderr[-500:]))
        self.reports[key] = rep
        return rep

    def run(self, cpath, exe, fmt):
        """(command, completed process) of `provenance analyze` in that format."""
        cmd = [self.prov, "analyze", "--sysroot", self.root, "--format", fmt]
        if exe:
            cmd += ["--exe", self.file(exe)]
        cmd.append(cpath)
        # the work dir holds every test file: a lookup there would hide a miss
        empty = os.path.join(self.work, "cwd")
        os.makedirs(empty, exist_ok=True)
        return cmd, subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   cwd=empty, text=True, timeout=300)

    def text(self, core, exe=None):
        """provenance's text report on a test core (after analyze placed its files)."""
        return self.run(self.file(core), exe, "text")[1].stdout

    def check(self, cid, arch, ok, want, got):
        self.rows.append((cid, arch, bool(ok), str(want), str(got)))

    def script(self, name):
        with open(os.path.join(self.tests, name)) as f:
            return f.read()


def heredocs(text, cmd_re):
    """(match, body) for each command matching cmd_re followed by a heredoc."""
    out = []
    for m in re.finditer(cmd_re, text):
        h = re.compile(r"<<\\?EOF\n(.*?)\nEOF", re.S).search(text, m.end())
        if h:
            out.append((m, h.group(1)))
    return out


def arg_of(args, short, long_):
    m = re.search(r"(?:%s\s+|%s[= ])(\S+)" % (short, long_), args) if short else \
        re.search(r"%s[= ](\S+)" % long_, args)
    return m.group(1) if m else None


def crashed(rep):
    for t in rep["threads"]:
        if t.get("crashed"):
            return t
    return rep["threads"][0] if rep["threads"] else {"frames": []}


DEMANGLED = {}


def norm(name):
    """A function name without its parameter list, demangled."""
    if name is None:
        return "??"
    name = re.sub(r"\+0x[0-9a-f]+$", "", name)
    if name.startswith("_Z"):
        if name not in DEMANGLED:
            p = subprocess.run(["c++filt", name], stdout=subprocess.PIPE, text=True)
            DEMANGLED[name] = p.stdout.strip() or name
        name = DEMANGLED[name]
    return re.sub(r"\(.*\)$", "", name)


def base(path):
    return os.path.basename(path.rstrip("/")) if path else ""


def hexs(v):
    return int(v, 16) if isinstance(v, str) else v


# ---- run-unstrip-n.sh ----
UNSTRIP_LINE = re.compile(r"^(0x[0-9a-f]+)\+(0x[0-9a-f]+) (\S+) (\S+) (\S+) (.*)$")


def unstrip_n(s):
    text = s.script("run-unstrip-n.sh")
    for m, body in heredocs(text, r"unstrip -n ([^\n<]*)"):
        args = m.group(1)
        core = arg_of(args, None, "--core")
        exe = arg_of(args, "-e", "--executable")
        arch = core_arch(s, core) if core else None
        if not arch:
            continue
        rep = s.analyze(core, exe)
        mods = rep["modules"] if rep else []
        page = page_size(s.file(core))
        rnd = lambda a: (a + page - 1) & ~(page - 1)
        for line in body.splitlines():
            e = UNSTRIP_LINE.match(line)
            if not e:
                continue
            start, size = int(e.group(1), 16), int(e.group(2), 16)
            bid = e.group(3).split("@")[0]
            name = e.group(6)
            cid = "unstrip-n %s %s %s" % (core, e.group(1), base(name))
            want = "%#x-%#x %s %s" % (start, rnd(start + size), bid, base(name))
            mod = [x for x in mods if hexs(x["start"]) == start]
            if not mod:
                s.check(cid, arch, False, want, "no module at %#x" % start)
                continue
            x = mod[0]
            end = rnd(hexs(x["end"]))
            want_end = rnd(start + size)
            names = {base(x["path"]), base(x.get("file") or "")}
            if name.startswith(("linux-gate", "linux-vdso")):
                name_ok = x["path"] == "[vdso]"
            elif name == "[exe]":
                name_ok = rep["process"].get("executable") == x["path"]
            else:
                name_ok = base(name) in names
            got = "%#x-%#x %s %s (file %s)" % (start, end, x.get("build_id") or "-", base(x["path"]),
                                              base(x.get("file")))
            ok = end == want_end and name_ok and (bid == "-" or x.get("build_id") == bid)
            s.check(cid, arch, ok, want, got)
        once(s, "unstrip-n %s" % core, arch, mods)
        if arch not in ARCHES:
            # the crash's frame 0, named as eu-stack names it (from the
            # image in the core's memory when no file is there)
            want = eu_stack_frame0(s.file(core))
            fr = crashed(rep)["frames"] if rep else []
            got = norm(fr[0].get("function")) if fr else None
            s.check("unstrip-n %s frame 0 (eu-stack)" % core, arch, want is not None and
                    norm(want) == got, want, got)


def once(s, cid, arch, mods):
    """Each module listed once: no two with one path, no overlapping ranges."""
    bad = []
    paths = [x["path"] for x in mods]
    for p in sorted(set(paths)):
        if paths.count(p) > 1:
            bad.append("%s x%d" % (base(p), paths.count(p)))
    r = sorted((hexs(x["start"]), hexs(x["end"]), base(x["path"])) for x in mods)
    for a, b in zip(r, r[1:]):
        if b[0] < a[1]:
            bad.append("%s overlaps %s" % (b[2], a[2]))
    s.check(cid + " listed once", arch, not bad, "each module once", "; ".join(bad) or "ok")


# ---- run-stack-*.sh ----
STACK_FRAME = re.compile(r"^#(\d+)\s+(0x[0-9a-f]+) (.*)$")


def stack_view(t, inlines, debugname):
    """The frames eu-stack prints: (pc, name, file:line) from provenance's."""
    out = []
    group = []
    for f in t["frames"]:
        group.append(f)
        if f.get("inlined"):
            continue
        if inlines:
            for g in group:
                out.append((hexs(g["pc"]), g["function"], g))
        else:
            # one physical frame: the innermost scope's line; its name is the
            # innermost DWARF name (-d) or the symbol, the outermost function
            name = group[0]["function"] if debugname else group[-1]["function"]
            out.append((hexs(f["pc"]), name, group[0]))
        group = []
    return out


def stack_scripts(s):
    for script in sorted(os.listdir(s.tests)):
        if not re.match(r"run-stack-.*\.sh$", script):
            continue
        text = s.script(script)
        for m, body in heredocs(text, r"src/stack ([^\n<]*)"):
            args = m.group(1)
            core = arg_of(args, None, "--core")
            exe = arg_of(args, "-e", "--executable")
            if not core or elf_arch(s.file(core)) not in ARCHES:
                continue
            arch = elf_arch(s.file(core))
            flags = set(re.findall(r"(?:^|\s)-([a-z])\b", args))
            rep = s.analyze(core, exe)
            view = stack_view(crashed(rep), "i" in flags, "d" in flags) if rep else []
            frames = []
            for line in body.splitlines():
                f = STACK_FRAME.match(line)
                if f:
                    frames.append([int(f.group(1)), int(f.group(2), 16), f.group(3), None])
                elif frames and re.match(r"^\s+\S+:\d+$", line):
                    frames[-1][3] = line.strip()
            for n, pc, name, src in frames:
                cid = "%s %s -%s #%d" % (script, core, "".join(sorted(flags)), n)
                want = "%#x %s%s" % (pc, norm(name), " " + src if src else "")
                if n >= len(view):
                    s.check(cid, arch, False, want, "no frame #%d" % n)
                    continue
                gpc, gname, g = view[n]
                gsrc = "%s:%s" % (g.get("file"), g.get("line")) if src else None
                got = "%#x %s%s" % (gpc, norm(gname), " " + gsrc if gsrc else "")
                s.check(cid, arch, got == want, want, got)


# ---- run-linkmap-cut.sh ----
def linkmap_cut(s):
    text = s.script("run-linkmap-cut.sh")
    m = re.search(r"src/stack ([^\n>]*)", text)
    args = m.group(1)
    core = arg_of(args, None, "--core")
    exe = arg_of(args, "-e", "--executable")
    arch = elf_arch(s.file(core))
    s.file("linkmap-cut-lib.so")
    rep = s.analyze(core, exe, extra=re.findall(r"testfiles (.*)", text)[0].split())
    t = crashed(rep) if rep else {"frames": []}
    phys = [f for f in t["frames"] if not f.get("inlined")]
    for g in re.finditer(r"grep -q '\^#(\d+)\s+(0x[0-9a-f]+) (\S+) - (.*?)\$' bt", text):
        n, pc, name = int(g.group(1)), int(g.group(2), 16), g.group(3)
        mod = base(re.sub(r"\\(.)", r"\1", g.group(4)))
        cid = "run-linkmap-cut.sh #%d" % n
        want = "%#x %s %s" % (pc, name, mod)
        if n >= len(phys):
            s.check(cid, arch, False, want, "no frame #%d" % n)
            continue
        f = phys[n]
        got = "%#x %s %s" % (hexs(f["pc"]), norm(f["function"]), base(f.get("module")))
        s.check(cid, arch, got == want, want, got)
    if rep:
        once(s, "run-linkmap-cut.sh " + core, arch, rep["modules"])


# ---- run-backtrace-demangle.sh ----
def backtrace_demangle(s):
    text = s.script("run-backtrace-demangle.sh")
    child = re.search(r"^child=(\S+)", text, re.M).group(1)
    core, exe = child + ".core", child
    arch = elf_arch(s.file(core))
    rep = s.analyze(core, exe)
    t = crashed(rep) if rep else {"frames": []}
    names = [norm(f["function"]) for f in t["frames"]]
    for g in re.finditer(r"grep (?:-w (\S+)|'\s*([^']+)') \$child\.bt", text):
        want = norm(g.group(1) or g.group(2))
        s.check("run-backtrace-demangle.sh %s" % want, arch, want in names, want, " ".join(names))
    if "expected more than 2 frames" in text:
        s.check("run-backtrace-demangle.sh >2 frames", arch, len(names) > 2, "> 2 frames",
                "%d frames" % len(names))


# ---- run-backtrace-core-*.sh, run-backtrace-fp-core-*.sh ----
def backtrace_cores(s):
    subr = s.script("backtrace-subr.sh")
    rules = []
    for g in re.finditer(r"check_(\w+)\(\)\n\{\n\s+if (! )?grep -w (\w+) \$1", subr):
        rules.append((g.group(3), g.group(2) is None))	# (name, must be present)
    for script in sorted(os.listdir(s.tests)):
        if not re.match(r"run-backtrace-(fp-)?core-.*\.sh$", script):
            continue
        m = re.search(r"^check_core (\S+)", s.script(script), re.M)
        if not m:
            continue
        core, exe = "backtrace.%s.core" % m.group(1), "backtrace.%s.exec" % m.group(1)
        arch = elf_arch(s.file(core)) if s.file(core) else None
        if arch is None:
            continue
        if arch == "other":
            arch = m.group(1).split(".")[0]
        rep = s.analyze(core, exe)
        names = set()
        for t in rep["threads"] if rep else []:
            names.update(norm(f["function"]) for f in t["frames"])
        for name, present in rules:
            cid = "%s %s %s" % (script, "has" if present else "lacks", name)
            s.check(cid, arch, (name in names) == present,
                    ("" if present else "no ") + name, "found" if name in names else "absent")
        if arch not in ARCHES and rep:
            # another architecture: what is not read there is said, in the
            # report (a note) and not left empty without a word
            t = crashed(rep)
            said = []
            if not t.get("registers"):
                said.append("registers" if rep.get("registers_note") else "registers: NO NOTE")
            if not rep.get("instructions"):
                said.append("disassembly" if rep.get("instructions_note") else
                            "disassembly: NO NOTE")
            s.check("%s says what it cannot read" % script, arch, "NO NOTE" not in " ".join(said),
                    "a note for each part not read", ", ".join(said) or "everything read")
            # the text report says it in one line, not one per part
            lines = [l for l in s.text(core, exe).splitlines()
                     if re.match(r"no (registers|disassembly)", l)]
            if len(said) == 2:
                ok = len(lines) == 1 and "registers" in lines[0] and "disassembly" in lines[0]
                want = "one line naming registers and disassembly"
            else:
                ok, want = len(lines) == len(said), "a line for each part not read"
            s.check("%s says it in one line" % script, arch, ok, want,
                    " | ".join(lines) or "no line")
            # and names the core's machine (the script's name where elfutils
            # names it: run-backtrace-core-s390.sh is a 32-bit s390 core)
            name = machine_name(s.file(core))
            if arch in ("s390", "s390x"):
                name = arch
            words = set(re.findall(r"[\w-]+", " ".join(lines)))
            words.update(re.findall(r"of (\S+) cores", rep.get("registers_note") or ""))
            words.update(re.findall(r"of (\S+) cores", rep.get("instructions_note") or ""))
            if said and name:
                others = {"s390": "s390x", "s390x": "s390"}.get(name)
                s.check("%s names the machine" % script, arch,
                        name in words and others not in words, name,
                        " | ".join(lines + [rep.get("registers_note") or "",
                                            rep.get("instructions_note") or ""]))


# ---- run-addrname-test.sh ----
def addrname(s):
    text = s.script("run-addrname-test.sh")
    for m, body in heredocs(text, r"src/addr2line ([^\n<]*)"):
        args = m.group(1)
        core = arg_of(args, None, "--core")
        if not core:
            continue
        core = core.lstrip("./") if core.startswith("./") else core
        exe = arg_of(args, "-e", "--executable")
        if not s.file(core) or elf_arch(s.file(core)) not in ARCHES:
            continue
        arch = elf_arch(s.file(core))
        files = []
        for t in re.findall(r"testfiles (.*)", text):
            files += [f for f in t.split() if f.startswith(core.split(".")[0])]
        rep = s.analyze(core, exe, extra=files)
        addrs = [int(a, 16) for a in re.findall(r"\s(0x[0-9a-f]+)", args)]
        names = [l for l in body.splitlines() if l != "??:0"]
        for a, name in zip(addrs, names):
            cid = "run-addrname-test.sh %s %#x" % (core, a)
            want = "a module with a file covers it; frame at it: %s" % norm(name)
            mods = [x for x in (rep["modules"] if rep else [])
                    if hexs(x["start"]) <= a < hexs(x["end"])]
            frames = [f for t in (rep["threads"] if rep else []) for f in t["frames"]
                      if hexs(f["pc"]) == a and not f.get("inlined")]
            got = []
            ok = len(mods) == 1 and (mods[0].get("file") or mods[0]["path"] == "[vdso]")
            got.append("%s (file %s)" % (mods[0]["path"], mods[0].get("file")) if mods
                       else "no module")
            if frames:
                ok = ok and norm(frames[0]["function"]) == norm(name)
                got.append("frame: %s" % norm(frames[0]["function"]))
            s.check(cid, arch, ok, want, "; ".join(got))


# ---- run-readelf-mixed-corenote.sh ----
def readelf_notes(s):
    text = s.script("run-readelf-mixed-corenote.sh")
    for m, body in heredocs(text, r"src/readelf -n (\S+)"):
        core = m.group(1)
        arch = core_arch(s, core)
        if not arch:
            continue
        rep = s.analyze(core)
        notes = re.split(r"\n  (?=CORE|LINUX|GNU)", body)
        prs = [n for n in notes if re.match(r"CORE\s+\d+\s+PRSTATUS", n)]
        psi = [n for n in notes if re.match(r"CORE\s+\d+\s+PRPSINFO", n)]
        tids = sorted(int(re.search(r"\bpid: (\d+)", n).group(1)) for n in prs)
        got_t = sorted(t["tid"] for t in rep["threads"]) if rep else []
        s.check("readelf-mixed-corenote %s threads" % core, arch, tids == got_t, tids, got_t)
        if prs:
            sig = int(re.search(r"cursig: (\d+)", prs[0]).group(1))
            got = (rep.get("signal") or {}).get("number") if rep else None
            s.check("readelf-mixed-corenote %s signal" % core, arch, sig == got, sig, got)
            pc = re.search(r"\b(?:[er]ip|pc):\s+(0x[0-9a-f]+|\d+)", prs[0])
            if pc:
                want = int(pc.group(1), 0)
                fr = crashed(rep)["frames"] if rep else []
                got = hexs(fr[0]["pc"]) if fr else None
                s.check("readelf-mixed-corenote %s frame 0 pc" % core, arch, want == got,
                        hex(want), hex(got) if got is not None else None)
        if psi:
            pid = int(re.search(r"\bpid: (\d+)", psi[0]).group(1))
            got = (rep.get("process") or {}).get("pid") if rep else None
            s.check("readelf-mixed-corenote %s pid" % core, arch, pid == got, pid, got)


def main():
    args = sys.argv[1:]
    believed = {}
    while "--believed-wrong" in args:
        i = args.index("--believed-wrong")
        believed[args[i + 1]] = True
        del args[i:i + 2]
    tests, prov, work = args
    s = Suite(tests, prov, work, believed)
    for part in (unstrip_n, stack_scripts, linkmap_cut, backtrace_demangle, backtrace_cores,
                 addrname, readelf_notes):
        try:
            part(s)
        except (OSError, AttributeError, KeyError, TypeError, IndexError) as e:
            s.check(part.__name__ + " (the script could not be read)", "x86_64", False,
                    "readable expectations", "%s: %s" % (type(e).__name__, e))
    bad = 0
    totals = {}
    for cid, arch, ok, want, got in s.rows:
        st = "agree" if ok else ("BELIEVED-WRONG" if cid in believed else "DIFFER")
        if not ok and cid not in believed:
            bad += 1
        if ok and cid in believed:
            st = "agree (listed as believed wrong: drop it from the list)"
        a = totals.setdefault(arch, [0, 0])
        a[0] += ok
        a[1] += 1
        print("%-7s %-6s %s" % ("ok" if ok else "MISS", arch, cid))
        if not ok or os.environ.get("VERBOSE"):
            print("        want: %s\n        got:  %s\n        %s" % (want, got, st))
    for cid in believed:
        if cid not in [r[0] for r in s.rows]:
            print("note: believed-wrong '%s' names no check" % cid)
    print("totals: " + ", ".join("%s %d/%d" % (a, totals[a][0], totals[a][1])
                                 for a in list(ARCHES) + sorted(set(totals) - set(ARCHES))
                                 if a in totals))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
