#!/usr/bin/env bash
# Data races in libstdc++ containers (issue 34 item 8): fixtures/crashers/
# stl-race.cpp's threads insert into one std::unordered_map under a shared
# (read) lock until it crashes. The truth is gdb's `thread apply all bt`: the
# crashing thread and the other threads in the map's code with the same
# `this`; the data-race evidence must name those threads and that address.
# A SIGABRT in the map's code with another thread in it is found too.
# A crash in _Hashtable code with no other thread in the map gets no
# data-race pattern; a map whose _M_buckets was overwritten with a misaligned
# pointer gets it, with the fields gdb prints.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb python3 c++ timeout; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers

c++ -g -O1 -pthread -Wno-class-memaccess -o "$T/stl-race" "$F/stl-race.cpp" || fail "cannot build stl-race.cpp"

# gdb's view: "LWP THIS" for every thread with a frame in the map's code
# (_Hashtable, _Map_base, _Hashtable_alloc, unordered_map) whose this is known
gdb_map_threads() {
	gdb -nx -batch -ex "set width 0" -ex "thread apply all bt" "$T/stl-race" "$1" 2>/dev/null |
		awk '/^Thread [0-9]+ .*\(LWP [0-9]+\)/ { lwp = $0; sub(/.*\(LWP /, "", lwp); sub(/\).*/, "", lwp) }
		     /^#[0-9]/ && /std::(_Hashtable|__detail::_Map_base|__detail::_Hashtable_alloc|unordered_map)</ &&
		     match($0, /this=0x[0-9a-f]+/) { print lwp, substr($0, RSTART + 5, RLENGTH - 5) }' | sort -u
}

# 1. the race: a core where gdb shows the crashing thread and another thread
#    in the map's code on the same object (up to 8 runs, 20 s each)
mkdir -p "$T/race"
found=
for try in 1 2 3 4 5 6 7 8; do
	rm -f "$T/race"/core "$T/race"/core.*
	( cd "$T/race" && ulimit -c unlimited && exec timeout -s KILL 20 "$T/stl-race" ) >/dev/null 2>&1
	rc=$?
	core=$(ls -t "$T/race"/core "$T/race"/core.* 2>/dev/null | head -1)
	[ $rc -ge 128 ] && [ $rc -ne 137 ] && [ -n "$core" ] || { note "run $try: exit $rc, no core"; continue; }
	crashed=$(gdb -nx -batch -ex "info threads" "$T/stl-race" "$core" 2>/dev/null |
		sed -n 's/^\* *[0-9]* *Thread .*(LWP \([0-9]*\)).*/\1/p')
	gdb_map_threads "$core" >"$T/map.txt"
	obj=$(awk -v l="$crashed" '$1 == l { print $2; exit }' "$T/map.txt")
	others=$(awk -v l="$crashed" -v o="$obj" '$1 != l && $2 == o { print $1 }' "$T/map.txt" | sort -u)
	if [ -n "$crashed" ] && [ -n "$obj" ] && [ -n "$others" ]; then
		found=1
		break
	fi
	note "run $try: gdb shows no second thread in the map's code ($(tr '\n' ' ' <"$T/map.txt"), crashed $crashed)"
done
[ -n "$found" ] || skip "stl-race gave no core with two threads in the map's code in 8 runs"
note "gdb: crashing thread $crashed in the map $obj; other threads there: $(echo $others)"
check_exit 0 "analyze stl-race" -- "$PROVENANCE" analyze "$core" --format json
cp "$T/last.out" "$T/race.json"
ev=$(json_get "$T/race.json" '[p["evidence"] for p in d["crash"]["patterns"] if p["id"] == "data-race"]')
[ "$ev" != "[]" ] || fail "no data-race pattern: $(json_get "$T/race.json" 'd["crash"]["patterns"]')"
check_match "$ev" "the crashing thread $crashed in frame #[0-9]* std::" "the crashing thread (gdb: LWP $crashed)"
check_match "$ev" "object $obj " "the map's address (gdb: this=$obj)"
for o in $others; do
	check_match "$ev" "thread $o in frame #[0-9]* std::" "the other thread in the map (gdb: LWP $o)"
done
# a NULL dereference in the race is both: null-deref stays
addr=$(json_get "$T/race.json" 'd["signal"]["address"]')
note "fault address $addr"
if case $addr in 0x*) [ $((addr)) -lt 65536 ] ;; *) false ;; esac; then
	nd=$(json_get "$T/race.json" '[p["id"] for p in d["crash"]["patterns"] if p["id"] == "null-deref"]')
	check_match "$nd" "null-deref" "a NULL dereference in the race keeps its null-deref pattern"
fi

# 2. a crash in _Hashtable code with another thread alive but not in the map:
#    null-deref, never data-race
mkdir -p "$T/single"
core=$(make_core "$T/single" "$T/stl-race" single) || exit 1
gdb_map_threads "$core" >"$T/single-map.txt"
n=$(awk '{ print $1 }' "$T/single-map.txt" | sort -u | wc -l)
[ "$n" = 1 ] || fail "single: gdb shows $n threads in the map's code: $(cat "$T/single-map.txt")"
nthreads=$(gdb -nx -batch -ex "info threads" "$T/stl-race" "$core" 2>/dev/null | grep -c 'LWP')
[ "$nthreads" -ge 2 ] || fail "single: gdb shows $nthreads threads, expected the sleeper too"
check_exit 0 "analyze stl-race single" -- "$PROVENANCE" analyze "$core" --format json
ids=$(json_get "$T/last.out" '[p["id"] for p in d["crash"]["patterns"]]')
check_match "$ids" "null-deref" "single: the NULL dereference"
case "$ids" in *data-race*) fail "single: a data-race pattern with one thread in the map: $(json_get "$T/last.out" 'd["crash"]["patterns"]')" ;; esac

# 3. a hash table's fields from core memory: _M_buckets overwritten with the
#    misaligned 0x7003, find() faults; the values are gdb's, in frame 0
#    (std::_Hashtable<…>::_M_find_before_node)
mkdir -p "$T/buckets"
core=$(make_core "$T/buckets" "$T/stl-race" buckets) || exit 1
gdbv() { gdb -nx -batch -ex "set width 0" -ex "frame 0" "$@" "$T/stl-race" "$core" 2>/dev/null | sed -n 's/^\$[0-9]* = //p'; }
this=$(gdbv -ex "p/x this")
bk=$(gdbv -ex "p/x this->_M_buckets")
cnt=$(gdbv -ex "p this->_M_bucket_count")
el=$(gdbv -ex "p this->_M_element_count")
note "gdb: this=$this _M_buckets=$bk _M_bucket_count=$cnt _M_element_count=$el"
[ -n "$this" ] && [ -n "$bk" ] && [ -n "$cnt" ] || fail "buckets: gdb gave no fields (this=$this buckets=$bk)"
check_exit 0 "analyze stl-race buckets" -- "$PROVENANCE" analyze "$core" --format json
ev=$(json_get "$T/last.out" '[p["evidence"] for p in d["crash"]["patterns"] if p["id"] == "data-race"]')
check_match "$ev" "hash table at $this .* has _M_buckets $bk is not 8-byte aligned \\(_M_buckets $bk, _M_bucket_count $cnt, _M_element_count $el\\)" \
	"buckets: the misaligned bucket array with gdb's fields"

# 4. SIGABRT in the map's code (its allocator aborts inside operator[]) while
#    another thread is inside the same map's bucket(): data-race (and abort)
mkdir -p "$T/abort"
core=$(make_core "$T/abort" timeout -s KILL 20 "$T/stl-race" abort) || exit 1
crashed=$(gdb -nx -batch -ex "info threads" "$T/stl-race" "$core" 2>/dev/null |
	sed -n 's/^\* *[0-9]* *Thread .*(LWP \([0-9]*\)).*/\1/p')
gdb_map_threads "$core" >"$T/abort-map.txt"
obj=$(awk -v l="$crashed" '$1 == l { print $2; exit }' "$T/abort-map.txt")
others=$(awk -v l="$crashed" -v o="$obj" '$1 != l && $2 == o { print $1 }' "$T/abort-map.txt" | sort -u)
note "gdb: crashing thread $crashed in the map $obj; other threads there: $(echo $others)"
[ -n "$obj" ] && [ -n "$others" ] || fail "abort: gdb shows no two threads in the map: $(cat "$T/abort-map.txt")"
check_exit 0 "analyze stl-race abort" -- "$PROVENANCE" analyze "$core" --format json
ev=$(json_get "$T/last.out" '[p["evidence"] for p in d["crash"]["patterns"] if p["id"] == "data-race"]')
check_match "$ev" "the crashing thread $crashed in frame #[0-9]* std::.* and thread $others in frame #[0-9]* std::.* object $obj " \
	"abort: the two threads in the map (gdb: LWP $crashed, $others, this=$obj)"
ids=$(json_get "$T/last.out" '[p["id"] for p in d["crash"]["patterns"]]')
check_match "$ids" "abort" "abort: the abort pattern stays"
