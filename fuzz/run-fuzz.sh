#!/usr/bin/env bash
# Run every built libFuzzer target (fuzz/fuzz-*) for N seconds each, with a
# corpus seeded from fixtures/. Exit non-zero when a target finds a crash;
# the crashing input is left in fuzz/out/<target>/.
#   fuzz/run-fuzz.sh [SECONDS] [TARGET-PATTERN]
set -u
cd "$(dirname "$0")/.."
secs=${1:-60}
pattern=${2:-}
rc=0
ran=0
for t in fuzz/fuzz-*; do
	case "$t" in *.c|*.o|*.d) continue ;; esac
	[ -x "$t" ] || continue
	name=$(basename "$t")
	[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
	out="fuzz/out/$name"
	corpus="$out/corpus"
	mkdir -p "$corpus"
	# seeds: fixtures/fuzz-seeds/<target> (fuzz/make-seeds.sh), the fixtures
	# that target reads (fuzz-text: fixtures/text), and every regression
	# input kept for it (fixtures/regress/<target>). find -size -1M would
	# mean "empty": sizes round up to whole units
	area=${name#fuzz-}
	seeded=0
	for d in "fixtures/fuzz-seeds/$name" "fixtures/$area" "fixtures/regress/$name"; do
		[ -d "$d" ] || continue
		find "$d" -type f ! -name '*.expect' ! -name README -size -1024k -exec cp {} "$corpus/" \; 2>/dev/null
		seeded=1
	done
	if [ $seeded = 0 ]; then
		find fixtures -type f -size -256k 2>/dev/null | head -200 | while read -r f; do cp "$f" "$corpus/"; done
	fi
	# libdw leaks on some malformed cores (fuzz/lsan.supp); its frames carry
	# no frame pointers, so that suppression needs the slow unwinder (10x
	# slower): by default fuzz-core runs fast with the module-wide
	# fuzz/lsan-fast.supp; PRECISE_LEAKS=1 selects the precise one
	if [ "$name" = fuzz-core ] && [ "${PRECISE_LEAKS:-0}" = 1 ]; then
		export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0"
		export ASAN_OPTIONS="fast_unwind_on_malloc=0"
	else
		export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan-fast.supp:print_suppressions=0"
		export ASAN_OPTIONS=""
	fi
	echo "fuzzing $name for ${secs}s (corpus $corpus)"
	ran=$((ran+1))
	if ! "$t" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$out/" "$corpus" >"$out/log" 2>&1; then
		echo "FAIL: $name found a crash:"; tail -30 "$out/log"
		ls "$out"/crash-* "$out"/timeout-* "$out"/oom-* 2>/dev/null
		rc=1
	else
		grep -E '^#[0-9]+.*(DONE|pulse)' "$out/log" | tail -1
	fi
done
[ $ran -gt 0 ] || { echo "no fuzz targets built (make fuzz)"; exit 1; }
exit $rc
