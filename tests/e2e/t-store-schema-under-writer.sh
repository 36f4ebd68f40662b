#!/usr/bin/env bash
# A writer whose store is upgraded under it stops writing: each writing
# transaction checks the schema. An importer reads reports from a FIFO; once
# its first reports are committed (counted with sqlite3 / psql), the
# schema version is changed underneath (what a newer provenance's upgrade
# writes: SQLite's user_version, PostgreSQL's store_meta row), and the next
# report is refused: exit 2, one line, and no row is added after the change
# (truth: sqlite3 / psql). SQLite first, then a PostgreSQL server this test
# starts.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null || skip "no sqlite3"
printf '#0  0x00005555555551a9 in crash () at a.c:3\n#1  0x00005555555551c0 in main () at a.c:7\n' >"$T/bt.txt"
"$PROVENANCE" resolve --offline --format json "$T/bt.txt" >"$T/r.json" 2>"$T/r.err" || { cat "$T/r.err"; fail "resolve a backtrace"; }
# reports 1..N as JSON lines, each on its own host (distinct crashes)
reports() {	# FIRST LAST
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
for i in range(int(sys.argv[2]), int(sys.argv[3]) + 1):
    r["crash"]["host"] = "node%d" % i
    print(json.dumps(r))' "$T/r.json" "$1" "$2"
}
wait_count() {	# WANT COMMAND...: until COMMAND prints WANT (the writer committed)
	local want=$1 i; shift
	for i in $(seq 1 600); do
		[ "$("$@" 2>/dev/null)" = "$want" ] && return 0
		sleep 0.1
	done
	fail "the writer never committed $want reports"
}
under_writer() {	# NAME STORE FIRST-BATCH COUNT-COMMAND... ; then the change is made by $CHANGE
	local name=$1 S=$2 first=$3 rc; shift 3
	rm -f "$T/fifo"; mkfifo "$T/fifo"
	"$PROVENANCE" import --store "$S" - <"$T/fifo" >"$T/imp.out" 2>"$T/imp.err" &
	local imp=$!
	exec 7>"$T/fifo"
	reports 1 "$first" >&7
	wait_count "$first" "$@"
	eval "$CHANGE" || fail "$name: change the schema underneath"
	reports $((first + 1)) $((first + 3)) >&7
	exec 7>&-
	wait $imp; rc=$?
	[ "$rc" = 2 ] || { cat "$T/imp.err"; fail "$name: the writer exits $rc after the schema changed, expected 2"; }
	check_eq "$(wc -l <"$T/imp.err")" 1 "$name: one line"
	cat "$T/imp.err"
	check_eq "$("$@")" "$first" "$name: no report written after the schema changed"
}

# ---- SQLite: a batch of 500 commits, the upgrade takes the lock, the next batch is refused ----
SQ=$T/store.sqlite
# the next schema, whatever this build's is (the store says which it made)
CHANGE='sqlite3 -cmd ".timeout 60000" "$SQ" "PRAGMA user_version = $(($(sqlite3 -cmd ".timeout 60000" "$SQ" "PRAGMA user_version") + 1))" >/dev/null'
under_writer sqlite "$SQ" 500 sqlite3 "$SQ" "SELECT count(*) FROM crashes"

# ---- PostgreSQL: each report its own transaction ----
pg_start
CHANGE="pg_sql \"UPDATE store_meta SET value = (value::int + 1)::text WHERE key = 'schema'\" >/dev/null"
under_writer pg "$PGURL" 2 pg_sql "SELECT count(*) FROM crashes"
check_eq "$(pg_sql "SELECT count(*) FROM crashes WHERE host NOT IN ('node1', 'node2')")" 0 "pg: no crash of a later report (psql)"
echo "ok: a writer stops when the schema changes under it"
