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
	# seeds: the fixtures that target reads (fuzz-text: fixtures/text)
	area=${name#fuzz-}
	if [ -d "fixtures/$area" ]; then
		find "fixtures/$area" -type f ! -name '*.expect' -size -1M -exec cp {} "$corpus/" \; 2>/dev/null
	else
		find fixtures -type f -size -256k 2>/dev/null | head -200 | while read -r f; do cp "$f" "$corpus/"; done
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
