#!/usr/bin/env bash
# A large text backtrace inside the input caps always yields a report: a
# ~40 MB gdb `thread apply all bt` (15,000 threads x 64 frames, made here)
# gave "report larger than the output limit" (exit 2) and `resolve --store`
# stored nothing. Now the report keeps the crashed thread whole and the
# others up to the total frame cap, as for cores: the ones cut short are
# marked truncated and threads_note says why. Truth: the generator's own
# frames (thread T frame K is worker_K, line K+1) and which thread gdb said
# was current. Also: past PROV_MAX_THREADS threads the rest are ignored, said
# in threads_note.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
command -v python3 >/dev/null || skip "no python3"

cat >"$T/gen.py" <<'EOF'
import sys
threads, frames, current, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
with open(out, "w") as f:
    f.write(f"[Current thread is {current} (Thread 0x7f00{current:08x} (LWP {100000 + current}))]\n")
    for t in range(threads, 0, -1):   # gdb prints the highest number first
        f.write(f"\nThread {t} (Thread 0x7f00{t:08x} (LWP {100000 + t})):\n")
        for k in range(frames):
            f.write(f"#{k:<3} 0x{0x401000 + 16 * k:x} in worker_{k} (a={t}) at src/w.c:{k + 1}\n")
EOF
python3 "$T/gen.py" 15000 64 1 "$T/big.txt" || fail "generator"
size=$(stat -c %s "$T/big.txt")
note "input: $size bytes"
[ "$size" -lt $((64 << 20)) ] || fail "the input is past the documented 64 MiB cap"

# ---- resolve --format json: a report, with the truncation marked ----
"$PROVENANCE" resolve --offline --format json "$T/big.txt" >"$T/big.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve --format json gave no report (exit $rc)"; }
python3 - "$T/big.json" <<'EOF' || fail "report vs the generator"
import json, sys
r = json.load(open(sys.argv[1]))
th = r["threads"]
assert len(th) == 15000, f"{len(th)} threads, the input has 15000"
crashed = [t for t in th if t["crashed"]]
assert len(crashed) == 1 and crashed[0]["tid"] == 100001, "gdb's current thread (LWP 100001) is not the crashed one"
c = crashed[0]
assert not c["truncated"] and len(c["frames"]) == 64, f"the crashed thread lost frames: {len(c['frames'])}"
total = 0
for t in th:
    n = t["tid"] - 100000
    for k, f in enumerate(t["frames"]):
        assert f["function"] == f"worker_{k}" and f["line"] == k + 1, f"thread {n} frame {k}: {f['function']} {f['line']}"
    total += len(t["frames"])
    if len(t["frames"]) < 64:
        assert t["truncated"], f"thread {n} has {len(t['frames'])} of 64 frames and is not marked truncated"
cut = sum(1 for t in th if t["truncated"])
assert cut > 0, "no thread marked truncated"
assert total <= 131072, f"{total} frames, past the documented 131072"
assert r["threads_note"], "threads_note is empty"
print(f"ok: 15000 threads, {total} frames kept, {cut} marked truncated; crashed thread whole")
EOF
grep -q 'marked truncated' "$T/err" || fail "no warning: $(cat "$T/err")"

# ---- resolve --store: one crash stored ----
S="$T/store.sqlite"
"$PROVENANCE" resolve --offline --store="$S" "$T/big.txt" >/dev/null 2>"$T/store.err"
rc=$?
[ $rc -le 1 ] || { cat "$T/store.err"; fail "resolve --store failed (exit $rc)"; }
n=$("$PROVENANCE" query --store "$S" --format json "SELECT count(*) AS n FROM crashes" 2>"$T/q.err" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["n"])')
check_eq "$n" 1 "crashes stored"

# ---- more threads than PROV_MAX_THREADS (16384): the rest ignored, said so ----
python3 "$T/gen.py" 16400 2 16400 "$T/many.txt" || fail "generator"
"$PROVENANCE" resolve --offline --format json "$T/many.txt" >"$T/many.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "16,400 threads: no report (exit $rc)"; }
check_eq "$(json_get "$T/many.json" 'len(d["threads"])')" 16384 "threads kept"
check_match "$(json_get "$T/many.json" 'd["threads_note"]')" 'more than 16384 threads' "threads_note"
check_eq "$(json_get "$T/many.json" '[t["tid"] for t in d["threads"] if t["crashed"]][0]')" 116400 \
	"gdb's current thread (printed first) crashed"
exit 0
