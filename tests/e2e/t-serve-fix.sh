#!/usr/bin/env bash
# The web view's fix status and `by` (issue 37 on issue 36's lifecycle), on
# SQLite and PostgreSQL: two real crashes (gdb backtraces of two fixture
# programs, resolved here) stored as reports from versions of a component
# "myapp"; the SIGSEGV signature is marked `provenance mark --fixed-in 1.2-1`
# with a hostile note, then gets crashes from 1.1-1 (before the fix) and
# 1.3-1 (a regression); the SIGABRT one is marked fixed in a hostile version
# and only crashes before it. `/` and the signature pages show each group's
# status as `triage --format json` of the same store says (parsed from the
# HTML, compared with the JSON); `/api/triage.json?by=K` equals `triage --by
# K --format json` byte for byte for every K, and `/?by=day` shows each
# group's per-day counts as the generator made them; by=bogus answers 400
# with one line; component=NAME=VERSION is triage --component NAME=VERSION;
# the hostile note and version appear only escaped.
. "$(dirname "$0")/lib.sh"

command -v curl >/dev/null || skip "no curl"
command -v gdb >/dev/null || skip "no gdb"
trap 'stop_servers; rm -rf "$T"' EXIT

two_reports

HOSTILE='<img src=x onerror=alert(1)>'
# gen KIND VERSION DAY N OUT: N reports of crash KIND (a: SIGSEGV, b: SIGABRT) from myapp
# VERSION on 2026-10-DAY, hours 0..N-1; truth.json counts them per signal and day
gen() {
	python3 - "$T" "$@" <<'PY' || fail "gen $*"
import json, os, sys
T, kind, ver, day, n, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
tpl = json.load(open("%s/%s.json" % (T, kind)))
truth = json.load(open(T + "/truth.json")) if os.path.exists(T + "/truth.json") else {}
with open(out, "w") as f:
    for i in range(n):
        r = json.loads(json.dumps(tpl))
        r["crash"]["host"] = "node%d" % (i % 3)
        r["crash"]["time"] = "2026-10-%02dT%02d:00:00Z" % (day, i)
        r["input"]["path"] = "/scratch/%s-%s-%d-%d" % (kind, ver, day, i)
        r["components"].append({"name": "myapp", "version": ver, "commit": None, "repo": None, "ref": None,
                                "subdir": None, "commit_is": "exact", "found_by": "tag", "note": None})
        f.write(json.dumps(r) + "\n")
sig = "SIGSEGV" if kind == "a" else "SIGABRT"
d = truth.setdefault(sig, {})
key = "2026-10-%02d" % day
d[key] = d.get(key, 0) + n
json.dump(truth, open(T + "/truth.json", "w"))
PY
}
rm -f "$T/truth.json"
gen a 1.0-1 3 4 "$T/a-old.jsonl"
gen b 1.0-1 4 3 "$T/b-old.jsonl"
gen b 1.1-1 6 2 "$T/b-old2.jsonl"
gen a 1.1-1 7 2 "$T/a-before.jsonl"
gen a 1.3-1 9 1 "$T/a-regr.jsonl"

get() { curl -s -o "$T/$1" -w '%{http_code}' "$BASE$2"; }
enc() { python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }

# page_fix PAGE: per signature on / (the row's link text), its data-status and "fixed in" text, as JSON
page_fix() {
	python3 - "$1" <<'PY'
import html.parser, json, sys
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(convert_charrefs=True); s.rows, s.cur, s.where = {}, None, None
    def handle_starttag(s, t, a):
        a = dict(a)
        if t == 'tr' and a.get('class') == 'group': s.cur = {'sig': '', 'status': None, 'fixed_in': ''}
        if s.cur is None: return
        if t == 'a' and a.get('href', '').startswith('/signature/') and not s.cur['sig']: s.where = 'sig'
        if t == 'td' and a.get('class') == 'fix': s.cur['status'] = a.get('data-status')
        if t == 'code' and a.get('class') == 'fixed-in': s.where = 'fixed_in'
    def handle_endtag(s, t):
        if t in ('a', 'code'): s.where = None
        if t == 'tr' and s.cur is not None: s.rows[s.cur.pop('sig')] = s.cur; s.cur = None
    def handle_data(s, d):
        if s.cur is not None and s.where: s.cur[s.where] += d
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read())
print(json.dumps(p.rows, sort_keys=True))
PY
}
# json_fix TRIAGE.json: the same from triage --format json
json_fix() {
	json_get "$1" "__import__('json').dumps({g['signature']: {'status': g['fix']['status'] if g['fix'] else '', 'fixed_in': g['fix']['fixed_in'] if g['fix'] else ''} for g in d['groups']}, sort_keys=True)"
}
# no_raw PAGE: the hostile strings appear only escaped
no_raw() {
	! grep -qF '<img src=x' "$T/$1" || fail "$1: a raw <img> from a mark"
	grep -qF '&lt;img src=x onerror=alert(1)&gt;' "$T/$1" || fail "$1: the hostile mark is not shown (escaped)"
}

suite() {	# NAME STORE
	local name=$1 S=$2 segv abrt k want
	"$PROVENANCE" import --store "$S" "$T/a-old.jsonl" "$T/b-old.jsonl" "$T/b-old2.jsonl" >/dev/null 2>&1 || fail "$name: import"
	"$PROVENANCE" triage --store "$S" --format json >"$T/t0.$name.json" || fail "$name: triage"
	segv=$(json_get "$T/t0.$name.json" "[g['signature'] for g in d['groups'] if g['signal'] == 'SIGSEGV'][0]")
	abrt=$(json_get "$T/t0.$name.json" "[g['signature'] for g in d['groups'] if g['signal'] == 'SIGABRT'][0]")
	check_exit 0 "$name: mark SIGSEGV" -- "$PROVENANCE" mark "$segv" --fixed-in 1.2-1 --component myapp --bug https://bugs.example/37 --note "null check $HOSTILE" --store "$S"
	check_exit 0 "$name: mark SIGABRT" -- "$PROVENANCE" mark "$abrt" --fixed-in "9.0-1$HOSTILE" --component myapp --store "$S"
	"$PROVENANCE" import --store "$S" "$T/a-before.jsonl" "$T/a-regr.jsonl" >/dev/null 2>&1 || fail "$name: import 1.1-1 and 1.3-1"

	start_server "$name" --store "$S" --listen 127.0.0.1:0
	"$PROVENANCE" triage --store "$S" --format json >"$T/t.$name.json" || fail "$name: triage"
	check_eq "$(get api.$name /api/triage.json)" 200 "$name: /api/triage.json"
	cmp -s "$T/api.$name" "$T/t.$name.json" || fail "$name: /api/triage.json differs from triage --format json (marks)"
	check_eq "$(json_get "$T/t.$name.json" "[g['fix']['status'] for g in d['groups'] if g['signature'] == '''$segv''']")" '["regression"]' "$name: triage says the SIGSEGV group regressed"
	check_eq "$(json_get "$T/t.$name.json" "[g['fix']['status'] for g in d['groups'] if g['signature'] == '''$abrt''']")" '["fixed"]' "$name: triage says the SIGABRT group is fixed"

	# /: the fix status column, parsed from the HTML, equals triage's JSON
	check_eq "$(get top.$name /)" 200 "$name: /"
	check_eq "$(page_fix "$T/top.$name")" "$(json_fix "$T/t.$name.json")" "$name: / fix status per row = triage --format json"
	grep -q '<span class="regression">REGRESSION</span>' "$T/top.$name" || fail "$name: / does not say REGRESSION"
	no_raw "top.$name"

	# the signature pages: status, fixed in, counts and the versions of myapp its crashes ran
	check_eq "$(get sig.$name "/signature/$(enc "$segv")")" 200 "$name: the SIGSEGV page"
	grep -q '<table class="kv" id="fix" data-status="regression">' "$T/sig.$name" || fail "$name: the page's fix status is not regression"
	check_eq "$(sed -n 's|.*<td class="n" id="with-fix">\([0-9]*\)</td>.*|\1|p' "$T/sig.$name")" \
		"$(json_get "$T/t.$name.json" "[g['fix']['crashes_with_fix'] for g in d['groups'] if g['signature'] == '''$segv'''][0]")" "$name: crashes from builds with the fix"
	check_eq "$(sed -n 's|.*<td class="n" id="before-fix">\([0-9]*\)</td>.*|\1|p' "$T/sig.$name")" \
		"$(json_get "$T/t.$name.json" "[g['fix']['crashes_before_fix'] for g in d['groups'] if g['signature'] == '''$segv'''][0]")" "$name: crashes from builds before it"
	check_eq "$(sed -n 's|.*<span class="mono fix-versions">\([^<]*\)</span>.*|\1|p' "$T/sig.$name" | tr ',' '\n' | sed 's/^ //' | sort | paste -sd,)" \
		"1.0-1 (4),1.1-1 (2),1.3-1 (1)" "$name: the versions of myapp the crashes ran (the generator's)"
	grep -qF '<a href="https://bugs.example/37">' "$T/sig.$name" || fail "$name: the bug is no link"
	no_raw "sig.$name"
	check_eq "$(get sig2.$name "/signature/$(enc "$abrt")")" 200 "$name: the SIGABRT page"
	grep -q 'id="fix" data-status="fixed"' "$T/sig2.$name" || fail "$name: the SIGABRT page is not fixed"
	grep -qF '9.0-1&lt;img src=x onerror=alert(1)&gt;' "$T/sig2.$name" || fail "$name: the hostile version is not shown escaped"
	no_raw "sig2.$name"

	# by: the API is triage --by K byte for byte; / shows the per-day counts of the generator
	for k in day week version host; do
		"$PROVENANCE" triage --store "$S" --by $k --format json >"$T/by-$k.$name.json" || fail "$name: triage --by $k"
		check_eq "$(get api-$k.$name "/api/triage.json?by=$k")" 200 "$name: /api/triage.json?by=$k"
		cmp -s "$T/api-$k.$name" "$T/by-$k.$name.json" || fail "$name: /api/triage.json?by=$k differs from triage --by $k --format json"
	done
	"$PROVENANCE" triage --store "$S" --by day --since 2026-10-05 --host node0 --format json >"$T/by-f.$name.json" || fail "$name: triage --by day --since --host"
	check_eq "$(get api-f.$name "/api/triage.json?since=2026-10-05&by=day&host=node0")" 200 "$name: by with filters"
	cmp -s "$T/api-f.$name" "$T/by-f.$name.json" || fail "$name: /api/triage.json?since&by&host differs from triage"
	# component=NAME=VERSION: only the crashes that ran that version, as triage --component NAME=VERSION
	"$PROVENANCE" triage --store "$S" --component myapp=1.1-1 --by version --format json >"$T/cv.$name.json" || fail "$name: triage --component myapp=1.1-1"
	check_eq "$(get api-cv.$name "/api/triage.json?component=myapp%3D1.1-1&by=version")" 200 "$name: component=NAME=VERSION"
	cmp -s "$T/api-cv.$name" "$T/cv.$name.json" || fail "$name: /api/triage.json?component=myapp=1.1-1 differs from triage --component myapp=1.1-1"
	check_eq "$(json_get "$T/cv.$name.json" "d['total']")" 4 "$name: 4 crashes ran myapp 1.1-1 (the generator's)"
	check_eq "$(get cvbad.$name "/?component=%3D1.1-1")" 400 "$name: component==VERSION"
	check_eq "$(get topd.$name "/?by=day")" 200 "$name: /?by=day"
	want=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print(json.dumps({s: sorted(v.items()) for s, v in sorted(t.items())}))' "$T/truth.json")
	check_eq "$(python3 - "$T/topd.$name" "$T/by-day.$name.json" <<'PY'
import html.parser, json, sys
sig = {g['signature']: g['signal'] for g in json.load(open(sys.argv[2]))['groups']}
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(convert_charrefs=True); s.out, s.sig, s.where, s.key, s.txt = {}, None, None, None, ''
    def handle_starttag(s, t, a):
        a = dict(a)
        if t == 'a' and a.get('href', '').startswith('/signature/') and s.sig is None: s.where, s.txt = 'sig', ''
        if t == 'td' and a.get('class') in ('mono key', 'n count') and s.sig is not None and 'bucket' in s.row: s.where, s.txt = a['class'], ''
        if t == 'tr': s.row = a.get('class', '')
        if t == 'tr' and a.get('class') == 'group': s.sig = None
    def handle_endtag(s, t):
        if s.where == 'sig' and t == 'a': s.sig = s.txt; s.out.setdefault(sig[s.sig], []); s.where = None
        elif s.where == 'mono key' and t == 'td': s.key = s.txt; s.where = None
        elif s.where == 'n count' and t == 'td': s.out[sig[s.sig]].append([s.key, int(s.txt)]); s.where = None
    def handle_data(s, d):
        if s.where: s.txt += d
p = P(); p.row = ''; p.feed(open(sys.argv[1], encoding='utf-8').read())
print(json.dumps({k: v for k, v in sorted(p.out.items())}))
PY
)" "$want" "$name: /?by=day's per-day counts = the generator's"
	check_eq "$(get bogus.$name "/api/triage.json?by=bogus")" 400 "$name: by=bogus (API)"
	check_eq "$(wc -l <"$T/bogus.$name")" 1 "$name: 400 says one line"
	check_eq "$(get bogus2.$name "/?by=bogus")" 400 "$name: by=bogus (/)"
	check_eq "$(get bogus3.$name "/?by=day&by=week")" 400 "$name: by twice"
	stop_servers
	echo "ok: $name: fix status and by"
}

suite sqlite "$T/store.sqlite"
if [ ! -x "${PG_BIN:-/nonexistent}/initdb" ]; then
	echo "ok: SQLite only (no PostgreSQL server here: PostgreSQL part skipped)"
	exit 0
fi
pg_start
trap 'stop_servers; pg_stop; rm -rf "$T"' EXIT
suite pg "$PGURL"
echo "ok: serve's fix status and by on SQLite and PostgreSQL"
