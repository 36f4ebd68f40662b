#!/usr/bin/env bash
# -O2 with an always_inline function on the crash path: the inlined function
# is an extra frame (inlined=true) before the real one, as eu-stack -i and
# gdb show it.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb eu-stack python3; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers
CHK="python3 $TOP/tests/e2e/analyze-check.py"

${CC:-cc} -g -O2 -o "$T/inline" "$F/inline.c" || fail "cannot build inline.c"
core=$(make_core "$T" ./inline) || exit 1
check_exit 0 "analyze" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/r.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "JSON contract"

check_eq "$(json_get "$T/r.json" '[(f["function"], f["inlined"]) for f in d["threads"][0]["frames"][:2]]')" \
	'[["checked_store", true], ["process", false]]' "inlined frame, then the real one"
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["frames"][0]["pc"] == d["threads"][0]["frames"][1]["pc"]')" \
	true "inlined frame shares the real frame's pc"
# eu-stack -i agrees that checked_store is inlined into process
eu-stack -i --core="$core" -e "$T/inline" 2>/dev/null | grep -A1 -E '#[0-9]+ .*checked_store' | head -2 > "$T/eu"
grep -q checked_store "$T/eu" || fail "eu-stack -i shows no checked_store frame"
$CHK crashline "$T/r.json" "$F/inline.c" || fail "crash line"
line=$(grep -n 'checked_store(slot, v)' "$F/inline.c" | cut -d: -f1)
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["frames"][1]["line"]')" "$line" "process frame at the call site"
$CHK gdb "$T/r.json" "$T/inline" "$core" "$F" || fail "frames differ from gdb"
