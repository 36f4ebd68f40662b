#!/usr/bin/env bash
# The store is data (issue 36): with HOME and XDG_* in $T, the default store
# is $XDG_DATA_HOME/provenance/store.sqlite (else ~/.local/share/provenance),
# never in the cache directory; a store an older provenance left in the cache
# directory is moved there with one line on stderr and its crashes kept
# (python3's sqlite3 counts them); `cache clear` leaves every store.
. "$(dirname "$0")/lib.sh"

command -v gdb >/dev/null || skip "no gdb"
mkdir -p "$T/bin" "$T/home"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
(cd "$T/bin" && gdb -nx -batch -ex run -ex bt ./nullmain) >"$T/bt.txt" 2>&1
grep -q SIGSEGV "$T/bt.txt" || fail "gdb did not see the NULL read"
"$PROVENANCE" resolve --offline --format json "$T/bt.txt" >"$T/a.json" 2>/dev/null
python3 - "$T/a.json" "$T/three.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
out = []
for i in range(3):
    x = json.loads(json.dumps(r)); x["crash"]["host"] = "h%d" % i; x["crash"]["time"] = "2026-11-0%dT00:00:00Z" % (i + 1)
    out.append(x)
json.dump(out, open(sys.argv[2], "w"))
PY
count() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM crashes").fetchone()[0])' "$1"; }
export HOME="$T/home"
CACHE="$PROVENANCE_CACHE"

# XDG_DATA_HOME set
check_exit 0 "import into the default store" -- "$PROVENANCE" import "$T/three.json"
[ -f "$XDG_DATA_HOME/provenance/store.sqlite" ] || fail "no store at \$XDG_DATA_HOME/provenance/store.sqlite"
[ ! -e "$CACHE/store.sqlite" ] || fail "a store in the cache directory"
check_eq "$(count "$XDG_DATA_HOME/provenance/store.sqlite")" 3 "crashes in \$XDG_DATA_HOME/provenance/store.sqlite (sqlite3)"
check_exit 0 "triage of the default store" -- "$PROVENANCE" triage --format json
check_eq "$(json_get "$T/last.out" "d['total']")" 3 "triage reads the same store"
check_exit 0 "cache clear" -- "$PROVENANCE" cache clear
check_eq "$(count "$XDG_DATA_HOME/provenance/store.sqlite")" 3 "cache clear leaves the store (sqlite3)"

# no XDG_DATA_HOME: ~/.local/share/provenance; an old store in the cache directory is moved there
unset XDG_DATA_HOME
mkdir -p "$CACHE"
check_exit 0 "an old store in the cache directory" -- "$PROVENANCE" import --store "$CACHE/store.sqlite" "$T/three.json"
check_exit 0 "triage of the default store" -- "$PROVENANCE" triage --format json
check_eq "$(wc -l <"$T/last.err")" 1 "one line about the move"
check_match "$(cat "$T/last.err")" "moved the crash store from the cache directory '$CACHE/store.sqlite' to '$HOME/.local/share/provenance/store.sqlite'" "the line says from where to where"
check_eq "$(json_get "$T/last.out" "d['total']")" 3 "the moved store's crashes"
[ ! -e "$CACHE/store.sqlite" ] && [ ! -e "$CACHE/store.sqlite-wal" ] || fail "the old store is still in the cache directory"
check_eq "$(count "$HOME/.local/share/provenance/store.sqlite")" 3 "crashes in ~/.local/share/provenance/store.sqlite (sqlite3)"
check_exit 0 "triage again" -- "$PROVENANCE" triage --format json
check_eq "$(wc -c <"$T/last.err")" 0 "no line once moved"
check_exit 0 "cache clear" -- "$PROVENANCE" cache clear
check_eq "$(count "$HOME/.local/share/provenance/store.sqlite")" 3 "cache clear leaves the store (sqlite3)"
echo "ok: the default store is in the data directory; an old one is moved there; cache clear leaves it"
