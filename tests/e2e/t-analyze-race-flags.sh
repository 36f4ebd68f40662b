#!/usr/bin/env bash
# Data-race red flags (crash pattern "data-race") and the evidence chosen from
# the crash chain, on cores of fixtures/crashers/racy.c and inline-string.cpp;
# the values are gdb's (p, x/i $pc, info registers), never provenance's own.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb python3 c++; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers

build_fixture "$F/racy.c" "$T/racy"
gdbp() { gdb -nx -batch -ex "set width 0" "$@" 2>/dev/null | sed -n 's/^\$[0-9]* = //p'; }

# 1. a container with size > capacity and a 0xdeadbeef, misaligned data pointer
mkdir -p "$T/race"
core=$(make_core "$T/race" "$T/racy") || exit 1
check_exit 0 "analyze racy" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/race.json"
ev=$(json_get "$T/race.json" '[p["evidence"] for p in d["crash"]["patterns"] if p["id"] == "data-race"]')
[ "$ev" != "[]" ] || fail "no data-race pattern: $(json_get "$T/race.json" 'd["crash"]["patterns"]')"
# the runbook: on data-race evidence, recommend a ThreadSanitizer build
"$PROVENANCE" resolve "$core" --offline --format markdown >"$T/race.md" 2>/dev/null
sed -n '/^### Recommended next steps/,$p' "$T/race.md" | grep -q 'fsanitize=thread' || fail "no ThreadSanitizer build recommended for a data race"
data=$(gdbp -ex "frame 0" -ex "p/x snap.data" "$T/racy" "$core")
size=$(gdbp -ex "frame 0" -ex "p snap.size" "$T/racy" "$core")
cap=$(gdbp -ex "frame 0" -ex "p snap.capacity" "$T/racy" "$core")
insn=$(gdb -nx -batch -ex "x/i \$pc" "$T/racy" "$core" 2>/dev/null | grep '^=>')
reg=$(echo "$insn" | sed -n 's/.*(%\([a-z0-9]*\)).*/\1/p')
[ -n "$reg" ] || fail "cannot read the faulting operand's register from gdb: $insn"
ea=$(gdbp -ex "p/x \$$reg" "$T/racy" "$core")
note "gdb: snap.data=$data size=$size capacity=$cap; $insn; $reg=$ea"
check_match "$ev" "size $size > capacity $cap" "racy: the container's size past its capacity"
check_match "$ev" "hint.*$data.*not 8-byte aligned and holds 0xdeadbeef" "racy: the misaligned 0xdeadbeef pointer argument"
check_match "$ev" "faulting instruction's address $ea is not 8-byte aligned" "racy: the faulting operand's address"

# 2. freed memory: a pointer made of jemalloc's 0xa5 junk fill
mkdir -p "$T/freed"
core=$(make_core "$T/freed" "$T/racy" freed) || exit 1
check_exit 0 "analyze racy freed" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/freed.json"
data=$(gdbp -ex "frame 0" -ex "p/x snap.data" "$T/racy" "$core")
ev=$(json_get "$T/freed.json" '[p["evidence"] for p in d["crash"]["patterns"] if p["id"] == "data-race"]')
check_match "$ev" "$data.*0xa5 bytes: jemalloc" "freed: the 0xa5 fill pointer"

# 3. the evidence of a crash in std::string's inline helpers: first_char's
#    pointer argument (gdb's frame 1), not the helper's optimized-out `this`
c++ -g -O2 -fno-omit-frame-pointer -o "$T/inline-string" "$F/inline-string.cpp" ||
	fail "cannot build inline-string.cpp"
mkdir -p "$T/istr"
core=$(make_core "$T/istr" "$T/inline-string") || exit 1
bt=$(gdb -nx -batch -ex "set width 0" -ex bt "$T/inline-string" "$core" 2>/dev/null | grep '^#')
echo "$bt" | grep -q '^#0 .*std::.*this=<optimized out>' || skip "the compiler did not inline std::string::at here: $bt"
name=$(gdbp -ex "frame 1" -ex "p name" "$T/inline-string" "$core" | sed 's/^([^)]*) //')
"$PROVENANCE" resolve "$core" --offline --format markdown >"$T/istr.md" 2>/dev/null
sed -n '/^### Evidence/,/^### [^E]/p' "$T/istr.md" >"$T/ev.md"
first=$(grep -m1 '^Frame #' "$T/ev.md")
check_match "$first" 'first_char' "inline-string: the first evidence frame"
grep -q 'std::' "$T/ev.md" && fail "inline-string: the evidence shows a std:: helper: $(cat "$T/ev.md")"
line=$(grep -m1 '^- ' "$T/ev.md")
check_match "$line" "arg \`name\` .* = \`$name\` — \*\*the faulting pointer\*\*" "inline-string: name first, the faulting pointer (gdb: $name)"
