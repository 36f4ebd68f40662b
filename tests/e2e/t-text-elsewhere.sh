#!/usr/bin/env bash
# A pasted backtrace comes from another machine: without --sysroot its
# modules are not looked up in this host's package databases (the bug: a
# paste got this host's libc6 as a fact); --host-packages asks for it and
# marks each such package a guess; a build ID the paste printed (eu-stack -b,
# sanitizer BuildId:) is matched against this host's file: a match is exact,
# a mismatch is said. Ground truth: dpkg-query -S and readelf -n.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
[ -r /var/lib/dpkg/status ] && command -v dpkg-query >/dev/null || skip "not a dpkg system"
libc=
for p in /lib/x86_64-linux-gnu/libc.so.6 /lib/aarch64-linux-gnu/libc.so.6; do
	[ -f "$p" ] && { libc=$p; break; }
done
[ -n "$libc" ] || skip "no multiarch libc.so.6 on this host"
owner=$(dpkg-query -S "$libc" 2>/dev/null || dpkg-query -S "/usr$libc" 2>/dev/null) || skip "dpkg does not own $libc"
owner=${owner%%: *}
owner=${owner%%:*}
ver=$(dpkg-query -W -f='${Version}' "$owner")
bid=$(readelf -n "$libc" | sed -n 's/.*Build ID: *//p' | head -1)
[ -n "$bid" ] || skip "$libc has no build ID"

run() {	# run OUT.json INPUT [args]: exit 0 or 1 (offline, partial is fine)
	local out=$1 in=$2; shift 2
	"$PROVENANCE" resolve "$in" --offline --no-suspects --format json "$@" >"$out" 2>"$T/err"
	local rc=$?
	[ $rc -le 1 ] || { cat "$T/err"; fail "resolve $in exited $rc"; }
}
mod() {	# mod JSON EXPR-ON-m: of the libc module
	json_get "$1" "[($2) for m in d['modules'] if m['path'].endswith('libc.so.6')][0]"
}

# 1. a gdb paste naming this host's libc path: no dpkg lookup here
cat >"$T/gdb.txt" <<BT
Program terminated with signal SIGSEGV, Segmentation fault.
#0  0x00007f0000001234 in __GI_raise (sig=6) from $libc
#1  0x0000555500001000 in main ()
BT
run "$T/gdb.json" "$T/gdb.txt"
check_eq "$(mod "$T/gdb.json" "(m['package'] or {}).get('kind') == 'dpkg'")" "false" "paste: not looked up in this host's dpkg"

# 2. asked for: this host's package, marked a guess and said so
run "$T/host.json" "$T/gdb.txt" --host-packages
check_eq "$(mod "$T/host.json" "m['package']['name']")" "$owner" "--host-packages: dpkg-query -S owner"
check_eq "$(mod "$T/host.json" "m['package']['version']")" "$ver" "--host-packages: dpkg-query version"
check_eq "$(mod "$T/host.json" "m['package']['guess']")" true "--host-packages: a guess"
check_match "$(mod "$T/host.json" "m['note']")" "this host" "--host-packages: the note says where it came from"
run "$T/cfg.json" "$T/gdb.txt" -c text.hostPackages=true
check_eq "$(mod "$T/cfg.json" "m['package']['name']")" "$owner" "text.hostPackages config: same as the option"

# 3. eu-stack -b prints the build ID: it matches this host's file (readelf -n): exact
cat >"$T/eu.txt" <<BT
PID 5218 - core
TID 5218:
#0  0x00007f9b9841124a __libc_start_call_main - libc.so.6
    [$bid]@0x7f9b983ea000+0x27249
    ../sysdeps/nptl/libc_start_call_main.h:58:16
BT
run "$T/eu.json" "$T/eu.txt"
check_eq "$(mod "$T/eu.json" "m['package']['name']")" "$owner" "build ID match: the package"
check_eq "$(mod "$T/eu.json" "m['package']['version']")" "$ver" "build ID match: the version"
check_eq "$(mod "$T/eu.json" "m['package']['guess']")" false "build ID match: not a guess"
check_match "$(mod "$T/eu.json" "m['note']")" "build ID matches this host's file" "build ID match: said so"

# 4. an ASan paste whose BuildId is another build: no package from here, the mismatch said
other=$(printf '%s' "$bid" | tr '0-9a-f' '1-9a-f0')
cat >"$T/asan.txt" <<BT
==9==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x7f0000001234 bp 0x1 sp 0x2 T0)
    #0 0x7f0000001234 in __GI_raise ($libc+0x27249) (BuildId: $other)
    #1 0x555500001000 in main (/srv/app+0x1000) (BuildId: 0011223344556677889900112233445566778899)
BT
run "$T/asan.json" "$T/asan.txt"
check_eq "$(mod "$T/asan.json" "m['build_id']")" "$other" "sanitizer BuildId read"
check_eq "$(mod "$T/asan.json" "(m['package'] or {}).get('kind') == 'dpkg'")" "false" "build ID mismatch: no package from this host"
check_match "$(mod "$T/asan.json" "m['note']")" "build-id mismatch: this host's .*$bid" "build ID mismatch: said so"
echo "ok: a paste is from elsewhere"
