#!/usr/bin/env bash
# A vector's, a map's and a list's fields from core memory (issue 34 item
# 8): fixtures/crashers/stl-fields.cpp corrupts one container each way a
# racing writer could (a vector's _M_finish past _M_end_of_storage, a map's
# root pointer misaligned, a list node whose _M_prev does not point back),
# then a method of that container faults. The truth is gdb's `p/x` of the
# fields and the `this` of the container's frames in `bt`; the data-race
# evidence must name those values. A healthy map whose key's operator<
# dereferences NULL inside find() gets null-deref and no data-race.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb python3 c++; do command -v $c >/dev/null || skip "$c not installed"; done
B=$T/stl-fields
c++ -g -O0 -o "$B" "$TOP/fixtures/crashers/stl-fields.cpp" || fail "cannot build stl-fields.cpp"

# gdb's value of an expression in the core ($1 the core, then -ex ...)
gdbp() {
	local core=$1; shift
	gdb -nx -batch -ex "set width 0" "$@" "$B" "$core" 2>/dev/null | sed -n 's/^\$[0-9]* = //p'
}
# the frames in gdb's backtrace whose function matches $2 with this=$3
gdb_frame_on() {
	gdb -nx -batch -ex "set width 0" -ex bt "$B" "$1" 2>/dev/null |
		awk -v re="$2" -v obj="$3" '/^#[0-9]/ && $0 ~ re && index($0, "this=" obj) { print $1 }'
}
race_evidence() {
	json_get "$T/last.out" '[p["evidence"] for p in d["crash"]["patterns"] if p["id"] == "data-race"]'
}

# 1. a vector whose _M_finish is past _M_end_of_storage; its destructor faults
mkdir -p "$T/vector"
core=$(make_core "$T/vector" "$B" vector) || exit 1
this=$(gdbp "$core" -ex "p/x &vec" | sed 's/^(.*) //')
s=$(gdbp "$core" -ex "p/x vec._M_impl._M_start" | sed 's/^(.*) //')
f=$(gdbp "$core" -ex "p/x vec._M_impl._M_finish" | sed 's/^(.*) //')
e=$(gdbp "$core" -ex "p/x vec._M_impl._M_end_of_storage" | sed 's/^(.*) //')
note "gdb: &vec=$this _M_start=$s _M_finish=$f _M_end_of_storage=$e"
[ -n "$this" ] && [ -n "$f" ] && [ -n "$e" ] || fail "vector: gdb gave no fields"
[ $((f)) -gt $((e)) ] || fail "vector: gdb says _M_finish $f is not past _M_end_of_storage $e"
[ -n "$(gdb_frame_on "$core" "std::vector<" "$this")" ] || fail "vector: gdb shows no std::vector frame with this=$this"
check_exit 0 "analyze stl-fields vector" -- "$PROVENANCE" analyze "$core" --format json
check_match "$(race_evidence)" "in frame #[0-9]* the vector at $this \\(.this.\\) has _M_finish $f is past _M_end_of_storage $e .*\\(_M_start $s, _M_finish $f, _M_end_of_storage $e\\)" \
	"vector: _M_finish past _M_end_of_storage with gdb's fields"

# 2. a map whose root (the header's _M_parent) is the misaligned 0x7003
mkdir -p "$T/map"
core=$(make_core "$T/map" "$B" map) || exit 1
this=$(gdbp "$core" -ex "p/x &tree" | sed 's/^(.*) //')
hdr=$(gdbp "$core" -ex "p/x &tree._M_t._M_impl._M_header" | sed 's/^(.*) //')
root=$(gdbp "$core" -ex "p/x tree._M_t._M_impl._M_header._M_parent" | sed 's/^(.*) //')
left=$(gdbp "$core" -ex "p/x tree._M_t._M_impl._M_header._M_left" | sed 's/^(.*) //')
right=$(gdbp "$core" -ex "p/x tree._M_t._M_impl._M_header._M_right" | sed 's/^(.*) //')
cnt=$(gdbp "$core" -ex "p tree._M_t._M_impl._M_node_count")
note "gdb: &tree=$this header=$hdr _M_parent=$root _M_left=$left _M_right=$right _M_node_count=$cnt"
[ "$root" = 0x7003 ] || fail "map: gdb says the root is '$root', not 0x7003"
[ -n "$(gdb_frame_on "$core" "std::_Rb_tree<" "$this")" ] || fail "map: gdb shows no _Rb_tree frame with this=$this"
check_exit 0 "analyze stl-fields map" -- "$PROVENANCE" analyze "$core" --format json
check_match "$(race_evidence)" "in frame #[0-9]* the tree at $this \\(.this.\\) has _M_header._M_parent \\(the root\\) $root is not 8-byte aligned \\(_M_header at $hdr: _M_parent $root, _M_left $left, _M_right $right; _M_node_count $cnt\\)" \
	"map: the misaligned root with gdb's header fields"

# 3. a list whose third node's _M_prev points at the first node
mkdir -p "$T/list"
core=$(make_core "$T/list" "$B" list) || exit 1
L=lst._M_impl._M_node
this=$(gdbp "$core" -ex "p/x &lst" | sed 's/^(.*) //')
n1=$(gdbp "$core" -ex "p/x $L._M_next" | sed 's/^(.*) //')
n2=$(gdbp "$core" -ex "p/x $L._M_next->_M_next" | sed 's/^(.*) //')
n3=$(gdbp "$core" -ex "p/x $L._M_next->_M_next->_M_next" | sed 's/^(.*) //')
p3=$(gdbp "$core" -ex "p/x $L._M_next->_M_next->_M_next->_M_prev" | sed 's/^(.*) //')
last=$(gdbp "$core" -ex "p/x $L._M_prev" | sed 's/^(.*) //')
size=$(gdbp "$core" -ex "p $L._M_size")
note "gdb: &lst=$this nodes $n1 $n2 $n3; node 3's _M_prev=$p3; _M_prev=$last _M_size=$size"
[ -n "$n3" ] && [ "$p3" != "$n2" ] || fail "list: gdb says node 3's _M_prev '$p3' is node 2 '$n2'"
[ -n "$(gdb_frame_on "$core" "std::__cxx11::list<" "$this")" ] || fail "list: gdb shows no list frame with this=$this"
check_exit 0 "analyze stl-fields list" -- "$PROVENANCE" analyze "$core" --format json
check_match "$(race_evidence)" "in frame #[0-9]* the list at $this \\(.this.\\) has a node's _M_prev $p3 where the node before it is at $n2 \\(node 3 at $n3: .*\\(_M_node._M_next $n1, _M_node._M_prev $last, _M_size $size\\)" \
	"list: node 3's _M_prev does not point back, with gdb's values"

# 4. a healthy map: a NULL dereference in its key's operator< inside find()
mkdir -p "$T/healthy"
core=$(make_core "$T/healthy" "$B" healthy) || exit 1
this=$(gdbp "$core" -ex "p/x &hmap" | sed 's/^(.*) //')
cnt=$(gdbp "$core" -ex "p hmap._M_t._M_impl._M_node_count")
[ "$cnt" = 1 ] || fail "healthy: gdb says the map has '$cnt' nodes"
[ -n "$(gdb_frame_on "$core" "std::_Rb_tree<" "$this")" ] || fail "healthy: gdb shows no _Rb_tree frame with this=$this"
check_exit 0 "analyze stl-fields healthy" -- "$PROVENANCE" analyze "$core" --format json
ids=$(json_get "$T/last.out" '[p["id"] for p in d["crash"]["patterns"]]')
check_match "$ids" "null-deref" "healthy: the NULL dereference"
case "$ids" in *data-race*) fail "healthy: a data-race pattern on a healthy map: $(race_evidence)" ;; esac
