#!/usr/bin/env bash
# Stack overflow: tens of thousands of frames; the frame cap holds
# (truncated=true, exactly the cap) and the run ends quickly.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null || skip "gdb not installed"
F=$TOP/fixtures/crashers

build_fixture "$F/recurse.c" "$T/recurse"
core=$(make_core "$T" ./recurse) || exit 1
check_exit 0 "analyze" -- timeout 60 "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/r.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "JSON contract"
check_eq "$(json_get "$T/r.json" 'd["signal"]["name"]')" SIGSEGV "signal"
check_eq "$(json_get "$T/r.json" 'len(d["threads"][0]["frames"])')" 4096 "frames capped at PROV_MAX_FRAMES"
if [ "$(json_get "$T/r.json" '"truncated" in d["threads"][0]')" = true ]; then
	check_eq "$(json_get "$T/r.json" 'd["threads"][0]["truncated"]')" true "truncated flag"
fi
check_eq "$(json_get "$T/r.json" 'sorted(set(f["function"] for f in d["threads"][0]["frames"]))')" '["down"]' \
	"every frame is down()"
line=$(grep -n 'CRASH HERE' "$F/recurse.c" | cut -d: -f1)
check_eq "$(json_get "$T/r.json" 'sorted(set(f["line"] for f in d["threads"][0]["frames"][1:]))')" "[$line]" \
	"every caller frame on the recursive call"
# gdb agrees on the top frames
gdb -nx -batch -ex 'bt 3' "$T/recurse" "$core" 2>/dev/null | grep -E '^#[12] ' > "$T/gdb"
grep -q "in down .*recurse.c:$line" "$T/gdb" || { cat "$T/gdb"; fail "gdb does not show down at recurse.c:$line"; }
echo "ok: gdb agrees on frames 1-2"
