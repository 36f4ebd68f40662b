#!/usr/bin/env bash
# --pid on a process with a thread that cannot be stopped (a vfork parent
# whose child sleeps before exec: uninterruptible in the kernel) returns:
# every wait on the target is bounded. `timeout 120` is a hang guard only.
# The stuck thread is reported as not stopped, with where it waits (truth:
# /proc/PID/stat says D, /proc/PID/task/TID/stack or wchan names the kernel
# function); the other thread is still stopped and unwound (truth: the
# fixture's source); the process is let go and finishes normally (its exit
# status, after the child's exec).
. "$(dirname "$0")/lib.sh"

[ -r /proc/sys/kernel/yama/ptrace_scope ] && [ "$(cat /proc/sys/kernel/yama/ptrace_scope)" -gt 1 ] &&
	[ "$(id -u)" != 0 ] && skip "kernel.yama.ptrace_scope forbids attaching"
build_fixture "$TOP/fixtures/crashers/vforkwait.c" "$T/vforkwait" -pthread
worker_fn=$(grep -B4 'IDLE HERE' "$TOP/fixtures/crashers/vforkwait.c" | sed -n 's/^static void \*\([a-z_]*\)(.*/\1/p')
check_eq "$worker_fn" idle_worker "the worker's function (from the source)"

for cmd in resolve analyze; do
	"$T/vforkwait" 20 >"$T/pid.txt" &
	target=$!
	for i in $(seq 1 100); do
		[ -s "$T/pid.txt" ] && [ "$(awk '{print $3}' "/proc/$target/stat" 2>/dev/null)" = D ] && break
		sleep 0.1
	done
	check_eq "$(awk '{print $3}' "/proc/$target/stat")" D "$cmd: the target's main thread is in uninterruptible sleep (/proc)"
	kfn=$(sed -n '1s/^\[<[0-9a-f]*>\] \([A-Za-z0-9_.]*\)+.*/\1/p' "/proc/$target/task/$target/stack" 2>/dev/null)
	[ -n "$kfn" ] || kfn=$(cat "/proc/$target/task/$target/wchan" 2>/dev/null)
	echo "the kernel has it in: ${kfn:-(unreadable)}"
	extra=
	[ $cmd = resolve ] && extra=--offline
	timeout 120 "$PROVENANCE" $cmd $extra --format json --pid "$target" >"$T/$cmd.json" 2>"$T/$cmd.err"
	rc=$?
	[ $rc = 124 ] && { kill $target; fail "$cmd --pid did not return within the 120 s guard"; }
	[ $rc -le 1 ] || { cat "$T/$cmd.err"; kill $target; fail "$cmd --pid exits $rc"; }
	echo "ok: $cmd --pid returns (exit $rc)"
	check_eq "$(json_get "$T/$cmd.json" "[t['unwind_error'][:12] for t in d['threads'] if t['tid'] == $target][0]")" \
		"not stopped:" "$cmd: the vfork parent's thread is reported as not stopped"
	if [ -n "$kfn" ]; then
		check_eq "$(json_get "$T/$cmd.json" "int('$kfn' in [t['unwind_error'] for t in d['threads'] if t['tid'] == $target][0])")" 1 \
			"$cmd: it names the kernel function /proc gives ($kfn)"
	fi
	check_eq "$(json_get "$T/$cmd.json" "int(any(f.get('function') == '$worker_fn' for t in d['threads'] if t['tid'] != $target for f in t['frames']))")" 1 \
		"$cmd: the other thread was stopped and unwound ($worker_fn)"
	# let go: the child execs after its sleep and the parent ends with its status
	timeout 120 tail --pid="$target" -f /dev/null || fail "$cmd: the target did not end (left stopped?)"
	wait $target
	check_eq "$?" 0 "$cmd: the target ran on and exited normally"
done
echo "ok: --pid returns on a thread that cannot be stopped and says so"
