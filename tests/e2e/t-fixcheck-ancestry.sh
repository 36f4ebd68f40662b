#!/usr/bin/env bash
# fixcheck answers agree with git itself (merge-base --is-ancestor and the
# earliest tag from `git tag --contains`) on random commit pairs, over a
# local path, a file:// URL (mirror in the cache) and git:// (git daemon).
# test: slow
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

fixture_cached "$T/up" "$TOP/fixtures/upstream/make-history.sh" 40 || fail "cannot build the test repository"
up=$T/up
mapfile -t commits < <(git -C "$up" rev-list --all)
n=${#commits[@]}
[ "$n" -gt 40 ] || fail "history too short ($n)"

# expected first tag: earliest by the tagged commit's time, then by name
first_tag() {
	local t
	for t in $(git -C "$up" tag --contains "$1"); do
		echo "$(git -C "$up" log -1 --format=%ct "$t^{commit}") $t"
	done | sort -k1,1n -k2,2 | head -1 | cut -d' ' -f2
}

RANDOM=42
pairs=()
for k in $(seq 1 30); do
	pairs+=("${commits[RANDOM % n]} ${commits[RANDOM % n]}")
done
# and a few that must be YES: a commit and itself, a commit and a descendant tag
pairs+=("${commits[5]} ${commits[5]}")
pairs+=("$(git -C "$up" rev-parse v1.0.0^{commit}) $(git -C "$up" rev-parse v1.3.0^{commit})")

# git's answers for each pair, once (the three transports are checked against the same)
wants=() tags=()
for p in "${pairs[@]}"; do
	if git -C "$up" merge-base --is-ancestor "${p% *}" "${p#* }"; then wants+=(true); else wants+=(false); fi
	tags+=("$(first_tag "${p% *}")")
done

check_pairs() {	# check_pairs REPO-ARG LABEL
	local repo=$1 label=$2 yes=0 no=0 p fix at want tag got k
	for k in "${!pairs[@]}"; do
		p=${pairs[k]}
		fix=${p% *}
		at=${p#* }
		want=${wants[k]}
		tag=${tags[k]}
		"$PROVENANCE" fixcheck "$fix" --repo "$repo" --at "$at" --format json >"$T/out.json" 2>"$T/err"
		rc=$?
		if [ $want = true ]; then [ $rc = 0 ] || fail "$label: $fix in $at: exit $rc ($(cat "$T/err"))"; yes=$((yes+1))
		else [ $rc = 1 ] || fail "$label: $fix not in $at: exit $rc ($(cat "$T/err"))"; no=$((no+1)); fi
		[ -n "$tag" ] || tag=null
		got=$(json_get "$T/out.json" '" ".join(str(x).lower() if isinstance(x, bool) else ("null" if x is None else x) for x in (d[0]["included"], d[0]["first_tag"], d[0]["fix"], d[0]["deployed"], d[0]["component"], str(len(d))))')
		check_eq "$got" "$want $tag $fix $at null 1" "$label: included, first_tag, fix, deployed, component of $fix in $at" >/dev/null
	done
	echo "ok: $label: ${#pairs[@]} pairs agree with git ($yes included, $no not)"
	[ $yes -gt 0 ] && [ $no -gt 0 ] || fail "$label: pairs did not cover both answers"
}

check_pairs "$up" "local path"
check_pairs "file://$up" "file:// URL"
ls "$PROVENANCE_CACHE"/mirrors/*.git >/dev/null 2>&1 || fail "no mirror made for the file:// URL"
# HEAD in a mirror is the upstream's HEAD
check_exit 0 "HEAD~3 in HEAD through a mirror" -- "$PROVENANCE" fixcheck HEAD~3 --repo "file://$up" --at HEAD --format json
check_eq "$(json_get "$T/last.out" 'd[0]["fix"] + " " + d[0]["deployed"]')" "$(git -C "$up" rev-parse HEAD~3) $(git -C "$up" rev-parse HEAD)" "HEAD~3 and HEAD resolved as upstream"

# names: abbreviated SHAs, tags and branches for COMMIT and REV; text output
fix=$(git -C "$up" rev-parse --short=9 v1.0.0^{commit})
check_exit 0 "abbreviated fix, tag at" -- "$PROVENANCE" fixcheck "$fix" v1.1.0 --repo "$up" --at main
check_match "$(cat "$T/last.out")" "^YES $fix is in main \(first in tag v1\.0\.0\)" "text line"
check_exit 1 "release fix not on main" -- "$PROVENANCE" fixcheck v1.99.1 --repo "$up" --at main
check_match "$(cat "$T/last.out")" "^NO v1\.99\.1 is not in main" "text NO line"
check_exit 1 "mixed: exit 1 when any is missing" -- "$PROVENANCE" fixcheck v1.0.0 v1.2.0 --repo "$up" --at release/1.x --format json
check_eq "$(json_get "$T/last.out" "[r[\"included\"] for r in d]")" "[true, false]" "one result per fix, in order"
check_exit 2 "unknown commit" -- "$PROVENANCE" fixcheck deadbeefdeadbeef --repo "$up" --at main
check_match "$(cat "$T/last.err")" "deadbeefdeadbeef" "error names the commit"
check_exit 2 "unknown rev" -- "$PROVENANCE" fixcheck v1.0.0 --repo "$up" --at no-such-branch
check_match "$(cat "$T/last.err")" "no-such-branch" "error names the rev"
check_exit 2 "not a repository" -- "$PROVENANCE" fixcheck v1.0.0 --repo "$T" --at main
check_exit 64 "no --at" -- "$PROVENANCE" fixcheck v1.0.0 --repo "$up"
check_exit 64 "no commit" -- "$PROVENANCE" fixcheck --repo "$up" --at main
check_exit 64 "unknown option" -- "$PROVENANCE" fixcheck v1 --repo "$up" --at main --bogus

# git:// through git daemon on a free local port
if command -v git-daemon >/dev/null 2>&1 || [ -x "$(git --exec-path)/git-daemon" ]; then
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	git daemon --export-all --base-path="$T" --port="$port" --listen=127.0.0.1 --reuseaddr "$T" &
	dpid=$!
	trap 'kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; rm -rf "$T"' EXIT
	for i in $(seq 1 50); do
		git ls-remote "git://127.0.0.1:$port/up" >/dev/null 2>&1 && break
		sleep 0.1
	done
	check_pairs "git://127.0.0.1:$port/up" "git:// daemon"
else
	echo "# git daemon not available: git:// part not run"
fi
