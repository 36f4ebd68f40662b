#!/usr/bin/env bash
# Triage over time and the fix lifecycle (issue 36), on SQLite and PostgreSQL:
# a generator (python3, here) makes reports of two real crashes (gdb
# backtraces of two fixture programs) with known times over the last 10 days,
# hosts and versions of a component "myapp"; `triage --since 7d --by day`,
# `--by week|host|version` and `--component myapp=VERSION` equal the
# generator's own counts (UTC days, ISO weeks from python's datetime), the
# text has a sparkline (blocks under UTF-8, ASCII otherwise) and Markdown a
# table. `mark SIG --fixed-in 1.2-1 --component myapp`: a crash from 1.1-1
# leaves the group "fixed", one from 1.3-1 makes it a "regression" (text,
# Markdown, JSON); resolve --store says so on its seen-before line. Every
# triage and query JSON here validates against docs/schema/. PostgreSQL's
# answers equal SQLite's.
. "$(dirname "$0")/lib.sh"

command -v gdb >/dev/null || skip "no gdb"
python3 -c 'import jsonschema' 2>/dev/null || skip "no python3-jsonschema"
two_reports

# the generator: times now - [0, 10 days), none within an hour of the 7-day
# cut or in the last minute (the test's own run time cannot move a crash
# across a bucket's edge); truth per signal: per day (7 days), per week,
# host and version, all computed here in UTC
python3 - "$T" <<'PY'
import datetime, json, random, sys
T = sys.argv[1]
rng = random.Random(36)
now = datetime.datetime.now(datetime.timezone.utc)
cut = now - datetime.timedelta(days=7)
tpl = [json.load(open(T + "/a.json")), json.load(open(T + "/b.json"))]
sig = {0: "SIGSEGV", 1: "SIGABRT"}
truth = {"day": {}, "week": {}, "host": {}, "version": {}, "since_total": 0, "version_only": {}}
out = open(T + "/gen.jsonl", "w")
n = 0
while n < 400:
    off = rng.uniform(60, 10 * 86400)
    when = now - datetime.timedelta(seconds=off)
    if abs((when - cut).total_seconds()) < 3600:
        continue
    k = 0 if rng.random() < 0.6 else 1
    host = "node%02d" % rng.randrange(12)
    ver = rng.choice(["1.0-1", "1.2-1", "1.10-1", "1.9~rc1-1"])
    r = json.loads(json.dumps(tpl[k]))
    r["crash"]["host"] = host
    r["crash"]["time"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    r["input"]["path"] = "/scratch/%s/core.%d" % (host, n)
    r["components"].append({"name": "myapp", "version": ver, "commit": None, "repo": None, "ref": None,
                            "subdir": None, "commit_is": "exact", "found_by": "tag", "note": None})
    out.write(json.dumps(r, separators=(",", ":")) + "\n")
    n += 1
    s = sig[k]
    if when >= cut:
        truth["since_total"] += 1
        d = truth["day"].setdefault(s, {})
        key = when.strftime("%Y-%m-%d")
        d[key] = d.get(key, 0) + 1
    y, w, _ = when.isocalendar()
    for kind, key in (("week", "%04d-W%02d" % (y, w)), ("host", host), ("version", "myapp " + ver)):
        d = truth[kind].setdefault(s, {})
        d[key] = d.get(key, 0) + 1
    if ver == "1.2-1":
        truth["version_only"][s] = truth["version_only"].get(s, 0) + 1
json.dump(truth, open(T + "/truth.json", "w"), indent=1)
PY
[ -s "$T/gen.jsonl" ] || fail "the generator"

SCHEMA_T="$TOP/docs/schema/triage.schema.json"
SCHEMA_Q="$TOP/docs/schema/query.schema.json"
# buckets of a triage JSON as {signal: {key: count}}, in the JSON's order
buckets() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(json.dumps({g["signal"]: {b["key"]: b["count"] for b in g["buckets"]} for g in d["groups"]}, sort_keys=True))' "$1"; }
want() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]], sort_keys=True))' "$T/truth.json" "$1"; }
# triage JSON without the store-specific crash ids and mark times
norm() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for g in d["groups"]:
    g.pop("latest_crash_id", None)
    if g.get("fix"): g["fix"].pop("marked", None)
print(json.dumps(d, sort_keys=True))' "$1"; }
NJSON=0
triage_json() {	# STORE NAME ARGS...: triage --format json into $T/NAME.json, validated
	local store=$1 name=$2; shift 2
	check_exit 0 "triage $* ($name)" -- "$PROVENANCE" triage --store "$store" --format json "$@"
	cp "$T/last.out" "$T/$name.json"
	python3 "$TOP/tests/e2e/check-schema.py" "$SCHEMA_T" "$T/$name.json" || fail "$name: triage.schema.json"
	NJSON=$((NJSON + 1))
}

run_store() {	# STORE TAG: every check on one store
	local S=$1 tag=$2
	check_exit 0 "$tag: import" -- "$PROVENANCE" import --store "$S" "$T/gen.jsonl"
	triage_json "$S" "$tag-day" --since 7d --by day
	check_eq "$(json_get "$T/$tag-day.json" "d['total']")" "$(json_get "$T/truth.json" "d['since_total']")" "$tag: --since 7d total = the generator's"
	check_eq "$(buckets "$T/$tag-day.json")" "$(want day)" "$tag: --since 7d --by day = the generator's per-day counts"
	check_eq "$(json_get "$T/$tag-day.json" "d['by']")" day "$tag: by"
	triage_json "$S" "$tag-week" --by week
	check_eq "$(buckets "$T/$tag-week.json")" "$(want week)" "$tag: --by week = python's ISO weeks"
	triage_json "$S" "$tag-host" --by host
	check_eq "$(buckets "$T/$tag-host.json")" "$(want host)" "$tag: --by host = the generator's"
	triage_json "$S" "$tag-version" --by version --component myapp
	check_eq "$(buckets "$T/$tag-version.json")" "$(want version)" "$tag: --by version = the generator's"
	check_eq "$(json_get "$T/$tag-version.json" "[b['key'] for b in d['groups'][0]['buckets']]")" \
		'["myapp 1.0-1", "myapp 1.2-1", "myapp 1.9~rc1-1", "myapp 1.10-1"]' "$tag: versions in dpkg order"
	triage_json "$S" "$tag-only" --component myapp=1.2-1
	check_eq "$(json_get "$T/$tag-only.json" "json.dumps({g['signal']: g['count'] for g in d['groups']}, sort_keys=True)")" \
		"$(want version_only)" "$tag: --component myapp=1.2-1 = the generator's"
	triage_json "$S" "$tag-plain"
	check_eq "$(json_get "$T/$tag-plain.json" "'buckets' in d['groups'][0]")" false "$tag: no buckets without --by"
	# text: a sparkline over the days, blocks only under UTF-8
	LC_ALL=C.UTF-8 "$PROVENANCE" triage --store "$S" --since 7d --by day >"$T/$tag-utf8.txt" || fail "$tag: text"
	grep -q "by day: .*[▁▂▃▄▅▆▇█]" "$T/$tag-utf8.txt" || fail "$tag: no block sparkline under UTF-8"
	LC_ALL=C "$PROVENANCE" triage --store "$S" --since 7d --by day >"$T/$tag-c.txt" || fail "$tag: text"
	grep -q "by day: " "$T/$tag-c.txt" || fail "$tag: no sparkline in text"
	LC_ALL=C grep -q $'[\x80-\xff]' "$T/$tag-c.txt" && fail "$tag: non-ASCII text under LC_ALL=C"
	echo "ok: $tag: sparkline blocks under UTF-8, ASCII under C"
	"$PROVENANCE" triage --store "$S" --by host --format markdown >"$T/$tag.md" || fail "$tag: markdown"
	grep -q "^| host | crashes |" "$T/$tag.md" || fail "$tag: no Markdown table"
	check_exit 64 "$tag: --by nonsense" -- "$PROVENANCE" triage --store "$S" --by month
	# the query JSON validates too
	# on PostgreSQL query runs as the documented read-only role (a superuser is refused)
	local QS=$S
	[ "$tag" = pg ] && { pg_reader prov; QS=$PGRO; }
	check_exit 0 "$tag: query json" -- "$PROVENANCE" query --store "$QS" --format json "SELECT id, signature, time, host FROM crashes ORDER BY id LIMIT 5"
	python3 "$TOP/tests/e2e/check-schema.py" "$SCHEMA_Q" "$T/last.out" || fail "$tag: query.schema.json"
}

# ---- the lifecycle on a fresh store: 1.1-1 is before the fix, 1.3-1 has it ----
one() {	# VERSION TIME OUT: the SIGSEGV report from myapp VERSION
	python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); r["crash"]["host"]="lc"; r["crash"]["time"]=sys.argv[3]
r["input"]["path"]="/lc/"+sys.argv[2]
r["components"].append({"name":"myapp","version":sys.argv[2],"commit":None,"repo":None,"ref":None,"subdir":None,"commit_is":"exact","found_by":"tag","note":None})
print(json.dumps(r))' "$T/a.json" "$1" "$2" >"$3"
}
one 1.1-1 2026-01-01T10:00:00Z "$T/old.json"
one 1.3-1 2026-01-02T10:00:00Z "$T/new.json"
lifecycle() {	# STORE TAG
	local S=$1 tag=$2 sig
	check_exit 0 "$tag: import 1.1-1" -- "$PROVENANCE" import --store "$S" "$T/old.json"
	triage_json "$S" "$tag-lc0"
	sig=$(json_get "$T/$tag-lc0.json" "d['groups'][0]['signature']")
	check_eq "$(json_get "$T/$tag-lc0.json" "d['groups'][0]['fix']")" null "$tag: unmarked: no fix"
	check_exit 0 "$tag: mark" -- "$PROVENANCE" mark "$sig" --fixed-in 1.2-1 --component myapp --bug https://bugs.example/36 --note "null check" --store "$S"
	triage_json "$S" "$tag-lc1"
	check_eq "$(json_get "$T/$tag-lc1.json" "[d['groups'][0]['fix'][k] for k in ('fixed_in','component','bug','note','status','crashes_with_fix','crashes_before_fix')]")" \
		'["1.2-1", "myapp", "https://bugs.example/36", "null check", "fixed", 0, 1]' "$tag: a crash from 1.1-1: fixed, not a regression"
	"$PROVENANCE" triage --store "$S" >"$T/$tag-lc1.txt"
	grep -q "lifecycle: fixed: fixed in 1.2-1 of myapp" "$T/$tag-lc1.txt" || fail "$tag: text says fixed"
	grep -q REGRESSION "$T/$tag-lc1.txt" && fail "$tag: a regression from 1.1-1"
	check_exit 0 "$tag: import 1.3-1" -- "$PROVENANCE" import --store "$S" "$T/new.json"
	triage_json "$S" "$tag-lc2"
	check_eq "$(json_get "$T/$tag-lc2.json" "[d['groups'][0]['fix'][k] for k in ('status','crashes_with_fix','crashes_before_fix')]")" \
		'["regression", 1, 1]' "$tag: a crash from 1.3-1: regression"
	"$PROVENANCE" triage --store "$S" >"$T/$tag-lc2.txt"
	grep -q "lifecycle: REGRESSION: fixed in 1.2-1 of myapp" "$T/$tag-lc2.txt" || fail "$tag: text says REGRESSION"
	"$PROVENANCE" triage --store "$S" --format markdown >"$T/$tag-lc2.md"
	grep -q "^- \*\*REGRESSION\*\*: fixed in 1.2-1 of myapp.*bug https://bugs.example/36; note: null check" "$T/$tag-lc2.md" || fail "$tag: markdown says REGRESSION"
	# resolve --store: this backtrace's report names no myapp: the line says it cannot tell
	"$PROVENANCE" resolve --offline --store="$S" "$T/bt1.txt" >"$T/$tag-resolve.err" 2>&1
	grep -q "marked fixed in 1.2-1 of myapp; could not determine whether this build has the fix" "$T/$tag-resolve.err" ||
		{ cat "$T/$tag-resolve.err"; fail "$tag: resolve --store's seen-before line"; }
	echo "ok: $tag: resolve --store says it could not determine"
	# a mark by commit: the store cannot order other commits
	check_exit 0 "$tag: mark by commit" -- "$PROVENANCE" mark "$sig" --fixed-in 0123abcd4567ef --store "$S"
	triage_json "$S" "$tag-lc3"
	check_eq "$(json_get "$T/$tag-lc3.json" "d['groups'][0]['fix']['status']")" undetermined "$tag: a commit fix without ancestry: could not determine"
	check_exit 64 "$tag: mark without --fixed-in" -- "$PROVENANCE" mark "$sig" --store "$S"
}

run_store "$T/s.sqlite" lite
lifecycle "$T/lc.sqlite" litelc

# ---- PostgreSQL: the same answers ----
if [ ! -x "${PG_BIN:-/nonexistent}/initdb" ]; then
	echo "ok: $NJSON triage JSON documents valid; SQLite only (no PostgreSQL server here: PostgreSQL part skipped)"
	exit 0
fi
pg_start
run_store "$PGURL" pg
for k in day week host version only plain; do
	check_eq "$(norm "$T/pg-$k.json")" "$(norm "$T/lite-$k.json")" "triage --by $k: PostgreSQL = SQLite"
done
psql -h "$PGDIR" -U postgres -d postgres -qAt -c 'CREATE DATABASE lc' >/dev/null || fail "create database lc"
LCURL="postgresql:///lc?host=$PGDIR&user=postgres"
lifecycle "$LCURL" pglc
for k in lc1 lc2 lc3; do
	check_eq "$(norm "$T/pglc-$k.json")" "$(norm "$T/litelc-$k.json")" "lifecycle $k: PostgreSQL = SQLite"
done
echo "ok: $NJSON triage JSON documents valid against triage.schema.json"
