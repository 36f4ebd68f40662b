#!/bin/bash
# Hang analysis of snapshots (issue 23): an ABBA deadlock in C, gcore'd and
# read live with --pid, must name both threads in one deadlock cycle, with
# each mutex's owner as gdb reads it (__data.__owner); 8 identical idle
# workers form one group of 8; a Python ABBA on threading.Lock waits on lock
# acquire (CPython records no owner: null) with both workers in one group.
# test: slow
. "$(dirname "$0")/lib.sh"
export LSAN_OPTIONS="suppressions=$TOP/tests/e2e/lsan-libdw.supp:print_suppressions=0:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
command -v gdb >/dev/null || skip "no gdb"
F=$TOP/fixtures/hang
build_fixture "$F/abba.c" "$T/abba" -g -O0 -pthread
build_fixture "$F/idle.c" "$T/idle" -g -O0 -pthread
PIDS=
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT

start() {	# start NAME CMD...: run CMD until it prints ready; PID set
	local name=$1; shift
	"$@" >"$T/$name.out" 2>&1 &
	PID=$!
	PIDS="$PIDS $PID"
	for i in $(seq 100); do grep -q ready "$T/$name.out" && break; sleep 0.1; done
	grep -q ready "$T/$name.out" || fail "$name did not start"
	sleep 0.5	# every thread reaches its wait
}

# --- C ABBA: truth from gdb, then gcore
start abba "$T/abba"
gdb -q -batch -p "$PID" -ex 'info threads' -ex 'thread apply all bt' \
	-ex 'p ((int*)&m1)[2]' -ex 'p ((int*)&m2)[2]' -ex "gcore $T/abba.core" >"$T/gdb.txt" 2>&1
[ -s "$T/abba.core" ] || skip "gdb could not attach (ptrace not permitted here?)"
o1=$(sed -n 's/^\$1 = //p' "$T/gdb.txt"); o2=$(sed -n 's/^\$2 = //p' "$T/gdb.txt")
# the LWP of the thread whose backtrace shows FUNC
lwp_of() { awk -v f="$1" '/^Thread .*LWP/{match($0, /LWP [0-9]+/); l=substr($0, RSTART+4, RLENGTH-4)} $0 ~ " in "f" \\(|^#[0-9]+ +"f" \\(" {print l; exit}' "$T/gdb.txt"; }
t1=$(lwp_of t1); t2=$(lwp_of t2)
note "gdb: m1 owned by $o1, m2 owned by $o2; t1 is LWP $t1, t2 is LWP $t2"
[ -n "$o1" ] && [ -n "$o2" ] && [ -n "$t1" ] && [ -n "$t2" ] || fail "cannot read the truth from gdb"
check_eq "$o1 $o2" "$t1 $t2" "gdb: each thread holds its first lock"

check_hang() {	# check_hang JSON WHAT
	python3 "$TOP/tests/e2e/check-json-contract.py" "$1" --kind core || fail "$2: JSON contract"
	check_eq "$(json_get "$1" 'd["crash"]["snapshot"]')" true "$2: crash.snapshot"
	check_eq "$(json_get "$1" 'd["crash"]["thread"]')" null "$2: no crashing thread"
	check_eq "$(json_get "$1" 'sorted(sorted(c) for c in d["hang"]["deadlocks"])')" \
		"$(python3 -c "print([sorted([$t1, $t2])])")" "$2: the deadlock cycle names both threads"
	# t1 waits on m2 (owner o2), t2 on m1 (owner o1)
	check_eq "$(json_get "$1" '[w["owner"] for w in d["hang"]["waits"] if w["thread"] == '"$t1"']')" "[$o2]" "$2: t1 waits for m2's owner"
	check_eq "$(json_get "$1" '[w["owner"] for w in d["hang"]["waits"] if w["thread"] == '"$t2"']')" "[$o1]" "$2: t2 waits for m1's owner"
	check_eq "$(json_get "$1" '[w["on"].split()[0] for w in d["hang"]["waits"] if w["thread"] == '"$t1"']')" '["mutex"]' "$2: t1 waits on a mutex"
}
check_exit 0 "analyze the gcore core" -- "$PROVENANCE" analyze "$T/abba.core" --format json
cp "$T/last.out" "$T/core.json"
check_hang "$T/core.json" "gcore"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/core.json" || fail "schema"
check_exit 0 "analyze --pid" -- "$PROVENANCE" analyze --pid "$PID" --format json
cp "$T/last.out" "$T/pid.json"
check_hang "$T/pid.json" "--pid"
"$PROVENANCE" analyze "$T/abba.core" >"$T/abba.txt" 2>/dev/null
grep -Eq "^ *deadlock: thread ($t1 -> $t2|$t2 -> $t1)" "$T/abba.txt" || { cat "$T/abba.txt"; fail "text names no deadlock"; }
grep -q "Crashing" "$T/abba.txt" && fail "text report titles a snapshot as a crash"
"$PROVENANCE" resolve --offline "$T/abba.core" --format markdown >"$T/abba.md" 2>/dev/null
grep -Eq 'Coredump Analysis|Crashing thread|Crashing instruction' "$T/abba.md" && fail "Markdown titles a snapshot as a crash"
grep -q '^### Hang analysis' "$T/abba.md" || fail "Markdown has no hang analysis"
grep -Eq "deadlock: thread ($t1 -> $t2|$t2 -> $t1)" "$T/abba.md" || fail "Markdown names no deadlock"
# the runbook's template ends every report with the fix status and next steps
grep -q '^### Upstream fix status' "$T/abba.md" || fail "Markdown snapshot has no upstream fix status"
sed -n '/^### Recommended next steps/,$p' "$T/abba.md" | grep -q 'lock' || fail "Markdown snapshot recommends nothing for the deadlock"
echo "ok: text and Markdown show the deadlock"

# --- 8 identical idle workers: one group of 8 (gdb counts the workers)
start idle "$T/idle"
nworkers=$(gdb -q -batch -p "$PID" -ex 'thread apply all bt' 2>/dev/null | grep -c ' worker (')
check_eq "$nworkers" 8 "gdb: 8 threads in worker"
check_exit 0 "analyze --pid (idle workers)" -- "$PROVENANCE" analyze --pid "$PID" --format json
cp "$T/last.out" "$T/idle.json"
check_eq "$(json_get "$T/idle.json" 'len(d["hang"]["groups"][0]["threads"])')" 8 "the largest group has the 8 workers"
check_eq "$(json_get "$T/idle.json" 'sorted(set(w["on"].split()[0] for w in d["hang"]["waits"] if w["thread"] in d["hang"]["groups"][0]["threads"]))')" '["condvar"]' "the workers wait on a condvar"
check_eq "$(json_get "$T/idle.json" 'd["hang"]["deadlocks"]')" "[]" "no deadlock among idle workers"

# --- Python ABBA on threading.Lock
py=$(command -v python3) || { echo "no python3: Python part not run"; exit 0; }
start pyabba "$py" "$F/abba.py"
check_exit 0 "analyze --pid (Python)" -- "$PROVENANCE" analyze --pid "$PID" --format json
cp "$T/last.out" "$T/py.json"
# truth: each thread's name (prctl in the script) from /proc, not from provenance
for tid in $(ls /proc/"$PID"/task); do
	echo "$tid $(cat /proc/"$PID"/task/"$tid"/comm)"
done | sort -n >"$T/comm.txt"
cat "$T/comm.txt"
abba=$(awk '$2 == "abba" {printf "%s ", $1}' "$T/comm.txt")
check_eq "$(json_get "$T/py.json" '" ".join(str(t) for t in sorted(d["hang"]["groups"][0]["threads"])) + " "')" "$abba" "both ABBA workers in one group"
for tid in $abba; do
	check_eq "$(json_get "$T/py.json" '[[w["on"], w["owner"]] for w in d["hang"]["waits"] if w["thread"] == '"$tid"']')" \
		'[["python-lock-acquire", null]]' "thread $tid waits on Lock.acquire, owner unknown"
done
want() {	# want NAME KIND
	local tid
	tid=$(awk -v n="$1" '$2 == n {print $1}' "$T/comm.txt")
	check_eq "$(json_get "$T/py.json" '[w["on"] for w in d["hang"]["waits"] if w["thread"] == '"$tid"']')" "[\"$2\"]" "thread $1 ($tid) waits on $2"
}
want getter python-queue-get
want event python-event-wait
want main python-thread-join
check_eq "$(json_get "$T/py.json" 'd["hang"]["deadlocks"]')" "[]" "no deadlock claimed without Lock owners"
exit 0
