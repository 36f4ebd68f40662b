#!/usr/bin/env bash
# `query` on PostgreSQL is read-only in effect, not by a list of names: the
# connecting role is the fence. As a superuser, a table owner or a member of
# pg_signal_backend it is refused; as the read-only role docs/store.md gives
# it answers (truth: psql). Hostile queries that slip past any name list
# (U&"" identifiers, query_to_xml, pg_reload_conf, pg_stat_reset), tried as
# every one of those roles: another live session survives (psql), no byte of
# a secret server file reaches the output, the configuration is not reloaded
# and the statistics are not reset (psql). A server this test starts.
. "$(dirname "$0")/lib.sh"

pg_start
printf '#0  0x00005555555551a9 in crash () at a.c:3\n#1  0x00005555555551c0 in main () at a.c:7\n' >"$T/bt.txt"
"$PROVENANCE" resolve --offline --format json "$T/bt.txt" >"$T/r.json" 2>"$T/r.err" || { cat "$T/r.err"; fail "resolve a backtrace"; }
python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
for h in ("n1", "n2", "n3"):
    r["crash"]["host"] = h
    print(json.dumps(r))' "$T/r.json" >"$T/r.jsonl" || fail "reports"
check_exit 0 "import as the superuser" -- "$PROVENANCE" import --store "$PGURL" "$T/r.jsonl"
pg_reader prov
pg_sql "CREATE ROLE signaller LOGIN IN ROLE pg_signal_backend;
	GRANT SELECT ON ALL TABLES IN SCHEMA public TO signaller" >/dev/null || fail "create the signaller role"
# a database whose tables the connecting role owns (it created the store)
{ pg_sql "CREATE ROLE storeowner LOGIN" && pg_sql "CREATE DATABASE owned OWNER storeowner"; } >/dev/null || fail "create the owner's database"
OWNED="postgresql:///owned?host=$PGDIR&user=storeowner"
check_exit 0 "import as the owner" -- "$PROVENANCE" import --store "$OWNED" "$T/r.jsonl"
SUPER=$PGURL SIGNAL="postgresql:///prov?host=$PGDIR&user=signaller"

# ---- the documented role answers; the others are refused (one line, exit 2) ----
want=$(pg_sql "SELECT count(*) FROM crashes")
check_eq "$want" 3 "three crashes stored (psql)"
check_exit 0 "query as the read-only role" -- "$PROVENANCE" query --store "$PGRO" --format csv "SELECT count(*) AS n FROM crashes"
check_eq "$(tail -1 "$T/last.out" | tr -d '\r')" "$want" "the read-only role's count = psql's"
for who in SUPER SIGNAL OWNED; do
	check_exit 2 "query as $who is refused" -- "$PROVENANCE" query --store "${!who}" --format csv "SELECT count(*) FROM crashes"
	check_eq "$(wc -l <"$T/last.err")" 1 "$who: one line"
	[ -s "$T/last.out" ] && fail "$who: rows were printed"
	check_match "$(cat "$T/last.err")" "dashboards" "$who: the message names the role to use"
done

# ---- hostile queries as every role: nothing happens outside the query ----
SECRET=TOKEN-$RANDOM$RANDOM$RANDOM
printf '%s\n' "$SECRET" >"$PGDIR/secret.txt"
chown postgres "$PGDIR/secret.txt"
psql -h "$PGDIR" -U postgres -d prov -qAt -c "SET application_name = 'victim'; SELECT pg_sleep(600)" >/dev/null 2>&1 &
victim_psql=$!
trap 'kill $victim_psql 2>/dev/null; pg_stop; rm -rf "$T"' EXIT
for i in $(seq 1 100); do
	victim=$(pg_sql "SELECT pid FROM pg_stat_activity WHERE application_name = 'victim' AND state = 'active'")
	[ -n "$victim" ] && break
	sleep 0.1
done
[ -n "$victim" ] || fail "the victim session did not start"
reset0=$(pg_sql "SELECT coalesce(stats_reset::text, 'never') FROM pg_stat_database WHERE datname = 'prov'")
echo "work_mem = '7777kB'" >>"$PGDIR/data/postgresql.conf"
hostile=(
	'SELECT U&"pg\005fterminate\005fbackend"('"$victim"')'
	'SELECT pg_terminate_backend('"$victim"')'
	'SELECT U&"pg\005fread\005ffile"('"'$PGDIR/secret.txt'"')'
	"SELECT query_to_xml('select pg_read_' || 'file(''$PGDIR/secret.txt'')', true, false, '')"
	"SELECT query_to_xml('select encode(pg_read_binary_' || 'file(''$PGDIR/secret.txt''), ''escape'')', true, false, '')"
	'SELECT U&"pg\005freload\005fconf"()'
	'SELECT pg_stat_reset()'
	'SELECT U&"pg\005fstat\005freset"()'
)
for who in PGRO SUPER SIGNAL; do
	for sql in "${hostile[@]}"; do
		"$PROVENANCE" query --store "${!who}" --format csv "$sql" >"$T/h.out" 2>"$T/h.err"
		if grep -q "$SECRET" "$T/h.out" "$T/h.err"; then fail "$who: the secret file's content came out: $sql"; fi
		check_eq "$(pg_sql "SELECT count(*) FROM pg_stat_activity WHERE pid = $victim")" 1 "$who: the other session lives after: $sql"
	done
done
kill -0 $victim_psql 2>/dev/null || fail "the victim's psql ended"
check_eq "$(pg_sql "SELECT coalesce(stats_reset::text, 'never') FROM pg_stat_database WHERE datname = 'prov'")" "$reset0" \
	"the statistics were not reset (psql: pg_stat_database.stats_reset)"
# a reload would have taken the appended work_mem; a reload that was asked for takes a moment to be seen
sleep 1
check_eq "$(pg_sql "SELECT setting FROM pg_settings WHERE name = 'work_mem'")" 4096 "the configuration was not reloaded (psql: work_mem)"
# the control: a reload by psql is seen the same way (the check can tell)
pg_sql "SELECT pg_reload_conf()" >/dev/null
for i in $(seq 1 100); do
	[ "$(pg_sql "SELECT setting FROM pg_settings WHERE name = 'work_mem'")" = 7777 ] && break
	sleep 0.2
done
check_eq "$(pg_sql "SELECT setting FROM pg_settings WHERE name = 'work_mem'")" 7777 "a real reload is seen (control)"
echo "ok: query on PostgreSQL is read-only in effect"
