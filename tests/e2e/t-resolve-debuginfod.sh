#!/usr/bin/env bash
# Missing debug info fetched by build ID from a debuginfod server that the
# test starts on a port of its own (debuginfod 0.188 binds every interface;
# the client talks to 127.0.0.1 only). Lines appear with the server, not
# without it, not with --offline; a server that never answers cannot hang
# the run; downloads land in provenance's cache.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v debuginfod >/dev/null || skip "debuginfod (Debian package debuginfod) is not installed"
command -v objcopy >/dev/null || skip "objcopy (binutils) is not installed"
C=$TOP/fixtures/crashers

mkdir -p "$T/dbg" "$T/run"
build_fixture "$C/badcall.c" "$T/run/prog"
objcopy --only-keep-debug "$T/run/prog" "$T/dbg/prog.debug"
objcopy --strip-debug --add-gnu-debuglink="$T/dbg/prog.debug" "$T/run/prog"
core=$(make_core "$T/run" ./prog)
want_line=$(grep -n 'CRASH HERE' "$C/badcall.c" | cut -d: -f1)
fn_line='[f["line"] for f in [t for t in d["threads"] if t["crashed"]][0]["frames"] if f["function"] == "run"]'

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# the debug file moves out of the program's reach: only the server has it
mkdir -p "$T/served" && mv "$T/dbg/prog.debug" "$T/served/" && cp "$T/run/prog" "$T/served/prog"
debuginfod -F "$T/served" -p "$port" -d "$T/debuginfod.sqlite" -t 0 -g 0 >"$T/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$T"' EXIT
id=$(eu-readelf -n "$T/run/prog" | awk '/Build ID:/{print $3}')
for i in $(seq 1 100); do
	python3 - "$port" "$id" <<'PY' && break
import sys, urllib.request
try:
    urllib.request.urlopen("http://127.0.0.1:%s/buildid/%s/debuginfo" % (sys.argv[1], sys.argv[2]), timeout=2).read(1)
except Exception:
    sys.exit(1)
PY
	sleep 0.2
done
[ $i -lt 100 ] || { cat "$T/server.log"; fail "debuginfod did not serve the debug file"; }
echo "ok: debuginfod serves build ID $id on 127.0.0.1:$port"

# without the server: no line for run()
"$PROVENANCE" resolve "$core" --offline --format json >"$T/none.json" 2>/dev/null
check_eq "$(json_get "$T/none.json" "$fn_line")" "[null]" "without debug info, run() has a symbol but no line"

export DEBUGINFOD_URLS="http://127.0.0.1:$port"
"$PROVENANCE" resolve "$core" --format json >"$T/with.json" 2>"$T/with.err"
check_eq "$(json_get "$T/with.json" "$fn_line")" "[$want_line]" "with debuginfod, run() at the CRASH HERE line"
find "$PROVENANCE_CACHE/debuginfod" -type f -name 'debuginfo' | grep -q . ||
	fail "the debug file was not kept in provenance's cache ($PROVENANCE_CACHE/debuginfod)"
echo "ok: the download is in provenance's cache"

# under a sysroot that lacks the program, the executable and its debug info
# both come from the server
mkdir -p "$T/emptyroot"
"$PROVENANCE" --cache "$T/cache4" resolve "$core" --sysroot "$T/emptyroot" --format json >"$T/root.json" 2>/dev/null
check_eq "$(json_get "$T/root.json" "$fn_line")" "[$want_line]" "--sysroot without the program: run() line via debuginfod"

# --offline never asks the server (fresh cache, so nothing was kept)
"$PROVENANCE" --cache "$T/cache2" resolve "$core" --offline --format json >"$T/off.json" 2>/dev/null
check_eq "$(json_get "$T/off.json" "$fn_line")" "[null]" "--offline does not use debuginfod"

# a server that accepts and never answers: bounded by debuginfod.timeout (it
# writes how many connections it accepted: the runs' work, not their time)
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(8); print(s.getsockname()[1]); sys.stdout.flush()
conns = []
end = time.time() + 120
while time.time() < end:
    s.settimeout(1)
    try:
        conns.append(s.accept())
        open(sys.argv[1] + ".new", "w").write("%d\n" % len(conns))
        __import__("os").rename(sys.argv[1] + ".new", sys.argv[1])
    except socket.timeout: pass
' "$T/slow.conns" >"$T/slow.port" &
slow=$!
trap 'kill $server $slow 2>/dev/null; wait $server $slow 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 1 50); do [ -s "$T/slow.port" ] && break; sleep 0.1; done
export DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$T/slow.port")"
conns() { cat "$T/slow.conns" 2>/dev/null || echo 0; }
# a hang is killed by timeout (exit 124): the per-query bound ends each query
timeout 60 "$PROVENANCE" --cache "$T/cache3" -c debuginfod.timeout=2 resolve "$core" --format json >"$T/slow.json" 2>/dev/null
rc=$?
[ $rc -le 1 ] || fail "resolve against a silent server exited $rc"
nmods=$(json_get "$T/slow.json" 'len(d["modules"])')
c1=$(conns)
note "a silent server: $c1 connections for $nmods modules"
[ "$c1" -ge 1 ] && [ "$c1" -le "$nmods" ] || fail "$c1 connections for $nmods modules (each asked at most once)"
echo "ok: a silent server: each query bounded by debuginfod.timeout, not a hang"

# the same silent server with a long per-query bound: the run's total budget
# (debuginfod.totalTimeout) stops it, not N modules times the per-query bound
timeout 120 "$PROVENANCE" --cache "$T/cache5" -c debuginfod.timeout=15 -c debuginfod.totalTimeout=3 \
	resolve "$core" --format json >"$T/slow2.json" 2>"$T/slow2.err"
rc=$?
[ $rc -le 1 ] || { cat "$T/slow2.err"; fail "resolve with a total budget exited $rc"; }
check_match "$(cat "$T/slow2.err")" "debuginfod: gave up after 3 s in total \(debuginfod\.totalTimeout\)" "the budget is reported"
check_eq "$(grep -c "^asking debuginfod $DEBUGINFOD_URLS " "$T/slow2.err")" 1 "one line on stderr when debuginfod is first asked"
nmods=$(json_get "$T/slow2.json" 'len(d["modules"])')
[ "$nmods" -ge 2 ] || fail "expected several modules to ask for, got $nmods"
c2=$(( $(conns) - c1 ))
note "with the total budget: $c2 connections for $nmods modules"
[ "$c2" -ge 1 ] && [ "$c2" -lt "$nmods" ] ||
	fail "the total budget of 3 s did not hold: $c2 connections for $nmods modules (15 s per query)"
echo "ok: $nmods modules against a silent server: $c2 asked, the rest stopped by debuginfod.totalTimeout"
