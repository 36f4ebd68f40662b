#!/usr/bin/env python3
"""Seeds for fuzz/fuzz-python.c (and the cases tests/unit/test-python.c checks).

Each seed is: one byte, the CPython minor version the reader is told (0: none,
3.13+ describe themselves), one byte of flags (unused), then a memory image
mapped at 0x100000 that starts with _PyRuntime. The image holds a made-up but
well-formed interpreter state laid out with the offsets the reader's tables
give (src/python-offsets.c: CPython's headers), with one thread (native tid
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
    def __init__(self):
        self.b = bytearray(SIZE)
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
