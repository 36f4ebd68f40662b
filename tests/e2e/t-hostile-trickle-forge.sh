#!/usr/bin/env bash
# A forge that trickles (issue 39 #7): it answers every single-file request
# at once, then sends 2 bytes a second for ever. Three frames of one
# component, three files at one commit, the forge's single-file form for
# them. The first download sends less than fetch.minRate for
# fetch.stallTimeout: it is abandoned and the host remembered as down, so
# the other two frames and the next run do not ask it again. Before, each
# frame's download was held for the whole fetch.timeout (600 s by default),
# frame after frame. Truth: the trickling server's own request log; the
# report still comes (exit 1: no lines), with every frame.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

sys=0123456789abcdef0123456789abcdef01234567
site=$T/root/usr/lib/python3/dist-packages
mkdir -p "$site/proj" "$site/proj-1.1.0.dist-info"
printf 'ELF' >"$site/proj/_native.so"
printf 'Metadata-Version: 2.1\nName: proj\nVersion: 1.1.0\n' >"$site/proj-1.1.0.dist-info/METADATA"
printf 'proj/_native.so,,\nproj-1.1.0.dist-info/METADATA,,\n' >"$site/proj-1.1.0.dist-info/RECORD"
printf '{"url": "https://forge.test/o/proj.git", "vcs_info": {"vcs": "git", "commit_id": "%s"}}\n' "$sys" \
	>"$site/proj-1.1.0.dist-info/direct_url.json"
printf '[component "proj"]\n\tpackage = proj\n\trepo = https://forge.test/o/proj.git\n\tref = v{version}\n' >"$T/proj.map"
cat >"$T/bt.txt" <<'BT'
PID 5 - process
TID 5:
#0  0x00007f0000001234 crash_here - /usr/lib/python3/dist-packages/proj/_native.so
    /tmp/pip-req-build-abcd1234/src/one.c:4
#1  0x00007f0000002234 caller - /usr/lib/python3/dist-packages/proj/_native.so
    /tmp/pip-req-build-abcd1234/src/two.c:7
#2  0x00007f0000003234 outer - /usr/lib/python3/dist-packages/proj/_native.so
    /tmp/pip-req-build-abcd1234/src/three.c:9
#3  0x0000555555555555 main - /usr/bin/app
BT

python3 "$TOP/tests/e2e/http-server.py" trickle "$T/requests" >"$T/port" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$T"' EXIT
wait_file "$T/port" "the trickling forge"
: >"$T/requests"
F=http://127.0.0.1:$(cat "$T/port")
cfg=(-c "url.$F/.insteadOf=https://forge.test/" -c forge.forge.test.type=gitlab -c fetch.stallTimeout=3
	-c fetch.timeout=20 -c fetch.lsRemote=false)
run() {	# run WHAT: resolve in the shared cache, JSON in $T/last.out
	check_exit 1 "$1" -- timeout 300 "$PROVENANCE" --cache "$T/c" "${cfg[@]}" resolve "$T/bt.txt" --sysroot "$T/root" \
		--mapping "$T/proj.map" --format json
}
run "resolve from a trickling forge"
[ "$(json_get "$T/last.out" 'd["modules"][0]["package"]["kind"]')" = pip ] || skip "the pip resolver did not claim the module"
check_eq "$(json_get "$T/last.out" 'len(d["threads"][0]["frames"])')" 4 "every frame reported"
check_eq "$(json_get "$T/last.out" 'len([s for s in d["sources"] if s.get("component")=="proj"])')" 0 "no lines from the trickle"
check_eq "$(grep -c '/o/proj/-/raw/' "$T/requests")" 1 "the trickling host was asked once, not once per frame"
check_match "$(cat "$T/last.err")" "answered too slowly \(fetch\.minRate\)" "stderr says why the host is skipped"
run "the next run"
check_eq "$(grep -c '/o/proj/-/raw/' "$T/requests")" 1 "the next run does not ask it either (fetch.hostDownFor)"
echo "ok: a trickling forge costs one stall, not fetch.timeout per frame"
