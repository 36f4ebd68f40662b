#!/usr/bin/env bash
# --exe: the executable moved away after the crash. Without --exe the main
# module has no file (and the frames in it no lines); with --exe PATH they
# come back. An --exe of another build is refused with a build-id note.
. "$(dirname "$0")/lib.sh"
can_dump_core
F=$TOP/fixtures/crashers

mkdir -p "$T/run" "$T/elsewhere"
build_fixture "$F/abort.c" "$T/run/abort"
core=$(make_core "$T/run" ./abort) || exit 1
mv "$T/run/abort" "$T/elsewhere/renamed"
line=$(grep -n 'CRASH HERE' "$F/abort.c" | cut -d: -f1)
q='[(f["function"], f["line"]) for f in d["threads"][0]["frames"] if f["module"] == "'$T'/run/abort"][:2]'

check_exit 0 "analyze without --exe" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/without.json"
check_eq "$(json_get "$T/without.json" '[m["file"] for m in d["modules"] if m["path"] == "'$T'/run/abort"]')" \
	'[null]' "without --exe: executable missing"
check_eq "$(json_get "$T/without.json" "len($q) > 0 and not any(l for _, l in $q)")" true \
	"without --exe: frames in the executable, none with a line"

check_exit 0 "analyze --exe" -- "$PROVENANCE" analyze --exe "$T/elsewhere/renamed" "$core" --format json
cp "$T/last.out" "$T/with.json"
check_eq "$(json_get "$T/with.json" '[m["file"] for m in d["modules"] if m["path"] == "'$T'/run/abort"]')" \
	"[\"$T/elsewhere/renamed\"]" "with --exe: the named file is used"
check_eq "$(json_get "$T/with.json" "$q")" "[[\"give_up\", $line], [\"main\", $((line + 5))]]" \
	"with --exe: give_up at the CRASH HERE line, then main"
check_eq "$(json_get "$T/with.json" 'd["process"]["executable"]')" "$T/run/abort" "executable as the core recorded it"

${CC:-cc} $CFLAGS_FIXTURE -DOTHER -Wl,--build-id=0xfeedfacefeedfacefeedfacefeedfacefeedface -o "$T/other" "$F/abort.c" || fail "cannot build"
check_exit 0 "analyze --exe (another build)" -- "$PROVENANCE" analyze --exe "$T/other" "$core" --format json
check_match "$(json_get "$T/last.out" '[m["note"] for m in d["modules"] if m["path"] == "'$T'/run/abort"][0]')" \
	"build-id mismatch: $T/other has feedfacefeedfacefeedfacefeedfacefeedface" "another build refused"
