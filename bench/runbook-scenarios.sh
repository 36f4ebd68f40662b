#!/usr/bin/env bash
# bench/runbook-scenarios.sh [SCRATCH]: the runbook's report template (seeds/003,
# "Report findings in this structure") on nine crash scenarios (issue 34), field
# by field. Not a test: a measurement a person runs. Every artefact is made
# here at run time under SCRATCH (default: a new mktemp -d): the programs, their
# cores, provenance's reports (`resolve CORE --offline --format markdown|json`,
# `analyze CORE --format json`) and gdb's truth (bench/runbook-gdb-truth.py).
# bench/runbook-check.py compares each field with gdb, dpkg and the scenario's
# source and prints one table: scenario x field -> right / wrong / not filled.
#
#   reraise  fixtures/crashers/sighandler.c llvm: a SIGSEGV handler that
#            re-raises with tgkill (LLVM's)
#   atexit   fixtures/crashers/atexit.c: a NULL store in an atexit handler
#   race     a real race: std::unordered_map written under a shared lock by
#            four threads (operator[] and erase), until it crashes
#   torch    python3 -X faulthandler, torch.from_numpy of a numpy view whose
#            stride points far outside its buffer, summed: a SIGSEGV in
#            libtorch_cpu; without python3-torch a stand-in: ctypes.string_at(0)
#            (a crash in libc under the interpreter; said in the table)
#   abba     fixtures/hang/abba.c: an ABBA deadlock, gcore'd by gdb (a snapshot)
#   hsa      Debian's libhsa-runtime64-1 dlopen'd, hsa_status_string given
#            the wild pointer 0x10 (no hsa_init, no GPU): a SIGSEGV inside
#            libhsa-runtime64; skipped when it is not installed
#   deadlock-abrt  fixtures/hang/abba-watchdog.c: an ABBA deadlock whose
#            watchdog thread raise(SIGABRT)s after 2 s: a core whose cause is
#            the lock cycle (must not be called an abort)
#   gitfix   atexit.c built from a git repository made here, resolved without
#            --offline with a mapping to it and --fix of a later and an
#            earlier commit: the Git Hash column against git rev-parse, the
#            fix status against git merge-base --is-ancestor
#   hip      Debian's libamdhip64-5 (ROCm 5.2.3) dlopen'd, hipRuntimeGetVersion
#            given the wild pointer 0x10: a SIGSEGV inside libamdhip64 (no GPU
#            is needed); skipped when libamdhip64-5 is not installed
#
# Needs: gdb, cc, c++, python3, dpkg; a core_pattern that writes "core*" into
# the crashing process's cwd (as tests/e2e/lib.sh's can_dump_core).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
PROVENANCE=${PROVENANCE:-$TOP/provenance}
S=${1:-$(mktemp -d /tmp/runbook-scenarios.XXXXXX)}
mkdir -p "$S"
CHK="python3 $TOP/bench/runbook-check.py"
# SCENARIOS="hsa deadlock-abrt" runs only those (default: every one)
want() { [ -z "${SCENARIOS:-}" ] || [[ " $SCENARIOS " == *" $1 "* ]]; }
TABLE=$S/table.txt
: >"$TABLE"
case $(cat /proc/sys/kernel/core_pattern) in
"|"* | /*) echo "core_pattern is '$(cat /proc/sys/kernel/core_pattern)': cores must land in the cwd" >&2; exit 2 ;;
esac

# core DIR CMD...: run CMD in DIR until it dies by a signal (up to 5 tries, 20 s
# each); prints the core's path; the tries are recorded in DIR/tries
core() {
	local dir=$1 i rc c; shift
	rm -f "$dir"/core "$dir"/core.*
	: >"$dir/tries"
	for i in 1 2 3 4 5; do
		( cd "$dir" && ulimit -c unlimited && exec timeout -s KILL 20 "$@" ) >"$dir/run.out" 2>&1
		rc=$?
		echo "$rc" >>"$dir/tries"
		c=$(ls -t "$dir"/core "$dir"/core.* 2>/dev/null | head -1)
		[ $rc -ge 128 ] && [ $rc -ne 137 ] && [ -n "$c" ] && { echo "$c"; return 0; }
	done
	return 1
}

# report NAME EXE CORE CHECK-ARGS...: provenance's reports, gdb's truth, the check
report() {
	local name=$1 exe=$2 c=$3 d; shift 3
	d=$(dirname "$c")
	# RESOLVE_ARGS: instead of --offline (the gitfix scenario: a mapping, a
	# cache, --fix); an array so that its words stay words
	local ra=(--offline)
	[ -n "${RESOLVE_ARGS+x}" ] && ra=("${RESOLVE_ARGS[@]}")
	"$PROVENANCE" resolve "$c" "${ra[@]}" --format markdown >"$d/report.md" 2>"$d/resolve.err"
	echo "$?" >"$d/resolve.rc"
	"$PROVENANCE" resolve "$c" "${ra[@]}" --format json >"$d/report.json" 2>/dev/null
	"$PROVENANCE" analyze "$c" --format json >"$d/analyze.json" 2>"$d/analyze.err"
	TRUTH_OUT=$d/gdb.json gdb -nx -batch -x "$TOP/bench/runbook-gdb-truth.py" "$exe" "$c" >"$d/gdb.out" 2>&1
	[ -s "$d/gdb.json" ] || { echo "$name|all|not run|gdb gave no truth: $(tail -1 "$d/gdb.out")" >>"$TABLE"; return; }
	$CHK "$name" --md "$d/report.md" --json "$d/report.json" --truth "$d/gdb.json" "$@" >>"$TABLE"
}

if want reraise; then
# 1. a re-raising handler (LLVM's)
mkdir -p "$S/reraise"
cc -g -O2 -fno-omit-frame-pointer -o "$S/reraise/sighandler" "$TOP/fixtures/crashers/sighandler.c"
if c=$(core "$S/reraise" "$S/reraise/sighandler" llvm); then
	report reraise "$S/reraise/sighandler" "$c" --signal SIGSEGV --context runtime --pattern data-race
else echo "reraise|all|not run|no core" >>"$TABLE"; fi

fi

if want atexit; then
# 2. an exit-time crash
mkdir -p "$S/atexit"
cc -g -O0 -o "$S/atexit/atexit" "$TOP/fixtures/crashers/atexit.c"
if c=$(core "$S/atexit" "$S/atexit/atexit"); then
	report atexit "$S/atexit/atexit" "$c" --signal SIGSEGV --context "exit-time cleanup" --pattern null-deref --pattern exit-time
else echo "atexit|all|not run|no core" >>"$TABLE"; fi

fi

if want race; then
# 3. a real data race
mkdir -p "$S/race"
cat >"$S/race/race.cpp" <<'CPP'
// A real data race (issue 34 item 8): std::unordered_map written under a
// shared (read) lock, operator[] inserting and erase from four threads.
#include <shared_mutex>
#include <thread>
#include <unordered_map>
#include <vector>

static std::unordered_map<long, long> table;
static std::shared_mutex mu;

__attribute__((noinline)) static void record(long key)
{
	std::shared_lock<std::shared_mutex> lock(mu); // BUG: a write under a read lock
	table[key]++; // RACE HERE
	if (table.size() > 4096)
		table.erase(table.begin());
}

static void worker(long seed)
{
	for (unsigned long i = 0;; i++)
		record((long)((seed * 2654435761u + i * 40503u) % 1000003u));
}

int main()
{
	std::vector<std::thread> ts;
	for (long s = 1; s <= 4; s++)
		ts.emplace_back(worker, s);
	for (auto &t : ts)
		t.join();
}
CPP
c++ -g -O1 -pthread -o "$S/race/race" "$S/race/race.cpp"
if c=$(core "$S/race" "$S/race/race"); then
	report race "$S/race/race" "$c" --signal SIGSEGV --context runtime --pattern data-race --step 'ThreadSanitizer|TSan'
else echo "race|all|not run|no crash in 5 tries" >>"$TABLE"; fi

fi

if want torch; then
# 4. torch with faulthandler (or the stand-in)
mkdir -p "$S/torch"
py=$(readlink -f /usr/bin/python3)	# Debian's, where python3-torch lives
if "$py" -c 'import torch, numpy' 2>/dev/null; then
	cat >"$S/torch/crash.py" <<'PY'
# torch with faulthandler: a tensor over a numpy view whose stride leaves its
# buffer; summing it reads unmapped memory inside libtorch_cpu (SIGSEGV).
import numpy as np
import torch

base = np.zeros(1, dtype=np.float32)
wild = np.lib.stride_tricks.as_strided(base, shape=(4,), strides=(1 << 40,))
t = torch.from_numpy(wild)
print(float(t.sum()))  # CRASH HERE
PY
	TORCH=real
else
	cp "$TOP/fixtures/crashers/sighandler.py" "$S/torch/crash.py"
	TORCH=stand-in
fi
if c=$(core "$S/torch" "$py" -X faulthandler "$S/torch/crash.py"); then
	report "torch($TORCH)" "$py" "$c" --signal SIGSEGV --context runtime --faulthandler "$S/torch/run.out"
else echo "torch($TORCH)|all|not run|no core: $(tail -2 "$S/torch/run.out" | tr '\n' ' ')" >>"$TABLE"; fi

fi

if want abba; then
# 5. an ABBA deadlock, gcore'd
mkdir -p "$S/abba"
cc -g -O0 -pthread -o "$S/abba/abba" "$TOP/fixtures/hang/abba.c"
"$S/abba/abba" >"$S/abba/run.out" 2>&1 &
pid=$!
for i in $(seq 50); do grep -q ready "$S/abba/run.out" && break; sleep 0.1; done
sleep 0.5
gdb -nx -batch -p $pid -ex "gcore $S/abba/core" >"$S/abba/gcore.out" 2>&1
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if [ -s "$S/abba/core" ]; then
	TRUTH_EXPRS="&m1,&m2,m1.__data.__owner,m2.__data.__owner" report abba "$S/abba/abba" "$S/abba/core" --snapshot --context "" --cycle-funcs t1,t2
else echo "abba|all|not run|gcore failed: $(tail -1 "$S/abba/gcore.out")" >>"$TABLE"; fi

fi

if want hip; then
# 6. a crash inside Debian's HIP runtime
mkdir -p "$S/hip"
if dpkg-query -W -f '${Status}' libamdhip64-5 2>/dev/null | grep -q 'ok installed'; then
	cat >"$S/hip/hip.c" <<'C'
/* Debian's libamdhip64-5, dlopen'd; hipRuntimeGetVersion stores through the
 * wild pointer 0x10: a SIGSEGV inside libamdhip64 (no GPU needed). */
#include <dlfcn.h>
#include <stdio.h>
int main(void)
{
	void *h = dlopen("libamdhip64.so.5", RTLD_NOW);
	int (*get)(int *);

	if (!h) { fprintf(stderr, "%s\n", dlerror()); return 2; }
	get = (int (*)(int *))dlsym(h, "hipRuntimeGetVersion");
	if (!get) { fprintf(stderr, "%s\n", dlerror()); return 2; }
	return get((int *)0x10); /* CRASH inside libamdhip64 */
}
C
	cc -g -O0 -o "$S/hip/hip" "$S/hip/hip.c" -ldl
	if c=$(core "$S/hip" "$S/hip/hip"); then
		report hip "$S/hip/hip" "$c" --signal SIGSEGV --context runtime --pattern null-deref
	else echo "hip|all|not run|no crash: $(tail -1 "$S/hip/run.out")" >>"$TABLE"; fi
else
	echo "hip|all|not run|libamdhip64-5 is not installed (apt-get install libamdhip64-5)" >>"$TABLE"
fi

fi

if want hsa; then
# 7. a crash inside Debian's HSA runtime (libhsa-runtime64)
mkdir -p "$S/hsa"
if dpkg-query -W -f '${Status}' libhsa-runtime64-1 2>/dev/null | grep -q 'ok installed'; then
	cat >"$S/hsa/hsa.c" <<'C'
/* Debian's libhsa-runtime64-1, dlopen'd; hsa_status_string (which needs no
 * hsa_init) stores through the wild pointer 0x10: a SIGSEGV inside libhsa. */
#include <dlfcn.h>
#include <stdio.h>
int main(void)
{
	void *h = dlopen("libhsa-runtime64.so.1", RTLD_NOW);
	int (*str)(int, const char **);

	if (!h) { fprintf(stderr, "%s\n", dlerror()); return 2; }
	str = (int (*)(int, const char **))dlsym(h, "hsa_status_string");
	if (!str) { fprintf(stderr, "%s\n", dlerror()); return 2; }
	return str(0, (const char **)0x10); /* CRASH inside libhsa-runtime64 */
}
C
	cc -g -O0 -o "$S/hsa/hsa" "$S/hsa/hsa.c" -ldl
	if c=$(core "$S/hsa" "$S/hsa/hsa"); then
		report hsa "$S/hsa/hsa" "$c" --signal SIGSEGV --context runtime --pattern null-deref
	else echo "hsa|all|not run|no crash: $(tail -1 "$S/hsa/run.out")" >>"$TABLE"; fi
else
	echo "hsa|all|not run|libhsa-runtime64-1 is not installed (apt-get install libhsa-runtime64-1)" >>"$TABLE"
fi
fi

if want deadlock-abrt; then
# 8. an ABBA deadlock ended by a watchdog's SIGABRT (a core, not a snapshot)
mkdir -p "$S/deadlock-abrt"
cc -g -O0 -pthread -o "$S/deadlock-abrt/abba-watchdog" "$TOP/fixtures/hang/abba-watchdog.c"
if c=$(core "$S/deadlock-abrt" "$S/deadlock-abrt/abba-watchdog"); then
	TRUTH_EXPRS="&m1,&m2,m1.__data.__owner,m2.__data.__owner" report deadlock-abrt "$S/deadlock-abrt/abba-watchdog" "$c" \
		--signal SIGABRT --context runtime --pattern deadlock --no-pattern abort --cycle-funcs t1,t2 --step 'one order'
else echo "deadlock-abrt|all|not run|no core" >>"$TABLE"; fi
fi

if want gitfix; then
# 9. Git Hash and fix status, not offline: atexit.c built from a local git
# repository made here (v1.0 the deployed build; a later commit changes the
# crash line; an earlier one is in the build), a mapping naming it, --fix both
G=$S/gitfix
rm -rf "$G"; mkdir -p "$G/repo"
gitc() { git -C "$G/repo" -c user.name=bench -c user.email=bench@invalid "$@"; }
cp "$TOP/fixtures/crashers/atexit.c" "$G/repo/atexit.c"
gitc init -q && gitc add atexit.c && gitc commit -qm "the program"
echo "/* notes */" >"$G/repo/NOTES" && gitc add NOTES && gitc commit -qm "an earlier change"
EARLIER=$(gitc rev-parse HEAD)
gitc tag v1.0
sed -i 's|\*registry = 1; /\* CRASH HERE \*/|if (registry) *registry = 1; /* fixed */|' "$G/repo/atexit.c"
gitc commit -qam "atexit: do not store through a NULL registry"
LATER=$(gitc rev-parse HEAD)
gitc checkout -q v1.0
cc -g -O0 -o "$G/atexit" "$G/repo/atexit.c"	# the DWARF names the repository's file
gitc checkout -q -	# the upstream's HEAD is its branch, the fix on it, as a forge's is
printf '[component "atexit-demo"]\n\tlibrary = atexit\n\trepo = file://%s/repo\n\tref = v1.0\n' "$G" >"$G/demo.map"
if c=$(core "$G" "$G/atexit"); then
	# glibc's upstream is redirected to a folder that does not exist: no internet
	RESOLVE_ARGS=(--cache "$G/cache" --mapping "$G/demo.map" -c "url.file://$G/no-mirror/.insteadOf=https://sourceware.org/git/"
		--fix "$LATER" --fix "$EARLIER")
	report gitfix "$G/atexit" "$c" --signal SIGSEGV --context "exit-time cleanup" --pattern null-deref --pattern exit-time \
		--repo "$G/repo" --ref v1.0 --component atexit-demo --fix "$LATER" --fix "$EARLIER"
	unset RESOLVE_ARGS
else echo "gitfix|all|not run|no core" >>"$TABLE"; fi
fi

echo "scratch: $S"
echo
python3 - "$TABLE" <<'PY'
import sys
rows = [l.rstrip("\n").split("|", 3) for l in open(sys.argv[1]) if l.strip()]
fields = []
for r in rows:
    if r[1] not in fields and r[1] != "all":
        fields.append(r[1])
scen = []
for r in rows:
    if r[0] not in scen:
        scen.append(r[0])
print("| scenario | " + " | ".join(fields) + " |")
print("|---" * (len(fields) + 1) + "|")
for s in scen:
    v = {r[1]: r[2] for r in rows if r[0] == s}
    if "all" in v:
        print("| %s | %s |" % (s, " | ".join([v["all"]] * len(fields))))
    else:
        print("| %s | %s |" % (s, " | ".join(v.get(f, "-") for f in fields)))
print()
for r in rows:
    if r[2] != "right":
        print("- %s / %s: %s: %s" % tuple(r))
PY
