#!/usr/bin/env bash
# Input detection by content: a core on standard input, text on standard
# input, compressed cores (and a truncated one), the decompressed-size cap,
# and every kind of bad input: one line naming the input, exit 2.
. "$(dirname "$0")/lib.sh"
can_dump_core
C=$TOP/fixtures/crashers
mkdir -p "$T/run"
build_fixture "$C/badcall.c" "$T/run/prog"
core=$(make_core "$T/run" ./prog)

"$PROVENANCE" resolve "$core" --offline --format json >"$T/file.json" 2>/dev/null
"$PROVENANCE" resolve - --offline --format json <"$core" >"$T/stdin.json" 2>/dev/null
norm='import json,sys; d=json.load(open(sys.argv[1])); d["input"]["path"]=None; print(json.dumps(d, sort_keys=True))'
diff <(python3 -c "$norm" "$T/file.json") <(python3 -c "$norm" "$T/stdin.json") >/dev/null ||
	fail "a core on standard input gives another report"
echo "ok: a core on standard input = the same core as a file"
check_eq "$(json_get "$T/stdin.json" 'd["input"]["path"]')" "-" "stdin is named '-'"

gdb -batch -ex bt "$T/run/prog" "$core" 2>/dev/null | "$PROVENANCE" resolve - --offline --format json >"$T/text.json" 2>/dev/null
check_eq "$(json_get "$T/text.json" 'd["input"]["kind"]')" text "text on standard input"
check_eq "$(json_get "$T/text.json" 'd["input"]["format"]')" gdb "its format"

zstd -q -c "$core" >"$T/core.zst"
head -c 2000 "$T/core.zst" >"$T/cut.zst"
check_exit 2 "a truncated zstd core" -- "$PROVENANCE" resolve "$T/cut.zst" --offline
grep -q "'$T/cut.zst'" "$T/last.err" || fail "the truncated input is not named: $(cat "$T/last.err")"
check_exit 2 "a core over the decompressed-size cap" -- "$PROVENANCE" -c core.maxSize=4096 resolve "$T/core.zst" --offline
grep -q "decompresses to more than 4096 bytes" "$T/last.err" || fail "no cap message: $(cat "$T/last.err")"
[ -z "$(ls -A "$PROVENANCE_CACHE/tmp" 2>/dev/null)" ] || fail "a temporary file was left in the cache"

: >"$T/empty"
head -c 65536 /dev/urandom >"$T/random"
printf 'just some prose\nwith no backtrace at all\n' >"$T/prose.txt"
for bad in "$T/empty:is empty" "$T/random:neither a core file nor a text backtrace" \
	"$T/run/prog:is an ELF file but not a core" "$T/run:is a directory" \
	"$T/missing:cannot open" "$T/prose.txt:holds no backtrace"; do
	f=${bad%%:*} want=${bad#*:}
	check_exit 2 "bad input $(basename "$f")" -- timeout 120 "$PROVENANCE" resolve "$f" --offline
	[ "$(wc -l <"$T/last.err")" = 1 ] || fail "more than one line for $(basename "$f"): $(cat "$T/last.err")"
	grep -qF "'$f'" "$T/last.err" && grep -qF "$want" "$T/last.err" ||
		fail "$(basename "$f"): message '$(cat "$T/last.err")' lacks the name or '$want'"
done
grep -q -- "--exe" <("$PROVENANCE" resolve "$T/run/prog" 2>&1) || fail "an executable given as INPUT should point at --exe"
echo "ok: every bad input names itself in one line"
