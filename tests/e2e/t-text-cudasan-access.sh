#!/usr/bin/env bash
# compute-sanitizer's newer address line, "Access to 0x… is out of bounds"
# (older ones print "Address 0x… is out of bounds"): the address and its kind
# are in the crash's headline, as for the older line. The transcript is
# written here in memcheck's layout; the truth is its own address line.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"

cs="$T/oob.txt"
cat >"$cs" <<'TXT'
========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at oob_kernel(int *, int)+0x90 in /home/u/oob.cu:9
=========     by thread (255,0,0) in block (3,0,0)
=========     Access to 0x7f3a2e000400 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f3a2e000000 of size 1,024 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========     Host Frame: [0x2ef045] in libcuda.so.1
=========     Host Frame:main [0x8b3a] in /home/u/oob
=========
========= ERROR SUMMARY: 1 error
TXT
addr=$(sed -n 's/.*Access to \(0x[0-9a-f]*\) is .*/\1/p' "$cs")
kind=$(sed -n 's/.*Access to 0x[0-9a-f]* is \(.*\)$/\1/p' "$cs")
size=$(sed -n 's/.* of size \([0-9]*\) bytes$/\1/p' "$cs" | head -1)
[ -n "$addr" ] && [ -n "$kind" ] || fail "the test's transcript has no address line"

"$PROVENANCE" resolve "$cs" --format json --offline >"$T/cs.json" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/err"; fail "resolve failed"; }
check_eq "$(json_get "$T/cs.json" 'd["crash"]["headline"]["address"]')" "$addr" "headline address"
check_eq "$(json_get "$T/cs.json" 'd["crash"]["headline"]["size"]')" "$size" "headline size"

"$PROVENANCE" resolve "$cs" --offline >"$T/cs.out" 2>"$T/err"
line=$(grep -m1 '^crash: ' "$T/cs.out")
case "$line" in
*"of size $size at $addr ($kind)"*) ;;
*) fail "the headline lacks the address and its kind: '$line' (want size $size at $addr ($kind))" ;;
esac
echo "ok: '$line'"
