#!/usr/bin/env bash
# NULL dereference inside a shared library: signal, frames vs gdb, the
# CRASH HERE line, modules and build IDs vs eu-unstrip, threads vs eu-stack,
# the JSON contract, options before or after CORE.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb eu-unstrip eu-stack python3; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers
CHK="python3 $TOP/tests/e2e/analyze-check.py"

${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -o "$T/libnull.so" "$F/libnull.c" || fail "cannot build libnull.so"
build_fixture "$F/nullmain.c" "$T/nullmain" "$T/libnull.so" -Wl,-rpath,"$T"
core=$(make_core "$T" ./nullmain) || exit 1

check_exit 0 "analyze --format json CORE" -- "$PROVENANCE" analyze --format json "$core"
cp "$T/last.out" "$T/r.json"
check_exit 0 "analyze CORE --format json" -- "$PROVENANCE" analyze "$core" --format json
cmp -s "$T/last.out" "$T/r.json" || fail "options after CORE give a different report"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "JSON contract"

check_eq "$(json_get "$T/r.json" 'd["signal"]["number"]')" 11 "signal number"
check_eq "$(json_get "$T/r.json" 'd["signal"]["name"]')" SIGSEGV "signal name"
check_eq "$(json_get "$T/r.json" 'd["signal"]["code"]')" 1 "si_code"
check_eq "$(json_get "$T/r.json" 'd["signal"]["code_name"]')" SEGV_MAPERR "si_code name"
check_eq "$(json_get "$T/r.json" 'd["signal"]["address"]')" 0x0 "fault address (NULL)"
check_eq "$(json_get "$T/r.json" 'd["crash"]["context"]')" runtime "crash context"
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["crashed"]')" true "crashing thread first"
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["tid"] == d["process"]["pid"] == d["crash"]["thread"]')" \
	true "single thread: tid = pid = crash.thread"
check_match "$(json_get "$T/r.json" 'd["process"]["executable"]')" '/nullmain$' "executable (NT_FILE path)"
check_eq "$(json_get "$T/r.json" 'd["process"]["cmdline"]')" ./nullmain "command line"
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["frames"][0]["function"]')" lib_read_value "frame 0 function"
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["frames"][0]["module"]')" "$T/libnull.so" "frame 0 module (recorded path)"
# rip of the crashed thread = pc of frame 0 (both from the core)
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["registers"]["rip"] == d["threads"][0]["frames"][0]["pc"]')" \
	true "rip = frame 0 pc"
check_eq "$(json_get "$T/r.json" 'sorted(m["path"] for m in d["modules"] if m["path"].endswith("libnull.so"))')" \
	"[\"$T/libnull.so\"]" "library module path"

$CHK crashline "$T/r.json" "$F/libnull.c" || fail "crash line"
$CHK gdb "$T/r.json" "$T/nullmain" "$core" "$F" || fail "frames differ from gdb"
$CHK modules "$T/r.json" "$core" || fail "modules differ from eu-unstrip"
$CHK threads "$T/r.json" "$core" || fail "threads differ from eu-stack"

# the text report names the function and the line too
check_exit 0 "analyze (text)" -- "$PROVENANCE" analyze "$core"
line=$(grep -n 'CRASH HERE' "$F/libnull.c" | cut -d: -f1)
grep -q "lib_read_value.*libnull.c:$line" "$T/last.out" || fail "text report lacks lib_read_value at libnull.c:$line"
echo "ok: text report"
