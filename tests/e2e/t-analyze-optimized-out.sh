#!/usr/bin/env bash
# Values gdb calls <optimized out> at -O2: a local whose location list ends
# before the crash point (len, unset), and a caller's local that lives only
# from the return address on (middle's r: callers are looked up at pc - 1).
# Each variable gdb's info args / info locals names in the first frames is
# compared (tests/e2e/locals-check.py); the optimized-out ones must have no
# value, with the note "optimized out".
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null || skip "gdb not installed"
mkdir -p "$T/c"
cc -g -O2 -o "$T/c/optout" "$TOP/fixtures/crashers/optout.c" || fail "cannot build optout.c"
core=$(make_core "$T/c" ./optout) || exit 1
check_exit 0 "analyze" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/a.json"
python3 "$TOP/tests/e2e/locals-check.py" "$T/a.json" "$T/c/optout" "$core" --frames 2 --min 6 ||
	fail "arguments and locals differ from gdb"
gdb -nx -batch -ex 'info locals' -ex up -ex 'info locals' "$T/c/optout" "$core" 2>/dev/null |
	sed -n 's/^\([a-z_]*\) = <optimized out>$/\1/p' | sort -u >"$T/gdb-oo"
for v in len unset r; do
	grep -qx "$v" "$T/gdb-oo" || skip "gdb shows a value for $v with this compiler: nothing to compare"
done
python3 - "$T/a.json" <<'PY' || fail "optimized-out locals"
import json, sys
d = json.load(open(sys.argv[1]))
t = next(t for t in d["threads"] if t["crashed"])
want = {"crash_here": ["len", "unset"], "middle": ["r"]}
for f in t["frames"]:
    for name in want.pop(f["function"], []):
        v = next(v for v in f["locals"] if v["name"] == name)
        if v["value"] is not None or v["note"] != "optimized out":
            sys.exit("%s in %s: value %r, note %r" % (name, f["function"], v["value"], v["note"]))
if want:
    sys.exit("frames not found: %s" % list(want))
PY
echo "optimized out where gdb says so"
