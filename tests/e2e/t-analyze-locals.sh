#!/usr/bin/env bash
# Arguments and locals of the crashing thread's frames (DWARF locations read
# with the unwound registers and the core's memory) against gdb's info args /
# info locals: fixtures/crashers/vars.c at -O0 and -O2 (registers, location
# lists, optimized-out values, SSE arguments), libnull (a shared library),
# inline.c (an inlined frame's parameters). Text --locals and the JSON shape.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb python3; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers
CHK="python3 $TOP/tests/e2e/locals-check.py"

# vars.c -O0: every value gdb shows, equal
mkdir -p "$T/o0" "$T/o2" "$T/lib" "$T/inl"
build_fixture "$F/vars.c" "$T/o0/vars"
core=$(make_core "$T/o0" ./vars) || exit 1
check_exit 0 "analyze --format json (vars -O0)" -- "$PROVENANCE" analyze --format json "$core"
cp "$T/last.out" "$T/o0.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/o0.json" --kind core || fail "JSON contract"
$CHK "$T/o0.json" "$T/o0/vars" "$core" --min 18 || fail "vars -O0: args/locals differ from gdb"
# the shape: name, type, value, note; a pointer's string; a struct one level deep
check_eq "$(json_get "$T/o0.json" '[v["type"] for v in d["threads"][0]["frames"][0]["args"] if v["name"]=="label"][0]')" \
	"const char *" "type of label"
check_eq "$(json_get "$T/o0.json" 'sorted(d["threads"][0]["frames"][0]["args"][0].keys())')" \
	'["name", "note", "type", "value"]' "keys of an argument"
# ground truth from the source: the literal main passes
lit=$(grep -o '"label-text"' "$F/vars.c" | head -1)
check_match "$(json_get "$T/o0.json" '[v["value"] for v in d["threads"][0]["frames"][0]["args"] if v["name"]=="label"][0]')" \
	"^0x[0-9a-f]+ $lit\$" "label: address and the string it points to"
# frames without DWARF (libc without debug info, or beyond the crash) say null
check_eq "$(json_get "$T/o0.json" 'all((f["args"] is None) == (f["locals"] is None) for t in d["threads"] for f in t["frames"])')" \
	true "args and locals are both null or both lists"

# vars.c -O2: location lists, registers, SSE (xmm0) arguments, optimized out
${CC:-cc} -g -O2 -o "$T/o2/vars" "$F/vars.c" || fail "cannot build vars -O2"
core=$(make_core "$T/o2" ./vars) || exit 1
check_exit 0 "analyze --format json (vars -O2)" -- "$PROVENANCE" analyze --format json "$core"
cp "$T/last.out" "$T/o2.json"
$CHK "$T/o2.json" "$T/o2/vars" "$core" --min 10 || fail "vars -O2: args/locals differ from gdb"
check_eq "$(json_get "$T/o2.json" '[v["value"] for v in d["threads"][0]["frames"][0]["args"] if v["name"]=="ratio"][0]')" \
	1.5 "ratio (a double in xmm0 at the crash)"
# delta only lives as its entry value: the caller's call site passes the constant (vars.c)
check_eq "$(json_get "$T/o2.json" '[v["value"] for v in d["threads"][0]["frames"][0]["args"] if v["name"]=="delta"][0]')" \
	"$(grep -o 'crash_here(&rec, label, -[0-9]*L' "$F/vars.c" | sed 's/.*, //; s/L$//')" "delta (entry value from main's call site)"

# a shared library at -O0, recursion: every frame's p and depth
${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -o "$T/lib/libnull.so" "$F/libnull.c" || fail "cannot build libnull.so"
build_fixture "$F/nullmain.c" "$T/lib/nullmain" "$T/lib/libnull.so" -Wl,-rpath,"$T/lib"
core=$(make_core "$T/lib" ./nullmain) || exit 1
check_exit 0 "analyze --format json (libnull)" -- "$PROVENANCE" analyze --format json "$core"
cp "$T/last.out" "$T/lib.json"
$CHK "$T/lib.json" "$T/lib/nullmain" "$core" --min 6 || fail "libnull: args/locals differ from gdb"
check_eq "$(json_get "$T/lib.json" '[v["value"] for v in d["threads"][0]["frames"][0]["args"] if v["name"]=="p"][0]')" \
	0x0 "lib_read_value's p"

# inline.c -O2: the inlined frame's parameters
${CC:-cc} -g -O2 -o "$T/inl/inline" "$F/inline.c" || fail "cannot build inline"
core=$(make_core "$T/inl" ./inline) || exit 1
check_exit 0 "analyze --format json (inline)" -- "$PROVENANCE" analyze --format json "$core"
cp "$T/last.out" "$T/inl.json"
check_eq "$(json_get "$T/inl.json" 'd["threads"][0]["frames"][0]["inlined"]')" true "frame 0 is inlined"
$CHK "$T/inl.json" "$T/inl/inline" "$core" --min 2 || fail "inline: args/locals differ from gdb"

# text: --locals shows them under the frame, without it they are not shown
check_exit 0 "analyze --locals" -- "$PROVENANCE" analyze --locals "$T/o0/core"
grep -q '^ *arg c = BLUE  (enum color)$' "$T/last.out" || fail "text --locals lacks 'arg c = BLUE'"
grep -q '^ *local p = {x = -3, y = 7}  (struct point)$' "$T/last.out" || fail "text --locals lacks the struct p"
echo "ok: text --locals"
check_exit 0 "analyze (no --locals)" -- "$PROVENANCE" analyze "$T/o0/core"
grep -q 'arg c = ' "$T/last.out" && fail "text shows locals without --locals"
echo "ok: text without --locals"
exit 0
