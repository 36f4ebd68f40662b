#!/usr/bin/env bash
# A thread blocked in glibc's clone3 (a posix_spawnp parent waiting for its
# vfork child, which blocks opening a FIFO no one writes): clone3.S ends its
# CFI before the syscall, so libdwfl (eu-stack too) stops after one frame.
# The analyzer takes the caller from [sp] (checked: a call ends there) and
# goes on. Truth: gdb's "thread apply all bt" on the same core, pc by pc.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null || skip "gdb not installed"
mkdir -p "$T/c"
build_fixture "$TOP/fixtures/crashers/spawn-clone3.c" "$T/c/spawn" -pthread
mkfifo "$T/c/fifo" || fail "mkfifo"
# the vfork child stays blocked on the FIFO after the crash: release it on exit
trap 'timeout 5 sh -c ": > \"$T/c/fifo\"" 2>/dev/null; rm -rf "$T"' EXIT
core=$(make_core "$T/c" ./spawn "$T/c/fifo") || exit 1
timeout 5 sh -c ": > \"$T/c/fifo\"" 2>/dev/null

gdb -nx -batch -ex 'thread apply all bt' "$T/c/spawn" "$core" >"$T/gdb.txt" 2>/dev/null
# the thread whose frame #0 is clone3, its frames' pcs (#1 on: "#N  0x... in")
python3 - "$T/gdb.txt" >"$T/gdb-pcs" <<'PY' || skip "gdb shows no thread in clone3 (this glibc spawns without clone3)"
import re, sys
threads = re.split(r'\nThread \d+ ', open(sys.argv[1]).read())
for t in threads:
    m = re.search(r'\(LWP (\d+)\)', t)
    frames = re.findall(r'^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(\S+)', t, re.M)
    if m and frames and frames[0][2] == 'clone3':
        print(m.group(1))
        for n, pc, fn in frames[1:]:
            print(int(pc, 16), fn)
        sys.exit(0)
sys.exit(1)
PY
tid=$(head -1 "$T/gdb-pcs")
n_gdb=$(($(wc -l <"$T/gdb-pcs") - 1))
[ "$n_gdb" -ge 6 ] || fail "gdb gives only $n_gdb callers of clone3: $(cat "$T/gdb.txt")"
grep -q spawner "$T/gdb-pcs" || fail "gdb does not reach spawner: $(cat "$T/gdb-pcs")"

check_exit 0 "analyze" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/a.json"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/a.json" || fail "schema"
python3 - "$T/a.json" "$T/gdb-pcs" <<'PY' || fail "the clone3 thread differs from gdb"
import json, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split('\n')
tid = int(lines[0])
gdb = [(int(l.split()[0]), l.split()[1]) for l in lines[1:] if l.strip()]
t = [t for t in d['threads'] if t['tid'] == tid]
if not t:
    sys.exit('thread %d is not in the report' % tid)
frames = [f for f in t[0]['frames'] if not f['inlined']]
ours = [int(f['pc'], 16) for f in frames[1:]]
want = [pc for pc, fn in gdb]
if ours != want:
    sys.exit('callers of clone3: ours %s, gdb %s (%s); unwind_error: %s' % (
        [hex(p) for p in ours], [hex(p) for p in want], [fn for pc, fn in gdb], t[0].get('unwind_error')))
derived = [i for i, f in enumerate(t[0]['frames']) if f.get('unwind_derived')]
if derived != [1]:
    sys.exit('unwind_derived on frames %s, expected [1] (the caller read from [sp])' % derived)
if 'clone3' not in (t[0]['frames'][0]['function'] or ''):
    sys.exit('frame 0 is %s' % t[0]['frames'][0]['function'])
print('clone3 thread %d: %d callers equal to gdb' % (tid, len(ours)))
PY
check_exit 0 "analyze (text)" -- "$PROVENANCE" analyze "$core"
grep -q "unwound by the return address at the callee's sp" "$T/last.out" || fail "text does not mark the derived frame"
# eu-stack stops after clone3 (only said, not required)
if command -v eu-stack >/dev/null; then
	note "eu-stack: $(eu-stack --core "$core" -e "$T/c/spawn" 2>/dev/null | awk -v t="TID $tid:" '$0 == t { on = 1; next } /^TID/ { on = 0 } on' | wc -l) frames for thread $tid"
fi
echo "clone3: the blocked spawner's callers equal gdb's"
