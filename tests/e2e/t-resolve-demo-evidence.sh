#!/usr/bin/env bash
# The demo's report (fixtures/demo): the stripped libgreet-print frame shows
# its function's source, located by name (checked against the fixture's
# source at the deployed tag), and the crashing frame's arguments show
# g = 0x0 (checked against gdb's info args).
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v chroot >/dev/null || skip "no chroot"
for c in gdb readelf python3; do command -v $c >/dev/null || skip "$c not installed"; done
[ "$(id -u)" = 0 ] || unshare -r true 2>/dev/null || skip "needs root or user namespaces for chroot"

"$TOP/fixtures/demo/build-scenario.sh" "$T/s" >"$T/build.log" 2>&1 || {
	rc=$?; cat "$T/build.log"; [ $rc = 77 ] && skip "scenario left no core"; fail "scenario build failed"; }
. "$T/s/facts"
root=$T/s/root
core=$root/core
up=$T/s/upstream
lib=$root/usr/lib/x86_64-linux-gnu/libgreet-print.so.1
readelf -S "$lib" | grep -Eq '\.symtab|\.debug_info' && fail "libgreet-print is not stripped"
run() {
	"$PROVENANCE" resolve "$core" --sysroot "$root" --mapping "$TOP/fixtures/demo/greet.map" \
		-c "url.file://$up.insteadOf=https://example.invalid/libgreet.git" --offline "$@"
}
# --offline with no mirror yet: fetch it once first
"$PROVENANCE" resolve "$core" --sysroot "$root" --mapping "$TOP/fixtures/demo/greet.map" \
	-c "url.file://$up.insteadOf=https://example.invalid/libgreet.git" --format json >"$T/r.json" 2>"$T/r.err"
[ $? -le 1 ] || { cat "$T/r.err"; fail "resolve failed"; }

# --- the stripped frame: greet_print, its definition by name ---------------------
fr='[t for t in d["threads"] if t["crashed"]][0]["frames"]'
idx=$(json_get "$T/r.json" "[f['index'] for f in $fr if f['function'] == '$stripped_function'][0]")
check_eq "$(json_get "$T/r.json" "[f['line'] for f in $fr if f['index'] == $idx][0]")" null "$stripped_function has no line"
check_eq "$(json_get "$T/r.json" "[f['located_by'] for f in $fr if f['index'] == $idx][0]")" name "$stripped_function located by name"
check_eq "$(json_get "$T/r.json" "[(s['path'], s['line']) for s in d['sources'] if s['frame'] == $idx]")" \
	"[[\"$stripped_file\", $stripped_line]]" "its definition (grep of the fixture source)"
want=$(git -C "$up" show "$deployed_tag:$stripped_file" | sed -n "${stripped_line},$((stripped_line + 3))p")
got=$(json_get "$T/r.json" "'\n'.join(l['text'] for s in d['sources'] if s['frame'] == $idx for l in s['lines'] if $stripped_line <= l['number'] <= $stripped_line + 3)")
check_eq "$got" "$want" "its first lines (git show $deployed_tag:$stripped_file)"

# --- the crashing frame's arguments vs gdb -------------------------------------------
check_eq "$(json_get "$T/r.json" "[v['value'] for v in $fr[0]['args'] if v['name'] == 'g'][0]")" 0x0 "frame 0 argument g"
gdb -nx -batch -ex "set sysroot $root" -ex "set debuginfod enabled off" -ex "info args" \
	"$root/usr/bin/greet-app" "$core" 2>/dev/null | grep -qx 'g = 0x0' || fail "gdb does not show g = 0x0"
echo "ok: gdb's info args shows g = 0x0 too"
python3 "$TOP/tests/e2e/locals-check.py" "$T/r.json" "$root/usr/bin/greet-app" "$core" --sysroot "$root" --min 4 ||
	fail "arguments and locals differ from gdb"

# --- the demo's Markdown report shows both --------------------------------------------
run --format markdown >"$T/r.md" 2>/dev/null
grep -q '^- arg `g` (`const struct greeter \*`) = `0x0`\( — \*\*the faulting pointer\*\*.*\)\{0,1\}$' "$T/r.md" || fail "markdown Evidence lacks g = 0x0"
echo "ok: markdown Evidence shows g = 0x0"
grep -q "no line information: \`$stripped_function\` located by name (a guess)" "$T/r.md" ||
	fail "markdown lacks the by-name source of $stripped_function"
grep -qF "$(git -C "$up" show "$deployed_tag:$stripped_file" | sed -n "${stripped_line}p")" "$T/r.md" ||
	fail "markdown lacks the definition's line"
echo "ok: markdown shows $stripped_function's source, marked as a guess"

# --- the demo's handled crash (greet-handled, an LLVM-style re-raising handler):
#     the crash site is libgreet's frame below <signal handler called>, as gdb says
hcore=$root/core-handled
[ -f "$hcore" ] || fail "the scenario left no core-handled"
"$PROVENANCE" resolve "$hcore" --sysroot "$root" --mapping "$TOP/fixtures/demo/greet.map" \
	-c "url.file://$up.insteadOf=https://example.invalid/libgreet.git" --offline --format json \
	>"$T/h.json" 2>"$T/h.err"
[ $? -le 1 ] || { cat "$T/h.err"; fail "resolve core-handled failed"; }
python3 "$TOP/tests/e2e/sighandler-check.py" "$T/h.json" "$root/usr/bin/greet-handled" "$hcore" g \
	--sysroot "$root" || fail "greet-handled: the crash site differs from gdb"
check_eq "$(json_get "$T/h.json" '[f["repo_path"] for f in [t for t in d["threads"] if t["crashed"]][0]["frames"] if f["index"] == [t for t in d["threads"] if t["crashed"]][0]["crash_frame"]][0]')" \
	"$crash_file" "greet-handled: the crash site is in libgreet's $crash_file"
exit 0
