#!/usr/bin/env bash
# gdb pastes as tickets carry them (issue 33): `bt` then `py-bt` and
# `py-bt-full`, from real gdb on Debian's python3.11 crashed in C
# (ctypes.string_at(0)) under a Python call chain that goes through C once
# (list(map(level2, ...))). The Python frames land on the crashed thread,
# most recent first, each right above the _PyEval_EvalFrameDefault that ran
# it, as a core's are merged. The truth is the script: its MARK- lines give
# each Python frame's function and line; 3.11 runs Python-to-Python calls in
# one eval frame, so level3 and level2 belong to the innermost eval frame and
# level1 and <module> (whose call went through C's map_next) to the next.
# py-bt alone after bt (no "#N" saying which eval frame) keeps every Python
# frame in order and says the placement could not be determined; py-bt
# alone is read most recent first, not backwards.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
[ -f "$TOP/libprovenance.a" ] || skip "libprovenance.a is not built"
command -v gdb >/dev/null || skip "gdb is not installed"
[ -x /usr/bin/python3.11 ] || skip "Debian's python3.11 is not installed"
GDBPY=/usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py
[ -f "$GDBPY" ] || skip "python3.11-dbg (gdb's py-bt) is not installed"
san=${SANITIZE:+-fsanitize=$SANITIZE -fno-omit-frame-pointer}
# shellcheck disable=SC2086 # $san and pkg-config output are word lists
${CC:-cc} -std=gnu11 -g -D_GNU_SOURCE $san $PROV_INC -o "$T/dump" "$TOP/tests/e2e/text-dump-tool.c" \
	"$TOP/libprovenance.a" $(pkg-config --libs libdw libelf libgit2 libarchive sqlite3 libcurl libdebuginfod capstone 2>/dev/null) \
	-lasm -lpthread -lstdc++ || fail "cannot build the text dump driver"
dump() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$T/dump" "$@"; }

cat >"$T/crash.py" <<'PYSRC'
import ctypes


def level3():
    return ctypes.string_at(0)  # MARK-level3


def level2(x):
    return level3()  # MARK-level2


def level1():
    return list(map(level2, [1]))  # MARK-level1


level1()  # MARK-module
PYSRC
(cd "$T" && timeout 300 gdb -batch -nx -ex 'set auto-load safe-path /' -ex "source $GDBPY" \
	-ex run -ex bt -ex py-bt -ex py-bt-full --args /usr/bin/python3.11 crash.py) >"$T/gdb.txt" 2>&1
grep -q '^Traceback (most recent call first):' "$T/gdb.txt" || { tail -5 "$T/gdb.txt"; skip "gdb printed no py-bt"; }
grep -q '^#[0-9]* Frame 0x' "$T/gdb.txt" || skip "gdb printed no py-bt-full"
mark() { grep -n "MARK-$1\$" "$T/crash.py" | cut -d: -f1; }
want="level3 $(mark level3) 1
level2 $(mark level2) 1
level1 $(mark level1) 2
<module> $(mark module) 2"

# the native frames alone: gdb's bt, cut before py-bt
sed '/^Traceback (most recent call first):/,$d' "$T/gdb.txt" >"$T/bt.txt"
dump "$T/bt.txt" | awk '/^  /{ print $3 }' >"$T/native.want"

# bt + py-bt + py-bt-full, bt + py-bt-full: placed by py-bt-full's "#N"
{ cat "$T/bt.txt"; sed -n '/^#[0-9]* Frame 0x/,$p' "$T/gdb.txt"; } >"$T/bt-full.txt"
for v in gdb bt-full; do
	dump "$T/$v.txt" >"$T/$v.dump" 2>&1 || fail "$v: the paste does not parse"
	awk '/^  / && $NF == "py=0" { print $3 }' "$T/$v.dump" >"$T/native.got"
	diff -u "$T/native.want" "$T/native.got" >"$T/diff" || { head -20 "$T/diff"; fail "$v: the native frames changed"; }
	got=$(python3 - "$T/$v.dump" "$T/crash.py" <<'EOF'
import sys
frames = [l.split() for l in open(sys.argv[1]) if l.startswith("  ")]
script = sys.argv[2]
out, nth_eval = [], 0
for i, f in enumerate(frames):
    if f[2] == "_PyEval_EvalFrameDefault" and f[-1] == "py=0":
        nth_eval += 1
    if f[-1] == "py=1" and f[4] == script:
        # the first native frame after it is the eval frame that ran it
        nxt = next(g for g in frames[i + 1:] if g[-1] == "py=0")
        assert nxt[2] == "_PyEval_EvalFrameDefault", (f, nxt)
        out.append("%s %s %d" % (f[2], f[5], nth_eval + 1))
print("\n".join(out))
EOF
	) || fail "$v: a Python frame is not right above an eval frame"
	check_eq "$got" "$want" "$v: Python frames, lines and their eval frame"
	check_match "$(head -3 "$T/$v.dump" | tr '\n' ' ')" "format gdb .*threads 1 crashed 0" "$v: one thread, crashed, read as gdb's"
done
# map_next (the C between level1 and level2) lies between their groups
check_match "$(awk '/^  /{ print $3 }' "$T/gdb.dump" | tr '\n' ' ')" "level2 _PyEval_EvalFrameDefault .* map_next .* level1 <module> _PyEval_EvalFrameDefault" \
	"map_next between the two eval groups"

# bt + py-bt: which eval frame ran each is not printed (two eval frames, four
# Python frames): none dropped, in order, and the report says so
{ cat "$T/bt.txt"; sed -n '/^Traceback (most recent call first):/,/^#[0-9]* Frame 0x/p' "$T/gdb.txt" | grep -v '^#'; } >"$T/bt-py.txt"
dump "$T/bt-py.txt" >"$T/bt-py.dump" 2>&1 || fail "bt + py-bt does not parse"
check_eq "$(awk '/^  / && $NF == "py=1" && $5 ~ /crash.py$/ { printf "%s ", $3 }' "$T/bt-py.dump")" "level3 level2 level1 <module> " \
	"bt + py-bt: the Python frames most recent first"
check_eq "$(awk '/^  / && $NF == "py=0"' "$T/bt-py.dump" | wc -l)" "$(wc -l <"$T/native.want")" "bt + py-bt: every native frame kept"
"$PROVENANCE" resolve "$T/bt-py.txt" --offline --format json >"$T/bt-py.json" 2>/dev/null
check_match "$(json_get "$T/bt-py.json" 'd["threads"][0].get("python_note")')" "could not be determined" \
	"bt + py-bt: the placement is said to be unknown"

# py-bt alone: most recent call first, as gdb printed it
sed -n '/^Traceback (most recent call first):/,/^#/p' "$T/gdb.txt" | grep -v '^#' >"$T/py-bt.txt"
dump "$T/py-bt.txt" >"$T/py-bt.dump" 2>&1 || fail "py-bt alone does not parse"
check_eq "$(awk '/^  / && $5 ~ /crash.py$/ { printf "%s:%s ", $3, $6 }' "$T/py-bt.dump")" \
	"level3:$(mark level3) level2:$(mark level2) level1:$(mark level1) <module>:$(mark module) " "py-bt alone: read most recent first"
