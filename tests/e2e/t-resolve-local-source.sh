#!/usr/bin/env bash
# Your own program (no package owns it) with its source at its DWARF path:
# resolve shows the lines around each frame's line, as gdb's "list" does
# (JSON local_sources[], fetched_by "local-file": no component, no commit). Truth: the frame's
# file:line from gdb's bt on the core, the lines from the file itself. A
# source edited after the build (newer than the executable) is not shown.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null || skip "gdb not installed"
mkdir -p "$T/p"
cp "$TOP/fixtures/crashers/optout.c" "$T/p/own.c"
touch -d '2020-01-01' "$T/p/own.c"
(cd "$T/p" && cc -g -O2 -o own own.c) || fail "cannot build own.c"
core=$(make_core "$T/p" ./own) || exit 1
gdb -nx -batch -ex bt "$T/p/own" "$core" 2>/dev/null >"$T/bt"
loc=$(sed -n 's/^#0 .* at \([^ ]*\):\([0-9]*\)$/\1 \2/p' "$T/bt" | head -1)
[ -n "$loc" ] || fail "gdb gives no file:line for frame 0: $(cat "$T/bt")"
file=${loc% *}; line=${loc#* }
case $file in /*) ;; *) file=$T/p/$file ;; esac
check_eq "$file" "$T/p/own.c" "gdb's file of frame 0"
"$PROVENANCE" --cache "$T/cache" resolve --offline --format json "$core" >"$T/r.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || fail "resolve exited $rc: $(cat "$T/err")"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/r.json" || fail "schema"
python3 - "$T/r.json" "$file" "$line" <<'PY' || fail "source lines of frame 0"
import json, sys
d = json.load(open(sys.argv[1]))
path, line = sys.argv[2], int(sys.argv[3])
src = open(path).read().split('\n')
s = [s for s in d['local_sources'] if s['frame'] == 0]
if not s:
    sys.exit('no source for frame 0: %s' % json.dumps(d['local_sources'])[:500])
if any(x['fetched_by'] == 'local-file' for x in d['sources']):
    sys.exit('a local file is listed among the components\' sources')
s = s[0]
if (s['path'], s['line'], s['fetched_by'], s['component'], s['commit']) != (path, line, 'local-file', None, None):
    sys.exit('source entry: %s' % {k: s[k] for k in ('path', 'line', 'fetched_by', 'component', 'commit')})
if not any(l['number'] == line for l in s['lines']):
    sys.exit('the frame line %d is not among the lines' % line)
for l in s['lines']:
    if l['text'] != src[l['number'] - 1]:
        sys.exit('line %d: %r, the file has %r' % (l['number'], l['text'], src[l['number'] - 1]))
if any(not x['path'].startswith('/') for x in d['local_sources']):
    sys.exit('a relative path was read')
print('frame 0: %d lines equal to %s around line %d' % (len(s['lines']), path, line))
PY
"$PROVENANCE" --cache "$T/cache" resolve --offline "$core" >"$T/r.txt" 2>/dev/null
grep -q "^Source of frame #0: $file:$line (the file at its DWARF path" "$T/r.txt" || fail "text: $(grep Source "$T/r.txt")"
grep -q "^>  *$line  " "$T/r.txt" || fail "text marks no line $line"
# edited after the build: not what ran, not shown
touch "$T/p/own.c"
"$PROVENANCE" --cache "$T/cache" resolve --offline --format json "$core" >"$T/r2.json" 2>/dev/null
check_eq "$(json_get "$T/r2.json" 'len(d["local_sources"])')" 0 "local-file sources after the source changed"
echo "own program: source lines from its DWARF path"
