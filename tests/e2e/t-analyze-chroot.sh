#!/usr/bin/env bash
# --sysroot: a program, its library, libc and the loader copied into a root
# and crashed there with chroot. With --sysroot the library's frames have
# function, file and line and its module file lies under the root; without
# it (the library's path does not exist on this host) the library is missing.
# A sysroot whose library has another build ID is refused with a note.
. "$(dirname "$0")/lib.sh"
can_dump_core
[ "$(id -u)" = 0 ] || skip "chroot needs root"
command -v chroot >/dev/null || skip "chroot not installed"
F=$TOP/fixtures/crashers
LIBDIR=/provenance-test-lib
BINDIR=/provenance-test-bin
[ -e "$LIBDIR" ] || [ -e "$BINDIR" ] && skip "$LIBDIR or $BINDIR exists on this host"

R=$T/root
mkdir -p "$R$LIBDIR" "$R$BINDIR"
${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -o "$R$LIBDIR/libnull.so" "$F/libnull.c" || fail "cannot build libnull.so"
${CC:-cc} $CFLAGS_FIXTURE -o "$R$BINDIR/prog" "$F/nullmain.c" -L"$R$LIBDIR" -lnull \
	-Wl,-rpath,"$LIBDIR" -Wl,--no-as-needed || fail "cannot build prog"
# libc and the loader, at the paths the program will ask for
copied=$(ldd "$R$BINDIR/prog" | grep -Eo '/[^ ]+' | grep -v "$LIBDIR")
for lib in $copied; do
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
chroot "$R" /bin/true 2>/dev/null
( chroot "$R" "$BINDIR/prog" ) >/dev/null 2>&1
[ $? -ge 128 ] || skip "cannot run programs under chroot here"
core=$(make_core "$R" chroot "$R" "$BINDIR/prog") || exit 1
mv "$core" "$T/core"; core=$T/core
lib_rx='("lib_read_value", "/provenance-test-lib/libnull.so")'

check_exit 0 "analyze --sysroot" -- "$PROVENANCE" analyze "$core" --sysroot "$R" --format json
cp "$T/last.out" "$T/with.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/with.json" --kind core || fail "JSON contract"
check_eq "$(json_get "$T/with.json" '[d["threads"][0]["frames"][0][k] for k in ("function", "module")]')" \
	"[\"lib_read_value\", \"$LIBDIR/libnull.so\"]" "with sysroot: frame 0 function and module"
line=$(grep -n 'CRASH HERE' "$F/libnull.c" | cut -d: -f1)
check_eq "$(json_get "$T/with.json" 'd["threads"][0]["frames"][0]["line"]')" "$line" "with sysroot: frame 0 line"
check_match "$(json_get "$T/with.json" 'd["threads"][0]["frames"][0]["file"]')" 'libnull\.c$' "with sysroot: frame 0 file"
check_eq "$(json_get "$T/with.json" '[m["file"] for m in d["modules"] if m["path"] == "'$LIBDIR'/libnull.so"]')" \
	"[\"$R$LIBDIR/libnull.so\"]" "with sysroot: library file under the root"
check_eq "$(json_get "$T/with.json" '[m["file"] for m in d["modules"] if m["path"] == "'$BINDIR'/prog"]')" \
	"[\"$R$BINDIR/prog\"]" "with sysroot: executable file under the root"
check_eq "$(json_get "$T/with.json" '[f["function"] for f in d["threads"][0]["frames"]][:6]')" \
	'["lib_read_value", "lib_entry", "lib_entry", "lib_entry", "call_library", "main"]' "with sysroot: whole stack"
# build IDs as the core records them (eu-unstrip reads them from the core's memory)
python3 "$TOP/tests/e2e/analyze-check.py" modules "$T/with.json" "$core" || fail "modules differ from eu-unstrip"
# every file used lies under the root, libc and the loader included (they
# also exist on the host under the same paths)
check_eq "$(json_get "$T/with.json" '[m["path"] for m in d["modules"] if m["file"] and not m["file"].startswith("'$R'/")]')" \
	'[]' "with sysroot: no file outside the root"
check_eq "$(json_get "$T/with.json" 'sorted(m["path"] for m in d["modules"] if m["file"])')" \
	"$(python3 -c 'import json,sys; print(json.dumps(sorted(sys.argv[1:])))' $copied $LIBDIR/libnull.so $BINDIR/prog)" \
	"with sysroot: program, library, libc and loader found"

check_exit 0 "analyze without sysroot" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/without.json"
check_eq "$(json_get "$T/without.json" '[m["file"] for m in d["modules"] if m["path"] == "'$LIBDIR'/libnull.so"]')" \
	'[null]' "without sysroot: library file missing"
check_eq "$(json_get "$T/without.json" '[d["threads"][0]["frames"][0][k] for k in ("function", "file", "line")]')" \
	'[null, null, null]' "without sysroot: frame 0 has no function, file or line"

# another build of the library under a second root: refused, with a note
R2=$T/root2
cp -a "$R" "$R2"
${CC:-cc} $CFLAGS_FIXTURE -DOTHER_BUILD=1 -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 \
	-fPIC -shared -o "$R2$LIBDIR/libnull.so" "$F/libnull.c" || fail "cannot rebuild libnull.so"
check_exit 0 "analyze --sysroot (wrong build)" -- "$PROVENANCE" analyze "$core" --sysroot "$R2" --format json
cp "$T/last.out" "$T/other.json"
note=$(json_get "$T/other.json" '[m.get("note") for m in d["modules"] if m["path"] == "'$LIBDIR'/libnull.so"][0]')
check_match "$note" "build-id mismatch: $R2$LIBDIR/libnull.so has 0123456789abcdef0123456789abcdef01234567, core has [0-9a-f]+" "mismatch note"
check_eq "$(json_get "$T/other.json" '[m["file"] for m in d["modules"] if m["path"] == "'$LIBDIR'/libnull.so"]')" \
	'[null]' "wrong build: library not used"
check_eq "$(json_get "$T/other.json" 'd["threads"][0]["frames"][0]["line"]')" null "wrong build: no line from it"
