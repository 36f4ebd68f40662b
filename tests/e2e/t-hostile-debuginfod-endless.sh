#!/usr/bin/env bash
# A debuginfod that answers every query with an endless body and no
# Content-Length (issue 27): each download stops at debuginfod.maxSize. The
# run is made under `ulimit -f` of 64 MiB with a cap of 8 MiB and a total
# budget of 8 s: without the cap the server's GBs in that time pass 64 MiB
# and the kernel kills the run (SIGXFSZ, exit 153).
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v objcopy >/dev/null || skip "objcopy (binutils) is not installed"
mkdir -p "$T/run"
build_fixture "$TOP/fixtures/crashers/badcall.c" "$T/run/prog"
objcopy --strip-debug "$T/run/prog"
core=$(make_core "$T/run" ./prog)

python3 "$TOP/tests/e2e/http-server.py" endless-elf >"$T/port" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 1 50); do [ -s "$T/port" ] && break; sleep 0.1; done
export DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$T/port")"
( ulimit -f $((64 * 1024)); exec "$PROVENANCE" --cache "$T/c" -c debuginfod.maxSize=8m \
	-c debuginfod.totalTimeout=8 resolve --format json "$core" ) >"$T/r.json" 2>"$T/err"; rc=$?
[ $rc = 153 ] && fail "an endless debuginfod body was written past 64 MiB (killed by SIGXFSZ)"
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve with an endless debuginfod: exit $rc"; }
grep -q "debuginfod.maxSize" "$T/err" || { cat "$T/err"; fail "no warning about the cap"; }
big=$(find "$T/c/debuginfod" -type f -size +16M | head -1)
[ -z "$big" ] || fail "a file over 16 MiB was left in the cache: $big"
echo "ok: each debuginfod download stops at debuginfod.maxSize"
