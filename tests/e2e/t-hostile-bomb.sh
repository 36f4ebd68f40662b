#!/usr/bin/env bash
# A zstd bomb of text (issue 17 item 11): 300 MiB of backtrace lines in a
# ~30 KiB .zst. The text limit (64 MiB) must apply while it decompresses, so
# the temporary file never grows past it: the run is made under `ulimit -f`
# of 70 MiB (the kernel kills a process that writes beyond: SIGXFSZ, exit
# 153) and must end with the clear text-limit message and exit 2.
. "$(dirname "$0")/lib.sh"

command -v zstd >/dev/null || skip "zstd is not installed"
yes '#0  0x00007f0000001000 in foo () from /usr/lib/libfoo.so.1' | head -c 300M | zstd -q -1 -o "$T/bomb.zst"
( ulimit -f $((70 * 1024)); exec "$PROVENANCE" resolve --offline "$T/bomb.zst" ) >/dev/null 2>"$T/err"
rc=$?
[ $rc = 153 ] && fail "the bomb was decompressed past 70 MiB (killed by SIGXFSZ)"
check_eq "$rc" 2 "exit on a text bomb"
check_match "$(cat "$T/err")" "^provenance: '.*bomb.zst' decompresses to more than 67108864 bytes of text" "text bomb message"
ls "$PROVENANCE_CACHE"/tmp/input-* >/dev/null 2>&1 && fail "the bomb's temporary file was left behind"
# a compressed backtrace under the limit still reads (the frame is in it)
printf '#0  0x00007f0000001000 in foo () from /usr/lib/libfoo.so.1\n' | zstd -q -o "$T/small.zst"
"$PROVENANCE" resolve --offline --format json "$T/small.zst" >"$T/small.json" || [ $? = 1 ] || fail "small .zst backtrace"
check_eq "$(json_get "$T/small.json" 'd["threads"][0]["frames"][0]["function"]')" foo "frame from a small .zst backtrace"
