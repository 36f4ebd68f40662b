#!/usr/bin/env bash
# A root whose git working tree has a big index (issue 27): modules under
# that tree are looked up in its index, which is read once per run, not once
# per module (26 MB and 500 modules took 18 s). The index (20,000 entries,
# made by git update-index) holds the modules' paths. strace counts the opens
# of the index (a count of work, not a time): none for a backtrace with no
# module under the tree, one for 1 module and one for 300 (memoized; 300
# before). The answer for a module must be the tree's (git ls-files lists it).
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v strace >/dev/null || skip "strace is not installed (make deps installs it)"
R="$T/root"
W="$R/opt/proj"
mkdir -p "$W"
git init -q "$W" || fail "git init"
blob=$(git -C "$W" hash-object -w --stdin </dev/null)
python3 -c 'import sys
b = sys.argv[1]
for i in range(20000):
    print("100644 %s\tsrc/deep/dir/file-with-a-long-name-%06d.c" % (b, i))
for i in range(300):
    print("100644 %s\tlib/libm%03d.so" % (b, i))' "$blob" | git -C "$W" update-index --add --index-info || fail "update-index"
git -C "$W" -c user.name=t -c user.email=t@t commit -q -m init || fail "commit"
check_eq "$(git -C "$W" ls-files lib | wc -l)" 300 "modules the index lists (git ls-files)"
mkdir -p "$W/lib"
for i in $(seq 0 299); do : >"$W/lib/libm$(printf %03d "$i").so"; done
bt() {	# bt N FILE
	{ for i in $(seq 0 $(($1 - 1))); do
		printf '#%d  0x00007f00%08x in f%d () from /opt/proj/lib/libm%03d.so\n' "$i" $((i * 4096)) "$i" "$i"
	done; } >"$2"
}
bt 1 "$T/b1"; bt 150 "$T/b150"; bt 300 "$T/b300"
printf '#0  0x00007f0000001000 in g () from /usr/lib/libzzz.so\n' >"$T/b0"
"$PROVENANCE" --cache "$T/c" resolve --offline --sysroot "$R" --format json "$T/b150" >"$T/r.json" 2>"$T/r.err"
[ $? -le 1 ] || { cat "$T/r.err"; fail "resolve"; }
check_eq "$(json_get "$T/r.json" '[m.get("package", {}).get("kind") for m in d["modules"] if m["path"].endswith("libm007.so")]')" '["git"]' \
	"a module the index lists belongs to the working tree"
reads() { count_opens '(^|/)opt/proj/\.git/index$' "$PROVENANCE" --cache "$T/c$1" resolve --offline --sysroot "$R" --format json "$T/b$1"; }
check_eq "$(reads 0)" 0 "index reads, no module under the tree (strace)"
check_eq "$(reads 1)" 1 "index reads, 1 module (strace)"
check_eq "$(reads 300)" 1 "index reads, 300 modules: once a run, not once a module (strace)"
