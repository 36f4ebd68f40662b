#!/usr/bin/env bash
# fixcheck INPUT --component NAME: the deployed commit comes from the crash
# (a pasted eu-stack backtrace, a mapping with a tag ref, the upstream
# reached through url.insteadOf); answers agree with git merge-base.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

mkdir -p "$T/upstream"
fixture_cached "$T/work" "$TOP/fixtures/upstream/make-history.sh" 40 || fail "cannot build the test repository"
git clone -q --bare "$T/work" "$T/upstream/proj.git" || fail "clone"
up=$T/upstream/proj.git
redirect="url.file://$T/upstream/.insteadOf=https://example.invalid/"
cat >"$T/bt.txt" <<'BT'
PID 77 - process
TID 77:
#0  0x00007f0000001234 crash_here - /usr/lib/libproj.so.1
    /build/proj-AbC123/proj-1.1.0/projects/alpha/src/file3.c:4
#1  0x0000555555555555 main - /usr/bin/app
BT
printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = https://example.invalid/proj.git\n\tref = v1.1.0\n' >"$T/proj.map"
deployed=$(git -C "$up" rev-parse 'v1.1.0^{commit}')

mapfile -t commits < <(git -C "$up" rev-list --all)
n=${#commits[@]}
RANDOM=7
fixes=()
for k in $(seq 1 12); do fixes+=("${commits[RANDOM % n]}"); done
want=0
for f in "${fixes[@]}"; do git -C "$up" merge-base --is-ancestor "$f" "$deployed" || want=1; done

"$PROVENANCE" -c "$redirect" fixcheck "${fixes[@]}" "$T/bt.txt" --component proj --mapping "$T/proj.map" --format json >"$T/out.json" 2>"$T/err"
rc=$?
check_eq "$rc" "$want" "exit code (1 when any fix is missing)"
for i in "${!fixes[@]}"; do
	f=${fixes[$i]}
	if git -C "$up" merge-base --is-ancestor "$f" "$deployed"; then w=true; else w=false; fi
	check_eq "$(json_get "$T/out.json" "d[$i][\"included\"]")" "$w" "included $f"
	check_eq "$(json_get "$T/out.json" "d[$i][\"deployed\"]")" "$deployed" "deployed for $f" >/dev/null
	check_eq "$(json_get "$T/out.json" "d[$i][\"component\"]")" "proj" "component for $f" >/dev/null
done
check_exit 0 "text mode, a fix in the deployed tag" -- "$PROVENANCE" -c "$redirect" fixcheck v1.0.0 "$T/bt.txt" --component proj --mapping "$T/proj.map"
check_match "$(cat "$T/last.out")" "^YES v1\.0\.0 is in ${deployed:0:12}" "text names the deployed commit"
check_exit 2 "unknown component" -- "$PROVENANCE" -c "$redirect" fixcheck v1.0.0 "$T/bt.txt" --component nope --mapping "$T/proj.map"
check_match "$(cat "$T/last.err")" "nope" "error names the component"
check_exit 64 "--at with --component" -- "$PROVENANCE" fixcheck v1.0.0 "$T/bt.txt" --component proj --at main
check_exit 64 "no INPUT" -- "$PROVENANCE" fixcheck "$T/bt.txt" --component proj
