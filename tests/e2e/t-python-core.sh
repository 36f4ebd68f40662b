#!/bin/bash
# Python frames from cores of real interpreters: the host's python3 and
# Debian's python3.11, each crashed in C (ctypes.string_at(0)) under a
# 3-deep Python call chain with 4 more threads parked in Python. Expected
# frames come from the script's MARK- comments and, for Debian's
# python3.11 with python3.11-dbg installed, from gdb's py-bt.
. "$(dirname "$0")/lib.sh"
# a libdw leak on python3.11-dbg's DWARF (see the file) must not fail ASan runs
export LSAN_OPTIONS="suppressions=$TOP/tests/e2e/lsan-libdw.supp:print_suppressions=0:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
can_dump_core
SCRIPT=$TOP/fixtures/crashers/python-threads.py
CHECK=$TOP/tests/e2e/python-frames-check.py

run_one() {	# NAME INTERPRETER
	local name=$1 py=$2 dir=$T/$1 core
	mkdir -p "$dir"
	cp "$SCRIPT" "$dir/crash.py"
	core=$(make_core "$dir" "$py" crash.py) || exit 1
	check_exit 0 "$name: analyze" -- "$PROVENANCE" analyze --format json "$core"
	cp "$T/last.out" "$dir/report.json"
	python3 "$CHECK" "$dir/report.json" "$dir/crash.py" crash || fail "$name: Python frames"
	python3 "$TOP/tests/e2e/check-json-contract.py" "$dir/report.json" || fail "$name: JSON contract"
	check_eq "$(json_get "$dir/report.json" 'd["python"]["version"]')" \
		"$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" "$name: version"
	check_eq "$(json_get "$dir/report.json" 'd["python"]["finalizing"]')" false "$name: finalizing"
	# text and Markdown show the Python frames too
	check_exit 0 "$name: text" -- "$PROVENANCE" analyze "$core"
	check_match "$(cat "$T/last.out")" "\[python\] +level2 at .*crash.py:$(grep -n MARK-level2 "$SCRIPT" | cut -d: -f1)" "$name: text frame"
	check_match "$(cat "$T/last.out")" "holds the GIL" "$name: GIL in text"
	# --no-python leaves them out
	check_exit 0 "$name: --no-python" -- "$PROVENANCE" analyze --no-python --format json "$core"
	check_eq "$(json_get "$T/last.out" 'sum(f["language"] == "python" for t in d["threads"] for f in t["frames"])')" 0 "$name: no Python frames"
	if [ "$name" = debian ]; then
		if [ -f /usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py ]; then
			timeout 300 gdb -batch -nx -ex 'set auto-load safe-path /' \
				-ex 'source /usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py' \
				-ex 'thread apply all py-bt' "$py" "$core" >"$dir/gdb.txt" 2>&1
			python3 "$CHECK" "$dir/report.json" "$dir/crash.py" crash "$dir/gdb.txt" ||
				fail "$name: Python frames against gdb py-bt"
		else
			note "no gdb py-bt comparison: python3.11-dbg is not installed (make deps installs it)"
		fi
	fi
}

# An exit-time crash: a __del__ run while the interpreter tears __main__ down
# (after the runtime was marked finalizing). Ground truth: the script's
# shape, and gdb's _PyRuntime._finalizing where python3.11-dbg gives symbols.
finalizing_one() {	# NAME INTERPRETER
	local name=$1 py=$2 dir=$T/$1-fin core want
	mkdir -p "$dir"
	cat >"$dir/fin.py" <<'PYSRC'
import ctypes


class Closer:
    def __del__(self, crash=ctypes.string_at):
        crash(0)  # MARK-del


keep = Closer()
PYSRC
	core=$(make_core "$dir" "$py" fin.py) || exit 1
	check_exit 0 "$name: analyze the exit-time crash" -- "$PROVENANCE" analyze --format json "$core"
	cp "$T/last.out" "$dir/report.json"
	check_eq "$(json_get "$dir/report.json" 'd["python"]["finalizing"]')" true "$name: finalizing"
	check_eq "$(json_get "$dir/report.json" '[[f["function"], f["line"]] for f in d["threads"][0]["frames"] if f["language"] == "python"][-1]')" \
		"[\"Closer.__del__\", $(grep -n MARK-del "$dir/fin.py" | cut -d: -f1)]" "$name: the __del__ frame"
	if [ "$name" = debian ] && [ -f /usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py ]; then
		want=$(timeout 120 gdb -nx -batch -ex 'p/x _PyRuntime._finalizing._value' "$py" "$core" 2>/dev/null | tail -1)
		check_match "$want" '= 0x[1-9a-f]' "$name: gdb says _PyRuntime._finalizing is set"
	fi
}

host=$(command -v python3) || skip "no python3"
host=$(readlink -f "$host")
run_one host "$host"
finalizing_one host "$host"
if [ -x /usr/bin/python3.11 ] && [ "$(readlink -f /usr/bin/python3.11)" != "$host" ]; then
	run_one debian /usr/bin/python3.11
	finalizing_one debian /usr/bin/python3.11
elif [ -x /usr/bin/python3.11 ]; then
	note "the host's python3 is Debian's python3.11: checked once"
	run_one debian /usr/bin/python3.11
	finalizing_one debian /usr/bin/python3.11
else
	note "no Debian python3.11 (make deps installs it): only the host's python3 checked"
fi
