#!/usr/bin/env bash
# A store or cache being born is never taken for a foreign one (issue 27):
# 8 imports at once on a store that does not exist yet all import (none says
# "not a crash store"); 6 first runs at once on an empty cache set nothing
# aside as corrupt. The identity is read in one statement (one snapshot) and
# created under BEGIN IMMEDIATE. Several rounds, since a race shows now and then.
. "$(dirname "$0")/lib.sh"

printf '#0  0x00007f0000001000 in foo () from /usr/lib/libfoo.so.1\n#1  0x0000000000401136 in main () at main.c:5\n' >"$T/bt.txt"
"$PROVENANCE" --cache "$T/c0" resolve --offline --format json "$T/bt.txt" >"$T/r.json" 2>"$T/r.err"
[ $? -le 1 ] || { cat "$T/r.err"; fail "resolve of the backtrace"; }
rounds=${ROUNDS:-8}

for round in $(seq 1 "$rounds"); do
	S="$T/s$round/store.sqlite"
	pids=
	for i in 1 2 3 4 5 6 7 8; do
		"$PROVENANCE" --cache "$T/c0" import --store "$S" "$T/r.json" >/dev/null 2>"$T/i$i.err" & pids="$pids $!"
	done
	i=0
	for p in $pids; do
		i=$((i + 1))
		wait "$p"; rc=$?
		[ $rc = 0 ] || { cat "$T/i$i.err"; fail "round $round: import $i of 8 on a new store exited $rc"; }
	done
	n=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from reports").fetchone()[0])' "$S")
	[ "$n" -ge 1 ] || fail "round $round: no report stored"

	C="$T/c$round"
	pids=
	for i in 1 2 3 4 5 6; do
		"$PROVENANCE" --cache "$C" resolve --offline --format json "$T/bt.txt" >/dev/null 2>"$T/f$i.err" & pids="$pids $!"
	done
	for p in $pids; do wait "$p"; done
	if ls "$C"/cache.sqlite.corrupt-* >/dev/null 2>&1 || grep -q "corrupt or not ours" "$T"/f*.err; then
		cat "$T"/f*.err
		fail "round $round: a first run set aside the cache another was creating"
	fi
done
echo "ok: $rounds rounds of 8 first imports and 6 first runs at once"
