#!/usr/bin/env bash
# The Slurm recipe of docs/store.md, as written (docs/examples/slurm-resolve.sh),
# on a one-node Slurm cluster this test starts from Debian's slurm-wlm and
# munge (munged, slurmctld and slurmd on localhost, a generated slurm.conf
# with proctrack/linuxproc and task/none: no systemd or cgroups needed),
# against a PostgreSQL server it starts. Four tasks stand in for four nodes
# (PER_TASK=1: host "<hostname>-taskN", cores from taskN/); each resolves the
# two cores it finds into the store; the job then triages. Expected values
# are the test's own choices (4 hosts, 2 crashes each) and psql's counts.
. "$(dirname "$0")/lib.sh"

for c in munged slurmctld slurmd srun sbatch sinfo; do
	command -v $c >/dev/null || skip "no $c here (make deps installs slurm-wlm and munge)"
done
[ "$(id -u)" = 0 ] || skip "the test's slurmd runs as root (SlurmdUser=root)"
can_dump_core
pg_start
D=$T/slurm
mkdir -p "$D/state" "$D/spool"
slurm_stop() {
	for p in slurmd slurmctld munged; do
		[ -f "$D/$p.pid" ] && kill "$(cat "$D/$p.pid")" 2>/dev/null
	done
	sleep 0.5
}
trap 'slurm_stop; pg_stop; rm -rf "$T"' EXIT

mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
build_fixture "$TOP/fixtures/crashers/abort.c" "$T/bin/abort"
null_core=$(make_core "$T/bin" ./nullmain) || exit $?
mv "$null_core" "$T/core.null"
abort_core=$(make_core "$T/bin" ./abort) || exit $?
mv "$abort_core" "$T/core.abort"
for i in 0 1 2 3; do
	mkdir -p "$T/cores/task$i"
	cp "$T/core.null" "$T/cores/task$i/core.null"
	cp "$T/core.abort" "$T/cores/task$i/core.abort"
	touch -d "2026-11-0$((i + 1)) 12:00:00 UTC" "$T/cores/task$i"/core.*
done

# ---- a one-node cluster ----
head -c 1024 /dev/urandom >"$D/munge.key"
chmod 400 "$D/munge.key"
munged -f --key-file="$D/munge.key" --socket="$D/munge.sock" --pid-file="$D/munged.pid" \
	--log-file="$D/munged.log" --seed-file="$D/munge.seed" || skip "munged does not start here: $(tail -1 "$D/munged.log" 2>/dev/null)"
H=$(hostname -s)
port=$((20000 + RANDOM % 20000))
cat >"$D/slurm.conf" <<CONF
ClusterName=provtest
SlurmctldHost=$H
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$H CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$D/slurm.conf
slurmctld -f "$SLURM_CONF" || skip "slurmctld does not start here: $(tail -1 "$D/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" || skip "slurmd does not start here: $(tail -1 "$D/slurmd.log" 2>/dev/null)"
for i in $(seq 60); do
	[ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break
	sleep 0.5
done
[ "$(sinfo -h -o %t 2>/dev/null)" = idle ] ||
	skip "the one-node Slurm cluster did not come up: $(grep -h error "$D/slurmd.log" "$D/slurmctld.log" | grep -v pmix | tail -1)"
echo "ok: slurmctld and slurmd up on $H"

# ---- the recipe, as documented ----
STORE=$PGURL CORES_DIR=$T/cores PROVENANCE=$PROVENANCE PER_TASK=1 \
	check_exit 0 "sbatch of the recipe" -- timeout 300 sbatch --wait --ntasks=4 --overcommit \
	--output="$T/job.out" "$TOP/docs/examples/slurm-resolve.sh"
cat "$T/job.out" | tail -20
check_eq "$(pg_sql 'SELECT count(*) FROM crashes')" 8 "two crashes from each of four tasks (psql)"
check_eq "$(pg_sql 'SELECT count(DISTINCT host) FROM crashes')" 4 "four stand-in nodes (psql)"
check_eq "$(pg_sql "SELECT string_agg(DISTINCT host, ' ' ORDER BY host) FROM crashes")" \
	"$H-task0 $H-task1 $H-task2 $H-task3" "the hosts --host named (psql)"
check_eq "$(pg_sql "SELECT count(*) FROM crashes WHERE time = '2026-11-03T12:00:00Z'")" 2 "the cores' times (touch -d)"
check_match "$(cat "$T/job.out")" "^8 crashes on 4 hosts, 2 signatures" "the job's triage"
# a fifth node's crash: the store's history across the fleet
"$PROVENANCE" resolve --offline --store "$PGURL" --host late-node "$T/core.null" >"$T/last.out" 2>"$T/last.err"
[ $? -le 1 ] || { cat "$T/last.err"; fail "resolve --store after the job"; }
check_match "$(cat "$T/last.out")" "core\.null: seen 4 times on 4 hosts since 2026-11-01" "resolve --store: seen N times on H hosts"
