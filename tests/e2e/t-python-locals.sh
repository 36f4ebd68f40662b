#!/bin/bash
# Arguments and locals of Python frames (--locals): real interpreters (the
# host's python3, Debian's python3.11, pyenv's 3.8-3.14 when installed)
# crash in ctypes.string_at(0) three calls under functions whose arguments
# and locals hold ints, floats, str, bytes, None, bools, containers, an
# instance and a cell. Ground truth: the script's own dump of its frames
# (type, repr, len, made by the crashing interpreter before the crash) and,
# for Debian's python3.11 with python3.11-dbg, gdb's py-locals.
# test: slow
. "$(dirname "$0")/lib.sh"
# a libdw leak on python3.11-dbg's DWARF (see the file) must not fail ASan runs
export LSAN_OPTIONS="suppressions=$TOP/tests/e2e/lsan-libdw.supp:print_suppressions=0:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
can_dump_core
SCRIPT=$TOP/fixtures/crashers/python-locals.py
CHECK=$TOP/tests/e2e/python-locals-check.py
GDBPY=/usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py

run_one() {	# NAME INTERPRETER
	local name=$1 py=$2 dir=$T/$1 core line
	mkdir -p "$dir"
	cp "$SCRIPT" "$dir/crash.py"
	core=$(make_core "$dir" "$py" crash.py truth.json) || exit 1
	[ -s "$dir/truth.json" ] || fail "$name: the script wrote no truth.json"
	check_exit 0 "$name: analyze" -- "$PROVENANCE" analyze --format json "$core"
	cp "$T/last.out" "$dir/report.json"
	python3 "$CHECK" "$dir/report.json" "$dir/truth.json" || fail "$name: locals against the script"
	python3 "$TOP/tests/e2e/check-json-contract.py" "$dir/report.json" || fail "$name: JSON contract"
	python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$dir/report.json" ||
		fail "$name: JSON schema"
	# only the crashing thread's frames carry them (as for native frames)
	check_eq "$(json_get "$dir/report.json" 'sum(f["args"] is not None for t in d["threads"] if not t["crashed"] for f in t["frames"])')" 0 "$name: other threads"
	# text: under each Python frame with --locals, not without
	line=$(grep -n MARK-middle "$SCRIPT" | cut -d: -f1)
	check_exit 0 "$name: text --locals" -- "$PROVENANCE" analyze --locals "$core"
	check_match "$(grep -E -A1 "\[python\] +middle at .*crash.py:$line" "$T/last.out")" \
		"arg n = 3  \(int\)" "$name: text shows middle's argument under its frame"
	check_match "$(cat "$T/last.out")" "local text = 'h.+llo w.+rld'  \(str\)" "$name: text shows a str local"
	check_exit 0 "$name: text" -- "$PROVENANCE" analyze "$core"
	case "$(cat "$T/last.out")" in *"arg n = 3"*) fail "$name: locals shown without --locals" ;; esac
	if [ "$name" = debian ]; then
		if [ -f "$GDBPY" ]; then
			timeout 300 gdb -batch -nx -ex 'set auto-load safe-path /' -ex "source $GDBPY" \
				-ex py-locals -ex py-up -ex py-locals -ex py-up -ex py-locals \
				-ex py-up -ex py-locals "$py" "$core" >"$dir/gdb.txt" 2>&1
			python3 "$CHECK" "$dir/report.json" "$dir/truth.json" "$dir/gdb.txt" ||
				fail "$name: locals against gdb py-locals"
		else
			note "no gdb py-locals comparison: python3.11-dbg is not installed (make deps installs it)"
		fi
		# Markdown (resolve) has the Evidence section with a Python frame
		"$PROVENANCE" resolve --offline --format markdown "$core" >"$dir/report.md" 2>"$dir/resolve.err"
		check_match "$(cat "$dir/report.md")" "Frame #[0-9]+ \`inner\`" "$name: Markdown evidence"
	fi
}

host=$(command -v python3) || skip "no python3"
host=$(readlink -f "$host")
ran=0
if "$host" -c 'import sys; sys.exit(sys.version_info < (3, 8))'; then
	run_one host "$host"
	ran=$((ran + 1))
fi
if [ -x /usr/bin/python3.11 ] && [ "$(readlink -f /usr/bin/python3.11)" != "$host" ]; then
	run_one debian /usr/bin/python3.11
	ran=$((ran + 1))
fi
# pyenv's interpreters other than the host's: 3.8-3.10 (frame objects), 3.12,
# 3.13 (debug offsets)
for py in "$HOME"/.pyenv/versions/3.*/bin/python3.[0-9] "$HOME"/.pyenv/versions/3.*/bin/python3.[0-9][0-9]; do
	[ -x "$py" ] || continue
	[ "$(readlink -f "$py")" != "$host" ] || continue
	"$py" -c 'import sys; sys.exit(not (3, 8) <= sys.version_info[:2] <= (3, 14))' || continue
	run_one "pyenv-$(basename "$(dirname "$(dirname "$py")")")" "$py"
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || skip "no Python 3.8 or later here"
note "$ran interpreters checked"
