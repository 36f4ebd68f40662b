#!/usr/bin/env bash
# A call through a wild function pointer crashes at pc 0x10, where there is no
# code and no CFI. The caller chain is recovered as gdb recovers it (the
# same physical frames, pc by pc, compared with gdb's bt), and no stack
# address is ever shown as a frame. Two crashes: a C program calling 0x10,
# and the host's Python doing ctypes.CFUNCTYPE(None)(16)().
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null || skip "no gdb"

# compare WHAT EXE CORE: the physical frames' pcs, gdb's bt vs ours
compare() {
	local what=$1 exe=$2 core=$3
	# gdb's frames that are on the stack: not inlined ones (no pc of their own) and not
	# tail-call frames (gdb rebuilds those from DWARF call-site data; they left no
	# return address on the stack)
	cat >"$T/frames.py" <<'PY'
import gdb
f = gdb.newest_frame()
while f is not None:
    if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
        print("PC %#x" % f.pc())
    f = f.older()
PY
	gdb -batch -ex "set debuginfod enabled off" -ex "set backtrace past-main on" \
		-ex "source $T/frames.py" "$exe" "$core" 2>/dev/null | awk '/^PC /{print $2}' >"$T/gdb.pcs"
	gdb -batch -ex "set debuginfod enabled off" -ex "set backtrace past-main on" -ex bt "$exe" "$core" \
		>"$T/gdb.bt" 2>/dev/null
	[ "$(wc -l <"$T/gdb.pcs")" -ge 3 ] || { cat "$T/gdb.bt"; fail "$what: gdb finds fewer than 3 frames"; }
	"$PROVENANCE" analyze "$core" --format json >"$T/a.json" 2>"$T/a.err"
	[ $? -le 1 ] || { cat "$T/a.err"; fail "$what: analyze failed"; }
	json_get "$T/a.json" '"\n".join(f["pc"] for f in [t for t in d["threads"] if t["crashed"]][0]["frames"] if not f["inlined"] and f.get("language") != "python")' >"$T/our.pcs"
	diff "$T/gdb.pcs" "$T/our.pcs" >"$T/diff" || { cat "$T/gdb.bt"; cat "$T/diff"; fail "$what: physical frames differ from gdb's bt"; }
	echo "ok: $what: the $(wc -l <"$T/gdb.pcs") physical frames of gdb's bt, pc by pc"
	# no frame's pc lies in the stack (or any non-executable segment of the core)
	python3 - "$core" "$T/our.pcs" <<'PY' || fail "$what: a stack or data address is shown as a frame"
import struct, sys
d = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", d, 0x20)
phentsize, phnum = struct.unpack_from("<HH", d, 0x36)
noexec = []
for i in range(phnum):
    t, fl, off, va, pa, fsz, msz, al = struct.unpack_from("<IIQQQQQQ", d, phoff + i * phentsize)
    if t == 1 and not fl & 1:
        noexec.append((va, va + msz))
for i, pc in enumerate(open(sys.argv[2]).read().split()):
    pc = int(pc, 16)
    if i and any(lo <= pc < hi for lo, hi in noexec):
        sys.exit("frame pc %#x is in a non-executable segment" % pc)
PY
	echo "ok: $what: no frame in non-executable memory"
}

build_fixture "$TOP/fixtures/crashers/wildcall.c" "$T/wildcall"
core=$(make_core "$T" ./wildcall) || exit 1
compare "C call to 0x10" "$T/wildcall" "$core"
check_eq "$(json_get "$T/a.json" '" ".join(f["function"] or "??" for f in [t for t in d["threads"] if t["crashed"]][0]["frames"][:4])')" "?? dispatch route main" "C call to 0x10: functions"
line=$(grep -n 'CRASH HERE' "$TOP/fixtures/crashers/wildcall.c" | cut -d: -f1)
check_eq "$(json_get "$T/a.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][1]["line"]')" "$line" "the call's line (CRASH HERE in the source)"

py=
for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.11.7/bin/python3 "$(command -v python3)"; do
	[ -x "$p" ] && { py=$(readlink -f "$p"); break; }
done
[ -n "$py" ] || exit 0
core=$(make_core "$T" "$py" -c 'import ctypes; ctypes.CFUNCTYPE(None)(16)()') || exit 1
compare "Python ctypes call to 16" "$py" "$core"
exit 0
