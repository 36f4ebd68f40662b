#!/usr/bin/env bash
# First-use papercuts, each checked against something outside provenance:
# a closed pipe (head), --version after the command, --exe on a missing file
# and on a text file, an unknown config key, cache stats with lock files,
# env on the demo root (Git Hash = git rev-parse of the deployed tag, names as
# the mapping's component), `make demo`'s printed command rerun as printed,
# and no "Segmentation fault" line from the demo's own crash.
. "$(dirname "$0")/lib.sh"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

# --- a closed pipe: quiet, exit 0 (as git and coreutils) ---------------------------
# (`| true`: the reader is gone before env writes, so the write surely fails with EPIPE)
for fmt in text json; do
	"$PROVENANCE" env --format "$fmt" 2>"$T/pipe.err" | true
	rc=${PIPESTATUS[0]}
	check_eq "$rc" 0 "env --format $fmt | true: exit"
	[ ! -s "$T/pipe.err" ] || fail "env | true printed: $(cat "$T/pipe.err")"
	"$PROVENANCE" env --format "$fmt" 2>"$T/pipe.err" | head -c 10 >/dev/null
	check_eq "${PIPESTATUS[0]}" 0 "env --format $fmt | head: exit"
	[ ! -s "$T/pipe.err" ] || fail "env | head printed: $(cat "$T/pipe.err")"
done
echo "ok: nothing on stderr when the reader goes away"

# --- --version is a common option -------------------------------------------------
for c in resolve analyze env fixcheck cache; do
	check_exit 0 "$c --version" -- "$PROVENANCE" "$c" --version
	check_match "$(cat "$T/last.out")" "^provenance [0-9]+\.[0-9]+" "$c --version prints the version"
done

# --- --exe that cannot be the executable --------------------------------------------
printf 'x\n' >"$T/bt.txt"
check_exit 2 "--exe /nonexistent" -- "$PROVENANCE" resolve "$T/bt.txt" --exe "$T/nonexistent"
check_match "$(cat "$T/last.err")" "--exe '.*/nonexistent': No such file" "the reason"
check_exit 2 "--exe /etc/passwd" -- "$PROVENANCE" analyze "$T/bt.txt" --exe /etc/passwd
check_match "$(cat "$T/last.err")" "--exe '/etc/passwd' is not an ELF" "the reason"
check_exit 2 "--exe a directory" -- "$PROVENANCE" resolve "$T/bt.txt" --exe /etc
head -c 4 /bin/sh | cmp -s - <(printf '\177ELF') || fail "/bin/sh is not ELF here"

# --- unknown config keys of provenance's own sections warn, like git -------------------
check_exit 0 "a typo in a key" -- "$PROVENANCE" -c fetch.timout=5 cache stats
check_match "$(cat "$T/last.err")" "warning: unknown config key 'fetch.timout'" "warned"
check_exit 0 "a known key" -- "$PROVENANCE" -c fetch.timeout=5 -c url.file:///x/.insteadOf=https://y/ cache stats
[ ! -s "$T/last.err" ] || fail "a known key warned: $(cat "$T/last.err")"
mkdir -p "$T/xdg/provenance"
printf '[debuginfod]\n\ttotaltimeot = 3\n' >"$T/xdg/provenance/config"
XDG_CONFIG_HOME=$T/xdg "$PROVENANCE" cache stats >/dev/null 2>"$T/cfg.err"
check_match "$(cat "$T/cfg.err")" "unknown config key 'debuginfod.totaltimeot'" "a typo in the config file warns"

# --- cache stats: lock files are not mirrors -----------------------------------------
git init -q --bare "$T/c/mirrors/one-0123456789ab.git"
: >"$T/c/mirrors/one-0123456789ab.git.lock"
: >"$T/c/mirrors/two-0123456789ab.git.lock"
check_exit 0 "cache stats" -- "$PROVENANCE" --cache "$T/c" cache stats
check_match "$(cat "$T/last.out")" "^mirrors: +$(ls -d "$T"/c/mirrors/*.git | wc -l) " "mirrors = the *.git directories (ls)"
grep -q "resolutions" "$T/last.out" && fail "cache stats shows the unused resolutions count"

# --- the demo: printed command, no crash notice, env ----------------------------------
if ! can_dump_core 2>/dev/null; then
	note "no cores on this machine: demo part skipped"
	echo "all ok"; exit 0
fi
DEMO_OUT=$T/demo "$TOP/fixtures/demo/run-demo.sh" >"$T/demo.out" 2>"$T/demo.err"
rc=$?
[ $rc = 0 ] || [ $rc = 77 ] || { cat "$T/demo.err"; fail "run-demo.sh exited $rc"; }
if [ $rc = 0 ]; then
	grep -qi "segmentation fault" "$T/demo.err" && fail "the demo shows bash's crash notice: $(grep -i segm "$T/demo.err")"
	echo "ok: no 'Segmentation fault' line"
	cmd=$(sed -n 's/^demo: \(PROVENANCE_CACHE=.*\)$/\1/p' "$T/demo.err")
	[ -n "$cmd" ] || fail "the demo prints no command"
	(cd / && env $cmd >"$T/rerun.out" 2>"$T/rerun.err")
	rrc=$?
	[ $rrc -le 1 ] || { cat "$T/rerun.err"; fail "the printed command exited $rrc"; }
	fixline() { grep -m1 -A3 '^### Upstream fix status' "$1"; }	# the first report: the native demo's
	check_eq "$(fixline "$T/rerun.out")" "$(fixline "$T/demo.out")" "the printed command gives the demo's fix status"
	. "$T/demo/facts"
	want=$(git -C "$T/demo/upstream" rev-parse "$deployed_tag^{commit}")
	comp=$(sed -n 's/^\[component "\(.*\)"\]/\1/p' "$TOP/fixtures/demo/greet.map")
	ins="url.file://$T/demo/upstream.insteadOf=https://example.invalid/libgreet.git"
	check_exit 0 "env --offline on the demo root" -- "$PROVENANCE" --cache "$T/demo/cache" -c "$ins" env --offline \
		--sysroot "$T/demo/root" --mapping "$TOP/fixtures/demo/greet.map"
	check_eq "$(awk -v c="$comp" '$1 == c {print $3}' "$T/last.out")" "$want" "env: Git Hash of $comp = git rev-parse $deployed_tag"
	grep -q '^libgreet1 ' "$T/last.out" && fail "env names the package, not the component"
	check_exit 0 "env json" -- "$PROVENANCE" --cache "$T/demo/cache" -c "$ins" env --offline --format json \
		--sysroot "$T/demo/root" --mapping "$TOP/fixtures/demo/greet.map"
	check_eq "$(json_get "$T/last.out" "[c['commit'] for c in d['components'] if c['component'] == '$comp'][0]")" "$want" "env json commit"
fi
echo "all ok"
