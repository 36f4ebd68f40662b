#!/usr/bin/env bash
# The SQLite cache: two runs at once, warm equals cold, a changed database is
# re-indexed, a garbage file is set aside and rebuilt, stats and clear.
# Integrity is checked with python3's sqlite3 module, not with provenance.
. "$(dirname "$0")/lib.sh"

"$TOP/fixtures/roots/build-root.sh" "$T/root" "$T/truth" || { rc=$?; [ $rc = 77 ] && exit 77; fail "cannot build the fixture root"; }
C="$T/cache"
db="$C/cache.sqlite"
integrity() {
	python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
# a run killed before its schema was committed leaves no table at all:
# consistent, and nothing indexed
has = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
count = lambda t: c.execute("SELECT count(*) FROM " + t).fetchone()[0] if t in has else 0
print(c.execute("PRAGMA integrity_check").fetchone()[0],
      c.execute("PRAGMA user_version").fetchone()[0], count("indexes"), count("files"))
PY
}

# two cold runs at once on one (new) cache directory
"$PROVENANCE" --cache "$C" env --sysroot "$T/root" --format json >"$T/a.json" 2>"$T/a.err" &
pa=$!
"$PROVENANCE" --cache "$C" env --sysroot "$T/root" --format json >"$T/b.json" 2>"$T/b.err" &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
[ $ra = 0 ] && [ $rb = 0 ] || { cat "$T/a.err" "$T/b.err"; fail "concurrent runs exited $ra and $rb"; }
cmp -s "$T/a.json" "$T/b.json" || fail "concurrent runs disagree"
echo "ok: two runs at once both succeed and agree"
[ "$(stat -c %a "$C")" = 700 ] || fail "cache directory mode is $(stat -c %a "$C"), expected 700"
echo "ok: cache directory is 0700"
read -r ok ver nidx nfiles <<<"$(integrity "$db")"
check_eq "$ok" ok "integrity_check"
check_eq "$ver" 1 "schema version (user_version)"
[ "$nidx" -ge 4 ] || fail "expected indexes for dpkg, rpm, pip and conda, got $nidx"
[ "$nfiles" -gt 0 ] || fail "no file entries"
echo "ok: $nidx indexes, $nfiles file entries"

# warm: same answer, the index is not rebuilt (no dpkg warnings this time)
check_exit 0 "warm env" -- "$PROVENANCE" --cache "$C" env --sysroot "$T/root" --format json
cmp -s "$T/last.out" "$T/a.json" || fail "warm run differs from the cold one"
grep -q "broken stanza" "$T/last.err" && fail "warm run re-read the dpkg database"
echo "ok: warm run equals cold and reads the index from the cache"

# a changed dpkg database is re-indexed: install one more package for real
# (dpkg itself refuses the fixture's deliberately broken stanza: drop it first)
sed -i '/^Package: $/,$d' "$T/root/var/lib/dpkg/status"
mkdir -p "$T/deb/DEBIAN" "$T/deb/usr/lib/x86_64-linux-gnu"
printf 'Package: libnew9\nVersion: 9.9-1\nArchitecture: amd64\nMaintainer: t <t@example.invalid>\nDescription: x\n' >"$T/deb/DEBIAN/control"
: >"$T/deb/usr/lib/x86_64-linux-gnu/libnew.so.9"
dpkg-deb --root-owner-group --build "$T/deb" "$T/libnew9.deb" >/dev/null || fail "dpkg-deb"
dpkg --root="$T/root" --force-all --force-script-chrootless --no-triggers -i "$T/libnew9.deb" >/dev/null 2>&1 || fail "dpkg -i"
want=$(dpkg-query --admindir="$T/root/var/lib/dpkg" -W -f='${Version}' libnew9)
check_exit 0 "env after dpkg -i" -- "$PROVENANCE" --cache "$C" env --sysroot "$T/root" --format json
check_eq "$(json_get "$T/last.out" "[c['version'] for c in d['components'] if c['name']=='libnew9'][0]")" "$want" \
	"newly installed package seen through the cache"

# stats agrees with the database
check_exit 0 "cache stats" -- "$PROVENANCE" --cache "$C" cache stats
read -r ok ver nidx nfiles <<<"$(integrity "$db")"
grep -Eq "^indexes: +$nidx \(.*, $nfiles files\)" "$T/last.out" || { cat "$T/last.out"; fail "stats disagree with the database ($nidx indexes, $nfiles files)"; }
echo "ok: stats agree with the database"

# garbage instead of a database: set aside with a warning, rebuilt
rm -f "$db" "$db-wal" "$db-shm"
head -c 5000 /dev/urandom >"$db"
check_exit 0 "env on a garbage cache" -- "$PROVENANCE" --cache "$C" env --sysroot "$T/root" --format json
grep -q "corrupt" "$T/last.err" || { cat "$T/last.err"; fail "no warning for the garbage cache"; }
ls "$C"/cache.sqlite.corrupt-* >/dev/null 2>&1 || fail "garbage not set aside"
read -r ok ver nidx nfiles <<<"$(integrity "$db")"
check_eq "$ok" ok "integrity after rebuild"
[ "$nidx" -ge 4 ] || fail "rebuilt cache has $nidx indexes"
echo "ok: garbage set aside and rebuilt"

# a foreign SQLite database is not trusted either
rm -f "$C"/cache.sqlite*
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("create table t(x)"); c.commit()' "$db"
check_exit 0 "env on a foreign database" -- "$PROVENANCE" --cache "$C" env --sysroot "$T/root"
grep -q "not ours" "$T/last.err" || fail "no warning for a foreign database"
echo "ok: foreign database set aside"

# a run killed while it writes the host's (large) dpkg index leaves a
# consistent database: no index or the whole index, never half of one
if [ -r /var/lib/dpkg/status ]; then
	K="$T/killed"
	"$PROVENANCE" --cache "$K" env >/dev/null 2>&1 &
	pk=$!
	sleep 0.3
	kill -9 $pk 2>/dev/null
	wait $pk 2>/dev/null
	if [ -f "$K/cache.sqlite" ]; then
		read -r ok ver nidx nfiles_killed <<<"$(integrity "$K/cache.sqlite")"
		check_eq "$ok" ok "integrity after kill -9"
		check_exit 0 "env after a killed run" -- "$PROVENANCE" --cache "$K" env
		read -r ok ver nidx nfiles_full <<<"$(integrity "$K/cache.sqlite")"
		check_eq "$ok" ok "integrity after the next run"
		python3 - "$K/cache.sqlite" <<'PY' || fail "an index is incomplete after kill -9"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
# every index has its packages and files (a torn write would leave an index without them)
for (i, kind) in c.execute("SELECT id, kind FROM indexes"):
	n = c.execute("SELECT count(*) FROM packages WHERE index_id=?", (i,)).fetchone()[0]
	assert n > 0 or kind != "dpkg", (i, kind)
print("ok: no torn index")
PY
	fi
fi

# clear removes the database and the mirrors, nothing else
mkdir -p "$C/mirrors/x.git" "$C/keep"
echo data >"$C/mirrors/x.git/HEAD"
check_exit 0 "cache clear" -- "$PROVENANCE" --cache "$C" cache clear
[ ! -e "$db" ] && [ ! -e "$C/mirrors" ] || fail "clear left the database or the mirrors"
[ -d "$C/keep" ] || fail "clear removed something it does not own"
echo "ok: clear removed the database and the mirrors only"
mkdir -p "$T/home"
: >"$T/home/cache.sqlite"
HOME="$T/home" check_exit 2 "clear refuses \$HOME" -- env HOME="$T/home" "$PROVENANCE" --cache "$T/home" cache clear
[ -e "$T/home/cache.sqlite" ] || fail "clear of \$HOME removed a file"
if [ ! -e /cache.sqlite ] && [ ! -e /mirrors ]; then
	check_exit 2 "clear refuses /" -- "$PROVENANCE" --cache / cache clear
fi
exit 0
