#!/usr/bin/env bash
# An output over the 256 MiB buffer cap fails loudly (issue 27): `query`
# whose result is 280 cells of 1,000,000 bytes (280 MB, counted here, not by
# provenance) exits 2 with a message and writes nothing, instead of a
# result cut mid-cell with exit 0. A result under the cap is written whole.
. "$(dirname "$0")/lib.sh"

printf '#0  0x00007f0000001000 in foo () from /usr/lib/libfoo.so.1\n' >"$T/bt.txt"
"$PROVENANCE" --cache "$T/c" resolve --offline --format json "$T/bt.txt" >"$T/r.json" 2>/dev/null
"$PROVENANCE" --cache "$T/c" import --store "$T/s.sqlite" "$T/r.json" 2>"$T/i.err" || { cat "$T/i.err"; fail "import"; }
q="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 280) SELECT hex(zeroblob(500000)) AS big FROM n"
"$PROVENANCE" --cache "$T/c" query --store "$T/s.sqlite" --format csv --timeout 60 "$q" >"$T/out" 2>"$T/err"; rc=$?
cat "$T/err"
check_eq "$rc" 2 "query over the output cap: exit code"
check_eq "$(stat -c %s "$T/out")" 0 "bytes written by a query over the cap"
grep -q "larger than" "$T/err" || fail "no message about the output cap"
q2="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT hex(zeroblob(500000)) AS big FROM n"
"$PROVENANCE" --cache "$T/c" query --store "$T/s.sqlite" --format csv "$q2" >"$T/out2" 2>"$T/err2" || { cat "$T/err2"; fail "query under the cap"; }
check_eq "$(awk '/^0+$/ && length($0) == 1000000' "$T/out2" | wc -l)" 3 "cells of a query under the cap, whole"
echo "ok: output over the cap fails with exit 2, nothing written"
