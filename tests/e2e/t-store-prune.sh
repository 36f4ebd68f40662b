#!/usr/bin/env bash
# Retention that keeps counts right (issue 36): `prune --older-than TIME
# --keep-per-signature N` on SQLite and on PostgreSQL deletes exactly the
# crashes python3 picks from the generator's own times (each signature's N
# newest kept), and afterwards, and again after an admin's plain DELETE FROM
# crashes (python3's sqlite3 / psql), the per-signature summaries equal what
# the crashes table holds, no frame/module/component/report is left without
# its crash (store-sql/check-summaries.sql, run by sqlite3 and psql), triage
# equals triage of a fresh import of the remaining reports, and SQLite's
# triage equals PostgreSQL's. A schema-3 store with stale summaries and
# signatures the current rule does not give is upgraded by a writer: schema
# 4, summaries right, one group per crash kind (the generator's truth).
# Triage's --until, --host and --signature count what python3's sqlite3
# counts, and PostgreSQL's answers equal SQLite's.
# test: slow
. "$(dirname "$0")/lib.sh"

command -v gdb >/dev/null || skip "no gdb"
two_reports
N=600
python3 "$TOP/tests/e2e/store-gen.py" "$T/reports.jsonl" "$T/truth.json" $N 30 11 "$T/a.json" "$T/b.json" ||
	fail "store-gen.py"
CHECK=$(cat "$TOP/tests/e2e/store-sql/check-summaries.sql")
KEEP=3
# the cutoff: the time of the generator's 400th crash; with 2 kinds and KEEP 3,
# about 2/3 go
CUT=$(python3 -c 'import json,sys; t=sorted(json.loads(l)["crash"]["time"] for l in open(sys.argv[1])); print(t[400])' "$T/reports.jsonl")
# what should stay, from the generator's own reports and truth (signature per template)
python3 - "$T/reports.jsonl" "$T/truth.json" "$CUT" $KEEP >"$T/want" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
truth = json.load(open(sys.argv[2]))
cut, keep = sys.argv[3], int(sys.argv[4])
def kind(r):	# which template: the crashing signal is enough here (SIGSEGV / SIGABRT)
    return r["signal"]["number"]
by = {}
for i, r in enumerate(lines):
    by.setdefault(kind(r), []).append((r["crash"]["time"], i))
stay = 0
for k, v in by.items():
    v.sort(reverse=True)
    stay += sum(1 for j, (t, i) in enumerate(v) if t >= cut or j < keep)
print(stay)
PY
WANT=$(cat "$T/want")
[ "$WANT" -gt 0 ] && [ "$WANT" -lt $N ] || fail "the cutoff keeps $WANT of $N"

lite() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$@"; }
lite_exec() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.close()' "$@"; }
# triage JSON without the store-specific crash ids
norm() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for g in d["groups"]: g.pop("latest_crash_id", None)
print(json.dumps(d, sort_keys=True))' "$1"; }
# a fresh store of the reports that STORE (SQLite) still holds: its triage, normalised
fresh_triage() {	# SQLITE-STORE NAME
	python3 -c 'import sqlite3,sys
c = sqlite3.connect(sys.argv[1])
with open(sys.argv[2], "w") as f:
    for (j,) in c.execute("SELECT r.json FROM reports r JOIN crashes c ON c.id = r.crash_id ORDER BY c.id"):
        f.write(j.rstrip("\n") + "\n")' "$1" "$T/$2.jsonl"
	rm -f "$T/$2.sqlite"
	"$PROVENANCE" import --store "$T/$2.sqlite" "$T/$2.jsonl" 2>/dev/null || fail "import of the remaining reports"
	"$PROVENANCE" triage --store "$T/$2.sqlite" --format json >"$T/$2.triage.json" || fail "triage of $2"
	norm "$T/$2.triage.json"
}

# ---- SQLite ----
S="$T/store.sqlite"
check_exit 0 "import" -- "$PROVENANCE" import --store "$S" "$T/reports.jsonl"
check_eq "$(lite "$S" 'PRAGMA user_version')" 7 "a new store is schema 7 (sqlite3)"
# triage filters (--until, --host, --signature): counts from python3's sqlite3
SIG0=$(json_get "$T/truth.json" "d['templates'][0]['signature']")
filtered() {	# STORE-NAME: triage with each filter, normalised, one line each
	local st=$1
	"$PROVENANCE" triage --store "$st" --until "$CUT" --format json >"$T/f1.json" &&
	"$PROVENANCE" triage --store "$st" --host node005 --format json >"$T/f2.json" &&
	"$PROVENANCE" triage --store "$st" --signature "$SIG0" --since 2026-10-02T12:00:00Z --until "$CUT" --format json >"$T/f3.json" ||
		fail "triage with filters on $st"
	norm "$T/f1.json"; norm "$T/f2.json"; norm "$T/f3.json"
}
filtered "$S" >"$T/filters.lite"
check_eq "$(json_get "$T/f1.json" "d['total']")" "$(lite "$S" "SELECT count(*) FROM crashes WHERE time < '$CUT'")" "triage --until total (sqlite3)"
check_eq "$(json_get "$T/f2.json" "(d['total'], d['hosts'])")" "($(lite "$S" "SELECT count(*) FROM crashes WHERE host = 'node005'"), 1)" "triage --host total (sqlite3)"
check_eq "$(json_get "$T/f3.json" "' '.join('%s=%d' % (g['signature'], g['count']) for g in d['groups'])")" \
	"$SIG0=$(lite "$S" "SELECT count(*) FROM crashes WHERE signature = '$SIG0' AND time >= '2026-10-02T12:00:00Z' AND time < '$CUT'")" \
	"triage --signature --since --until: one group, its count (sqlite3)"
check_exit 0 "prune --dry-run" -- "$PROVENANCE" prune --store "$S" --older-than "$CUT" --keep-per-signature $KEEP --dry-run
check_match "$(cat "$T/last.out")" "^would prune $((N - WANT)) crashes" "dry run says how many"
check_eq "$(lite "$S" 'SELECT count(*) FROM crashes')" $N "dry run deletes nothing (sqlite3)"
check_exit 0 "prune" -- "$PROVENANCE" prune --store "$S" --older-than "$CUT" --keep-per-signature $KEEP
check_match "$(cat "$T/last.out")" "^pruned $((N - WANT)) crashes" "prune says how many"
check_eq "$(lite "$S" 'SELECT count(*) FROM crashes')" "$WANT" "crashes left after prune (sqlite3 = the generator's times)"
check_eq "$(lite "$S" "$CHECK")" 0 "summaries = crashes, no orphan rows after prune (sqlite3)"
check_exit 0 "triage after prune" -- "$PROVENANCE" triage --store "$S" --format json
cp "$T/last.out" "$T/lite.pruned.json"
check_eq "$(norm "$T/lite.pruned.json")" "$(fresh_triage "$S" fresh1)" "triage after prune = triage of a fresh import"
# an admin's plain DELETE
lite_exec "$S" "DELETE FROM crashes WHERE host IN ('node001', 'node002', 'node003')"
check_eq "$(lite "$S" "$CHECK")" 0 "summaries = crashes, no orphan rows after a plain DELETE (sqlite3)"
check_exit 0 "triage after DELETE" -- "$PROVENANCE" triage --store "$S" --format json
cp "$T/last.out" "$T/lite.deleted.json"
check_eq "$(norm "$T/lite.deleted.json")" "$(fresh_triage "$S" fresh2)" "triage after DELETE = triage of a fresh import"
# everything is old now: each signature keeps its 5 newest (python3 picks them from the table before)
want5=$(python3 -c 'import sqlite3,sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY signature ORDER BY time DESC, id DESC) AS k FROM crashes) WHERE k <= 5 ORDER BY id").fetchall()
print(",".join(str(r[0]) for r in rows))' "$S")
check_exit 0 "prune --keep-per-signature 5 of everything" -- "$PROVENANCE" prune --store "$S" --older-than 2099-01-01 --keep-per-signature 5
check_eq "$(lite "$S" "SELECT group_concat(id, ',') FROM (SELECT id FROM crashes ORDER BY id)")" "$want5" "the 5 newest of each signature stay (sqlite3)"
check_eq "$(lite "$S" "$CHECK")" 0 "summaries = crashes after keep-per-signature (sqlite3)"
check_exit 0 "triage after keep-per-signature" -- "$PROVENANCE" triage --store "$S" --format json
cp "$T/last.out" "$T/lite.kept.json"
check_eq "$(json_get "$T/last.out" "[g['count'] for g in d['groups']]")" "[5, 5]" "triage: 5 per group"
check_exit 64 "prune without --older-than" -- "$PROVENANCE" prune --store "$S"
check_exit 64 "prune --older-than 7x" -- "$PROVENANCE" prune --store "$S" --older-than 7x
check_exit 0 "prune --help" -- "$PROVENANCE" prune --help

# ---- a schema-3 store: stale summaries, signatures of an older rule ----
S3="$T/v3.sqlite"
check_exit 0 "a store to age" -- "$PROVENANCE" import --store "$S3" "$T/reports.jsonl"
lite_exec "$S3" "DROP INDEX crashes_image; ALTER TABLE crashes DROP COLUMN image_kind; ALTER TABLE crashes DROP COLUMN image_digest; ALTER TABLE crashes DROP COLUMN image_ref; DROP TRIGGER crashes_deleted; DROP INDEX crashes_signature_host;
UPDATE crashes SET signature = signature || '|__GI_old_name' WHERE id % 2 = 0;
DELETE FROM signature_hosts; DELETE FROM signature_versions;
INSERT INTO signature_hosts SELECT signature, host, count(*), min(time), max(time) FROM crashes GROUP BY 1, 2;
DELETE FROM crashes WHERE id % 7 = 0; PRAGMA user_version=3;"
check_exit 0 "triage of the schema-3 store (read as it is)" -- "$PROVENANCE" triage --store "$S3" --format json
check_eq "$(json_get "$T/last.out" "len(d['groups'])")" 4 "read as it is: the old signatures split each kind in two"
check_eq "$(lite "$S3" 'PRAGMA user_version')" 3 "a reader leaves schema 3 (sqlite3)"
check_exit 0 "a writer opens it (prune of nothing)" -- "$PROVENANCE" prune --store "$S3" --older-than 2000-01-01
check_eq "$(lite "$S3" 'PRAGMA user_version')" 7 "a writer upgrades it to schema 7 (sqlite3)"
check_eq "$(lite "$S3" "$CHECK")" 0 "summaries rebuilt = crashes, orphans gone (sqlite3)"
check_eq "$(lite "$S3" "SELECT count(DISTINCT signature) FROM crashes")" \
	"$(json_get "$T/truth.json" "len(set(t['signature'] for t in d['templates'] if t['count']))")" \
	"one signature per crash kind after the upgrade (sqlite3 vs the generator's truth)"
check_exit 0 "triage of the upgraded store" -- "$PROVENANCE" triage --store "$S3" --format json
cp "$T/last.out" "$T/v3-triage.json"
check_eq "$(json_get "$T/last.out" "sorted(g['signature'] for g in d['groups'])")" \
	"$(json_get "$T/truth.json" "sorted(t['signature'] for t in d['templates'] if t['count'])")" "triage groups = the generator's signatures"
# every triage JSON made above validates against the schema (docs/schema/triage.schema.json)
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/triage.schema.json" "$T"/f[123].json \
		"$T/lite.pruned.json" "$T/lite.deleted.json" "$T/lite.kept.json" "$T/v3-triage.json" ||
		fail "a triage JSON does not validate against triage.schema.json"
	echo "ok: the 7 triage JSON documents of the SQLite part validate against triage.schema.json"
fi

# ---- PostgreSQL: the same steps, the same answers ----
[ -x "${PG_BIN:-/nonexistent}/initdb" ] || { echo "ok: SQLite part (no PostgreSQL server here: PostgreSQL part skipped)"; exit 0; }
pg_start
check_exit 0 "PostgreSQL: import" -- "$PROVENANCE" import --store "$PGURL" "$T/reports.jsonl"
check_eq "$(pg_sql "SELECT value FROM store_meta WHERE key = 'schema'")" 7 "a new PostgreSQL store is schema 7 (psql)"
filtered "$PGURL" >"$T/filters.pg"
cmp -s "$T/filters.lite" "$T/filters.pg" || fail "triage with --until/--host/--signature differs between SQLite and PostgreSQL"
echo "ok: triage --until/--host/--signature: PostgreSQL = SQLite"
check_exit 0 "PostgreSQL: prune" -- "$PROVENANCE" prune --store "$PGURL" --older-than "$CUT" --keep-per-signature $KEEP
check_match "$(cat "$T/last.out")" "^pruned $((N - WANT)) crashes" "PostgreSQL: prune says how many"
check_eq "$(pg_sql 'SELECT count(*) FROM crashes')" "$WANT" "PostgreSQL: crashes left after prune (psql)"
check_eq "$(pg_sql "$CHECK")" 0 "PostgreSQL: summaries = crashes, no orphan rows after prune (psql)"
check_exit 0 "PostgreSQL: triage after prune" -- "$PROVENANCE" triage --store "$PGURL" --format json
check_eq "$(norm "$T/last.out")" "$(norm "$T/lite.pruned.json")" "PostgreSQL triage = SQLite triage after prune"
pg_sql "DELETE FROM crashes WHERE host IN ('node001', 'node002', 'node003')" >/dev/null
check_eq "$(pg_sql "$CHECK")" 0 "PostgreSQL: summaries = crashes after a plain DELETE (psql)"
check_exit 0 "PostgreSQL: triage after DELETE" -- "$PROVENANCE" triage --store "$PGURL" --format json
check_eq "$(norm "$T/last.out")" "$(norm "$T/lite.deleted.json")" "PostgreSQL triage = SQLite triage after DELETE"
check_exit 0 "PostgreSQL: prune --keep-per-signature 5 of everything" -- "$PROVENANCE" prune --store "$PGURL" --older-than 2099-01-01 --keep-per-signature 5
check_eq "$(pg_sql "SELECT string_agg(id::text, ',' ORDER BY id) FROM crashes")" "$want5" "PostgreSQL: the same 5 newest of each signature stay (psql)"
check_eq "$(pg_sql "$CHECK")" 0 "PostgreSQL: summaries = crashes after keep-per-signature (psql)"
check_exit 0 "PostgreSQL: triage after keep-per-signature" -- "$PROVENANCE" triage --store "$PGURL" --format json
check_eq "$(norm "$T/last.out")" "$(norm "$T/lite.kept.json")" "PostgreSQL triage = SQLite triage after keep-per-signature"
# a schema-3 PostgreSQL store whose summaries still count deleted crashes (made
# by taking away what schema 4 added; summaries kept on insert only)
pg_sql 'CREATE DATABASE old3' >/dev/null
OLD3="postgresql:///old3?host=$PGDIR&user=postgres"
check_exit 0 "PostgreSQL: a store to age" -- "$PROVENANCE" import --store "$OLD3" "$T/reports.jsonl"
PGDB=old3
pg_sql "DROP INDEX crashes_image; ALTER TABLE crashes DROP COLUMN image_kind, DROP COLUMN image_digest, DROP COLUMN image_ref; DROP TRIGGER crashes_deleted ON crashes; DROP TRIGGER crashes_truncated ON crashes;
UPDATE crashes SET signature = signature || '|__GI_old_name' WHERE id % 2 = 0;
DELETE FROM signature_hosts; DELETE FROM signature_versions;
INSERT INTO signature_hosts SELECT signature, host, count(*), min(time), max(time) FROM crashes GROUP BY 1, 2;
DELETE FROM crashes WHERE id % 7 = 0; UPDATE store_meta SET value = '3' WHERE key = 'schema'" >/dev/null
check_exit 0 "PostgreSQL: a writer opens the schema-3 store" -- "$PROVENANCE" prune --store "$OLD3" --older-than 2000-01-01
check_eq "$(pg_sql "SELECT value FROM store_meta WHERE key = 'schema'")" 7 "PostgreSQL: upgraded to schema 7 (psql)"
check_eq "$(pg_sql "$CHECK")" 0 "PostgreSQL: summaries rebuilt = crashes, orphans gone (psql)"
check_exit 0 "PostgreSQL: triage of the upgraded store" -- "$PROVENANCE" triage --store "$OLD3" --format json
check_eq "$(norm "$T/last.out")" "$(norm "$T/v3-triage.json")" "PostgreSQL triage of the upgraded store = SQLite's"
echo "ok: prune, plain DELETE and the schema-3 upgrade keep counts right on SQLite and PostgreSQL"
