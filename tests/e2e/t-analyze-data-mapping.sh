#!/usr/bin/env bash
# Old linkers' layout (-z noseparate-code): an object's data segment maps
# file offset 0 as its text does. Each module is listed once, at its first
# (text) mapping, with a default core (both mappings hold the ELF header)
# and with a core whose coredump_filter leaves the ELF header pages out
# (only the data mapping has it: the module was placed there, its frames
# were ??, the executable missing even with --exe). Truth: eu-unstrip -n
# and gdb on the same cores.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb eu-unstrip eu-readelf python3; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers
CHK="python3 $TOP/tests/e2e/analyze-check.py"

${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -Wl,-z,noseparate-code -Wl,-soname,libnull.so \
	-o "$T/libnull.so" "$F/libnull.c" || fail "cannot build libnull.so"
build_fixture "$F/nullmain.c" "$T/nullmain" -Wl,-z,noseparate-code -L"$T" -lnull -Wl,-rpath,"$T"
for f in libnull.so nullmain; do
	off=$(eu-readelf -l "$T/$f" | awk '$1 == "LOAD" { n++; if (n == 2) print $2 }')
	[ -n "$off" ] && [ $((off)) -lt 4096 ] ||
		skip "the linker does not map $f's data segment at file offset 0 (-z noseparate-code)"
done
note "the data segments of libnull.so and nullmain map file offset 0"

# modules once: no path twice, no overlapping ranges
once() {
	json_get "$1" '(lambda r: [m["path"] for m in d["modules"] if [x["path"] for x in d["modules"]].count(m["path"]) > 1] + [b[2] for a, b in zip(r, r[1:]) if b[0] < a[1]])(sorted((int(m["start"], 16), int(m["end"], 16), m["path"]) for m in d["modules"]))'
}

# a default core: both mappings of each object start with its ELF header
core=$(make_core "$T" ./nullmain) || exit 1
check_exit 0 "analyze (default core)" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/a.json"
check_eq "$(once "$T/a.json")" "[]" "each module once"
$CHK modules "$T/a.json" "$core" || fail "modules differ from eu-unstrip"
$CHK gdb "$T/a.json" "$T/nullmain" "$core" "$F" || fail "frames differ from gdb"
mv "$core" "$T/a.core"

# no ELF header pages in the core (bit 4 of coredump_filter clear): the
# text mappings are not dumped, the written data mappings are
core=$(make_core "$T" sh -c 'echo 0x3 >/proc/self/coredump_filter && exec ./nullmain') || exit 1
lib_first=$(eu-readelf -n "$core" | awk -v f="$T/libnull.so" '$NF == f { print "0x" substr($1, 1, index($1, "-") - 1); exit }')
[ -n "$lib_first" ] || fail "the core maps no libnull.so"
filesz=$(eu-readelf -l "$core" | python3 -c 'import sys
for l in sys.stdin:
    f = l.split()
    if f[:1] == ["LOAD"] and int(f[2], 16) == int(sys.argv[1], 16):
        print(int(f[4], 16))' "$lib_first")
[ "$filesz" = 0 ] || skip "the kernel dumped libnull.so's text mapping despite coredump_filter 0x3"
note "libnull.so's first mapping ($lib_first) is not in the core"
check_exit 0 "analyze --exe (no ELF header pages)" -- "$PROVENANCE" analyze --exe "$T/nullmain" "$core" --format json
cp "$T/last.out" "$T/b.json"
check_eq "$(once "$T/b.json")" "[]" "each module once"
unstrip=$(eu-unstrip -n --core="$core" -e "$T/nullmain")
want=$(echo "$unstrip" | awk '$NF == "libnull.so" { split($1, a, "+"); split($2, b, "@"); print a[1], b[1] }')
[ -n "$want" ] || fail "eu-unstrip does not list libnull.so"
check_eq "$(json_get "$T/b.json" '" ".join("%s %s" % (m["start"], m["build_id"]) for m in d["modules"] if m["path"].endswith("/libnull.so"))')" \
	"$want" "libnull.so at its first mapping, with its build ID (eu-unstrip -n)"
want=$(echo "$unstrip" | awk '$NF == "nullmain" { split($1, a, "+"); print a[1] }')
check_eq "$(json_get "$T/b.json" '" ".join(m["start"] for m in d["modules"] if m["path"].endswith("/nullmain"))')" \
	"$want" "the executable at its first mapping (eu-unstrip -n -e)"
check_eq "$(json_get "$T/b.json" 'd["threads"][0]["frames"][0]["function"]')" lib_read_value "frame 0 function"
$CHK gdb "$T/b.json" "$T/nullmain" "$core" "$F" || fail "frames differ from gdb"
check_eq "$(json_get "$T/b.json" '[p for p in d["crash"]["patterns"] if "outside every" in json.dumps(p)]')" '[]' \
	"no bad-call from a misplaced module"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/b.json" || fail "schema"
