#!/usr/bin/env bash
# A package index keyed by size:mtime_ns:inode only (issue 39 #5): a dpkg
# status rewritten in place with the same size, its mtime put back and the
# inode kept (cp -a from a reproducible image, a re-extraction) was answered
# from the old index: 1.2.4-1 installed, 1.2.3-1 reported. The truth is
# dpkg-query's, read from the same database.
. "$(dirname "$0")/lib.sh"

command -v dpkg-query >/dev/null || skip "no dpkg-query"
d=$T/root/var/lib/dpkg
mkdir -p "$d/info" "$T/root/usr/lib/x86_64-linux-gnu"
: >"$T/root/usr/lib/x86_64-linux-gnu/libfoo.so.1"
printf '/.\n/usr/lib/x86_64-linux-gnu/libfoo.so.1\n' >"$d/info/libfoo1:amd64.list"
stanza() {
	printf 'Package: libfoo1\nStatus: install ok installed\nArchitecture: amd64\nSource: foo\nVersion: %s\nMaintainer: t <t@example.invalid>\nDescription: x\n' "$1"
}
stanza 1.2.3-1 >"$d/status"
touch -d '2024-01-02 03:04:05.123456789' "$d/status"
version() {
	"$PROVENANCE" --cache "$T/c" env --sysroot "$T/root" --format json >"$T/env.json" 2>"$T/env.err" ||
		{ cat "$T/env.err"; fail "env exited $?"; }
	json_get "$T/env.json" "[c['version'] for c in d['components'] if c['name'] in ('libfoo1', 'foo')][0]"
}
check_eq "$(version)" "$(dpkg-query --admindir="$d" -W -f='${Version}' libfoo1)" "first run"
ino=$(stat -c '%i %s %Y' "$d/status")
# rewrite in place: same inode, same size, same mtime
stanza 1.2.4-1 >"$T/new"
[ "$(stat -c %s "$T/new")" = "$(stat -c %s "$d/status")" ] || fail "the test's stanzas differ in size"
cat "$T/new" >"$d/status"
touch -d '2024-01-02 03:04:05.123456789' "$d/status"
[ "$(stat -c '%i %s %Y' "$d/status")" = "$ino" ] || fail "the rewrite changed the inode, size or mtime"
want=$(dpkg-query --admindir="$d" -W -f='${Version}' libfoo1)
check_eq "$want" 1.2.4-1 "dpkg-query after the rewrite"
check_eq "$(version)" "$want" "after an in-place rewrite with the same size, mtime and inode"
echo "ok: the rewritten status is re-indexed ($want)"
