#!/usr/bin/env bash
# The dynamic linker's list cross-checks the file note (NT_FILE): a library
# the list names but the note lacks is added (a warning, a module note), a
# disagreement is said; a relative name from the list ("./libnull.so") is
# looked up under --sysroot, never in the current directory. The cores are
# copies of one kernel core with libnull.so's NT_FILE entries removed or
# changed (tests/e2e/ntfile-edit.py); truth from eu-unstrip and gdb on the
# original core.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb eu-unstrip eu-readelf python3; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers
CHK="python3 $TOP/tests/e2e/analyze-check.py"
EDIT="python3 $TOP/tests/e2e/ntfile-edit.py"
[ "$(uname -m)" = x86_64 ] || skip "ntfile-edit.py reads 64-bit little-endian cores"

${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -Wl,-soname,libnull.so -o "$T/libnull.so" "$F/libnull.c" ||
	fail "cannot build libnull.so"
build_fixture "$F/nullmain.c" "$T/nullmain" -L"$T" -lnull -Wl,-rpath,"$T"
core=$(make_core "$T" ./nullmain) || exit 1
mv "$core" "$T/orig.core"
want=$(eu-unstrip -n --core="$T/orig.core" | awk '$NF ~ /libnull.so$/ { split($1, a, "+"); split($2, b, "@"); print a[1], b[1] }')
[ -n "$want" ] || fail "eu-unstrip does not list libnull.so"
lib() { json_get "$1" '" ".join("%s %s" % (m["start"], m["build_id"]) for m in d["modules"] if m["path"].endswith("libnull.so"))'; }

# the note lacks the library: the link map adds it
$EDIT "$T/orig.core" "$T/drop.core" drop libnull.so || fail "cannot rewrite the core"
eu-readelf -n "$T/drop.core" | grep -q libnull && fail "the copy still maps libnull.so"
check_exit 0 "analyze (NT_FILE lacks libnull.so)" -- "$PROVENANCE" analyze "$T/drop.core" --format json
cp "$T/last.out" "$T/d.json"
check_eq "$(lib "$T/d.json")" "$want" "libnull.so added at eu-unstrip's start, with its build ID"
grep -q "the file note (NT_FILE) lacks '$T/libnull.so'.*dynamic linker's list names" "$T/last.err" ||
	fail "no warning that NT_FILE lacks libnull.so: $(cat "$T/last.err")"
echo "ok: warned that NT_FILE lacks it"
check_match "$(json_get "$T/d.json" '[m["note"] for m in d["modules"] if m["path"].endswith("libnull.so")][0]')" \
	"dynamic linker's list.*lacks" "the module's note"
check_eq "$(json_get "$T/d.json" 'd["threads"][0]["frames"][0]["function"]')" lib_read_value "frame 0 function"
$CHK gdb "$T/d.json" "$T/nullmain" "$T/orig.core" "$F" || fail "frames differ from gdb on the original core"
$CHK modules "$T/d.json" "$T/orig.core" || fail "modules differ from eu-unstrip on the original core"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/d.json" || fail "schema"

# the note maps the library's first page at another offset: said
$EDIT "$T/orig.core" "$T/off.core" pgoff libnull.so 0x1000 || fail "cannot rewrite the core"
check_exit 0 "analyze (NT_FILE disagrees)" -- "$PROVENANCE" analyze "$T/off.core" --format json
cp "$T/last.out" "$T/o.json"
grep -q "the dynamic linker's list places '$T/libnull.so' at .*NT_FILE) maps '$T/libnull.so' at offset 0x1000" \
	"$T/last.err" || fail "no warning of the disagreement: $(cat "$T/last.err")"
echo "ok: warned of the disagreement"
check_eq "$(lib "$T/o.json")" "$want" "libnull.so where the dynamic linker has it"
check_match "$(json_get "$T/o.json" '[m["note"] for m in d["modules"] if m["path"].endswith("libnull.so")][0]')" \
	"places it at .* offset 0x1000" "the module's note"

# a relative name in the link map: under --sysroot, never the current directory
mkdir -p "$T/rel" "$T/root"
${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -o "$T/rel/libnull.so" "$F/libnull.c" || fail "cannot build libnull.so"
( cd "$T/rel" && ${CC:-cc} $CFLAGS_FIXTURE -o nullrel "$F/nullmain.c" ./libnull.so ) || fail "cannot build nullrel"
eu-readelf -d "$T/rel/nullrel" | grep -q 'NEEDED.*\[\./libnull\.so\]' || skip "the linker did not record ./libnull.so"
core=$(make_core "$T/rel" ./nullrel) || exit 1
$EDIT "$core" "$T/rel.core" drop libnull.so || fail "cannot rewrite the core"
cp "$T/rel/libnull.so" "$T/root/libnull.so"
# the current directory holds the very file: it is not used
( cd "$T/rel" && "$PROVENANCE" analyze --exe nullrel "$T/rel.core" --format json ) >"$T/r1.json" 2>"$T/r1.err"
check_eq "$(json_get "$T/r1.json" '[m["path"] for m in d["modules"] if m["path"].endswith("libnull.so")]')" \
	'["./libnull.so"]' "the link map's relative name"
check_eq "$(json_get "$T/r1.json" '[m["file"] for m in d["modules"] if m["path"].endswith("libnull.so")]')" \
	'[null]' "no file from the current directory"
( cd "$T/rel" && "$PROVENANCE" analyze --sysroot "$T/root" --exe nullrel "$T/rel.core" --format json ) \
	>"$T/r2.json" 2>"$T/r2.err"
check_eq "$(json_get "$T/r2.json" '[m["file"] for m in d["modules"] if m["path"].endswith("libnull.so")]')" \
	"[\"$T/root/libnull.so\"]" "the file under --sysroot"
check_eq "$(json_get "$T/r2.json" 'd["threads"][0]["frames"][0]["function"]')" lib_read_value "frame 0 function"
