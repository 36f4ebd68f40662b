#!/usr/bin/env bash
# A hostile root's pip direct_url.json naming a repository of the HOST
# (file:///..., or a bare path) with fetch.trustSystemUrls=true (issue 27):
# resolve, even --offline, must not open or mirror it. The host repository
# is a real git repo made here; strace (when present) checks that no file
# call reaches it, and the cache must hold no mirror.
. "$(dirname "$0")/lib.sh"

up="$T/hostrepo"
git init -q "$up" && git -C "$up" -c user.name=t -c user.email=t@t commit -q --allow-empty -m secret || fail "git"
sys=$(git -C "$up" rev-parse HEAD)
site=$T/root/usr/lib/python3/dist-packages
mkdir -p "$site/proj" "$site/proj-1.1.0.dist-info"
printf 'ELF' >"$site/proj/_native.so"
printf 'Metadata-Version: 2.1\nName: proj\nVersion: 1.1.0\n' >"$site/proj-1.1.0.dist-info/METADATA"
printf 'proj/_native.so,,\nproj-1.1.0.dist-info/METADATA,,\n' >"$site/proj-1.1.0.dist-info/RECORD"
printf '#0  0x00007f0000001234 in crash_here () from /usr/lib/python3/dist-packages/proj/_native.so\n#1  0x0000555555555555 in main () from /usr/bin/python3\n' >"$T/bt.txt"
printf '[component "proj"]\n\tpackage = proj\n' >"$T/norepo.map"

for url in "file://$up" "$up" "file://localhost$up"; do
	printf '{"url": "%s", "vcs_info": {"vcs": "git", "commit_id": "%s"}}\n' "$url" "$sys" \
		>"$site/proj-1.1.0.dist-info/direct_url.json"
	for mode in --offline ""; do
		C="$T/cache$RANDOM"
		cmd=("$PROVENANCE" --cache "$C" -c fetch.trustSystemUrls=true resolve $mode --sysroot "$T/root" \
			--mapping "$T/norepo.map" --format json "$T/bt.txt")
		if command -v strace >/dev/null; then
			strace -f -qq -e trace=%file -o "$T/trace" "${cmd[@]}" >"$T/r.json" 2>"$T/r.err"
		else
			"${cmd[@]}" >"$T/r.json" 2>"$T/r.err"
		fi
		rc=$?
		[ $rc -le 1 ] || { cat "$T/r.err"; fail "$url $mode: exit $rc"; }
		[ "$(json_get "$T/r.json" 'd["modules"][0]["package"]["kind"]')" = pip ] ||
			skip "the pip resolver did not claim the module"
		if [ -d "$C/mirrors" ] && ls "$C/mirrors" | grep -q '\.git$'; then
			fail "$url $mode: a host repository was mirrored into the cache: $(ls "$C/mirrors")"
		fi
		if [ -f "$T/trace" ] && grep -F "$up" "$T/trace" | grep -v 'direct_url' | grep -q .; then
			grep -F "$up" "$T/trace" | head -3
			fail "$url $mode: the host repository was opened"
		fi
		rm -f "$T/trace"
	done
done
echo "ok: a system-named local repository is never opened"
