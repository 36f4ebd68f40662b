#!/usr/bin/env bash
# docs/store.md's PostgreSQL bootstrap, run as written: the owner creates the
# tables with `provenance import --store URL /dev/null` (no reports) and the
# command succeeds (exit 0); then the GRANTs store.md lists run. Ground truth:
# psql on the server (the tables exist, the grants are accepted).
. "$(dirname "$0")/lib.sh"
pg_start
doc=$TOP/docs/store.md
# the command store.md gives, with this server's URL
cmd=$(tr '\n' ' ' <"$doc" | grep -o 'provenance import --store postgresql://owner@db/crashes */dev/null' | head -1)
[ -n "$cmd" ] || fail "store.md no longer gives the bootstrap command 'provenance import --store postgresql://owner@db/crashes /dev/null'"
check_exit 0 "the bootstrap import of no reports" -- "$PROVENANCE" import --store "$PGURL" /dev/null
check_match "$(cat "$T/last.err")" "imported 0 reports" "says what it did"
check_eq "$(pg_sql "SELECT count(*) FROM information_schema.tables WHERE table_name IN ('crashes','frames','modules','components','reports','store_meta')")" 6 "the tables exist"
check_eq "$(pg_sql 'SELECT count(*) FROM crashes')" 0 "no crash stored"
# the roles and grants store.md lists, as written
sed -n '/^    CREATE ROLE ingest/,/^$/p' "$doc" | sed 's/^    //' >"$T/grants.sql"
[ -s "$T/grants.sql" ] || fail "store.md's grants not found"
psql -h "$PGDIR" -U postgres -d prov -q -v ON_ERROR_STOP=1 -f "$T/grants.sql" >"$T/psql.out" 2>&1 || fail "store.md's grants fail: $(cat "$T/psql.out")"
echo "ok: store.md's grants run on the bootstrapped store"
# twice: still 0 (the tables are there)
check_exit 0 "the bootstrap again" -- "$PROVENANCE" import --store "$PGURL" /dev/null
