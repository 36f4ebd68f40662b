#!/bin/bash
# make bench: time provenance against eu-stack, gdb, eu-unstrip, dpkg -S and
# git on inputs generated here (bench/out/, git-ignored).  Not a test: it
# prints figures and PASS/MISS against the targets, and always exits 0 when
# it could run at all.
#
# Knobs (environment):
#   BENCH_RUNS=5          timed runs per tool on the small, wide and deep cores
#   BENCH_LARGE_RUNS=3    timed runs per tool on the large core
#   BENCH_LARGE_GIB=4     heap touched by the large core's process
#   BENCH_STORE_REPORTS=10000   reports the store section imports
#   BENCH_PG_IMPORT=20000       reports the storepg section imports into PostgreSQL
#   BENCH_PG_CRASHES=1000000    crashes the storepg section grows the store to
#   BENCH_ONLY="small wide large deep packages fixcheck backport store storepg suspects python text noroute eustack startup rss firstanswer ranks"   sections to run
#   BENCH_KEEP_LARGE=1    keep the large core after the run (default: delete)
#
# Timings are with a warm page cache (one untimed warm-up run of each tool;
# the page cache is never dropped).  "cold"/"warm" for resolve refer to
# provenance's own cache directory (empty vs. second run on it).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$TOP/bench
OUT=$BENCH/out
PROV=${PROVENANCE:-$TOP/provenance}
RUNS=${BENCH_RUNS:-5}
LARGE_RUNS=${BENCH_LARGE_RUNS:-3}
LARGE_GIB=${BENCH_LARGE_GIB:-4}
STORE_REPORTS=${BENCH_STORE_REPORTS:-10000}
PG_IMPORT=${BENCH_PG_IMPORT:-20000}
PG_CRASHES=${BENCH_PG_CRASHES:-1000000}
ONLY=${BENCH_ONLY:-small wide large deep packages fixcheck backport store storepg suspects python text noroute eustack startup rss firstanswer ranks}
NLIBS=300
NCOMMITS=50000
TAGEVERY=25
TIMEIT_PY="python3 $BENCH/gen/timeit.py"
QUEUE=$OUT/queue.jsonl
# Jobs are queued, then each group runs interleaved (see gen/timeit.py).
TIMEIT="$TIMEIT_PY --queue $QUEUE"
flush() { $TIMEIT_PY --run-queue "$QUEUE" --out "$RESULTS"; }
CC=${CC:-cc}

# Never touch the user's cache, config or the network.
export XDG_CONFIG_HOME=$OUT/config
export XDG_CACHE_HOME=$OUT/xdg-cache
export PROVENANCE_CACHE=$OUT/cache-default
unset DEBUGINFOD_URLS
export LC_ALL=C

want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
have() { command -v "$1" >/dev/null 2>&1; }
say() { printf '%s\n' "$*"; }
die() { printf 'run-bench: %s\n' "$*" >&2; exit 1; }

[ -x "$PROV" ] || die "'$PROV' is not built; run make first"
have python3 || die "python3 is needed for timing"

mkdir -p "$OUT"
# Time a frozen copy: others may relink ./provenance while this runs.  The
# shipped mappings are found next to the executable, so they come along.
rm -rf "$OUT/bin"
mkdir -p "$OUT/bin"
cp "$PROV" "$OUT/bin/provenance"
[ -d "$(dirname "$PROV")/mappings" ] && cp -R "$(dirname "$PROV")/mappings" "$OUT/bin/mappings"
PROV=$OUT/bin/provenance
# Cores and caches of earlier runs go; the generated repository and
# libraries are rebuilt too (each section makes its own).
find "$OUT" -maxdepth 3 \( -name 'core' -o -name 'core.[0-9]*' \) -type f -delete 2>/dev/null || true
rm -rf "$OUT/logs" "$OUT"/cache-* "$OUT/config" "$OUT/xdg-cache"
RESULTS=$OUT/results.jsonl
: >"$RESULTS"
rm -f "$QUEUE"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"

# ---------------------------------------------------------------- machine
{
	say "command: make bench (bench/run-bench.sh; BENCH_RUNS=$RUNS BENCH_LARGE_RUNS=$LARGE_RUNS BENCH_LARGE_GIB=$LARGE_GIB)"
	say "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	say "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
	say "nproc: $(nproc)"
	say "ram: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	say "kernel: $(uname -sr)"
	say "provenance: $("$PROV" --version 2>&1 | head -1) ($(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo '?'))"
	for t in eu-stack eu-unstrip gdb git dpkg gcc; do
		if have $t; then
			say "$t: $($t --version 2>&1 | head -1)"
		else
			say "$t: missing"
		fi
	done
} >"$OUT/machine.txt"
cat "$OUT/machine.txt"
say ""

# -------------------------------------------------------------- core making
cores_ok=1
pat=$(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo '?')
case "$pat" in
"|"* | /*)
	say "cores: n/a (core_pattern is '$pat'; a relative pattern such as 'core' is needed)"
	cores_ok=0
	;;
esac

# make_core DIR CMD...: run CMD in DIR with unlimited cores; print the core's path
make_core() {
	local dir=$1 rc=0 c
	shift
	rm -f "$dir"/core "$dir"/core.*
	(cd "$dir" && ulimit -c unlimited && exec "$@") >"$dir/run.log" 2>&1 || rc=$?
	[ "$rc" -ge 128 ] || die "'$*' did not crash (exit $rc)"
	c=$(ls -t "$dir"/core "$dir"/core.* 2>/dev/null | head -1 || true)
	[ -n "$c" ] && [ -s "$c" ] || die "'$*' crashed but left no core in '$dir'"
	printf '%s\n' "$c"
}

FIXFLAGS="-g -O0 -fno-omit-frame-pointer"

gen_small() {
	local d=$OUT/small
	mkdir -p "$d"
	$CC $FIXFLAGS -o "$d/small" "$BENCH/gen/small.c"
	make_core "$d" "$d/small"
}

gen_wide() {
	local d=$OUT/wide i
	mkdir -p "$d/libs"
	for ((i = 0; i < NLIBS; i++)); do
		[ -f "$d/libs/bench$i.c" ] && continue
		cat >"$d/libs/bench$i.c" <<-EOF
		/* generated by bench/run-bench.sh */
		#include <unistd.h>
		int bench_park_$i(void);
		int bench_park_$i(void)
		{
			volatile int r = usleep(1000000);
			return r + $i;
		}
		EOF
	done
	seq 0 $((NLIBS - 1)) | xargs -P "$(nproc)" -I{} \
		$CC $FIXFLAGS -fPIC -shared -o "$d/libs/libbench{}.so" "$d/libs/bench{}.c"
	$CC $FIXFLAGS -pthread -o "$d/wide" "$BENCH/gen/wide.c" -ldl
	make_core "$d" "$d/wide" "$d/libs" "$NLIBS"
}

gen_large() {
	local d=$OUT/large
	mkdir -p "$d"
	$CC $FIXFLAGS -pthread -o "$d/large" "$BENCH/gen/large.c"
	make_core "$d" "$d/large" "$LARGE_GIB"
}

gen_deep() {
	local d=$OUT/deep
	mkdir -p "$d"
	$CC -g -O0 -fno-omit-frame-pointer -o "$d/deep" "$BENCH/gen/deep.c"
	# 10,000 small frames fit in 8 MiB, but do not depend on the limit.
	make_core "$d" bash -c 'ulimit -s unlimited 2>/dev/null || ulimit -s 262144; exec "$0" 10000' "$d/deep"
}

# bench_core NAME EXE CORE NRUNS
bench_core() {
	local name=$1 exe=$2 core=$3 n=$4 cache
	local sec=core
	say "core '$name': $(du -h --apparent-size "$core" | cut -f1) ($core)"
	$TIMEIT --out "$RESULTS" --section $sec --input "$name" --tool prov-analyze --runs "$n" \
		-- "$PROV" analyze "$core" --exe "$exe"
	$TIMEIT --out "$RESULTS" --section $sec --input "$name" --tool prov-analyze-json --runs "$n" \
		-- "$PROV" analyze "$core" --exe "$exe" --format json
	cache=$OUT/cache-$name-cold
	$TIMEIT --out "$RESULTS" --section $sec --input "$name" --tool prov-resolve-cold --runs "$n" \
		--fresh "$cache" --ok 0,1 --reject "not built yet" \
		-- "$PROV" --cache "$cache" resolve "$core" --exe "$exe" --offline
	cache=$OUT/cache-$name-warm
	rm -rf "$cache"
	$TIMEIT --out "$RESULTS" --section $sec --input "$name" --tool prov-resolve-warm --runs "$n" \
		--ok 0,1 --reject "not built yet" \
		-- "$PROV" --cache "$cache" resolve "$core" --exe "$exe" --offline
	if have eu-stack; then
		# -n 4096: provenance's own per-thread frame cap (PROV_MAX_FRAMES),
		# so both unwind the same frames; deep also gets an uncapped run.
		# (eu-stack exits 1 when a thread reaches the -n cap: deep does.)
		$TIMEIT --out "$RESULTS" --section $sec --input "$name" --tool eu-stack --runs "$n" \
			--ok "$([ "$name" = deep ] && echo 0,1 || echo 0)" \
			-- eu-stack --core "$core" --executable "$exe" -s -i -n 4096
		if [ "$name" = deep ]; then
			$TIMEIT --out "$RESULTS" --section $sec --input "$name" --tool eu-stack-n0 --runs "$n" \
				-- eu-stack --core "$core" --executable "$exe" -s -i -n 0
		fi
	else
		say "  eu-stack: n/a (not installed)"
	fi
	if have gdb; then
		$TIMEIT --out "$RESULTS" --section $sec --input "$name" --tool gdb --runs "$n" \
			-- gdb -nx -batch -iex 'set debuginfod enabled off' -ex 'set pagination off' \
			-ex 'thread apply all bt' "$exe" "$core"
	else
		say "  gdb: n/a (not installed)"
	fi
	if have eu-unstrip; then
		$TIMEIT --out "$RESULTS" --section $sec --input "$name" --tool eu-unstrip --runs "$n" \
			-- eu-unstrip -n --core "$core" --executable "$exe"
	else
		say "  eu-unstrip: n/a (not installed)"
	fi
	flush
	python3 - "$core" "$name" "$RESULTS" <<-'EOF'
	import json, os, sys
	core, name, res = sys.argv[1:]
	with open(res, "a") as f:
	    f.write(json.dumps({"section": "coresize", "input": name,
	                        "bytes": os.path.getsize(core)}) + "\n")
	EOF
}

if [ "$cores_ok" = 1 ]; then
	for name in small wide large deep; do
		want "$name" || continue
		if [ "$name" = large ]; then
			# The process needs the memory and its core the disk space.
			avail_kib=$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)
			disk_kib=$(df -Pk "$OUT" | awk 'NR == 2 { print $4 }')
			need_kib=$(((LARGE_GIB + 1) * 1048576))
			if [ "$avail_kib" -lt "$need_kib" ] || [ "$disk_kib" -lt "$need_kib" ]; then
				say "core 'large': n/a (needs $((LARGE_GIB + 1)) GiB of free memory and disk;" \
					"have $((avail_kib / 1048576)) GiB memory, $((disk_kib / 1048576)) GiB disk)"
				continue
			fi
		fi
		say "== core '$name': generating"
		t0=$(date +%s)
		core=$(gen_$name)
		say "   generated in $(($(date +%s) - t0)) s"
		n=$RUNS
		[ "$name" = large ] && n=$LARGE_RUNS
		bench_core "$name" "$OUT/$name/$name" "$core" "$n"
		if [ "$name" = large ] && [ "${BENCH_KEEP_LARGE:-0}" != 1 ]; then
			rm -f "$core"
		fi
	done
fi

# ------------------------------------------------- issue 25: CPU and memory
# The four cores of issue 25, each against `eu-stack -i -s` (the same frames,
# inlines and file:line) and plain `eu-stack`, by CPU time (user + system of
# the process, from wait4: the machine may be shared), interleaved, median of
# BENCH_RUNS; targets: analyze --format json <= 0.5x eu-stack -i -s, resolve
# --offline (warm cache) <= 1.1x analyze. analyze runs with the bench's cache,
# which holds the uncompressed debug files after the warm-up run (debug-plain/);
# prov-analyze-json-cold starts every run from an empty cache.
#   deep: 10,000 frames of one recursive function (eu-stack -n 4096, as
#         provenance's own per-thread cap)
#   wide65: 65 idle threads and 512 MiB of touched heap (large.c 512M)
#   xz: a real `xz -T2` compressing, killed with SIGSEGV (3 threads)
#   python61: Debian's python3.11 (with python3.11-dbg's DWARF when
#         installed), 61 threads parked in Python calls
# startup: exec to exit on trivial inputs (target < 5 ms of CPU);
# rss: peak RSS of analyze on a 100 GiB sparse core and on python61 (< 64 MiB).
gen_xz() {
	local d=$OUT/xz pid i n
	mkdir -p "$d"
	head -c 67108864 /dev/urandom >"$d/input.bin"
	rm -f "$d"/core "$d"/core.*
	(
		cd "$d" && ulimit -c unlimited
		xz -T2 -c input.bin >/dev/null 2>"$d/run.log" &
		pid=$!
		# wait until its two compressing threads run (3 threads in all)
		for i in $(seq 200); do
			n=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
			[ "$n" -ge 3 ] && break
			sleep 0.01
		done
		sleep 0.2
		kill -SEGV "$pid"
		wait "$pid" || true
	)
	c=$(ls -t "$d"/core "$d"/core.* 2>/dev/null | head -1 || true)
	[ -n "$c" ] && [ -s "$c" ] || die "'xz -T2' was killed but left no core in '$d'"
	printf '%s\n' "$c"
}

gen_wide65() {
	local d=$OUT/wide65
	mkdir -p "$d"
	$CC $FIXFLAGS -pthread -o "$d/wide65" "$BENCH/gen/large.c"
	make_core "$d" "$d/wide65" 512M
}

gen_python61() {
	local d=$OUT/python61
	mkdir -p "$d"
	make_core "$d" "$PY25" "$BENCH/gen/python64.py" 60
}

gen_sparse() {
	local d=$OUT/sparse
	mkdir -p "$d"
	$CC $FIXFLAGS -o "$d/sparse" "$BENCH/gen/sparse.c"
	make_core "$d" "$d/sparse" 100
}

PY25=$(command -v python3 || true)
[ -x /usr/bin/python3.11 ] && PY25=/usr/bin/python3.11
if want eustack && [ "$cores_ok" = 1 ] && have eu-stack; then
	for name in deep wide65 xz python61; do
		case $name in
		deep) [ -f "$OUT/deep/core" ] || gen_deep >/dev/null; core=$(ls -t "$OUT"/deep/core* | head -1); exe=$OUT/deep/deep ;;
		wide65) core=$(gen_wide65); exe=$OUT/wide65/wide65 ;;
		xz) have xz || { say "  xz: n/a (xz-utils not installed)"; continue; }
			core=$(gen_xz); exe=$(command -v xz) ;;
		python61) [ -n "$PY25" ] || { say "  python61: n/a (no python3)"; continue; }
			core=$(gen_python61); exe=$PY25 ;;
		esac
		say "== eustack '$name': $(du -h --apparent-size "$core" | cut -f1) ($core)"
		$TIMEIT --out "$RESULTS" --section eustack --input "$name" --tool prov-analyze-json --runs "$RUNS" \
			-- "$PROV" analyze "$core" --exe "$exe" --format json
		# an empty cache before every run: the uncompressed debug files are made again
		cache=$OUT/cache-eustack-$name-cold
		$TIMEIT --out "$RESULTS" --section eustack --input "$name" --tool prov-analyze-json-cold --runs "$RUNS" \
			--fresh "$cache" -- "$PROV" --cache "$cache" analyze "$core" --exe "$exe" --format json
		cache=$OUT/cache-eustack-$name
		rm -rf "$cache"
		$TIMEIT --out "$RESULTS" --section eustack --input "$name" --tool prov-resolve-offline --runs "$RUNS" \
			--ok 0,1 -- "$PROV" --cache "$cache" resolve "$core" --exe "$exe" --offline --format json
		$TIMEIT --out "$RESULTS" --section eustack --input "$name" --tool eu-stack-i-s --runs "$RUNS" \
			--ok "$([ "$name" = deep ] && echo 0,1 || echo 0)" \
			-- eu-stack --core "$core" --executable "$exe" -i -s -n 4096
		$TIMEIT --out "$RESULTS" --section eustack --input "$name" --tool eu-stack --runs "$RUNS" \
			--ok "$([ "$name" = deep ] && echo 0,1 || echo 0)" \
			-- eu-stack --core "$core" --executable "$exe" -n 4096
		flush
	done
elif want eustack; then
	say "== eustack: n/a (needs eu-stack and a relative core_pattern)"
fi

if want startup; then
	say "== startup: exec to exit on trivial inputs"
	d=$OUT/startup
	mkdir -p "$d"
	printf 'PID 1234 - process\nTID 1234:\n#0  0x00007f0000001234 crash_here - /usr/lib/libproj.so.1\n#1  0x0000555555555555 main - /usr/bin/app\n' >"$d/bt.txt"
	rm -rf "$OUT/cache-startup"
	$TIMEIT --out "$RESULTS" --section startup --input trivial --tool prov-version --runs "$RUNS" \
		-- "$PROV" --version
	$TIMEIT --out "$RESULTS" --section startup --input trivial --tool prov-analyze-text --runs "$RUNS" --ok 2 \
		-- "$PROV" analyze "$d/bt.txt"
	$TIMEIT --out "$RESULTS" --section startup --input trivial --tool prov-resolve-offline-text --runs "$RUNS" --ok 0,1 \
		-- "$PROV" --cache "$OUT/cache-startup" resolve --offline "$d/bt.txt"
	have eu-stack && $TIMEIT --out "$RESULTS" --section startup --input trivial --tool eu-stack-version --runs "$RUNS" \
		-- eu-stack --version
	flush
fi

if want rss && [ "$cores_ok" = 1 ]; then
	say "== rss: peak RSS of analyze on a 100 GiB sparse core and on python61"
	if core=$(gen_sparse); then
		say "  sparse: $(du -h --apparent-size "$core" | cut -f1) apparent, $(du -h "$core" | cut -f1) on disk"
		$TIMEIT --out "$RESULTS" --section rss --input sparse100g --tool prov-analyze-json --runs "$RUNS" \
			-- "$PROV" analyze "$core" --exe "$OUT/sparse/sparse" --format json
		have eu-stack && $TIMEIT --out "$RESULTS" --section rss --input sparse100g --tool eu-stack-i-s --runs "$RUNS" \
			-- eu-stack --core "$core" --executable "$OUT/sparse/sparse" -i -s -n 4096
	fi
	if [ -n "$PY25" ]; then
		core=$(ls -t "$OUT"/python61/core* 2>/dev/null | head -1 || true)
		[ -n "$core" ] || core=$(gen_python61)
		$TIMEIT --out "$RESULTS" --section rss --input python61 --tool prov-analyze-json --runs "$RUNS" \
			-- "$PROV" analyze "$core" --exe "$PY25" --format json
		have eu-stack && $TIMEIT --out "$RESULTS" --section rss --input python61 --tool eu-stack-i-s --runs "$RUNS" \
			-- eu-stack --core "$core" --executable "$PY25" -i -s -n 4096
	fi
	flush
	rm -f "$OUT"/sparse/core "$OUT"/sparse/core.*
fi

# ----------------------------------------------------------- Python frames
# A 64-thread Python process (Debian's python3.11 when installed, so that
# gdb's py-bt from python3.11-dbg can run beside): analyze with and without
# the Python frames read from the interpreter state.
if want python && [ "$cores_ok" = 1 ]; then
	py=$(command -v python3)
	[ -x /usr/bin/python3.11 ] && py=/usr/bin/python3.11
	d=$OUT/python
	mkdir -p "$d"
	say "== core 'python64': generating ($py)"
	core=$(make_core "$d" "$py" "$BENCH/gen/python64.py")
	say "core 'python64': $(du -h --apparent-size "$core" | cut -f1) ($core)"
	$TIMEIT --out "$RESULTS" --section python --input python64 --tool prov-analyze --runs "$RUNS" \
		-- "$PROV" analyze "$core" --format json
	$TIMEIT --out "$RESULTS" --section python --input python64 --tool prov-analyze-no-python --runs "$RUNS" \
		-- "$PROV" analyze "$core" --format json --no-python
	gdbpy=/usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py
	if have gdb && [ "$py" = /usr/bin/python3.11 ] && [ -f "$gdbpy" ]; then
		$TIMEIT --out "$RESULTS" --section python --input python64 --tool gdb-py-bt --runs "$RUNS" \
			-- gdb -nx -batch -iex 'set debuginfod enabled off' -ex 'set pagination off' \
			-ex "source $gdbpy" -ex 'thread apply all py-bt' "$py" "$core"
	else
		say "  gdb py-bt: n/a (needs gdb, /usr/bin/python3.11 and python3.11-dbg)"
	fi
	flush
	"$PROV" analyze "$core" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = sum(f["language"] == "python" for t in d["threads"] for f in t["frames"])
print("  %d threads, %d Python frames" % (len(d["threads"]), n))'
fi

# ------------------------------------------------------ package resolution
if want packages; then
	say "== package resolution"
	d=$OUT/packages
	mkdir -p "$d"
	if ! have dpkg; then
		say "  n/a (no dpkg on this machine)"
	else
		# Up to 100 host shared libraries that dpkg -S knows by that path
		# (the selection is not timed).
		: >"$d/modules.txt"
		n=0
		for f in /usr/lib/x86_64-linux-gnu/lib*.so.[0-9]* /lib/x86_64-linux-gnu/lib*.so.[0-9]*; do
			[ "$n" -ge 100 ] && break
			[ -f "$f" ] || continue
			head -c4 "$f" 2>/dev/null | grep -q 'ELF' || continue
			grep -qxF "$f" "$d/modules.txt" && continue
			dpkg -S "$f" >/dev/null 2>&1 || continue
			printf '%s\n' "$f" >>"$d/modules.txt"
			n=$((n + 1))
		done
		say "  $n modules"
		# A glibc backtrace_symbols() trace naming each module once.
		awk '{ printf "%s(+0x%x)[0x%x]\n", $0, 4096 + NR * 16, 140000000000000 + NR * 65536 }' \
			"$d/modules.txt" >"$d/backtrace.txt"
		cat >"$d/dpkg-each.sh" <<-'EOF'
		#!/bin/sh
		# dpkg -S once per module, as a person (or a script) would.
		while IFS= read -r m; do dpkg -S "$m"; done <"$1"
		EOF
		chmod +x "$d/dpkg-each.sh"
		$TIMEIT --out "$RESULTS" --section packages --input "$n-modules" --tool dpkg-S-each --runs 3 \
			-- "$d/dpkg-each.sh" "$d/modules.txt"
		$TIMEIT --out "$RESULTS" --section packages --input "$n-modules" --tool prov-resolve-cold --runs "$RUNS" \
			--fresh "$OUT/cache-packages-cold" --ok 0,1 --reject "not built yet" \
			-- "$PROV" --cache "$OUT/cache-packages-cold" resolve "$d/backtrace.txt" --offline
		$TIMEIT --out "$RESULTS" --section packages --input "$n-modules" --tool prov-resolve-warm --runs "$RUNS" \
			--ok 0,1 --reject "not built yet" \
			-- "$PROV" --cache "$OUT/cache-packages-warm" resolve "$d/backtrace.txt" --offline
		flush
		# Agreement with dpkg -S (ground truth), from one JSON run.
		"$PROV" --cache "$OUT/cache-packages-warm" resolve "$d/backtrace.txt" --offline --format json \
			>"$d/resolve.json" 2>"$d/resolve.err" || true
		"$d/dpkg-each.sh" "$d/modules.txt" >"$d/dpkg.txt" 2>/dev/null || true
		python3 - "$d/resolve.json" "$d/dpkg.txt" "$RESULTS" <<-'EOF'
		import json, sys
		rj, dp, res = sys.argv[1:]
		truth = {}
		for line in open(dp):
		    if ": " in line:
		        pkgs, path = line.rstrip("\n").split(": ", 1)
		        truth[path] = {p.split(":")[0] for p in pkgs.split(", ")}
		agree = total = 0
		err = None
		try:
		    doc = json.load(open(rj))
		    got = {}
		    for m in doc.get("modules") or []:
		        p = m.get("package")
		        got[m.get("path")] = p.get("name") if p else None
		    for path, names in truth.items():
		        total += 1
		        if got.get(path) in names:
		            agree += 1
		except (OSError, ValueError) as e:
		    err = "no JSON report (%s)" % e.__class__.__name__
		    total = len(truth)
		with open(res, "a") as f:
		    f.write(json.dumps({"section": "agreement", "agree": agree,
		                        "total": total, "error": err}) + "\n")
		print("  agreement with dpkg -S: %s" % (err or "%d/%d" % (agree, total)))
		EOF
	fi
fi

# ---------------------------------------------------------------- fixcheck
if want fixcheck && ! have git; then
	say "== fixcheck: n/a (git is not installed)"
elif want fixcheck; then
	say "== fixcheck: generating a repository of $NCOMMITS commits, $((NCOMMITS / TAGEVERY)) tags"
	r=$OUT/repo.git
	rm -rf "$r" "$OUT/repo.marks"
	git init -q --bare "$r"
	t0=$(date +%s)
	python3 "$BENCH/gen/mkrepo.py" "$NCOMMITS" "$TAGEVERY" |
		git -C "$r" fast-import --quiet --export-marks="$OUT/repo.marks"
	say "   generated in $(($(date +%s) - t0)) s"
	mark() { awk -v m=":$1" '$1 == m { print $2 }' "$OUT/repo.marks"; }
	ntags=$((NCOMMITS / TAGEVERY))
	newest=$(printf 'v%04d' "$ntags")
	middle=$(printf 'v%04d' $((ntags / 2)))
	# pair name, fix, deployed
	pairs="old:$(mark 100):$newest recent:$(mark $((NCOMMITS - 10))):$newest"
	pairs="$pairs unmerged:$(mark $((NCOMMITS + 1))):$newest newer-than-release:$(mark $((NCOMMITS - 10))):$middle"
	for p in $pairs; do
		IFS=: read -r pname fix at <<<"$p"
		$TIMEIT --out "$RESULTS" --section fixcheck --input "$pname" --tool prov-fixcheck --runs "$RUNS" --ok 0,1 --reject "not built yet" \
			-- "$PROV" --cache "$OUT/cache-fixcheck" fixcheck "$fix" --repo "$r" --at "$at" --format json
		$TIMEIT --out "$RESULTS" --section fixcheck --input "$pname" --tool git-merge-base --runs "$RUNS" --ok 0,1 \
			-- git -C "$r" merge-base --is-ancestor "$fix" "$at"
		$TIMEIT --out "$RESULTS" --section fixcheck --input "$pname" --tool git-tag-contains --runs "$RUNS" \
			-- git -C "$r" tag --contains "$fix"
		flush
		# Agreement with git (ground truth).
		rc=0
		git -C "$r" merge-base --is-ancestor "$fix" "$at" || rc=$?
		# first_tag: the earliest tag (by tagger date) that contains the fix,
		# whether or not the deployed revision does.
		first=$(git -C "$r" tag --contains "$fix" --sort=taggerdate | sed -n 1p)
		"$PROV" --cache "$OUT/cache-fixcheck" fixcheck "$fix" --repo "$r" --at "$at" --format json \
			>"$OUT/fixcheck-$pname.json" 2>/dev/null || true
		python3 - "$OUT/fixcheck-$pname.json" "$rc" "$first" "$pname" "$RESULTS" <<-'EOF'
		import json, sys
		path, rc, first, name, res = sys.argv[1:]
		want_inc = rc == "0"
		want_first = first or None
		try:
		    d = json.load(open(path))[0]
		    ok = d.get("included") == want_inc and d.get("first_tag") == want_first
		    got = "included=%s first_tag=%s" % (d.get("included"), d.get("first_tag"))
		except (OSError, ValueError, IndexError, KeyError, TypeError) as e:
		    ok, got = False, "no JSON (%s)" % e.__class__.__name__
		exp = "included=%s first_tag=%s" % (want_inc, want_first)
		with open(res, "a") as f:
		    f.write(json.dumps({"section": "fixagree", "input": name, "ok": ok,
		                        "got": got, "expected": exp}) + "\n")
		print("  %-10s %-8s provenance %s; git %s: %s" % ("fixcheck", name, got, exp,
		                                                   "agree" if ok else "DISAGREE"))
		EOF
	done
fi

# ------------------------------------------------------------- crash store
# Import of BENCH_STORE_REPORTS reports made by tests/e2e/store-gen.py from
# two real crashes (a NULL read in a library, an abort) with 100 hosts,
# unique times and a component version split; triage over the result.
if want store && [ $cores_ok = 0 ]; then
	say "== store: n/a (no cores here)"
elif want store; then
	d=$OUT/store
	rm -rf "$d"
	mkdir -p "$d/fresh"
	say "== store: $STORE_REPORTS reports from 100 simulated hosts"
	$CC $FIXFLAGS -fPIC -shared -o "$d/libnull.so" "$TOP/fixtures/crashers/libnull.c"
	$CC $FIXFLAGS -o "$d/nullmain" "$TOP/fixtures/crashers/nullmain.c" "$d/libnull.so" -Wl,-rpath,"$d"
	$CC $FIXFLAGS -o "$d/abort" "$TOP/fixtures/crashers/abort.c"
	mkdir -p "$d/run1" "$d/run2"	# make_core removes the cores of its directory
	mv "$(make_core "$d/run1" "$d/nullmain")" "$d/core.null"
	mv "$(make_core "$d/run2" "$d/abort")" "$d/core.abort"
	"$PROV" resolve --offline --format json "$d/core.null" >"$d/a.json" 2>/dev/null || true
	"$PROV" resolve --offline --format json "$d/core.abort" >"$d/b.json" 2>/dev/null || true
	python3 "$TOP/tests/e2e/store-gen.py" "$d/reports.jsonl" "$d/truth.json" "$STORE_REPORTS" 100 1 \
		"$d/a.json" "$d/b.json"
	$TIMEIT --out "$RESULTS" --section store --input "$STORE_REPORTS-reports" --tool prov-import --runs 3 --warmup 0 \
		--fresh "$d/fresh" -- "$PROV" import --store "$d/fresh/store.sqlite" "$d/reports.jsonl"
	flush
	"$PROV" import --store "$d/store.sqlite" "$d/reports.jsonl" 2>/dev/null
	$TIMEIT --out "$RESULTS" --section store --input "$STORE_REPORTS-reports" --tool prov-triage --runs "$RUNS" \
		-- "$PROV" triage --store "$d/store.sqlite" --runs 20000
	flush
	python3 - "$d/store.sqlite" "$d/reports.jsonl" "$RESULTS" <<-'EOF'
	import json, os, sqlite3, sys
	db, reports, res = sys.argv[1:]
	n = sqlite3.connect(db).execute("SELECT count(*) FROM crashes").fetchone()[0]
	size = sum(os.path.getsize(db + s) for s in ("", "-wal") if os.path.exists(db + s))
	with open(res, "a") as f:
	    f.write(json.dumps({"section": "storesize", "crashes": n, "bytes": size,
	                        "report_bytes": os.path.getsize(reports)}) + "\n")
	print("  store: %d crashes, %d bytes (%.1f KiB per crash; the reports themselves %.1f KiB each)" % (
	    n, size, size / 1024 / max(n, 1), os.path.getsize(reports) / 1024 / max(n, 1)))
	EOF
fi

# ------------------------------------------------- crash store on PostgreSQL
# BENCH_PG_IMPORT reports imported by 4 processes at once, then the store
# grown server-side to BENCH_PG_CRASHES crashes; triage and triage --since a
# day on it (bench/gen/store-pg.sh says how).
if want storepg && [ $cores_ok = 0 ]; then
	say "== storepg: n/a (no cores here)"
elif want storepg; then
	d=$OUT/storepg
	if [ ! -s "$OUT/store/a.json" ]; then
		mkdir -p "$OUT/store/run1" "$OUT/store/run2"
		$CC $FIXFLAGS -fPIC -shared -o "$OUT/store/libnull.so" "$TOP/fixtures/crashers/libnull.c"
		$CC $FIXFLAGS -o "$OUT/store/nullmain" "$TOP/fixtures/crashers/nullmain.c" "$OUT/store/libnull.so" -Wl,-rpath,"$OUT/store"
		$CC $FIXFLAGS -o "$OUT/store/abort" "$TOP/fixtures/crashers/abort.c"
		mv "$(make_core "$OUT/store/run1" "$OUT/store/nullmain")" "$OUT/store/core.null"
		mv "$(make_core "$OUT/store/run2" "$OUT/store/abort")" "$OUT/store/core.abort"
		"$PROV" resolve --offline --format json "$OUT/store/core.null" >"$OUT/store/a.json" 2>/dev/null || true
		"$PROV" resolve --offline --format json "$OUT/store/core.abort" >"$OUT/store/b.json" 2>/dev/null || true
	fi
	"$BENCH/gen/store-pg.sh" "${TMPDIR:-/tmp}/provenance-bench-pg" "$PROV" "$RESULTS" "$PG_IMPORT" "$PG_CRASHES" \
		"$OUT/store/a.json" "$OUT/store/b.json" || say "== storepg: failed (see above)"
fi

# ---------------------------------------------------------------- suspects
# resolve's possible upstream fixes on a 50,000-commit repository: a library
# built from tag v1000 (commit 25,000) crashes on a line that upstream moved
# down 25 times (edits above it) and rewrote at commit 30,001 (20,000 commits
# before the head); another line of the function changed at commit 40,001.
if want suspects && { ! have git || [ "$cores_ok" != 1 ]; }; then
	say "== suspects: n/a (needs git and cores)"
elif want suspects; then
	d=$OUT/suspects
	rm -rf "$d"
	mkdir -p "$d/src"
	say "== suspects: generating a repository of $NCOMMITS commits"
	r=$d/repo.git
	git init -q --bare "$r"
	t0=$(date +%s)
	python3 "$BENCH/gen/mksuspects.py" "$NCOMMITS" "$TAGEVERY" 30001 40001 | git -C "$r" fast-import --quiet
	git -C "$r" symbolic-ref HEAD refs/heads/main
	say "   generated in $(($(date +%s) - t0)) s"
	dtag=v1000
	# the library and the crash live outside this source tree: the git
	# resolver would otherwise take them for files of provenance's own checkout
	b=$(mktemp -d "${TMPDIR:-/tmp}/prov-bench-suspects.XXXXXX")
	mkdir -p "$b/src"
	git -C "$r" show "$dtag:src/crash.c" >"$b/src/crash.c"
	$CC -g -O0 -fPIC -shared -fdebug-prefix-map="$b=/usr/src/crashlib-1.0" -o "$b/libcrash.so" "$b/src/crash.c"
	printf 'int crash_here(int *p);\nint main(void) { return crash_here((int *)0); }\n' >"$b/app.c"
	$CC -g -O0 -o "$b/app" "$b/app.c" "$b/libcrash.so" -Wl,-rpath,"$b"
	core=$(make_core "$b" "$b/app")
	cat >"$d/crash.map" <<-EOF
	[component "crashlib"]
		library = libcrash.so*
		repo = $r
		ref = $dtag
		path-prefix = */crashlib-1.0/
	EOF
	run=("$PROV" resolve "$core" --mapping "$d/crash.map" --offline)
	$TIMEIT --out "$RESULTS" --section suspects --input 50k-commits --tool prov-resolve-no-suspects --runs "$RUNS" \
		--ok 0,1 -- "${run[@]}" --cache "$OUT/cache-suspects-warm" --no-suspects
	$TIMEIT --out "$RESULTS" --section suspects --input 50k-commits --tool prov-resolve-suspects-warm --runs "$RUNS" \
		--ok 0,1 -- "${run[@]}" --cache "$OUT/cache-suspects-warm"
	$TIMEIT --out "$RESULTS" --section suspects --input 50k-commits --tool prov-resolve-suspects-cold --runs "$RUNS" \
		--fresh "$OUT/cache-suspects-cold" --ok 0,1 -- "${run[@]}" --cache "$OUT/cache-suspects-cold"
	line=$(git -C "$r" show main:src/crash.c | grep -n 'crash line' | cut -d: -f1)
	$TIMEIT --out "$RESULTS" --section suspects --input 50k-commits --tool git-log-L --runs "$RUNS" \
		-- git -C "$r" log --format=%H -L "$line,$line:src/crash.c" "$dtag..main"
	flush
	# Agreement with git log -L over the crash line and its function (ground truth).
	"${run[@]}" --cache "$OUT/cache-suspects-warm" --format json >"$d/resolve.json" 2>"$d/resolve.err" || true
	fs=$(git -C "$r" show main:src/crash.c | grep -n '^int crash_here(int \*p)$' | cut -d: -f1)
	fe=$(git -C "$r" show main:src/crash.c | awk -v s="$fs" 'NR > s && /^}/ { print NR; exit }')
	{ git -C "$r" log --format='commit %H' -L "$line,$line:src/crash.c" "$dtag..main"
	  git -C "$r" log --format='commit %H' -L "$fs,$fe:src/crash.c" "$dtag..main"; } |
		sed -n 's/^commit //p' | sort -u >"$d/git.txt"
	python3 - "$d/resolve.json" "$d/git.txt" "$RESULTS" <<-'EOF'
	import json, sys
	rj, gt, res = sys.argv[1:]
	want = sorted(l.strip() for l in open(gt) if l.strip())
	try:
	    got = sorted(s["commit"] for s in json.load(open(rj))["suspects"])
	except (OSError, ValueError, KeyError, TypeError) as e:
	    got = ["no JSON (%s)" % e.__class__.__name__]
	ok = got == want
	with open(res, "a") as f:
	    f.write(json.dumps({"section": "suspectagree", "ok": ok, "got": len(got),
	                        "expected": len(want)}) + "\n")
	print("  suspects: provenance %d commits, git log -L %d: %s" % (len(got), len(want),
	      "agree" if ok else "DISAGREE"))
	EOF
	rm -rf "$b"
fi

# ------------------------------------------------------------------ text
# Text throughput: the text fixtures (fixtures/text/*/*.txt) concatenated
# until 10 MiB, read by resolve (offline, text report).
if want text; then
	d=$OUT/text
	mkdir -p "$d"
	big=$d/fixtures-10mib.txt
	: >"$big"
	while [ "$(stat -c %s "$big")" -lt $((10 << 20)) ]; do
		cat "$TOP"/fixtures/text/*/*.txt >>"$big"
	done
	$TIMEIT --out "$RESULTS" --section text --input fixtures-10mib --tool prov-resolve --runs "$RUNS" --ok 0,1 \
		-- "$PROV" --cache "$OUT/cache-text" resolve "$big" --offline --format text
	flush
	python3 - "$big" "$RESULTS" <<-'EOF'
	import json, os, sys
	with open(sys.argv[2], "a") as f:
	    f.write(json.dumps({"section": "textsize", "input": "fixtures-10mib",
	                        "bytes": os.path.getsize(sys.argv[1])}) + "\n")
	EOF
fi

# ---------------------------------------------------------------- backport
# fixcheck's cherry-pick search on a release branch of 5,000 commits past the
# merge base: cold (patch-ids computed) and warm (from the cache); target:
# under a second warm. Ground truth: git patch-id --stable of the copy.
if want backport && ! have git; then
	say "== backport: n/a (git is not installed)"
elif want backport; then
	say "== backport: a release branch of 5000 commits past the merge base"
	br=$OUT/branch.git
	rm -rf "$br" "$OUT/branch.marks"
	git init -q --bare "$br"
	python3 "$BENCH/gen/mkbranch.py" 1000 5000 2>"$OUT/branch.copy" |
		git -C "$br" fast-import --quiet --export-marks="$OUT/branch.marks"
	bmark() { awk -v m=":$1" '$1 == m { print $2 }' "$OUT/branch.marks"; }
	fix1=$(bmark 1001); fix2=$(bmark 1002)
	copy=$(bmark "$(awk '{print $2}' "$OUT/branch.copy")")
	for p in "picked:$fix1" "missing:$fix2"; do
		IFS=: read -r pname fix <<<"$p"
		rm -rf "$OUT/cache-backport-$pname"
		$TIMEIT --out "$RESULTS" --section backport --input "$pname" --tool prov-fixcheck-cold --runs 1 --warmup 0 --ok 0,1 \
			-- "$PROV" --cache "$OUT/cache-backport-$pname" fixcheck "$fix" --repo "$br" --at r1 --format json
		flush
		$TIMEIT --out "$RESULTS" --section backport --input "$pname" --tool prov-fixcheck-warm --runs "$RUNS" --ok 0,1 \
			-- "$PROV" --cache "$OUT/cache-backport-$pname" fixcheck "$fix" --repo "$br" --at r1 --format json
		flush
	done
	# agreement: the copy git patch-id finds is the one provenance names
	want_pid=$(git -C "$br" show "$fix1" | git patch-id --stable | cut -d' ' -f1)
	got_pid=$(git -C "$br" show "$copy" | git patch-id --stable | cut -d' ' -f1)
	via=$("$PROV" --cache "$OUT/cache-backport-picked" fixcheck "$fix1" --repo "$br" --at r1 --format json 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin)[0]; print(d["how"], d["via"])')
	ok=false; [ "$want_pid" = "$got_pid" ] && [ "$via" = "cherry-pick $copy" ] && ok=true
	printf '{"section": "backportagree", "ok": %s, "got": "%s", "expected": "cherry-pick %s"}\n' "$ok" "$via" "$copy" >>"$RESULTS"
	say "  backport: provenance $via; git patch-id: cherry-pick $copy: $([ $ok = true ] && echo agree || echo DISAGREE)"
fi

# ----------------------------------------------------------------- noroute
# No route out: every upstream host accepts and never answers (a silent
# server on 127.0.0.1, named through url.insteadOf, stands for a firewall
# that drops packets). The first run waits fetch.connectTimeout and notes the
# host as down in the cache; the timed runs are the second and later ones,
# against resolve --offline on the same input. Target: at most 2 s more.
if want noroute; then
	say "== noroute: resolve with no route out (second run) vs resolve --offline"
	d=$OUT/noroute
	rm -rf "$d" "$OUT/cache-noroute"
	mkdir -p "$d"
	python3 "$TOP/tests/e2e/stall-proxy.py" silent "$d/silent.port" &
	nr_pid=$!
	for _ in $(seq 100); do [ -s "$d/silent.port" ] && break; sleep 0.1; done
	nr_port=$(cat "$d/silent.port")
	printf 'PID 1234 - process\nTID 1234:\n#0  0x00007f0000001234 crash_here - /usr/lib/libproj.so.1\n    /build/proj-1/src/x.c:4\n#1  0x0000555555555555 main - /usr/bin/app\n' >"$d/bt.txt"
	printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = https://example.invalid/up.git\n\tref = v1\n' >"$d/proj.map"
	nr_cfg=(-c "url.git://127.0.0.1:$nr_port/.insteadOf=https://example.invalid/")
	nr_t0=$(date +%s%N)
	"$PROV" --cache "$OUT/cache-noroute" "${nr_cfg[@]}" resolve "$d/bt.txt" --mapping "$d/proj.map" --format json >/dev/null 2>"$d/first.err" || true
	nr_t1=$(date +%s%N)
	say "  first run: $(( (nr_t1 - nr_t0) / 1000000 )) ms; $(grep 'did not answer' "$d/first.err" | head -1)"
	$TIMEIT --out "$RESULTS" --section noroute --input second-run --tool prov-resolve --runs "$RUNS" --ok 0,1 \
		-- "$PROV" --cache "$OUT/cache-noroute" "${nr_cfg[@]}" resolve "$d/bt.txt" --mapping "$d/proj.map" --format json
	$TIMEIT --out "$RESULTS" --section noroute --input second-run --tool prov-resolve-offline --runs "$RUNS" --ok 0,1 \
		-- "$PROV" --cache "$OUT/cache-noroute" "${nr_cfg[@]}" resolve --offline "$d/bt.txt" --mapping "$d/proj.map" --format json
	flush
	kill "$nr_pid" 2>/dev/null || true
	printf '{"section": "noroutefirst", "ms": %d}\n' $(( (nr_t1 - nr_t0) / 1000000 )) >>"$RESULTS"
fi

# ------------------------------------------------------------- firstanswer
# The first answer on a network (issue 25): resolve of a text backtrace whose
# component's commit the system recorded (a pip VCS install), against a local
# forge (tests/e2e/forge-server.py: git http-backend and the single-file
# forms) named through url.insteadOf, each run with an empty cache: the crash
# lines from GitHub's raw form (one small download, the default), against
# the same with fetch.singleFile=false (a full clone of a 50,000-commit
# repository over HTTP, as before issue 25), and resolve --offline. Then a
# component whose commit comes from its mapping's tag (ref = v{version}, the
# pip install records no commit): the remote's ref advertisement and one raw
# file (the default), against the clone that found the tag before
# (fetch.lsRemote=false); one more run of each counts the bytes the forge sent.
if want firstanswer; then
	say "== firstanswer: resolve, empty cache: single file vs full mirror vs --offline"
	d=$OUT/firstanswer
	rm -rf "$d"
	mkdir -p "$d/srv/o" "$d/root"
	git init -q --bare "$d/srv/o/proj.git"
	python3 "$BENCH/gen/mkrepo.py" "$NCOMMITS" "$TAGEVERY" |
		git -C "$d/srv/o/proj.git" fast-import --quiet
	fa_sha=$(git -C "$d/srv/o/proj.git" rev-parse main)
	fa_site=$d/root/usr/lib/python3/dist-packages
	mkdir -p "$fa_site/proj" "$fa_site/proj-1.0.dist-info"
	printf 'ELF' >"$fa_site/proj/_native.so"
	printf 'Metadata-Version: 2.1\nName: proj\nVersion: 1.0\n' >"$fa_site/proj-1.0.dist-info/METADATA"
	printf 'proj/_native.so,,\nproj-1.0.dist-info/METADATA,,\n' >"$fa_site/proj-1.0.dist-info/RECORD"
	printf '{"url": "https://github.com/o/proj.git", "vcs_info": {"vcs": "git", "commit_id": "%s"}}\n' "$fa_sha" \
		>"$fa_site/proj-1.0.dist-info/direct_url.json"
	printf 'PID 5 - process\nTID 5:\n#0  0x00007f0000001234 crash_here - %s\n    /tmp/pip-req-build-x/src/file007.c:1\n#1  0x0000555555555555 main - /usr/bin/app\n' \
		/usr/lib/python3/dist-packages/proj/_native.so >"$d/bt.txt"
	printf '[component "proj"]\n\tpackage = proj\n\trepo = https://github.com/o/proj.git\n' >"$d/proj.map"
	FORGE_BYTES_LOG=$d/bytes.log python3 "$TOP/tests/e2e/forge-server.py" "$d/srv" "$d/forge.port" "$d/forge.log" &
	fa_pid=$!
	for _ in $(seq 100); do [ -s "$d/forge.port" ] && break; sleep 0.1; done
	fa_url=http://127.0.0.1:$(cat "$d/forge.port")
	# a local http-backend may take longer than the 5 s connect bound to start a big pack;
	# github.com sent elsewhere by url.insteadOf keeps its raw form only when named
	fa_cfg=(-c "url.$fa_url/gh/.insteadOf=https://raw.githubusercontent.com/" -c "url.$fa_url/.insteadOf=https://github.com/"
		-c forge.github.com.type=github -c fetch.connectTimeout=300)
	fa_cmd=(resolve "$d/bt.txt" --sysroot "$d/root" --mapping "$d/proj.map" --format json)
	$TIMEIT --out "$RESULTS" --section firstanswer --input cold --tool prov-resolve-single-file --runs "$RUNS" --ok 0,1 \
		--fresh "$OUT/cache-fa1" -- "$PROV" --cache "$OUT/cache-fa1" "${fa_cfg[@]}" "${fa_cmd[@]}"
	$TIMEIT --out "$RESULTS" --section firstanswer --input cold --tool prov-resolve-full-mirror --runs "$RUNS" --ok 0,1 \
		--fresh "$OUT/cache-fa2" -- "$PROV" --cache "$OUT/cache-fa2" "${fa_cfg[@]}" -c fetch.singleFile=false "${fa_cmd[@]}"
	$TIMEIT --out "$RESULTS" --section firstanswer --input cold --tool prov-resolve-offline --runs "$RUNS" --ok 0,1 \
		--fresh "$OUT/cache-fa3" -- "$PROV" --cache "$OUT/cache-fa3" "${fa_cfg[@]}" "${fa_cmd[@]}" --offline
	flush
	# the tag-mapped component: version 1999 names tag v1999 (commit 49,975)
	fa_tsite=$d/root-tag/usr/lib/python3/dist-packages
	mkdir -p "$fa_tsite/proj" "$fa_tsite/proj-1999.dist-info"
	printf 'ELF' >"$fa_tsite/proj/_native.so"
	printf 'Metadata-Version: 2.1\nName: proj\nVersion: 1999\n' >"$fa_tsite/proj-1999.dist-info/METADATA"
	printf 'proj/_native.so,,\nproj-1999.dist-info/METADATA,,\n' >"$fa_tsite/proj-1999.dist-info/RECORD"
	printf '[component "proj"]\n\tpackage = proj\n\trepo = https://github.com/o/proj.git\n\tref = v{version}\n' >"$d/proj-tag.map"
	fa_tag=(resolve "$d/bt.txt" --sysroot "$d/root-tag" --mapping "$d/proj-tag.map" --format json)
	fa_tagc=$(git -C "$d/srv/o/proj.git" rev-parse 'v1999^{commit}')
	$TIMEIT --out "$RESULTS" --section firstanswer --input cold --tool prov-resolve-tag-lsremote --runs "$RUNS" --ok 0,1 \
		--fresh "$OUT/cache-fa4" -- "$PROV" --cache "$OUT/cache-fa4" "${fa_cfg[@]}" "${fa_tag[@]}"
	$TIMEIT --out "$RESULTS" --section firstanswer --input cold --tool prov-resolve-tag-full-mirror --runs "$RUNS" --ok 0,1 \
		--fresh "$OUT/cache-fa5" -- "$PROV" --cache "$OUT/cache-fa5" "${fa_cfg[@]}" -c fetch.lsRemote=false "${fa_tag[@]}"
	# the second run on one cache (the warm-up run fills it): the kept answer and the downloaded file, no request
	rm -rf "$OUT/cache-fa6"
	$TIMEIT --out "$RESULTS" --section firstanswer --input warm --tool prov-resolve-tag-lsremote-2nd --runs "$RUNS" --ok 0,1 \
		-- "$PROV" --cache "$OUT/cache-fa6" "${fa_cfg[@]}" "${fa_tag[@]}"
	flush
	for fa_mode in lsremote full-mirror; do
		fa_extra=()
		[ "$fa_mode" = full-mirror ] && fa_extra=(-c fetch.lsRemote=false)
		rm -rf "$OUT/cache-fab"
		: >"$d/bytes.log"
		"$PROV" --cache "$OUT/cache-fab" "${fa_cfg[@]}" "${fa_extra[@]}" "${fa_tag[@]}" >"$d/tag-$fa_mode.json" 2>/dev/null || true
		python3 - "$d/bytes.log" "$d/tag-$fa_mode.json" "$fa_tagc" "prov-resolve-tag-$fa_mode" >>"$RESULTS" <<'PY'
import json, sys
log, rep, want, tool = sys.argv[1:5]
lines = [l.split() for l in open(log) if l.strip()]
d = json.load(open(rep))
c = [c for c in d["components"] if c["name"] == "proj"][0]
s = [s for s in d["sources"] if s["component"] == "proj"]
print(json.dumps({"section": "firstanswerbytes", "tool": tool, "bytes": sum(int(l[-1]) for l in lines),
                  "requests": len(lines), "posts": sum(l[0] == "POST" for l in lines),
                  "commit_ok": c.get("commit") == want, "found_by": c.get("found_by"),
                  "fetched_by": s[0].get("fetched_by") if s else None}))
PY
	done
	kill "$fa_pid" 2>/dev/null || true
fi

# ------------------------------------------------------------------ ranks
# a 512-rank job log (issue 33): bench/ranks512.sh (time -v per run)
if want ranks; then
	"$BENCH/ranks512.sh" "$PROV" "$OUT/ranks" "$RUNS" | tee "$OUT/ranks.txt"
fi

# ------------------------------------------------------------------ report
python3 "$BENCH/gen/report.py" "$OUT/machine.txt" "$RESULTS" >"$OUT/results.md"
say ""
cat "$OUT/results.md"
say ""
say "written: $OUT/results.md"
