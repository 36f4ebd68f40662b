#!/usr/bin/env bash
# A warm `resolve --offline` answers package look-ups from <cache>/cache.memo
# (issue 25: within 1.1x of analyze) and opens neither cache.sqlite nor the
# package lists: checked by strace's count of opens, never by time. The
# answers stay right: owners come from the fixture's own .list files, a
# changed dpkg database is seen on the next run, a memo written beside another
# cache.sqlite (a writer since, a rebuilt file) is not trusted, and a broken,
# oversized or symlinked memo costs only time.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (make deps installs it)"
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"

R="$T/root" C="$T/cache"
mkdir -p "$R/var/lib/dpkg/info"
status() {	# status PKG...: installed packages, each with its .list of one library
	local p
	for p in "$@"; do
		printf 'Package: %s\nStatus: install ok installed\nArchitecture: amd64\nSource: %s-src\nVersion: 1.0-%s\n\n' \
			"$p" "$p" "${#p}"
	done >"$R/var/lib/dpkg/status"
}
status libfoo1 libbar1
printf '/.\n/usr/lib/x86_64-linux-gnu/libfoo.so.1\n' >"$R/var/lib/dpkg/info/libfoo1:amd64.list"
printf '/.\n/usr/lib/x86_64-linux-gnu/libbar.so.1\n' >"$R/var/lib/dpkg/info/libbar1:amd64.list"
cat >"$T/bt.txt" <<'EOF'
#0  0x00007f0000001000 in foo () from /usr/lib/x86_64-linux-gnu/libfoo.so.1
#1  0x00007f0000002000 in bar () from /usr/lib/x86_64-linux-gnu/libbar.so.1
#2  0x00007f0000003000 in baz () from /usr/lib/x86_64-linux-gnu/libnone.so.1
EOF
run() {	# run: resolve through the fixture root; JSON in $T/run.json, stderr in $T/run.err
	"$PROVENANCE" --cache "$C" resolve --offline --sysroot "$R" --format json "$T/bt.txt" \
		>"$T/run.json" 2>"$T/run.err"
	case $? in 0|1) ;; *) cat "$T/run.err"; fail "resolve exited $?" ;; esac
}
owners() {	# the package of each module, by path, as resolve reports them
	json_get "$T/run.json" '" ".join("%s=%s" % (m["path"].rsplit("/", 1)[-1], (m.get("package") or {}).get("name")) for m in sorted(d["modules"], key=lambda m: m["path"]))'
}
opens() {	# opens REGEX: files matching REGEX that one run opens
	count_opens "$1" "$PROVENANCE" --cache "$C" resolve --offline --sysroot "$R" --format json "$T/bt.txt"
}
# the ground truth: which .list names each library (what dpkg -S reads)
truth() {
	local lib f out=""
	for lib in libbar.so.1 libfoo.so.1 libnone.so.1; do
		f=$(grep -l -x "/usr/lib/x86_64-linux-gnu/$lib" "$R"/var/lib/dpkg/info/*.list 2>/dev/null | head -1)
		f=${f##*/}
		out="$out $lib=$([ -n "$f" ] && echo "${f%%:*}" || echo None)"
	done
	echo "${out# }"
}

run	# cold: the index is built and stored
check_eq "$(owners)" "$(truth)" "owners on the first run (the .list files name them)"
run	# warm: the index from cache.sqlite; its answers go to the memo
check_eq "$(owners)" "$(truth)" "owners from cache.sqlite"
[ -s "$C/cache.memo" ] || fail "no cache.memo after a warm run"
cp "$T/run.json" "$T/warm.json"
check_eq "$(opens 'cache\.sqlite')" 0 "opens of cache.sqlite by a run the memo answers"
check_eq "$(opens '/var/lib/dpkg/info/.*\.list$')" 0 "package lists opened by a run the memo answers"
run
check_eq "$(owners)" "$(truth)" "owners from the memo"
cmp -s "$T/run.json" "$T/warm.json" || fail "the memo's report differs from cache.sqlite's"
echo "ok: a warm run reads neither cache.sqlite nor the package lists"

# a changed database: libfoo.so.1 moves to libbar1 (dpkg rewrites status and the lists)
status libfoo1 libbar1 libnew2
printf '/.\n' >"$R/var/lib/dpkg/info/libfoo1:amd64.list"
printf '/.\n/usr/lib/x86_64-linux-gnu/libbar.so.1\n/usr/lib/x86_64-linux-gnu/libfoo.so.1\n' \
	>"$R/var/lib/dpkg/info/libbar1:amd64.list"
printf '/.\n/usr/lib/x86_64-linux-gnu/libnone.so.1\n' >"$R/var/lib/dpkg/info/libnew2:amd64.list"
run
check_eq "$(owners)" "$(truth)" "owners after the dpkg database changed"
check_eq "$(owners)" "libbar.so.1=libbar1 libfoo.so.1=libbar1 libnone.so.1=libnew2" "the change is seen"
run
check_eq "$(opens 'cache\.sqlite')" 0 "opens of cache.sqlite once the memo knows the new index"
run
check_eq "$(owners)" "$(truth)" "owners from the memo of the new index"
echo "ok: a changed dpkg database is seen, then memoized"

# cache.sqlite changed since the memo was written (another run wrote, or it was rebuilt)
touch -d '2001-01-01' "$C/cache.sqlite"
check_match "$(opens 'cache\.sqlite')" '^[1-9]' "opens of cache.sqlite once it is not the file the memo was written beside"
run
check_eq "$(owners)" "$(truth)" "owners after the memo was set aside"
echo "ok: a memo written beside another cache.sqlite is not trusted"

# a broken memo: garbage, a NUL, an oversized file, a symlink: time only
for kind in garbage nul big link; do
	rm -f "$C/cache.memo"
	case $kind in
	garbage) printf 'provenance-memo 1 x\nno tab here\n\t\n' >"$C/cache.memo" ;;
	nul) { head -1 <<<"provenance-memo 1 $(stat -c '%s:%Y000000000:%i' "$C/cache.sqlite")"; printf 'a\0b\tc\n'; } >"$C/cache.memo" ;;
	big) head -c 3000000 /dev/zero | tr '\0' 'x' >"$C/cache.memo" ;;
	link) printf 'precious\n' >"$T/outside"; ln -s "$T/outside" "$C/cache.memo" ;;
	esac
	run
	check_eq "$(owners)" "$(truth)" "owners with a $kind cache.memo"
done
check_eq "$(cat "$T/outside")" precious "the file a cache.memo link pointed at"
echo "ok: a broken memo is rebuilt, a link is not followed"

# a full memo (5,000 other answers, one key twice): the newest 4,096 kept, this run's among them
python3 - "$C" <<'PY' || fail "cannot write the full memo"
import os, sys
c = sys.argv[1]
st = os.stat(os.path.join(c, "cache.sqlite"))
with open(os.path.join(c, "cache.memo"), "w") as f:
    f.write("provenance-memo 1 %d:%d:%d\n" % (st.st_size, st.st_mtime_ns, st.st_ino))
    for i in range(5000):
        f.write("other\x1f%d\t-\n" % i)
    f.write("other\x1f1\to\n")
PY
run
check_eq "$(owners)" "$(truth)" "owners with a full memo"
check_eq "$(($(wc -l <"$C/cache.memo") - 1))" 4096 "answers kept in the memo"
check_eq "$(opens 'cache\.sqlite')" 0 "opens of cache.sqlite after the full memo was rewritten"
echo "ok: a full memo keeps its newest answers"

# cache clear removes it
check_exit 0 "cache clear" -- "$PROVENANCE" --cache "$C" cache clear
[ -e "$C/cache.memo" ] && fail "cache clear left cache.memo"
echo "ok: cache clear removes the memo"
