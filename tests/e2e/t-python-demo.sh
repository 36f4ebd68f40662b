#!/bin/bash
# make demo's Python part: the report of the Python client's crash shows its
# Python call chain (lines from the client's MARK- comments) beside the
# native frames of libgreet (the crash line build-scenario.sh recorded).
. "$(dirname "$0")/lib.sh"
# a libdw leak on python3.11-dbg's DWARF (see the file) must not fail ASan runs
export LSAN_OPTIONS="suppressions=$TOP/tests/e2e/lsan-libdw.supp:print_suppressions=0:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
can_dump_core
command -v python3 >/dev/null || skip "no python3"
DEMO_OUT=$T/demo "$TOP/fixtures/demo/run-demo.sh" >"$T/demo.md" 2>"$T/demo.err"
rc=$?
[ $rc = 77 ] && skip "the demo scenario left no core"
[ $rc = 0 ] || { tail -5 "$T/demo.err"; fail "run-demo.sh exit $rc"; }
. "$T/demo/facts"
src=$TOP/fixtures/demo/python/greet_client.py
# the second report is the Python one
sed -n '/^## Coredump Analysis: `.*provenance-demo-python/,$p' "$T/demo.md" >"$T/py.md"
[ -s "$T/py.md" ] || fail "no report of the Python crash"
for m in render:Client.render greet:Client.greet main:main; do
	line=$(grep -n "MARK-${m%%:*}" "$src" | cut -d: -f1)
	check_match "$(cat "$T/py.md")" "\| #[0-9]+ \(Python\) \| \`${m#*:}\` \| greet_client.py — [^|]*greet_client.py:$line \|" "Python frame ${m#*:}"
done
check_match "$(cat "$T/py.md")" "\| #[0-9]+ \| \`greet_format\` \| libgreet.so.1 — src/greet.c:[0-9]+ \| libgreet \|" "native libgreet frame"
check_match "$(cat "$T/py.md")" "src/greet.c:$crash_line\` in libgreet" "crash line source from the tag"
