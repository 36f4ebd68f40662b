#!/usr/bin/env bash
# provenance resolve on a valgrind memcheck report made here: a crasher with
# a use-after-free (one error stack, its "free'd" and "alloc'd" stacks) and
# a NULL read (the process dies of SIGSEGV under valgrind). Expected
# functions and lines come from the crasher's marked source lines.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
command -v valgrind >/dev/null || skip "valgrind is not installed"

# the crasher whose valgrind report is fixtures/text/valgrind/uaf-segv.txt
cp "$TOP/fixtures/text/valgrind/uaf-segv.c" "$T/uaf.c"
build_fixture "$T/uaf.c" "$T/uaf"
line() { grep -n "/\* $1 \*/" "$T/uaf.c" | cut -d: -f1; }

(cd "$T" && valgrind ./uaf x) >/dev/null 2>"$T/vg.txt"
grep -q 'Invalid read of size 4' "$T/vg.txt" || fail "valgrind reported no invalid read: $(head -20 "$T/vg.txt")"
"$PROVENANCE" resolve "$T/vg.txt" --format json --offline >"$T/vg.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve exited $rc"; }

th='[t for t in d["threads"]'
check_eq "$(json_get "$T/vg.json" 'd["input"]["format"]')" valgrind "format"
check_eq "$(json_get "$T/vg.json" 'd["signal"]["name"]')" SIGSEGV "signal from 'Process terminating'"
# the first error's stack crashed: use <- main
check_eq "$(json_get "$T/vg.json" "$th if t['crashed']][0]['frames'][0]['function']")" use "crashed frame 0"
check_eq "$(json_get "$T/vg.json" "$th if t['crashed']][0]['frames'][0]['line']")" "$(line USE)" "crashed frame 0 line"
check_eq "$(json_get "$T/vg.json" "$th if t['crashed']][0]['frames'][1]['function']")" main "crashed frame 1"
check_eq "$(json_get "$T/vg.json" "$th if t['crashed']][0]['frames'][1]['line']")" "$(line MAIN_USE)" "crashed frame 1 line"
check_eq "$(json_get "$T/vg.json" "$th if t['crashed']][0]['frames'][0]['index']")" 0 "index from 0"
# the block's free and allocation stacks are threads of their own
check_eq "$(json_get "$T/vg.json" "[f['line'] for t in d['threads'] if 'free' in (t.get('name') or '') for f in t['frames'] if f['function'] == 'main'][0]")" "$(line MAIN_FREE)" "free'd stack: main's line"
check_eq "$(json_get "$T/vg.json" "[f['line'] for t in d['threads'] if 'alloc' in (t.get('name') or '') for f in t['frames'] if f['function'] == 'make'][0]")" "$(line ALLOC)" "alloc'd stack: make's line"
check_eq "$(json_get "$T/vg.json" "[f['line'] for t in d['threads'] if 'alloc' in (t.get('name') or '') for f in t['frames'] if f['function'] == 'main'][0]")" "$(line MAIN_ALLOC)" "alloc'd stack: main's line"
# the NULL read's stack: null_read <- main
check_eq "$(json_get "$T/vg.json" "[t['frames'][1]['line'] for t in d['threads'] if t['frames'][0]['function'] == 'null_read'][0]")" "$(line MAIN_NULL)" "SIGSEGV stack: main's line"
# valgrind's own module for malloc/free
check_match "$(json_get "$T/vg.json" "[f.get('module') for t in d['threads'] for f in t['frames'] if f['function'] == 'malloc'][0]")" 'vgpreload_memcheck' "malloc's module"
echo "ok: valgrind report read"
