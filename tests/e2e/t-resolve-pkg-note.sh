#!/usr/bin/env bash
# systemd's package note (.note.package, owner FDO, type 0xcafe1a7e): read
# from the library's file when it is there, and from the core's memory when
# it is not (as systemd-coredump does). Ground truth: readelf -n.
. "$(dirname "$0")/lib.sh"
can_dump_core
cd "$T"
cat >lib.c <<'C'
int lib_read(const int *p) { return *p; }
C
cat >main.c <<'C'
int lib_read(const int *p);
int main(void) { return lib_read((const int *)0); }
C
meta='{"type":"deb","os":"debian","name":"libnote1","version":"4.5-6","architecture":"amd64"}'
${CC:-cc} -g -shared -fPIC -o libnote.so lib.c -Xlinker "--package-metadata=$meta" 2>"$T/ld.err" ||
	skip "the linker cannot write package notes (--package-metadata needs binutils 2.39): $(head -1 "$T/ld.err")"
build_fixture main.c "$T/main" "$T/libnote.so" -Wl,-rpath,"$T"
core=$(make_core "$T" ./main)

json=$(readelf -n libnote.so | sed -n 's/^ *Packaging Metadata: //p')
[ -n "$json" ] || fail "readelf shows no package note in libnote.so"
want_name=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["name"])' "$json")
want_ver=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["version"])' "$json")
m='[m for m in d["modules"] if m["path"].endswith("/libnote.so")][0]["package"]'

"$PROVENANCE" resolve "$core" --offline --format json >"$T/file.json" 2>/dev/null
check_eq "$(json_get "$T/file.json" "$m[\"kind\"]")" elf-note "from the file: kind"
check_eq "$(json_get "$T/file.json" "$m[\"name\"]")" "$want_name" "from the file: name (readelf -n)"
check_eq "$(json_get "$T/file.json" "$m[\"evidence\"]")" "$T/libnote.so" "from the file: evidence"

mkdir -p "$T/emptyroot"
"$PROVENANCE" resolve "$core" --sysroot "$T/emptyroot" --offline --format json >"$T/mem.json" 2>/dev/null
check_eq "$(json_get "$T/mem.json" "$m[\"name\"]")" "$want_name" "from the core's memory: name"
check_eq "$(json_get "$T/mem.json" "$m[\"version\"]")" "$want_ver" "from the core's memory: version"
check_match "$(json_get "$T/mem.json" "$m[\"evidence\"]")" "from the core's memory" "evidence says where"
