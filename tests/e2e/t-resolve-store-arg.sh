#!/usr/bin/env bash
# "resolve --store x.db CORE" records into x.db (the store), never takes x.db
# as an input while recording into the default store; nor does an existing
# SQLite file with no extension after a bare --store. The truth: the reports
# table of each file, read with python's sqlite3.
. "$(dirname "$0")/lib.sh"
can_dump_core
C=$TOP/fixtures/crashers
cd "$T"
mkdir -p "$T/a"
build_fixture "$C/abort.c" "$T/a/prog"
core=$(make_core "$T/a" ./prog)
mkdir -p "$T/b"
cp "$T/a/prog" "$T/b/prog"
core2=$(make_core "$T/b" ./prog)
count() {
	python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from reports").fetchone()[0])' "$1"
}
"$PROVENANCE" --cache "$T/cache" resolve --offline --store "$T/x.db" "$core" >/dev/null 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve --store x.db CORE exited $rc"; }
[ -f "$T/x.db" ] || fail "x.db was not created as the store"
check_eq "$(count "$T/x.db")" 1 "reports in x.db"
# an existing SQLite store with no extension
"$PROVENANCE" --cache "$T/cache" resolve --offline --store="$T/crashes" "$core" >/dev/null 2>"$T/err" ||
	[ $? -le 1 ] || { cat "$T/err"; fail "resolve --store=crashes exited"; }
check_eq "$(count "$T/crashes")" 1 "reports in crashes after --store="
"$PROVENANCE" --cache "$T/cache" resolve --offline --store "$T/crashes" "$core2" >/dev/null 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve --store crashes CORE exited $rc"; }
check_eq "$(count "$T/crashes")" 2 "reports in crashes after --store crashes"
echo "--store PATH: the store, not an input"
