#!/usr/bin/env bash
# No report at all must not exit 1 ("done but incomplete", issue 27): a
# compressed core or backtrace whose temporary file cannot be made (the
# cache's tmp is a file, not a directory) writes nothing to stdout and exits
# with a code that says so (3, could not determine), one message on stderr.
. "$(dirname "$0")/lib.sh"

printf '#0  0x00007f0000001000 in foo () from /usr/lib/libfoo.so.1\n' >"$T/bt.txt"
zstd -q "$T/bt.txt" -o "$T/bt.zst" || skip "no zstd"
python3 -c 'import struct,sys
h = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack("<HHI", 4, 62, 1) + b"\1" * 9000
open(sys.argv[1], "wb").write(h)' "$T/core"
zstd -q "$T/core" -o "$T/core.zst"
mkdir -p "$T/c"; : >"$T/c/tmp"
for f in bt.zst core.zst; do
	"$PROVENANCE" --cache "$T/c" resolve --offline --format json "$T/$f" >"$T/out" 2>"$T/err"; rc=$?
	[ -s "$T/out" ] && fail "$f: a report was written"
	[ $rc = 1 ] && { cat "$T/err"; fail "$f: no report, yet exit 1 (done but incomplete)"; }
	check_eq "$rc" 3 "$f: exit code with no temporary file"
	check_eq "$(wc -l <"$T/err")" 1 "$f: lines on stderr"
done
echo "ok: no report, exit 3"
