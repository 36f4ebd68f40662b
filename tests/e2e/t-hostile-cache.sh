#!/usr/bin/env bash
# State that must not outlive a run or leave the cache (issue 17 items 4, 13,
# 14, 16): cache.sqlite and its -wal planted as symlinks (the file they point
# at must stay byte for byte as it was, a dangling link must not create its
# target), temporaries of a run killed mid-spool removed by the next run and
# by `cache clear` (a live run's kept: /proc says which pids live), a cache
# with corrupt pages (damage made with python's sqlite3 page map, confirmed by
# python's PRAGMA quick_check) set aside once, not warned about on every run,
# and HOME unset: the cache in a private /tmp directory, not the cwd.
. "$(dirname "$0")/lib.sh"

R="$T/root"
mkdir -p "$R/var/lib/dpkg/info" "$R/usr/lib/x86_64-linux-gnu"
printf 'Package: libfoo1\nStatus: install ok installed\nArchitecture: amd64\nSource: foo\nVersion: 1.2-3\n\n' \
	>"$R/var/lib/dpkg/status"
{ echo /.; for i in $(seq 1 20000); do echo "/usr/share/foo/a-file-with-a-long-name-$i.txt"; done
  echo /usr/lib/x86_64-linux-gnu/libfoo.so.1; } >"$R/var/lib/dpkg/info/libfoo1:amd64.list"
printf '#0  0x00007f0000001000 in foo () from /usr/lib/x86_64-linux-gnu/libfoo.so.1\n#1  0x0000000000401136 in main () at main.c:5\n' >"$T/bt.txt"
run() {	# run CACHE: resolve through the fixture root; stderr in $T/run.err
	"$PROVENANCE" --cache "$1" resolve --offline --sysroot "$R" --format json "$T/bt.txt" \
		>"$T/run.json" 2>"$T/run.err"
}
owner() { json_get "$T/run.json" '(d["modules"][0].get("package") or {}).get("name")'; }

# ---- 4. cache.sqlite as a symlink ----
C="$T/c4"; mkdir -p "$C"
printf 'precious\n' >"$T/outside"; cp "$T/outside" "$T/outside.orig"
ln -s "$T/outside" "$C/cache.sqlite"
run "$C"; rc=$?
case $rc in 0|1) ;; *) cat "$T/run.err"; fail "run with a symlinked cache.sqlite: exit $rc" ;; esac
cmp -s "$T/outside" "$T/outside.orig" || fail "the file cache.sqlite pointed at was written"
[ -L "$C/cache.sqlite" ] && fail "cache.sqlite is still the planted symlink"
[ -f "$C/cache.sqlite" ] || fail "no cache was made in place of the symlink"
ls "$C"/cache.sqlite.corrupt-* >/dev/null 2>&1 || fail "the symlink was not set aside"
check_eq "$(owner)" libfoo1 "owner through a fresh cache (dpkg -S equivalent: the .list names it)"
echo "ok: a symlinked cache.sqlite is set aside, its target untouched"
C="$T/c4b"; mkdir -p "$C"
ln -s "$T/created-by-link" "$C/cache.sqlite"
ln -s "$T/outside" "$C/cache.sqlite-wal"
run "$C"
[ -e "$T/created-by-link" ] && fail "a dangling cache.sqlite link created its target"
cmp -s "$T/outside" "$T/outside.orig" || fail "the file cache.sqlite-wal pointed at was written"
echo "ok: a dangling link creates nothing; a -wal link is not followed"

# ---- 14. corrupt pages: set aside once ----
C="$T/c14"
run "$C" || [ $? = 1 ] || fail "cold run failed"
python3 - "$C/cache.sqlite" <<'PY' || fail "cannot corrupt the fixture cache"
import sqlite3, sys
p = sys.argv[1]
c = sqlite3.connect(p)
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
keep = {r[0] for r in c.execute("select rootpage from sqlite_master where name in ('indexes','sqlite_autoindex_indexes_1')")}
n, ps = c.execute('pragma page_count').fetchone()[0], c.execute('pragma page_size').fetchone()[0]
c.close()
with open(p, 'r+b') as f:
    for pg in range(2, n + 1):
        if pg not in keep:
            f.seek((pg - 1) * ps + 8); f.write(b'\xff' * 64)
c = sqlite3.connect(p)
r = c.execute('pragma quick_check').fetchone()[0]
sys.exit(0 if r != 'ok' else 1)
PY
echo "ok: python's quick_check calls the planted cache damaged"
run "$C"
grep -q "malformed\|corrupt" "$T/run.err" || { cat "$T/run.err"; fail "the damage went unnoticed"; }
ls "$C"/cache.sqlite.corrupt-* >/dev/null 2>&1 || { cat "$T/run.err"; fail "the damaged cache was not set aside"; }
run "$C"
grep -q "malformed\|corrupt" "$T/run.err" && { cat "$T/run.err"; fail "warned about the damage again on the next run"; }
check_eq "$(owner)" libfoo1 "owner after the damaged cache was set aside"
check_eq "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("pragma quick_check").fetchone()[0])' "$C/cache.sqlite")" ok \
	"the rebuilt cache passes quick_check"

# ---- 13. temporaries of a killed run ----
C="$T/c13"
# an ELF core header (e_type 4) on a pipe, and then nothing: the run spools and waits
mkfifo "$T/core.fifo"
python3 -c 'import sys,time,struct
h = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack("<HHI", 4, 62, 1) + b"\1" * 9000
f = open(sys.argv[1], "wb"); f.write(h); f.flush(); time.sleep(30)' "$T/core.fifo" &
writer=$!
"$PROVENANCE" --cache "$C" analyze - <"$T/core.fifo" >/dev/null 2>&1 &
victim=$!
for i in $(seq 1 100); do ls "$C"/tmp/input-* >/dev/null 2>&1 && break; sleep 0.1; done
ls "$C"/tmp/input-* >/dev/null 2>&1 || fail "the run did not spool (test is not testing)"
kill -9 $victim; wait $victim 2>/dev/null
kill $writer 2>/dev/null; wait $writer 2>/dev/null
stale=$(ls "$C"/tmp/input-* | grep -v '\.lock$')
[ "$(printf '%s\n' "$stale" | wc -l)" = 1 ] || fail "not one temporary left by the killed run: $stale"
note "left by the killed run: $stale"
# a live run's temporary: this shell's pid and start time (from /proc)
live="$C/tmp/input-$$-$(awk '{print $22}' /proc/$$/stat)-live00"
: >"$live"
run "$C"
[ -e "$stale" ] && fail "the next run left the killed run's temporary"
[ -e "$stale.lock" ] && fail "the next run left the killed run's lock file"
[ -e "$live" ] || fail "the next run removed a live run's temporary"
echo "ok: the next run removes a dead run's temporary, keeps a live one's"
cp "$live" "$C/tmp/input-$$-1-reused"	# this pid, another start time: pid reused
"$PROVENANCE" --cache "$C" cache clear >/dev/null || fail "cache clear failed"
[ -e "$C/tmp/input-$$-1-reused" ] && fail "cache clear left a dead run's temporary (pid reused)"
[ -e "$live" ] || fail "cache clear removed a live run's temporary"
echo "ok: cache clear removes a dead run's temporary"

# ---- 16. HOME unset ----
mkdir -p "$T/cwd"
( cd "$T/cwd" && env -u HOME -u XDG_CACHE_HOME -u PROVENANCE_CACHE "$PROVENANCE" resolve --offline "$T/bt.txt" >/dev/null 2>"$T/nohome.err" )
rc=$?
case $rc in 0|1) ;; *) cat "$T/nohome.err"; fail "HOME unset: exit $rc" ;; esac
[ -e "$T/cwd/.provenance-cache" ] && fail "HOME unset: the cache landed in the current directory"
d="/tmp/provenance-$(id -u)"
[ -d "$d" ] && [ ! -L "$d" ] || fail "HOME unset: no $d"
check_eq "$(stat -c '%a %u' "$d")" "700 $(id -u)" "HOME unset: $d mode and owner"
