#!/usr/bin/env bash
# One crash, one signature, with or without the libraries' debug files
# (issue 36): the same core resolved against two roots that differ only in
# /usr/lib/debug gives the same signature, although the frames are named
# differently (glibc's debug info says __GI___clock_nanosleep, its exports
# clock_nanosleep). Two crashes: Debian's own sleep killed with SIGSEGV in
# clock_nanosleep (libc6-dbg's debug file copied into one root), and a C++
# program of templates whose debug info is split out (objcopy
# --only-keep-debug) and found by build ID in one root only. Truth: gdb's
# frames of each core (the names the two roots may use), and that the root
# with the debug files did use them (a name only DWARF has).
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null && command -v objcopy >/dev/null && command -v g++ >/dev/null || skip "gdb, binutils and g++ needed"
id_of() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'; }
root_with() {	# root_with DIR FILE...: FILE copied under DIR at its real path (and symlinked path)
	local d=$1 f; shift
	for f in "$@"; do
		mkdir -p "$d$(dirname "$f")" "$d$(dirname "$(realpath "$f")")"
		cp -L "$f" "$d$(realpath "$f")"
		[ "$(realpath "$f")" = "$f" ] || ln -sf "$(realpath "$f")" "$d$f"
	done
}
# sig REPORT: the signature the store gives the report (import, then triage's group)
sig() {
	rm -f "$T/sig.sqlite"
	"$PROVENANCE" import --store "$T/sig.sqlite" "$1" >/dev/null 2>&1 || fail "import of $1"
	"$PROVENANCE" triage --store "$T/sig.sqlite" --format json >"$T/sig.json" 2>/dev/null || fail "triage of $1"
	json_get "$T/sig.json" '" / ".join(g["signature"] for g in d["groups"])'
}
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null)
ld=$(realpath /lib64/ld-linux-x86-64.so.2 2>/dev/null)
[ -f "$libc" ] && [ -f "$ld" ] || skip "not an x86-64 Debian root"
libcid=$(id_of "$libc")
[ -f "/usr/lib/debug/.build-id/${libcid:0:2}/${libcid:2}.debug" ] || skip "no debug file for libc (apt-get install libc6-dbg)"

# ---- sleep, killed in clock_nanosleep ----
mkdir -p "$T/s"
( cd "$T/s" && ulimit -c unlimited && exec /bin/sleep 600 ) & pid=$!
for _ in $(seq 100); do grep -q clock_nanosleep "/proc/$pid/wchan" 2>/dev/null && break; grep -q hrtimer_nanosleep "/proc/$pid/stack" 2>/dev/null && break; sleep 0.1; done
sleep 0.3
kill -SEGV $pid; wait $pid 2>/dev/null
core=$(ls -t "$T"/s/core* 2>/dev/null | head -1)
[ -n "$core" ] || fail "sleep left no core"
root_with "$T/plain" /bin/sleep /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2
cp -a "$T/plain" "$T/debug"
mkdir -p "$T/debug/usr/lib/debug/.build-id/${libcid:0:2}"
cp -L "/usr/lib/debug/.build-id/${libcid:0:2}/${libcid:2}.debug" "$T/debug/usr/lib/debug/.build-id/${libcid:0:2}/"
for r in plain debug; do
	"$PROVENANCE" resolve "$core" --sysroot "$T/$r" --offline --format json >"$T/sleep-$r.json" 2>"$T/sleep-$r.err"
	rc=$?; [ $rc -le 1 ] || fail "resolve against the $r root: exit $rc: $(head -2 "$T/sleep-$r.err")"
done
fr() { json_get "$1" '" ".join((f.get("function") or "??") for f in [t for t in d["threads"] if t.get("crashed")][0]["frames"][:3])'; }
echo "# frames without debug files: $(fr "$T/sleep-plain.json")"
echo "# frames with debug files:    $(fr "$T/sleep-debug.json")"
gdbf=$(gdb -batch -ex bt /bin/sleep "$core" 2>/dev/null | sed -n 's/^#0 .* in \([A-Za-z_0-9]*\) .*/\1/p; s/^#0  \([A-Za-z_0-9]*\) .*/\1/p' | head -1)
check_match "$(fr "$T/sleep-debug.json")" "__GI___clock_nanosleep|__clock_nanosleep" "with libc's debug file, frame 0 has DWARF's name (gdb: $gdbf)"
check_match "$(fr "$T/sleep-plain.json")" "^clock_nanosleep" "without it, frame 0 has the exported name"
check_eq "$(sig "$T/sleep-plain.json")" "$(sig "$T/sleep-debug.json")" "sleep: one signature with and without libc's debug file"
check_match "$(sig "$T/sleep-plain.json")" "^11\|clock_nanosleep\|" "the signature names clock_nanosleep"

# ---- C++ templates, debug info split out ----
cat >"$T/t.cpp" <<'CPP'
#include <cstdio>
#include <vector>
template <typename T> struct Box { T *p; };
template <typename T> __attribute__((noinline)) T open_box(const Box<T> &b) { return *b.p; }
template <typename T, int N> __attribute__((noinline)) T sum_boxes(const std::vector<Box<T> > &v) {
	T s = 0;
	for (const auto &b : v) s += open_box<T>(b) * N;
	return s;
}
int main() {
	std::vector<Box<long> > v(3);
	long x = 1; v[0].p = &x; v[1].p = &x;	/* v[2].p stays NULL */
	std::printf("%ld\n", sum_boxes<long, 2>(v));
	return 0;
}
CPP
g++ -g -O1 -fno-omit-frame-pointer -o "$T/tpl" "$T/t.cpp" || fail "cannot build t.cpp"
tid=$(id_of "$T/tpl")
objcopy --only-keep-debug "$T/tpl" "$T/tpl.debug" && objcopy --strip-debug "$T/tpl" || fail "objcopy"
mkdir -p "$T/cx/run"
cp "$T/tpl" "$T/cx/run/tpl"
ccore=$(make_core "$T/cx/run" ./tpl)
root_with "$T/cplain" "$T/cx/run/tpl" /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 \
	$(ldd "$T/tpl" | awk '/=>/ { print $3 }')
cp -a "$T/cplain" "$T/cdebug"
mkdir -p "$T/cdebug/usr/lib/debug/.build-id/${tid:0:2}"
cp "$T/tpl.debug" "$T/cdebug/usr/lib/debug/.build-id/${tid:0:2}/${tid:2}.debug"
for r in cplain cdebug; do
	"$PROVENANCE" resolve "$ccore" --sysroot "$T/$r" --offline --format json >"$T/tpl-$r.json" 2>"$T/tpl-$r.err"
	rc=$?; [ $rc -le 1 ] || fail "resolve against the $r root: exit $rc: $(head -2 "$T/tpl-$r.err")"
done
echo "# frames without the debug file: $(fr "$T/tpl-cplain.json")"
echo "# frames with the debug file:    $(fr "$T/tpl-cdebug.json")"
check_match "$(json_get "$T/tpl-cdebug.json" '[t for t in d["threads"] if t.get("crashed")][0]["frames"][0].get("line")')" "^[0-9]+$" \
	"with the debug file, frame 0 has a line (DWARF was used)"
check_eq "$(json_get "$T/tpl-cplain.json" '[t for t in d["threads"] if t.get("crashed")][0]["frames"][0].get("line")')" "null" \
	"without it, no line"
gdbt=$(gdb -batch -ex bt "$T/tpl" "$ccore" 2>/dev/null | grep -c 'open_box\|sum_boxes')
[ "$gdbt" -ge 2 ] || fail "gdb does not see open_box and sum_boxes in the core"
check_eq "$(sig "$T/tpl-cplain.json")" "$(sig "$T/tpl-cdebug.json")" "templates: one signature with and without the debug file"
check_match "$(sig "$T/tpl-cplain.json")" "^11\|open_box.*\|sum_boxes" "the signature names open_box and sum_boxes, as gdb's frames"
