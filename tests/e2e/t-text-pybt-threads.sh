#!/usr/bin/env bash
# gdb's `thread apply all py-bt` (and py-bt-full) as a ticket carries it: one
# block per thread, each after gdb's "Thread N (...)" header. Each block goes
# to the thread gdb printed it for (its number, else its LWP), the crashed
# thread's to the crashed thread; none stands as a thread of its own. Real
# gdb on Debian's python3.11 running a script whose worker thread sleeps in
# Python while the main thread crashes in C (ctypes.string_at(0)). The truth:
# gdb's own py-bt blocks (frames and the LWP of the header above them), the
# script's MARK- lines, gdb's "Thread N received signal" and its bt alone.
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
import threading
import time

ready = threading.Event()


def wait_here():
    ready.set()
    time.sleep(600)  # MARK-wait


def worker():
    wait_here()  # MARK-worker


def crash_now():
    return ctypes.string_at(0)  # MARK-crash


threading.Thread(target=worker, daemon=True).start()
ready.wait()
crash_now()  # MARK-module
PYSRC
(cd "$T" && timeout 300 gdb -batch -nx -ex 'set auto-load safe-path /' -ex "source $GDBPY" -ex run \
	-ex 'echo ==BT==\n' -ex 'thread apply all bt' -ex 'echo ==PYBT==\n' -ex 'thread apply all py-bt' \
	-ex 'echo ==PYBTFULL==\n' -ex 'thread apply all py-bt-full' --args /usr/bin/python3.11 crash.py) >"$T/gdb.txt" 2>&1
grep -q '^Traceback (most recent call first):' "$T/gdb.txt" || { tail -5 "$T/gdb.txt"; skip "gdb printed no py-bt"; }
grep -q '^#[0-9]* Frame 0x' "$T/gdb.txt" || skip "gdb printed no py-bt-full"
mark() { grep -n "MARK-$1\$" "$T/crash.py" | cut -d: -f1; }
sect() { sed -n "/^==$1==\$/,/^==$2==\$/p" "$T/gdb.txt" | grep -v '^=='; }
head_part=$(sed -n '1,/^==BT==$/p' "$T/gdb.txt" | grep -v '^==')
bt=$(sect BT PYBT)
pybt=$(sect PYBT PYBTFULL)
full=$(sed -n '/^==PYBTFULL==$/,$p' "$T/gdb.txt" | grep -v '^==')
printf '%s\n%s\n%s\n' "$head_part" "$bt" "$pybt" >"$T/bt-pybt.txt"
printf '%s\n%s\n%s\n' "$head_part" "$bt" "$full" >"$T/bt-full.txt"
printf '%s\n%s\n' "$head_part" "$pybt" >"$T/pybt.txt"
printf '%s\n%s\n' "$head_part" "$bt" >"$T/bt.txt"

# the truth from gdb: which LWP crashed, each header's LWP and its py-bt frames
crashed_num=$(sed -n 's/^Thread \([0-9]*\) .* received signal SIG.*/\1/p' "$T/gdb.txt" | head -1)
[ -n "$crashed_num" ] || fail "gdb printed no 'Thread N received signal'"
crashed_lwp=$(printf '%s\n' "$bt" | sed -n "s/^Thread $crashed_num (.*(LWP \\([0-9]*\\)).*/\\1/p")
printf '%s\n' "$pybt" | awk '
	/^Thread [0-9]+ \(/ { match($0, /\(LWP [0-9]+\)/); lwp = substr($0, RSTART + 5, RLENGTH - 6); next }
	/^  File "/ { f = $0; sub(/^  File "/, "", f); file = f; sub(/".*/, "", file)
		line = f; sub(/^[^"]*", line /, "", line); sub(/,.*/, "", line)
		fn = f; sub(/.*, in /, "", fn); print lwp, fn, file, line }' >"$T/want"
nthreads=$(printf '%s\n' "$bt" | grep -c '^Thread [0-9]* (')
[ "$nthreads" -ge 2 ] || fail "gdb printed $nthreads thread(s)"
[ "$(awk '{ print $1 }' "$T/want" | sort -u | wc -l)" -ge 2 ] || fail "py-bt printed blocks for fewer than 2 threads"
grep -q "wait_here $T/crash.py $(mark wait)\$" "$T/want" || fail "the worker's py-bt lacks wait_here:$(mark wait)"
grep -q "crash_now $T/crash.py $(mark crash)\$" "$T/want" || fail "the main thread's py-bt lacks crash_now:$(mark crash)"

# dump lines: "thread I crashed C cf X tid T name N frames K", "  IDX PC FUNC MODULE FILE LINE py=P"
pyframes() { awk '/^thread / { tid = $8 } /^  / && $NF == "py=1" { print tid, $3, $5, $6 }' "$1"; }
natframes() { awk '/^thread / { tid = $8 } /^  / && $NF == "py=0" { print tid, $3 }' "$1"; }
dump "$T/bt.txt" >"$T/bt.dump" 2>&1 || fail "bt alone does not parse"
natframes "$T/bt.dump" >"$T/native.want"
for v in bt-pybt bt-full pybt; do
	dump "$T/$v.txt" >"$T/$v.dump" 2>&1 || fail "$v: the paste does not parse"
	check_eq "$(sed -n 's/^threads \([0-9]*\) .*/\1/p' "$T/$v.dump")" "$nthreads" "$v: one thread per gdb thread"
	check_eq "$(awk '/^thread / && $4 == 1 { print $8 }' "$T/$v.dump")" "$crashed_lwp" \
		"$v: the crashed thread is gdb's thread $crashed_num"
	pyframes "$T/$v.dump" | sort -s -k1,1n >"$T/got"
	sort -s -k1,1n "$T/want" >"$T/want.sorted"
	diff -u "$T/want.sorted" "$T/got" >"$T/diff" || { head -30 "$T/diff"; fail "$v: Python frames not on their own thread, in gdb's order"; }
	echo "ok: $v: $(wc -l <"$T/got") Python frames each on the thread gdb printed them for"
	if [ "$v" != pybt ]; then
		natframes "$T/$v.dump" >"$T/native.got"
		diff -u "$T/native.want" "$T/native.got" >"$T/diff" || { head -20 "$T/diff"; fail "$v: the native frames changed"; }
	fi
done
# py-bt-full's "#N" places each Python frame right above the eval frame that ran it
awk '/^  / { print $3, $NF }' "$T/bt-full.dump" | awk '
	$2 == "py=1" { pend = 1; next }
	pend { if ($1 != "_PyEval_EvalFrameDefault") { print "after a Python frame: " $1; bad = 1 } pend = 0 }
	END { exit bad }' || fail "bt + py-bt-full: a Python frame is not right above an eval frame"
echo "ok: bt + py-bt-full: each Python frame right above its eval frame"
exit 0
