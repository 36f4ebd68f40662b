#!/usr/bin/env bash
# A gcore core of a live process (Debian's sleep) is a snapshot, not a
# crash: the signal is shown as the core records it (eu-readelf --notes),
# no thread is "crashed", no crash pattern. Control: the same program
# killed by SIGABRT is a crash.
. "$(dirname "$0")/lib.sh"
command -v gcore >/dev/null || skip "no gcore"
command -v eu-readelf >/dev/null || skip "no eu-readelf"
sleep_bin=$(command -v sleep)

"$sleep_bin" 30 &
pid=$!
sleep 0.3
gcore -o "$T/snap" "$pid" >/dev/null 2>&1
kill "$pid"; wait "$pid" 2>/dev/null
core=$T/snap.$pid
[ -s "$core" ] || skip "gcore could not attach (ptrace not permitted here?)"

eu-readelf --notes "$core" >"$T/notes"
signo=$(awk '/^ *si_signo:/{gsub(",", "", $2); print $2; exit}' "$T/notes")
cursig=$(awk '/cursig:/{for (i = 1; i <= NF; i++) if ($i == "cursig:") print $(i+1); exit}' "$T/notes")
note "the core's notes: NT_SIGINFO si_signo $signo, NT_PRSTATUS cursig $cursig"
[ "$cursig" = 0 ] || fail "gcore recorded cursig $cursig; expected 0"

check_exit 0 "analyze a gcore core" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/a.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/a.json" --kind core || fail "JSON contract"
check_eq "$(json_get "$T/a.json" 'd["input"]["snapshot"]')" true "input.snapshot"
check_eq "$(json_get "$T/a.json" 'd["crash"]["snapshot"]')" true "crash.snapshot"
check_eq "$(json_get "$T/a.json" 'd["crash"]["thread"]')" null "no crashing thread"
check_eq "$(json_get "$T/a.json" 'len(d["crash"]["patterns"])')" 0 "no crash pattern"
check_eq "$(json_get "$T/a.json" 'sum(t["crashed"] for t in d["threads"])')" 0 "no thread marked crashed"
if [ -n "$signo" ]; then
	check_eq "$(json_get "$T/a.json" 'd["signal"]["number"]')" "$signo" "signal as recorded (NT_SIGINFO)"
fi
"$PROVENANCE" analyze "$core" >"$T/a.txt" 2>/dev/null
grep -q "^crashing thread" "$T/a.txt" && fail "text report names a crashing thread"
grep -q "SNAPSHOT" "$T/a.txt" || fail "text report does not say snapshot"
"$PROVENANCE" resolve --offline "$core" --format markdown >"$T/a.md" 2>/dev/null
grep -Eq 'Coredump Analysis|Crashing thread|Crashing instruction' "$T/a.md" && { grep -Ei 'coredump|crashing' "$T/a.md"; fail "Markdown titles a snapshot as a crash"; }
grep -q '^## Snapshot Analysis' "$T/a.md" || fail "Markdown is not titled as a snapshot"
grep -q '^### Hang analysis' "$T/a.md" || fail "Markdown has no hang analysis"
check_eq "$(json_get "$T/a.json" 'len(d["hang"]["groups"])')" 1 "one thread, one stack group"
check_eq "$(json_get "$T/a.json" '[w["on"].split()[0] for w in d["hang"]["waits"]]')" '["sleep"]' "sleep waits in nanosleep"
echo "ok: text and Markdown reports say snapshot"

# control: a crash of the same program
can_dump_core
rm -f "$T"/core*
( cd "$T" && ulimit -c unlimited && exec "$sleep_bin" 30 ) >/dev/null 2>&1 &
pid=$!
sleep 0.3
kill -ABRT "$pid"; wait "$pid" 2>/dev/null
crash=$(ls -t "$T"/core* 2>/dev/null | head -1)
[ -n "$crash" ] || fail "no core from SIGABRT"
"$PROVENANCE" analyze "$crash" --format json >"$T/c.json" 2>/dev/null
check_eq "$(json_get "$T/c.json" 'd["input"]["snapshot"]')" false "a real crash is not a snapshot"
check_eq "$(json_get "$T/c.json" 'd["crash"]["thread"]')" "$pid" "a real crash names its thread"
exit 0
