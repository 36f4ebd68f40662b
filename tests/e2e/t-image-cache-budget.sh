#!/usr/bin/env bash
# Unpacked images within the cache's size budget (cache.maxSize,
# docs/containers.md): three squashfs images made here, a budget that holds
# two of them (sizes from du -sb); `cache prune` and a run that unpacks an
# image evict the least recently used image, whole; an image a running
# process holds (a shared flock(1) on its folder, as a run takes) is kept.
# The truth for the images that stay is dpkg-query --admindir on each one's
# own status file.
. "$(dirname "$0")/lib.sh"
command -v dpkg-query >/dev/null || skip "no dpkg-query"
command -v gensquashfs >/dev/null || skip "no gensquashfs (squashfs-tools-ng)"
command -v flock >/dev/null || skip "no flock"

C=$T/cache
I=$C/images
lz=$(ldd "$PROVENANCE_BIN" | grep -Eo '/[^ ]*libz\.so[^ ]*' | head -1)
[ -f "$lz" ] || skip "no libz to stand in as a package's library"
# three roots: a dpkg status naming hello at its own version, and 1 MiB of
# filler so that the images' sizes dwarf what else the cache holds
for i in 1 2 3; do
	R=$T/root$i
	mkdir -p "$R/var/lib/dpkg/info" "$R/etc" "$R/usr/lib"
	printf 'Package: hello\nStatus: install ok installed\nPriority: optional\nSection: misc\nMaintainer: x <x@example.org>\nArchitecture: amd64\nVersion: %s.0-1\nDescription: hello\n hello\n\n' "$i" \
		>"$R/var/lib/dpkg/status"
	printf '/.\n/usr\n/usr/lib\n/usr/lib/libhello.so.1\n/usr/lib/filler\n' >"$R/var/lib/dpkg/info/hello.list"
	cp -L "$lz" "$R/usr/lib/libhello.so.1"
	echo 'ID=debian' >"$R/etc/os-release"
	head -c 1048576 /dev/urandom >"$R/usr/lib/filler"
	truth[$i]=$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Version}' hello) || fail "dpkg-query cannot read root$i's status"
	gensquashfs -q -D "$R" -c gzip -j 1 "$T/img$i.sqsh" >/dev/null || fail "gensquashfs cannot pack root$i"
	key[$i]=$(sha256sum "$T/img$i.sqsh" | cut -d' ' -f1)
done

version() { json_get "$T/last.out" "[c['version'] for c in d['components'] if c['name']=='hello'][0]"; }
# use N [ARGS...]: env on image N, its answer checked against dpkg-query
use() {
	local n=$1; shift
	check_exit 0 "env on image $n" -- "$PROVENANCE" --cache "$C" "$@" env --sysroot "squashfs:$T/img$n.sqsh" --format json
	check_eq "$(version)" "${truth[$n]}" "image $n: hello's version (dpkg-query --admindir)"
}
present() { [ -d "$I/${key[$1]}/rootfs" ] && [ -f "$I/${key[$1]}/complete" ]; }
size() { du -sb "$I/${key[$1]}" | cut -f1; }

# ---- 1. cache prune: the least recently used of three goes ----
use 1; use 2; use 3
use 2; use 3	# image 1 is now the least recently used
for i in 1 2 3; do present $i || fail "image $i is not in the cache after its run"; s[$i]=$(size $i); done
check_exit 0 "cache stats" -- "$PROVENANCE" --cache "$C" cache stats
check_eq "$(sed -n 's/^images: *//p' "$T/last.out")" "3 ($((s[1] + s[2] + s[3])) bytes)" "cache stats: the images (du -sb)"
total=$(du -sb "$C" | cut -f1)
# holds two images, not three: what is left once image 1 is gone, plus half an image
budget=$((total - s[1] + s[1] / 2))
check_exit 64 "cache prune without a budget" -- "$PROVENANCE" --cache "$C" cache prune
check_exit 0 "cache prune within $budget bytes" -- "$PROVENANCE" --cache "$C" -c cache.maxSize=$budget cache prune
cat "$T/last.out"
grep -q "^pruned 1 image (${s[1]} bytes)" "$T/last.out" || fail "cache prune does not say it evicted image 1's ${s[1]} bytes"
[ -e "$I/${key[1]}" ] && fail "image 1 (least recently used) is still in the cache"
present 2 && present 3 || fail "images 2 and 3 were evicted too"
[ "$(du -sb "$C" | cut -f1)" -le "$budget" ] || fail "the cache is over the budget after cache prune"
ls -A "$I" | grep -q '^\.evict-' && fail "a removed image's folder was left behind"
use 2; use 3
[ -s "$T/last.err" ] && { cat "$T/last.err"; fail "image 3 was not reused as it was"; }
echo "ok: cache prune evicted the least recently used image; the others answer as dpkg-query"

# ---- 2. a run that unpacks an image keeps the budget by itself ----
# image 1 is unpacked again: image 2 (used before image 3) is the one to go
use 1 -c cache.maxSize=$budget
present 1 || fail "the image just unpacked was evicted"
[ -e "$I/${key[2]}" ] && fail "image 2 (least recently used) was not evicted by the run that unpacked image 1"
present 3 || fail "image 3 was evicted"
echo "ok: a run that unpacks an image evicts the least recently used one"

# ---- 3. an image in use is not evicted ----
use 3	# image 1 is the least recently used again
total=$(du -sb "$C" | cut -f1)
budget=$((total - s[1] / 2))	# one image has to go
exec 9<"$I/${key[1]}"
flock -s 9 || fail "flock cannot take a shared lock on image 1's folder"
check_exit 0 "cache prune while image 1 is held" -- "$PROVENANCE" --cache "$C" -c cache.maxSize=$budget cache prune
cat "$T/last.out"
present 1 || fail "image 1, held by a running process, was evicted"
[ -e "$I/${key[3]}" ] && fail "image 3 was not evicted in place of the held image 1"
use 1
[ -s "$T/last.err" ] && { cat "$T/last.err"; fail "image 1 was not reused as it was"; }
exec 9<&-
check_exit 0 "cache prune once image 1 is released" -- "$PROVENANCE" --cache "$C" -c cache.maxSize=$((s[1] / 2)) cache prune
[ -e "$I/${key[1]}" ] && fail "image 1 was kept once released"
echo "ok: an image held by a running process is kept, the next least recently used goes"

check_exit 64 "a cache.maxSize that is not a size" -- "$PROVENANCE" --cache "$C" -c cache.maxSize=lots env --sysroot "squashfs:$T/img1.sqsh"
[ "$(wc -l <"$T/last.err")" = 1 ] || { cat "$T/last.err"; fail "a bad cache.maxSize: not one line"; }
check_exit 64 "a cache.maxSize that is not a size, for a command that does not prune" -- "$PROVENANCE" --cache "$C" -c cache.maxSize=lots cache stats
check_match "$(cat "$T/last.err")" "cache.maxSize: 'lots' is not a size" "the bad size named"
echo "ok: a bad cache.maxSize is one line, exit 64 (a usage error, as collect.* sizes)"
