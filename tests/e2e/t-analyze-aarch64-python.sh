#!/usr/bin/env bash
# Debian 12 arm64's python3.11 (a debootstrap --foreign root, shared: see
# arm64-root.sh) runs a script under qemu-aarch64 -L ROOT that kills itself
# with SIGSEGV three Python calls deep; analysed here with --sysroot ROOT:
# the Python frames (function, file, line) and their arguments and locals
# come from the script's source; native frames, registers and the
# instruction at pc agree with gdb-multiarch on the same core.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in qemu-aarch64 gdb-multiarch python3 dpkg-deb; do
	command -v $c >/dev/null || skip "$c not installed (apt-get install qemu-user gdb-multiarch)"
done
root=$TOP/tests/debs/arm64-root
why=$("$TOP/tests/e2e/arm64-root.sh" "$root") || skip "no Debian arm64 root in $root: $why"

cat >"$T/crash.py" <<'P'
import os, signal
def inner(count, label):
    total = count * 2
    os.kill(os.getpid(), signal.SIGSEGV)  # CRASH
def outer(n):
    name = "outer-" + str(n)
    inner(n + 1, name)  # CALL-INNER
outer(41)  # CALL-OUTER
P
rm -f "$T"/qemu_*.core
( cd "$T" && ulimit -c unlimited && exec qemu-aarch64 -L "$root" "$root/usr/bin/python3.11" "$T/crash.py" ) >/dev/null 2>&1
rm -f "$T/core"	# a core of qemu itself, if any
core=$(ls "$T"/qemu_*.core 2>/dev/null | head -1)
[ -n "$core" ] || skip "qemu-aarch64 wrote no core"

check_exit 0 "analyze --locals (arm64 python3.11)" -- \
	"$PROVENANCE" analyze --locals --sysroot "$root" --exe "$root/usr/bin/python3.11" "$core" --format json
cp "$T/last.out" "$T/r.json"
line() { grep -n "$1" "$T/crash.py" | cut -d: -f1; }
check_eq "$(json_get "$T/r.json" '" ".join("%s:%s:%s" % (f["function"], f["file"], f["line"]) for f in d["threads"][0]["frames"] if f["language"] == "python")')" \
	"inner:$T/crash.py:$(line CRASH) outer:$T/crash.py:$(line CALL-INNER) <module>:$T/crash.py:$(line CALL-OUTER)" \
	"Python frames (the script's source)"
check_eq "$(json_get "$T/r.json" '[(v["name"], v["value"]) for f in d["threads"][0]["frames"] if f["function"] == "inner" for v in f["args"] + f["locals"]]')" \
	"[[\"count\", \"42\"], [\"label\", \"'outer-41'\"], [\"total\", \"84\"]]" "inner's arguments and locals (outer(41) calls inner(42, 'outer-41'))"
check_eq "$(json_get "$T/r.json" '[(v["name"], v["value"]) for f in d["threads"][0]["frames"] if f["function"] == "outer" for v in f["args"] + f["locals"]]')" \
	"[[\"n\", \"41\"], [\"name\", \"'outer-41'\"]]" "outer's argument and local"
check_eq "$(json_get "$T/r.json" 'd["python"]["version"]')" "3.11" "the interpreter's version"

gdb-multiarch -batch -ex "set sysroot $root" -ex "file $root/usr/bin/python3.11" -ex "core $core" \
	-ex 'thread apply all bt' -ex 'info registers' -ex 'x/i $pc' >"$T/gdb.out" 2>&1
python3 "$TOP/tests/e2e/check-gdb-aarch64.py" "$T/r.json" "$T/gdb.out" --min-frames 3 || fail "gdb-multiarch disagrees"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/r.json" || fail "schema"
