#!/usr/bin/env bash
# resolve --pid of a process running in a chroot: its packages are the
# chroot's (read through /proc/PID/root, as systemd-coredump reads a
# container's), not this host's, and the modules' paths are the process's
# own. The root holds a program, libc and the loader, and its own
# var/lib/dpkg (status and .list files written here). Ground truth:
# dpkg-query --admindir on the chroot's database, /proc/PID/maps.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "chroot needs root"
command -v chroot >/dev/null || skip "chroot not installed"
command -v dpkg-query >/dev/null || skip "no dpkg-query"

R=$T/root
BIN=/usr/bin/provenance-test-waiter
mkdir -p "$R/usr/bin" "$R/var/lib/dpkg/info"
printf '#include <unistd.h>\nint wait_here(void) { return pause(); }\nint main(void) { return wait_here(); }\n' >"$T/wait.c"
${CC:-cc} -g -O0 -o "$R$BIN" "$T/wait.c" || fail "cannot build the program"
copied=$(ldd "$R$BIN" | grep -Eo '/[^ ]+')
for lib in $copied; do
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
libc=$(echo "$copied" | grep '/libc\.so')
[ -n "$libc" ] || skip "no libc.so in ldd's output"
pkgent() {	# NAME VERSION
	printf 'Package: %s\nStatus: install ok installed\nPriority: optional\nSection: misc\nMaintainer: T <t@example.invalid>\nArchitecture: amd64\nVersion: %s\nDescription: test\n test\n\n' "$1" "$2"
}
{ pkgent provenance-test-waiter 9.8.7-6; pkgent libc6 2.99-7+chroot1; } >"$R/var/lib/dpkg/status"
echo "$BIN" >"$R/var/lib/dpkg/info/provenance-test-waiter.list"
printf '/lib\n%s\n%s\n' "$(dirname "$libc")" "$libc" >"$R/var/lib/dpkg/info/libc6.list"
# the truth: the chroot's own dpkg database
want_prog=$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Version}' provenance-test-waiter)
want_libc=$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Version}' libc6)
[ "$(dpkg-query --admindir="$R/var/lib/dpkg" -S "$libc" | cut -d: -f1)" = libc6 ] || fail "fixture: libc6 does not own $libc"
host_libc=$(dpkg-query -W -f '${Version}' libc6 2>/dev/null)
[ "$host_libc" != "$want_libc" ] || fail "fixture: the host's libc6 has the chroot's version"

setsid chroot "$R" "$BIN" >/dev/null 2>&1 </dev/null &
CPID=$!
trap 'kill $CPID 2>/dev/null; rm -rf "$T"' EXIT
# the program itself (chroot execs it: same pid) once its maps show it
for _ in $(seq 100); do grep -q "provenance-test-waiter" /proc/$CPID/maps 2>/dev/null && break; sleep 0.1; done
grep -q "$R$BIN" /proc/$CPID/maps || skip "cannot run programs under chroot here"
[ "$(readlink /proc/$CPID/root)" = "$R" ] || fail "fixture: /proc/$CPID/root is not the chroot"

"$PROVENANCE" resolve --pid $CPID --offline --format json >"$T/out.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve --pid exited $rc"; }
pkg() {	# PATH FIELD
	json_get "$T/out.json" "([m['package'][\"$2\"] for m in d['modules'] if m['path']=='$1' and m['package']] or [None])[0]"
}
check_eq "$(pkg "$BIN" name)" provenance-test-waiter "the program's package, from the chroot's dpkg"
check_eq "$(pkg "$BIN" version)" "$want_prog" "the program's version"
check_eq "$(pkg "$libc" name)" libc6 "libc's package"
check_eq "$(pkg "$libc" version)" "$want_libc" "libc's version is the chroot's (the host has $host_libc)"
check_eq "$(json_get "$T/out.json" "[m['file'] for m in d['modules'] if m['path']=='$BIN']")" "[\"$R$BIN\"]" \
	"the module path is the process's, the file is under the chroot"

# --sysroot says otherwise: its root, not the process's
mkdir -p "$T/other/var/lib/dpkg"
: >"$T/other/var/lib/dpkg/status"
"$PROVENANCE" resolve --pid $CPID --offline --sysroot "$T/other" --format json >"$T/out.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve --pid --sysroot exited $rc"; }
check_eq "$(json_get "$T/out.json" "[m['package'] for m in d['modules'] if m['package']]")" "[]" \
	"--sysroot with an empty dpkg database: no package"
