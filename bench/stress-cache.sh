#!/bin/bash
# Stress the resolve cache (not a test; run by hand):
#   - two 'provenance resolve --offline' runs on one cache at the same time;
#   - one run killed with SIGKILL at a random point while another runs;
# ROUNDS times (default 20), then PRAGMA integrity_check on
# <cache>/cache.sqlite must say ok, and a last resolve must still work.
#
# usage: bench/stress-cache.sh [INPUT]   (default: a fresh small core)
#   ROUNDS=20  KILL_MAX_MS=(the cold run's duration)
# In odd rounds both parts start from an empty cache: two cold writers at
# once, and a killed run that is often writing the package indexes.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$TOP/bench/out/stress
PROV=${PROVENANCE:-$TOP/provenance}
ROUNDS=${ROUNDS:-20}
CACHE=$OUT/cache

export XDG_CONFIG_HOME=$OUT/config
export XDG_CACHE_HOME=$OUT/xdg-cache
unset DEBUGINFOD_URLS

die() { printf 'stress-cache: %s\n' "$*" >&2; exit 1; }

[ -x "$PROV" ] || die "'$PROV' is not built; run make first"
rm -rf "$OUT"
mkdir -p "$OUT" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"

input=${1:-}
if [ -z "$input" ]; then
	case "$(cat /proc/sys/kernel/core_pattern)" in
	"|"* | /*) die "core_pattern is not relative; pass an INPUT" ;;
	esac
	${CC:-cc} -g -O0 -o "$OUT/small" "$TOP/bench/gen/small.c"
	{ (cd "$OUT" && ulimit -c unlimited && exec ./small) >/dev/null 2>&1; } 2>/dev/null || true
	input=$(ls -t "$OUT"/core "$OUT"/core.* 2>/dev/null | head -1 || true)
	[ -n "$input" ] || die "the crasher left no core in '$OUT'"
fi

# resolve LOG: one run on the shared cache; exit status in LOG.rc
resolve() {
	local rc=0
	"$PROV" --cache "$CACHE" resolve "$input" --offline --format json >"$1" 2>"$1.err" || rc=$?
	echo "$rc" >"$1.rc"
}

# A baseline run decides what "normal" is: its exit code (0 or 1).  Its
# duration on an empty cache bounds the random kill delay (unless
# KILL_MAX_MS is given), so kills land inside the run.
rm -rf "$CACHE"
t0=$(date +%s%N)
resolve "$OUT/base.json"
cold_ms=$((($(date +%s%N) - t0) / 1000000))
base=$(cat "$OUT/base.json.rc")
KILL_MAX_MS=${KILL_MAX_MS:-$((cold_ms > 10 ? cold_ms : 10))}
echo "cold resolve: ${cold_ms} ms (exit $base); kills at 0..${KILL_MAX_MS} ms"
if grep -q 'not built yet' "$OUT/base.json.err"; then
	echo "n/a: provenance resolve is not built yet"
	exit 0
fi
case "$base" in 0 | 1) ;; *) die "baseline resolve exited $base: $(head -3 "$OUT/base.json.err")" ;; esac
rm -rf "$CACHE"

bad=0
killed=0
for ((r = 1; r <= ROUNDS; r++)); do
	[ $((r % 2)) = 1 ] && rm -rf "$CACHE"
	# Two at once.
	resolve "$OUT/a.json" &
	pa=$!
	resolve "$OUT/b.json" &
	pb=$!
	wait "$pa" "$pb" || true
	for x in a b; do
		rc=$(cat "$OUT/$x.json.rc")
		if [ "$rc" != "$base" ]; then
			echo "round $r: concurrent run $x exited $rc (baseline $base): $(head -2 "$OUT/$x.json.err" | tr '\n' ' ')"
			bad=$((bad + 1))
		fi
	done
	# One killed at a random point while another runs.
	[ $((r % 2)) = 1 ] && rm -rf "$CACHE"
	"$PROV" --cache "$CACHE" resolve "$input" --offline >/dev/null 2>&1 &
	pk=$!
	resolve "$OUT/c.json" &
	pc=$!
	ms=$((RANDOM % (KILL_MAX_MS + 1)))
	sleep "$(printf '0.%03d' "$ms")"
	kill -KILL "$pk" 2>/dev/null || true
	rc=0
	wait "$pk" 2>/dev/null || rc=$?
	# 137: it died of the SIGKILL (not merely finished before it)
	[ "$rc" = 137 ] && killed=$((killed + 1))
	wait "$pc" || true
	rc=$(cat "$OUT/c.json.rc")
	if [ "$rc" != "$base" ]; then
		echo "round $r: run beside a killed one (at ${ms} ms) exited $rc: $(head -2 "$OUT/c.json.err" | tr '\n' ' ')"
		bad=$((bad + 1))
	fi
done

db=$CACHE/cache.sqlite
integrity=missing
if [ -f "$db" ]; then
	integrity=$(python3 -c 'import sys, sqlite3; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])' "$db")
fi
resolve "$OUT/after.json"
after=$(cat "$OUT/after.json.rc")

echo "rounds: $ROUNDS; runs killed mid-way: $killed; unexpected exits: $bad"
echo "integrity_check($db): $integrity"
echo "resolve after the storm: exit $after (baseline $base)"
if [ "$integrity" = ok ] && [ "$bad" = 0 ] && [ "$after" = "$base" ]; then
	echo "stress-cache: ok"
else
	echo "stress-cache: PROBLEM"
	exit 1
fi
