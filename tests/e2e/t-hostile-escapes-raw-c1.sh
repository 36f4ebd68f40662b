#!/usr/bin/env bash
# A raw 0x9B byte (8-bit CSI, not valid UTF-8) in a pasted backtrace reached a
# terminal unescaped (issue 39 #6): a terminal in a C locale takes it as CSI.
# Run under script(1) (a pty) in the C and C.UTF-8 locales; the captured bytes
# hold no raw 0x9B, no U+009B (C2 9B) and no ESC; valid UTF-8 (é) passes.
. "$(dirname "$0")/lib.sh"

command -v script >/dev/null || skip "no script(1) for a pty"
printf '#0  0x00007f0000001000 in ev\x9b2J\xc2\x9b31m\x1b[31mil_caf\xc3\xa9 () from /usr/lib/libfoo.so.1\n#1  0x0000000000401136 in main () at main.c:5\n' >"$T/bt.txt"
for loc in C C.UTF-8; do
	for fmt in text markdown; do
		LC_ALL=$loc script -qec "\"$PROVENANCE\" --cache \"$T/c\" resolve --offline --format $fmt \"$T/bt.txt\"" \
			"$T/tty.$loc.$fmt" >/dev/null 2>&1 </dev/null
		grep -q 'il_caf' "$T/tty.$loc.$fmt" || { cat "$T/tty.$loc.$fmt"; skip "the function name was not printed ($loc $fmt)"; }
		python3 - "$T/tty.$loc.$fmt" <<'PY' || fail "raw C1/ESC bytes reached the tty ($loc $fmt)"
import sys
b = open(sys.argv[1], "rb").read()
b = b[b.index(b"\n") + 1:] if b.startswith(b"Script started") else b
assert b"\x9b" not in b.replace("é".encode(), b""), "raw 0x9b"
assert b"\x1b" not in b, "ESC"
assert "é".encode() in b, "valid UTF-8 mangled"
PY
	done
done
echo "ok: no raw 8-bit CSI or ESC reaches a tty"
