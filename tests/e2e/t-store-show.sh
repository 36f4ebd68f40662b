#!/usr/bin/env bash
# Every report back (issue 36): what `resolve --format json` prints of a real
# NULL read (gdb's backtrace of the fixture run under gdb: no core, so the
# test does not depend on core_pattern) is imported from stdin (pretty JSON, not JSON Lines), and
# `show ID` gives it back byte for byte (cmp); two concatenated reports and an
# array on stdin store one crash each; a crash that is not there is one line
# and exit 2. `triage --since 7d` counts the crashes whose time the test set
# to one day ago and leaves out the one set to thirty days ago.
. "$(dirname "$0")/lib.sh"

command -v gdb >/dev/null || skip "no gdb"
mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
(cd "$T/bin" && gdb -nx -batch -ex run -ex bt ./nullmain) >"$T/bt.txt" 2>&1
grep -q 'SIGSEGV' "$T/bt.txt" || { cat "$T/bt.txt"; fail "gdb did not see the NULL read"; }
S="$T/store.sqlite"
sq() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$S" "$1"; }

"$PROVENANCE" resolve --offline --format json "$T/bt.txt" >"$T/a.json" 2>"$T/a.err"
[ $? -le 1 ] || { cat "$T/a.err"; fail "resolve of the NULL-read backtrace"; }
[ "$(head -c 1 "$T/a.json")" = "{" ] && [ "$(wc -l <"$T/a.json")" -gt 1 ] || fail "resolve --format json is not pretty JSON"

check_exit 0 "resolve --format json | import -" -- sh -c '"$1" import --store "$2" - <"$3"' sh "$PROVENANCE" "$S" "$T/a.json"
check_eq "$(sq 'SELECT count(*) FROM crashes')" 1 "one crash stored (sqlite3)"
id=$(sq 'SELECT id FROM crashes')
check_exit 0 "show $id" -- "$PROVENANCE" show --store "$S" "$id"
cmp "$T/a.json" "$T/last.out" || fail "show does not give back what resolve printed"
echo "ok: show = resolve --format json, byte for byte"
check_exit 0 "show --format json" -- "$PROVENANCE" show --store "$S" --format json "$id"
cmp "$T/a.json" "$T/last.out" || fail "show --format json differs"

# two concatenated reports and an array of two, each with its own time
day=$(date -u -d '1 day ago' +%Y-%m-%dT%H:%M:%SZ)
month=$(date -u -d '30 days ago' +%Y-%m-%dT%H:%M:%SZ)
python3 - "$T/a.json" "$day" "$month" "$T" <<'PY'
import json, sys
src, day, month, t = sys.argv[1:]
r = json.load(open(src))
def at(ts, host):
    x = json.loads(json.dumps(r)); x.setdefault('crash', {})
    x['crash']['time'] = ts; x['crash']['host'] = host
    return x
open(t + '/two.json', 'w').write(json.dumps(at(day, 'h1'), indent=2) + '\n' + json.dumps(at(day, 'h2'), indent=2) + '\n')
json.dump([at(month, 'h3'), at(day, 'h4')], open(t + '/arr.json', 'w'), indent=2)
PY
check_exit 0 "two concatenated reports on stdin" -- sh -c '"$1" import --store "$2" - <"$3"' sh "$PROVENANCE" "$S" "$T/two.json"
check_exit 0 "an array on stdin" -- sh -c '"$1" import --store "$2" - <"$3"' sh "$PROVENANCE" "$S" "$T/arr.json"
check_eq "$(sq 'SELECT count(*) FROM crashes')" 5 "five crashes stored (sqlite3)"
check_eq "$(sq "SELECT count(*) FROM crashes WHERE host IN ('h1','h2','h3','h4')")" 4 "hosts h1..h4 stored"

# ages: the truth is the times the test wrote
want=$(sq "SELECT count(*) FROM crashes WHERE time >= '$(date -u -d '7 days ago' +%Y-%m-%dT%H:%M:%SZ)'")
check_eq "$want" 3 "crashes in the last 7 days (sqlite3, the times written above)"
check_exit 0 "triage --since 7d" -- "$PROVENANCE" triage --store "$S" --since 7d --format json
check_eq "$(json_get "$T/last.out" "d['total']")" "$want" "triage --since 7d total"
check_exit 64 "triage --since 7x" -- "$PROVENANCE" triage --store "$S" --since 7x

# a crash that is not there
check_exit 2 "show of a missing crash" -- "$PROVENANCE" show --store "$S" 999999
check_eq "$(wc -l <"$T/last.err")" 1 "one line for a missing crash"
check_match "$(cat "$T/last.err")" "no crash 999999" "missing crash message"
check_exit 64 "show without an ID" -- "$PROVENANCE" show --store "$S"
check_exit 0 "show --help" -- "$PROVENANCE" show --help
