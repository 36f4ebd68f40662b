#!/usr/bin/env bash
# A gdb backtrace followed by NUL padding (a log whose end an unclean
# shutdown zero-filled) is read, not refused whole because a NUL falls in the
# first 4 KiB (issue 27); a NUL followed by more data is still binary.
. "$(dirname "$0")/lib.sh"

printf '#0  0x00007f0000001000 in foo () from /usr/lib/libfoo.so.1\n#1  0x0000000000401136 in main () at main.c:5\n' >"$T/bt.txt"
cp "$T/bt.txt" "$T/padded.txt"
head -c 8192 /dev/zero >>"$T/padded.txt"
"$PROVENANCE" --cache "$T/c" resolve --offline --format json "$T/padded.txt" >"$T/p.json" 2>"$T/p.err"; rc=$?
[ $rc -le 1 ] || { cat "$T/p.err"; fail "a NUL-padded backtrace: exit $rc"; }
# the functions the backtrace names, read from its text by awk, not by provenance
want=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "in") { print $(i + 1); break } }' "$T/bt.txt" | paste -sd,)
check_eq "$(json_get "$T/p.json" '",".join(f["function"] for f in d["threads"][0]["frames"])')" "$want" \
	"frames of the NUL-padded backtrace"

{ head -c 100 "$T/bt.txt"; printf '\0\0\0binary\0more'; } >"$T/bin.txt"
"$PROVENANCE" --cache "$T/c" resolve --offline --format json "$T/bin.txt" >/dev/null 2>"$T/b.err"; rc=$?
check_eq "$rc" 2 "a NUL in the middle of the data: exit code"
echo "ok: NUL padding is dropped, a NUL inside the data is binary"
