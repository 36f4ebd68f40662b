#!/usr/bin/env bash
# make demo ends with a crash store and a triage: fixtures/demo/store-demo.sh
# records the demo's core as from node01, node07 and node11 and a second
# crasher (abort.c) as from node03 and node11. The triage must show what the
# script recorded: 5 crashes, 4 hosts, 2 signatures, 3 + 2, SIGSEGV in the
# demo library's name_length (grep of the demo source) and SIGABRT.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v chroot >/dev/null || skip "no chroot"
[ "$(id -u)" = 0 ] || unshare -r true 2>/dev/null || skip "needs root or user namespaces for chroot"

DEMO_OUT="$T/demo" "$TOP/fixtures/demo/run-demo.sh" >"$T/demo.out" 2>"$T/demo.err"
rc=$?
[ $rc = 0 ] || { tail -20 "$T/demo.err"; fail "make demo exited $rc"; }
out=$(cat "$T/demo.out")
check_match "$out" "\*\*5 crashes\*\* on 4 hosts, 2 signatures, 40 runs" "triage totals"
# the function that dereferences the NULL greeter, from the demo library's source
fn=$(grep -o 'static int [a-z_]*(const struct greeter \*g)' "$TOP/fixtures/demo/upstream/src/greet.c" | sed 's/static int \([a-z_]*\)(.*/\1/')
[ -n "$fn" ] || fail "cannot find the crashing function in the demo source"
check_match "$out" "## 1\. \`11\|$fn\|" "largest group: the demo's SIGSEGV in $fn"
check_match "$out" "\*\*3 crashes\*\* \(60\.0% of all\) on 3 hosts" "the demo crash: 3 on 3 hosts"
check_match "$out" "first seen 2026-10-02T09:14:00Z, last seen 2026-10-11T08:05:00Z" "first and last seen (the --time values given)"
check_match "$out" "repro rate 7\.5%\*\* \(3 of 40 runs\)" "repro rate 3/40"
check_match "$out" "## 2\. \`6\|" "second group: SIGABRT"
check_match "$out" "\*\*2 crashes\*\* \(40\.0% of all\) on 2 hosts" "the abort: 2 on 2 hosts"
check_match "$(cat "$T/demo.err")" "seen 2 times on 2 hosts since 2026-10-02; last with the same component versions: 2026-10-05T22:40:00Z on node07" "resolve --store history line"
