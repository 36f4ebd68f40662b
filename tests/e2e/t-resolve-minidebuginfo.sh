#!/usr/bin/env bash
# MiniDebugInfo: a library stripped and given a .gnu_debugdata section the
# way Fedora's find-debuginfo makes it (the functions missing from .dynsym,
# in an xz-compressed ELF added with objcopy --add-section). The crashing
# frame's name (a static function) must be the one the unstripped library's
# symbol table (nm) gives for the pc; without the section it is unknown.
# Then its source is located by name in the bundled repository.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gcc git strip objcopy nm xz python3; do command -v $c >/dev/null || skip "$c not installed"; done
B=$TOP/fixtures/byname

export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
cp -r "$B/repo" "$T/up"
git -C "$T/up" -c init.defaultBranch=main init -q && git -C "$T/up" add -A &&
	git -C "$T/up" commit -qm "mini" && git -C "$T/up" tag v3.1 || fail "cannot make the repository"

mkdir -p "$T/run" "$T/plain" "$T/mk"
gcc -O1 -g -fPIC -shared -Wl,-soname,libmini.so -o "$T/mk/libmini.full" "$T/up/libs/mini/mini.c" || fail "cannot build libmini"
# Fedora's recipe (find-debuginfo.sh add_minidebug)
(
	cd "$T/mk" &&
	nm -D libmini.full --format=posix --defined-only | awk '{print $1}' | sort >dynsyms &&
	nm libmini.full --format=posix --defined-only | awk '{ if ($2 == "T" || $2 == "t" || $2 == "D") print $1 }' | sort >funcsyms &&
	comm -13 dynsyms funcsyms >keep_symbols &&
	objcopy --only-keep-debug libmini.full debug &&
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep_symbols debug mini_debuginfo &&
	xz -f mini_debuginfo &&
	cp libmini.full libmini.so && strip --strip-all libmini.so && cp libmini.so "$T/plain/libmini.so" &&
	objcopy --add-section .gnu_debugdata=mini_debuginfo.xz libmini.so && cp libmini.so "$T/run/libmini.so"
) || fail "cannot make the MiniDebugInfo library"
grep -qx hidden_store "$T/mk/keep_symbols" || fail "hidden_store should be only in .gnu_debugdata"
readelf -S "$T/run/libmini.so" | grep -q '\.gnu_debugdata' || fail "no .gnu_debugdata section"
readelf -S "$T/run/libmini.so" | grep -Eq '\.symtab|\.debug_info' && fail "libmini.so is not stripped"
for d in run plain; do
	gcc -O0 -o "$T/$d/app" "$B/mini-app.c" "$T/$d/libmini.so" -Wl,-rpath,"$T/$d" || fail "cannot build app"
done
core=$(make_core "$T/run" ./app) || exit 1
plain_core=$(make_core "$T/plain" ./app) || exit 1

cat >"$T/mini.map" <<MAP
[component "mini"]
	library = libmini.so*
	repo = https://example.invalid/mini.git
	subdir = libs/mini
	ref = v3.1
MAP
"$PROVENANCE" resolve "$core" --mapping "$T/mini.map" --format json \
	-c "url.file://$T/up.insteadOf=https://example.invalid/mini.git" >"$T/r.json" 2>"$T/r.err"
[ $? -le 1 ] || { cat "$T/r.err"; fail "resolve failed"; }

# ground truth: the unstripped library's symbol containing frame 0's pc
want=$(python3 - "$T/r.json" "$T/mk/libmini.full" <<'PY'
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
f = [t for t in d["threads"] if t["crashed"]][0]["frames"][0]
m = [m for m in d["modules"] if m["path"] == f["module"]][0]
off = int(f["pc"], 16) - int(m["start"], 16)
for line in subprocess.run(["nm", "-S", "--defined-only", sys.argv[2]], capture_output=True, text=True).stdout.splitlines():
    p = line.split()
    if len(p) == 4 and p[2] in "tT" and int(p[0], 16) <= off < int(p[0], 16) + int(p[1], 16):
        print(p[3])
PY
)
check_eq "$want" hidden_store "nm of the unstripped library names the crashing function"
check_eq "$(json_get "$T/r.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][0]["function"]')" "$want" \
	"frame 0's name from .gnu_debugdata"
# control: the same library without the section gives no name for that pc
"$PROVENANCE" analyze "$plain_core" --format json >"$T/p.json" || fail "analyze (plain)"
check_eq "$(json_get "$T/p.json" '[t for t in d["threads"] if t["crashed"]][0]["frames"][0]["function"]')" null \
	"without .gnu_debugdata the crashing function has no name"

# and its source, located by name in the component's tree
line=$(grep -n '^static __attribute__((noinline)) int hidden_store(' "$T/up/libs/mini/mini.c" | cut -d: -f1)
check_eq "$(json_get "$T/r.json" '[(s["path"], s["line"], s["located_by"]) for s in d["sources"] if s["frame"] == 0]')" \
	"[[\"libs/mini/mini.c\", $line, \"name\"]]" "hidden_store's definition (grep)"
exit 0
