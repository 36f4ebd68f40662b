#!/bin/bash
# The web view at fleet scale (issue 37): `/` of `provenance serve` on a store
# of NTOTAL crashes, timed with curl.
#   bench/web-bench.sh [NTOTAL] [sqlite|pg]   (defaults: 1000000 sqlite)
# 1. Two real crashes (fixtures/crashers: a NULL read in a library, abort())
#    as gdb prints their backtraces, resolved --offline to JSON: the templates.
# 2. tests/e2e/store-gen.py: 1,000 reports from them (100 hosts, a week),
#    imported.
# 3. Grown to NTOTAL crashes with SQL (a recursive CTE on SQLite,
#    generate_series on PostgreSQL): the imported crashes copied with new ids,
#    hashes, hosts h-<copy % 10>, times 12 h earlier per copy and signatures
#    with a copy suffix (50 groups per template), with their frames, modules
#    and components (not the report JSON, which `/` never reads); the
#    summaries rebuilt from the crashes with the schema-1 -> 2 migration's SQL.
# 4. `triage`, `triage --by day` and `triage --since 7d --by day` on the
#    command line (best of 3, wall and peak RSS: issue 36's bench).
# 5. serve on it; curl times `/`, `/?since=` the last day and
#    /api/triage.json: one warm-up, then best and median of 5.
# Env: PROVENANCE (default ./provenance), BENCH_DIR (default /tmp/prov-web-bench),
# BENCH_REUSE=1: keep BENCH_DIR's store from an earlier run (steps 1-3 left
# out; PostgreSQL's server started again on its data) and open it once for
# writing first (a prune of nothing), which upgrades an older schema: timed.
set -u
NTOTAL=${1:-1000000} BACKEND=${2:-sqlite}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROV=${PROVENANCE:-$TOP/provenance}
d=${BENCH_DIR:-/tmp/prov-web-bench}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
say() { printf '%s\n' "$*"; }
now() { date +%s.%N; }
ms() { python3 -c "import sys; print('%.0f' % ((float(sys.argv[2]) - float(sys.argv[1])) * 1000))" "$1" "$2"; }
REUSE=${BENCH_REUSE:-}
[ -n "$REUSE" ] || rm -rf "$d"
mkdir -p "$d/bin"
SPID=
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	[ "$BACKEND" = pg ] && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$d/data" -m fast stop >/dev/null 2>&1
}
trap cleanup EXIT

if [ -n "$REUSE" ] && [ "$BACKEND" = pg ]; then
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$d/data" -l "$d/log" -w \
		-o "-k $d -c listen_addresses= -c shared_buffers=512MB -c max_wal_size=4GB" start >/dev/null ||
		{ cat "$d/log"; exit 1; }
	S="postgresql:///crashes?host=$d&user=postgres"
	sql() { psql -h "$d" -U postgres -d crashes -qAt -c "$1"; }
elif [ -n "$REUSE" ]; then
	S="$d/store.sqlite"
	sql() { sqlite3 "$S" "$1"; }
fi
if [ -n "$REUSE" ]; then
	t0=$(now)
	"$PROV" prune --store "$S" --older-than 2000-01-01 >/dev/null || { say "opening the store to write failed"; exit 1; }
	t1=$(now)
	say "== reused $S: opened for writing (upgrading an older schema) in $(ms "$t0" "$t1") ms"
else
cc -g -O0 -fPIC -shared -o "$d/bin/libnull.so" "$TOP/fixtures/crashers/libnull.c" || exit 1
cc -g -O0 -o "$d/bin/nullmain" "$TOP/fixtures/crashers/nullmain.c" "$d/bin/libnull.so" -Wl,-rpath,"$d/bin" || exit 1
cc -g -O0 -o "$d/bin/abort" "$TOP/fixtures/crashers/abort.c" || exit 1
for x in nullmain abort; do
	(cd "$d/bin" && gdb -nx -batch -ex run -ex bt "./$x") >"$d/$x.txt" 2>&1
	"$PROV" resolve --offline --format json "$d/$x.txt" >"$d/$x.json" 2>/dev/null
	[ -s "$d/$x.json" ] || { say "resolve of $x failed"; exit 1; }
done
python3 "$TOP/tests/e2e/store-gen.py" "$d/reports.jsonl" "$d/truth.json" 1000 100 7 "$d/nullmain.json" "$d/abort.json" || exit 1

if [ "$BACKEND" = pg ]; then
	[ -x "$PG_BIN/initdb" ] && id postgres >/dev/null 2>&1 || { say "no PostgreSQL server"; exit 0; }
	chown postgres "$d"
	runuser -u postgres -- "$PG_BIN/initdb" -D "$d/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
		>"$d/initdb.log" 2>&1 || { cat "$d/initdb.log"; exit 1; }
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$d/data" -l "$d/log" -w \
		-o "-k $d -c listen_addresses= -c shared_buffers=512MB -c max_wal_size=4GB" start >/dev/null ||
		{ cat "$d/log"; exit 1; }
	psql -h "$d" -U postgres -d postgres -qAt -c 'CREATE DATABASE crashes' >/dev/null
	S="postgresql:///crashes?host=$d&user=postgres"
	sql() { psql -h "$d" -U postgres -d crashes -qAt -c "$1"; }
else
	S="$d/store.sqlite"
	sql() { sqlite3 "$S" "$1"; }
fi
"$PROV" import --store "$S" "$d/reports.jsonl" >/dev/null 2>&1 || { say "import failed"; exit 1; }
n=$(sql 'SELECT count(*) FROM crashes')
copies=$(((NTOTAL - n + n - 1) / n))
t0=$(now)
if [ "$BACKEND" = pg ]; then
	psql -h "$d" -U postgres -d crashes -qAt >/dev/null <<-SQL
	BEGIN;
	CREATE TEMP TABLE m AS SELECT c.id AS old, g, nextval(pg_get_serial_sequence('crashes', 'id')) AS new
	  FROM crashes c, generate_series(1, $copies) g ORDER BY g, c.id LIMIT $NTOTAL - $n;
	INSERT INTO crashes(id, signature, signal, signal_name, time, host, input, context, patterns,
	  executable, kind, hash, added)
	  SELECT m.new, c.signature || '#' || (m.g % 50), c.signal, c.signal_name,
	  to_char((c.time::timestamptz - make_interval(hours => 12 * m.g)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
	  c.host || '-' || (m.g % 10), c.input, c.context, c.patterns, c.executable, c.kind,
	  c.hash || '-' || m.g, c.added FROM m JOIN crashes c ON c.id = m.old;
	INSERT INTO frames SELECT m.new, f.thread, f.tid, f.crashed, f.depth, f.function, f.file, f.line,
	  f.module, f.component, f.language FROM m JOIN frames f ON f.crash_id = m.old;
	INSERT INTO modules SELECT m.new, x.path, x.build_id, x.package_kind, x.package, x.version, x.component
	  FROM m JOIN modules x ON x.crash_id = m.old;
	INSERT INTO components(crash_id, name, version, "commit", repo, commit_is, found_by)
	  SELECT m.new, x.name, x.version, x."commit", x.repo, x.commit_is, x.found_by
	  FROM m JOIN components x ON x.crash_id = m.old;
	TRUNCATE signature_hosts, signature_versions;
	INSERT INTO signature_hosts SELECT signature, host, count(*), min(time), max(time)
	  FROM crashes GROUP BY signature, host;
	INSERT INTO signature_versions(signature, component, version, count)
	  SELECT c.signature, v.name, coalesce(v.version, '?'),
	  count(DISTINCT v.crash_id) FROM components v JOIN crashes c ON c.id = v.crash_id
	  GROUP BY c.signature, v.name, coalesce(v.version, '?');
	DELETE FROM signature_days;
	INSERT INTO signature_days SELECT signature, substr(time, 1, 10), count(*) FROM crashes
	  WHERE time IS NOT NULL GROUP BY 1, 2;
	COMMIT;
	VACUUM ANALYZE;
	SQL
else
	sqlite3 "$S" <<-SQL
	PRAGMA journal_mode = OFF;
	PRAGMA synchronous = OFF;
	BEGIN;
	CREATE TEMP TABLE m AS WITH RECURSIVE g(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM g WHERE g < $copies)
	  SELECT c.id AS old, g.g AS g, (SELECT max(id) FROM crashes) + row_number() OVER (ORDER BY g.g, c.id) AS new
	  FROM crashes c, g ORDER BY g.g, c.id LIMIT $NTOTAL - $n;
	INSERT INTO crashes(id, signature, signal, signal_name, time, host, input, context, patterns,
	  executable, kind, hash, added)
	  SELECT m.new, c.signature || '#' || (m.g % 50), c.signal, c.signal_name,
	  strftime('%Y-%m-%dT%H:%M:%SZ', c.time, '-' || (12 * m.g) || ' hours'),
	  c.host || '-' || (m.g % 10), c.input, c.context, c.patterns, c.executable, c.kind,
	  c.hash || '-' || m.g, c.added FROM m JOIN crashes c ON c.id = m.old;
	INSERT INTO frames SELECT m.new, f.thread, f.tid, f.crashed, f.depth, f.function, f.file, f.line,
	  f.module, f.component, f.language FROM m JOIN frames f ON f.crash_id = m.old;
	INSERT INTO modules SELECT m.new, x.path, x.build_id, x.package_kind, x.package, x.version, x.component
	  FROM m JOIN modules x ON x.crash_id = m.old;
	INSERT INTO components(crash_id, name, version, "commit", repo, commit_is, found_by)
	  SELECT m.new, x.name, x.version, x."commit", x.repo, x.commit_is, x.found_by
	  FROM m JOIN components x ON x.crash_id = m.old;
	DELETE FROM signature_hosts;
	DELETE FROM signature_versions;
	INSERT INTO signature_hosts SELECT signature, host, count(*), min(time), max(time)
	  FROM crashes GROUP BY signature, host;
	INSERT INTO signature_versions(signature, component, version, count)
	  SELECT c.signature, v.name, coalesce(v.version, '?'),
	  count(DISTINCT v.crash_id) FROM components v JOIN crashes c ON c.id = v.crash_id
	  GROUP BY c.signature, v.name, coalesce(v.version, '?');
	DELETE FROM signature_days;
	INSERT INTO signature_days SELECT signature, substr(time, 1, 10), count(*) FROM crashes
	  WHERE time IS NOT NULL GROUP BY 1, 2;
	COMMIT;
	ANALYZE;
	SQL
fi
t1=$(now)
fi
total=$(sql 'SELECT count(*) FROM crashes')
groups=$(sql 'SELECT count(DISTINCT signature) FROM crashes')
last=$(sql 'SELECT max(time) FROM crashes')
since=$(python3 -c "import datetime,sys; t=datetime.datetime.strptime(sys.argv[1], '%Y-%m-%dT%H:%M:%SZ'); print((t - datetime.timedelta(days=1)).strftime('%Y-%m-%dT%H:%M:%SZ'))" "$last")
say "== web ($BACKEND): $total crashes ($groups signatures, $(sql 'SELECT count(*) FROM frames') frames)$([ -n "$REUSE" ] || echo ", grown in $(ms "$t0" "$t1") ms")"

# the CLI first (issue 36's bench): triage, and triage --by day, best of 3
clitime() {	# WHAT ARGS...: wall and peak RSS of provenance triage ARGS, best of 3
	local what=$1 i; shift
	for i in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$d/time.$i" "$PROV" triage --store "$S" "$@" >"$d/$what.out" 2>"$d/$what.err" ||
			{ say "triage $* failed: $(head -2 "$d/$what.err")"; return; }
	done
	cat "$d"/time.[123] | python3 -c "import sys; v=sorted(tuple(map(float, l.split())) for l in sys.stdin); print('triage %s: best %.2f s wall, %.0f MiB peak RSS (%s bytes of output)' % (sys.argv[1], v[0][0], v[0][1] / 1024, sys.argv[2]))" "$*" "$(wc -c <"$d/$what.out")"
}
clitime cli-triage --format json
clitime cli-byday --by day --format json
since7=$(python3 -c "import datetime,sys; t=datetime.datetime.strptime(sys.argv[1], '%Y-%m-%dT%H:%M:%SZ'); print((t - datetime.timedelta(days=7)).strftime('%Y-%m-%dT%H:%M:%S'))" "$last")
clitime cli-byday7 --since "$since7" --by day --format json	# the store's last week

# serve, with a time limit no page of the bench reaches (a 503 is not a time)
"$PROV" serve --store "$S" --listen 127.0.0.1:0 --timeout 3600000 >"$d/serve.out" 2>"$d/serve.err" &
SPID=$!
for _ in $(seq 100); do [ -s "$d/serve.out" ] && break; sleep 0.1; done
base=$(sed -n 's#^listening on \(http://[^ ]*\)/ .*#\1#p' "$d/serve.out")
[ -n "$base" ] || { cat "$d/serve.err"; exit 1; }
timeit() {	# WHAT PATH: warm-up, then best and median of 5 (ms), HTTP status and size
	local what=$1 path=$2 i v code size
	code=$(curl -s -o "$d/$what.body" -w '%{http_code}' "$base$path")
	size=$(wc -c <"$d/$what.body")
	for i in 1 2 3 4 5; do
		curl -s -o /dev/null -w '%{time_total}\n' "$base$path"
	done | python3 -c "import sys; v=sorted(float(x)*1000 for x in sys.stdin); print('%s %s: HTTP %s, %s bytes, best %.0f ms, median %.0f ms' % (sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], v[0], v[2]))" "$what" "$path" "$code" "$size"
}
timeit top /
timeit since "/?since=$since"
timeit api /api/triage.json
say "  (the last day: since=$since, $(sql "SELECT count(*) FROM crashes WHERE time >= '$since'") crashes)"
