#!/usr/bin/env bash
# What the tools that caught a crash said, kept: compute-sanitizer's first
# error (kind, size, address, device thread and block) is the crash's
# headline and its kernel frame the crashing frame; a faulthandler dump's
# thread ids (compared with threading.get_ident() printed by the crashing
# script itself); gdb's "[Current thread is N (Thread 0x… (LWP X))]" before a
# bare `bt` (compared with gdb's own `info threads`). Markdown honours
# --all-threads.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
schema() { python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$1" || fail "$1 vs schema"; }

# ---- compute-sanitizer: the documented layout (fixtures/text/compute-sanitizer) ----
cs="$TOP/fixtures/text/compute-sanitizer/global-read.txt"
"$PROVENANCE" resolve "$cs" --format json --offline >"$T/cs.json" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/err"; fail "compute-sanitizer: resolve failed"; }
schema "$T/cs.json"
# the truth: the report's own first error
err=$(grep -m1 'Invalid __global__' "$cs" | sed 's/^=* *//; s/ of size.*//')
size=$(grep -m1 'Invalid __global__' "$cs" | sed 's/.* of size \([0-9]*\).*/\1/')
addr=$(grep -m1 'Address 0x' "$cs" | sed 's/.*Address \(0x[0-9a-f]*\).*/\1/')
akind=$(grep -m1 'Address 0x' "$cs" | sed 's/.*Address 0x[0-9a-f]* is \(.*\)$/\1/')
dthread=$(grep -m1 'by thread' "$cs" | sed 's/.*by thread \(([0-9,]*)\).*/\1/')
dblock=$(grep -m1 'by thread' "$cs" | sed 's/.*in block \(([0-9,]*)\).*/\1/')
kline=$(grep -m1 '  at 0x' "$cs" | sed 's/.*:\([0-9]*\):.*/\1/')
check_eq "$(json_get "$T/cs.json" 'd["crash"]["headline"]["error"]')" "$err" "headline error"
check_eq "$(json_get "$T/cs.json" 'd["crash"]["headline"]["size"]')" "$size" "headline size"
check_eq "$(json_get "$T/cs.json" 'd["crash"]["headline"]["address"]')" "$addr" "headline address"
check_eq "$(json_get "$T/cs.json" 'd["crash"]["headline"]["device_thread"]')" "$dthread" "device thread"
check_eq "$(json_get "$T/cs.json" 'd["crash"]["headline"]["device_block"]')" "$dblock" "device block"
crashed="[t for t in d['threads'] if t['crashed']][0]"
check_eq "$(json_get "$T/cs.json" "$crashed['name']")" device "the device thread crashed"
check_eq "$(json_get "$T/cs.json" "$crashed['frames'][0]['line']")" "$kline" "kernel frame's line"
check_match "$(json_get "$T/cs.json" "$crashed['frames'][0]['file']")" 'kernels\.cu$' "kernel frame's file"
"$PROVENANCE" resolve "$cs" --format markdown --offline >"$T/cs.md" 2>/dev/null
grep -q "^\*\*Crash:\*\* \`$err of size $size at $addr ($akind) by thread $dthread in block $dblock\`" "$T/cs.md" ||
	fail "markdown: no headline: $(head -5 "$T/cs.md")"
grep -q 'Crash signal:\*\* unknown' "$T/cs.md" && fail "markdown still says 'Crash signal: unknown'"

# ---- faulthandler: a real dump of a script with two threads ----
if command -v python3 >/dev/null; then
	cat >"$T/fh.py" <<'EOF'
import ctypes, faulthandler, threading, time
faulthandler.enable()
ready = threading.Event()
def idle():
    print("worker", threading.get_ident(), flush=True)
    ready.set()
    time.sleep(60)
threading.Thread(target=idle, daemon=True).start()
ready.wait()
print("main", threading.get_ident(), flush=True)
ctypes.string_at(0)
EOF
	python3 "$T/fh.py" >"$T/fh.out" 2>"$T/fh.txt"
	grep -q '^Current thread 0x' "$T/fh.txt" || fail "no faulthandler dump: $(cat "$T/fh.txt")"
	"$PROVENANCE" resolve "$T/fh.txt" --format json --offline >"$T/fh.json" 2>/dev/null
	schema "$T/fh.json"
	main_id=$(awk '$1 == "main" { print $2 }' "$T/fh.out")
	worker_id=$(awk '$1 == "worker" { print $2 }' "$T/fh.out")
	check_eq "$(json_get "$T/fh.json" "int([t for t in d['threads'] if t['crashed']][0]['thread_id'], 16)")" "$main_id" "crashed thread's id = get_ident()"
	check_eq "$(json_get "$T/fh.json" "[t for t in d['threads'] if t['crashed']][0]['tid']")" null "a pthread_t is no tid"
	check_eq "$(json_get "$T/fh.json" "int([t for t in d['threads'] if not t['crashed']][0]['thread_id'], 16)")" "$worker_id" "worker's id"
	# Markdown: the other thread only with --all-threads
	"$PROVENANCE" resolve "$T/fh.txt" --format markdown --offline >"$T/fh.md" 2>/dev/null
	grep -q '1 other thread not shown' "$T/fh.md" || fail "markdown without --all-threads: $(cat "$T/fh.md")"
	grep -q '### Other threads' "$T/fh.md" && fail "markdown shows other threads without --all-threads"
	"$PROVENANCE" resolve "$T/fh.txt" --format markdown --offline --all-threads >"$T/fh-all.md" 2>/dev/null
	grep -q '### Other threads' "$T/fh-all.md" || fail "markdown --all-threads: $(cat "$T/fh-all.md")"
	grep -q '| `idle` |' "$T/fh-all.md" || fail "markdown --all-threads: no worker frame"
	echo "ok: faulthandler thread ids"
fi

# ---- gdb: a bare `bt` after "[Current thread is N (Thread 0x… (LWP X))]" ----
if command -v gdb >/dev/null; then
	can_dump_core
	cat >"$T/thr.c" <<'EOF'
#include <pthread.h>
#include <unistd.h>
static void *work(void *arg)
{
	*(volatile int *)arg = 1; /* CRASH */
	return NULL;
}
int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, work, NULL);
	pause();
	return 0;
}
EOF
	build_fixture "$T/thr.c" "$T/thr" -pthread
	core=$(make_core "$T" ./thr)
	gdb -batch -q -ex bt "$T/thr" "$core" >"$T/gdb.txt" 2>&1
	if grep -q '^\[Current thread is ' "$T/gdb.txt"; then
		gdb -batch -q -ex 'info threads' "$T/thr" "$core" >"$T/threads.txt" 2>&1
		cur=$(grep '^\* ' "$T/threads.txt")
		lwp=$(echo "$cur" | sed -n 's/.*(LWP \([0-9]*\)).*/\1/p')
		ptid=$(echo "$cur" | sed -n 's/.*Thread \(0x[0-9a-f]*\) .*/\1/p')
		"$PROVENANCE" resolve "$T/gdb.txt" --format json --offline >"$T/gdb.json" 2>/dev/null
		schema "$T/gdb.json"
		check_eq "$(json_get "$T/gdb.json" 'd["crash"]["thread"]')" "$lwp" "gdb: crashed thread's LWP (info threads)"
		check_eq "$(json_get "$T/gdb.json" "[t for t in d['threads'] if t['crashed']][0]['thread_id']")" "$ptid" "gdb: Thread 0x… (info threads)"
		check_eq "$(json_get "$T/gdb.json" "[t for t in d['threads'] if t['crashed']][0]['frames'][0]['function']")" work "gdb: frame 0"
	else
		note "gdb printed no '[Current thread is' here (no libthread_db?): $(head -3 "$T/gdb.txt")"
	fi
fi
echo "ok: headlines kept"
