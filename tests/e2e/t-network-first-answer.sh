#!/usr/bin/env bash
# The first answer on a network (issue 25): resolve prints what it knows
# without the network first; the crash lines of an exact commit (one the
# system recorded) come from debuginfod's /buildid/ID/source/PATH, else the
# forge's single-file endpoint for the commit (GitHub raw, GitLab, cgit,
# Gitea), and no mirror is cloned for them; fixcheck clones one, and a later
# resolve reads the lines from it. A host that does not answer costs the
# connect bound once, then is skipped.
# Ground truth: git show for the lines, the request log of a local forge
# (git http-backend plus the single-file forms), the connection count of a
# silent server.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v python3 >/dev/null || skip "no python3"
[ -x "$(git --exec-path)/git-http-backend" ] || skip "no git http-backend"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

mkdir -p "$T/srv/o"
fixture_cached "$T/work" "$TOP/fixtures/upstream/make-history.sh" 20 || fail "cannot build the test repository"
git clone -q --bare "$T/work" "$T/srv/o/proj.git" || fail "clone"
up=$T/srv/o/proj.git
sys=$(git -C "$up" rev-parse 'main~3')
file=projects/alpha/src/file3.c
want=$(git -C "$up" show "$sys:$file" | sed -n 4p)
[ -n "$want" ] || fail "fixture: $file has no line 4 at $sys"
bid=0123456789abcdef0123456789abcdef01234567

# a sysroot with a VCS pip install of "proj" (direct_url.json names the commit)
site=$T/root/usr/lib/python3/dist-packages
mkdir -p "$site/proj" "$site/proj-1.1.0.dist-info"
printf 'ELF' >"$site/proj/_native.so"
printf 'Metadata-Version: 2.1\nName: proj\nVersion: 1.1.0\n' >"$site/proj-1.1.0.dist-info/METADATA"
printf 'proj/_native.so,,\nproj-1.1.0.dist-info/METADATA,,\n' >"$site/proj-1.1.0.dist-info/RECORD"
# eu-stack -b -s: the frame's build ID and source line
cat >"$T/bt.txt" <<BT
PID 5 - process
TID 5:
#0  0x00007f0000001234 crash_here - /usr/lib/python3/dist-packages/proj/_native.so
    [$bid]@0x7f0000000000+0x1234
    /tmp/pip-req-build-abcd1234/$file:4
#1  0x0000555555555555 main - /usr/bin/app
BT
map() {	# map REPO-URL: a mapping for proj, and the install's record of that repository
	printf '[component "proj"]\n\tpackage = proj\n\trepo = %s\n\tref = v{version}\n' "$1" >"$T/proj.map"
	printf '{"url": "%s", "vcs_info": {"vcs": "git", "commit_id": "%s"}}\n' "$1" "$sys" \
		>"$site/proj-1.1.0.dist-info/direct_url.json"
}

python3 "$TOP/tests/e2e/forge-server.py" "$T/srv" "$T/forge.port" "$T/forge.log" "$T/release" &
fpid=$!
python3 "$TOP/tests/e2e/stall-proxy.py" silent "$T/silent.port" &
spid=$!
trap 'kill $fpid $spid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
wait_file "$T/forge.port" "the forge"
wait_file "$T/silent.port" "the silent server"
fp=$(cat "$T/forge.port")
silent=$(cat "$T/silent.port")
F=http://127.0.0.1:$fp
touch "$T/release"
git ls-remote "$F/o/proj.git" | grep -q "$sys" 2>/dev/null || git ls-remote "$F/o/proj.git" >/dev/null ||
	fail "the forge does not serve git over HTTP"
: >"$T/forge.log"

requests() { grep -c -E "$1" "$T/forge.log" || true; }
mirrors() { ls "$1/mirrors" 2>/dev/null | grep -c '\.git$' || true; }
src() { json_get "$1" "[s for s in d['sources'] if s['component']=='proj'][0].get('$2')"; }
line4() { json_get "$1" "[l['text'] for l in [s for s in d['sources'] if s['component']=='proj'][0]['lines'] if l['number']==4][0]"; }
# the raw host is the local forge; github.com itself is not redirected (a
# repository that url.insteadOf sends elsewhere, a local mirror, has no
# built-in single-file form), except where a step says so (GHM)
GH=(-c "url.$F/gh/.insteadOf=https://raw.githubusercontent.com/")
GHM=("${GH[@]}" -c "url.$F/.insteadOf=https://github.com/")
resolve() {	# resolve EXIT CACHE WHAT OPTIONS... [-- RESOLVE-OPTIONS...]: JSON report in $T/last.out
	local rc=$1 cache=$2 what=$3 g=() r=(); shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do g+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	r=("$@")
	check_exit "$rc" "$what" -- "$PROVENANCE" --cache "$cache" "${g[@]}" resolve "$T/bt.txt" --sysroot "$T/root" \
		--mapping "$T/proj.map" --format json "${r[@]}"
}

# 1. GitHub: one raw request, no git request, no mirror; the line is git's
map https://github.com/o/proj.git
resolve 1 "$T/c1" "resolve, GitHub raw" "${GH[@]}"
[ "$(json_get "$T/last.out" 'd["modules"][0]["package"]["kind"]')" = pip ] || skip "the pip resolver did not claim the module"
check_eq "$(src "$T/last.out" fetched_by)" "single-file:github" "fetched_by"
check_eq "$(src "$T/last.out" commit)" "$sys" "the system's commit"
check_eq "$(line4 "$T/last.out")" "$want" "line 4 at the commit (git show)"
check_eq "$(requests "^GET /gh/o/proj/$sys/$file\$")" 1 "one raw request"
check_eq "$(requests 'git-upload-pack|info/refs')" 0 "no git request"
check_eq "$(mirrors "$T/c1")" 0 "no mirror cloned"
check_match "$(json_get "$T/last.out" 'd["suspects_note"]')" "not looked for: no mirror of 'https://github.com/o/proj.git'" \
	"suspects say why they were not looked for"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/last.out" >/dev/null 2>&1 ||
	fail "the report does not match its schema"

# 2. the file of a full commit never changes: the next run (and --offline) asks nothing
resolve 1 "$T/c1" "second resolve" "${GH[@]}"
resolve 1 "$T/c1" "--offline" "${GH[@]}" -- --offline
check_eq "$(line4 "$T/last.out")" "$want" "--offline: the line from the download cache"
check_eq "$(requests '^GET /gh/')" 1 "still one raw request"

# 3. the other forms of the table, the host's kind from the configuration
: >"$T/forge.log"
map https://forge.test/o/proj.git
n=0
for kind in gitlab cgit gitea; do
	n=$((n + 1))
	resolve 1 "$T/c3$kind" "resolve, $kind" -c "url.$F/.insteadOf=https://forge.test/" -c "forge.forge.test.type=$kind"
	check_eq "$(src "$T/last.out" fetched_by)" "single-file:$kind" "$kind: fetched_by"
	check_eq "$(line4 "$T/last.out")" "$want" "$kind: line 4"
	check_eq "$(mirrors "$T/c3$kind")" 0 "$kind: no mirror"
done
check_eq "$(requests "^GET /o/proj/-/raw/$sys/$file\$")" 1 "the GitLab form"
check_eq "$(requests "^GET /o/proj\.git/plain/$file\?id=$sys\$")" 1 "the cgit form"
check_eq "$(requests "^GET /o/proj/raw/commit/$sys/$file\$")" 1 "the Gitea form"
check_eq "$(requests 'git-upload-pack|info/refs')" 0 "no git request"
# a private repository's raw URL answers 200 with a sign-in page: not source
map https://forge.test/private/proj.git
resolve 1 "$T/c3p" "resolve, private repository" -c "url.$F/.insteadOf=https://forge.test/" -c forge.forge.test.type=gitlab
check_eq "$(json_get "$T/last.out" "len([s for s in d['sources'] if s['component']=='proj'])")" 0 "private: no lines"
check_match "$(cat "$T/last.err")" "answered with a web page, not the file" "private: says why"
map https://forge.test/o/proj.git
# a template of one's own, and a host with no known form (the mirror, as before)
resolve 1 "$T/c3t" "resolve, forge.<host>.url" -c "url.$F/.insteadOf=https://forge.test/" \
	-c "forge.forge.test.url={base}/raw/commit/{commit}/{path}"
check_eq "$(src "$T/last.out" fetched_by)" "single-file:custom" "a template of one's own"
resolve 1 "$T/c3m" "resolve, no single-file form" -c "url.$F/.insteadOf=https://forge.test/"
check_eq "$(src "$T/last.out" fetched_by)" "mirror" "an unknown host: the mirror"
check_eq "$(line4 "$T/last.out")" "$want" "the mirror's line 4"

# 4. debuginfod first: its source for the build ID, no forge request
: >"$T/forge.log"
printf 'o/proj %s /tmp/pip-req-build-abcd1234/\n' "$sys" >"$T/srv/debuginfod"
map https://github.com/o/proj.git
DEBUGINFOD_URLS=$F resolve 1 "$T/c4" "resolve with debuginfod" "${GH[@]}"
check_eq "$(src "$T/last.out" fetched_by)" "debuginfod" "fetched_by"
check_eq "$(line4 "$T/last.out")" "$want" "debuginfod: line 4"
check_eq "$(requests "^GET /buildid/$bid/source/")" 1 "one debuginfod request"
check_eq "$(requests '^GET /gh/')" 0 "no forge request"
# a host with no single-file form: debuginfod still comes before the mirror
map https://forge.test/o/proj.git
: >"$T/forge.log"
DEBUGINFOD_URLS=$F resolve 1 "$T/c4b" "no form, debuginfod" -c "url.$F/.insteadOf=https://forge.test/"
check_eq "$(src "$T/last.out" fetched_by)" "debuginfod" "no form: debuginfod first"
check_eq "$(requests 'git-upload-pack|info/refs')" 0 "no form, debuginfod has it: no git request"
check_eq "$(mirrors "$T/c4b")" 0 "no form, debuginfod has it: no mirror"
rm "$T/srv/debuginfod"
: >"$T/forge.log"
DEBUGINFOD_URLS=$F resolve 1 "$T/c4c" "no form, debuginfod without the file" -c "url.$F/.insteadOf=https://forge.test/"
check_eq "$(src "$T/last.out" fetched_by)" "mirror" "then the mirror"
check_eq "$(line4 "$T/last.out")" "$want" "the mirror's line 4"
check_eq "$(requests "^GET /buildid/$bid/source/")" 1 "debuginfod was asked first"
check_match "$(requests 'git-upload-pack')" "^[1-9]" "then the clone"
map https://github.com/o/proj.git

# 5. fixcheck clones the mirror; resolve then reads the lines from it
: >"$T/forge.log"
fix=$(git -C "$up" rev-parse 'main~1')
check_exit 1 "fixcheck" -- "$PROVENANCE" --cache "$T/c1" "${GHM[@]}" fixcheck "$fix" \
	--repo https://github.com/o/proj.git --at "$sys"
check_match "$(requests 'git-upload-pack')" "^[1-9]" "fixcheck: git requests"
check_eq "$(mirrors "$T/c1")" 1 "fixcheck: one mirror"
: >"$T/forge.log"
resolve 1 "$T/c1" "resolve after fixcheck" "${GH[@]}"
check_eq "$(src "$T/last.out" fetched_by)" "mirror" "the mirror holds the commit"
check_eq "$(requests '.')" 0 "no request at all"
check_eq "$(json_get "$T/last.out" 'd["suspects_note"]')" "null" "suspects from the mirror"
# resolve --fix clones the mirror too (the verdict needs the history): the
# fix is a descendant of the deployed commit, so it is not in (git ancestry)
git -C "$up" merge-base --is-ancestor "$fix" "$sys" && fail "fixture: $fix is in $sys"
: >"$T/forge.log"
check_exit 1 "resolve --fix" -- "$PROVENANCE" --cache "$T/c5f" "${GH[@]}" -c forge.github.com.type=github \
	-c "url.$F/.insteadOf=https://github.com/" resolve "$T/bt.txt" --sysroot "$T/root" --mapping "$T/proj.map" \
	--format json --fix "$fix"
check_eq "$(json_get "$T/last.out" 'd["fixes"][0]["included"]')" "false" "--fix: not included"
check_match "$(requests 'git-upload-pack')" "^[1-9]" "--fix: cloned"
check_eq "$(mirrors "$T/c5f")" 1 "--fix: one mirror"
check_eq "$(requests '^GET /gh/')" 1 "--fix: the crash lines still from one raw request"
# a repository redirected by url.insteadOf (a local mirror) goes through it
: >"$T/forge.log"
resolve 1 "$T/c5" "resolve, github.com redirected" "${GHM[@]}"
check_eq "$(src "$T/last.out" fetched_by)" "mirror" "redirected: the mirror"
check_eq "$(requests '^GET /gh/')" 0 "redirected: no raw request"
check_match "$(requests 'git-upload-pack')" "^[1-9]" "redirected: cloned"
resolve 1 "$T/c5b" "resolve, github.com redirected, forge named" "${GHM[@]}" -c forge.github.com.type=github
check_eq "$(src "$T/last.out" fetched_by)" "single-file:github" "a forge named for the host still applies"

# 6. text: the part known without the network is out before the download
rm -f "$T/release"
: >"$T/forge.log"
"$PROVENANCE" --cache "$T/c6" "${GH[@]}" resolve "$T/bt.txt" --sysroot "$T/root" --mapping "$T/proj.map" \
	>"$T/text.out" 2>"$T/text.err" &
rpid=$!
for _ in $(seq 200); do [ "$(requests '^GET /gh/')" = 1 ] && break; sleep 0.1; done
check_eq "$(requests '^GET /gh/')" 1 "text: the download was asked for"
sleep 0.2
head=$(cat "$T/text.out")
touch "$T/release"
wait $rpid; rc=$?; [ $rc = 1 ] || fail "text resolve: exit $rc: $(cat "$T/text.err")"
check_match "$head" "crash_here at /tmp/pip-req-build-abcd1234/$file:4" "text: the frame was out first"
check_match "$head" "-> proj:$file:4" "text: its repository path too"
check_match "$head" "_native\.so.*\[pip proj 1\.1\.0\]" "text: the module and its package too"
grep -q "^Components:" <<<"$head" && fail "text: components were printed before the download"
check_match "$(cat "$T/text.out")" "Source of frame #0: proj:$file:4 at ${sys:0:12} \(the file from github, no mirror\)" "text: the lines followed"
# the same report as when nothing had to wait
"$PROVENANCE" --cache "$T/c6" "${GH[@]}" resolve "$T/bt.txt" --sysroot "$T/root" --mapping "$T/proj.map" \
	>"$T/text2.out" 2>/dev/null
cmp -s "$T/text.out" "$T/text2.out" || fail "the streamed report differs: $(diff "$T/text.out" "$T/text2.out")"
echo "ok: the streamed report is the same report"

# 7. no route: the raw host is silent. The first run waits the connect bound
#    once and says why; the next is not slower than --offline by the bound
SIL=(-c "url.http://127.0.0.1:$silent/.insteadOf=https://raw.githubusercontent.com/"
	-c "url.$F/.insteadOf=https://github.com/" -c forge.github.com.type=github -c fetch.connectTimeout=2)
: >"$T/forge.log"
resolve 1 "$T/c7" "no route, first run" "${SIL[@]}"
check_match "$(cat "$T/last.err")" "127\.0\.0\.1:$silent did not answer within 2 s" "first run: why it waited"
sleep 0.3
check_eq "$(cat "$T/silent.port.n")" 1 "first run: one connection"
t0=$(date +%s%N)
resolve 1 "$T/c7" "no route, second run" "${SIL[@]}"
t1=$(date +%s%N)
cp "$T/last.err" "$T/second.err"
resolve 1 "$T/c7" "no route, --offline" "${SIL[@]}" -- --offline
t2=$(date +%s%N)
sleep 0.3
check_eq "$(cat "$T/silent.port.n")" 1 "second run and --offline: no connection"
check_match "$(cat "$T/second.err")" "skipping 127\.0\.0\.1:$silent: it did not answer, or answered too slowly, at " "second run: says it skipped"
check_eq "$(requests '.')" 0 "no route: no mirror asked for"
note "no route: second run $(( (t1 - t0) / 1000000 )) ms, --offline $(( (t2 - t1) / 1000000 )) ms (measured, not asserted)"
