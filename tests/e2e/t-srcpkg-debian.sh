#!/usr/bin/env bash
# A Debian source package (made by dpkg-source -b from fixtures/srcpkg) and a
# release archive, served by python3 -m http.server on 127.0.0.1, imported
# with the srcimport API into a bare repository in the cache. Ground truth:
# dpkg-source -x of the same .dsc (the patched tree, its crash line),
# git write-tree of that tree and of the upstream sources, the series file,
# gdb on a crash of the library built from the patched source.
. "$(dirname "$0")/lib.sh"
command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"
command -v python3 >/dev/null || skip "no python3"

"$TOP/fixtures/srcpkg/build-srcpkg.sh" "$T/s" >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "fixture build failed"; }
. "$T/s/facts"
[ "$crash_line" != "$upstream_line" ] || fail "the fixture's patch does not move the crash line"

# the driver for the API, linked with the library as the unit tests are
san=${SANITIZE:+-fsanitize=$SANITIZE -fno-omit-frame-pointer}
${CC:-cc} -std=gnu11 -g -D_GNU_SOURCE $san $PROV_INC -o "$T/tool" "$TOP/fixtures/srcpkg/srcimport-tool.c" \
	"$TOP/libprovenance.a" $(pkg-config --libs libdw libelf libgit2 libarchive sqlite3 libcurl libdebuginfod capstone) \
	-lasm -lpthread -lstdc++ || fail "cannot build the srcimport driver"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 "$port" --directory "$T/s/www" >"$T/http.log" 2>&1 &
http_pid=$!
trap 'kill $http_pid 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && break; sleep 0.1; done
base=http://127.0.0.1:$port/debian
cache=$T/cache

val() { sed -n "s/^$1=//p" "$2"; }
gitd() { git --git-dir="$repo" "$@"; }

# --- the Debian source package ------------------------------------------------
"$T/tool" debian "$cache" "$base" libfoo 1.0-1 >"$T/d1.out" 2>"$T/d1.err" || { cat "$T/d1.err"; fail "import of libfoo 1.0-1 failed"; }
cat "$T/d1.out"
repo=$(val repo "$T/d1.out")
commit=$(val commit "$T/d1.out")
case "$repo" in "$cache"/imports/*.git) ;; *) fail "repository '$repo' is not in the cache's imports";; esac
check_eq "$(val npatches "$T/d1.out")" "$npatches" "patches applied (non-comment lines of debian/patches/series)"
check_eq "$(gitd rev-parse refs/imports/libfoo/1.0-1)" "$commit" "refs/imports/libfoo/1.0-1 records the commit"

# the patched tree is exactly what dpkg-source -x unpacked
want_tree=$(cd "$T/s/patched" && git init -q "$T/gt-patched" && GIT_DIR="$T/gt-patched/.git" GIT_WORK_TREE=. git add -A && GIT_DIR="$T/gt-patched/.git" git write-tree)
check_eq "$(gitd rev-parse "$commit^{tree}")" "$want_tree" "patched tree = git write-tree of dpkg-source -x"
# its parent is the upstream tarball's tree
cp -r "$TOP/fixtures/srcpkg/libfoo-1.0" "$T/up"
want_up=$(cd "$T/up" && git init -q && git add -A && git write-tree)
check_eq "$(gitd rev-parse "$commit^^{tree}")" "$want_up" "parent tree = git write-tree of the upstream sources"

got_line=$(gitd show "$commit:$crash_file" | grep -n 'CRASH-HERE' | cut -d: -f1)
check_eq "$got_line" "$crash_line" "crash line in the imported $crash_file (grep -n in dpkg-source -x output)"
up_line=$(gitd show "$commit^:$crash_file" | grep -n 'CRASH-HERE' | cut -d: -f1)
check_eq "$up_line" "$upstream_line" "crash line in the upstream commit (grep -n in the upstream sources)"
gitd show "$commit:debian/patches/series" | cmp -s - "$T/s/patched/debian/patches/series" || fail "debian/ is not in the patched tree"
echo "ok: debian/ is in the patched tree"

# --- cached: a second run downloads nothing, offline works ----------------------
requests=$(grep -c '"GET ' "$T/http.log")
"$T/tool" debian "$cache" "$base" libfoo 1.0-1 >"$T/d2.out" 2>&1 || { cat "$T/d2.out"; fail "second import failed"; }
check_eq "$(val commit "$T/d2.out")" "$commit" "second run: same commit"
check_eq "$(val cached "$T/d2.out")" 1 "second run: import reused"
check_eq "$(grep -c '"GET ' "$T/http.log")" "$requests" "second run: no request to the server"
"$T/tool" --offline debian "$cache" "$base" libfoo 1.0-1 >"$T/d3.out" 2>&1 || { cat "$T/d3.out"; fail "offline import from the cache failed"; }
check_eq "$(val commit "$T/d3.out")" "$commit" "offline run: same commit"
check_exit 3 "offline with an empty cache (PROV_ENOTFOUND)" -- "$T/tool" --offline debian "$T/cache-empty" "$base" libfoo 1.0-1
check_match "$(cat "$T/last.err")" "no libfoo_1.0-1.dsc under .*offline" "offline message"
[ ! -e "$T/cache-empty/downloads" ] || [ -z "$(ls "$T/cache-empty/downloads")" ] || fail "offline run downloaded"

# deterministic: a fresh cache, the flat layout, through url.<base>.insteadOf
mkdir -p "$T/s/www/flat"
cp "$T/s/www/debian/pool/main/libf/libfoo/"* "$T/s/www/flat/"
"$T/tool" -c "url.http://127.0.0.1:$port/flat.insteadOf=https://deb.example.invalid/debian" \
	debian "$T/cache2" https://deb.example.invalid/debian libfoo 1.0-1 >"$T/d4.out" 2>"$T/d4.err" || { cat "$T/d4.err"; fail "flat layout through insteadOf failed"; }
check_eq "$(val commit "$T/d4.out")" "$commit" "flat layout via insteadOf, fresh cache: the same commit id"
grep -q '"GET /flat/libfoo_1.0-1.dsc' "$T/http.log" || fail "the flat .dsc was not fetched through the rewritten URL"
echo "ok: insteadOf rewrote the base URL"

# --- the release archive ---------------------------------------------------------
"$T/tool" archive "$cache" "http://127.0.0.1:$port/releases/libfoo-1.0.tar.gz" >"$T/a1.out" 2>"$T/a1.err" || { cat "$T/a1.err"; fail "archive import failed"; }
arepo=$(val repo "$T/a1.out"); acommit=$(val commit "$T/a1.out")
check_eq "$(git --git-dir="$arepo" rev-parse "$acommit^{tree}")" "$want_up" "archive tree (top directory stripped) = git write-tree of the upstream sources"
check_eq "$(git --git-dir="$arepo" show "$acommit:$crash_file" | grep -n CRASH-HERE | cut -d: -f1)" "$upstream_line" "archive: crash line as upstream has it"

# --- the crash, resolved from the Debian source package named by a mapping ----------
if [ -f "$T/s/root/core" ]; then
	root=$T/s/root
	cat > "$T/libfoo.map" <<MAP
[component "libfoo"]
	package = libfoo
	debian-source = {source}
MAP
	# a fresh cache: the mapping makes provenance download and import the package
	"$PROVENANCE" --cache "$T/rcache" -c "sources.debianBaseUrl=$base" resolve "$root/core" \
		--sysroot "$root" --mapping "$T/libfoo.map" --format json >"$T/r.json" 2>"$T/r.err"
	rc=$?
	[ $rc -le 1 ] || { cat "$T/r.err"; fail "resolve exited $rc"; }
	nseries=$(grep -cvE '^\s*(#|$)' "$T/s/patched/debian/patches/series")
	check_eq "$(json_get "$T/r.json" '[c for c in d["components"] if c["name"] == "libfoo"][0]["found_by"]')" \
		"Debian source with $nseries patches" "resolve: the report says which source was used"
	gdb -batch -ex "set sysroot $root" -ex "set debuginfod enabled off" -ex "frame 0" -ex "info line *\$pc" \
		"$root/usr/bin/foo-app" "$root/core" >"$T/gdb.txt" 2>/dev/null
	gdb_line=$(grep -oE '^Line [0-9]+' "$T/gdb.txt" | head -1 | cut -d' ' -f2)
	check_eq "$gdb_line" "$crash_line" "gdb: the crash is at the patched line"
	f0='[t for t in d["threads"] if t["crashed"]][0]["frames"][0]'
	check_eq "$(json_get "$T/r.json" "$f0[\"line\"]")" "$crash_line" "resolve: frame #0 line"
	check_eq "$(json_get "$T/r.json" "$f0[\"repo_path\"]")" "$crash_file" "resolve: frame #0 repo path (/build/libfoo-XXXXXX stripped)"
	check_eq "$(json_get "$T/r.json" '[c for c in d["components"] if c["name"] == "libfoo"][0]["commit"]')" "$commit" "resolve: component commit = the import"
	want_text=$(sed -n "${crash_line}p" "$T/s/patched/$crash_file")
	got_text=$(json_get "$T/r.json" "[l[\"text\"] for s in d[\"sources\"] for l in s[\"lines\"] if l[\"number\"] == $crash_line][0]")
	check_eq "$got_text" "$want_text" "resolve: source line from the patched source"
else
	note "no core was made ($(cat /proc/sys/kernel/core_pattern)): the resolve part is not run"
fi
