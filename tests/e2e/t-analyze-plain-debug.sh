#!/usr/bin/env bash
# Debug files with compressed DWARF (python3.11-dbg's) are kept uncompressed
# in <cache>/debug-plain/ and used from there: the copy's sections are the
# original's inflated (objcopy --decompress-debug-sections says what they
# are), the report is the same as without the copy (-c core.plainDebug=false)
# and names the file found, a damaged copy is made again, cache clear
# removes them.
. "$(dirname "$0")/lib.sh"
can_dump_core
py=/usr/bin/python3.11
[ -x "$py" ] || skip "no /usr/bin/python3.11"
command -v readelf >/dev/null && command -v objcopy >/dev/null || skip "binutils not installed"
id=$(readelf -n "$py" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
[ -n "$id" ] || skip "$py has no build ID"
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
[ -f "$dbg" ] || skip "no debug file for $py (python3.11-dbg not installed)"
dbg=$(realpath "$dbg")
readelf -SW "$dbg" 2>/dev/null | grep -E '\.debug_info' | grep -q ' C ' ||
	skip "$dbg has no compressed .debug_info"

core=$(make_core "$T" "$py" -c 'import ctypes; ctypes.string_at(0)') || exit 1
C=$T/cache
check_exit 0 "analyze without copies" -- "$PROVENANCE" --cache "$T/off" -c core.plainDebug=false \
	analyze "$core" --format json
cp "$T/last.out" "$T/off.json"
[ -e "$T/off/debug-plain" ] && fail "core.plainDebug=false made $(ls "$T/off/debug-plain")"
echo "ok: core.plainDebug=false keeps no copy"

check_exit 0 "analyze, first run (makes the copy)" -- "$PROVENANCE" --cache "$C" analyze "$core" --format json
cp "$T/last.out" "$T/r1.json"
want="$id-$(stat -c %s "$dbg")-$(stat -c %Y "$dbg").debug"
copy=$C/debug-plain/$want
[ -f "$copy" ] || { ls -la "$C/debug-plain" 2>&1; fail "no $want in debug-plain/"; }
echo "ok: debug-plain/$want"
readelf -SW "$copy" 2>/dev/null | grep -E ' \.debug_' | grep ' C ' && fail "the copy still has compressed sections"
check_eq "$(readelf -n "$copy" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')" "$id" "the copy's build ID"
objcopy --decompress-debug-sections "$dbg" "$T/ref.debug" || fail "objcopy --decompress-debug-sections"
n=0
for s in $(readelf -SW "$dbg" 2>/dev/null | grep -oE '\.debug_[a-z_]+' | sort -u); do
	objcopy -O binary --only-section="$s" "$T/ref.debug" "$T/ref.sec" &&
		objcopy -O binary --only-section="$s" "$copy" "$T/copy.sec" || fail "objcopy $s"
	cmp -s "$T/ref.sec" "$T/copy.sec" || fail "section $s differs from objcopy's inflated one"
	n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "only $n debug sections compared"
echo "ok: $n debug sections are objcopy's inflated ones"
cmp -s "$T/off.json" "$T/r1.json" || { diff "$T/off.json" "$T/r1.json" | head; fail "first run differs from core.plainDebug=false"; }
echo "ok: first run's report is the same as without copies"
check_eq "$(json_get "$T/r1.json" '[m["debug_file"] for m in d["modules"] if m.get("path") == "'"$py"'"][0]')" \
	"$dbg" "python3.11's debug_file names the file found"

check_exit 0 "analyze, second run (uses the copy)" -- "$PROVENANCE" --cache "$C" analyze "$core" --format json
cmp -s "$T/off.json" "$T/last.out" || { diff "$T/off.json" "$T/last.out" | head; fail "second run differs"; }
echo "ok: second run's report is the same"

size=$(stat -c %s "$copy")
truncate -s $((size / 2)) "$copy"
check_exit 0 "analyze with a copy cut short" -- "$PROVENANCE" --cache "$C" analyze "$core" --format json
cmp -s "$T/off.json" "$T/last.out" || { diff "$T/off.json" "$T/last.out" | head; fail "a damaged copy changed the report"; }
check_eq "$(stat -c %s "$copy")" "$size" "the copy was made again"

check_exit 0 "cache clear" -- "$PROVENANCE" --cache "$C" cache clear
[ -e "$C/debug-plain" ] && fail "cache clear left debug-plain/"
echo "ok: cache clear removes debug-plain/"
