#!/bin/bash
# A 512-rank job log (issue 33): tests/e2e/gen-ranks.py makes srun --label +
# torchrun output of 512 ranks (500 identical ValueError tracebacks, 6 CUDA
# errors, 6 KeyErrors, 38 NCCL INFO lines per rank, srun's error lines and
# torchrun's ChildFailedError table), interleaved; then
# `provenance resolve LOG --offline --format json` runs RUNS times under
# /usr/bin/time -v. Prints the log's size, each run's wall/user/sys time and
# peak RSS, the medians, and checks the output holds 512 reports. Not a test.
#
#   bench/ranks512.sh [PROVENANCE [OUTDIR [RUNS]]]
#
# make bench runs it as its "ranks" section (BENCH_ONLY=ranks make bench).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROV=${1:-${PROVENANCE:-$TOP/provenance}}
OUT=${2:-$TOP/bench/out/ranks}
RUNS=${3:-${BENCH_RUNS:-5}}
mkdir -p "$OUT"
[ -x /usr/bin/time ] || { echo "ranks: /usr/bin/time is not installed (apt-get install time)"; exit 0; }

log=$OUT/r512.txt
python3 "$TOP/tests/e2e/gen-ranks.py" --ranks 512 --cuda 7,100,200,300,400,500 \
	--odd 1,2,3,4,5,6 --noise 38 --summary --prefix srun-torchrun >"$log"
echo "ranks: $log: $(wc -l <"$log") lines, $(stat -c %s "$log") bytes"
echo "ranks: command: $PROV --cache $OUT/cache resolve $log --offline --format json"

: >"$OUT/runs.txt"
for i in $(seq 1 "$RUNS"); do
	rc=0
	/usr/bin/time -v -o "$OUT/time.txt" "$PROV" --cache "$OUT/cache" resolve "$log" --offline \
		--format json >"$OUT/r512.json" 2>"$OUT/err.txt" || rc=$?
	# exit 1: done but incomplete (offline: the modules are not resolved to packages)
	if [ "$rc" -gt 1 ]; then
		echo "ranks: run $i failed (exit $rc): $(head -3 "$OUT/err.txt")"
		exit 0
	fi
	awk -F': ' -v run="$i" '
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0; for (k = 1; k <= n; k++) w = w * 60 + p[k] }
		/User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { r = $2 }
		END { printf "%d %.3f %.2f %.2f %d\n", run, w, u, s, r }' "$OUT/time.txt" >>"$OUT/runs.txt"
done
reports=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d) if isinstance(d, list) else 1)' "$OUT/r512.json")
echo "ranks: reports in the output: $reports (want 512)"
echo "ranks: run wall_s user_s sys_s max_rss_kib"
sed 's/^/ranks:   /' "$OUT/runs.txt"
sort -k2,2n "$OUT/runs.txt" | awk -v n="$RUNS" '
	{ w[NR] = $2; if ($5 > r) r = $5 }
	END { m = int((n + 1) / 2); printf "ranks: median wall %.3f s over %d runs; peak RSS %d KiB (%.1f MiB)\n", w[m], n, r, r / 1024 }'
