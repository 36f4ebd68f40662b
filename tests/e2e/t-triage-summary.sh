#!/usr/bin/env bash
# Triage from the summary tables equals triage from the crashes (issues 36,
# 37: triage and the web view at 1,000,000 crashes). On SQLite and
# PostgreSQL, a whole-store triage (read from signature_hosts and
# signature_versions) and --by day with day-aligned or absent --since/--until
# (read from signature_days, schema 6) give the same JSON as the same query
# forced onto the crashes table (a --since one second after 1970, which no
# summary answers): after an import, after prune and after an admin's plain
# DELETE; signature_days equals python3's own per-day counts of the
# generator's reports. A schema-5 store (no signature_days) is read as it is
# and upgraded to 6 by a writer, the days filled from the crashes.
. "$(dirname "$0")/lib.sh"

command -v gdb >/dev/null || skip "no gdb"
two_reports
N=900
python3 "$TOP/tests/e2e/store-gen.py" "$T/reports.jsonl" "$T/truth.json" $N 20 12 "$T/a.json" "$T/b.json" ||
	fail "store-gen.py"
# its times lie in one day: spread them over 9 (report i moved i % 9 days back)
python3 - "$T/reports.jsonl" <<'PY' || fail "spreading the times"
import datetime, json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for i, r in enumerate(rows):
    t = datetime.datetime.strptime(r["crash"]["time"], "%Y-%m-%dT%H:%M:%SZ") - datetime.timedelta(days=i % 9)
    r["crash"]["time"] = t.strftime("%Y-%m-%dT%H:%M:%SZ")
with open(sys.argv[1], "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in rows)
PY
CHECK=$(cat "$TOP/tests/e2e/store-sql/check-summaries.sql")
# the generator's own crashes per day
python3 - "$T/reports.jsonl" "$T/truth.json" >"$T/days.want" <<'PY'
import json, sys
n = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    n[r["crash"]["time"][:10]] = n.get(r["crash"]["time"][:10], 0) + 1
print(" ".join("%s=%d" % kv for kv in sorted(n.items())))
PY
lite() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$@"; }
lite_exec() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.close()' "$@"; }
DAYS_SQL="SELECT group_concat(day || '=' || n, ' ') FROM (SELECT day, sum(count) AS n FROM signature_days GROUP BY day ORDER BY day) AS d"
MID=$(python3 -c 'import json,sys; t=sorted(json.loads(l)["crash"]["time"] for l in open(sys.argv[1])); print(t[len(t)//2][:10])' "$T/reports.jsonl")
SIG0=$(json_get "$T/truth.json" "d['templates'][0]['signature']")
# total, hosts and groups (buckets included), whatever the query's own echo of its filters;
# without the store-specific crash ids
core() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for g in d["groups"]: g.pop("latest_crash_id", None)
print(json.dumps([d["total"], d["hosts"], d["groups"]], sort_keys=True))' "$1"; }
same() {	# STORE LABEL: each pair: a summary's answer = the crashes' answer
	local st=$1 what=$2 i=0
	while IFS='|' read -r fast slow; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		"$PROVENANCE" triage --store "$st" $fast --format json >"$T/fast.$i.json" 2>"$T/fast.err" &&
			"$PROVENANCE" triage --store "$st" $slow --format json >"$T/slow.$i.json" 2>"$T/slow.err" ||
			fail "$what: triage $fast / $slow: $(cat "$T/fast.err" "$T/slow.err")"
		[ "$(core "$T/fast.$i.json")" = "$(core "$T/slow.$i.json")" ] ||
			fail "$what: triage $fast (summaries) differs from triage $slow (crashes)"
	done <<-EOF
	|--since 1970-01-01T00:00:01
	--by day|--by day --since 1970-01-01T00:00:01
	--by day --since 1970-01-01|--by day --since 1970-01-01T00:00:01
	--by day --since $MID|--by day --since ${MID}T00:00:00Z --until 2099-12-31T23:59:59
	--by day --until $MID|--by day --until $MID --since 1970-01-01T00:00:01
	EOF
	# a signature (blanks and bars in it) by day, from the days table and from the crashes
	"$PROVENANCE" triage --store "$st" --by day --signature "$SIG0" --since "$MID" --format json >"$T/fast.sig.json" &&
		"$PROVENANCE" triage --store "$st" --by day --signature "$SIG0" --since "$MID" \
			--until 2099-12-31T23:59:59 --format json >"$T/slow.sig.json" || fail "$what: triage --signature"
	[ "$(core "$T/fast.sig.json")" = "$(core "$T/slow.sig.json")" ] ||
		fail "$what: triage --by day --signature: the days table differs from the crashes"
	i=$((i + 1))
	[ "$(json_get "$T/fast.1.json" "d['total']")" -gt 0 ] || fail "$what: an empty store"
	echo "ok: $what: $i triage queries from the summaries = the same from the crashes"
}

# ---- SQLite ----
S="$T/store.sqlite"
check_exit 0 "import" -- "$PROVENANCE" import --store "$S" "$T/reports.jsonl"
check_eq "$(lite "$S" 'PRAGMA user_version')" 7 "a new store is schema 7 (sqlite3)"
check_eq "$(lite "$S" "$DAYS_SQL")" "$(cat "$T/days.want")" "signature_days = the generator's crashes per day (sqlite3)"
check_eq "$(lite "$S" "$CHECK")" 0 "summaries = crashes (sqlite3)"
same "$S" "SQLite, imported"
cp "$T/fast.2.json" "$T/lite.byday.json"
check_exit 0 "prune" -- "$PROVENANCE" prune --store "$S" --older-than "$MID" --keep-per-signature 2
check_eq "$(lite "$S" "$CHECK")" 0 "summaries = crashes after prune (sqlite3)"
same "$S" "SQLite, pruned"
lite_exec "$S" "DELETE FROM crashes WHERE host IN ('node001', 'node002') OR id % 5 = 0"
check_eq "$(lite "$S" "$CHECK")" 0 "summaries = crashes after a plain DELETE (sqlite3)"
same "$S" "SQLite, after DELETE"
cp "$T/fast.2.json" "$T/lite.deleted.json"
# schema 5: no signature_days; a reader reads the crashes, a writer upgrades
S5="$T/v5.sqlite"
check_exit 0 "a store to age" -- "$PROVENANCE" import --store "$S5" "$T/reports.jsonl"
lite_exec "$S5" "DROP TRIGGER crashes_deleted_days; DROP TABLE signature_days; DROP INDEX crashes_image; ALTER TABLE crashes DROP COLUMN image_kind; ALTER TABLE crashes DROP COLUMN image_digest; ALTER TABLE crashes DROP COLUMN image_ref; DELETE FROM crashes WHERE id % 3 = 0; PRAGMA user_version=5"
check_exit 0 "triage --by day of a schema-5 store (reader)" -- "$PROVENANCE" triage --store "$S5" --by day --format json
cp "$T/last.out" "$T/v5.json"
check_eq "$(lite "$S5" 'PRAGMA user_version')" 5 "a reader leaves schema 5 (sqlite3)"
check_exit 0 "a writer opens the schema-5 store" -- "$PROVENANCE" prune --store "$S5" --older-than 2000-01-01
check_eq "$(lite "$S5" 'PRAGMA user_version')" 7 "a writer upgrades it through schema 6 to 7 (sqlite3)"
check_eq "$(lite "$S5" "$CHECK")" 0 "the upgrade fills signature_days = crashes (sqlite3)"
check_exit 0 "triage --by day of the upgraded store" -- "$PROVENANCE" triage --store "$S5" --by day --format json
check_eq "$(core "$T/last.out")" "$(core "$T/v5.json")" "triage --by day: schema 6 (summaries) = schema 5 (crashes)"

# ---- PostgreSQL: the same steps ----
[ -x "${PG_BIN:-/nonexistent}/initdb" ] || { echo "ok: SQLite part (no PostgreSQL server here: PostgreSQL part skipped)"; exit 0; }
pg_start
check_exit 0 "PostgreSQL: import" -- "$PROVENANCE" import --store "$PGURL" "$T/reports.jsonl"
check_eq "$(pg_sql "SELECT string_agg(day || '=' || n, ' ' ORDER BY day) FROM (SELECT day, sum(count) AS n FROM signature_days GROUP BY day) AS d")" "$(cat "$T/days.want")" \
	"signature_days = the generator's crashes per day (psql)"
check_eq "$(pg_sql "$CHECK")" 0 "summaries = crashes (psql)"
same "$PGURL" "PostgreSQL, imported"
check_eq "$(core "$T/fast.2.json")" "$(core "$T/lite.byday.json")" "PostgreSQL triage --by day = SQLite's"
check_exit 0 "PostgreSQL: prune" -- "$PROVENANCE" prune --store "$PGURL" --older-than "$MID" --keep-per-signature 2
check_eq "$(pg_sql "$CHECK")" 0 "summaries = crashes after prune (psql)"
same "$PGURL" "PostgreSQL, pruned"
pg_sql "DELETE FROM crashes WHERE host IN ('node001', 'node002') OR id % 5 = 0" >/dev/null
check_eq "$(pg_sql "$CHECK")" 0 "summaries = crashes after a plain DELETE (psql)"
same "$PGURL" "PostgreSQL, after DELETE"
pg_sql 'CREATE DATABASE old5' >/dev/null
OLD5="postgresql:///old5?host=$PGDIR&user=postgres"
check_exit 0 "PostgreSQL: a store to age" -- "$PROVENANCE" import --store "$OLD5" "$T/reports.jsonl"
PGDB=old5
pg_sql "DROP TRIGGER crashes_deleted_days ON crashes; DROP TRIGGER crashes_truncated_days ON crashes;
DROP TABLE signature_days; DROP INDEX crashes_image; ALTER TABLE crashes DROP COLUMN image_kind, DROP COLUMN image_digest, DROP COLUMN image_ref; DELETE FROM crashes WHERE id % 3 = 0; UPDATE store_meta SET value = '5' WHERE key = 'schema'" >/dev/null
check_exit 0 "PostgreSQL: a writer opens the schema-5 store" -- "$PROVENANCE" prune --store "$OLD5" --older-than 2000-01-01
check_eq "$(pg_sql "SELECT value FROM store_meta WHERE key = 'schema'")" 7 "PostgreSQL: upgraded through schema 6 to 7 (psql)"
check_eq "$(pg_sql "$CHECK")" 0 "PostgreSQL: the upgrade fills signature_days = crashes (psql)"
check_exit 0 "PostgreSQL: triage --by day of the upgraded store" -- "$PROVENANCE" triage --store "$OLD5" --by day --format json
check_eq "$(core "$T/last.out")" "$(core "$T/v5.json")" "PostgreSQL: triage --by day of the upgraded store = SQLite's schema-5 read"
echo "ok: triage from the summaries = triage from the crashes, on SQLite and PostgreSQL, after prune and DELETE"
