#!/bin/bash
# analyze --pid / resolve --pid on a running Python with threads: the same
# Python frames (and native function names) as a gcore core of the same
# process, every expected frame from the script's MARK- comments, and the
# process still running, untraced and with no signal left pending.
. "$(dirname "$0")/lib.sh"
# a libdw leak on python3.11-dbg's DWARF (see the file) must not fail ASan runs
export LSAN_OPTIONS="suppressions=$TOP/tests/e2e/lsan-libdw.supp:print_suppressions=0:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
command -v gcore >/dev/null || skip "no gcore (gdb)"
py=$(command -v python3) || skip "no python3"
SCRIPT=$TOP/fixtures/crashers/python-threads.py
CHECK=$TOP/tests/e2e/python-frames-check.py
cp "$SCRIPT" "$T/park.py"

"$py" "$T/park.py" sleep >"$T/py.out" 2>&1 &
PID=$!
trap 'kill -9 $PID 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 100); do grep -q ready "$T/py.out" && break; sleep 0.1; done
grep -q ready "$T/py.out" || fail "the Python process did not start"
sleep 0.5	# every thread reaches its wait

state() {	# what must not change: threads, their states, tracer, pending signals
	local t
	for t in $(ls /proc/$PID/task | sort -n); do
		grep -E '^(State|TracerPid|SigPnd|ShdPnd):' /proc/$PID/task/$t/status | tr -s '\t ' ' ' |
			sed "s/^/$t /"
	done
}
before=$(state)
check_exit 0 "analyze --pid" -- "$PROVENANCE" analyze --pid $PID --format json
cp "$T/last.out" "$T/live.json"
python3 "$CHECK" "$T/live.json" "$T/park.py" park || fail "Python frames of the live process"
check_eq "$(json_get "$T/live.json" 'd["input"]["format"]')" process "input format"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/live.json" || fail "JSON contract of the live report"
after=$(state)
check_eq "$after" "$before" "threads, states, tracer and pending signals after the snapshot"

# the same process as a core, by gdb's gcore
timeout 300 gcore -o "$T/gcore" $PID >/dev/null 2>&1 || fail "gcore failed"
check_exit 0 "analyze the gcore core" -- "$PROVENANCE" analyze --format json "$T/gcore.$PID"
cp "$T/last.out" "$T/core.json"
python3 - "$T/live.json" "$T/core.json" <<'PY' || fail "live and core differ"
import json, sys
live, core = (json.load(open(p)) for p in sys.argv[1:3])
def frames(d):
    return {t["tid"]: [(f["language"], f["function"], f["file"] if f["language"] == "python" else None,
                        f["line"] if f["language"] == "python" else None) for f in t["frames"]]
            for t in d["threads"]}
a, b = frames(live), frames(core)
if a != b:
    for tid in sorted(set(a) | set(b)):
        if a.get(tid) != b.get(tid):
            print("thread", tid, "\n live:", a.get(tid), "\n core:", b.get(tid))
    sys.exit(1)
print("ok: %d threads, %d Python frames, the same live and in the core" %
      (len(a), sum(f[0] == "python" for fr in a.values() for f in fr)))
PY
check_eq "$(state)" "$before" "state after gcore too"

# 1: done but incomplete (the test's own script belongs to no package)
"$PROVENANCE" resolve --pid $PID --offline --format markdown >"$T/last.out" 2>"$T/last.err"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$T/last.err"; fail "resolve --pid: exit $rc"; }
check_match "$(cat "$T/last.out")" "\| #[0-9]+ \(Python\) \| \`level2\` \|" "Markdown call chain with Python frames"
kill -0 $PID || fail "the process died"

# one analyze stage: resolve --pid disassembles as analyze --pid does (the
# threads are parked in the same wait: the same instructions, or the same
# reason why there are none)
"$PROVENANCE" resolve --pid $PID --offline --format json >"$T/resolve.json" 2>"$T/last.err"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$T/last.err"; fail "resolve --pid --format json: exit $rc"; }
python3 - "$T/live.json" "$T/resolve.json" <<'PY' || fail "resolve --pid and analyze --pid disassemble differently"
import json, sys
a, r = (json.load(open(p)) for p in sys.argv[1:3])
da = (a["instructions"], a["instructions_note"])
dr = (r["instructions"], r["instructions_note"])
if not da[0] and not da[1]:
    sys.exit("analyze --pid: neither instructions nor a note why there are none")
if da != dr:
    sys.exit("analyze --pid: %r\nresolve --pid: %r" % (da, dr))
print("ok: the same disassembly from analyze --pid and resolve --pid: %r" % (da,))
PY
kill -0 $PID || fail "the process died"

# analyze --pid sets debuginfod up as resolve --pid does: its client cache
# under the provenance cache, not ~/.cache (a closed port: no network). A
# stripped sleep(1) makes libdwfl ask debuginfod for its debug info.
sleep 60 &
SLEEP=$!
mkdir -p "$T/dh"
env -u XDG_CACHE_HOME -u DEBUGINFOD_CACHE_PATH HOME="$T/dh" PROVENANCE_CACHE="$T/dc" \
	DEBUGINFOD_URLS=http://127.0.0.1:1/ "$PROVENANCE" analyze --pid $SLEEP >/dev/null 2>&1
kill $SLEEP
[ ! -e "$T/dh/.cache/debuginfod_client" ] || fail "analyze --pid: debuginfod kept its files in ~/.cache"
if [ -d "$T/dc/debuginfod" ]; then
	echo "ok: analyze --pid: debuginfod's cache under the provenance cache"
else
	echo "note: no module needed debuginfod here: its cache location not checked"
fi
kill -0 $PID || fail "the process died"

# a process that cannot be attached: one line, exit 2
if [ "$(id -u)" = 0 ]; then
	check_exit 2 "analyze --pid as another user" -- setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME=/nonexistent XDG_CONFIG_HOME=/nonexistent XDG_CACHE_HOME=/nonexistent \
		PROVENANCE_CACHE=/nonexistent/cache "$PROVENANCE" analyze --pid $PID
else
	check_exit 2 "analyze --pid 1" -- "$PROVENANCE" analyze --pid 1
fi
check_match "$(cat "$T/last.err")" "^provenance: cannot attach to process [0-9]+" "attach error"
check_eq "$(wc -l <"$T/last.err")" 1 "one line"
check_exit 2 "analyze --pid of no process" -- "$PROVENANCE" analyze --pid 2147483647
check_exit 64 "analyze --pid with a core" -- "$PROVENANCE" analyze --pid $PID core
kill -0 $PID || fail "the process died"
check_eq "$(state)" "$before" "state at the end"
