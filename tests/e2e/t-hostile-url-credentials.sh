#!/usr/bin/env bash
# Credentials in URLs a root recorded (issue 39 #3): a .git/config remote and
# a pip direct_url.json with user:token@host appeared verbatim as vcs_url in
# JSON, text, Markdown, env output and stderr. The token must be nowhere.
. "$(dirname "$0")/lib.sh"

tok=s3cr3tTOKENxyz
commit=0123456789abcdef0123456789abcdef01234567
mkdir -p "$T/root/opt/app/.git/refs/heads"
printf 'ELF' >"$T/root/opt/app/libapp.so"
printf '%s\n' "$commit" >"$T/root/opt/app/.git/HEAD"
printf '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://alice:%s@example.invalid/app.git\n' "$tok" \
	>"$T/root/opt/app/.git/config"
site=$T/root/usr/lib/python3/dist-packages
mkdir -p "$site/proj" "$site/proj-1.1.0.dist-info"
printf 'ELF' >"$site/proj/_native.so"
printf 'Metadata-Version: 2.1\nName: proj\nVersion: 1.1.0\n' >"$site/proj-1.1.0.dist-info/METADATA"
printf 'proj/_native.so,,\nproj-1.1.0.dist-info/METADATA,,\n' >"$site/proj-1.1.0.dist-info/RECORD"
printf '{"url": "https://bob:%s@example.invalid/proj.git", "vcs_info": {"vcs": "git", "commit_id": "%s"}}\n' \
	"$tok" "$commit" >"$site/proj-1.1.0.dist-info/direct_url.json"
printf '#0  0x00007f0000001234 in crash_here () from /usr/lib/python3/dist-packages/proj/_native.so\n#1  0x00007f0000005678 in app_run () from /opt/app/libapp.so\n#2  0x0000555555555555 in main () from /usr/bin/python3\n' >"$T/bt.txt"

for fmt in json text markdown; do
	"$PROVENANCE" --cache "$T/c" resolve --offline --sysroot "$T/root" --format $fmt "$T/bt.txt" \
		>"$T/r.$fmt" 2>"$T/r.$fmt.err"
	rc=$?
	[ $rc -le 3 ] || { cat "$T/r.$fmt.err"; fail "resolve --format $fmt: exit $rc"; }
	"$PROVENANCE" --cache "$T/c" env --sysroot "$T/root" --format $fmt >"$T/e.$fmt" 2>"$T/e.$fmt.err"
done
# URLs printed from other sources (round three): a --mapping repo with
# userinfo, and credentials in a url.insteadOf target, fetched (from a closed
# loopback port: refused at once) so that the banner, the note and the error
# are all written.
printf '[component "app"]\n\tlibrary = libapp.so*\n\trepo = https://carol:%s@127.0.0.1:1/app.git\n\tref = main\n' \
	"$tok" >"$T/cred.map"
printf '[component "app"]\n\tlibrary = libapp.so*\n\trepo = https://example.invalid/app.git\n\tref = main\n' >"$T/plain.map"
for fmt in json text; do
	for off in --offline ""; do
		"$PROVENANCE" --cache "$T/c" resolve $off --mapping "$T/cred.map" --sysroot "$T/root" \
			--format $fmt "$T/bt.txt" >"$T/r.map$off.$fmt" 2>"$T/r.map$off.$fmt.err"
	done
	"$PROVENANCE" --cache "$T/c" -c "url.https://dave:$tok@127.0.0.1:1/.insteadOf=https://example.invalid/" \
		resolve --mapping "$T/plain.map" --sysroot "$T/root" --format $fmt "$T/bt.txt" \
		>"$T/r.insteadof.$fmt" 2>"$T/r.insteadof.$fmt.err"
done
grep -q "127.0.0.1:1/app.git" "$T"/r.map* || fail "the mapping's repo is not in the report at all"
grep -q "^fetching .*app.git" "$T"/r.map.*.err || fail "no fetch banner to check"
grep -q example.invalid "$T"/r.* "$T"/e.* || skip "no resolver recorded either URL"
if grep -l "$tok" "$T"/r.* "$T"/e.*; then
	grep -h "$tok" "$T"/r.* "$T"/e.* | head -3
	fail "the token of a URL reached the output"
fi
echo "ok: no URL credential in any output ($(grep -l example.invalid "$T"/r.* "$T"/e.* | wc -l) outputs name the URLs)"
