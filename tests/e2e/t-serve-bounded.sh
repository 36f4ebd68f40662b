#!/usr/bin/env bash
# serve's triage is bounded in time (issue 37): on a store of 100,000 crashes
# (one real report, gdb's backtrace of the NULL-read fixture resolved at test
# time, copied by SQL with its frames and the summaries rebuilt), `serve
# --timeout 1` answers a filtered `/` and /api/triage.json with 503 and one
# line instead of hanging, and goes on serving: the stylesheet still comes,
# and with the default limit the same page is 200 with the store's count
# (sqlite3's count of that selection is the truth).
. "$(dirname "$0")/lib.sh"

command -v gdb >/dev/null || skip "no gdb"
command -v curl >/dev/null || skip "no curl"
mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
(cd "$T/bin" && gdb -nx -batch -ex run -ex bt ./nullmain) >"$T/bt.txt" 2>&1
"$PROVENANCE" resolve --offline --format json "$T/bt.txt" >"$T/a.json" 2>/dev/null
[ -s "$T/a.json" ] || fail "resolve of gdb's backtrace"
S="$T/store.sqlite"
check_exit 0 "import" -- "$PROVENANCE" import --store "$S" "$T/a.json"
python3 - "$S" <<'PY' || fail "grow the store"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""
BEGIN;
CREATE TEMP TABLE m AS WITH RECURSIVE g(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM g WHERE g < 99999)
  SELECT c.id AS old, g.g AS g, c.id + g.g AS new FROM crashes c, g;
INSERT INTO crashes(id, signature, signal, signal_name, time, host, input, context, patterns,
  executable, kind, hash, added)
  SELECT m.new, c.signature || '#' || (m.g % 20), c.signal, c.signal_name,
  strftime('%Y-%m-%dT%H:%M:%SZ', '2026-11-01T00:00:00Z', '-' || m.g || ' minutes'),
  'h' || (m.g % 50), c.input, c.context, c.patterns, c.executable, c.kind, c.hash || '-' || m.g, c.added
  FROM m JOIN crashes c ON c.id = m.old;
INSERT INTO frames SELECT m.new, f.thread, f.tid, f.crashed, f.depth, f.function, f.file, f.line,
  f.module, f.component, f.language FROM m JOIN frames f ON f.crash_id = m.old;
DELETE FROM signature_hosts;
INSERT INTO signature_hosts SELECT signature, host, count(*), min(time), max(time) FROM crashes GROUP BY signature, host;
DELETE FROM signature_days;
INSERT INTO signature_days SELECT signature, substr(time, 1, 10), count(*) FROM crashes WHERE time IS NOT NULL GROUP BY 1, 2;
COMMIT;
""")
PY
total=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM crashes").fetchone()[0])' "$S")
check_eq "$total" 100000 "crashes in the store (sqlite3)"
since=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM crashes WHERE time >= ?", ("2000-01-01T00:00:00Z",)).fetchone()[0])' "$S")

SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; rm -rf "$T"' EXIT
serve() {	# ARGS...: start serve, set BASE
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	rm -f "$T/serve.out"
	"$PROVENANCE" serve --store "$S" --listen 127.0.0.1:0 "$@" >"$T/serve.out" 2>"$T/serve.err" &
	SPID=$!
	wait_file "$T/serve.out" "serve"
	BASE=$(sed -n 's#^listening on \(http://[^ ]*\)/ .*#\1#p' "$T/serve.out")
	[ -n "$BASE" ] || fail "serve printed no address"
}
get() { curl -s -o "$T/$1" -w '%{http_code}' "$BASE$2"; }

check_exit 64 "serve --timeout 0" -- "$PROVENANCE" serve --store "$S" --timeout 0
serve --timeout 1
check_eq "$(get slow.html '/?since=2000-01-01')" 503 "a filtered / past a 1 ms limit"
check_match "$(grep -o '<p id="error">[^<]*' "$T/slow.html")" "time limit of 1 ms" "the 503 page says why"
check_eq "$(get slow.txt '/api/triage.json?since=2000-01-01')" 503 "/api/triage.json past the limit"
check_eq "$(wc -l <"$T/slow.txt")" 1 "one line"
check_match "$(cat "$T/slow.txt")" "time limit" "the API's line says why"
check_eq "$(get css /style.css)" 200 "the server goes on after a 503"
serve
check_eq "$(get ok.json '/api/triage.json?since=2000-01-01')" 200 "the same query within the default limit"
check_eq "$(json_get "$T/ok.json" "d['total']")" "$since" "its total = sqlite3's count of crashes since 2000-01-01"
