#!/usr/bin/env bash
# Several threads: the crashing (non-main) thread comes first and is marked;
# every thread is listed (vs eu-stack) and the blocked ones are in the
# functions the program parks them in.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb eu-unstrip eu-stack python3; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers
CHK="python3 $TOP/tests/e2e/analyze-check.py"

build_fixture "$F/threads.c" "$T/threads" -pthread
core=$(make_core "$T" ./threads) || exit 1
check_exit 0 "analyze" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/r.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "JSON contract"

$CHK threads "$T/r.json" "$core" || fail "threads differ from eu-stack"
check_eq "$(json_get "$T/r.json" 'len(d["threads"])')" 5 "thread count (main + 4)"
check_eq "$(json_get "$T/r.json" '[t["crashed"] for t in d["threads"]]')" \
	'[true, false, false, false, false]' "only the first thread is the crashing one"
check_eq "$(json_get "$T/r.json" 'd["crash"]["thread"] == d["threads"][0]["tid"] != d["process"]["pid"]')" \
	true "crash.thread is the crashing thread, not the main thread"
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["frames"][0]["function"]')" crasher "crashing thread frame 0"
check_eq "$(json_get "$T/r.json" 'all(t["registers"] and "rip" in t["registers"] for t in d["threads"])')" \
	true "registers for every thread"
for fn in waiter reader sleeper main; do
	check_eq "$(json_get "$T/r.json" "sum(1 for t in d['threads'] if any(f['function'] == '$fn' for f in t['frames']))")" \
		1 "one thread in $fn"
done
$CHK crashline "$T/r.json" "$F/threads.c" || fail "crash line"
$CHK gdb "$T/r.json" "$T/threads" "$core" "$F" || fail "frames differ from gdb"
$CHK modules "$T/r.json" "$core" || fail "modules differ from eu-unstrip"
