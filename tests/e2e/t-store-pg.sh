#!/usr/bin/env bash
# The crash store on both back ends: one suite (import, deduplication,
# triage, triage --since, query and its refusals, resolve --store's history)
# run against a SQLite file and against a PostgreSQL server this test starts
# (initdb/pg_ctl as the postgres user, a Unix socket in a temp dir, stopped at
# exit); triage must be identical on both. On PostgreSQL: eight importers at
# once plus one killed with SIGKILL mid-import leave every report once and
# every crash with all its frames (counted from the stored JSON by the
# server itself), and a password never shows in an error.
# test: slow
. "$(dirname "$0")/lib.sh"

can_dump_core
pg_start
mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
build_fixture "$TOP/fixtures/crashers/abort.c" "$T/bin/abort"
null_core=$(make_core "$T/bin" ./nullmain) || exit $?
mv "$null_core" "$T/core.null"
abort_core=$(make_core "$T/bin" ./abort) || exit $?
mv "$abort_core" "$T/core.abort"
N=1500
"$PROVENANCE" resolve --offline --format json "$T/core.null" >"$T/a.json" 2>/dev/null
"$PROVENANCE" resolve --offline --format json "$T/core.abort" >"$T/b.json" 2>/dev/null
python3 "$TOP/tests/e2e/store-gen.py" "$T/reports.jsonl" "$T/truth.json" $N 100 16 "$T/a.json" "$T/b.json" ||
	fail "store-gen.py"
truth() { json_get "$T/truth.json" "$1"; }
# the day of the median crash: --since keeps about half
SINCE=$(python3 -c 'import json,sys; t=sorted(json.loads(l)["crash"]["time"] for l in open(sys.argv[1])); print(t[len(t)//2][:10])' "$T/reports.jsonl")

suite() {	# NAME STORE [QUERY-STORE: query's connection, PostgreSQL's read-only role]
	local name=$1 S=$2 Q
	check_exit 0 "$name: import" -- "$PROVENANCE" import --store "$S" "$T/reports.jsonl"
	check_match "$(cat "$T/last.err")" "^imported $N reports \(0 already" "$name: import summary"
	[ "$name" = pg ] && pg_reader prov
	Q=${3:-$S}; [ "$name" = pg ] && Q=$PGRO
	check_exit 0 "$name: import again" -- "$PROVENANCE" import --store "$S" "$T/reports.jsonl"
	check_match "$(cat "$T/last.err")" "^imported 0 reports \($N already" "$name: the same file adds nothing"
	check_exit 0 "$name: triage" -- "$PROVENANCE" triage --store "$S" --format json
	cp "$T/last.out" "$T/triage.$name.json"
	check_eq "$(json_get "$T/last.out" "d['total']")" $N "$name: triage total"
	check_eq "$(json_get "$T/last.out" "d['hosts']")" "$(truth "d['hosts']")" "$name: triage hosts"
	for k in 0 1; do
		sig=$(truth "d['templates'][$k]['signature']")
		check_eq "$(json_get "$T/last.out" "[g for g in d['groups'] if g['signature']=='$sig'][0]['count']")" \
			"$(truth "d['templates'][$k]['count']")" "$name: template $k count"
		check_eq "$(json_get "$T/last.out" "sum(c['approximate'] for g in d['groups'] if g['signature']=='$sig' for c in g['components'] if c['name']=='rccl')")" \
			"$(truth "sum(d['templates'][$k]['rccl_approximate'].values())")" "$name: template $k approximate rccl commits"
	done
	"$PROVENANCE" triage --store "$S" >"$T/triage.$name.txt" || fail "$name: triage text"
	"$PROVENANCE" triage --store "$S" --since "$SINCE" --format json >"$T/since.$name.json" || fail "$name: triage --since"
	want=$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["crash"]["time"] >= sys.argv[2]))' "$T/reports.jsonl" "$SINCE")
	check_eq "$(json_get "$T/since.$name.json" "d['total']")" "$want" "$name: crashes since $SINCE"
	"$PROVENANCE" triage --store "$S" --component rccl --format json >"$T/comp.$name.json" || fail "$name: triage --component"
	check_exit 0 "$name: query" -- "$PROVENANCE" query --store "$Q" --format csv "SELECT count(*) AS n FROM crashes WHERE signal = 6"
	check_eq "$(tail -1 "$T/last.out" | tr -d '\r')" "$(truth "d['templates'][1]['count']")" "$name: SIGABRT crashes"
	refuse() {
		local what=$1 ere=$2 sql=$3; shift 3
		check_exit 2 "$name: query refuses $what" -- timeout 120 "$PROVENANCE" query --store "$Q" "$@" "$sql"
		check_eq "$(wc -l <"$T/last.err")" 1 "$name: $what: one line"
		check_match "$(cat "$T/last.err")" "^provenance: $ere" "$name: $what: message"
	}
	refuse "DELETE" "query refused" "DELETE FROM crashes"
	refuse "two statements" "query refused: exactly one statement" "SELECT 1; DELETE FROM crashes"
	refuse "a writing CTE" "(query refused|bad query)" "WITH d AS (DELETE FROM crashes RETURNING 1) SELECT * FROM d"
	refuse "a runaway query" "query ran past its time limit of 1000 ms" \
		"WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r" --timeout 1
	refuse "too many rows" "query returned more than 100 rows" "SELECT * FROM frames" --max-rows 100
	check_exit 0 "$name: query count after refusals" -- "$PROVENANCE" query --store "$Q" --format csv "SELECT count(*) FROM crashes"
	check_eq "$(tail -1 "$T/last.out" | tr -d '\r')" $N "$name: the store is unchanged"
	"$PROVENANCE" resolve --offline --store "$S" --host fresh-node "$T/core.null" >"$T/last.out" 2>"$T/last.err"
	[ $? -le 1 ] || { cat "$T/last.err"; fail "$name: resolve --store"; }
	check_match "$(cat "$T/last.out")" "core\.null: seen $(truth "d['templates'][0]['count']") times on $(truth "d['templates'][0]['hosts']") hosts" \
		"$name: resolve --store history"
}
suite sqlite "$T/store.sqlite"
suite pg "$PGURL"
for f in triage.%s.json triage.%s.txt since.%s.json comp.%s.json; do
	a=$(printf "$f" sqlite) b=$(printf "$f" pg)
	cmp -s "$T/$a" "$T/$b" || { diff "$T/$a" "$T/$b" | head; fail "triage differs between SQLite and PostgreSQL ($f)"; }
done
echo "ok: triage identical on SQLite and PostgreSQL (json, text, --since, --component)"
check_eq "$(pg_sql 'SELECT sum(count) FROM signature_hosts')" "$(pg_sql 'SELECT count(*) FROM crashes')" "summary counts = crashes (psql)"

# ---- many writers: eight importers at once and a killed one, on a fresh database ----
pg_sql 'CREATE DATABASE fleet' >/dev/null
FLEET="postgresql:///fleet?host=$PGDIR&user=postgres"
"$PROVENANCE" import --store "$FLEET" "$T/reports.jsonl" >/dev/null 2>&1 &
victim=$!
pids=
for i in 1 2 3 4 5 6 7 8; do
	# each importer takes the reports in a different order
	python3 -c 'import random,sys; l=open(sys.argv[1]).readlines(); random.Random(int(sys.argv[2])).shuffle(l); sys.stdout.writelines(l)' \
		"$T/reports.jsonl" $i >"$T/shuf.$i.jsonl"
done
for i in 1 2 3 4 5 6 7 8; do
	"$PROVENANCE" import --store "$FLEET" "$T/shuf.$i.jsonl" >"$T/imp.$i.out" 2>&1 &
	pids="$pids $!"
done
sleep 0.5
kill -9 $victim 2>/dev/null
wait $victim 2>/dev/null
for p in $pids; do wait $p || { cat "$T"/imp.*.out; fail "a concurrent importer failed"; }; done
PGDB=fleet
check_eq "$(pg_sql 'SELECT count(*) FROM crashes')" $N "every report stored once (psql)"
check_eq "$(pg_sql 'SELECT count(DISTINCT hash) FROM crashes')" $N "distinct identities (psql)"
check_eq "$(pg_sql 'SELECT count(*) FROM reports')" $N "every crash has its report (psql)"
want_frames=$(python3 -c 'import json,sys; print(sum(len(t.get("frames",[])) for l in open(sys.argv[1]) for t in json.loads(l)["threads"]))' "$T/reports.jsonl")
check_eq "$(pg_sql 'SELECT count(*) FROM frames')" "$want_frames" "every frame once (psql vs the reports)"
check_eq "$(pg_sql "SELECT count(*) FROM crashes c WHERE (SELECT count(*) FROM frames f WHERE f.crash_id = c.id) <> (SELECT coalesce(sum(jsonb_array_length(t->'frames')), 0) FROM reports r, jsonb_array_elements(r.json::jsonb->'threads') t WHERE r.crash_id = c.id)")" 0 "each crash with all its frames (psql)"
check_eq "$(pg_sql 'SELECT sum(count) FROM signature_hosts')" $N "summary kept in step with the writers (psql)"
"$PROVENANCE" triage --store "$FLEET" --format json >"$T/fleet.json" || fail "triage of the fleet store"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
key=lambda d: sorted((g["signature"], g["count"], g["hosts"], g["first_seen"], g["last_seen"]) for g in d["groups"])
sys.exit(0 if key(a)==key(b) and a["total"]==b["total"] else 1)' "$T/fleet.json" "$T/triage.sqlite.json" ||
	fail "fleet triage groups differ from SQLite's"
echo "ok: concurrent import groups = SQLite's"
PGDB=prov

# ---- credentials never in messages; a newer schema is refused ----
check_exit 2 "a store that cannot be reached" -- "$PROVENANCE" triage --store "postgresql://postgres:s3cret-pw@/prov?host=$T/nowhere"
check_eq "$(wc -l <"$T/last.err")" 1 "unreachable: one line"
if grep -q s3cret "$T/last.err"; then fail "the password was printed"; fi
check_exit 2 "keyword form, wrong database" -- "$PROVENANCE" triage --store "host=$PGDIR user=postgres dbname=nope password=s3cret-pw"
if grep -q s3cret "$T/last.err"; then fail "the password was printed"; fi
# ---- query on PostgreSQL: what a rolled-back read-only transaction would not undo ----
S=$PGURL Q=$PGRO name=pg
refuse "COPY TO" "query refused" "COPY crashes TO STDOUT"
refuse "lo_export" "query refused: 'lo_export' functions act outside the query" "SELECT lo_export(lo_import('/etc/hostname'), '$T/leak')"
refuse "a session lock" "query refused: 'pg_advisory' functions" "SELECT pg_advisory_lock(1)"
refuse "nextval" "query refused" "SELECT nextval(pg_get_serial_sequence('crashes', 'id'))"
refuse "pg_sleep past --timeout" "query ran past its time limit of 1000 ms" "SELECT pg_sleep(30)" --timeout 1
[ ! -e "$T/leak" ] || fail "lo_export wrote a file"

# ---- the roles docs/store.md gives: a node's writer and a dashboard's reader ----
pg_sql "CREATE ROLE ingest LOGIN;
	GRANT SELECT, INSERT ON crashes, frames, modules, components, reports TO ingest;
	GRANT SELECT, INSERT, UPDATE ON signature_hosts, signature_versions, signature_days TO ingest;
	GRANT SELECT ON store_meta TO ingest;
	GRANT USAGE ON SEQUENCE crashes_id_seq TO ingest;
	GRANT SELECT ON ALL TABLES IN SCHEMA public TO dashboards;" >/dev/null
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r["crash"]["host"]="role-node"; print(json.dumps(r))' "$T/a.json" >"$T/role.jsonl"
check_exit 0 "import as the writer role" -- "$PROVENANCE" import --store "postgresql:///prov?host=$PGDIR&user=ingest" "$T/role.jsonl"
check_eq "$(pg_sql "SELECT count(*) FROM crashes WHERE host = 'role-node'")" 1 "stored by the writer role (psql)"
check_exit 0 "triage as the dashboard role" -- "$PROVENANCE" triage --store "postgresql:///prov?host=$PGDIR&user=dashboards"
"$PROVENANCE" import --store "postgresql:///prov?host=$PGDIR&user=dashboards" "$T/b.json" >"$T/last.out" 2>"$T/last.err" &&
	fail "the dashboard role imported a report"
check_eq "$(wc -l <"$T/last.err")" 1 "dashboard role's import: one line"

# a password written into the URL leaves the process list as soon as the command has it
"$PROVENANCE" query --store "postgresql://dashboards:s3cret-pw@/prov?host=$PGDIR" --timeout 20 "SELECT pg_sleep(3)" >/dev/null 2>&1 &
qpid=$!
sleep 1.5
cmdline=$(tr '\0' ' ' <"/proc/$qpid/cmdline" 2>/dev/null)
wait $qpid
check_match "$cmdline" "dashboards:x+@" "the running query's command line (/proc) has the password blanked"
pg_sql "UPDATE store_meta SET value = '99' WHERE key = 'schema'"
check_exit 2 "a store from a newer provenance" -- "$PROVENANCE" triage --store "$PGURL"
check_match "$(cat "$T/last.err")" "has schema 99; .*newer provenance" "newer schema refused"

# ---- a PostgreSQL store of schema 2 (no commit_is, found_by): a writer upgrades it ----
pg_sql 'CREATE DATABASE old2' >/dev/null
OLD2="postgresql:///old2?host=$PGDIR&user=postgres"
check_exit 0 "a new PostgreSQL store of one report" -- "$PROVENANCE" import --store "$OLD2" "$T/a.json"
PGDB=old2
pg_sql "DROP INDEX crashes_image; ALTER TABLE crashes DROP COLUMN image_kind, DROP COLUMN image_digest, DROP COLUMN image_ref; ALTER TABLE components DROP COLUMN commit_is; ALTER TABLE components DROP COLUMN found_by;
ALTER TABLE signature_versions DROP COLUMN approximate; UPDATE store_meta SET value = '2' WHERE key = 'schema'"
check_exit 2 "a reader of a schema-2 PostgreSQL store" -- "$PROVENANCE" triage --store "$OLD2"
check_match "$(cat "$T/last.err")" "has schema 2; .*open it for writing once" "the reader says how to upgrade"
check_exit 0 "import into a schema-2 PostgreSQL store" -- "$PROVENANCE" import --store "$OLD2" "$T/reports.jsonl"
check_eq "$(pg_sql "SELECT value FROM store_meta WHERE key = 'schema'")" 7 "upgraded to schema 7 (psql)"
check_eq "$(pg_sql "SELECT count(*) FROM components WHERE commit_is = 'approximate' AND found_by = 'branch tip'")" \
	"$(truth "sum(sum(t['rccl_approximate'].values()) for t in d['templates'])")" "commit_is stored after the upgrade (psql)"
check_eq "$(pg_sql "SELECT sum(approximate) FROM signature_versions")" \
	"$(truth "sum(sum(t['rccl_approximate'].values()) for t in d['templates'])")" "the summaries count them (psql)"
PGDB=prov

# ---- SQLite stores of older formats (schema 1: no summaries; 2: no commit_is, found_by) ----
# made from a current one by taking away what the later schemas added (schema 4's
# trigger first: SQLite refuses to drop a column a trigger names)
old_commit_cols="DROP TRIGGER crashes_deleted; DROP INDEX crashes_signature_host; ALTER TABLE components DROP COLUMN commit_is; ALTER TABLE components DROP COLUMN found_by; DROP INDEX crashes_image; ALTER TABLE crashes DROP COLUMN image_kind; ALTER TABLE crashes DROP COLUMN image_digest; ALTER TABLE crashes DROP COLUMN image_ref;"
check_exit 0 "a new store of one report" -- "$PROVENANCE" import --store "$T/v2.sqlite" "$T/a.json"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1])
c.executescript(sys.argv[2] + "ALTER TABLE signature_versions DROP COLUMN approximate; PRAGMA user_version=2;"); c.close()' \
	"$T/v2.sqlite" "$old_commit_cols"
lite2() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$T/v2.sqlite" "$1"; }
check_exit 0 "triage of a schema-2 store (read as it is)" -- "$PROVENANCE" triage --store "$T/v2.sqlite" --format json
check_eq "$(json_get "$T/last.out" "sum(c['approximate'] for g in d['groups'] for c in g['components'])")" 0 \
	"schema 2 recorded no approximate commits"
check_eq "$(json_get "$T/last.out" "d['total']")" "$(lite2 'SELECT count(*) FROM crashes')" "schema-2 triage total (sqlite3)"
check_eq "$(lite2 'PRAGMA user_version')" 2 "a reader leaves schema 2 as it is (sqlite3)"
check_exit 0 "import into a schema-2 store" -- "$PROVENANCE" import --store "$T/v2.sqlite" "$T/reports.jsonl"
check_eq "$(lite2 'PRAGMA user_version')" 7 "a writer upgrades it to schema 7 (sqlite3)"
check_eq "$(lite2 'SELECT count(*) FROM components WHERE crash_id = 1 AND commit_is IS NOT NULL')" 0 \
	"the older rows: commit_is not recorded (sqlite3)"
check_eq "$(lite2 "SELECT count(*) FROM components WHERE commit_is = 'approximate' AND found_by = 'branch tip'")" \
	"$(truth "sum(sum(t['rccl_approximate'].values()) for t in d['templates'])")" "commit_is stored after the upgrade (sqlite3)"

cp "$T/store.sqlite" "$T/v1.sqlite"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1])
c.executescript(sys.argv[2] + "DROP TABLE signature_hosts; DROP TABLE signature_versions; PRAGMA user_version=1;"); c.close()' \
	"$T/v1.sqlite" "$old_commit_cols"
lite() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$T/v1.sqlite" "$1"; }
check_exit 0 "triage of a schema-1 store (read as it is)" -- "$PROVENANCE" triage --store "$T/v1.sqlite" --format json
check_eq "$(lite 'PRAGMA user_version')" 1 "a reader leaves schema 1 as it is (sqlite3)"
check_exit 0 "import into a schema-1 store" -- "$PROVENANCE" import --store "$T/v1.sqlite" "$T/a.json"
check_eq "$(lite 'PRAGMA user_version')" 7 "a writer upgrades it to schema 7 (sqlite3)"
check_eq "$(lite 'SELECT sum(count) FROM signature_hosts')" "$(lite 'SELECT count(*) FROM crashes')" "the upgrade fills the summaries (sqlite3)"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version=8"); c.commit()' "$T/v1.sqlite"
check_exit 2 "a SQLite store from a newer provenance" -- "$PROVENANCE" import --store "$T/v1.sqlite" "$T/a.json"
check_eq "$(wc -l <"$T/last.err")" 1 "newer SQLite store: one line"
check_match "$(cat "$T/last.err")" "has schema 8; .*newer provenance" "newer SQLite schema refused"
