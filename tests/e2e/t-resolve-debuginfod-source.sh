#!/usr/bin/env bash
# Source from debuginfod's /source endpoint: a program whose debug info and
# source only a debuginfod server (started here on 127.0.0.1, a free port)
# has, and no repository mapping: the crashing frame's lines come from the
# server, equal to the fixture's source; none without the server or offline.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v debuginfod >/dev/null || skip "debuginfod (Debian package debuginfod) is not installed"
for c in objcopy python3 eu-readelf; do command -v $c >/dev/null || skip "$c not installed"; done
C=$TOP/fixtures/crashers

# the source lives where the DWARF says, in a directory only the server reads
mkdir -p "$T/src" "$T/run" "$T/served"
cp "$C/badcall.c" "$T/src/badcall.c"
(cd "$T/src" && ${CC:-cc} $CFLAGS_FIXTURE -o "$T/run/prog" "$T/src/badcall.c") || fail "cannot build"
objcopy --only-keep-debug "$T/run/prog" "$T/served/prog.debug"
objcopy --strip-debug --add-gnu-debuglink="$T/served/prog.debug" "$T/run/prog"
cp "$T/run/prog" "$T/served/prog"
core=$(make_core "$T/run" ./prog) || exit 1
want_line=$(grep -n 'CRASH HERE' "$T/src/badcall.c" | cut -d: -f1)

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
debuginfod -F "$T/served" -p "$port" -d "$T/debuginfod.sqlite" -t 0 -g 0 >"$T/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$T"' EXIT
id=$(eu-readelf -n "$T/run/prog" | awk '/Build ID:/{print $3}')
for i in $(seq 1 100); do
	python3 - "$port" "$id" "$T/src/badcall.c" <<'PY' && break
import sys, urllib.request
try:
    urllib.request.urlopen("http://127.0.0.1:%s/buildid/%s/source%s" % (sys.argv[1], sys.argv[2], sys.argv[3]), timeout=2).read(1)
except Exception:
    sys.exit(1)
PY
	sleep 0.2
done
[ $i -lt 100 ] || { cat "$T/server.log"; skip "this debuginfod does not serve /source for the program"; }
echo "ok: debuginfod serves the source of build ID $id"

run_fn='[f for f in [t for t in d["threads"] if t["crashed"]][0]["frames"] if f["function"] == "run"][0]'
DEBUGINFOD_URLS="http://127.0.0.1:$port" "$PROVENANCE" resolve "$core" --format json >"$T/with.json" 2>"$T/with.err"
[ $? -le 1 ] || { cat "$T/with.err"; fail "resolve failed"; }
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/with.json" --kind core || fail "JSON contract"
check_eq "$(json_get "$T/with.json" "$run_fn[\"line\"]")" "$want_line" "run() line (debug info from debuginfod)"
idx=$(json_get "$T/with.json" "$run_fn[\"index\"]")
check_eq "$(json_get "$T/with.json" "[(s['build_id'], s['line'], s['located_by']) for s in d['debuginfod_sources'] if s['frame'] == $idx]")" \
	"[[\"$id\", $want_line, \"debuginfod\"]]" "run()'s source from debuginfod"
check_eq "$(json_get "$T/with.json" "[l['text'] for s in d['debuginfod_sources'] if s['frame'] == $idx for l in s['lines'] if l['number'] == $want_line][0]")" \
	"$(sed -n "${want_line}p" "$C/badcall.c")" "the crash line's text (the fixture's source)"
check_eq "$(json_get "$T/with.json" 'len(d["sources"])')" 0 "no repository excerpt claimed"
DEBUGINFOD_URLS="http://127.0.0.1:$port" "$PROVENANCE" resolve "$core" --format markdown >"$T/with.md" 2>/dev/null
grep -q "from debuginfod (build ID \`$id\`" "$T/with.md" || fail "markdown does not say the source is from debuginfod"
echo "ok: markdown names debuginfod as the source's origin"

# --offline: nothing asked
DEBUGINFOD_URLS="http://127.0.0.1:$port" "$PROVENANCE" --cache "$T/c2" resolve "$core" --offline --format json >"$T/off.json" 2>/dev/null
check_eq "$(json_get "$T/off.json" 'len(d["debuginfod_sources"])')" 0 "--offline: no source from debuginfod"
exit 0
