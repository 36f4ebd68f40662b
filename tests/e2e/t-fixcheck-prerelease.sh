#!/usr/bin/env bash
# The first release named for a fix is a final release: v1.4.0-rc1 (and the
# other pre-release spellings) is skipped unless --include-prereleases, for
# the first tag and for the "same branch" upgrade advice. The truth is
# `git tag --contains` filtered by the rule written here with grep.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

up=$T/up
g() { git -C "$up" "$@"; }
n=0
commit() {	# commit FILE: one commit, a second apart (tag order by time is known)
	n=$((n + 1))
	echo "change $n" >>"$up/$1"
	g add "$1"
	GIT_AUTHOR_DATE="@$((1700000000 + n)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + n)) +0000" \
		g -c user.name=t -c user.email=t@t commit -q -m "change $n to $1"
}
git init -q -b main "$up" || fail "git init"
commit a.c
g tag v1.3.0
commit a.c
g branch release/1.3 v1.3.0
commit b.c
fix=$(g rev-parse HEAD)
g tag v1.4.0-rc1
commit a.c
g tag v1.4.0rc2
commit c.c
g tag v1.4.0
commit c.c
g tag v1.5.0b1
# the fix picked onto release/1.3 and released there as an rc, then final
g checkout -q release/1.3
commit d.c
n=$((n + 1))
GIT_AUTHOR_DATE="@$((1700000000 + n)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + n)) +0000" \
	git -C "$up" -c user.name=t -c user.email=t@t cherry-pick -x "$fix" >/dev/null || fail "cherry-pick"
g tag v1.3.1-rc1
commit d.c
g tag v1.3.1
g checkout -q main

# truth: the tags git says contain the commit, pre-releases removed by the
# rule (a word rc/alpha/beta/pre/dev/preview after the first digit, or a/b
# between digits), the earliest by commit time
final_first() {
	local t
	for t in $(git -C "$up" tag --contains "$1" | grep -Eiv '[0-9].*([^a-z]|^)(rc|alpha|beta|pre|dev|preview)([^a-z]|$)|[0-9][ab][0-9]'); do
		echo "$(git -C "$up" log -1 --format=%ct "$t^{commit}") $t"
	done | sort -k1,1n -k2,2 | head -1 | cut -d' ' -f2
}
any_first() {
	local t
	for t in $(git -C "$up" tag --contains "$1"); do
		echo "$(git -C "$up" log -1 --format=%ct "$t^{commit}") $t"
	done | sort -k1,1n -k2,2 | head -1 | cut -d' ' -f2
}
pick=$(git -C "$up" log --format=%H --grep="cherry picked from commit $fix" release/1.3)
[ -n "$pick" ] || fail "no cherry-pick made"
want=$(final_first "$fix")
want_pre=$(any_first "$fix")
want_branch=$(final_first "$pick")
want_branch_pre=$(any_first "$pick")
note "git: first final $want (any: $want_pre), on release/1.3 $want_branch (any: $want_branch_pre)"
[ "$want" != "$want_pre" ] && [ "$want_branch" != "$want_branch_pre" ] || fail "the fixture lost its pre-release tags"

# deployed v1.3.0: not in it; first release and same-branch advice are final
check_exit 1 "fix not in v1.3.0" -- "$PROVENANCE" fixcheck "$fix" --repo "$up" --at v1.3.0 --format json
check_eq "$(json_get "$T/last.out" 'd[0]["first_tag"]')" "$want" "first_tag is a final release"
check_eq "$(json_get "$T/last.out" 'd[0]["branch_tag"]')" "$want_branch" "branch_tag is a final release"
check_exit 1 "text" -- "$PROVENANCE" fixcheck "$fix" --repo "$up" --at v1.3.0
check_match "$(cat "$T/last.out")" "upgrade to $want_branch, same branch release/1\.3" "text advice names the final release"
if grep -q -- "-rc" "$T/last.out"; then fail "text names a pre-release: $(cat "$T/last.out")"; fi

# --include-prereleases: the first tag whatever its kind
check_exit 1 "with --include-prereleases" -- "$PROVENANCE" fixcheck "$fix" --repo "$up" --at v1.3.0 --include-prereleases --format json
check_eq "$(json_get "$T/last.out" 'd[0]["first_tag"]')" "$want_pre" "first_tag with pre-releases"
check_eq "$(json_get "$T/last.out" 'd[0]["branch_tag"]')" "$want_branch_pre" "branch_tag with pre-releases"

# included: "first in tag" is final too; a commit only in a pre-release has none
check_exit 0 "fix in v1.4.0" -- "$PROVENANCE" fixcheck "$fix" --repo "$up" --at v1.4.0 --format json
check_eq "$(json_get "$T/last.out" 'd[0]["first_tag"]')" "$want" "first_tag when included"
last=$(g rev-parse v1.5.0b1)
check_exit 1 "a commit only in a beta" -- "$PROVENANCE" fixcheck "$last" --repo "$up" --at v1.4.0 --format json
w=$(final_first "$last")
check_eq "$(json_get "$T/last.out" 'd[0]["first_tag"]')" "${w:-null}" "no final release holds it yet"
check_exit 1 "the beta with --include-prereleases" -- "$PROVENANCE" fixcheck "$last" --repo "$up" --at v1.4.0 --include-prereleases --format json
check_eq "$(json_get "$T/last.out" 'd[0]["first_tag"]')" "$(any_first "$last")" "the beta named with --include-prereleases"
