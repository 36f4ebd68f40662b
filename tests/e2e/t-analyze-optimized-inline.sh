#!/usr/bin/env bash
# An entry value gdb cannot recover is "optimized out" here too: at -O2,
# work() is inlined into flat() and also emitted out of line, so the call
# site in caller() names work's abstract DIE (DW_AT_inline, no address) as its
# target. gdb then declines to read work's parameter n back through that call
# site ("DW_AT_call_target is not specified") and prints <optimized out>; so
# must we (the call site's value, 5, is not proven to be what this frame's
# function was entered with). Every other value of the first frames is
# compared with gdb (tests/e2e/locals-check.py).
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null || skip "gdb not installed"
mkdir -p "$T/c"
# no other inlining and no clones: only flatten decides what is inlined
cc -g -O2 -fno-inline-small-functions -fno-inline-functions -fno-ipa-sra -fno-ipa-cp \
	-o "$T/c/optinline" "$TOP/fixtures/crashers/optinline.c" || fail "cannot build optinline.c"
core=$(make_core "$T/c" ./optinline) || exit 1
gdb -nx -batch -ex up -ex 'info args' "$T/c/optinline" "$core" >"$T/gdb.out" 2>/dev/null
grep -q '^#1 .* in work ' "$T/gdb.out" || fail "gdb's frame #1 is not work: $(head -1 "$T/gdb.out")"
grep -qx 'n = <optimized out>' "$T/gdb.out" ||
	skip "gdb shows a value for work's n with this compiler: nothing to compare"
check_exit 0 "analyze" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/a.json"
python3 "$TOP/tests/e2e/locals-check.py" "$T/a.json" "$T/c/optinline" "$core" --frames 2 --min 3 ||
	fail "arguments and locals differ from gdb"
python3 - "$T/a.json" <<'PY' || fail "work's n"
import json, sys
d = json.load(open(sys.argv[1]))
t = next(t for t in d["threads"] if t["crashed"])
f = next(f for f in t["frames"] if f["function"] == "work")
v = next(v for v in f["args"] if v["name"] == "n")
if v["value"] is not None or not v["note"].startswith("optimized out"):
    sys.exit("work's n: value %r, note %r (gdb: <optimized out>)" % (v["value"], v["note"]))
PY
# text: the same, under work's frame
check_exit 0 "text --locals" -- "$PROVENANCE" analyze --locals "$core"
check_match "$(cat "$T/last.out")" "arg n = <optimized out" "text shows n optimized out"
echo "work's n optimized out, as gdb says"
