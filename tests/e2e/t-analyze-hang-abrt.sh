#!/bin/bash
# A deadlock killed by a watchdog (issue 34): an ABBA deadlock whose watchdog
# thread raise(SIGABRT)s after 2 s leaves a real core (not a snapshot). The
# report must keep the lock cycle as the cause (both threads, each mutex's
# owner as gdb reads __data.__owner from the core), name the watchdog's thread
# as the crashing one (gdb's selected thread) and not call it an abort or
# assertion; an assert() that fails in a program without a lock cycle keeps
# its abort pattern and gets no hang analysis.
. "$(dirname "$0")/lib.sh"
export LSAN_OPTIONS="suppressions=$TOP/tests/e2e/lsan-libdw.supp:print_suppressions=0:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
command -v gdb >/dev/null || skip "no gdb"
can_dump_core
build_fixture "$TOP/fixtures/hang/abba-watchdog.c" "$T/abba-watchdog" -g -O0 -pthread
mkdir -p "$T/d"
c=$(make_core "$T/d" "$T/abba-watchdog")
gdb -nx -q -batch "$T/abba-watchdog" "$c" -ex 'p $_siginfo.si_signo' -ex 'info threads' -ex 'thread apply all bt' \
	-ex 'p ((int*)&m1)[2]' -ex 'p ((int*)&m2)[2]' >"$T/gdb.txt" 2>&1
signo=$(sed -n 's/^\$1 = //p' "$T/gdb.txt")
o1=$(sed -n 's/^\$2 = //p' "$T/gdb.txt"); o2=$(sed -n 's/^\$3 = //p' "$T/gdb.txt")
lwp_of() { awk -v f="$1" '/^Thread .*LWP/{match($0, /LWP [0-9]+/); l=substr($0, RSTART+4, RLENGTH-4)} $0 ~ " in "f" \\(|^#[0-9]+ +"f" \\(" {print l; exit}' "$T/gdb.txt"; }
t1=$(lwp_of t1); t2=$(lwp_of t2); wd=$(lwp_of watchdog)
sel=$(sed -n 's/^\* *[0-9]* *Thread [^(]*(LWP \([0-9]*\)).*/\1/p' "$T/gdb.txt")
note "gdb: signal $signo; m1 owned by $o1, m2 by $o2; t1 LWP $t1, t2 LWP $t2, watchdog LWP $wd, selected $sel"
[ -n "$o1" ] && [ -n "$o2" ] && [ -n "$t1" ] && [ -n "$t2" ] && [ -n "$wd" ] || { cat "$T/gdb.txt"; fail "cannot read the truth from gdb"; }
check_eq "$signo" 6 "gdb: the core is a SIGABRT"
check_eq "$sel" "$wd" "gdb: the watchdog's thread took the signal"
check_eq "$o1 $o2" "$t1 $t2" "gdb: each thread holds its first lock"

check_exit 0 "analyze the core" -- "$PROVENANCE" analyze "$c" --format json
cp "$T/last.out" "$T/core.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/core.json" --kind core || fail "JSON contract"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/core.json" || fail "schema"
check_eq "$(json_get "$T/core.json" 'd["crash"]["snapshot"]')" false "a core, not a snapshot"
check_eq "$(json_get "$T/core.json" 'd["crash"]["thread"]')" "$wd" "the crashing thread is the watchdog's"
check_eq "$(json_get "$T/core.json" 'sorted(sorted(c) for c in d["hang"]["deadlocks"])')" \
	"$(python3 -c "print([sorted([$t1, $t2])])")" "the deadlock cycle names both threads"
check_eq "$(json_get "$T/core.json" '[w["owner"] for w in d["hang"]["waits"] if w["thread"] == '"$t1"']')" "[$o2]" "t1 waits for m2's owner"
check_eq "$(json_get "$T/core.json" '[w["owner"] for w in d["hang"]["waits"] if w["thread"] == '"$t2"']')" "[$o1]" "t2 waits for m1's owner"
check_eq "$(json_get "$T/core.json" '[p["id"] for p in d["crash"]["patterns"]]')" '["deadlock"]' "the cause is the deadlock, not an abort"

"$PROVENANCE" resolve --offline "$c" --format markdown >"$T/r.md" 2>/dev/null
grep -Eq "deadlock: thread ($t1 -> $t2|$t2 -> $t1)" "$T/r.md" || { cat "$T/r.md"; fail "Markdown names no deadlock"; }
grep -qi 'assertion\|aborted itself' "$T/r.md" && { cat "$T/r.md"; fail "Markdown calls the watchdog's kill an abort/assertion"; }
sed -n '/^### Recommended next steps/,$p' "$T/r.md" | grep -q 'one order' || fail "Markdown recommends nothing for the deadlock"
echo "ok: the watchdog's SIGABRT keeps the lock cycle as the cause"

# an assertion without a lock cycle: abort pattern, no hang analysis
printf '#include <assert.h>\nint main(int argc, char **argv) { (void)argv; assert(argc == 7); return 0; }\n' >"$T/a.c"
build_fixture "$T/a.c" "$T/assert" -g -O0
mkdir -p "$T/a"
c=$(make_core "$T/a" "$T/assert")
check_exit 0 "analyze the assertion's core" -- "$PROVENANCE" analyze "$c" --format json
cp "$T/last.out" "$T/a.json"
check_eq "$(json_get "$T/a.json" '[p["id"] for p in d["crash"]["patterns"]]')" '["abort"]' "an assertion keeps its abort pattern"
check_eq "$(json_get "$T/a.json" 'd.get("hang")')" null "no hang analysis without a lock cycle"
echo "ok: an assertion is still an abort"
