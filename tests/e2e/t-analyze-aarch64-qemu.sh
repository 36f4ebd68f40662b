#!/usr/bin/env bash
# An aarch64 core written by QEMU's user mode (no NT_FILE, no text pages, no
# siginfo): with --exe the executable is found from the core's auxv
# (AT_PHDR) and the file's program headers; frames and their functions
# agree with eu-stack's pcs and eu-addr2line on the executable, and with
# gdb-multiarch on the same core: frames, registers (x0-x30, sp, pc,
# pstate), the instruction at pc. The faulting load's base register is
# NULL: the null-deref pattern from the operand (the crasher's source
# dereferences a NULL pointer), no x86-only pattern; text and Markdown show
# the registers and the code. Two more static crashers against gdb: a
# recursion (the same return pc in every level) and a call through a NULL
# function pointer (pc 0, the caller from lr); and one built with pointer
# authentication, run on QEMU's `max` CPU: signed return addresses, also with a relative --exe.
# test: slow
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in aarch64-linux-gnu-gcc qemu-aarch64 gdb-multiarch eu-stack eu-addr2line python3; do
	command -v $c >/dev/null || skip "$c not installed (apt-get install gcc-aarch64-linux-gnu qemu-user gdb-multiarch)"
done

cat >"$T/crash.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) int deref(int *p) { return *p; }
__attribute__((noinline)) int middle(int *p) { return deref(p) + 1; }
int main(void) { printf("%d\n", middle(0)); return 0; }
C
aarch64-linux-gnu-gcc -g -O1 -static -o "$T/crash" "$T/crash.c" 2>/dev/null || skip "cannot build a static aarch64 program"
rm -f "$T"/qemu_*.core
( cd "$T" && ulimit -c unlimited && exec qemu-aarch64 ./crash ) >/dev/null 2>&1
core=$(ls "$T"/qemu_*.core 2>/dev/null | head -1)
rm -f "$T/core"	# a core of qemu itself, if any
[ -n "$core" ] || skip "qemu-aarch64 wrote no core"

check_exit 0 "analyze --exe (aarch64, QEMU core)" -- "$PROVENANCE" analyze --exe "$T/crash" "$core" --format json
cp "$T/last.out" "$T/r.json"
pcs=$(eu-stack --core "$core" 2>/dev/null | sed -n 's/^#[0-9]* *\(0x[0-9a-f]*\).*/\1/p')
[ -n "$pcs" ] || fail "eu-stack printed no frames"
want=$(for pc in $pcs; do eu-addr2line -f -e "$T/crash" "$pc" | head -1; done | head -3 | tr '\n' ' ')
check_eq "$(json_get "$T/r.json" '" ".join(f["function"] or "??" for f in d["threads"][0]["frames"][:3]) + " "')" \
	"$want" "first three functions (eu-stack pcs, eu-addr2line names)"
check_eq "$want" "deref middle main " "the crasher's own call chain"
check_eq "$(json_get "$T/r.json" '[m["path"] for m in d["modules"]]')" "[\"$T/crash\"]" "the executable, once"

gdb-multiarch -batch -ex 'set sysroot /' -ex "file $T/crash" -ex "core $core" -ex 'thread apply all bt' \
	-ex 'info registers' -ex 'x/i $pc' >"$T/gdb.out" 2>&1
python3 "$TOP/tests/e2e/check-gdb-aarch64.py" "$T/r.json" "$T/gdb.out" --min-frames 3 || fail "gdb-multiarch disagrees"
check_eq "$(json_get "$T/r.json" 'd["registers_note"]')" "null" "no registers note"
check_eq "$(json_get "$T/r.json" 'd["instructions_note"]')" "null" "no instructions note"
# the crasher's source: deref(0) loads through its NULL argument (x0)
check_eq "$(json_get "$T/r.json" '" ".join(p["id"] for p in d["crash"]["patterns"])')" "null-deref" "patterns"
check_match "$(json_get "$T/r.json" 'd["crash"]["patterns"][0]["evidence"]')" '`x0` = 0x0' "evidence names the NULL base register"
grep -q "instruction boundary" "$T/r.json" && fail "a misleading instruction-boundary note"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/r.json" || fail "schema"

check_exit 0 "analyze (text)" -- "$PROVENANCE" analyze --exe "$T/crash" "$core"
pc=$(sed -n 's/^pc  *\(0x[0-9a-f]*\).*/\1/p' "$T/gdb.out")
grep -q "^  => 0x0*${pc#0x}:  ldr " "$T/last.out" || fail "text lacks the instruction at pc $pc"
grep -Eq "^  x30 +0x" "$T/last.out" && grep -Eq "  pstate +0x" "$T/last.out" || fail "text lacks the registers"
grep -q "^no registers" "$T/last.out" && fail "text says no registers"
echo "ok: text shows the registers and the code"

# exit 1: no package or upstream is known for a test program (incomplete)
check_exit 1 "resolve (Markdown)" -- "$PROVENANCE" resolve --exe "$T/crash" "$core" --format markdown
grep -q "^=> 0x0*${pc#0x}:  ldr " "$T/last.out" || fail "Markdown lacks the instruction at pc"
grep -Eq "^pc +0x0*${pc#0x} " "$T/last.out" || fail "Markdown lacks pc"
echo "ok: Markdown shows pc and the code"

# aarch64_core NAME SOURCE: build $T/NAME (static) and crash it under qemu-aarch64; prints the core
aarch64_core() {
	printf '%s\n' "$2" >"$T/$1.c"
	aarch64-linux-gnu-gcc -g -O1 -static -o "$T/$1" "$T/$1.c" 2>/dev/null || fail "cannot build $1.c"
	rm -f "$T"/qemu_"$1"_*.core
	( cd "$T" && ulimit -c unlimited && exec qemu-aarch64 "./$1" ) >/dev/null 2>&1
	rm -f "$T/core"
	ls "$T"/qemu_"$1"_*.core 2>/dev/null | head -1
}

# a recursion: every level returns to the same pc (told apart by sp, not
# taken for an unwinder loop)
core=$(aarch64_core rec '#include <stdio.h>
__attribute__((noinline)) int rec(int *p, int n) { if (n == 0) return *p; return rec(p, n - 1) + 1; }
int main(void) { printf("%d\n", rec(0, 5)); return 0; }')
[ -n "$core" ] || fail "qemu-aarch64 wrote no core for rec"
check_exit 0 "analyze (recursion)" -- "$PROVENANCE" analyze --exe "$T/rec" "$core" --format json
cp "$T/last.out" "$T/rec.json"
gdb-multiarch -batch -ex 'set sysroot /' -ex "file $T/rec" -ex "core $core" -ex 'thread apply all bt' \
	-ex 'info registers' -ex 'x/i $pc' >"$T/rec.gdb" 2>&1
python3 "$TOP/tests/e2e/check-gdb-aarch64.py" "$T/rec.json" "$T/rec.gdb" --min-frames 7 || fail "gdb-multiarch disagrees (recursion)"
check_eq "$(json_get "$T/rec.json" '[f["function"] for f in d["threads"][0]["frames"][:7]].count("rec")')" 6 \
	"rec(0, 5): six rec frames (source)"

# a call through a NULL function pointer: pc 0, the caller is lr (x30)
core=$(aarch64_core bc '#include <stdio.h>
typedef int (*fn_t)(int);
__attribute__((noinline)) int call_it(fn_t f, int v) { return f(v) + 1; }
int main(void) { printf("%d\n", call_it(NULL, 3)); return 0; }')
[ -n "$core" ] || fail "qemu-aarch64 wrote no core for bc"
check_exit 0 "analyze (call through NULL)" -- "$PROVENANCE" analyze --exe "$T/bc" "$core" --format json
cp "$T/last.out" "$T/bc.json"
gdb-multiarch -batch -ex 'set sysroot /' -ex "file $T/bc" -ex "core $core" -ex 'thread apply all bt' \
	-ex 'info registers' >"$T/bc.gdb" 2>&1
python3 "$TOP/tests/e2e/check-gdb-aarch64.py" "$T/bc.json" "$T/bc.gdb" --min-frames 3 --no-insn || fail "gdb-multiarch disagrees (call through NULL)"
check_eq "$(json_get "$T/bc.json" '[f["function"] for f in d["threads"][0]["frames"][1:3]]')" '["call_it", "main"]' \
	"the callers (source)"
check_eq "$(json_get "$T/bc.json" '" ".join(p["id"] for p in d["crash"]["patterns"])')" "bad-call" "patterns (call through NULL)"

# pointer authentication (-mbranch-protection=standard, qemu-aarch64 -cpu max
# signs return addresses): every saved return address has PAC bits, which
# libdwfl 0.188 does not strip. Truth: the call chain of the source, and
# each caller's pc is the address after its `bl` (the executable's
# disassembly by objdump); gdb-multiarch, without the kernel's PAC mask note
# (QEMU writes none), stops after frame #1.
command -v aarch64-linux-gnu-objdump >/dev/null || skip "aarch64-linux-gnu-objdump not installed (binutils-aarch64-linux-gnu)"
printf '%s\n' '#include <stdio.h>' \
	'__attribute__((noinline)) int deref(int *p) { return *p; }' \
	'__attribute__((noinline)) int middle(int *p) { return deref(p) + 1; }' \
	'__attribute__((noinline)) int outer(int *p) { return middle(p) * 2; }' \
	'int main(void) { printf("%d\n", outer(0)); return 0; }' >"$T/pac.c"
aarch64-linux-gnu-gcc -g -O1 -static -mbranch-protection=standard -o "$T/pac" "$T/pac.c" || fail "cannot build pac.c"
aarch64-linux-gnu-objdump -d --no-show-raw-insn "$T/pac" >"$T/pac.dis"
grep -A1 '<middle>:' "$T/pac.dis" | grep -q paciasp || skip "the compiler signs no return address (no paciasp)"
rm -f "$T"/qemu_pac_*.core
( cd "$T" && ulimit -c unlimited && exec qemu-aarch64 -cpu max ./pac ) >/dev/null 2>&1
rm -f "$T/core"
core=$(ls "$T"/qemu_pac_*.core 2>/dev/null | head -1)
[ -n "$core" ] || fail "qemu-aarch64 wrote no core for pac"
check_exit 0 "analyze (PAC)" -- "$PROVENANCE" analyze --exe "$T/pac" "$core" --format json
cp "$T/last.out" "$T/pac.json"
# the return address of CALLER's bl to CALLEE
ret_of() {
	python3 - "$T/pac.dis" "$1" "$2" <<'P'
import re, sys
dis, caller, callee = sys.argv[1:]
cur = None
for line in open(dis):
    m = re.match(r'^[0-9a-f]+ <(.+)>:$', line)
    if m:
        cur = m.group(1)
        continue
    m = re.match(r'^\s*([0-9a-f]+):\s+bl\s+[0-9a-f]+ <(.+)>', line)
    if m and cur == caller and m.group(2) == callee:
        print('0x%x' % (int(m.group(1), 16) + 4))
        break
P
}
want="deref middle:$(ret_of middle deref) outer:$(ret_of outer middle) main:$(ret_of main outer)"
check_eq "$(json_get "$T/pac.json" '" ".join(f["function"] + ("" if i == 0 else ":" + f["pc"]) for i, f in enumerate(d["threads"][0]["frames"][:4]))')" \
	"$want" "frames through signed return addresses (source; pcs after each bl)"
# issue 39 #14: the same with a relative --exe from the core's directory (it
# left the module list empty and every frame unnamed): the same frames
( cd "$T" && "$PROVENANCE" analyze --exe ./pac "$core" --format json ) >"$T/pac-rel.json" 2>"$T/pac-rel.err" ||
	fail "analyze --exe ./pac: exit $?: $(head -2 "$T/pac-rel.err")"
check_eq "$(json_get "$T/pac-rel.json" '" ".join(f["function"] + ("" if i == 0 else ":" + f["pc"]) for i, f in enumerate(d["threads"][0]["frames"][:4]))')" \
	"$want" "a relative --exe: the same frames"
check_eq "$(json_get "$T/pac-rel.json" '[m["path"] for m in d["modules"]]')" "[\"$T/pac\"]" "a relative --exe: the module, by its absolute path"
