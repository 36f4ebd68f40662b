#!/usr/bin/env bash
# An executable with no build ID (-Wl,--build-id=none, as some Debian
# packages ship) crashes; then another program is built at the same path.
# With no build ID to compare, the core's copy of the executable's first page
# is compared with the file: the replaced file is marked mismatched, with a
# note, and no function name comes from it. The unchanged file still names
# the frames. Ground truth: nm and gdb on the original executable.
. "$(dirname "$0")/lib.sh"
command -v gdb >/dev/null || skip "no gdb"
command -v nm >/dev/null || skip "no nm"
mkdir -p "$T/run"
cat >"$T/a.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int read_config(const char *path)
{
	volatile int *p = (int *)(long)(path[0] == '@');	/* NULL for this input */
	return *p;
}
int main(void) { return read_config("/etc/none.conf"); }
C
cat >"$T/b.c" <<'C'
#include <stdio.h>
static int table[64];
int other_work(int n) { int s = 0; for (int i = 0; i < n; i++) s += table[i % 64] + i; return s; }
int main(int argc, char **argv) { (void)argv; printf("%d\n", other_work(argc * 1000)); return 0; }
C
prog=$T/run/prog
${CC:-cc} -g -O0 -Wl,--build-id=none -o "$prog" "$T/a.c" || fail "cannot build prog"
readelf -n "$prog" 2>/dev/null | grep -q 'Build ID' && fail "fixture: prog has a build ID"
# the kernel's core where core_pattern allows, else gdb's gcore at the fault
if (can_dump_core) >/dev/null 2>&1; then
	core=$(make_core "$T/run" "$prog") || exit 1
	mv "$core" "$T/core"
else
	gdb -batch -nx -ex run -ex "gcore $T/core" "$prog" >/dev/null 2>&1
	[ -s "$T/core" ] || fail "gdb made no core"
fi
core=$T/core
cp "$prog" "$T/prog.orig"
# the truth from the original: gdb's frame 0 and nm's symbol
want=$(gdb -batch -nx -ex bt "$T/prog.orig" "$core" 2>/dev/null | grep -m1 '^#0' | grep -o 'read_config')
check_eq "$want" read_config "gdb on the original names frame 0"
nm "$T/prog.orig" | grep -q ' T read_config$' || fail "fixture: no read_config in nm"

# unchanged: frames are named from the file
check_exit 0 "analyze, the file unchanged" -- "$PROVENANCE" analyze "$core" --format json
check_eq "$(json_get "$T/last.out" '[f["function"] for f in d["threads"][0]["frames"]][:2]')" '["read_config", "main"]' \
	"unchanged file: frames named"
check_eq "$(json_get "$T/last.out" "[[m.get('file'), m.get('note')] for m in d['modules'] if m['path']=='$prog']")" "[[\"$prog\", null]]" \
	"unchanged file: used, no note"

# replaced by another program at the same path
${CC:-cc} -g -O0 -Wl,--build-id=none -o "$prog" "$T/b.c" || fail "cannot build the replacement"
cmp -s "$prog" "$T/prog.orig" && fail "fixture: the replacement is the same file"
"$PROVENANCE" analyze "$core" --format json >"$T/out.json" 2>"$T/err"
rc=$?
[ $rc -le 3 ] || { cat "$T/err"; fail "analyze of the replaced file exited $rc"; }
names=$(json_get "$T/out.json" "[f['function'] for t in d['threads'] for f in t['frames'] if f.get('module')=='$prog']")
newsyms=$(nm "$prog" | awk '$2 ~ /^[TtWw]$/ {print $3}')
for s in $newsyms; do
	case "$names" in *"\"$s\""*) fail "a frame is named '$s' from the replacement file: $names" ;; esac
done
echo "ok: no frame named from the replacement ($names)"
check_eq "$(json_get "$T/out.json" "[m.get('build_id_match') for m in d['modules'] if m['path']=='$prog']")" '[false]' \
	"replaced file: build_id_match false"
check_eq "$(json_get "$T/out.json" "[m.get('file') for m in d['modules'] if m['path']=='$prog']")" '[null]' \
	"replaced file: not used"
check_match "$(json_get "$T/out.json" "[m.get('note') for m in d['modules'] if m['path']=='$prog'][0]")" \
	"contents mismatch: .*prog differs from the core's copy of its first page" "the note says why"
"$PROVENANCE" analyze "$core" >"$T/out.txt" 2>&1
grep -q "contents mismatch" "$T/out.txt" || fail "the text report does not say the file was replaced: $(cat "$T/out.txt")"
echo "ok: the text report says so"
