#!/usr/bin/env bash
# Debian's python3.11 is built with LTO; python3.11-dbg ships its debug
# info. libdw's dwarf_getscopes misses the inline chains of its units. For
# os.abort() the frames inside the interpreter must be gdb's, inlined ones
# included (function per frame, gdb's Python API), with the DWARF name
# (os_abort, not the ELF alias os_abort.lto_priv.0), and each frame's file
# and line as binutils' `addr2line -i` gives them.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null || skip "no gdb"
command -v addr2line >/dev/null || skip "no addr2line (binutils)"
exe=/usr/bin/python3.11
[ -x "$exe" ] || skip "no $exe"
id=$(eu-readelf -n "$exe" 2>/dev/null | awk '/Build ID:/{print $3}')
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
[ -f "$dbg" ] || skip "no debug info for $exe ($dbg: install python3.11-dbg)"

core=$(make_core "$T" "$exe" -c 'import os; os.abort()') || exit 1
"$PROVENANCE" analyze "$core" --format json >"$T/a.json" 2>"$T/a.err"
[ $? -le 1 ] || { cat "$T/a.err"; fail "analyze failed"; }

cat >"$T/frames.py" <<'PY'
import gdb
f = gdb.newest_frame()
while f is not None:
    if f.type() != gdb.TAILCALL_FRAME and gdb.solib_name(f.pc()) is None:
        print("F %s" % (f.name() or "??"))
    f = f.older()
PY
gdb -batch -ex "set debuginfod enabled off" -ex "set backtrace past-main on" -ex "source $T/frames.py" \
	"$exe" "$core" 2>/dev/null | awk '/^F /{print $2}' >"$T/gdb.fns"
[ "$(wc -l <"$T/gdb.fns")" -ge 10 ] || fail "gdb finds fewer than 10 frames in $exe"
json_get "$T/a.json" "'\n'.join(f['function'] or '??' for f in [t for t in d['threads'] if t['crashed']][0]['frames'] if f['module']=='$exe')" >"$T/our.fns"
diff "$T/gdb.fns" "$T/our.fns" >"$T/diff" || { cat "$T/diff"; fail "functions in $exe differ from gdb's (inlined frames included)"; }
echo "ok: the $(wc -l <"$T/gdb.fns") frames in $exe, inlined ones included, are gdb's"
grep -q '\.lto_priv\|\.constprop\|\.isra\|\.part\.' "$T/our.fns" && fail "an ELF alias is shown where DWARF names the function"
grep -qx os_abort "$T/our.fns" || fail "os_abort is not named"
echo "ok: DWARF names (os_abort), no ELF aliases"

# file and line per frame: addr2line -i at each physical pc (pc - 1 for a caller)
json_get "$T/a.json" "'\n'.join('%s %d %s %s' % (f['pc'], f['index'], f['inlined'], f['module']==('$exe')) for f in [t for t in d['threads'] if t['crashed']][0]['frames'])" >"$T/pcs"
: >"$T/want"
prev=
while read -r pc index inl inexe; do
	[ "$inexe" = True ] || continue
	[ "$pc" = "$prev" ] && continue
	prev=$pc
	q=$pc
	[ "$index" -gt 0 ] && q=$(printf '0x%x' $((pc - 1)))
	addr2line -i -f -e "$dbg" "$q" | paste - - | while IFS=$'\t' read -r fn loc; do
		file=${loc%:*}; line=${loc##*:}; line=${line%% *}
		[ "$line" = "?" ] && line=0
		echo "$(basename "$file"):$line"
	done >>"$T/want"
done <"$T/pcs"
json_get "$T/a.json" "'\n'.join('%s:%s' % (f['file'].rsplit('/',1)[-1] if f['file'] else '??', f['line'] or 0) for f in [t for t in d['threads'] if t['crashed']][0]['frames'] if f['module']=='$exe')" >"$T/have"
diff "$T/want" "$T/have" >"$T/diff" || { cat "$T/diff"; fail "file:line per frame differs from addr2line -i"; }
echo "ok: file:line of every frame in $exe as addr2line -i gives it ($(wc -l <"$T/want") frames)"
exit 0
