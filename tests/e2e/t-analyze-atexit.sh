#!/usr/bin/env bash
# A crash inside an atexit handler: crash.context is "exit".
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb python3; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers
CHK="python3 $TOP/tests/e2e/analyze-check.py"

build_fixture "$F/atexit.c" "$T/atexit"
core=$(make_core "$T" ./atexit) || exit 1
check_exit 0 "analyze" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/r.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "JSON contract"
check_eq "$(json_get "$T/r.json" 'd["crash"]["context"]')" exit "crash context"
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["frames"][0]["function"]')" flush_registry "frame 0"
$CHK crashline "$T/r.json" "$F/atexit.c" || fail "crash line"
$CHK gdb "$T/r.json" "$T/atexit" "$core" "$F" || fail "frames differ from gdb"
