#!/usr/bin/env bash
# provenance serve: the web view of a crash store of real reports (cores made
# here, resolved, spread over hosts and days by store-gen.py, plus one
# hostile report), on SQLite and on PostgreSQL. Every page and API is
# fetched with curl and checked against `triage --format json`, `show` and
# the generator's own truth; hostile names appear only escaped; POST is
# refused; the default bind is loopback. Headless Chromium renders / and a
# signature page (rows, one bar per day) and writes a screenshot into
# tests/out/. The servers are stopped on every exit path.
# test: slow
. "$(dirname "$0")/lib.sh"

command -v curl >/dev/null || skip "no curl"
trap 'stop_servers; rm -rf "$T"' EXIT

mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
build_fixture "$TOP/fixtures/crashers/abort.c" "$T/bin/abort"
# core CMD OUT: the core of CMD's crash; by the kernel, or by gdb at the signal
# when core_pattern pipes cores elsewhere (another test collecting)
core() {
	local c
	if (can_dump_core) >/dev/null 2>&1; then
		c=$(make_core "$T/bin" "./$1") || exit 1
		mv "$c" "$2"
	else
		(cd "$T/bin" && gdb -q -batch -ex run -ex "generate-core-file $2" "./$1") >/dev/null 2>&1
		[ -s "$2" ] || fail "gdb made no core of $1"
	fi
}
core nullmain "$T/core.null"
core abort "$T/core.abort"
"$PROVENANCE" resolve --offline --format json "$T/core.null" >"$T/a.json" 2>/dev/null
"$PROVENANCE" resolve --offline --format json "$T/core.abort" >"$T/b.json" 2>/dev/null
N=300
python3 "$TOP/tests/e2e/store-gen.py" "$T/reports.jsonl" "$T/truth.json" $N 12 7 "$T/a.json" "$T/b.json" ||
	fail "store-gen.py"
# spread the crashes over 40 days, none on days 10 to 14 (days without a crash are bars of 0)
python3 - "$T/reports.jsonl" <<'PY' || fail "spread the times"
import datetime, json, random, sys
rng = random.Random(5)
base = datetime.datetime(2026, 10, 1, tzinfo=datetime.timezone.utc)
lines = []
for l in open(sys.argv[1]):
    r = json.loads(l)
    day = rng.choice([d for d in range(40) if not 10 <= d <= 14])
    r["crash"]["time"] = (base + datetime.timedelta(days=day, seconds=rng.randrange(86400))).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines.append(json.dumps(r))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
# the hostile report: the null crash with a function, a host and an input made to break out
HOSTILE_FN='</svg><img src=x onerror=alert(1)>'
HOSTILE_HOST="node\"7' onmouseover=alert(2) <b>"
python3 - "$T/a.json" "$T/hostile.json" "$HOSTILE_FN" "$HOSTILE_HOST" <<'PY' || fail "make the hostile report"
import json, sys
r = json.load(open(sys.argv[1]))
r["crash"]["host"] = sys.argv[4]
r["crash"]["time"] = "2026-11-20T10:00:00Z"
done = False
for t in r["threads"]:
    for f in t.get("frames", []):
        if not done and f.get("function"):
            f["function"] = sys.argv[3]
            done = True
json.dump(r, open(sys.argv[2], "w"))
PY
SQ="$T/store.sqlite"
"$PROVENANCE" import --store "$SQ" "$T/reports.jsonl" "$T/hostile.json" >/dev/null 2>&1 || fail "import into SQLite"

# get NAME PATH: fetch into $T/NAME (body) and $T/NAME.h (headers); prints the status
get() { curl -s -o "$T/$1" -D "$T/$1.h" -w '%{http_code}' "$BASE$2"; }
# hostile NAME: the page holds none of the hostile strings raw, and every <svg> closes once
hostile_free() {
	local f=$T/$1
	! grep -qF '<img src=x' "$f" || fail "$1: a raw <img> from a report"
	! grep -qF 'onmouseover=alert' "$f" || grep -qF 'onmouseover=alert(2) &lt;b&gt;' "$f" || fail "$1: a raw host"
	grep -q '<b>' "$f" && fail "$1: a raw <b> from a host"
	check_eq "$(grep -o '<svg' "$f" | wc -l)" "$(grep -o '</svg>' "$f" | wc -l)" "$1: <svg> and </svg> pair up"
}

suite() {	# NAME STORE
	local name=$1 S=$2 sig enc id hsig hid fn want
	start_server "$name" --store "$S" --listen 127.0.0.1:0
	"$PROVENANCE" triage --store "$S" --format json >"$T/triage.$name.json" || fail "$name: triage"
	check_eq "$(get api.$name /api/triage.json)" 200 "$name: /api/triage.json"
	cmp -s "$T/api.$name" "$T/triage.$name.json" || fail "$name: /api/triage.json differs from triage --format json"
	SINCE=$(python3 -c 'import json,sys; t=sorted(json.loads(l)["crash"]["time"] for l in open(sys.argv[1])); print(t[len(t)//2][:10])' "$T/reports.jsonl")
	"$PROVENANCE" triage --store "$S" --since "$SINCE" --component libnull.so --format json >"$T/triage-f.$name.json" || fail "$name: triage --since"
	check_eq "$(get apif.$name "/api/triage.json?since=$SINCE&component=libnull.so")" 200 "$name: /api/triage.json?since"
	cmp -s "$T/apif.$name" "$T/triage-f.$name.json" || fail "$name: /api/triage.json?since=&component= differs from triage"
	HOST1=$(python3 -c 'import json,sys; print(sorted(json.loads(l)["crash"]["host"] for l in open(sys.argv[1]))[0])' "$T/reports.jsonl")
	"$PROVENANCE" triage --store "$S" --until "$SINCE" --host "$HOST1" --format json >"$T/triage-u.$name.json" || fail "$name: triage --until --host"
	check_eq "$(get apiu.$name "/api/triage.json?until=$SINCE&host=$HOST1")" 200 "$name: /api/triage.json?until=&host="
	cmp -s "$T/apiu.$name" "$T/triage-u.$name.json" || fail "$name: /api/triage.json?until=&host= differs from triage"
	"$PROVENANCE" triage --store "$S" --by week --format json >"$T/triage-w.$name.json" || fail "$name: triage --by week"
	check_eq "$(get apiw.$name '/api/triage.json?by=week')" 200 "$name: /api/triage.json?by=week"
	cmp -s "$T/apiw.$name" "$T/triage-w.$name.json" || fail "$name: /api/triage.json?by=week differs from triage --by week"
	check_eq "$(get bad.$name '/api/triage.json?by=month')" 400 "$name: by=month (not a kind of triage --by)"
	check_eq "$(wc -l <"$T/bad.$name")" 1 "$name: 400 says one line"
	check_eq "$(get bad2.$name '/?colour=red')" 400 "$name: an unknown parameter"

	check_eq "$(get top.$name /)" 200 "$name: /"
	grep -qi '^content-security-policy: default-src .none.' "$T/top.$name.h" || fail "$name: no CSP header"
	grep -qi '^x-content-type-options: nosniff' "$T/top.$name.h" || fail "$name: no nosniff header"
	grep -qi '^referrer-policy:' "$T/top.$name.h" || fail "$name: no Referrer-Policy header"
	check_eq "$(grep -c '<tr class="group">' "$T/top.$name")" "$(json_get "$T/triage.$name.json" "len(d['groups'])")" "$name: one row per signature"
	check_eq "$(sed -n 's|.*<span id="total">\([0-9]*\)</span>.*|\1|p' "$T/top.$name")" "$(json_get "$T/triage.$name.json" "d['total']")" "$name: total"
	check_eq "$(grep -o '<svg class="spark"' "$T/top.$name" | wc -l)" "$(json_get "$T/triage.$name.json" "len(d['groups'])")" "$name: a sparkline per row"
	hostile_free "top.$name"
	check_eq "$(get css.$name /style.css)" 200 "$name: /style.css"

	# the largest group's page: its crashes per day from the generator's reports
	sig=$(json_get "$T/triage.$name.json" "d['groups'][0]['signature']")
	enc=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$sig")
	check_eq "$(get sig.$name "/signature/$enc")" 200 "$name: /signature/"
	want=$("$PROVENANCE" query --store "${QSTORE:-$S}" --format csv "SELECT signature, substr(time,1,10) FROM crashes" | python3 -c '
import sys, csv, datetime
sig = sys.argv[1]
days = sorted({r[1] for r in csv.reader(sys.stdin) if r and r[0] == sig})
d0, d1 = (datetime.date.fromisoformat(days[0]), datetime.date.fromisoformat(days[-1]))
print((d1 - d0).days + 1)' "$sig")
	check_eq "$(grep -c '<rect class="bar"' "$T/sig.$name")" "$want" "$name: one bar per day from the first to the last crash"
	check_eq "$(sed -n 's|.*<td id="count">\([0-9]*\)</td>.*|\1|p' "$T/sig.$name")" "$(json_get "$T/triage.$name.json" "d['groups'][0]['count']")" "$name: signature count"
	check_eq "$(grep -c '<tr class="crash">' "$T/sig.$name")" "$(json_get "$T/triage.$name.json" "min(500, d['groups'][0]['count'])")" "$name: its crashes listed"
	hostile_free "sig.$name"

	# the hostile signature's page: the function shown escaped
	hsig=$(json_get "$T/triage.$name.json" "[g['signature'] for g in d['groups'] if '<img' in g['signature']][0]")
	enc=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$hsig")
	check_eq "$(get hsig.$name "/signature/$enc")" 200 "$name: the hostile signature's page"
	grep -qF '&lt;/svg&gt;&lt;img src=x onerror=alert(1)&gt;' "$T/hsig.$name" || fail "$name: the hostile function is not shown escaped"
	grep -qF 'node&quot;7&#39; onmouseover=alert(2) &lt;b&gt;' "$T/hsig.$name" || fail "$name: the hostile host is not shown escaped"
	hostile_free "hsig.$name"

	# every crash: the JSON is show's, the page renders it
	id=$(json_get "$T/triage.$name.json" "d['groups'][0]['latest_crash_id']")
	"$PROVENANCE" show "$id" --store "$S" --format json >"$T/show.$name" || fail "$name: show"
	check_eq "$(get cj.$name "/api/crash/$id.json")" 200 "$name: /api/crash/ID.json"
	cmp -s "$T/cj.$name" "$T/show.$name" || fail "$name: /api/crash/$id.json differs from show"
	check_eq "$(get c.$name "/crash/$id")" 200 "$name: /crash/ID"
	grep -qF "Crash #$id" "$T/c.$name" || fail "$name: the crash page names the crash"
	fn=$(json_get "$T/show.$name" "[f['function'] for t in d['threads'] for f in t.get('frames',[]) if f.get('function')][0]")
	grep -qF "$fn" "$T/c.$name" || fail "$name: the crash page shows the frame '$fn'"
	hid=$(json_get "$T/triage.$name.json" "[g['latest_crash_id'] for g in d['groups'] if '<img' in g['signature']][0]")
	check_eq "$(get hc.$name "/crash/$hid")" 200 "$name: the hostile crash"
	hostile_free "hc.$name"
	# the crash page is the Markdown report: its headings and every table row (the
	# call chain's frames among them) equal what show --format markdown prints
	for cid in "$id" "$hid"; do
		"$PROVENANCE" show "$cid" --store "$S" --format markdown >"$T/md.$name.$cid" || fail "$name: show $cid --format markdown"
		[ "$cid" = "$id" ] && page="$T/c.$name" || page="$T/hc.$name"
		python3 - "$T/md.$name.$cid" "$page" <<'PY' || fail "$name: /crash/$cid differs from show --format markdown"
import html, html.parser, re, sys
md = open(sys.argv[1], encoding='utf-8').read().splitlines()
def plain(s):
    return s.replace('\\|', '|').replace('**', '').replace('`', '').strip()
heads = [plain(m.group(2)) for m in (re.match(r'(#{1,6}) (.*)', l) for l in md) if m]
rows = [[plain(c) for c in re.split(r'(?<!\\)\|', l.strip()[1:-1])] for l in md
        if l.startswith('|') and not re.fullmatch(r'[|\-: ]+', l)]
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(convert_charrefs=True); s.heads, s.rows, s.cur, s.txt, s.inrep = [], [], None, None, False
    def handle_starttag(s, t, a):
        if t == 'div' and ('class', 'report') in a: s.inrep = True
        if not s.inrep: return
        if re.fullmatch(r'h[1-6]|td|th', t): s.txt = ''
        if t == 'tr': s.cur = []
    def handle_endtag(s, t):
        if not s.inrep: return
        if re.fullmatch(r'h[1-6]', t): s.heads.append(s.txt.strip()); s.txt = None
        if t in ('td', 'th'): s.cur.append(s.txt.strip()); s.txt = None
        if t == 'tr': s.rows.append(s.cur)
        if t == 'div': s.inrep = False
    def handle_data(s, d):
        if s.txt is not None: s.txt += d
p = P(); p.feed(open(sys.argv[2], encoding='utf-8').read())
# the page replaces control characters and bad UTF-8 with U+FFFD, as show's Markdown does not
norm = lambda x: re.sub('[\x00-\x1f\x7f-\x9f]', '\ufffd', x)
if [norm(h) for h in heads] != p.heads or [[norm(c) for c in r] for r in rows] != p.rows or not heads or not rows:
    print('markdown headings', heads, 'page', p.heads, file=sys.stderr)
    print('markdown rows', rows[:5], 'page', p.rows[:5], file=sys.stderr)
    sys.exit(1)
print('ok: %d headings and %d table rows as in show --format markdown' % (len(heads), len(rows)))
PY
	done
	check_eq "$(get nc.$name "/crash/999999")" 404 "$name: no such crash"
	check_eq "$(get nc.$name "/api/crash/999999.json")" 404 "$name: no such crash (JSON)"

	check_eq "$(curl -s -o /dev/null -D "$T/post.h" -w '%{http_code}' -X POST -d x=1 "$BASE/")" 405 "$name: POST"
	grep -qi '^allow: GET, HEAD' "$T/post.h" || fail "$name: 405 without Allow"
	check_eq "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$BASE/api/triage.json")" 405 "$name: DELETE"
	check_eq "$(curl -s -o /dev/null -w '%{http_code}' -I "$BASE/")" 200 "$name: HEAD"
	echo "ok: $name: every page and API"
}

suite sqlite "$SQ"

# the default bind: 127.0.0.1:8047 in /proc/net/tcp, never 0.0.0.0
"$PROVENANCE" serve --store "$SQ" >"$T/serve.default.out" 2>"$T/serve.default.err" </dev/null &
dpid=$!
SERVER_PIDS="$SERVER_PIDS $dpid"
for _ in $(seq 50); do grep -q '^listening' "$T/serve.default.out" && break; kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
if grep -q '^listening on http://127.0.0.1:8047/' "$T/serve.default.out"; then
	grep -q '^ *[0-9]*: 0100007F:1F6F 00000000:0000 0A' /proc/net/tcp || fail "default: not listening on 127.0.0.1:8047"
	! grep -q '^ *[0-9]*: 00000000:1F6F 00000000:0000 0A' /proc/net/tcp || fail "default: listening on every address"
	echo "ok: default bind is 127.0.0.1:8047"
else
	note "port 8047 is taken here ($(cat "$T/serve.default.err")): default bind not checked"
fi

# Chromium renders the pages without scripts: rows, one bar per day; a screenshot for docs/web.md
start_server chromium --store "$SQ" --listen 127.0.0.1:0
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
	mkdir -p "$TOP/tests/out"
	ch() { timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chrome" "$@" 2>>"$T/chromium.err"; }
	ch --dump-dom "$BASE/" >"$T/dom.top" || fail "chromium --dump-dom /"
	check_eq "$(grep -o '<tr class="group">' "$T/dom.top" | wc -l)" "$(json_get "$T/triage.sqlite.json" "len(d['groups'])")" "chromium: rows of /"
	enc=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$(json_get "$T/triage.sqlite.json" "d['groups'][0]['signature']")")
	ch --dump-dom "$BASE/signature/$enc" >"$T/dom.sig" ||
		fail "chromium --dump-dom /signature/"
	check_eq "$(grep -o '<rect class="bar"' "$T/dom.sig" | wc -l)" "$(grep -c '<rect class="bar"' "$T/sig.sqlite")" "chromium: one bar per day in the DOM"
	grep -q '<svg class="chart"' "$T/dom.sig" || fail "chromium: no chart"
	! grep -qF '<img src="x"' "$T/dom.top" "$T/dom.sig" || fail "chromium: a hostile <img> became an element"
	ch --screenshot="$TOP/tests/out/serve-top.png" --window-size=1200,900 "$BASE/" >/dev/null || fail "chromium --screenshot"
	ch --screenshot="$TOP/tests/out/serve-signature.png" --window-size=1200,900 "$BASE/signature/$enc" >/dev/null ||
		fail "chromium --screenshot"
	[ -s "$TOP/tests/out/serve-top.png" ] || fail "no screenshot"
	echo "ok: chromium renders / and a signature page (tests/out/serve-top.png)"
else
	note "chromium is not installed (make deps installs it): the rendered DOM was not checked"
fi
stop_servers

pg_start
trap 'stop_servers; pg_stop; rm -rf "$T"' EXIT
"$PROVENANCE" import --store "$PGURL" "$T/reports.jsonl" "$T/hostile.json" >/dev/null 2>&1 || fail "import into PostgreSQL"
pg_reader prov
QSTORE=$PGRO	# query runs as the read-only role docs/store.md gives
suite pg "$PGURL"
cmp -s "$T/api.sqlite" "$T/api.pg" || fail "/api/triage.json differs between SQLite and PostgreSQL"
stop_servers
[ -n "$CHROMIUM" ] || skip "chromium is not installed: the pages were checked with curl only"
echo "ok: serve on SQLite and PostgreSQL"
