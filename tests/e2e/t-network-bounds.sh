#!/usr/bin/env bash
# Network operations never hang: a git server that accepts and never answers,
# one that stalls in the middle of the pack (a proxy in front of git daemon
# that stops forwarding after N bytes), a refused connection, and the overall
# deadline. Each fixcheck ends with exit 3 and says which bound ended it;
# resolve --fix turns the same into a component note and exit 3. Ground
# truth: the bounds we set (named in the messages), git itself for the repo.
# No run is timed (a shared machine's load moves times): a run that hangs is
# killed by timeout(1) after HANG_GUARD seconds and fails.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v python3 >/dev/null || skip "no python3"
[ -x "$(git --exec-path)/git-daemon" ] || command -v git-daemon >/dev/null || skip "no git daemon"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# a repository whose pack is ~1.5 MB of incompressible data
mkdir -p "$T/srv"
git init -q -b main "$T/srv/up.git.work"
head -c 1500000 /dev/urandom > "$T/srv/up.git.work/blob.bin"
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
python3 "$TOP/tests/e2e/stall-proxy.py" stall "$T/stall.port" "$dport" 40000 &
ppid_=$!
trap 'kill $dpid $spid $ppid_ 2>/dev/null; rm -rf "$T"' EXIT
wait_file "$T/silent.port" "the silent server"
wait_file "$T/stall.port" "the stalling proxy"
for _ in $(seq 50); do git ls-remote "git://127.0.0.1:$dport/up.git" >/dev/null 2>&1 && break; sleep 0.1; done
git ls-remote "git://127.0.0.1:$dport/up.git" | grep -q "$want" || fail "git daemon does not serve the repository"
silent=$(cat "$T/silent.port")
stall=$(cat "$T/stall.port")
refused=$(free_port)	# nothing listens there any more

bounds=(-c fetch.connectTimeout=2 -c fetch.stallTimeout=2 -c fetch.timeout=30)
HANG_GUARD=120
# bounded EXPECTED-EXIT WHAT -- CMD...: the exit status; a hang is killed (124)
bounded() {
	local want=$1 what=$2; shift 3
	check_exit "$want" "$what" -- timeout "$HANG_GUARD" "$@"
}

# the direct path works (so what follows is about the servers)
check_exit 0 "through git daemon" -- "$PROVENANCE" --cache "$T/c0" "${bounds[@]}" fixcheck v1 --repo "git://127.0.0.1:$dport/up.git" --at v1
check_match "$(cat "$T/last.err")" "^fetching git://127\.0\.0\.1:$dport/up\.git \(mirror\)" "one line on stderr when the fetch starts"

# 1. accepts, never answers: the connect bound (2 s), exit 3
bounded 3 "silent server" -- "$PROVENANCE" --cache "$T/c1" "${bounds[@]}" fixcheck v1 --repo "git://127.0.0.1:$silent/up.git" --at v1
check_match "$(cat "$T/last.err")" "fetch of git://127\.0\.0\.1:$silent/up\.git got no answer within 2 s" "silent: the reason"
[ -z "$(ls "$T/c1/mirrors" | grep -v '\.lock$')" ] || fail "silent: a mirror was left: $(ls "$T/c1/mirrors")"

# 2. stalls mid-pack: some of the pack arrives, then nothing (the stall bound)
bounded 3 "server stalling mid-pack" -- "$PROVENANCE" --cache "$T/c2" "${bounds[@]}" fixcheck v1 --repo "git://127.0.0.1:$stall/up.git" --at v1
check_match "$(cat "$T/last.err")" "fetch of git://127\.0\.0\.1:$stall/up\.git stalled for 2 s" "stall: the reason"
[ -z "$(ls "$T/c2/mirrors" | grep -v '\.lock$')" ] || fail "stall: a mirror was left: $(ls "$T/c2/mirrors")"

# 3. refused: fails at once
bounded 3 "refused connection" -- "$PROVENANCE" --cache "$T/c3" "${bounds[@]}" fixcheck v1 --repo "git://127.0.0.1:$refused/up.git" --at v1
check_match "$(cat "$T/last.err")" "cannot fetch 'git://127\.0\.0\.1:$refused/up\.git'.*(refused|failed to connect)" "refused: the reason"

# 4. the overall deadline, whatever the stall bound
bounded 3 "overall deadline" -- "$PROVENANCE" --cache "$T/c4" -c fetch.connectTimeout=60 -c fetch.stallTimeout=60 -c fetch.timeout=3 \
	fixcheck v1 --repo "git://127.0.0.1:$stall/up.git" --at v1
check_match "$(cat "$T/last.err")" "took longer than 3 s \(fetch\.timeout\)" "deadline: the reason"

# 5. url.insteadOf points the same upstream at the stalling server: resolve --fix
#    notes it on the component and exits 3; the fetch child does not outlive it
cat >"$T/bt.txt" <<'BT'
PID 1234 - process
TID 1234:
#0  0x00007f0000001234 crash_here - /usr/lib/libproj.so.1
    /build/proj-1/src/x.c:4
#1  0x0000555555555555 main - /usr/bin/app
BT
printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = https://example.invalid/up.git\n\tref = v1\n' >"$T/proj.map"
bounded 3 "resolve --fix through a stalling server" -- "$PROVENANCE" --cache "$T/c5" "${bounds[@]}" \
	-c "url.git://127.0.0.1:$stall/.insteadOf=https://example.invalid/" \
	resolve "$T/bt.txt" --mapping "$T/proj.map" --fix v1 --format json
check_match "$(json_get "$T/last.out" '[c for c in d["components"] if c["name"]=="proj"][0]["note"]')" "stalled for 2 s" "resolve: component note"
check_match "$(cat "$T/last.err")" "cannot determine whether v1 is in" "resolve: the reason on stderr"
sleep 0.5
pgrep -f "provenance --cache $T/c5" >/dev/null && fail "a fetch process outlived the run"
echo "ok: no fetch process left"

# 6. a host that did not answer is not asked again in the same run: two
#    components on the silent host cost one connect bound, not two (the
#    proof is the second component's "skipped" note; the time limit only
#    says it did not hang: wall time under load or ASan varies too much)
cat >"$T/bt2.txt" <<'BT'
PID 1234 - process
TID 1234:
#0  0x00007f0000001234 crash_here - /usr/lib/libproj.so.1
    /build/proj-1/src/x.c:4
#1  0x00007f0000002234 other - /usr/lib/libtwo.so.1
    /build/two-1/src/y.c:7
#2  0x0000555555555555 main - /usr/bin/app
BT
printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = git://127.0.0.1:%s/one.git\n\tref = v1\n[component "two"]\n\tlibrary = libtwo.so*\n\trepo = git://127.0.0.1:%s/two.git\n\tref = v1\n' \
	"$silent" "$silent" >"$T/two.map"
bounded 1 "two repositories on a silent host" -- "$PROVENANCE" --cache "$T/c6" -c fetch.connectTimeout=5 \
	resolve "$T/bt2.txt" --mapping "$T/two.map" --format json
notes=$(json_get "$T/last.out" '" | ".join(c["note"] or "" for c in d["components"])')
check_match "$notes" "got no answer within 5 s" "the first repository: no answer"
check_match "$notes" "skipped: 127\.0\.0\.1:$silent did not answer earlier in this run" "the second: skipped"

# 7. two hosts without an answer: the network is taken as down for the rest of the run
python3 "$TOP/tests/e2e/stall-proxy.py" silent "$T/silent2.port" &
s2pid=$!
trap 'kill $dpid $spid $ppid_ $s2pid 2>/dev/null; rm -rf "$T"' EXIT
wait_file "$T/silent2.port" "the second silent server"
silent2=$(cat "$T/silent2.port")
cat >"$T/bt3.txt" <<'BT'
PID 1234 - process
TID 1234:
#0  0x00007f0000001234 crash_here - /usr/lib/libproj.so.1
    /build/proj-1/src/x.c:4
#1  0x00007f0000002234 other - /usr/lib/libtwo.so.1
    /build/two-1/src/y.c:7
#2  0x00007f0000003234 third - /usr/lib/libthree.so.1
    /build/three-1/src/z.c:9
#3  0x0000555555555555 main - /usr/bin/app
BT
printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = git://127.0.0.1:%s/one.git\n\tref = v1\n' "$silent" >"$T/three.map"
printf '[component "two"]\n\tlibrary = libtwo.so*\n\trepo = git://127.0.0.1:%s/two.git\n\tref = v1\n' "$silent2" >>"$T/three.map"
printf '[component "three"]\n\tlibrary = libthree.so*\n\trepo = git://127.0.0.1:%s/up.git\n\tref = v1\n' "$dport" >>"$T/three.map"
bounded 1 "two silent hosts, then a third repository" -- "$PROVENANCE" --cache "$T/c7" -c fetch.connectTimeout=5 \
	resolve "$T/bt3.txt" --mapping "$T/three.map" --format json
notes=$(json_get "$T/last.out" '" | ".join(c["note"] or "" for c in d["components"])')
check_match "$notes" "skipped: 2 hosts did not answer earlier in this run" "the third: skipped, the network is down"
echo "all ok"
