#!/usr/bin/env bash
# An endless ref advertisement (issue 27): libgit2 held it in memory until
# the fetch was killed, and the error said the server "got no answer". The
# fetch child's socket stream (src/sources/gitstream.c) now counts what
# arrives before the pack against fetch.maxRefsSize (here 8 MiB) and fails
# with "the ref advertisement was over 8 MiB", over http:// and git://
# (servers: endless-refs.py). Peak RSS under 200 MiB (the advertisement
# alone is endless). A normal fetch over git:// (git daemon) still gets the
# commit git says the tag is.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v /usr/bin/time >/dev/null || skip "no /usr/bin/time"

printf 'PID 1234 - process\nTID 1234:\n#0  0x00007f0000001234 f - /usr/lib/libproj.so.1\n    /build/proj-1.0/a.c:1\n' >"$T/bt.txt"
printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = https://example.invalid/proj.git\n\tref = v1.0\n' >"$T/m.map"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null' EXIT

for kind in http git; do
	# not in $(...): the server's pid must reach the trap
	python3 "$TOP/tests/e2e/endless-refs.py" "$T/port.$kind" "$kind" >/dev/null 2>"$T/server.$kind.log" &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$T/port.$kind" ] && break; sleep 0.1; done
	port=$(cat "$T/port.$kind" 2>/dev/null)
	[ -n "$port" ] || fail "the $kind server did not start"
	/usr/bin/time -f "%M" -o "$T/rss.$kind" timeout 120 "$PROVENANCE" --cache "$T/c.$kind" \
		-c "url.$kind://127.0.0.1:$port/.insteadOf=https://example.invalid/" -c fetch.maxRefsSize=8m \
		-c fetch.timeout=20 -c fetch.connectTimeout=3 \
		resolve "$T/bt.txt" --mapping "$T/m.map" --format json >"$T/r.$kind.json" 2>"$T/r.$kind.err"; rc=$?
	cat "$T/r.$kind.err"
	[ $rc -le 1 ] || fail "$kind: resolve exit $rc"
	grep -q "ref advertisement was over 8 MiB" "$T/r.$kind.err" "$T/r.$kind.json" ||
		fail "$kind: no word of the ref advertisement's bound"
	rss=$(tail -n 1 "$T/rss.$kind")
	echo "$kind: peak RSS $rss KiB"
	[ "$rss" -lt $((200 << 10)) ] || fail "$kind: peak RSS $rss KiB for an 8 MiB bound"
done
echo "ok: an endless ref advertisement stops at fetch.maxRefsSize over http:// and git://"

git init -q "$T/work" && printf 'int f(void) { return 0; }\n' >"$T/work/a.c" &&
	git -C "$T/work" add . && git -C "$T/work" -c user.name=t -c user.email=t@t commit -q -m one &&
	git -C "$T/work" tag v1.0 && mkdir "$T/up" && git clone -q --bare "$T/work" "$T/up/proj.git" || fail "repository"
want=$(git -C "$T/work" rev-parse v1.0^{commit})
git daemon --help >/dev/null 2>&1 || skip "no git daemon"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
git daemon --reuseaddr --listen=127.0.0.1 --port="$port" --base-path="$T/up" --export-all "$T/up" >/dev/null 2>"$T/gd.log" &
pids+=($!)
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
"$PROVENANCE" --cache "$T/c.ok" -c "url.git://127.0.0.1:$port/.insteadOf=https://example.invalid/" \
	resolve "$T/bt.txt" --mapping "$T/m.map" --format json >"$T/ok.json" 2>"$T/ok.err"
check_eq "$(json_get "$T/ok.json" '[c["commit"] for c in d["components"] if c["name"] == "proj"]')" '["'"$want"'"]' \
	"the commit of v1.0 fetched over git://"
echo "ok: a normal fetch over git:// through the bounded stream"
