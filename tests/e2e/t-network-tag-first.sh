#!/usr/bin/env bash
# A mapping's tag or branch turned into a commit without a mirror (issue
# 25): with no mirror in the cache and a forge that serves single files,
# resolve asks the remote for its ref advertisement only (one GET of
# info/refs, no git-upload-pack POST, no pack), reads the crash lines at
# that commit from the forge, and clones nothing. The answer is cached: a
# second run (and --offline) asks nothing. A branch is labelled
# approximate; a missing tag is a note, not a clone; --fix and
# fetch.lsRemote=false still clone; an endless advertisement stops at
# fetch.maxRefsSize; a silent host costs the connect bound once.
# Ground truth: git rev-parse TAG^{commit} and git show TAG:PATH in the
# fixture repository, the request log of a local forge (git http-backend
# plus the single-file forms), the connection count of a silent server.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v python3 >/dev/null || skip "no python3"
[ -x "$(git --exec-path)/git-http-backend" ] || skip "no git http-backend"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

mkdir -p "$T/srv/o"
fixture_cached "$T/work" "$TOP/fixtures/upstream/make-history.sh" 20 || fail "cannot build the test repository"
# the release branch's own change to the crash file, so its line is not the tag's
git -C "$T/work" checkout -q release/1.x && sed -i '4s/.*/int release_branch_line = 4;/' \
	"$T/work/projects/alpha/src/file3.c" && git -C "$T/work" commit -q -a -m "release: file3" &&
	git -C "$T/work" checkout -q main || fail "fixture: the release branch's commit"
git clone -q --bare "$T/work" "$T/srv/o/proj.git" || fail "clone"
up=$T/srv/o/proj.git
file=projects/alpha/src/file3.c
tag=v1.1.0
# an annotated tag: its commit is what it tags, not the tag object
[ "$(git -C "$up" cat-file -t "$tag")" = tag ] || fail "fixture: $tag is not an annotated tag"
tag_commit=$(git -C "$up" rev-parse "$tag^{commit}")
tag_line=$(git -C "$up" show "$tag:$file" | sed -n 4p)
branch=release/1.x
branch_commit=$(git -C "$up" rev-parse "refs/heads/$branch")
branch_line=$(git -C "$up" show "$branch:$file" | sed -n 4p)
[ -n "$tag_line" ] && [ -n "$branch_line" ] || fail "fixture: $file has no line 4"
[ "$tag_line" != "$(git -C "$up" show "main:$file" | sed -n 4p)" ] || fail "fixture: the tag's line is main's"
[ "$tag_line" != "$branch_line" ] || fail "fixture: the tag's line is the branch's"

# a sysroot with a pip install of proj 1.1.0 that recorded no commit
site=$T/root/usr/lib/python3/dist-packages
mkdir -p "$site/proj" "$site/proj-1.1.0.dist-info"
printf 'ELF' >"$site/proj/_native.so"
printf 'Metadata-Version: 2.1\nName: proj\nVersion: 1.1.0\n' >"$site/proj-1.1.0.dist-info/METADATA"
printf 'proj/_native.so,,\nproj-1.1.0.dist-info/METADATA,,\n' >"$site/proj-1.1.0.dist-info/RECORD"
cat >"$T/bt.txt" <<BT
PID 5 - process
TID 5:
#0  0x00007f0000001234 crash_here - /usr/lib/python3/dist-packages/proj/_native.so
    /tmp/pip-req-build-abcd1234/$file:4
#1  0x0000555555555555 main - /usr/bin/app
BT
map() {	# map REF...: a mapping for proj with these refs, in order
	{ printf '[component "proj"]\n\tpackage = proj\n\trepo = https://forge.test/o/proj.git\n'
	  for r in "$@"; do printf '\tref = %s\n' "$r"; done; } >"$T/proj.map"
}

python3 "$TOP/tests/e2e/forge-server.py" "$T/srv" "$T/forge.port" "$T/forge.log" &
fpid=$!
python3 "$TOP/tests/e2e/stall-proxy.py" silent "$T/silent.port" &
spid=$!
python3 "$TOP/tests/e2e/endless-refs.py" "$T/endless.port" http >/dev/null 2>"$T/endless.log" &
epid=$!
trap 'kill $fpid $spid $epid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
wait_file "$T/forge.port" "the forge"
wait_file "$T/silent.port" "the silent server"
wait_file "$T/endless.port" "the endless server"
F=http://127.0.0.1:$(cat "$T/forge.port")
git ls-remote "$F/o/proj.git" >/dev/null || fail "the forge does not serve git over HTTP"

requests() { grep -c -E "$1" "$T/forge.log" || true; }
mirrors() { ls "$1/mirrors" 2>/dev/null | grep -c '\.git$' || true; }
comp() { json_get "$1" "[c for c in d['components'] if c['name']=='proj'][0].get('$2')"; }
src() { json_get "$1" "[s for s in d['sources'] if s['component']=='proj'][0].get('$2')"; }
line4() { json_get "$1" "[l['text'] for l in [s for s in d['sources'] if s['component']=='proj'][0]['lines'] if l['number']==4][0]"; }
# forge.test is the local forge, GitLab's single-file form
FT=(-c "url.$F/.insteadOf=https://forge.test/" -c forge.forge.test.type=gitlab)
resolve() {	# resolve EXIT CACHE WHAT OPTIONS... [-- RESOLVE-OPTIONS...]: JSON report in $T/last.out
	local rc=$1 cache=$2 what=$3 g=() r=(); shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do g+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	r=("$@")
	check_exit "$rc" "$what" -- "$PROVENANCE" --cache "$cache" "${g[@]}" resolve "$T/bt.txt" --sysroot "$T/root" \
		--mapping "$T/proj.map" --format json "${r[@]}"
}

# 1. a tag the version names: one ref advertisement, no pack, no mirror
map 'v{version}'
: >"$T/forge.log"
resolve 1 "$T/c1" "resolve, tag" "${FT[@]}"
[ "$(json_get "$T/last.out" 'd["modules"][0]["package"]["kind"]')" = pip ] || skip "the pip resolver did not claim the module"
check_eq "$(comp "$T/last.out" commit)" "$tag_commit" "the commit is git rev-parse $tag^{commit}"
check_eq "$(comp "$T/last.out" ref)" "$tag" "ref"
check_eq "$(comp "$T/last.out" found_by)" "mapping:tag" "found_by"
check_eq "$(comp "$T/last.out" commit_is)" "exact" "commit_is"
check_eq "$(src "$T/last.out" fetched_by)" "single-file:gitlab" "fetched_by"
check_eq "$(src "$T/last.out" commit)" "$tag_commit" "the excerpt's commit"
check_eq "$(line4 "$T/last.out")" "$tag_line" "line 4 is git show $tag:$file"
check_eq "$(requests '^GET /o/proj\.git/info/refs\?service=git-upload-pack$')" 1 "one ref advertisement"
check_eq "$(requests '^POST .*git-upload-pack')" 0 "no pack asked for (no git-upload-pack POST)"
check_eq "$(requests "^GET /o/proj/-/raw/$tag_commit/$file\$")" 1 "one raw request at the tag's commit"
check_eq "$(mirrors "$T/c1")" 0 "no mirror cloned"
check_match "$(cat "$T/last.err")" "listing the refs of https://forge\.test/o/proj\.git \(ls-remote, no mirror\)" \
	"stderr says what it asks"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/last.out" >/dev/null 2>&1 ||
	fail "the report does not match its schema"

# 2. the answer is cached: the next run, and --offline, ask nothing
: >"$T/forge.log"
resolve 1 "$T/c1" "second resolve" "${FT[@]}"
check_eq "$(comp "$T/last.out" commit)" "$tag_commit" "second run: the same commit"
check_eq "$(requests '.')" 0 "second run: no request at all"
resolve 1 "$T/c1" "--offline" "${FT[@]}" -- --offline
check_eq "$(comp "$T/last.out" commit)" "$tag_commit" "--offline: the commit from the cache"
check_eq "$(line4 "$T/last.out")" "$tag_line" "--offline: line 4 from the download cache"
check_eq "$(requests '.')" 0 "--offline: no request"
# a damaged answer file is the same as none: asked again, and rewritten
refs_file=$(ls "$T"/c1/mirrors/*.git.refs 2>/dev/null)
[ -f "$refs_file" ] || fail "no answer kept in the cache"
printf '%s\ttag\tnot-a-commit\t1\ngarbage\n%s\ttag\t%s' "$tag" "$tag" "$tag_commit" >"$refs_file"
resolve 1 "$T/c1" "damaged answer file" "${FT[@]}"
check_eq "$(comp "$T/last.out" commit)" "$tag_commit" "damaged answer file: the same commit"
check_eq "$(requests 'info/refs')" 1 "damaged answer file: asked again"
check_match "$(cat "$refs_file")" "^$tag	tag	$tag_commit	[0-9]+\$" "damaged answer file: rewritten"
: >"$T/forge.log"
resolve 1 "$T/c2o" "--offline, empty cache" "${FT[@]}" -- --offline
check_eq "$(comp "$T/last.out" commit)" "null" "--offline, empty cache: no commit"
check_match "$(comp "$T/last.out" note)" "no mirror of 'https://forge\.test/o/proj\.git' in the cache \(offline\)" \
	"--offline, empty cache: the note"
check_eq "$(requests '.')" 0 "--offline, empty cache: no request"

# 3. a branch: its tip now, approximate; refs tried in order (a missing one skipped)
map v9.9 "$branch"
: >"$T/forge.log"
resolve 1 "$T/c3" "resolve, branch" "${FT[@]}"
check_eq "$(comp "$T/last.out" commit)" "$branch_commit" "the branch's tip (git rev-parse)"
check_eq "$(comp "$T/last.out" found_by)" "mapping:branch-tip" "branch: found_by"
check_eq "$(comp "$T/last.out" commit_is)" "approximate" "branch: commit_is"
check_eq "$(src "$T/last.out" commit_is)" "approximate" "branch: the excerpt is labelled approximate"
check_match "$(comp "$T/last.out" note)" "the tip of branch '$branch' is not the deployed build" "branch: the note"
check_eq "$(line4 "$T/last.out")" "$branch_line" "branch: line 4 is git show $branch:$file"
check_eq "$(requests 'info/refs')" 1 "branch: one ref advertisement for both refs"
check_eq "$(requests '^POST .*git-upload-pack')" 0 "branch: no pack"
check_eq "$(mirrors "$T/c3")" 0 "branch: no mirror"
# the text report labels the excerpt (from the cache now: no request)
: >"$T/forge.log"
"$PROVENANCE" --cache "$T/c3" "${FT[@]}" resolve "$T/bt.txt" --sysroot "$T/root" --mapping "$T/proj.map" \
	>"$T/text.out" 2>/dev/null
check_match "$(cat "$T/text.out")" "Source of frame #0: proj:$file:4 at ${branch_commit:0:12}.*approximate commit.*the file from gitlab, no mirror|Source of frame #0: proj:$file:4 at ${branch_commit:0:12}.*the file from gitlab, no mirror.*approximate commit" \
	"text: the excerpt says approximate and how its file came"
check_eq "$(requests '.')" 0 "branch, second run: no request"

# 4. no such tag: a note, and no clone to find that out
map 'v{version}-missing'
: >"$T/forge.log"
resolve 1 "$T/c4" "resolve, missing tag" "${FT[@]}"
check_eq "$(comp "$T/last.out" commit)" "null" "missing tag: no commit"
check_match "$(comp "$T/last.out" note)" "no ref 'v1\.1\.0-missing' in 'https://forge\.test/o/proj\.git'" "missing tag: the note"
check_eq "$(requests '^POST .*git-upload-pack')" 0 "missing tag: no pack"
check_eq "$(mirrors "$T/c4")" 0 "missing tag: no mirror"

# 5. --fix clones (the verdict needs history), and fetch.lsRemote=false is the mirror as before
map 'v{version}'
fix=$(git -C "$up" rev-parse main)
: >"$T/forge.log"
resolve 1 "$T/c5" "resolve --fix" "${FT[@]}" -- --fix "$fix"
check_eq "$(json_get "$T/last.out" 'd["fixes"][0]["included"]')" "false" "--fix: main is not in $tag"
check_match "$(requests '^POST .*git-upload-pack')" "^[1-9]" "--fix: cloned"
check_eq "$(mirrors "$T/c5")" 1 "--fix: one mirror"
: >"$T/forge.log"
resolve 1 "$T/c5b" "fetch.lsRemote=false" "${FT[@]}" -c fetch.lsRemote=false
check_eq "$(comp "$T/last.out" commit)" "$tag_commit" "fetch.lsRemote=false: the same commit"
check_eq "$(src "$T/last.out" fetched_by)" "mirror" "fetch.lsRemote=false: the mirror"
check_eq "$(mirrors "$T/c5b")" 1 "fetch.lsRemote=false: cloned"

# 6. an endless advertisement stops at fetch.maxRefsSize, and nothing is cloned after it
EP=$(cat "$T/endless.port")
/usr/bin/time -f "%M" -o "$T/rss" timeout 120 "$PROVENANCE" --cache "$T/c6" \
	-c "url.http://127.0.0.1:$EP/.insteadOf=https://forge.test/" -c forge.forge.test.type=gitlab \
	-c fetch.maxRefsSize=8m -c fetch.timeout=20 -c fetch.connectTimeout=3 resolve "$T/bt.txt" --sysroot "$T/root" \
	--mapping "$T/proj.map" --format json >"$T/e.json" 2>"$T/e.err"
rc=$?
[ $rc -le 1 ] || fail "endless advertisement: exit $rc: $(cat "$T/e.err")"
check_match "$(comp "$T/e.json" note)" "ref advertisement was over 8 MiB" "endless advertisement: the note says why"
grep -q "(mirror)" "$T/e.err" && fail "endless advertisement: a mirror fetch followed"
check_eq "$(mirrors "$T/c6")" 0 "endless advertisement: no mirror"
note "endless advertisement: peak RSS $(tail -n 1 "$T/rss") KiB"
[ "$(tail -n 1 "$T/rss")" -lt $((200 << 10)) ] || fail "endless advertisement: peak RSS over 200 MiB"

# 7. a silent host: the connect bound once, then remembered as down
SIL=(-c "url.http://127.0.0.1:$(cat "$T/silent.port")/.insteadOf=https://forge.test/" -c forge.forge.test.type=gitlab
	-c fetch.connectTimeout=1)
resolve 1 "$T/c7" "silent host, first run" "${SIL[@]}"
check_match "$(cat "$T/last.err")" "did not answer within 1 s" "silent host: says why it waited"
check_match "$(comp "$T/last.out" note)" "ls-remote of https://forge\.test/o/proj\.git got no answer within 1 s" \
	"silent host: the note"
resolve 1 "$T/c7" "silent host, second run" "${SIL[@]}"
check_match "$(cat "$T/last.err")" "skipping 127\.0\.0\.1:[0-9]+: it did not answer, or answered too slowly, at " "silent host: skipped the next time"
sleep 0.3
check_eq "$(cat "$T/silent.port.n")" 1 "silent host: one connection in two runs"
check_eq "$(mirrors "$T/c7")" 0 "silent host: no mirror"
