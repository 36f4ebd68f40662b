#!/usr/bin/env bash
# A debuginfod whose /source answers are endless (issue 39 #10): a source file
# is read only up to 16 MiB, so no more than that is downloaded, whatever
# debuginfod.maxSize (default 4 GiB) allows. The server says 404 to every
# other query and streams 1 MiB chunks with no Content-Length for sources.
# The run is made under `ulimit -f` of 32 MiB with the default maxSize:
# without the cap the download passes 32 MiB within a second and the kernel
# kills the run (SIGXFSZ, exit 153). The program's source is removed after
# the build, so its lines can come only from debuginfod.
. "$(dirname "$0")/lib.sh"
can_dump_core
mkdir -p "$T/run" "$T/src"
cp "$TOP/fixtures/crashers/vars.c" "$T/src/prog.c"
build_fixture "$T/src/prog.c" "$T/run/prog"
rm -rf "$T/src"
core=$(make_core "$T/run" ./prog)

python3 "$TOP/tests/e2e/http-server.py" endless-source "$T/requests" >"$T/port" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 1 50); do [ -s "$T/port" ] && break; sleep 0.1; done
export DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$T/port")"
( ulimit -f $((32 * 1024)); exec "$PROVENANCE" --cache "$T/c" -c debuginfod.totalTimeout=30 \
	resolve --format json "$core" ) >"$T/r.json" 2>"$T/err"; rc=$?
[ $rc = 153 ] && fail "an endless debuginfod source was written past 32 MiB (killed by SIGXFSZ)"
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve with an endless debuginfod source: exit $rc"; }
grep -q "/source/" "$T/requests" || { cat "$T/requests" "$T/err"; fail "no source was asked for (the test proves nothing)"; }
big=$(find "$T/c/debuginfod" -type f -size +17M | head -1)
[ -z "$big" ] || fail "a file over 17 MiB was left in the cache: $big"
check_eq "$(json_get "$T/r.json" 'len([s for s in d.get("sources") or [] if s["path"].endswith("prog.c")])')" 0 \
	"no source lines from an abandoned download"
echo "ok: a debuginfod source download stops at what is read of a source (16 MiB)"
