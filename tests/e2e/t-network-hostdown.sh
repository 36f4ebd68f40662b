#!/usr/bin/env bash
# A host that did not answer is remembered as down in the cache
# (<cache>/hosts-down) for fetch.hostDownFor: the first run waits the connect
# bound and says so on stderr (host and bound); the next run does not contact
# the host at all and says it skipped it because it was down at TIME; once
# the memory expires the host is tried again; a host that answers is
# forgotten; a refused connection (an answer) is not remembered.
# Ground truth: a silent server that counts the connections it accepted, a
# git daemon, date(1) for the time the first run ran, git for the repository.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v python3 >/dev/null || skip "no python3"
[ -x "$(git --exec-path)/git-daemon" ] || command -v git-daemon >/dev/null || skip "no git daemon"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
accepted() { sleep 0.3; cat "$T/silent.port.n" 2>/dev/null || echo 0; }

mkdir -p "$T/srv"
git init -q -b main "$T/srv/up.git.work"
echo one >"$T/srv/up.git.work/f"
git -C "$T/srv/up.git.work" add -A
git -C "$T/srv/up.git.work" -c user.name=t -c user.email=t@e commit -qm one
git -C "$T/srv/up.git.work" tag v1
git clone -q --bare "$T/srv/up.git.work" "$T/srv/up.git"
want=$(git -C "$T/srv/up.git" rev-parse v1)

dport=$(free_port)
git daemon --export-all --base-path="$T/srv" --port="$dport" --listen=127.0.0.1 --reuseaddr "$T/srv" >"$T/daemon.log" 2>&1 &
dpid=$!
python3 "$TOP/tests/e2e/stall-proxy.py" silent "$T/silent.port" &
spid=$!
trap 'kill $dpid $spid 2>/dev/null; rm -rf "$T"' EXIT
wait_file "$T/silent.port" "the silent server"
for _ in $(seq 50); do git ls-remote "git://127.0.0.1:$dport/up.git" >/dev/null 2>&1 && break; sleep 0.1; done
git ls-remote "git://127.0.0.1:$dport/up.git" | grep -q "$want" || fail "git daemon does not serve the repository"
silent=$(cat "$T/silent.port")
refused=$(free_port)	# nothing listens there

cat >"$T/bt.txt" <<'BT'
PID 1234 - process
TID 1234:
#0  0x00007f0000001234 crash_here - /usr/lib/libproj.so.1
    /build/proj-1/src/x.c:4
#1  0x0000555555555555 main - /usr/bin/app
BT
# the mapping names a public URL; url.insteadOf points it at the test server
printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = https://example.invalid/up.git\n\tref = v1\n' >"$T/proj.map"
to() { echo "url.git://127.0.0.1:$1/.insteadOf=https://example.invalid/"; }
C="$T/cache"
host="127.0.0.1:$silent"

# 1. first run: waits the connect bound, says so (host and bound), remembers it
t0=$(date +%s)
# no time is asserted (load moves it): a hang is killed by timeout (exit 124) and fails
check_exit 1 "first run against a silent host" -- timeout 120 "$PROVENANCE" --cache "$C" -c fetch.connectTimeout=2 -c "$(to "$silent")" \
	resolve "$T/bt.txt" --mapping "$T/proj.map" --format json
t1=$(date +%s)
check_match "$(cat "$T/last.err")" "127\.0\.0\.1:$silent did not answer within 2 s \(fetch\.connectTimeout\)" "first run: why it waited"
check_eq "$(accepted)" 1 "first run: the silent server saw one connection"
check_match "$(cut -f1 "$C/hosts-down")" "^127\.0\.0\.1:$silent\$" "the host is in <cache>/hosts-down"

# 2. second run: the host is not contacted; one line says it was down, and when
check_exit 1 "second run" -- "$PROVENANCE" --cache "$C" -c fetch.connectTimeout=2 -c "$(to "$silent")" \
	resolve "$T/bt.txt" --mapping "$T/proj.map" --format json
check_eq "$(accepted)" 1 "second run: no new connection"
err=$(cat "$T/last.err")
check_eq "$(grep -c "^provenance: warning: skipping 127\.0\.0\.1:$silent: it did not answer, or answered too slowly, at " <<<"$err" || true)" 1 \
	"second run: one line saying the host was skipped"
grep -q "did not answer within" <<<"$err" && fail "second run waited: $err"
when=$(sed -n "s/.*skipping 127\.0\.0\.1:$silent: it did not answer, or answered too slowly, at \([0-9-]* [0-9:]* UTC\).*/\1/p" <<<"$err")
at=$(date -u -d "$when" +%s) || fail "not a time: '$when'"
[ "$at" -ge "$t0" ] && [ "$at" -le "$t1" ] || fail "the time $when is not that of the first run ($t0..$t1)"
echo "ok: down at $when, during the first run"
check_match "$(json_get "$T/last.out" '[c for c in d["components"] if c["name"]=="proj"][0]["note"]')" \
	"skipped: 127\.0\.0\.1:$silent did not answer, or answered too slowly, at " "second run: the component's note"

# 3. --offline: nothing contacted, nothing said about the host
check_exit 1 "--offline" -- "$PROVENANCE" --cache "$C" -c "$(to "$silent")" \
	resolve --offline "$T/bt.txt" --mapping "$T/proj.map" --format json
grep -q "skipping" "$T/last.err" && fail "--offline spoke of the host"
check_eq "$(accepted)" 1 "--offline: no new connection"

# 4. after fetch.hostDownFor the host is tried again (and noted again)
sleep 2
check_exit 1 "after the memory expired" -- "$PROVENANCE" --cache "$C" -c fetch.connectTimeout=1 -c fetch.hostDownFor=1 \
	-c "$(to "$silent")" resolve "$T/bt.txt" --mapping "$T/proj.map" --format json
check_eq "$(accepted)" 2 "expired: the host is asked again"
check_match "$(cat "$T/last.err")" "127\.0\.0\.1:$silent did not answer within 1 s" "expired: why it waited"

# 5. fetch.hostDownFor=0 remembers nothing
check_exit 1 "hostDownFor=0" -- "$PROVENANCE" --cache "$T/c0" -c fetch.connectTimeout=1 -c fetch.hostDownFor=0 \
	-c "$(to "$silent")" resolve "$T/bt.txt" --mapping "$T/proj.map" --format json
[ -s "$T/c0/hosts-down" ] && fail "hostDownFor=0 wrote $(cat "$T/c0/hosts-down")"
check_eq "$(accepted)" 3 "hostDownFor=0: one more connection"

# 6. a host that answers is forgotten: an expired entry for the daemon's
#    address goes once a fetch from it succeeds
printf '127.0.0.1:%s\t%s\tfetch got no answer\n' "$dport" $(( $(date +%s) - 5 )) >>"$C/hosts-down"
check_exit 0 "a fetch from a host that answers" -- "$PROVENANCE" --cache "$C" -c fetch.hostDownFor=1 \
	fixcheck v1 --repo "git://127.0.0.1:$dport/up.git" --at v1
grep -q "^127\.0\.0\.1:$dport	" "$C/hosts-down" && fail "the host that answered is still remembered"
grep -q "^$host	" "$C/hosts-down" || fail "the silent host was forgotten too"
echo "ok: the host that answered is forgotten, the other kept"

# 7. a refused connection is an answer: not remembered
check_exit 3 "refused" -- "$PROVENANCE" --cache "$T/c7" fixcheck v1 --repo "git://127.0.0.1:$refused/up.git" --at v1
[ -s "$T/c7/hosts-down" ] && fail "a refused connection was remembered: $(cat "$T/c7/hosts-down")"
echo "ok: a refused connection is not remembered"

# 8. a damaged file is the same as none
printf 'garbage\n\t\t\nx\tnotanumber\ty\n%s\n' "$(head -c 300 /dev/zero | tr '\0' 'a')" >"$T/c7/hosts-down"
check_exit 3 "a damaged hosts-down" -- "$PROVENANCE" --cache "$T/c7" fixcheck v1 --repo "git://127.0.0.1:$refused/up.git" --at v1

# 9. downloads (a mapping's release archive over http) too: the first run waits
#    the bound once (no retries), the second does not connect
python3 "$TOP/tests/e2e/stall-proxy.py" silent "$T/s2.port" &
s2pid=$!
trap 'kill $dpid $spid $s2pid 2>/dev/null; rm -rf "$T"' EXIT
wait_file "$T/s2.port" "the second silent server"
s2=$(cat "$T/s2.port")
printf '[component "proj"]\n\tlibrary = libproj.so*\n\tarchive = https://example.invalid/proj-1.tar.gz\n' >"$T/archive.map"
dl=(-c fetch.connectTimeout=2 -c "url.http://127.0.0.1:$s2/.insteadOf=https://example.invalid/")
check_exit 1 "download from a silent host" -- "$PROVENANCE" --cache "$T/c9" "${dl[@]}" resolve "$T/bt.txt" --mapping "$T/archive.map" --format json
check_match "$(cat "$T/last.err")" "127\.0\.0\.1:$s2 did not answer within 2 s \(fetch\.connectTimeout\)" "download: why it waited"
sleep 0.3
check_eq "$(cat "$T/s2.port.n")" 1 "download: one connection, not retried"
check_exit 1 "download, second run" -- "$PROVENANCE" --cache "$T/c9" "${dl[@]}" resolve "$T/bt.txt" --mapping "$T/archive.map" --format json
check_match "$(cat "$T/last.err")" "skipping 127\.0\.0\.1:$s2: it did not answer, or answered too slowly, at " "download, second run: skipped"
sleep 0.3
check_eq "$(cat "$T/s2.port.n")" 1 "download, second run: no new connection"
check_match "$(json_get "$T/last.out" '[c for c in d["components"] if c["name"]=="proj"][0]["note"]')" \
	"download of https://example\.invalid/proj-1\.tar\.gz skipped: 127\.0\.0\.1:$s2 did not answer, or answered too slowly, at " "download: the component's note"
echo "all ok"
