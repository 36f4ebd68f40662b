#!/usr/bin/env bash
# Several inputs: the same crash twice is one report with "deterministic";
# two different crashes are two reports and "non-deterministic: 1 of 2"; an
# unreadable input among them is reported and makes the exit code 2.
. "$(dirname "$0")/lib.sh"
can_dump_core
C=$TOP/fixtures/crashers
mkdir -p "$T/a" "$T/b" "$T/c"
build_fixture "$C/badcall.c" "$T/a/prog"
cp "$T/a/prog" "$T/b/prog"
build_fixture "$C/noncanon.c" "$T/c/prog"
ca=$(make_core "$T/a" ./prog)
cb=$(make_core "$T/b" ./prog)
cc=$(make_core "$T/c" ./prog)

"$PROVENANCE" resolve "$ca" "$cb" --offline --format json >"$T/same.json" 2>/dev/null
check_eq "$(json_get "$T/same.json" 'len(d)')" 2 "two inputs, two JSON reports"
check_match "$(json_get "$T/same.json" 'd[0]["determinism"]')" "^deterministic: all 2" "same crash twice"
"$PROVENANCE" resolve "$ca" "$cb" --offline --format markdown >"$T/same.md" 2>/dev/null
check_eq "$(grep -c '^## Coredump Analysis' "$T/same.md")" 1 "the same crash twice: one markdown report"
grep -q "^\*\*Inputs:\*\* $ca, $cb" "$T/same.md" || fail "the summary does not list both inputs"

"$PROVENANCE" resolve "$ca" "$cc" --offline --format markdown >"$T/diff.md" 2>/dev/null
check_eq "$(grep -c '^## Coredump Analysis' "$T/diff.md")" 2 "two different crashes: two reports"
grep -q "non-deterministic: 1 of 2 inputs (50%)" "$T/diff.md" || fail "no non-deterministic line"

: >"$T/empty"
check_exit 2 "an empty input among good ones" -- "$PROVENANCE" resolve "$ca" "$T/empty" --offline
grep -q "'$T/empty' is empty" "$T/last.err" || fail "the empty input is not named: $(cat "$T/last.err")"
grep -q "^## \|^core: " "$T/last.out" || fail "the good input's report is missing"
echo "ok: the good input is still reported"
