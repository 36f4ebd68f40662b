#!/usr/bin/env bash
# What a run does not need it does not pay for: libgit2 is started
# (git_libgit2_init: it loads the TLS trust store, more than a whole text
# resolve costs) only by a run that uses it, exactly once; libcurl and
# libdebuginfod (with their 20 libraries) are loaded only by a run that
# downloads. Ground truth: gdb counts the calls of git_libgit2_init in the
# real process; the dynamic loader (LD_DEBUG=files) lists what it loaded;
# git itself says whether the fix is an ancestor. That downloads still work
# through the lazily loaded libraries is tested by t-srcpkg-debian,
# t-resolve-debuginfod and unit/test-fetch against local servers.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
command -v gdb >/dev/null || skip "no gdb"
command -v git >/dev/null || skip "no git"

cat > "$T/count.gdb" <<'GDB'
set pagination off
set breakpoint pending on
break git_libgit2_init
commands 1
silent
echo PROV-GIT-INIT\n
continue
end
run
GDB
# inits CMD...: how many times CMD calls git_libgit2_init
inits() {
	# gdb runs the ELF itself, not lib.sh's schema wrapper
	[ "$1" = "$PROVENANCE" ] && set -- "$PROVENANCE_BIN" "${@:2}"
	# LeakSanitizer cannot run under ptrace; the count is what matters here
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		gdb -q -batch -nx -x "$T/count.gdb" --args "$@" </dev/null >"$T/gdb.out" 2>&1
	grep -q 'exited' "$T/gdb.out" || { tail -20 "$T/gdb.out" >&2; fail "gdb did not run $*"; }
	grep -c '^PROV-GIT-INIT$' "$T/gdb.out"
}

cat > "$T/bt.txt" <<'TXT'
==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010
READ of size 4 at 0x602000000010 thread T0
    #0 0x55d1c0a1b2c3 in parse_header /src/proj/parse.c:41:9
    #1 0x55d1c0a1b4d5 in main /src/proj/main.c:12:3
TXT

# a text backtrace with no component commit never starts libgit2
check_eq "$(inits "$PROVENANCE" resolve "$T/bt.txt" --format json --offline)" 0 \
	"git_libgit2_init calls, text resolve"
check_exit 0 "text resolve" -- "$PROVENANCE" resolve "$T/bt.txt" --format json --offline
check_match "$(cat "$T/last.out")" '"function": "parse_header"' "the frame is read"
# nor loads libcurl or libdebuginfod (the loader's own account)
LD_DEBUG=files "$PROVENANCE" resolve "$T/bt.txt" --format json --offline 2>"$T/ld.err" >/dev/null
grep -q 'file=libgit2' "$T/ld.err" || fail "LD_DEBUG=files lists no libraries: cannot check"
check_eq "$(grep -Ec 'file=lib(curl|debuginfod)' "$T/ld.err")" 0 \
	"libcurl/libdebuginfod loads, text resolve"

# a repository to use: three commits, the fix is the second
repo="$T/repo"
git init -q -b main "$repo" && cd "$repo" &&
	git config user.email t@example.com && git config user.name t &&
	for i in 1 2 3; do echo "$i" > f; git add f; git commit -q -m "c$i"; done &&
	cd - >/dev/null || fail "cannot make the repository"
fix=$(git -C "$repo" rev-parse HEAD~1)
git -C "$repo" merge-base --is-ancestor "$fix" HEAD || fail "git: the fix is not an ancestor"

# fixcheck opens the repository: libgit2 started once, and it works
check_eq "$(inits "$PROVENANCE" fixcheck "$fix" --repo "$repo" --at main)" 1 \
	"git_libgit2_init calls, fixcheck"
check_exit 0 "fixcheck (git: ancestor)" -- "$PROVENANCE" fixcheck "$fix" --repo "$repo" --at main

# a mapping naming a local repository checks it with libgit2: started once
cat > "$T/local.map" <<EOF
[component "proj"]
	repo = $repo
	path = /src/proj/*
EOF
check_eq "$(inits "$PROVENANCE" resolve "$T/bt.txt" --mapping "$T/local.map" --format json --offline)" 1 \
	"git_libgit2_init calls, mapping with a local repository"
check_exit 0 "resolve with a local-repository mapping" -- \
	"$PROVENANCE" resolve "$T/bt.txt" --mapping "$T/local.map" --format json --offline

# a mapping whose subdir-paths is not a boolean: one clear line, exit 2
# (libgit2 reports that through its own error state: it must be started)
printf '[component "x"]\n\trepo = https://example.com/x.git\n\tsubdir-paths = maybe\n' > "$T/bad.map"
check_exit 2 "non-boolean subdir-paths" -- \
	"$PROVENANCE" resolve "$T/bt.txt" --mapping "$T/bad.map" --offline
check_match "$(cat "$T/last.err")" "^provenance: mapping file '.*bad.map': component 'x': subdir-paths 'maybe' is not a boolean$" \
	"its message"
# git's other spellings of a boolean are still read (a number is true)
printf '[component "x"]\n\trepo = https://example.com/x.git\n\tsubdir-paths = 2\n' > "$T/num.map"
check_exit 0 "numeric subdir-paths" -- \
	"$PROVENANCE" resolve "$T/bt.txt" --mapping "$T/num.map" --offline
echo "ok: libgit2 starts only when used"
