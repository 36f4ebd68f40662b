#!/usr/bin/env bash
# A compressed core followed by garbage (issue 27): a real core, then 300 MiB
# of non-zero bytes, zstd-compressed to a small file. Only what the core's
# ELF headers say it holds is spooled (program headers' p_offset + p_filesz,
# section headers): under `ulimit -f` of 70 MiB the run must not be killed
# by SIGXFSZ (exit 153), and it reads the same crashing function as the
# plain core (gdb's answer, not provenance's).
. "$(dirname "$0")/lib.sh"

can_dump_core
command -v zstd >/dev/null || skip "no zstd"
command -v gdb >/dev/null || skip "no gdb"
mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
core=$(make_core "$T/bin" ./nullmain) || exit $?
want=$(gdb -q -batch -ex bt "$T/bin/nullmain" "$core" 2>/dev/null | sed -n 's/^#0 .* in \([A-Za-z_0-9]*\) .*/\1/p; s/^#0  \([A-Za-z_0-9]*\) (.*/\1/p' | head -1)
[ -n "$want" ] || skip "gdb gave no frame 0"
{ cat "$core"; yes AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA | head -c $((300 << 20)); } |
	zstd -q -3 -o "$T/core.zst" || fail "zstd"
echo "compressed core with a 300 MiB tail: $(stat -c %s "$T/core.zst") bytes"
( ulimit -f $((70 * 1024)); exec "$PROVENANCE" --cache "$T/c" resolve --offline --format json "$T/core.zst" ) \
	>"$T/r.json" 2>"$T/err"; rc=$?
[ $rc = 153 ] && fail "the garbage after the core was spooled past 70 MiB (killed by SIGXFSZ)"
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve of the compressed core: exit $rc"; }
check_eq "$(json_get "$T/r.json" 'd["threads"][0]["frames"][0]["function"]')" "$want" \
	"crashing function (gdb's frame 0)"
ls "$T/c/tmp" 2>/dev/null | grep -q . && fail "a temporary file was left in the cache"
echo "ok: only the core is spooled, not the garbage after it"
