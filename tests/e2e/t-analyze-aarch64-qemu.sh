#!/usr/bin/env bash
# An aarch64 core written by QEMU's user mode (no NT_FILE, no text pages):
# with --exe the executable is found from the core's auxv (AT_PHDR) and the
# file's program headers; frames and their functions agree with eu-stack's
# pcs and eu-addr2line on the executable; registers and disassembly say
# plainly that aarch64 is not supported there (registers_note,
# instructions_note), never "not on an instruction boundary".
# Needs gcc-aarch64-linux-gnu and qemu-user (large: not in DEB_PACKAGES).
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in aarch64-linux-gnu-gcc qemu-aarch64 eu-stack eu-addr2line python3; do
	command -v $c >/dev/null || skip "$c not installed (apt-get install gcc-aarch64-linux-gnu qemu-user)"
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
check_eq "$(json_get "$T/r.json" 'd["registers_note"]')" "registers of aarch64 cores are not read yet" "registers note"
check_match "$(json_get "$T/r.json" 'd["instructions_note"]')" '^disassembly .* of aarch64 cores is not supported$' \
	"instructions note"
grep -q "instruction boundary" "$T/r.json" && fail "a misleading instruction-boundary note"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/r.json" || fail "schema"
check_exit 0 "analyze (text)" -- "$PROVENANCE" analyze --exe "$T/crash" "$core"
grep -q "^no registers: registers of aarch64 cores are not read yet" "$T/last.out" || fail "text lacks the registers line"
echo "ok: text names what is not supported"
