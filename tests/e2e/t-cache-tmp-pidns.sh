#!/usr/bin/env bash
# A cache shared across PID namespaces (a container, or another host on an
# NFS home) keeps a live run's temporary: a run inside `unshare -fp
# --mount-proc` spools a gzip'd backtrace from a pipe and waits for the rest;
# a run outside the namespace (resolve, then `cache clear`) must leave its
# temporary alone (the pid in its name means nothing here), and the inside
# run then finishes with the right frames (truth: the backtrace this test
# wrote). Then the inside run is killed mid-spool: its lock goes with it and
# the next run outside removes the temporary and its lock file.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "unshare -p needs root"
unshare -fp --mount-proc true 2>/dev/null || skip "no PID namespaces here (unshare -fp --mount-proc)"
C=$T/cache-shared
# 3,000 frames with random names: a gzip stream of some 60 KB, fed in two parts
python3 -c 'import random,sys
r = random.Random(39)
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        f.write("#%d  0x%016x in fn_%032x () at src/m%d.c:%d\n" % (i, 0x401000 + 16 * i, r.getrandbits(128), i, i + 1))' "$T/bt.txt"
gzip -9 -c "$T/bt.txt" >"$T/bt.gz"
size=$(stat -c %s "$T/bt.gz")
[ "$size" -gt 30000 ] || fail "the gzip stream is too small to feed in parts ($size bytes)"
head -c 16384 "$T/bt.gz" >"$T/part1"
tail -c +16385 "$T/bt.gz" >"$T/part2"
want=$(sed -n '1s/.* in \(fn_[0-9a-f]*\) .*/\1/p' "$T/bt.txt")
outside() { "$PROVENANCE" --cache "$C" resolve --offline --format json "$T/small.txt" >/dev/null 2>&1; }
printf '#0  0x0000000000401136 in main () at main.c:5\n' >"$T/small.txt"
outside || fail "a run outside failed"	# makes the cache
temps() { find "$C/tmp" -maxdepth 1 -name 'input-*' ! -name '*.lock' 2>/dev/null; }

inside_start() {	# a run in a new PID namespace, spooling from $T/fifo
	rm -f "$T/fifo"; mkfifo "$T/fifo"
	unshare -fp --mount-proc --kill-child "$PROVENANCE" --cache "$C" resolve --offline --format json - \
		<"$T/fifo" >"$T/inside.json" 2>"$T/inside.err" &
	inside=$!
	exec 7>"$T/fifo"
	cat "$T/part1" >&7
	for i in $(seq 1 300); do [ -n "$(temps)" ] && break; sleep 0.1; done
	tmp=$(temps)
	[ -n "$tmp" ] || { cat "$T/inside.err"; fail "the run inside did not spool (the test is not testing)"; }
	echo "the inside run's temporary: $tmp"
}

# ---- a live run's temporary survives runs outside its namespace ----
inside_start
outside || fail "the run outside failed"
[ -e "$tmp" ] || fail "a run outside the namespace removed a live run's temporary"
"$PROVENANCE" --cache "$C" cache clear >/dev/null 2>&1 || fail "cache clear failed"
[ -e "$tmp" ] || fail "cache clear outside the namespace removed a live run's temporary"
cat "$T/part2" >&7
exec 7>&-
wait $inside; rc=$?
[ "$rc" -le 1 ] || { cat "$T/inside.err"; fail "the run inside exits $rc"; }
check_eq "$(json_get "$T/inside.json" "len(d['threads'][0]['frames'])")" 3000 "the inside run's frames"
check_eq "$(json_get "$T/inside.json" "d['threads'][0]['frames'][0]['function']")" "$want" "the inside run's frame #0"
[ -z "$(ls "$C/tmp" 2>/dev/null)" ] || { ls -l "$C/tmp"; fail "the inside run left files in tmp"; }
echo "ok: a live run's temporary in another PID namespace survives"

# ---- a killed run's temporary: its lock is gone, the next run removes it ----
inside_start
kill -9 $inside; wait $inside 2>/dev/null
exec 7>&-
# --kill-child: the run (the namespace's init) is killed with unshare; wait until its lock is free
for i in $(seq 1 300); do flock -n -s "$tmp.lock" true 2>/dev/null && break; sleep 0.1; done
outside || fail "the run outside failed"
[ -e "$tmp" ] && fail "a killed run's temporary was left"
[ -e "$tmp.lock" ] && fail "a killed run's lock file was left"
echo "ok: a killed run's temporary and lock file are removed"
