#!/usr/bin/env bash
# show --format text|markdown (issue 36 "every report back"): a report stored
# from `resolve --format json` comes back, rebuilt from the JSON, exactly as
# `resolve --format text` / `--format markdown` printed it (cmp), for a text
# backtrace (gdb's bt of the fixture) and for a core of it (gdb's
# generate-core-file at the SIGSEGV: no core_pattern needed). The truth beside
# resolve's own output: the crashing function and line that gdb printed are in
# the rebuilt Markdown. A stored report the loader cannot rebuild (a hang
# analysis it drops) is refused: one line, exit 3.
. "$(dirname "$0")/lib.sh"

command -v gdb >/dev/null || skip "no gdb"
mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -g -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" -g "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
(cd "$T/bin" && gdb -nx -batch -ex run -ex bt -ex "generate-core-file $T/core.nullmain" ./nullmain) >"$T/bt.txt" 2>&1
grep -q 'SIGSEGV' "$T/bt.txt" || { cat "$T/bt.txt"; fail "gdb did not see the NULL read"; }
[ -s "$T/core.nullmain" ] || fail "gdb wrote no core"
gdb_line=$(grep -m1 -Eo 'lib_read_value \(.*libnull\.c:[0-9]+' "$T/bt.txt" | grep -Eo 'libnull\.c:[0-9]+$')
[ -n "$gdb_line" ] || { cat "$T/bt.txt"; fail "gdb's bt has no lib_read_value at libnull.c:N"; }
S="$T/store.sqlite"

id=0
for input in "$T/bt.txt" "$T/core.nullmain"; do
	name=$(basename "$input")
	for f in json text markdown; do
		"$PROVENANCE" resolve --offline --format "$f" "$input" >"$T/$name.$f" 2>"$T/$name.$f.err"
		[ $? -le 1 ] || { cat "$T/$name.$f.err"; fail "resolve --format $f $name"; }
	done
	check_exit 0 "import $name" -- "$PROVENANCE" import --store "$S" "$T/$name.json"
	id=$((id + 1))
	for f in text markdown; do
		check_exit 0 "show $id --format $f ($name)" -- "$PROVENANCE" show "$id" --store "$S" --format "$f"
		cmp "$T/$name.$f" "$T/last.out" || { diff "$T/$name.$f" "$T/last.out" | head -20; fail "$name: show --format $f differs from resolve --format $f"; }
		echo "ok: $name: show --format $f = resolve --format $f, byte for byte"
	done
	grep -q "lib_read_value" "$T/last.out" || fail "$name: the Markdown has no lib_read_value (gdb's crashing function)"
	grep -qF "$gdb_line" "$T/last.out" || fail "$name: the Markdown has no $gdb_line (gdb's line)"
	echo "ok: $name: the rebuilt Markdown names gdb's frame lib_read_value at $gdb_line"
done
grep -q '"fault_operand": "' "$T/core.nullmain.json" || fail "the core's JSON has no crash.fault_operand"

# a report with a part the loader does not rebuild: refused, not shown with it missing
python3 - "$T/core.nullmain.json" "$T/hang.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r['hang'] = {'groups': [], 'waits': [], 'deadlocks': []}
json.dump(r, open(sys.argv[2], 'w'), indent=2)
PY
check_exit 0 "import a report with a hang analysis" -- "$PROVENANCE" import --store "$S" "$T/hang.json"
id=$((id + 1))
check_exit 3 "show --format markdown of a report it cannot rebuild" -- "$PROVENANCE" show "$id" --store "$S" --format markdown
check_eq "$(wc -l <"$T/last.err")" 1 "one line"
check_eq "$(wc -c <"$T/last.out")" 0 "nothing on stdout"
check_exit 0 "show --format json of it still prints the stored bytes" -- "$PROVENANCE" show "$id" --store "$S" --format json
check_exit 64 "show --format yaml" -- "$PROVENANCE" show 1 --store "$S" --format yaml
