#!/usr/bin/env bash
# The crashing instruction decodes when it is an AVX-512 (EVEX) one, as in
# glibc's __strlen_evex: capstone 4 cannot, the libopcodes fallback can.
# Ground truth: gdb's `x/i $pc` (Intel flavour) on the same core. Also a
# strlen(NULL) crash in libc itself when this CPU makes glibc pick the EVEX
# variant.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null || skip "no gdb"
mkdir -p "$T/run"
cat >"$T/evex.c" <<'C'
int main(void)
{
	/* EVEX: SIGSEGV on a NULL base with AVX-512, SIGILL without */
	__asm__ volatile("xor %%edi, %%edi\n\tvpcmpeqb (%%rdi), %%ymm16, %%k0" ::: "rdi", "memory");
	return 0;
}
C
cat >"$T/strlen.c" <<'C'
#include <string.h>
int main(int argc, char **argv)
{
	(void)argv;
	return (int)strlen(argc > 5 ? "x" : (const char *)0);
}
C
build_fixture "$T/evex.c" "$T/run/evex"
build_fixture "$T/strlen.c" "$T/run/strlen" -fno-builtin

gdb_insn() { # gdb_insn PROG CORE: the instruction at the pc, Intel syntax, spaces squeezed
	gdb -batch -ex "set disassembly-flavor intel" -ex "set debuginfod enabled off" -ex 'x/i $pc' "$1" "$2" 2>/dev/null |
		sed -n 's/^=> 0x[0-9a-f]*[^:]*:[[:space:]]*//p' | tr -s ' \t' ' ' | sed 's/ $//'
}
prov_insn() { # prov_insn CORE: the current instruction of the JSON report, spaces squeezed
	"$PROVENANCE" analyze "$1" --format json >"$T/a.json" 2>"$T/a.err" || { cat "$T/a.err"; fail "analyze $1"; }
	json_get "$T/a.json" '[i["text"] for i in d["instructions"] if i["current"]][0] if d["instructions"] else "none: " + str(d.get("instructions_note"))' |
		tr -s ' \t' ' ' | sed 's/ $//'
}

core=$(make_core "$T/run" ./evex)
want=$(gdb_insn "$T/run/evex" "$core")
check_match "$want" "^vpcmpeqb k0, ?ymm16" "gdb decodes the EVEX instruction"
check_eq "$(prov_insn "$core" | sed 's/, /,/g')" "$(echo "$want" | sed 's/, /,/g')" "crashing EVEX instruction = gdb x/i"

mv "$core" "$T/evex.core"
core=$(make_core "$T/run" ./strlen)
fn=$(gdb -batch -ex "set debuginfod enabled off" -ex 'frame 0' "$T/run/strlen" "$core" 2>/dev/null | grep -o '__strlen_[a-z0-9]*' | head -1)
note "glibc chose ${fn:-an unknown strlen} on this CPU"
want=$(gdb_insn "$T/run/strlen" "$core")
[ -n "$want" ] || fail "gdb shows no instruction for the strlen crash"
check_eq "$(prov_insn "$core" | sed 's/, /,/g')" "$(echo "$want" | sed 's/, /,/g')" "crashing instruction in ${fn:-strlen} = gdb x/i"
echo "all ok"
