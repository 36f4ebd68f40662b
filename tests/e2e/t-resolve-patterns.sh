#!/usr/bin/env bash
# Crash patterns on cores made at test time: each crasher produces its own
# pattern and no other. The facts behind each (signal, si_code, frames) are
# what the crasher's source does, checked too.
. "$(dirname "$0")/lib.sh"
can_dump_core
C=$TOP/fixtures/crashers
cd "$T"

# crasher  expected-patterns(sorted, comma)  signal  si_code_name
cases=(
	"nullmain null-deref SIGSEGV SEGV_MAPERR"
	"badcall bad-call SIGSEGV SEGV_MAPERR"
	# noncanon.c loads through 0xdeadbeefdeadbeef: a fill value (data-race red flag)
	"noncanon data-race,non-canonical SIGSEGV SI_KERNEL"
	"misaligned misaligned SIGBUS BUS_ADRALN"
	"recurse stack-overflow SIGSEGV SEGV_MAPERR"
	"abort abort SIGABRT SI_TKILL"
	"atexit exit-time,null-deref SIGSEGV SEGV_MAPERR"
	"doublefree heap-corruption SIGABRT SI_TKILL"
)
build_fixture "$C/libnull.c" "$T/libnull.so" -fPIC -shared
for c in "${cases[@]}"; do
	set -- $c
	name=$1 want=$2 sig=$3 code=$4
	mkdir -p "$T/$name"
	case $name in
	nullmain) build_fixture "$C/nullmain.c" "$T/$name/prog" "$T/libnull.so" -Wl,-rpath,"$T" ;;
	*) build_fixture "$C/$name.c" "$T/$name/prog" ;;
	esac
	if [ "$name" = recurse ]; then
		core=$(make_core "$T/$name" bash -c 'ulimit -s 8192; exec ./prog')
	else
		core=$(make_core "$T/$name" ./prog)
	fi
	"$PROVENANCE" resolve "$core" --offline --format json >"$T/$name.json" 2>"$T/$name.err"
	rc=$?
	[ $rc -le 1 ] || { cat "$T/$name.err"; fail "$name: resolve exited $rc"; }
	check_eq "$(json_get "$T/$name.json" 'd["signal"]["name"]')" "$sig" "$name: signal"
	check_eq "$(json_get "$T/$name.json" 'd["signal"]["code_name"]')" "$code" "$name: si_code"
	got=$(json_get "$T/$name.json" '",".join(sorted(p["id"] for p in d["crash"]["patterns"]))')
	check_eq "$got" "$want" "$name: patterns"
	# the evidence is non-empty and the markdown names the pattern
	json_get "$T/$name.json" 'all(p["evidence"] for p in d["crash"]["patterns"])' | grep -q true ||
		fail "$name: a pattern without evidence"
	"$PROVENANCE" resolve "$core" --offline --format markdown >"$T/$name.md" 2>/dev/null
	grep -q '^### Crash pattern' "$T/$name.md" || fail "$name: markdown has no pattern section"
done

# bad-call: frame #0's pc is 0, and the caller is run() at the CRASH HERE line
check_eq "$(json_get "$T/badcall.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][0]["pc"]')" 0x0 "badcall: pc 0"
line=$(grep -n 'CRASH HERE' "$C/badcall.c" | cut -d: -f1)
check_eq "$(json_get "$T/badcall.json" '[f["line"] for f in [t for t in d["threads"] if t["crashed"]][0]["frames"] if f["function"] == "run"][0]')" "$line" "badcall: run() line"
# doublefree: glibc's check is on the stack (malloc_printerr), called from release()
json_get "$T/doublefree.json" '[f["function"] for f in [t for t in d["threads"] if t["crashed"]][0]["frames"]]' >"$T/df.fns"
grep -q malloc_printerr "$T/df.fns" || fail "doublefree: no malloc_printerr frame: $(cat "$T/df.fns")"
grep -q release "$T/df.fns" || fail "doublefree: no release frame"
# atexit: the context is exit time
check_eq "$(json_get "$T/atexit.json" 'd["crash"]["context"]')" exit "atexit: context"
echo "all pattern checks passed"
