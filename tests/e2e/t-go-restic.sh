#!/usr/bin/env bash
# A real Go program's core: Debian's restic (stripped, externally linked
# with cgo), made to dump core with GOTRACEBACK=crash while it waits on its
# stdin. Every thread's Go frames must equal the runtime's own traceback for
# the M it printed, and no caller of runtime.futex/epollwait may be skipped.
. "$(dirname "$0")/lib.sh"
for c in restic python3 readelf mkfifo; do command -v $c >/dev/null || skip "$c not installed (make deps installs restic)"; done
can_dump_core

# the premises: no symbols, no DWARF; C code before runtime.text (the
# table's text start is above .text's), so .text's address is not the base
R=$(command -v restic)
readelf -S -W "$R" | grep -Eq '\.symtab|\.debug_info' && skip "this restic has symbols: it would not test .gopclntab naming"
python3 - "$R" <<'PY' || fail "restic's .gopclntab: no 1.18+ header above .text"
import struct, subprocess, sys
sec = {}
for l in subprocess.run(["readelf", "-S", "-W", sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    f = l.replace("[ ", "[").split()
    if len(f) > 5 and f[1] in (".text", ".gopclntab"):
        sec[f[1]] = (int(f[3], 16), int(f[4], 16))
with open(sys.argv[1], "rb") as fh:
    fh.seek(sec[".gopclntab"][1])
    h = fh.read(40)
magic, = struct.unpack("<I", h[:4])
text_start, = struct.unpack("<Q", h[24:32])
assert magic in (0xfffffff0, 0xfffffff1), hex(magic)
print("restic: .text at 0x%x, runtime.text at 0x%x" % (sec[".text"][0], text_start))
assert text_start > sec[".text"][0]
PY

export RESTIC_PASSWORD=test RESTIC_CACHE_DIR="$T/cache" HOME="$T"
restic init -r "$T/repo" >"$T/init.out" 2>&1 || { cat "$T/init.out"; fail "restic init"; }

# restic backup --stdin blocks on an open FIFO with nothing written: it is
# mid-backup, its lock taken, for as long as the test wants
mkfifo "$T/in"
exec 3<>"$T/in"
rm -f "$T"/core "$T"/core.*
(cd "$T" && ulimit -c unlimited && GOTRACEBACK=crash exec restic -r "$T/repo" backup --stdin --stdin-filename x \
	<"$T/in" >"$T/restic.out" 2>"$T/restic.err") &
pid=$!
for _ in $(seq 600); do
	ls "$T/repo/locks/"* >/dev/null 2>&1 && break
	sleep 0.1
done
ls "$T/repo/locks/"* >/dev/null 2>&1 || { kill $pid; cat "$T/restic.err"; fail "restic took no lock"; }
# a core of the live process too (gdb's gcore), before the signal: its
# threads sleep in runtime.futex/epollwait with no signal frame above them
live=
if command -v gcore >/dev/null && gcore -o "$T/live" $pid >"$T/gcore.out" 2>&1 && [ -s "$T/live.$pid" ]; then
	live="$T/live.$pid"
else
	echo "note: gcore could not attach to restic; the live core is not checked"
fi
kill -QUIT $pid
wait $pid
rc=$?
exec 3>&-
[ $rc -ge 128 ] || { cat "$T/restic.err"; fail "restic did not die of SIGQUIT with GOTRACEBACK=crash (exit $rc)"; }
core=$(ls -t "$T"/core "$T"/core.* 2>/dev/null | head -1)
[ -n "$core" ] || fail "restic crashed but left no core"
grep -q "^PC=0x[0-9a-f]* m=[0-9]" "$T/restic.err" || fail "no per-M traceback in restic's output"

check_exit 0 "analyze restic's core" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/a.json"
python3 "$TOP/tests/e2e/go-traceback-compare.py" "$T/restic.err" "$T/a.json" --min-match 2 >"$T/cmp.out" ||
	{ cat "$T/cmp.out"; fail "restic's threads differ from its own GOTRACEBACK=crash traceback"; }
cat "$T/cmp.out"
grep -q "^callers of runtime.futex/runtime.epollwait checked: [1-9]" "$T/cmp.out" ||
	fail "no thread in runtime.futex or runtime.epollwait: the caller check proved nothing"
echo "ok: every M's frames equal restic's own traceback"

if [ -n "$live" ]; then
	check_exit 0 "analyze the live core (gcore)" -- "$PROVENANCE" analyze "$live" --format json
	cp "$T/last.out" "$T/live.json"
	# threads may move between gcore and the signal: --live fails only on a
	# skipped futex/epollwait caller, or fewer than 2 M's equal
	python3 "$TOP/tests/e2e/go-traceback-compare.py" "$T/restic.err" "$T/live.json" --live --min-match 2 >"$T/cmp-live.out" ||
		{ cat "$T/cmp-live.out"; fail "the live core's threads differ from restic's traceback"; }
	cat "$T/cmp-live.out"
	grep -q "^callers of runtime.futex/runtime.epollwait checked: [1-9]" "$T/cmp-live.out" ||
		fail "live core: no thread in runtime.futex or runtime.epollwait"
	echo "ok: the live core's innermost runtime.futex/epollwait frames have their callers"
fi
