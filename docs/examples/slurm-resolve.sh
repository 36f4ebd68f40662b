#!/bin/sh
# Resolve the cores on every node of a Slurm allocation into one crash
# store, then triage the store (docs/store.md, "Slurm"). Submit with
#   STORE=postgresql://ingest@db/crashes sbatch --nodes=N --ntasks-per-node=1 slurm-resolve.sh
# Environment:
#   STORE       the --store URL (credentials from ~/.pgpass or PGPASSWORD, never in it)
#   CORES_DIR   where each node keeps its cores (default /var/crash)
#   PROVENANCE  the provenance binary (default: provenance on PATH)
#   PER_TASK=1  several tasks per node stand for nodes: task N reads
#               $CORES_DIR/taskN and is recorded as host "$(hostname)-taskN"
#SBATCH --job-name=provenance-resolve
set -u
: "${STORE:?set STORE to the crash store URL}"
export STORE CORES_DIR="${CORES_DIR:-/var/crash}" PROVENANCE="${PROVENANCE:-provenance}" PER_TASK="${PER_TASK:-}"
# one task per node (or per stand-in): every core it finds, its own host name
srun --kill-on-bad-exit=0 sh -c '
	host=$(hostname) dir=$CORES_DIR
	if [ -n "$PER_TASK" ]; then host=$host-task$SLURM_PROCID dir=$CORES_DIR/task$SLURM_PROCID; fi
	set -- "$dir"/core*
	[ -e "$1" ] || exit 0
	"$PROVENANCE" resolve --offline --store "$STORE" --host "$host" "$@"
	[ $? -le 1 ]'
rc=$?
"$PROVENANCE" triage --store "$STORE"
exit $rc
