#!/usr/bin/env bash
# fixcheck says *how* a fix is in the deployed build: by ancestry, as a
# cherry-pick (git cherry-pick -x trailer, or the same patch-id without it),
# partly (one file of a two-file fix backported), as a Debian quilt patch of a
# source package built here with dpkg-source -b, or not at all (with the tag
# of the same branch that got it later). Ground truth from git itself: the
# trailer found by git log --grep, git patch-id --stable, git tag --contains,
# and the series file of the source package.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v python3 >/dev/null || skip "no python3"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

up=$T/up
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
g() { git -C "$up" "$@"; }
n=0
commit() { # commit MESSAGE: commit everything with increasing dates
	n=$((n + 1))
	GIT_AUTHOR_DATE="2024-01-01T00:00:00Z +${n}hours" GIT_COMMITTER_DATE="@$((1704067200 + n * 3600)) +0000" \
		g commit -qam "$1" || fail "commit $1"
}
pick() { # pick [-x] COMMIT on the current branch, as git does
	n=$((n + 1))
	GIT_COMMITTER_DATE="@$((1704067200 + n * 3600)) +0000" g cherry-pick "$@" >/dev/null || fail "cherry-pick $*"
}
mkfile() { # mkfile NAME: 40 distinct lines
	for i in $(seq 1 40); do echo "int ${1%%.*}_$i(void) { return $i; }"; done > "$up/src/$1"
}
edit() { # edit FILE LINE TEXT: replace one line
	sed -i "${2}s/.*/$3/" "$up/src/$1"
}

git init -q -b main "$up" && mkdir -p "$up/src"
mkfile a.c; mkfile b.c; mkfile c.c; mkfile d.c
g add -A && commit "initial"
edit d.c 3 "int d_3(void) { return 33; }"; commit "old change"
old=$(g rev-parse HEAD)
g tag v1.0.0
g branch release-1.x
# fixes on main
edit a.c 10 "int a_10(void) { return -10; } \/* fix1 *\/"; commit "fix1: a.c"; fix1=$(g rev-parse HEAD)
edit a.c 30 "int a_30(void) { return -30; } \/* fix2 *\/"; edit b.c 30 "int b_30(void) { return -30; } \/* fix2 *\/"
commit "fix2: a.c and b.c"; fix2=$(g rev-parse HEAD)
edit c.c 20 "int c_20(void) { return -20; } \/* fix3 *\/"; commit "fix3: c.c (a Debian patch)"; fix3=$(g rev-parse HEAD)
edit d.c 20 "int d_20(void) { return -20; } \/* fix4 *\/"; commit "fix4: d.c (later on the branch)"; fix4=$(g rev-parse HEAD)
edit b.c 5 "int b_5(void) { return -5; } \/* fix5 *\/"; commit "fix5: b.c (no -x)"; fix5=$(g rev-parse HEAD)
edit c.c 35 "int c_35(void) { return -35; } \/* fix6 *\/"; commit "fix6: c.c (never backported)"; fix6=$(g rev-parse HEAD)
g tag v1.1.0
# the release branch
g checkout -q release-1.x
edit d.c 38 "int d_38(void) { return 38; } \/* release only *\/"; commit "release: unrelated"
pick -x "$fix1"
g tag v1.0.1
pick "$fix5"
# half of fix2: only its a.c hunk
g show "$fix2" -- src/a.c | g apply || fail "cannot apply half of fix2"
commit "backport the a.c part of fix2"
g tag v1.0.2
deployed=$(g rev-parse v1.0.2)
pick -x "$fix4"
g tag v1.0.3
g checkout -q main

# --- ground truth from git ------------------------------------------------------------
pick1=$(g log --format=%H --grep="cherry picked from commit $fix1" v1.0.2)
[ -n "$pick1" ] || fail "git log --grep finds no -x trailer for fix1"
pid() { g show "$1" -- "${@:2}" | git patch-id --stable | cut -d' ' -f1; }
want5=$(pid "$fix5")
pick5=
for c in $(g rev-list v1.0.0..v1.0.2); do
	[ "$(pid "$c")" = "$want5" ] && pick5=$c
done
[ -n "$pick5" ] || fail "git patch-id finds no copy of fix5 on v1.0.2"
g log -1 --format=%B "$pick5" | grep -q "cherry picked" && fail "the fix5 copy has a trailer"
echo "ok: git patch-id --stable: fix5 = ${pick5:0:12} (no trailer)"
# fix2: which files of the fix have a commit with the same per-file patch-id on v1.0.2
present2=; missing2=
for f in $(g diff --name-only "$fix2^" "$fix2"); do
	w=$(pid "$fix2" "$f"); hit=
	for c in $(g rev-list v1.0.0..v1.0.2); do [ "$(pid "$c" "$f")" = "$w" ] && hit=$c; done
	if [ -n "$hit" ]; then present2="$present2${present2:+, }$f"; else missing2="$missing2${missing2:+, }$f"; fi
done
check_eq "$present2|$missing2" "src/a.c|src/b.c" "git: fix2 half present"
pick4=$(g log --format=%H --grep="cherry picked from commit $fix4" release-1.x)
tag4=$(for t in $(g tag --contains "$pick4"); do echo "$(g log -1 --format=%ct "$t") $t"; done | sort -n | head -1 | cut -d' ' -f2)
first_tag() { for t in $(g tag --contains "$1"); do echo "$(g log -1 --format=%ct "$t") $t"; done | sort -k1,1n -k2,2 | head -1 | cut -d' ' -f2; }
g merge-base --is-ancestor "$fix6" "$deployed" && fail "fix6 is an ancestor"

cache=$T/cache
fc() { "$PROVENANCE" --cache "$cache" fixcheck "$@" --repo "$up" --at v1.0.2 --format json; }
field() { json_get "$T/last.out" "d[0][\"$1\"]"; }

check_exit 0 "an ancestor" -- fc "$old"
check_eq "$(field how) $(field included)" "ancestor true" "how for an ancestor"
check_eq "$(field schema)" "provenance/1" "fixcheck JSON carries schema"

check_exit 0 "cherry-pick -x" -- fc "$fix1"
check_eq "$(field how) $(field via) $(field included)" "cherry-pick $pick1 true" "fix1 via its -x copy (git log --grep)"
check_eq "$(field first_tag)" "$(first_tag "$fix1")" "first tag by ancestry"

check_exit 0 "cherry-pick without -x" -- fc "$fix5"
check_eq "$(field how) $(field via)" "cherry-pick $pick5" "fix5 via the same patch-id (git patch-id --stable)"
check_eq "$(field patch_id)" "$want5" "fix5's patch-id = git patch-id --stable"

check_exit 1 "partly backported" -- fc "$fix2"
check_eq "$(field how) $(field included)" "partial false" "how for half of fix2"
check_eq "$(json_get "$T/last.out" '", ".join(d[0]["files_present"])')|$(json_get "$T/last.out" '", ".join(d[0]["files_missing"])')" \
	"$present2|$missing2" "files of fix2 present and missing"

# every hunk of fix4 and fix6 applies forward on v1.0.2 (git apply --check): "missing"
mkdir -p "$T/v102" && g archive v1.0.2 | tar -x -C "$T/v102"
for f in "$fix4" "$fix6"; do
	g show "$f" | (cd "$T/v102" && git apply --check) || fail "git apply --check: ${f:0:12} does not apply to v1.0.2"
done
echo "ok: git apply --check: fix4 and fix6 apply forward on v1.0.2"
check_exit 1 "later on the same branch" -- fc "$fix4"
check_eq "$(field how) $(field included)" "missing false" "fix4 not in v1.0.2"
check_eq "$(field first_tag) $(field branch_tag) $(field branch) $(field branch_via)" \
	"$(first_tag "$fix4") $tag4 release-1.x $pick4" "fix4: first tag by ancestry and on the branch"

check_exit 1 "never backported" -- fc "$fix6"
check_eq "$(field how) $(field branch_tag) $(field first_tag)" "missing null $(first_tag "$fix6")" "fix6 only by upgrading"
check_eq "$(json_get "$T/last.out" '" ".join(e["state"] for e in d[0]["evidence"])')" absent "fix6: its one hunk absent"

# the text says the same
check_exit 1 "text output" -- "$PROVENANCE" --cache "$cache" fixcheck "$fix1" "$fix5" "$fix2" "$fix4" "$fix6" --repo "$up" --at v1.0.2
check_match "$(sed -n 1p "$T/last.out")" "^YES $fix1 is in v1\.0\.2 .*: cherry-pick ${pick1:0:12}$" "text: fix1"
check_match "$(sed -n 2p "$T/last.out")" "^YES $fix5 is in v1\.0\.2 .*: cherry-pick ${pick5:0:12}$" "text: fix5"
check_match "$(sed -n 3p "$T/last.out")" "^PARTIAL $fix2 is partly in v1\.0\.2 .*partial, src/a\.c .*not src/b\.c" "text: fix2"
check_match "$(sed -n 4p "$T/last.out")" "^NO $fix4 is not in v1\.0\.2 .*upgrade to $tag4, same branch release-1\.x" "text: fix4"
check_match "$(sed -n 5p "$T/last.out")" "^NO $fix6 is not in v1\.0\.2 \(first in tag v1\.1\.0\); upgrade to v1\.1\.0" "text: fix6"

# patch-ids are cached: a second run computes no diff (same answers)
check_exit 0 "cached run" -- fc "$fix5"
check_eq "$(field via)" "$pick5" "cached: same answer"
python3 -c 'import sqlite3,sys; n=sqlite3.connect(sys.argv[1]).execute("select count(*) from patchids").fetchone()[0]; sys.exit(0 if n>=5 else 1)' "$cache/cache.sqlite" \
	|| fail "no patch-ids in the cache"
echo "ok: patch-ids kept in the cache"

# --- a Debian source package whose quilt series carries fix3 ---------------------------
if command -v dpkg-source >/dev/null; then
	w=$T/deb; mkdir -p "$w/www/debian/pool/main/libf/libfoo"
	g archive --prefix=libfoo-1.0.2/ v1.0.2 | gzip -n > "$w/libfoo_1.0.2.orig.tar.gz"
	tar -C "$w" -xzf "$w/libfoo_1.0.2.orig.tar.gz"
	mkdir -p "$w/libfoo-1.0.2/debian/source" "$w/libfoo-1.0.2/debian/patches"
	cp "$TOP/fixtures/srcpkg/debian/control" "$TOP/fixtures/srcpkg/debian/rules" "$w/libfoo-1.0.2/debian/"
	sed 's/(1.0-1)/(1.0.2-1)/' "$TOP/fixtures/srcpkg/debian/changelog" > "$w/libfoo-1.0.2/debian/changelog"
	echo "3.0 (quilt)" > "$w/libfoo-1.0.2/debian/source/format"
	printf 'Description: an unrelated change\n--- a/src/d.c\n+++ b/src/d.c\n@@ -1,1 +1,1 @@\n-int d_1(void) { return 1; }\n+int d_1(void) { return 101; }\n' \
		> "$w/libfoo-1.0.2/debian/patches/01-other.patch"
	g format-patch -1 --stdout "$fix3" > "$w/libfoo-1.0.2/debian/patches/02-upstream-fix3.patch"
	printf '01-other.patch\n02-upstream-fix3.patch\n' > "$w/libfoo-1.0.2/debian/patches/series"
	(cd "$w" && dpkg-source --no-check -b libfoo-1.0.2) >"$w/b.log" 2>&1 || { cat "$w/b.log"; fail "dpkg-source -b"; }
	cp "$w"/libfoo_1.0.2-1.dsc "$w"/libfoo_1.0.2.orig.tar.gz "$w"/libfoo_1.0.2-1.debian.tar.* "$w/www/debian/pool/main/libf/libfoo/"
	# ground truth: the patch that changes src/c.c as fix3 does (dpkg-source -x, then grep)
	(cd "$w" && dpkg-source --no-check -x libfoo_1.0.2-1.dsc "$w/x") >/dev/null 2>&1 || fail "dpkg-source -x"
	grep -q 'fix3' "$w/x/src/c.c" || fail "the unpacked source lacks fix3"
	want_patch=debian/patches/$(grep -l '^+.*fix3' "$w/x/debian/patches/"*.patch | xargs -n1 basename)
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	python3 -m http.server --bind 127.0.0.1 "$port" --directory "$w/www" >"$w/http.log" 2>&1 &
	http_pid=$!
	trap 'kill $http_pid 2>/dev/null; rm -rf "$T"' EXIT
	for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && break; sleep 0.1; done
	dfc() { "$PROVENANCE" --cache "$cache" -c "sources.debianBaseUrl=http://127.0.0.1:$port/debian" \
		fixcheck "$@" --repo "$up" --at v1.0.2 --debian-source libfoo=1.0.2-1 --format json; }
	check_exit 0 "fix3 as a Debian patch" -- dfc "$fix3"
	check_eq "$(field how) $(field via) $(field included)" "distribution-patch $want_patch true" "fix3 via the quilt patch"
	check_exit 1 "fix6 not in the Debian package either" -- dfc "$fix6"
	check_eq "$(field how)" "missing" "fix6 with the Debian patches"
	check_exit 1 "without the Debian source, fix3 is missing" -- fc "$fix3"
	check_exit 64 "--debian-source without =" -- "$PROVENANCE" fixcheck "$fix3" --repo "$up" --at v1.0.2 --debian-source libfoo
else
	note "no dpkg-source: the distribution-patch part is not run"
fi
echo "all ok"
