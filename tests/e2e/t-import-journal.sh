#!/bin/bash
# provenance import --journal: a real journal file (systemd-journal-remote from
# export format) with entries shaped like systemd-coredump's, for cores made at
# test time (gdb generate-core-file: core_pattern is not touched) and stored the
# way systemd-coredump names them (core.COMM.UID.BOOTID.PID.USEC.zst). The
# first run stores each crash with the signature gdb's backtrace gives and the
# entry's host and time, the job variables of COREDUMP_ENVIRON and no other; a
# bad entry is one line and the next is read; the second run stores nothing.
. "$(dirname "$0")/lib.sh"

JR=/lib/systemd/systemd-journal-remote
[ -x "$JR" ] || skip "needs systemd-journal-remote (make deps)"
command -v sqlite3 >/dev/null || skip "needs sqlite3"
command -v zstd >/dev/null || skip "needs zstd"
command -v gdb >/dev/null || skip "needs gdb"

cat >"$T/a.c" <<'C'
volatile int *p;
int __attribute__((noinline)) crash_in_a(void) { return *p; }
int main(void) { return crash_in_a(); }
C
cat >"$T/b.c" <<'C'
#include <stdlib.h>
void __attribute__((noinline)) give_up_in_b(void) { abort(); }
int main(void) { give_up_in_b(); return 0; }
C
build_fixture "$T/a.c" "$T/crash-a"
build_fixture "$T/b.c" "$T/crash-b"

BOOT=0123456789abcdef0123456789abcdef
MACHINE=fedcba9876543210fedcba9876543210
CORES=$T/coredump
mkdir -p "$CORES"

# mkcore NAME: run $T/NAME under gdb to its crash, write the core; sets PID, SIG, BT (truth)
mkcore() {
	gdb -nx -batch -ex run -ex 'info proc' -ex "generate-core-file $T/$1.core" -ex bt \
		"$T/$1" >"$T/$1.gdb" 2>&1 </dev/null
	[ -s "$T/$1.core" ] || fail "gdb made no core of $1: $(tail -5 "$T/$1.gdb")"
	PID=$(sed -n 's/^process \([0-9]*\)$/\1/p' "$T/$1.gdb" | head -1)
	[ -n "$PID" ] || fail "no pid in gdb's output for $1"
	# the first two function names of gdb's backtrace
	BT=$(grep -E '^#[0-9]+ ' "$T/$1.gdb" | sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?([A-Za-z_][A-Za-z0-9_]*) .*/\2/' |
		grep -Ev '^(__pthread_kill_implementation|__pthread_kill_internal|__GI___pthread_kill|__GI_raise|raise|__GI_abort|abort)$' |
		head -2 | paste -sd'|')
}

# entry FIELDS...: one journal entry in export format (one field a line)
entry() { printf '%s\n' "$@"; echo; }

mkcore crash-a
PID_A=$PID BT_A=$BT
USEC_A=1764000000123456
CORE_A=$CORES/core.crash-a.0.$BOOT.$PID_A.$USEC_A.zst
zstd -q -19 -c "$T/crash-a.core" >"$CORE_A"
mkcore crash-b
PID_B=$PID BT_B=$BT
USEC_B=1764000100000000
CORE_B=$CORES/core.crash-b.0.$BOOT.$PID_B.$USEC_B.zst
zstd -q -c "$T/crash-b.core" >"$CORE_B"
note "truth (gdb): a=$BT_A b=$BT_B"

common() {
	echo "_BOOT_ID=$BOOT"
	echo "_MACHINE_ID=$MACHINE"
	echo "_HOSTNAME=journalhost"
	echo "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1"
	echo "PRIORITY=2"
}
{
	# (no blank line yet: COREDUMP_ENVIRON follows in the same entry)
	printf '%s\n' "__REALTIME_TIMESTAMP=$USEC_A" "__MONOTONIC_TIMESTAMP=1000" $(common) \
		"MESSAGE=Process $PID_A (crash-a) of user 0 dumped core." \
		"COREDUMP_PID=$PID_A" "COREDUMP_UID=0" "COREDUMP_GID=0" "COREDUMP_SIGNAL=11" \
		"COREDUMP_SIGNAL_NAME=SIGSEGV" "COREDUMP_TIMESTAMP=$USEC_A" "COREDUMP_COMM=crash-a" \
		"COREDUMP_EXE=$T/crash-a" "COREDUMP_CMDLINE=$T/crash-a --rank-test" \
		"COREDUMP_HOSTNAME=node7" "COREDUMP_CGROUP=/system.slice/job.scope" \
		"COREDUMP_FILENAME=$CORE_A"
	# the environment: one field holding newlines, so the binary form (name, 64-bit size, data)
	printf 'COREDUMP_ENVIRON\n'
	envtext=$(printf 'HOME=/root\nSLURM_JOB_ID=4242\nSLURM_PROCID=3\nSECRET_TOKEN=hunter2\nRANK=3')
	printf '%016x' ${#envtext} | sed 's/../& /g' | awk '{ for (i = NF; i > 0; i--) printf "\\x%s", $i }' |
		xargs -0 printf
	printf '%s\n\n' "$envtext"
	# a bad entry: its pid is no number
	entry "__REALTIME_TIMESTAMP=1764000050000000" "__MONOTONIC_TIMESTAMP=2000" $(common) \
		"COREDUMP_PID=12ab" "COREDUMP_SIGNAL=11" "COREDUMP_EXE=/bin/evil" \
		"COREDUMP_TIMESTAMP=1764000050000000"
	entry "__REALTIME_TIMESTAMP=$USEC_B" "__MONOTONIC_TIMESTAMP=3000" $(common) \
		"COREDUMP_PID=$PID_B" "COREDUMP_UID=0" "COREDUMP_SIGNAL=6" \
		"COREDUMP_TIMESTAMP=$USEC_B" "COREDUMP_COMM=crash-b" "COREDUMP_EXE=$T/crash-b" \
		"COREDUMP_FILENAME=$CORE_B"
	# a crash whose core systemd-coredump has removed since: still a record
	entry "__REALTIME_TIMESTAMP=1764000200000000" "__MONOTONIC_TIMESTAMP=4000" $(common) \
		"COREDUMP_PID=31337" "COREDUMP_SIGNAL=7" "COREDUMP_TIMESTAMP=1764000200000000" \
		"COREDUMP_EXE=/usr/bin/gone" "COREDUMP_FILENAME=$CORES/core.gone.0.$BOOT.31337.1764000200000000.zst"
	# not systemd-coredump's
	entry "__REALTIME_TIMESTAMP=1764000300000000" "__MONOTONIC_TIMESTAMP=5000" "_BOOT_ID=$BOOT" \
		"MESSAGE=hello" "COREDUMP_PID=1" "COREDUMP_SIGNAL=11"
} >"$T/export"
mkdir "$T/journal"
"$JR" --output="$T/journal/remote.journal" - <"$T/export" >"$T/jr.log" 2>&1 ||
	fail "systemd-journal-remote: $(cat "$T/jr.log")"
command -v journalctl >/dev/null &&
	check_eq "$(journalctl --directory="$T/journal" MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1 -o export | grep -ac '^__CURSOR=')" 4 \
		"journalctl sees the four systemd-coredump entries"

ST=$T/store.sqlite
"$PROVENANCE" import --journal --directory "$T/journal" --store "$ST" >"$T/out1" 2>"$T/err1"
rc=$?
check_eq "$rc" 2 "exit 2: one bad entry, the others imported ($(cat "$T/err1"))"
check_match "$(cat "$T/err1")" 'bad systemd-coredump entry .*COREDUMP_PID is not a number' "the bad entry's line"
check_eq "$(grep -c 'bad systemd-coredump entry' "$T/err1")" 1 "one line for the bad entry"
check_match "$(tail -1 "$T/err1")" '^journal: 3 crashes stored, 0 in the store already, 1 bad entry$' "first run's summary"

sql() { sqlite3 "$ST" "$1"; }
rep() { sql "select json_extract(r.json,'\$.$2') from crashes c join reports r on r.crash_id = c.id where json_extract(r.json,'\$.collect.pid') = $1"; }
check_eq "$(sql 'select count(*) from crashes')" 3 "three crashes in the store"
check_match "$(sql "select signature from crashes where time = '2025-11-24T16:00:00Z'")" "^11\\|${BT_A//|/\\|}(\\||\$)" \
	"crash-a's signature starts with gdb's frames"
check_match "$(sql "select signature from crashes where time = '2025-11-24T16:01:40Z'")" "^6\\|${BT_B//|/\\|}(\\||\$)" \
	"crash-b's signature starts with gdb's frames"
check_eq "$(sql "select host from crashes where time = '2025-11-24T16:00:00Z'")" node7 "host: COREDUMP_HOSTNAME"
check_eq "$(sql "select host from crashes where time = '2025-11-24T16:01:40Z'")" journalhost "host: _HOSTNAME when the entry has no COREDUMP_HOSTNAME"
check_eq "$(rep $PID_A collect.origin)" journal "origin"
check_eq "$(rep $PID_A collect.exe)" "$T/crash-a" "exe"
check_eq "$(rep $PID_A collect.cmdline)" "$T/crash-a --rank-test" "cmdline"
check_eq "$(rep $PID_A collect.cgroup)" /system.slice/job.scope "cgroup"
check_eq "$(rep $PID_A collect.core)" "$CORE_A" "collect.core names systemd's core"
check_eq "$(rep $PID_A job.id)" 4242 "job id from COREDUMP_ENVIRON"
check_eq "$(rep $PID_A job.rank)" 3 "rank from COREDUMP_ENVIRON"
check_eq "$(rep $PID_A collect.journal.boot_id)" $BOOT "boot id"
sql 'select json from reports' | grep -q hunter2 && fail "an environment variable not on the list reached the store"
sql 'select json from reports' | grep -q HOME= && fail "HOME reached the store"
check_eq "$(rep 31337 signal.number)" 7 "the crash whose core is gone: a record"
check_match "$(rep 31337 collect.note)" 'core not analyzed: the core .* is gone' "it says why"
check_eq "$(sql "select time from crashes where host = 'journalhost' and signature like '7%'")" 2025-11-24T16:03:20Z "its time: COREDUMP_TIMESTAMP"

"$PROVENANCE" import --journal --directory "$T/journal" --store "$ST" >"$T/out2" 2>"$T/err2" ||
	fail "second run: $(cat "$T/err2")"
check_eq "$(tail -1 "$T/err2")" "journal: 0 crashes stored, 0 in the store already, 0 bad entries" "second run imports nothing"
check_eq "$(sql 'select count(*) from crashes')" 3 "still three crashes"

# a crash written to the journal later is the only one the next run takes
mkcore crash-a
USEC_C=1764000400000000
CORE_C=$CORES/core.crash-a.0.$BOOT.$PID.$USEC_C.zst
zstd -q -c "$T/crash-a.core" >"$CORE_C"
entry "__REALTIME_TIMESTAMP=$USEC_C" "__MONOTONIC_TIMESTAMP=6000" $(common) \
	"COREDUMP_PID=$PID" "COREDUMP_SIGNAL=11" "COREDUMP_TIMESTAMP=$USEC_C" \
	"COREDUMP_EXE=$T/crash-a" "COREDUMP_FILENAME=$CORE_C" |
	"$JR" --output="$T/journal/remote.journal" - >"$T/jr.log" 2>&1 ||
	fail "systemd-journal-remote (append): $(cat "$T/jr.log")"
"$PROVENANCE" import --journal --directory "$T/journal" --store "$ST" 2>"$T/err3" ||
	fail "third run: $(cat "$T/err3")"
check_eq "$(tail -1 "$T/err3")" "journal: 1 crash stored, 0 in the store already, 0 bad entries" "third run: the new crash only"
check_eq "$(sql 'select count(*) from crashes')" 4 "four crashes"

# --since: another store, only what came at or after TIME
"$PROVENANCE" import --journal --directory "$T/journal" --store "$T/since.sqlite" \
	--since 2025-11-24T16:01:00Z 2>"$T/err4" || fail "--since run: $(cat "$T/err4")"
check_eq "$(sqlite3 "$T/since.sqlite" 'select count(*) from crashes')" 3 "--since: the three crashes from 16:01 on"

check_exit 64 "--since without --journal" -- "$PROVENANCE" import --since 2025-01-01 x.json
echo "ok: import --journal"
