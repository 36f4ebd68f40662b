#!/usr/bin/env bash
# Module -> dpkg package on the host, from a real core and from a pasted
# backtrace: every module dpkg knows must carry the package and version that
# dpkg-query reports (merged /usr: the /usr-less twin is asked too).
. "$(dirname "$0")/lib.sh"

[ -r /var/lib/dpkg/status ] && command -v dpkg-query >/dev/null || skip "not a dpkg system"

# ground truth for one path: "name version" or nothing
dpkg_truth() {
	local p=$1 owner
	owner=$(dpkg-query -S "$p" 2>/dev/null || dpkg-query -S "${p#/usr}" 2>/dev/null) || return 0
	owner=${owner%%: *}
	case "$owner" in *,*) return 0 ;; esac	# shared by several packages: ambiguous
	echo "${owner%%:*} $(dpkg-query -W -f='${Version}' "$owner")"
}

check_modules() {	# JSON what
	local json=$1 what=$2 n=0 path got want
	while IFS=$'\t' read -r path got; do
		want=$(dpkg_truth "$path")
		[ -n "$want" ] || continue
		check_eq "$got" "$want" "$what: $path"
		n=$((n+1))
	done < <(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for m in d["modules"]:
	p=m["package"]
	if p and p["kind"]=="dpkg": print(m["path"]+"\t"+p["name"]+" "+(p["version"] or ""))
	elif p is None: print(m["path"]+"\t(unresolved)")' "$json")
	[ $n -ge 2 ] || fail "$what: only $n modules checked against dpkg"
}

# a pasted gdb backtrace naming libc both ways (/lib and /usr/lib) and libz
cat >"$T/bt.txt" <<'BT'
Program terminated with signal SIGSEGV, Segmentation fault.
#0  0x00007f0000001234 in __GI_raise (sig=6) from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f0000002345 in inflate () from /usr/lib/x86_64-linux-gnu/libz.so.1
#2  0x00007f0000003456 in __libc_start_main () from /usr/lib/x86_64-linux-gnu/libc.so.6
BT
# (a paste is from elsewhere: this host's packages only when asked, and a guess)
"$PROVENANCE" resolve --offline --host-packages --format json "$T/bt.txt" >"$T/bt.json" 2>"$T/bt.err"
rc=$?
[ $rc -le 1 ] || { cat "$T/bt.err"; fail "resolve of a text backtrace exited $rc"; }
check_modules "$T/bt.json" text
check_eq "$(json_get "$T/bt.json" "sorted(set(str(m['package']['guess']) for m in d['modules'] if m['package']))")" \
	'["True"]' "text: host packages are guesses"

# a real core of a process that links libc (bash kills itself)
can_dump_core
mkdir -p "$T/core"
core=$(make_core "$T/core" bash -c 'kill -SEGV $$')
"$PROVENANCE" resolve --offline --format json "$core" >"$T/core.json" 2>"$T/core.err"
rc=$?
[ $rc -le 1 ] || { cat "$T/core.err"; fail "resolve of a core exited $rc"; }
check_modules "$T/core.json" core
exit 0
