#!/usr/bin/env bash
# Modules deep in one tree (issue 17 item 10): a backtrace of 300 modules,
# each in its own directory 400 levels down. The git and conda resolvers look
# for the nearest ancestor holding .git or conda-meta/; they must test each
# directory once (memo per directory), not every ancestor of every module.
# Ground truth is the kernel's count of path lookups under the root (strace),
# compared with the number of distinct directories the modules live in; and
# the nearest .git is still found (a repo planted 3 levels above module 7's
# directory, its HEAD commit written by git itself).
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || skip "strace is not installed"
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"
# LeakSanitizer cannot run under ptrace: off for the traced runs of sanitizer builds
untraced_leaks="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
R="$T/root"
deep=$(python3 -c 'print("/".join(["d"] * 400))')
N=300
python3 - "$R" "$deep" "$N" "$T/bt.txt" <<'PY'
import os, sys
root, deep, n, bt = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
with open(bt, "w") as f:
    for i in range(n):
        f.write("#%d  0x%016x in f%d () from /%s/m%d/lib%d.so\n" % (i, 0x7f0000001000 + i * 16, i, deep, i, i))
PY
# (the git resolver claims only files the repository tracks: commit lib7.so)
mkdir -p "$R/$deep/m7" && : >"$R/$deep/m7/lib7.so" && cd "$R/$deep/../../.." && git init -q &&
	git add d/d/d/m7/lib7.so && git -c user.name=t -c user.email=t@t commit -q -m x &&
	head=$(git rev-parse HEAD) && cd - >/dev/null
env "$untraced_leaks" strace -f -qq -e trace=openat2 -o "$T/trace" "$PROVENANCE" resolve --offline --sysroot "$R" --format json "$T/bt.txt" >"$T/out.json" 2>"$T/err"
rc=$?
case $rc in 0|1|3) ;; *) cat "$T/err"; fail "resolve: exit $rc" ;; esac
probes=$(grep -c -e '/\.git"' -e '/conda-meta"' "$T/trace")
note "probes for .git and conda-meta: $probes for $N modules ($((N + 64)) distinct directories walked)"
# memoized: about 2 .git probes + 1 conda-meta probe per directory; unmemoized: 64 ancestors per module
[ "$probes" -le $(( (N + 64) * 4 )) ] || fail "$probes probes for $N modules: every ancestor of every module was tested"
echo "ok: $probes probes for $N modules in $((N + 64)) directories"
d7=$(json_get "$T/out.json" '[m for m in d["modules"] if m["path"].endswith("/m7/lib7.so")][0].get("package") or {}')
check_match "$d7" "$head" "module 7 is in the git tree whose HEAD is $head"
