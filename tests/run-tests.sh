#!/usr/bin/env bash
# Run every test: cmocka unit binaries (tests/unit/test-*) and end-to-end
# scripts (tests/e2e/t-*.sh). A script passes with exit 0, is skipped with 77
# (it must print why), fails otherwise. Prints one summary line at the end.
#   tests/run-tests.sh [--unit|--e2e] [NAME-PATTERN]
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
mode=all
case "${1:-}" in --unit) mode=unit; shift ;; --e2e) mode=e2e; shift ;; esac
pattern=${1:-}

export PROVENANCE="$top/provenance"
export TOP="$top"
out="$top/tests/out"
mkdir -p "$out/unit" "$out/e2e"

pass=0 fail=0 skip=0
failed=()

run_one() {
	local name=$1; shift
	local log="$out/$name.log" rc
	local t0=$(date +%s.%N)
	"$@" >"$log" 2>&1
	rc=$?
	local dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
	case $rc in
	0) pass=$((pass+1)); printf 'ok      %-40s %5ss\n' "$name" "$dt" ;;
	77) skip=$((skip+1)); printf 'skip    %-40s %s\n' "$name" "$(grep -m1 -i 'skip' "$log" | cut -c1-100)" ;;
	*) fail=$((fail+1)); failed+=("$name"); printf 'FAIL    %-40s (exit %d)\n' "$name" "$rc"; sed 's/^/    | /' "$log" | tail -40 ;;
	esac
}

if [ "$mode" != e2e ]; then
	for t in tests/unit/test-*; do
		case "$t" in *.c|*.d|*.o) continue ;; esac
		[ -x "$t" ] || continue
		name=unit/$(basename "$t")
		[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
		run_one "$name" "$t"
	done
fi
if [ "$mode" != unit ]; then
	for t in tests/e2e/t-*.sh; do
		[ -f "$t" ] || continue
		name=e2e/$(basename "$t" .sh)
		[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
		run_one "$name" bash "$t"
	done
fi

echo
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
