#!/usr/bin/env bash
# abort(): SIGABRT with si_code SI_TKILL, no fault address, the sender is the
# process itself; frames vs gdb; the CRASH HERE line.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb eu-unstrip eu-stack python3; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers
CHK="python3 $TOP/tests/e2e/analyze-check.py"

build_fixture "$F/abort.c" "$T/abort"
core=$(make_core "$T" ./abort) || exit 1
check_exit 0 "analyze" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/r.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "JSON contract"

check_eq "$(json_get "$T/r.json" 'd["signal"]["number"]')" 6 "signal number"
check_eq "$(json_get "$T/r.json" 'd["signal"]["name"]')" SIGABRT "signal name"
check_eq "$(json_get "$T/r.json" 'd["signal"]["code"]')" -6 "si_code (SI_TKILL)"
check_eq "$(json_get "$T/r.json" 'd["signal"]["code_name"]')" SI_TKILL "si_code name"
check_eq "$(json_get "$T/r.json" 'd["signal"]["address"]')" null "no fault address for SI_TKILL"
if [ "$(json_get "$T/r.json" '"sender_pid" in d["signal"]')" = true ]; then
	check_eq "$(json_get "$T/r.json" 'd["signal"]["sender_pid"] == d["process"]["pid"]')" true "sender is the process"
fi
$CHK crashline "$T/r.json" "$F/abort.c" || fail "crash line"
$CHK gdb "$T/r.json" "$T/abort" "$core" "$F" || fail "frames differ from gdb"
$CHK modules "$T/r.json" "$core" || fail "modules differ from eu-unstrip"
