#!/usr/bin/env bash
# A SIGSEGV sent with kill (si_code SI_USER) faulted on no address: no
# fault-address pattern (stack-overflow, null-deref, non-canonical, the
# faulting operand's data-race flags) even though the interrupted instruction
# reads the stack just below the stack pointer (spinstack.c); the signal says
# it was sent, and by whom (this shell's pid, the truth from kill itself).
. "$(dirname "$0")/lib.sh"
can_dump_core
[ "$(uname -m)" = x86_64 ] || skip "spinstack.c's stack-touching loop is x86-64 assembly"
C=$TOP/fixtures/crashers
cd "$T"
build_fixture "$C/spinstack.c" "$T/prog"
(
	ulimit -c unlimited
	exec ./prog "$T/ready"
) >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do
	[ -e "$T/ready" ] && break
	sleep 0.05
done
[ -e "$T/ready" ] || { kill -KILL $pid; fail "spinstack did not start"; }
kill -SEGV $pid
wait $pid
rc=$?
[ $rc -ge 128 ] || fail "spinstack exited $rc, not by a signal"
core=$(ls -t "$T"/core "$T"/core.* 2>/dev/null | head -1)
[ -n "$core" ] || fail "spinstack left no core in $T"
"$PROVENANCE" analyze "$core" --format json >"$T/out.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "analyze exited $rc"; }
check_eq "$(json_get "$T/out.json" 'd["signal"]["name"]')" SIGSEGV "signal"
check_eq "$(json_get "$T/out.json" 'd["signal"]["code_name"]')" SI_USER "si_code"
check_eq "$(json_get "$T/out.json" 'd["signal"]["sender_pid"]')" "$$" "sender pid"
got=$(json_get "$T/out.json" '",".join(sorted(p["id"] for p in d["crash"]["patterns"]))')
for bad in stack-overflow null-deref non-canonical data-race bad-call; do
	case ",$got," in
	*",$bad,"*) fail "a SIGSEGV sent with kill got the $bad pattern (patterns: $got)" ;;
	esac
done
"$PROVENANCE" analyze "$core" >"$T/out.txt" 2>/dev/null
grep -q "SI_USER.*sent by pid $$" "$T/out.txt" || fail "the text report does not say the signal was sent by pid $$: $(grep -m1 SIGSEGV "$T/out.txt")"
echo "sent SIGSEGV: patterns '$got', no fault-address pattern"
