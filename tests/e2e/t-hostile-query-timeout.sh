#!/usr/bin/env bash
# `query --timeout` holds inside one SQLite step (issue 27): SQLite's own
# like()/glob()/trim(X,Y) on a long string is one VM step, and the progress
# handler runs only between steps; 'a' x 10M LIKE '%' 'a' x 20000 'b' is
# about 2e11 compares (minutes: 'a' x 2000 ran 28 s past --timeout 1). With
# --timeout 1 each must fail (exit 2, "time limit") within 30 s of CPU; the
# wrapper's 150 s stops the old code. A normal LIKE still answers.
. "$(dirname "$0")/lib.sh"

command -v /usr/bin/time >/dev/null || skip "no /usr/bin/time"
printf '#0  0x00007f0000001000 in foo () from /usr/lib/libfoo.so.1\n' >"$T/bt.txt"
"$PROVENANCE" --cache "$T/c" resolve --offline --format json "$T/bt.txt" >"$T/r.json" 2>/dev/null
"$PROVENANCE" --cache "$T/c" import --store "$T/s.sqlite" "$T/r.json" 2>"$T/i.err" || { cat "$T/i.err"; fail "import"; }
long="printf('%.*c', 10000000, 'a')"
pat="printf('%.*c', 20000, 'a') || 'b'"
n=0
for q in "SELECT $long LIKE '%' || $pat" "SELECT $long GLOB '*' || $pat" \
	 "SELECT length(trim($long, printf('%.*c', 20000, 'b') || 'a'))"; do
	n=$((n + 1))
	/usr/bin/time -f "%U %S" -o "$T/time$n" timeout 150 "$PROVENANCE" --cache "$T/c" query \
		--store "$T/s.sqlite" --timeout 1 "$q" >"$T/out$n" 2>"$T/err$n"; rc=$?
	cat "$T/err$n"
	check_eq "$rc" 2 "query $n past its time limit: exit code"
	grep -q "time limit" "$T/err$n" || fail "query $n: no message about the time limit"
	cpu=$(tail -n 1 "$T/time$n" | awk '{ printf "%d", $1 + $2 }')
	echo "query $n: $cpu s of CPU"
	[ "$cpu" -lt 30 ] || fail "query $n took $cpu s of CPU with --timeout 1"
done
"$PROVENANCE" --cache "$T/c" query --store "$T/s.sqlite" --format csv --timeout 1 \
	"SELECT 'libfoo.so.1' LIKE '%FOO%', 'x_y' LIKE 'x\\_y' ESCAPE '\\', 'ab' GLOB '[a-c]?'" >"$T/ok" 2>"$T/okerr" ||
	{ cat "$T/okerr"; fail "a normal LIKE"; }
check_eq "$(tail -n 1 "$T/ok" | tr -d '\r')" "1,1,1" "a normal LIKE, ESCAPE and GLOB"
echo "ok: query --timeout holds inside one LIKE/GLOB/trim step"
