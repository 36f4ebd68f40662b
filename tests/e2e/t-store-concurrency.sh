#!/usr/bin/env bash
# One crash store, several writers: two imports and a `resolve --store` at
# once all land (the count is the number of distinct reports given, counted
# here); then imports SIGKILLed at a random moment leave a store that
# SQLite's own integrity_check (python3's sqlite3, not provenance) calls ok,
# in which every stored crash is whole (its frames rows = the frames of its
# stored report), and a rerun of the import completes it.
. "$(dirname "$0")/lib.sh"

can_dump_core
mkdir -p "$T/bin"
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
core=$(make_core "$T/bin" ./nullmain) || exit $?
S="$T/store.sqlite"

"$PROVENANCE" resolve --offline --format json "$core" >"$T/a.json" 2>"$T/a.err"
[ $? -le 1 ] || { cat "$T/a.err"; fail "resolve of the core"; }
gen() { python3 "$TOP/tests/e2e/store-gen.py" "$T/$1.jsonl" "$T/$1.truth" "$2" 100 "$3" "$T/a.json" || fail "store-gen.py"; }
gen set1 1500 1
gen set2 1500 2
gen set3 6000 3
distinct() { cat "$@" | sort -u | wc -l; }
count() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM crashes").fetchone()[0])' "$S"; }
integrity() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])' "$S"; }
whole() {	# every crash has its report and exactly the frames the report lists
	python3 - "$S" <<'EOF'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
frames = dict(db.execute("SELECT crash_id, count(*) FROM frames GROUP BY crash_id"))
reports = dict(db.execute("SELECT crash_id, json FROM reports"))
bad = 0
for (cid,) in db.execute("SELECT id FROM crashes"):
    if cid not in reports:
        bad += 1
        continue
    want = sum(len(t["frames"]) for t in json.loads(reports[cid])["threads"])
    bad += frames.get(cid, 0) != want
orphans = db.execute("SELECT count(*) FROM frames WHERE crash_id NOT IN (SELECT id FROM crashes)").fetchone()[0]
print("ok" if bad == 0 and orphans == 0 else "%d incomplete crashes, %d orphan frames" % (bad, orphans))
EOF
}

# ---- two imports and a resolve --store at once ----
"$PROVENANCE" import --store "$S" "$T/set1.jsonl" 2>"$T/i1.err" & p1=$!
"$PROVENANCE" import --store "$S" - <"$T/set2.jsonl" 2>"$T/i2.err" & p2=$!
"$PROVENANCE" resolve --offline --store="$S" --host live "$core" >"$T/r.out" 2>"$T/r.err" & p3=$!
wait $p1; r1=$?
wait $p2; r2=$?
wait $p3; r3=$?
[ $r1 = 0 ] && [ $r2 = 0 ] && [ $r3 -le 1 ] || { cat "$T/i1.err" "$T/i2.err" "$T/r.err"; fail "concurrent writers exited $r1 $r2 $r3"; }
check_eq "$(count)" $(( $(distinct "$T/set1.jsonl" "$T/set2.jsonl") + 1 )) "crashes after two imports and a resolve at once"
check_eq "$(integrity)" ok "integrity_check after concurrent writers"
check_eq "$(whole)" ok "every crash whole after concurrent writers"

# ---- killed imports ----
killed=0
for round in 1 2 3; do
	before=$(count)
	"$PROVENANCE" import --store "$S" "$T/set3.jsonl" 2>/dev/null & pv=$!
	"$PROVENANCE" query --store "$S" "SELECT count(*) FROM crashes" >/dev/null 2>&1 &	# a reader meanwhile
	sleep "$(printf '0.%03d' $((200 + RANDOM % 700)))"
	kill -KILL $pv 2>/dev/null
	wait $pv; rv=$?
	wait
	[ $rv = 137 ] && killed=$((killed + 1))
	check_eq "$(integrity)" ok "round $round: integrity_check after SIGKILL (exit $rv)"
	check_eq "$(whole)" ok "round $round: every crash whole after SIGKILL"
	after=$(count)
	[ "$after" -ge "$before" ] || fail "round $round: crashes went from $before to $after"
	note "round $round: $before -> $after crashes"
done
[ $killed -gt 0 ] || fail "no import was still running when killed: the kills tested nothing"
check_exit 0 "the import rerun after the kills" -- "$PROVENANCE" import --store "$S" "$T/set3.jsonl"
check_eq "$(count)" $(( $(distinct "$T/set1.jsonl" "$T/set2.jsonl" "$T/set3.jsonl") + 1 )) "crashes after the rerun"
check_eq "$(integrity)" ok "integrity_check at the end"
check_eq "$(whole)" ok "every crash whole at the end"
