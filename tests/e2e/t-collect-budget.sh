#!/bin/bash
# provenance collect's limits, with the handler called as the kernel calls it
# (core on stdin, /proc/PID of a live process): kept cores are the crash's core
# (zstd -d equals it), keepCores per signature, collect.maxUse removes the
# oldest first and is never exceeded, collect.maxCoreSize / cpuBudget /
# wallBudget / rateLimit each leave a record that says what was skipped.
# PostgreSQL down: queued, then stored exactly once by --flush, also after a
# flush killed with kill -9 halfway.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null || skip "needs sqlite3"
command -v zstd >/dev/null || skip "needs zstd"
cat >"$T/crash.c" <<'C'
volatile int *p;
int __attribute__((noinline)) crash_here(void) { return *p; }
int main(void) { return crash_here(); }
C
build_fixture "$T/crash.c" "$T/crash"
CORE=$(make_core "$T" "$T/crash")
export PROVENANCE_CACHE="$T/cache"
sleep 300 & LIVE=$!
trap 'kill $LIVE 2>/dev/null; pg_stop 2>/dev/null; rm -rf "$T"' EXIT

# handler DIR TIME [-c KEY=VALUE ...]: one crash of pid $LIVE at TIME, stored in DIR/store.sqlite
handler() {
	local dir=$1 time=$2; shift 2
	"$PROVENANCE" "$@" collect --handler "$dir" $LIVE 11 "$time" thost 0 \
		--store "$dir/store.sqlite" <"$CORE" 2>>"$T/handler.err" ||
		fail "handler at $time: $(cat "$T/handler.err")"
}
t2iso() { date -u -d @"$1" +%Y-%m-%dT%H:%M:%SZ; }
# q DIR TIME PATH: the JSON field PATH of the report whose time is TIME
q() { sqlite3 "$1/store.sqlite" "select json_extract(r.json,'\$.$3') from crashes c join reports r on r.crash_id = c.id where c.time = '$(t2iso "$2")'"; }

# 1. kept cores: the first of a signature is kept, zstd -d gives the core back
S=$T/keep
handler "$S" 1764000000 -c collect.keepFree=0 -c collect.rateLimit=0
K1=$(q "$S" 1764000000 collect.core)
[ -n "$K1" ] && [ -f "$K1" ] || fail "no kept core named in the report ('$K1'): $(q "$S" 1764000000 collect.core_note)"
zstd -dc "$K1" | cmp -s - "$CORE" || fail "zstd -d of the kept core is not the crash's core"
echo "ok: the kept core decompresses to the crash's core"
check_match "$(sqlite3 "$S/store.sqlite" "select signature from crashes where time = '$(t2iso 1764000000)'")" '^11\|crash_here\|main' "the kept crash was analyzed"
handler "$S" 1764000001 -c collect.keepFree=0 -c collect.rateLimit=0
check_eq "$(q "$S" 1764000001 collect.core)" "" "second core of the signature not kept (keepCores=1)"
check_match "$(q "$S" 1764000001 collect.core_note)" 'collect.keepCores' "why it was not kept"
check_eq "$(ls "$S/cores" | grep -c '\.zst$')" 1 "one kept core"

# 2. maxUse: room for two compressed cores; the third removes the oldest
Z=$(zstd -1 -c "$CORE" | wc -c)
MAXUSE=$((Z * 5 / 2))
S=$T/use
for t in 1764000100 1764000101 1764000102; do
	handler "$S" $t -c collect.keepFree=0 -c collect.rateLimit=0 -c collect.keepCores=10 \
		-c collect.maxUse=$MAXUSE
done
K1=$(q "$S" 1764000100 collect.core); K3=$(q "$S" 1764000102 collect.core)
[ -n "$K1" ] && [ ! -e "$K1" ] || fail "the oldest kept core ('$K1') was not removed"
[ -n "$K3" ] && [ -f "$K3" ] || fail "the newest core was not kept"
check_eq "$(ls "$S/cores" | grep -c '\.zst$')" 2 "two cores kept within maxUse"
USED=$(cat "$S"/cores/*.zst | wc -c)
[ "$USED" -le "$MAXUSE" ] || fail "kept cores take $USED bytes, over collect.maxUse=$MAXUSE"
echo "ok: maxUse $MAXUSE, kept $USED bytes, the oldest went first"
check_eq "$(sqlite3 "$S/store.sqlite" 'select count(*) from reports')" 3 "every report stored"

# 3. budgets: each leaves a record saying what was skipped
S=$T/budget
handler "$S" 1764000200 -c collect.maxCoreSize=1K
check_eq "$(q "$S" 1764000200 collect.budget.hit)" maxCoreSize "maxCoreSize hit"
check_match "$(q "$S" 1764000200 collect.note)" 'not analyzed.*collect.maxCoreSize' "maxCoreSize note"
PROVENANCE_TEST_COLLECT_SPIN=1 handler "$S" 1764000300 -c collect.cpuBudget=0.1 -c collect.wallBudget=60
check_eq "$(q "$S" 1764000300 collect.budget.hit)" cpuBudget "CPU budget of 0.1 s hit"
check_eq "$(q "$S" 1764000300 collect.budget.cpuBudget)" 0.1 "the budget in the record"
PROVENANCE_TEST_COLLECT_SPIN=1 handler "$S" 1764000400 -c collect.cpuBudget=0 -c collect.wallBudget=0.5
check_eq "$(q "$S" 1764000400 collect.budget.hit)" wallBudget "wall budget hit"
check_match "$(q "$S" 1764000400 collect.pid)" "^$LIVE\$" "a budget record keeps the pid"
for t in 1764000600 1764000601 1764000602; do	# one minute
	handler "$S" $t -c collect.rateLimit=2 -c collect.keepFree=0
done
check_eq "$(q "$S" 1764000601 collect.budget.hit)" "" "second crash of the minute analyzed"
check_eq "$(q "$S" 1764000602 collect.budget.hit)" rateLimit "third crash of the minute: counted, not analyzed"
check_match "$(q "$S" 1764000602 collect.note)" 'crash 3 .*collect.rateLimit \(2\)' "rate limit note"
handler "$S" 1764000660 -c collect.rateLimit=2 -c collect.keepFree=0
check_eq "$(q "$S" 1764000660 collect.budget.hit)" "" "the next minute is analyzed again"

# 3b. the handler's I/O class: idle by default (ioprio_set, inherited by the
# analysis), as ionice -p reads it while the analysis runs
if command -v ionice >/dev/null; then
	S=$T/io
	PROVENANCE_TEST_COLLECT_SPIN=1 "$PROVENANCE" -c collect.cpuBudget=2 -c collect.wallBudget=120 \
		collect --handler "$S" $LIVE 11 1764000700 thost 0 --store "$S/store.sqlite" \
		<"$CORE" 2>>"$T/handler.err" &
	H=$! cls=
	for _ in $(seq 600); do
		c=$(ionice -p $H 2>/dev/null) || break
		cls=$c
		case $cls in idle*) break ;; esac
		sleep 0.1
	done
	wait $H || fail "handler (I/O class): $(cat "$T/handler.err")"
	check_match "$cls" '^idle' "the handler's I/O class (ionice -p $H)"
fi

# 4. PostgreSQL down: queued; up again: --flush stores each exactly once
if [ "$(id -u)" = 0 ] && [ -x "${PG_BIN:-/usr/lib/postgresql/15/bin}/initdb" ] && id postgres >/dev/null 2>&1 && command -v runuser >/dev/null; then
	pg_start
	trap 'kill $LIVE 2>/dev/null; pg_stop; rm -rf "$T"' EXIT
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m fast stop >/dev/null 2>&1
	S=$T/pg
	for t in 1764000800 1764000801; do
		"$PROVENANCE" collect --handler "$S" $LIVE 11 $t thost 0 --store "$PGURL" <"$CORE" \
			2>>"$T/handler.err" || fail "handler with PostgreSQL down"
	done
	check_eq "$(ls "$S/queue" | wc -l)" 2 "reports queued while PostgreSQL is down"
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w \
		-o "-k $PGDIR -c listen_addresses= -c fsync=off" start >/dev/null 2>&1 || fail "pg restart"
	# a flush killed with kill -9 after its first report, then a whole one
	PROVENANCE_TEST_FLUSH_SLEEP=30 "$PROVENANCE" collect --flush --spool-dir "$S" --store "$PGURL" >/dev/null 2>&1 &
	F=$!
	for i in $(seq 1 240); do
		[ "$(ls "$S/queue" | wc -l)" = 1 ] && break
		sleep 0.5
	done
	kill -9 $F; wait $F 2>/dev/null
	check_eq "$(pg_sql 'select count(*) from reports')" 1 "one report sent before the kill -9"
	"$PROVENANCE" collect --flush --spool-dir "$S" --store "$PGURL" || fail "flush to PostgreSQL"
	"$PROVENANCE" collect --flush --spool-dir "$S" --store "$PGURL" >/dev/null || fail "flush again"
	check_eq "$(ls "$S/queue" | wc -l)" 0 "queue empty"
	check_eq "$(pg_sql 'select count(*) from reports')" 2 "each queued report stored once in PostgreSQL"
else
	note "not root or no PostgreSQL server here: the PostgreSQL-down case is not run"
fi
echo "ok: t-collect-budget"
