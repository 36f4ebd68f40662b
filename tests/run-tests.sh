#!/usr/bin/env bash
# Run every test: cmocka unit binaries (tests/unit/test-*) and end-to-end
# scripts (tests/e2e/t-*.sh). A script passes with exit 0, is skipped with 77
# (it must print why), fails otherwise. Prints one summary line at the end.
#   tests/run-tests.sh [-j N] [--unit|--e2e] [NAME-PATTERN]
# Tests run N at a time (default: PROVENANCE_TEST_JOBS, else CPUs + 1: most
# e2e tests wait on child processes, servers and git). Every test has its own
# temporary directory, cache and config (tests/e2e/lib.sh). A script that
# changes machine-wide state (core_pattern) says so with a line
# "# test: alone"; it runs by itself after all the others, so no other test
# sees the state it sets. Across runners on one machine (two clones, the plain
# and the sanitizer pass side by side) a lock file says the same: every runner
# holds it shared while its ordinary tests run and exclusively for its alone
# tests, so no runner's core-making test runs beside another's core_pattern.
# Longest first, so no long test starts last while the other slots sit idle:
# the order is the seconds each test took on its last run here, kept in
# tests/.durations (make clean keeps it: CI's sanitizer pass uses the plain
# pass's figures), then, for a test never timed, a line "# test: slow" (on
# those measured over about 100 s), then the name.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
mode=all
jobs=${PROVENANCE_TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
while [ $# -gt 0 ]; do
	case "$1" in
	--unit) mode=unit; shift ;;
	--e2e) mode=e2e; shift ;;
	-j) jobs=${2:?-j needs a number}; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	*) break ;;
	esac
done
pattern=${1:-}
case "$jobs" in '' | *[!0-9]* | 0) echo "run-tests: -j wants a positive number, not '$jobs'" >&2; exit 64 ;; esac

export PROVENANCE="$top/provenance"
export TOP="$top"
out="$top/tests/out"
mkdir -p "$out/unit" "$out/e2e"
# python3 on PATH may be a version manager's shim, not the interpreter:
# pyenv's is a bash script that runs `pyenv exec`, about 70 processes and
# 0.7 s of CPU a call, and the tests call python3 thousands of times. They
# get the interpreter the shim resolves to, found once here, by the same
# name first on PATH (a symlink, so it is the same python3 and packages).
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$py" ] && [ -x "$py" ] && [ "$(head -c 2 "$(command -v python3)")" = "#!" ]; then
	mkdir -p "$out/bin" && ln -sfn "$py" "$out/bin/python3" && export PATH="$out/bin:$PATH"
fi

pass=0 fail=0 skip=0
failed=()
declare -A running=()
# seconds each test took on its last run: "NAME SECONDS" lines
durations="$top/tests/.durations"
declare -A took=()
if [ -f "$durations" ]; then
	while read -r n s; do
		case "$s" in '' | *[!0-9.]*) continue ;; esac
		took[$n]=$s
	done <"$durations"
fi

# run_one NAME CMD...: run in the background; the result goes to NAME.res
run_one() {
	local name=$1; shift
	local log="$out/$name.log" res="$out/$name.res"
	rm -f "$res"
	(
		t0=$(date +%s.%N)
		"$@" >"$log" 2>&1 </dev/null 3<&- 9>&-
		rc=$?
		# the CPU seconds (user + system) of the test and all it waited for:
		# what a loaded CI machine pays for it, whatever the slots
		times >"$res.cpu"
		cpu=$(awk 'NR == 2 { n = split($1 " " $2, v, /[ ms]+/); t = 0; for (i = 1; i < n; i += 2) t += v[i] * 60 + v[i + 1]; printf "%.1f", t }' "$res.cpu")
		rm -f "$res.cpu"
		printf '%d %s %s\n' "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')" "${cpu:-?}" >"$res"
	) &
	running[$!]=$name
}

# report NAME: print the line for a finished test and count it
report() {
	local name=$1 log="$out/$1.log" rc=1 dt=? cpu=?
	[ -s "$out/$name.res" ] && read -r rc dt cpu <"$out/$name.res"
	[ "$dt" != "?" ] && took[$name]=$dt
	case $rc in
	0) pass=$((pass+1)); printf 'ok      %-40s %5ss  cpu %ss\n' "$name" "$dt" "$cpu" ;;
	77) skip=$((skip+1)); printf 'skip    %-40s %s\n' "$name" "$(grep -m1 -i 'skip' "$log" | cut -c1-100)" ;;
	*) fail=$((fail+1)); failed+=("$name"); printf 'FAIL    %-40s (exit %d)\n' "$name" "$rc"; sed 's/^/    | /' "$log" | tail -40 ;;
	esac
}

# reap: wait for one running test and report it
reap() {
	local pid
	wait -n -p pid "${!running[@]}"
	report "${running[$pid]}"
	unset "running[$pid]"
}

# start NAME CMD...: start when a slot is free
start() {
	while [ ${#running[@]} -ge "$jobs" ]; do reap; done
	run_one "$@"
}

drain() { while [ ${#running[@]} -gt 0 ]; do reap; done; }

# queue NAME FILE: one line "SECONDS NAME FILE" for the sort below
queue() {
	local s=${took[$1]:-}
	if [ -z "$s" ]; then
		s=0
		grep -Eq '^(# |/\* )test: slow' "$2" 2>/dev/null && s=100
	fi
	printf '%s %s %s\n' "$s" "$1" "$2"
}
alone=()
todo=()
if [ "$mode" != e2e ]; then
	for t in tests/unit/test-*; do
		case "$t" in *.c|*.d|*.o) continue ;; esac
		[ -x "$t" ] || continue
		name=unit/$(basename "$t")
		[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
		todo+=("$(queue "$name" "$t.c")")
	done
fi
if [ "$mode" != unit ]; then
	for t in tests/e2e/t-*.sh; do
		[ -f "$t" ] || continue
		name=e2e/$(basename "$t" .sh)
		[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
		if grep -q '^# test: alone' "$t"; then
			alone+=("$t")
			continue
		fi
		todo+=("$(queue "$name" "$t")")
	done
fi
# the machine-wide lock (see the top); without flock(1), no lock
machine_lock=${PROVENANCE_TEST_LOCK:-/tmp/provenance-tests-machine.lock}
have_flock=false
if command -v flock >/dev/null 2>&1 && exec 9>>"$machine_lock"; then
	have_flock=true
	flock -s 9
fi
if [ ${#todo[@]} -gt 0 ]; then
	while read -r -u 3 _ name t; do
		case "$name" in
		unit/*) start "$name" "${t%.c}" ;;
		*) start "$name" bash "$t" ;;
		esac
	done 3< <(printf '%s\n' "${todo[@]}" | sort -s -k1,1gr)
fi
drain
if $have_flock && [ ${#alone[@]} -gt 0 ]; then
	flock -u 9
	flock -x 9
fi
for t in "${alone[@]}"; do
	run_one "e2e/$(basename "$t" .sh)" bash "$t"
	drain
done
if [ ${#took[@]} -gt 0 ]; then
	for n in "${!took[@]}"; do printf '%s %s\n' "$n" "${took[$n]}"; done | sort >"$durations.tmp.$$" &&
		mv "$durations.tmp.$$" "$durations"
fi

echo
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
