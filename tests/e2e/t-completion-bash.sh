#!/usr/bin/env bash
# docs/completion/provenance.bash driven as bash drives it (COMP_WORDS,
# COMP_CWORD, then the function): a file named "my core" is one candidate,
# not two; directories are completed with -o filenames (readline then adds
# the trailing slash and quotes the space); --pid offers process ids (the
# truth: /proc and this shell's $$), not files. Run without bash-completion
# loaded (its _filedir/_pids are used when it is).
. "$(dirname "$0")/lib.sh"
comp=$TOP/docs/completion/provenance.bash
mkdir -p "$T/w/my dir" "$T/w/mydir2"
: >"$T/w/my core"
: >"$T/w/my other core"
: >"$T/w/notes.txt"
drive() {	# WORD... (the last is the one being completed): COMPREPLY, one a line; compopt's calls in $T/compopt
	(cd "$T/w" && bash --norc --noprofile -c '
		compopt() { echo "$@" >>"$OUT_COMPOPT"; }
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_provenance
		printf "%s\n" "${COMPREPLY[@]}"' drive "$comp" "$@")
}
export OUT_COMPOPT=$T/compopt
: >"$T/compopt"
check_eq "$(drive provenance analyze "my c")" "my core" "a file with a space: one candidate"
check_eq "$(drive provenance analyze "my" | sort | tr '\n' '|')" "my core|my dir|my other core|mydir2|" "files and directories, whole names"
grep -q -- "-o filenames" "$T/compopt" || fail "no compopt -o filenames: readline would not mark directories or quote spaces"
echo "ok: compopt -o filenames (readline adds the directories' slash)"
check_eq "$(drive provenance analyze --sysroot "my" | sort | tr '\n' '|')" "my core|my dir|my other core|mydir2|" "--sysroot: a root directory or an image file (docs/containers.md)"
check_eq "$(drive provenance analyze --cache "my" | sort | tr '\n' '|')" "my dir|mydir2|" "--cache: directories only"
got=$(drive provenance analyze --pid "")
[ -n "$got" ] || fail "--pid: nothing offered"
echo "$got" | grep -qv '^[0-9][0-9]*$' && fail "--pid offers something that is not a pid: $(echo "$got" | grep -v '^[0-9]*$' | head -3)"
echo "$got" | grep -qx "$$" || fail "--pid: this shell's pid $$ is not offered"
want=$(ls /proc | grep -c '^[0-9][0-9]*$')
n=$(echo "$got" | wc -l)
[ "$n" -ge $((want / 2)) ] || fail "--pid: $n pids offered, /proc has about $want"
echo "ok: --pid offers $n process ids ($$ among them), no files"
check_eq "$(drive provenance resolve --pid "$$")" "$$" "--pid with a prefix"
check_eq "$(drive provenance analyze --fo)" "--format" "options still complete"
