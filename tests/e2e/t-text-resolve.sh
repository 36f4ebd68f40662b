#!/usr/bin/env bash
# provenance resolve on pasted backtraces: a gdb backtrace and a Python
# faulthandler dump made here by crashing real programs, a committed ASan
# report, a log-prefixed copy, and prose (exit 2). Expected functions and
# lines come from the crashers' sources (grep -n of marked lines).
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
echo '#0  0x1 in f () at a.c:1' > "$T/probe.txt"
"$PROVENANCE" resolve "$T/probe.txt" --format json --offline >"$T/probe.json" 2>"$T/probe.err"
grep -q 'not built yet' "$T/probe.err" && skip "resolve is not built yet"
command -v gdb >/dev/null || skip "gdb is not installed"

resolve() {	# resolve INPUT OUT.json: must exit 0 or 1 (partial is fine offline)
	"$PROVENANCE" resolve "$1" --format json --offline >"$2" 2>"$T/err"
	local rc=$?
	[ $rc -le 1 ] || { cat "$T/err"; fail "resolve $1 exited $rc"; }
}

# 1. gdb: a crasher with a NULL store in a named function
cat > "$T/crash.c" <<'C'
#include <stdlib.h>
__attribute__((noinline)) void store(int *p, int v)
{
	*p = v;	/* CRASH */
}
int main(int argc, char **argv)
{
	(void)argv;
	store(argc > 5 ? &argc : NULL, 42);	/* CALL */
	return 0;
}
C
build_fixture "$T/crash.c" "$T/crash"
crash_line=$(grep -n 'CRASH' "$T/crash.c" | cut -d: -f1)
call_line=$(grep -n 'CALL' "$T/crash.c" | cut -d: -f1)
(cd "$T" && gdb -batch -ex run -ex bt -ex 'thread apply all bt' ./crash) >"$T/gdb.txt" 2>&1
grep -q '^#0 ' "$T/gdb.txt" || fail "gdb printed no backtrace: $(head -5 "$T/gdb.txt")"
resolve "$T/gdb.txt" "$T/gdb.json"
check_eq "$(json_get "$T/gdb.json" 'd["input"]["kind"]')" text "input kind"
check_eq "$(json_get "$T/gdb.json" 'd["signal"]["name"]')" SIGSEGV "gdb signal"
check_eq "$(json_get "$T/gdb.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][0]["function"]')" store "gdb frame 0 function"
check_eq "$(json_get "$T/gdb.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][0]["line"]')" "$crash_line" "gdb frame 0 line"
check_eq "$(json_get "$T/gdb.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][1]["function"]')" main "gdb frame 1 function"
check_eq "$(json_get "$T/gdb.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][1]["line"]')" "$call_line" "gdb frame 1 line"
check_eq "$(json_get "$T/gdb.json" 'len(d["threads"])')" 1 "bt + thread apply all bt: one thread"

# 2. the same backtrace with a timestamp before every line
sed 's/^/2024-05-01T12:00:00.123Z /' "$T/gdb.txt" > "$T/gdb-log.txt"
resolve "$T/gdb-log.txt" "$T/gdb-log.json"
check_eq "$(json_get "$T/gdb-log.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][0]["line"]')" "$crash_line" "prefixed frame 0 line"

# 3. Python faulthandler: most recent call first
cat > "$T/fh.py" <<'PY'
import ctypes
def boom():
    ctypes.string_at(0)  # BOOM
boom()  # TOP
PY
python3 -X faulthandler "$T/fh.py" 2>"$T/fh.txt"
grep -q 'Fatal Python error' "$T/fh.txt" || fail "python did not crash: $(head -3 "$T/fh.txt")"
boom_line=$(grep -n 'BOOM' "$T/fh.py" | cut -d: -f1)
resolve "$T/fh.txt" "$T/fh.json"
frames='[t for t in d["threads"] if t["crashed"]][0]["frames"]'
check_eq "$(json_get "$T/fh.json" "[f for f in $frames if f['function'] == 'boom'][0]['line']")" "$boom_line" "faulthandler boom line"
check_eq "$(json_get "$T/fh.json" "$frames[-1]['function']")" "<module>" "faulthandler outermost frame"
check_eq "$(json_get "$T/fh.json" 'd["signal"]["number"]')" 11 "faulthandler signal"

# 4. a committed ASan report: values read off the text itself
asan="$TOP/fixtures/text/asan/segv.txt"
resolve "$asan" "$T/asan.json"
want_fn=$(grep -m1 '#0 ' "$asan" | awk '{print $4}')
want_pc=$(grep -m1 '#0 ' "$asan" | awk '{print $2}')
check_eq "$(json_get "$T/asan.json" "$frames[0]['function']")" "$want_fn" "asan frame 0 function"
check_eq "$(json_get "$T/asan.json" "$frames[0]['pc']")" "$want_pc" "asan frame 0 pc"
check_eq "$(json_get "$T/asan.json" 'd["signal"]["address"]')" 0x0 "asan fault address"

# 5. prose only: bad input
check_exit 2 "prose" -- "$PROVENANCE" resolve "$TOP/fixtures/text/none/prose.txt" --format json --offline
grep -q 'holds no backtrace' "$T/last.err" || fail "message: $(cat "$T/last.err")"
echo "all text resolve checks passed"
