#!/usr/bin/env bash
# Threads sharing one frame-pointer chain (issue 17 item 7): a real program
# (fixtures/crashers/sharedchain.c) parks N threads on the chain of its main
# thread, D frames deep, and aborts. Each thread used to be unwound frame by
# frame (1,000 threads x 4,096 frames: 82 s); a thread meeting a (pc, sp,
# frame pointer) another thread has now copies the rest of that chain. And
# the frames of one report are capped in all (PROV_MAX_TOTAL_FRAMES): the
# threads past it are marked truncated, with a note at the top.
. "$(dirname "$0")/lib.sh"
can_dump_core
[ "$(uname -m)" = x86_64 ] || skip "the fixture parks its threads with x86-64 assembly"
for c in eu-stack python3 strace; do command -v $c >/dev/null || skip "$c not installed"; done
build_fixture "$TOP/fixtures/crashers/sharedchain.c" "$T/sharedchain" -pthread

# 1. the frames are the ones eu-stack unwinds (a small instance, every thread)
mkdir "$T/small"
core=$(make_core "$T/small" "$T/sharedchain" 3 12) || exit 1
check_exit 0 "analyze the small core" -- "$PROVENANCE" analyze --format json "$core"
cp "$T/last.out" "$T/small.json"
eu-stack --core="$core" -e "$T/sharedchain" >"$T/small.eu" 2>/dev/null
python3 - "$T/small.json" "$T/small.eu" <<'PY' || fail "frames differ from eu-stack"
import json, re, sys
d = json.load(open(sys.argv[1]))
theirs, tid = {}, None
for line in open(sys.argv[2]):
    m = re.match(r"TID (\d+):", line)
    if m:
        tid = int(m.group(1)); theirs[tid] = []; continue
    m = re.match(r"#\d+\s+(0x[0-9a-f]+)\s*(\S*)", line)
    if m and tid is not None:
        theirs[tid].append((int(m.group(1), 16), m.group(2)))
ours = {t["tid"]: [(int(f["pc"], 16), f["function"]) for f in t["frames"]] for t in d["threads"]}
assert set(ours) == set(theirs) and len(ours) == 4, (sorted(ours), sorted(theirs))
mine = ("worker", "rec", "main")
for tid, fr in theirs.items():
    o = ours[tid]
    # same pcs, frame by frame; the program's own functions by the same name
    assert [p for p, _ in o] == [p for p, _ in fr], (tid, o, fr)
    assert [n for _, n in o if n in mine] == [n for _, n in fr if n in mine], (tid, o, fr)
workers = [t for t in d["threads"] if t["frames"][0]["function"] == "worker"]
assert len(workers) == 3 and all(len(t["frames"]) == len(workers[0]["frames"]) for t in workers)
assert sum(1 for f in workers[0]["frames"] if f["function"] == "rec") == 11
print("ok: 4 threads, every frame's pc as eu-stack's, 3 workers on 11 rec frames")
PY

# 2. 48 threads on one 2000-frame chain cost about what 1 does (each used to
#    be unwound again: 17 times the CPU before): a count of work, the reads
#    of the core's memory (pread64 calls, strace), not a time
mkdir "$T/one" "$T/many"
c1=$(make_core "$T/one" "$T/sharedchain" 1 2000) || exit 1
c48=$(make_core "$T/many" "$T/sharedchain" 48 2000) || exit 1
r1=$(count_syscalls pread64 "$PROVENANCE" analyze "$c1")
r48=$(count_syscalls pread64 "$PROVENANCE" analyze "$c48")
note "pread64 calls (strace): $r1 for 1 thread on the chain, $r48 for 48"
[ "$r1" -gt 0 ] || fail "no pread64 of the core counted: the count measures nothing"
[ "$r48" -le $((2 * r1)) ] || fail "48 threads on one chain read the core $r48 times, 1 thread $r1: threads sharing a chain are unwound again"
echo "ok: 48 threads on one chain read the core about as often as 1 ($r48 vs $r1 pread64 calls)"

# 3. the frames cap of the whole report: 40 threads of 4096 frames
cap=$(sed -n 's/^#define PROV_MAX_TOTAL_FRAMES \([0-9]*\).*/\1/p' "$TOP/src/model/model.h")
[ -n "$cap" ] || fail "no PROV_MAX_TOTAL_FRAMES in src/model/model.h"
grep -q "PROV_MAX_TOTAL_FRAMES\` = $cap" "$TOP/docs/hardening.md" || fail "docs/hardening.md does not give the cap $cap"
mkdir "$T/big"
cbig=$(make_core "$T/big" "$T/sharedchain" 40 4096) || exit 1
check_exit 0 "analyze 41 threads of 4096 frames" -- timeout 120 "$PROVENANCE" analyze --format json "$cbig"
mv "$T/last.out" "$T/big.json"
check_match "$(cat "$T/last.err")" "more than $cap frames in all threads" "the warning names the cap"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/big.json" || fail "schema"
python3 - "$T/big.json" "$cap" <<'PY' || fail "total frames cap"
import json, sys
d = json.load(open(sys.argv[1])); cap = int(sys.argv[2])
n = sum(len(t["frames"]) for t in d["threads"])
assert len(d["threads"]) == 41, len(d["threads"])
assert n == cap, (n, cap)	# 41 x 4096 frames were there: exactly the cap is kept
assert d["threads_note"] and str(cap) in d["threads_note"], d["threads_note"]
short = [t for t in d["threads"] if len(t["frames"]) < 4096]
assert short and all(t["truncated"] for t in short), "a thread cut by the cap is not marked truncated"
print("ok: %d frames in all (the cap), %d threads cut short and marked, note: %s" % (n, len(short), d["threads_note"]))
PY
