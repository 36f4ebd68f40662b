#!/usr/bin/env python3
"""Seeds for fuzz/fuzz-python.c (and the cases tests/unit/test-python.c checks).

Each seed is: one byte, the CPython minor version the reader is told (0: none,
3.13+ describe themselves), one byte of flags (bit 0: the thread is the crashing one,
so its frames' arguments and locals are read), then a memory image
mapped at 0x100000 that starts with _PyRuntime. The image holds a made-up but
well-formed interpreter state laid out with the offsets the reader's tables
give (src/core/python-offsets.c: CPython's headers), with one thread (native tid
1000) running two Python functions:
  inner at line 12 (innermost), Outer.outer at line 15.
Variants break it the ways hostile cores do.
  fuzz/make-python-seeds.py [OUTDIR]
"""
import os
import struct
import sys

BASE = 0x100000
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "fixtures", "fuzz-seeds", "fuzz-python")
os.makedirs(out, exist_ok=True)

NO = None
T38 = dict(rt_fin=16, rt_head=32, rt_cur=NO, is_next=0, is_head=8, ts_next=8, ts_cframe=NO,
           cf_cur=NO, ts_frame=24, ts_tid=176, ts_ntid=NO, fr_prev=24, fr_code=32, fr_instr=NO,
           fr_lasti=104, fr_entry=NO, fr_owner=NO, co_file=104, co_name=112, co_qual=NO,
           co_table=120, co_first=40, co_code=NO, co_ft=NO, ascii=48, lines="lnotab")
T39 = dict(T38, rt_cur=568)
T310 = dict(T39, fr_lasti=96, lines="linetable")
T311 = dict(rt_fin=24, rt_head=40, rt_cur=576, is_next=0, is_head=16, ts_next=8, ts_cframe=56,
            cf_cur=8, ts_frame=NO, ts_tid=152, ts_ntid=160, fr_prev=48, fr_code=32, fr_instr=56,
            fr_lasti=NO, fr_entry=68, fr_owner=69, co_file=112, co_name=120, co_qual=128,
            co_table=136, co_first=72, co_code=184, co_ft=168, ascii=48, lines="locations")
T312 = dict(T311, rt_cur=NO, is_head=72, cf_cur=0, ts_tid=136, ts_ntid=144, fr_prev=8,
            fr_code=0, fr_entry=NO, fr_owner=70, co_first=68, co_code=192, co_ft=176, ascii=40)
# 3.13: what its _Py_DebugOffsets would say (made-up values, self-consistent)
T313 = dict(T312, rt_fin=0x300, rt_head=0x310, ts_cframe=NO, ts_frame=0x48, ts_tid=0x98,
            ts_ntid=0xa0, fr_owner=0x46, co_ft=NO, debug=True)

RUNTIME, INTERP, TS, CF = BASE, BASE + 0x1000, BASE + 0x2000, BASE + 0x2800
F1, F2, SHIM = BASE + 0x3000, BASE + 0x3100, BASE + 0x3200
C1, C2, TYPE, TNAME = BASE + 0x4000, BASE + 0x5000, BASE + 0x6000, BASE + 0x6100
S = BASE + 0x7000
SIZE = 0x9000


class Image:
    def __init__(self, size=SIZE):
        self.b = bytearray(size)
        self.s = S

    def q(self, addr, v):
        struct.pack_into("<Q", self.b, addr - BASE, v)

    def i(self, addr, v):
        struct.pack_into("<i", self.b, addr - BASE, v)

    def c(self, addr, v):
        self.b[addr - BASE] = v

    def raw(self, addr, data):
        self.b[addr - BASE:addr - BASE + len(data)] = data

    def string(self, t, text, length=None):
        addr = self.s
        self.q(addr + 16, len(text) if length is None else length)
        struct.pack_into("<I", self.b, addr + 32 - BASE, (1 << 2) | (1 << 5) | (1 << 6))
        self.raw(addr + t["ascii"], text.encode() + b"\0")
        self.s += 0x100
        return addr

    def bytes_obj(self, data, length=None):
        addr = self.s
        self.q(addr + 16, len(data) if length is None else length)
        self.raw(addr + 32, data)
        self.s += 0x100
        return addr


def svarint(v):
    u = (-v << 1) | 1 if v < 0 else v << 1
    out = bytearray()
    while True:
        chunk = u & 63
        u >>= 6
        out.append(chunk | (64 if u else 0))
        if not u:
            return bytes(out)


def table(t):
    # lines: units [0,1) line 10, [1,5) line 12, [5,13) line 15
    if t["lines"] == "locations":
        return (bytes([0x80 | (13 << 3) | 0]) + svarint(0) +
                bytes([0x80 | (13 << 3) | 3]) + svarint(2) +
                bytes([0x80 | (13 << 3) | 7]) + svarint(3))
    if t["lines"] == "linetable":  # 3.10: (bytes, line delta) from line 10
        return bytes([2, 0, 8, 2, 16, 3])
    return bytes([2, 2, 8, 3])  # lnotab: at byte 2 line 12, at byte 10 line 15


def build(t, variant=""):
    im = Image()
    dbg = t.get("debug")
    if dbg:
        # _Py_DebugOffsets 3.13: cookie, version, free_threaded, runtime_state{size,
        # finalizing, interpreters_head}, interpreter_state{size, id, next, threads_head,
        # gc, imports_modules, sysdict, builtins, ceval_gil, gil_runtime_state,
        # enabled, locked, holder}, thread_state{size, prev, next, interp,
        # current_frame, thread_id, native_thread_id, datastack_chunk, status},
        # interpreter_frame{size, previous, executable, instr_ptr, localsplus, owner},
        # code_object{size, filename, name, qualname, linetable, firstlineno, argcount,
        # localsplusnames, localspluskinds, co_code_adaptive}, pyobject(2),
        # type_object(4), tuple(3), list(3), dict(3), float(2), long(3), bytes(3),
        # unicode{size, state, length, asciiobject_size}, gc(2)
        size = 0x1000 if variant != "debug-bad" else 0
        w = [0, 0x030d00f0, 0,
             0x400, t["rt_fin"], t["rt_head"],
             0x800, 8, t["is_next"], t["is_head"], 16, 24, 32, 40, 48, 56, 0, 0x80, 0x88,
             0x200, 0, t["ts_next"], 16, t["ts_frame"], t["ts_tid"], t["ts_ntid"], 0xb0, 0xb8,
             80, t["fr_prev"], t["fr_code"], t["fr_instr"], 72, t["fr_owner"],
             size, t["co_file"], t["co_name"], t["co_qual"], t["co_table"], t["co_first"], 52,
             96, 104, t["co_code"],
             16, 8, 0x190, 24, 168, 176, 32, 24, 16, 40, 40, 24, 16, 48, 32, 24, 32, 40, 16, 24,
             33, 16, 32, 56, 32, 16, t["ascii"], 0x200, 0x10]
        for k, v in enumerate(w):
            im.q(RUNTIME + 8 * k, v)
        im.raw(RUNTIME, b"xdebugpy")
    im.q(RUNTIME + t["rt_head"], INTERP if variant != "unmapped-interp" else 0xdead0000)
    if t["rt_cur"] is not None:
        im.q(RUNTIME + t["rt_cur"], TS)
    im.q(INTERP + t["is_next"], INTERP if variant == "interp-cycle" else 0)
    im.q(INTERP + t["is_head"], TS)
    im.q(TS + t["ts_next"], TS if variant == "thread-cycle" else 0)
    im.q(TS + t["ts_tid"], 0x7f0000001000)
    if t["ts_ntid"] is not None:
        im.q(TS + t["ts_ntid"], 1000)
    if t["ts_cframe"] is not None:
        im.q(TS + t["ts_cframe"], CF)
        im.q(CF + t["cf_cur"], F1)
    else:
        im.q(TS + t["ts_frame"], F1)
    # frames: F1 (inner) -> F2 (outer) [-> shim owned by the C stack]
    im.q(F1 + t["fr_prev"], F2)
    if variant == "frame-cycle":
        im.q(F2 + t["fr_prev"], F1)
    elif variant == "frame-unmapped":
        im.q(F2 + t["fr_prev"], 0xdead0000)
    elif t["fr_owner"] is not None and t["fr_entry"] is None:
        im.q(F2 + t["fr_prev"], SHIM)
        im.c(SHIM + t["fr_owner"], 3)
    im.q(F1 + t["fr_code"], C1)
    im.q(F2 + t["fr_code"], C2 if variant != "code-garbage" else TNAME)
    if t["fr_entry"] is not None:
        im.c(F2 + t["fr_entry"], 1)
    for f, c, unit in ((F1, C1, 3), (F2, C2, 6)):
        if t["fr_instr"] is not None:
            im.q(f + t["fr_instr"], c + t["co_code"] + 2 * unit)
        else:
            im.i(f + t["fr_lasti"], unit * 2 if t["lines"] == "lnotab" else unit)
    im.raw(TNAME, b"code\0")
    im.q(TYPE + 24, TNAME)
    huge = variant == "huge-counts"
    for c, name, qual in ((C1, "inner", "inner"), (C2, "outer", "Outer.outer")):
        im.q(c + 8, TYPE)
        im.q(c + t["co_file"], im.string(t, "/srv/app/job.py"))
        im.q(c + t["co_name"], im.string(t, name, (1 << 40) if huge else None))
        if t["co_qual"] is not None:
            im.q(c + t["co_qual"], im.string(t, qual, (1 << 40) if huge else None))
        im.q(c + t["co_table"], im.bytes_obj(table(t), (1 << 40) if huge else None))
        im.i(c + t["co_first"], 10)
        if t["co_ft"] is not None:
            im.i(c + t["co_ft"], 1)
    return bytes(im.b)


# Arguments and locals (seeds whose flags byte has bit 0 set: the thread is
# the crashing one, so its frames' variables are read). Objects live past
# the frame image; the layouts: PyLongObject (3.11 ob_size, 3.12+ lv_tag),
# PyFloatObject.ob_fval, PyCellObject.ob_ref, PyTupleObject.ob_item.
LOC = BASE + 0x9000
LOCSIZE = 0xe000
VARS = ["a", "b", "s", "f", "n", "t", "lst", "obj", "cellv", "unb"]


def build_locals(t, tagged, variant=""):
    hostile = variant == "hostile"
    im = Image(LOCSIZE)
    im.b[:SIZE] = build(t)
    im.s = LOC
    types = {}
    for k, name in enumerate(["int", "str", "float", "NoneType", "bool", "list", "Thing",
                              "cell", "bytes", "x" * 80]):
        ty = LOC + 0x2000 + 0x40 * k
        im.q(ty + 24, LOC + 0x2800 + 0x80 * k)
        im.raw(LOC + 0x2800 + 0x80 * k, name.encode() + (b"" if len(name) > 64 else b"\0"))
        types[name] = ty
    objs = LOC + 0x1000
    nobj = [0]

    def obj(ty):
        a = objs + 0x40 * nobj[0]
        nobj[0] += 1
        im.q(a + 8, ty)
        return a

    def long(value, ndigits=None, bad_digit=False):
        a = obj(types["bool" if isinstance(value, bool) else "int"])
        v = abs(int(value))
        digits = []
        while v:
            digits.append(v & ((1 << 30) - 1))
            v >>= 30
        if bad_digit:
            digits = [1 << 31]
        n = len(digits) if ndigits is None else ndigits
        if tagged:
            im.q(a + 16, (n << 3) | (2 if value < 0 else 1 if not digits else 0))
        else:
            im.q(a + 16, (-n if value < 0 else n) & (2 ** 64 - 1))
        for k, d in enumerate(digits):
            struct.pack_into("<I", im.b, a + 24 + 4 * k - BASE, d)
        return a

    def string(text, length=None):
        a = im.string(t, text, length)
        im.q(a + 8, types["str"])
        return a

    def flt(x):
        a = obj(types["float"])
        struct.pack_into("<d", im.b, a + 16 - BASE, x)
        return a

    def seq(ty, n):
        a = obj(types[ty])
        im.q(a + 16, n)
        return a

    cell_int = long(7)
    cell = obj(types["cell"])
    im.q(cell + 16, cell if hostile else cell_int)
    if not hostile:
        values = [long(42), long(-(2 ** 40 + 5)), string("hi 'x'"), flt(2.5),
                  obj(types["NoneType"]), long(True), seq("list", 3), obj(types["Thing"]),
                  cell, 0]
    else:
        values = [0xdead0000,                       # unmapped object
                  long(5, ndigits=1 << 40),         # 2^40 digits
                  string("abc", 1 << 40),           # 2^40 characters
                  obj(types["x" * 80]),             # tp_name without NUL in 64 bytes
                  long(5, bad_digit=True),          # a digit of 31 bits
                  seq("bytes", 1 << 40),            # 2^40 bytes
                  obj(0xdead0000),                  # unmapped type
                  seq("list", 1 << 60),             # absurd length
                  cell,                             # a cell holding itself
                  0]
    # C1 (inner): names tuple, kinds, argcount 2; its frame F1's localsplus
    names = LOC + 0x3000
    im.q(names + 16, len(VARS))
    for k, v in enumerate(VARS):
        im.q(names + 24 + 8 * k, string(v))
    kinds = im.bytes_obj(bytes([0x40 if v == "cellv" else 0x20 for v in VARS]))
    co_argc = t["co_argc"]
    im.i(C1 + co_argc, 2)
    im.i(C1 + co_argc + 8, 0)
    im.q(C1 + t["co_lpnames"], names)
    im.q(C1 + t["co_lpnames"] + 8, kinds)
    for k, v in enumerate(values):
        im.q(F1 + t["fr_lp"] + 8 * k, v)
    # C2 (outer): no variables, or (hostile) a names tuple of 2^40 items
    names2 = LOC + 0x3400
    im.q(names2 + 16, (1 << 40) if hostile else 0)
    im.q(C2 + t["co_lpnames"], names2)
    im.q(C2 + t["co_lpnames"] + 8, im.bytes_obj(b""))
    return bytes(im.b)


T311["co_argc"], T311["co_lpnames"], T311["fr_lp"] = 56, 96, 72
T312["co_argc"], T312["co_lpnames"], T312["fr_lp"] = 52, 96, 72
T313["co_argc"], T313["co_lpnames"], T313["fr_lp"] = 52, 96, 72

versions = {"3.8": (8, T38), "3.9": (9, T39), "3.10": (10, T310), "3.11": (11, T311),
            "3.12": (12, T312), "3.13": (0, T313)}
for name, (minor, t) in versions.items():
    open(os.path.join(out, "py%s-ok" % name.replace(".", "")), "wb").write(
        bytes([minor, 0]) + build(t))
for variant in ("frame-cycle", "frame-unmapped", "thread-cycle", "interp-cycle",
                "unmapped-interp", "huge-counts", "code-garbage"):
    open(os.path.join(out, "py311-" + variant), "wb").write(bytes([11, 0]) + build(T311, variant))
open(os.path.join(out, "py313-debug-bad"), "wb").write(bytes([0, 0]) + build(T313, "debug-bad"))
open(os.path.join(out, "py310-frame-cycle"), "wb").write(bytes([10, 0]) + build(T310, "frame-cycle"))
for name, minor, t, tagged in (("py311", 11, T311, False), ("py312", 12, T312, True),
                               ("py313", 0, T313, True)):
    open(os.path.join(out, name + "-locals"), "wb").write(bytes([minor, 1]) +
                                                          build_locals(t, tagged))
# 3.10 with the crashing flag but no variable names in its code objects
open(os.path.join(out, "py310-vars-unset"), "wb").write(bytes([10, 1]) + build(T310))
open(os.path.join(out, "py311-locals-hostile"), "wb").write(
    bytes([11, 1]) + build_locals(T311, False, "hostile"))
