#!/usr/bin/env bash
# Fetch banners bypassed the control escaping (issue 39 #4): a repository URL
# with ESC and BEL (from a mapping here; a root's URL with
# fetch.trustSystemUrls in the report) was written raw in 'fetching URL
# (mirror)' on stderr. Run under script(1) (a pty), fetching from a closed
# loopback port (refused at once): no ESC or BEL byte reaches the tty.
. "$(dirname "$0")/lib.sh"

command -v script >/dev/null || skip "no script(1) for a pty"
mkdir -p "$T/root/opt/app"
printf 'ELF' >"$T/root/opt/app/libapp.so"
printf '#0  0x00007f0000001234 in crash_here () from /opt/app/libapp.so\n#1  0x0000555555555555 in main () from /usr/bin/app\n' >"$T/bt.txt"
printf '[component "app"]\n\tlibrary = libapp.so*\n\trepo = https://127.0.0.1:1/a\x1b[2J\x07b\x9b31m.git\n\tref = main\n' >"$T/esc.map"
for fmt in text json; do
	script -qec "\"$PROVENANCE\" --cache \"$T/c\" resolve --mapping \"$T/esc.map\" --sysroot \"$T/root\" --format $fmt \"$T/bt.txt\"" \
		"$T/tty.$fmt" >/dev/null 2>&1 </dev/null
	grep -q '^fetching https://127.0.0.1:1/a' "$T/tty.$fmt" || { cat -v "$T/tty.$fmt"; skip "no fetch banner was printed ($fmt)"; }
	python3 - "$T/tty.$fmt" <<'PY' || { cat -v "$T/tty.$fmt"; fail "raw ESC/BEL/CSI bytes reached the tty ($fmt)"; }
import sys
b = open(sys.argv[1], "rb").read()
b = b[b.index(b"\n") + 1:] if b.startswith(b"Script started") else b
for bad in (b"\x1b", b"\x07", b"\x9b"):
    assert bad not in b, bad
PY
done
echo "ok: the fetch banner reaches a tty escaped"
