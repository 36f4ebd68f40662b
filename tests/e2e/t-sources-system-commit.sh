#!/usr/bin/env bash
# A commit the installed system recorded (pip direct_url.json) wins over the
# mapping's ref template; a URL from the crashed system is fetched only when
# the mapping names it or fetch.trustSystemUrls=true. Expected commits come
# from git rev-parse.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

mkdir -p "$T/upstream"
fixture_cached "$T/work" "$TOP/fixtures/upstream/make-history.sh" 40 || fail "cannot build the test repository"
git clone -q --bare "$T/work" "$T/upstream/proj.git" || fail "clone"
up=$T/upstream/proj.git
redirect="url.file://$T/upstream/.insteadOf=https://example.invalid/"
sys=$(git -C "$up" rev-parse 'main~3')
tagc=$(git -C "$up" rev-parse 'v1.1.0^{commit}')
[ "$sys" != "$tagc" ] || fail "fixture: commits must differ"

# a sysroot with a VCS pip install of "proj" 1.1.0
site=$T/root/usr/lib/python3/dist-packages
mkdir -p "$site/proj" "$site/proj-1.1.0.dist-info"
printf 'ELF' >"$site/proj/_native.so"
printf 'Metadata-Version: 2.1\nName: proj\nVersion: 1.1.0\n' >"$site/proj-1.1.0.dist-info/METADATA"
printf 'proj/_native.so,,\nproj-1.1.0.dist-info/METADATA,,\n' >"$site/proj-1.1.0.dist-info/RECORD"
printf '{"url": "https://example.invalid/proj.git", "vcs_info": {"vcs": "git", "commit_id": "%s"}}\n' "$sys" \
	>"$site/proj-1.1.0.dist-info/direct_url.json"
cat >"$T/bt.txt" <<'BT'
PID 5 - process
TID 5:
#0  0x00007f0000001234 crash_here - /usr/lib/python3/dist-packages/proj/_native.so
    /tmp/pip-req-build-abcd1234/projects/alpha/src/file3.c:4
#1  0x0000555555555555 main - /usr/bin/python3
BT
printf '[component "proj"]\n\tpackage = proj\n\trepo = https://example.invalid/proj.git\n\tref = v{version}\n' >"$T/named.map"
printf '[component "proj"]\n\tpackage = proj\n' >"$T/norepo.map"

run() {	# run OUT ARGS...: resolve, exit 0 or 1 accepted
	local out=$1; shift
	"$PROVENANCE" -c "$redirect" resolve "$T/bt.txt" --sysroot "$T/root" --format json "$@" >"$out" 2>"$out.err"
	local rc=$?
	[ $rc = 0 ] || [ $rc = 1 ] || fail "resolve $*: exit $rc: $(cat "$out.err")"
}
comp() { json_get "$1" "[c for c in d[\"components\"] if c[\"name\"]==\"proj\"][0].get(\"$2\")"; }

run "$T/a.json" --mapping "$T/named.map"
[ "$(json_get "$T/a.json" 'd["modules"][0]["package"]["kind"]')" = pip ] || skip "the pip resolver did not claim the module (resolvers not built?)"
check_eq "$(comp "$T/a.json" commit)" "$sys" "the system's commit wins over v{version}"
check_match "$(comp "$T/a.json" found_by)" "^pip" "found_by names the resolver"
check_eq "$(json_get "$T/a.json" 'd["threads"][0]["frames"][0]["repo_path"]')" "projects/alpha/src/file3.c" "pip-build path rewritten"
expect=$(git -C "$up" show "$sys:projects/alpha/src/file3.c" | sed -n 4p)
check_eq "$(json_get "$T/a.json" '[l["text"] for l in d["sources"][0]["lines"] if l["number"]==4][0]')" "$expect" "line 4 at the system's commit"

# the mapping names no repository: the system URL is not fetched by default
run "$T/b.json" --mapping "$T/norepo.map" --cache "$T/cache-b"
check_eq "$(comp "$T/b.json" commit)" "null" "untrusted system URL: no commit"
[ ! -d "$T/cache-b/mirrors" ] || [ -z "$(ls "$T/cache-b/mirrors" | grep -v lock)" ] || fail "an untrusted URL was fetched"
run "$T/c.json" --mapping "$T/norepo.map" --cache "$T/cache-c" -c fetch.trustSystemUrls=true
check_eq "$(comp "$T/c.json" commit)" "$sys" "trusted system URL: the system's commit"
