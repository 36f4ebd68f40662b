#!/usr/bin/env bash
# One cache, many runs: two `provenance resolve` of a real core at once give
# the same JSON as a solo run; then rounds where one run is SIGKILLed at a
# random moment (0-300 ms: inside a cold index build on odd rounds, whose
# cache starts empty) while another runs: the survivor's answer is right, the
# next run's answer is right, and SQLite's own integrity_check (python3's
# sqlite3, not provenance) says ok. The solo answer is checked against dpkg.
# test: slow
. "$(dirname "$0")/lib.sh"

command -v dpkg-query >/dev/null || skip "dpkg-query is not installed (host packages are the ground truth)"
can_dump_core
mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
core=$(make_core "$T/bin" ./nullmain) || exit $?
C="$T/cache"
DB="$C/cache.sqlite"
start=$(date +%s)

resolve() {	# CACHE OUT: the run every case makes (bounded: a hang is a failure)
	timeout 120 "$PROVENANCE" resolve --offline --cache "$1" --format json "$core" >"$2" 2>"$2.err"
}
integrity() {
	python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])' "$DB"
}
same() {	# FILE WHAT
	cmp -s "$1" "$T/solo.json" || { diff <(python3 -m json.tool "$T/solo.json") <(python3 -m json.tool "$1") | head -20; fail "$2: output differs from the solo run"; }
}

# ---- the solo answer, checked against dpkg ----
resolve "$T/solo-cache" "$T/solo.json"
rc=$?
[ $rc -le 1 ] || { cat "$T/solo.json.err"; fail "solo run exited $rc"; }
libc=$(json_get "$T/solo.json" "[m['path'] for m in d['modules'] if '/libc.so' in m['path']][0]")
[ -n "$libc" ] && [ "$libc" != null ] || fail "no libc module in the solo run"
owner=
for p in "$libc" "$(realpath "$libc")" "${libc#/usr}"; do	# merged /usr: dpkg knows /lib/...
	owner=$(dpkg-query -S "$p" 2>/dev/null | head -1 | cut -d: -f1)
	[ -n "$owner" ] && break
done
[ -n "$owner" ] || fail "dpkg-query -S does not know $libc"
check_eq "$(json_get "$T/solo.json" "[m['package']['name'] for m in d['modules'] if m['path']=='$libc'][0]")" "$owner" "libc owner (dpkg-query -S)"
check_eq "$(json_get "$T/solo.json" "[m['package']['version'] for m in d['modules'] if m['path']=='$libc'][0]")" \
	"$(dpkg-query -W -f='${Version}' "$owner" | head -1)" "libc version (dpkg-query -W)"

# ---- two at once on an empty cache ----
resolve "$C" "$T/a.json" & pa=$!
resolve "$C" "$T/b.json" & pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
[ $ra -le 1 ] && [ $rb -le 1 ] || { cat "$T/a.json.err" "$T/b.json.err"; fail "concurrent runs exited $ra and $rb"; }
check_eq "$ra $rb" "$rc $rc" "exit codes of the concurrent runs"
same "$T/a.json" "first concurrent run"
same "$T/b.json" "second concurrent run"
check_eq "$(integrity)" ok "integrity_check after two concurrent runs"

# ---- SIGKILL rounds ----
killed_early=0
for round in 1 2 3 4 5 6 7 8 9 10; do
	[ $((round % 2)) = 1 ] && rm -rf "$C"	# odd rounds: the kill lands in a cold build
	delay=$(printf '0.%03d' $((RANDOM % 301)))
	"$PROVENANCE" resolve --offline --cache "$C" --format json "$core" >"$T/victim.json" 2>/dev/null & pv=$!
	resolve "$C" "$T/survivor.json" & ps=$!
	sleep "$delay"
	kill -KILL $pv 2>/dev/null
	wait $pv; rv=$?
	[ $rv = 137 ] && killed_early=$((killed_early + 1))
	wait $ps; rs=$?
	[ $rs = "$rc" ] || { cat "$T/survivor.json.err"; fail "round $round: survivor exited $rs (victim killed after ${delay}s)"; }
	same "$T/survivor.json" "round $round: survivor (victim killed after ${delay}s)"
	resolve "$C" "$T/next.json"
	rn=$?
	[ $rn = "$rc" ] || { cat "$T/next.json.err"; fail "round $round: the run after the kill exited $rn"; }
	same "$T/next.json" "round $round: the run after the kill"
	check_eq "$(integrity)" ok "round $round: integrity_check"
done
note "$killed_early of 10 victims were killed while running"
[ $killed_early -gt 0 ] || fail "no victim was still running when killed: the kills tested nothing"
# no bound on the time taken (a shared machine's load is not the work): each
# run is bounded by resolve's timeout 120 above, so a hang still fails
note "took $(( $(date +%s) - start ))s"
exit 0
