#!/usr/bin/env bash
# The crash store end to end: two real crashes (a NULL read in a library,
# an abort) are resolved to JSON, then store-gen.py makes 1,500 reports from
# them as if from 100 hosts over a week, with a synthetic component version
# split.  They are imported (a file of JSON lines, stdin, an array file, and
# again to check deduplication), and triage's counts, hosts, first/last
# seen, shares, repro rate and version split are checked against what the
# generator chose (TRUTH), never against provenance's own output. Then
# `resolve --store` on the real core reports the history TRUTH predicts,
# and `query` answers counts SQLite itself (python3's sqlite3) agrees with
# and refuses writes, several statements, ATTACH, writing pragmas, runaway
# and over-long queries, each with one line and exit 2, leaving the store
# unchanged.
# test: slow
. "$(dirname "$0")/lib.sh"

can_dump_core
mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
build_fixture "$TOP/fixtures/crashers/abort.c" "$T/bin/abort"
null_core=$(make_core "$T/bin" ./nullmain) || exit $?
mv "$null_core" "$T/core.null"
abort_core=$(make_core "$T/bin" ./abort) || exit $?
mv "$abort_core" "$T/core.abort"
S="$T/store.sqlite"
N=1500
RUNS=4000

"$PROVENANCE" resolve --offline --format json "$T/core.null" >"$T/a.json" 2>"$T/a.err"
[ $? -le 1 ] || { cat "$T/a.err"; fail "resolve of the NULL-read core"; }
"$PROVENANCE" resolve --offline --format json "$T/core.abort" >"$T/b.json" 2>"$T/b.err"
[ $? -le 1 ] || { cat "$T/b.err"; fail "resolve of the abort core"; }
# the crashing functions the sources name are at the top of each template
check_eq "$(json_get "$T/a.json" "[t for t in d['threads'] if t['crashed']][0]['frames'][0]['function']")" \
	"$(grep -o 'lib_read_value' "$TOP/fixtures/crashers/libnull.c" | head -1)" "top function of the NULL read"

python3 "$TOP/tests/e2e/store-gen.py" "$T/reports.jsonl" "$T/truth.json" $N 100 16 "$T/a.json" "$T/b.json" ||
	fail "store-gen.py"
truth() { json_get "$T/truth.json" "$1"; }

# ---- import: a JSON-lines file, stdin, an array; then everything again ----
head -n 700 "$T/reports.jsonl" >"$T/part1.jsonl"
sed -n '701,1400p' "$T/reports.jsonl" >"$T/part2.jsonl"
sed -n '1401,$p' "$T/reports.jsonl" | python3 -c 'import json,sys; json.dump([json.loads(l) for l in sys.stdin], sys.stdout, indent=2)' >"$T/part3.json"
check_exit 0 "import of a JSON-lines file" -- "$PROVENANCE" import --store "$S" "$T/part1.jsonl"
check_match "$(cat "$T/last.err")" "^imported 700 reports \(0 already" "import summary"
check_exit 0 "import from stdin" -- sh -c '"$1" import --store "$2" - <"$3"' sh "$PROVENANCE" "$S" "$T/part2.jsonl"
check_exit 0 "import of an array" -- "$PROVENANCE" import --store "$S" "$T/part3.json"
check_exit 0 "import of everything again" -- "$PROVENANCE" import --store "$S" "$T/reports.jsonl"
check_match "$(cat "$T/last.err")" "^imported 0 reports \($N already" "the same reports are stored once"
sqlite() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$S" "$1"; }
check_eq "$(sqlite 'SELECT count(*) FROM crashes')" $N "crashes in the store (sqlite3)"

# JSON lines stream a report at a time: a file past the 64 MiB cap of one
# report (the same reports repeated) is imported whole, each stored once
big=$T/big.jsonl
while [ "$(stat -c %s "$big" 2>/dev/null || echo 0)" -le $((64 << 20)) ]; do cat "$T/reports.jsonl" >>"$big"; done
check_exit 0 "import of a $(( $(stat -c %s "$big") >> 20 )) MiB JSON-lines file" -- "$PROVENANCE" import --store "$T/big.sqlite" "$big"
check_eq "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM crashes").fetchone()[0])' "$T/big.sqlite")" $N "crashes from the big file, each once (sqlite3)"
rm -f "$big"
check_eq "$(sqlite 'PRAGMA integrity_check')" ok "integrity_check"

# a bad report among good ones: one line, exit 2, the good one still imported
printf '{"schema": "provenance/1", "threads": [' >"$T/bad.json"
head -c 300 /dev/urandom >"$T/noise.json"
check_exit 2 "import of a truncated report" -- "$PROVENANCE" import --store "$T/other.sqlite" "$T/bad.json" "$T/a.json" "$T/noise.json"
check_match "$(head -1 "$T/last.err")" "^provenance: bad report '.*bad.json': " "bad report message"
check_eq "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM crashes").fetchone()[0])' "$T/other.sqlite")" 1 "the good report beside bad ones"

head -c 3000 "$T/b.json" >"$T/trunc.json"	# a pretty-printed report cut short: one message, not one per line
check_exit 2 "import of a report cut short" -- "$PROVENANCE" import --store "$T/other.sqlite" "$T/trunc.json"
check_eq "$(grep -c '^provenance: bad report' "$T/last.err")" 1 "one message for a report cut short"

# ---- triage against the generator's truth ----
check_exit 0 "triage --format json" -- "$PROVENANCE" triage --store "$S" --runs $RUNS --format json
cp "$T/last.out" "$T/triage.json"
check_eq "$(json_get "$T/triage.json" "d['total']")" $N "triage total"
check_eq "$(json_get "$T/triage.json" "d['hosts']")" "$(truth "d['hosts']")" "triage hosts"
check_eq "$(json_get "$T/triage.json" "len(d['groups'])")" 2 "triage groups"
for k in 0 1; do
	sig=$(truth "d['templates'][$k]['signature']")
	g="[g for g in d['groups'] if g['signature']=='$sig'][0]"
	count=$(truth "d['templates'][$k]['count']")
	check_eq "$(json_get "$T/triage.json" "$g['count']")" "$count" "template $k: count"
	check_eq "$(json_get "$T/triage.json" "$g['hosts']")" "$(truth "d['templates'][$k]['hosts']")" "template $k: hosts"
	check_eq "$(json_get "$T/triage.json" "$g['first_seen']")" "$(truth "d['templates'][$k]['first']")" "template $k: first seen"
	check_eq "$(json_get "$T/triage.json" "$g['last_seen']")" "$(truth "d['templates'][$k]['last']")" "template $k: last seen"
	check_eq "$(json_get "$T/triage.json" "'%.4f' % $g['share']")" "$(python3 -c "print('%.4f' % ($count / $N))")" "template $k: share"
	check_eq "$(json_get "$T/triage.json" "'%.4f' % $g['repro_rate']")" "$(python3 -c "print('%.4f' % ($count / $RUNS))")" "template $k: repro rate"
	for v in 2.19.3 2.20.1; do
		check_eq "$(json_get "$T/triage.json" "sum(c['count'] for c in $g['components'] if c['name']=='rccl' and c['version']=='$v')")" \
			"$(truth "d['templates'][$k]['rccl'].get('$v', 0)")" "template $k: crashes with rccl $v"
		check_eq "$(json_get "$T/triage.json" "sum(c['approximate'] for c in $g['components'] if c['name']=='rccl' and c['version']=='$v')")" \
			"$(truth "d['templates'][$k]['rccl_approximate'].get('$v', 0)")" "template $k: approximate rccl $v commits"
	done
done
# template 0 happens only with rccl 2.20.1: the text says so
check_exit 0 "triage (text)" -- "$PROVENANCE" triage --store "$S" --runs $RUNS
check_match "$(cat "$T/last.out")" "only with: rccl 2\.20\.1 \(never with 2\.19\.3" "the version split"
check_match "$(cat "$T/last.out")" "rccl 2\.20\.1 \($(truth "d['templates'][0]['rccl']['2.20.1']"), $(truth "d['templates'][0]['rccl_approximate']['2.20.1']") approximate\)" "approximate commits in the text"
check_match "$(cat "$T/last.out")" "repro rate: [0-9.]+% \($(truth "d['templates'][0]['count']") of $RUNS runs\)" "repro rate line"
check_exit 0 "triage --format markdown" -- "$PROVENANCE" triage --store "$S" --format markdown
check_match "$(head -1 "$T/last.out")" "^# Crash triage" "markdown triage"
# --since: the generator's own times say how many are left
since=2026-10-05T00:00:00Z
want=$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["crash"]["time"] >= sys.argv[2]))' "$T/reports.jsonl" $since)
check_exit 0 "triage --since" -- "$PROVENANCE" triage --store "$S" --since $since --format json
check_eq "$(json_get "$T/last.out" "d['total']")" "$want" "crashes since $since"
want=$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if any(c["name"]=="rccl" for c in json.loads(l)["components"])))' "$T/reports.jsonl")
check_exit 0 "triage --component rccl" -- "$PROVENANCE" triage --store "$S" --component rccl --format json
check_eq "$(json_get "$T/last.out" "d['total']")" "$want" "crashes with component rccl"

# ---- resolve --store: the history line the truth predicts ----
"$PROVENANCE" resolve --offline --store="$S" --host fresh-node "$T/core.null" >"$T/last.out" 2>"$T/last.err"
rc=$?
[ $rc -le 1 ] || { cat "$T/last.err"; fail "resolve --store exited $rc"; }
cnt=$(truth "d['templates'][0]['count']")
hosts=$(truth "d['templates'][0]['hosts']")
first=$(truth "d['templates'][0]['first'][:10]")
plain=$(truth "'%s on %s' % tuple(d['templates'][0]['last_plain'])")
check_match "$(cat "$T/last.out")" "core\.null: seen $cnt times on $hosts hosts since $first; last with the same component versions: $plain" "history line"
check_eq "$(sqlite "SELECT count(*) FROM crashes WHERE host='fresh-node'")" 1 "the resolved crash is stored"
check_eq "$(sqlite "SELECT signature FROM crashes WHERE host='fresh-node'")" "$(truth "d['templates'][0]['signature']")" "resolve's signature = import's"

# ---- query ----
check_exit 0 "query count" -- "$PROVENANCE" query --store "$S" --format csv "SELECT count(*) AS n FROM crashes WHERE signal = 6"
check_eq "$(tail -1 "$T/last.out" | tr -d '\r')" "$(sqlite 'SELECT count(*) FROM crashes WHERE signal = 6')" "query agrees with sqlite3"
check_eq "$(tail -1 "$T/last.out" | tr -d '\r')" "$(truth "d['templates'][1]['count']")" "SIGABRT crashes = generated aborts"
# how each component's commit was found: the generator's own choices
want=$(truth "sum(sum(t['rccl_approximate'].values()) for t in d['templates'])")
check_exit 0 "query commit_is, found_by" -- "$PROVENANCE" query --store "$S" --format csv \
	"SELECT count(*) AS n FROM components WHERE name = 'rccl' AND commit_is = 'approximate' AND found_by = 'branch tip'"
check_eq "$(tail -1 "$T/last.out" | tr -d '\r')" "$want" "approximate rccl commits (query) = generated"
want=$(truth "sum(sum(t['rccl'].values()) - sum(t['rccl_approximate'].values()) for t in d['templates'])")
check_exit 0 "query exact commits" -- "$PROVENANCE" query --store "$S" --format csv \
	"SELECT count(*) AS n FROM components WHERE name = 'rccl' AND commit_is = 'exact' AND found_by = 'tag'"
check_eq "$(tail -1 "$T/last.out" | tr -d '\r')" "$want" "exact rccl commits (query) = generated"
check_exit 0 "query json" -- "$PROVENANCE" query --store "$S" --format json "SELECT crash_id, count(*) AS frames FROM frames GROUP BY crash_id ORDER BY crash_id LIMIT 3"
check_eq "$(json_get "$T/last.out" "len(d)")" 3 "query json rows"
check_exit 0 "query table" -- "$PROVENANCE" query --store "$S" "SELECT function, file, line FROM frames WHERE crashed AND depth < 5 AND crash_id = 1"
check_match "$(cat "$T/last.out")" "\(5 rows\)" "five top frames"
before=$(sqlite 'SELECT count(*) FROM crashes')
refuse() {	# WHAT ERE SQL [OPTIONS]
	local what=$1 ere=$2 sql=$3; shift 3
	check_exit 2 "query refuses $what" -- timeout 120 "$PROVENANCE" query --store "$S" "$@" "$sql"
	check_eq "$(wc -l <"$T/last.err")" 1 "$what: one line"
	check_match "$(cat "$T/last.err")" "^provenance: $ere" "$what: message"
	check_eq "$(wc -c <"$T/last.out")" 0 "$what: nothing on stdout"
}
refuse "DELETE" "query refused: the store is read-only" "DELETE FROM crashes"
refuse "UPDATE" "query refused: the store is read-only" "UPDATE crashes SET host = 'x'"
refuse "DROP" "query refused: the store is read-only" "DROP TABLE frames"
refuse "two statements" "query refused: exactly one statement" "SELECT 1; DELETE FROM crashes"
refuse "ATTACH" "query refused: ATTACH" "ATTACH '$T/evil.db' AS evil"
refuse "a writing pragma" "query refused: PRAGMA journal_mode" "PRAGMA journal_mode=DELETE"
refuse "VACUUM INTO" "query refused" "VACUUM INTO '$T/copy.db'"
refuse "a runaway query" "query ran past its time limit of 1000 ms" \
	"WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r" --timeout 1
refuse "too many rows" "query returned more than 100 rows" "SELECT * FROM frames" --max-rows 100
refuse "bad SQL" "bad query: " "SELEC 1"
[ ! -e "$T/evil.db" ] && [ ! -e "$T/copy.db" ] || fail "a refused query wrote a file"
check_eq "$(sqlite 'SELECT count(*) FROM crashes')" "$before" "the store is unchanged after the refusals"
check_exit 2 "query without a store" -- "$PROVENANCE" query --store "$T/none.sqlite" "SELECT 1"
check_match "$(cat "$T/last.err")" "^provenance: no crash store at" "no store message"
[ ! -e "$T/none.sqlite" ] || fail "query created a store"
sum=$(sha256sum <"$T/a.json")
check_exit 2 "import into a file that is not a store" -- "$PROVENANCE" import --store "$T/a.json" "$T/b.json"
check_match "$(cat "$T/last.err")" "is not a crash store" "not a store message"
check_eq "$(sha256sum <"$T/a.json")" "$sum" "a foreign file is left as it was"

# ---- a node-side report carries its host and the core's time (stat), and import keeps them ----
"$PROVENANCE" resolve --offline --format json --host far-node "$T/core.abort" >"$T/far.json" 2>/dev/null
check_eq "$(json_get "$T/far.json" "d['crash']['time']")" "$(date -u -r "$T/core.abort" +%Y-%m-%dT%H:%M:%SZ)" "crash.time = the core's mtime (date -r)"
check_exit 0 "import of a node-side report" -- "$PROVENANCE" import --store "$S" "$T/far.json"
check_eq "$(sqlite "SELECT host || ' ' || time FROM crashes WHERE host = 'far-node'")" \
	"far-node $(date -u -r "$T/core.abort" +%Y-%m-%dT%H:%M:%SZ)" "host and time in the store"

# ---- a hostile report: escape sequences in a function name and a host never reach the terminal ----
python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); r["crash"]["host"]="evil\x1b[2J"; r["crash"]["time"]="2026-10-01T00:00:00Z"
[t for t in r["threads"] if t["crashed"]][0]["frames"][0]["function"]="f\x1b]0;pwn\x07|`x"
print(json.dumps(r))' "$T/a.json" >"$T/evil.jsonl"
check_exit 0 "import of a report with escape sequences" -- "$PROVENANCE" import --store "$T/evil.sqlite" "$T/evil.jsonl"
for fmt in text markdown; do
	check_exit 0 "triage --format $fmt of it" -- "$PROVENANCE" triage --store "$T/evil.sqlite" --format $fmt
	if LC_ALL=C grep -q $'\x1b\|\x07' "$T/last.out"; then fail "triage $fmt printed a control character"; fi
done
check_exit 0 "query of it" -- "$PROVENANCE" query --store "$T/evil.sqlite" "SELECT host, function FROM crashes JOIN frames ON crash_id = id"
if LC_ALL=C grep -q $'\x1b\|\x07' "$T/last.out"; then fail "query printed a control character"; fi
echo "ok: no control characters in triage and query output"
