#!/usr/bin/env bash
# Bounded mirror fetches (issue 27): a pack larger than fetch.maxPackSize is
# abandoned in the fetch child's progress callback (an endless pack stops
# there; here: 8 MiB of random blobs against a 1 MiB cap), nothing of it is
# kept; and a partial pack a killed run left in the mirror (libgit2's
# objects/pack/pack_git2_* temporaries) is removed by the next fetch of that
# mirror, under its lock.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"

mkdir -p "$T/upstream"
git init -q "$T/work" || fail "git init"
head -c $((8 << 20)) /dev/urandom >"$T/work/big.bin"
printf 'int f(void) { return 0; }\n' >"$T/work/a.c"
git -C "$T/work" add . && git -C "$T/work" -c user.name=t -c user.email=t@t commit -q -m big &&
	git -C "$T/work" tag v1.0 || fail "commit"
git clone -q --bare "$T/work" "$T/upstream/proj.git" || fail "clone"
redirect="url.file://$T/upstream/.insteadOf=https://example.invalid/"
printf 'PID 1234 - process\nTID 1234:\n#0  0x00007f0000001234 f - /usr/lib/libproj.so.1\n    /build/proj-1.0/a.c:1\n#1  0x0000555555555555 main - /usr/bin/app\n' >"$T/bt.txt"
printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = https://example.invalid/proj.git\n\tref = v1.0\n' >"$T/m.map"

C="$T/c1"
"$PROVENANCE" --cache "$C" -c "$redirect" -c fetch.maxPackSize=1m resolve "$T/bt.txt" --mapping "$T/m.map" \
	--format json >"$T/r.json" 2>"$T/r.err"; rc=$?
[ $rc -le 1 ] || { cat "$T/r.err"; fail "resolve with a small fetch.maxPackSize: exit $rc"; }
grep -q "fetch.maxPackSize" "$T/r.err" "$T/r.json" || { cat "$T/r.err"; fail "no word of the pack cap"; }
kept=$(find "$C/mirrors" -path '*objects/pack/*' -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
[ "$kept" -lt $((1 << 20)) ] || fail "$kept bytes of the refused pack are kept in the mirror"
echo "ok: a pack over fetch.maxPackSize is abandoned, nothing kept"

# a killed run's partial pack: planted as libgit2 names it, removed by the next fetch
"$PROVENANCE" --cache "$C" -c "$redirect" resolve "$T/bt.txt" --mapping "$T/m.map" --format json >/dev/null 2>"$T/r2.err"
m=$(ls -d "$C"/mirrors/*.git | head -1)
[ -d "$m/objects/pack" ] || { cat "$T/r2.err"; fail "no mirror was made"; }
head -c $((2 << 20)) /dev/urandom >"$m/objects/pack/pack_git2_Ab12Cd"
git -C "$T/work" -c user.name=t -c user.email=t@t commit -q --allow-empty -m more && git -C "$T/work" push -q "$T/upstream/proj.git" HEAD:refs/heads/more
printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = https://example.invalid/proj.git\n\tref = more\n' >"$T/m2.map"
"$PROVENANCE" --cache "$C" -c "$redirect" resolve "$T/bt.txt" --mapping "$T/m2.map" --format json >/dev/null 2>"$T/r3.err"
grep -q "fetching" "$T/r3.err" || { cat "$T/r3.err"; skip "the second run did not fetch"; }
[ -e "$m/objects/pack/pack_git2_Ab12Cd" ] && fail "the partial pack of a killed run is still in the mirror"
echo "ok: a killed run's partial pack is removed by the next fetch"
