#!/usr/bin/env bash
# Go binaries: the main module's commit from .go.buildinfo (env and resolve),
# exact only when the tree was clean; a stripped Go program's frames named
# from .gopclntab, checked against the program's own GOTRACEBACK=crash output.
. "$(dirname "$0")/lib.sh"
for c in go git readelf python3; do command -v $c >/dev/null || skip "$c not installed (make deps installs golang-go)"; done

# no network, no module cache or build cache outside $T
export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOCACHE="$T/gocache" GOPATH="$T/gopath" HOME="$T"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

mkdir -p "$T/src" "$T/bin"
cat > "$T/src/main.go" <<'EOF'
package main

import (
	"fmt"
	"os"
)

type node struct {
	next *node
	v    int
}

//go:noinline
func crashHere(n *node) int {
	return n.next.v + 1
}

//go:noinline
func outer(k int) int {
	var n node
	if k > 100 {
		n.next = &n
	}
	return crashHere(&n) + k
}

func main() {
	fmt.Println(outer(len(os.Args)))
}
EOF
(cd "$T/src" && git init -q && go mod init example.com/crasher >/dev/null 2>&1 &&
	git add main.go go.mod && git commit -qm "the crasher") || fail "making the Go repository"
HEAD=$(git -C "$T/src" rev-parse HEAD)
# built outside the working tree, so that the tree stays clean (vcs.modified=false)
(cd "$T/src" && go build -buildvcs=true -o "$T/bin/crasher" . &&
	go build -buildvcs=true -ldflags='-s -w' -o "$T/bin/crasher-stripped" .) || fail "go build"
# the premises, from the go tool and binutils
go version -m "$T/bin/crasher" | grep -q "vcs.modified=false" || fail "go says the tree was modified"
go version -m "$T/bin/crasher" | grep -q "vcs.revision=$HEAD" || fail "go recorded another revision"
if readelf -S -W "$T/bin/crasher-stripped" | grep -Eq '\.symtab|\.debug_info'; then
	fail "the -s -w build still has symbols or DWARF"
fi

# env on a root holding the binary: the main module at exactly HEAD
mkdir -p "$T/root/usr/local/bin"
cp "$T/bin/crasher" "$T/root/usr/local/bin/crasher"
check_exit 0 "env --sysroot" -- "$PROVENANCE" env --sysroot "$T/root" --format json
cp "$T/last.out" "$T/env.json"
Q='[c for c in d["components"] if c["name"] == "example.com/crasher"]'
check_eq "$(json_get "$T/env.json" "len($Q)")" 1 "env lists the main module once"
check_eq "$(json_get "$T/env.json" "$Q[0]['commit']")" "$HEAD" "env: the commit is git rev-parse HEAD"
check_eq "$(json_get "$T/env.json" "$Q[0]['commit_is']")" exact "env: commit exact (vcs.modified=false)"
check_eq "$(json_get "$T/env.json" "$Q[0]['found_by']")" go-buildinfo "env: found by"

# a build from a tree with local changes: the commit is approximate, and says so
echo "// local change" >> "$T/src/main.go"
(cd "$T/src" && go build -buildvcs=true -o "$T/root/usr/local/bin/crasher" .) || fail "go build (modified)"
go version -m "$T/root/usr/local/bin/crasher" | grep -q "vcs.modified=true" || fail "go did not see the change"
check_exit 0 "env --sysroot (modified tree)" -- "$PROVENANCE" env --sysroot "$T/root" --format json
cp "$T/last.out" "$T/env2.json"
check_eq "$(json_get "$T/env2.json" "$Q[0]['commit']")" "$HEAD" "env (modified): the commit"
check_eq "$(json_get "$T/env2.json" "$Q[0]['commit_is']")" approximate "env (modified): commit approximate"
git -C "$T/src" checkout -q main.go

# the premise of the unwinding check: main.crashHere is frameless (it
# neither pushes rbp nor moves rsp: go tool objdump), so the frame pointer
# still holds main.outer's frame when it faults
go tool objdump -s '^main\.crashHere$' "$T/bin/crasher" >"$T/crashHere.s" || fail "go tool objdump"
grep -q 'main.go:15' "$T/crashHere.s" || { cat "$T/crashHere.s"; fail "objdump shows no main.crashHere"; }
grep -Eq 'PUSHQ BP|SUBQ \$0x[0-9a-f]+, SP|ADJSP' "$T/crashHere.s" &&
	{ cat "$T/crashHere.s"; fail "main.crashHere has a frame in this Go: the test would prove nothing"; }
echo "ok: main.crashHere is frameless (go tool objdump)"

# check_go_core BIN: BIN's core (GOTRACEBACK=crash) resolved, its crashing
# thread's frames against the program's own traceback
check_go_core() {
# the stripped program's core: GOTRACEBACK=crash makes the runtime abort with a core
can_dump_core
rm -f "$T/core" "$T"/core.*
(cd "$T" && ulimit -c unlimited && GOTRACEBACK=crash exec "$1") >"$T/go.out" 2>"$T/go.err"
rc=$?
[ $rc -ge 128 ] || fail "the Go program did not crash (exit $rc)"
core=$(ls -t "$T"/core "$T"/core.* 2>/dev/null | head -1)
[ -n "$core" ] || fail "the Go program crashed but left no core"
grep -q "^main.crashHere(" "$T/go.err" || fail "no main.crashHere in the program's traceback"

check_exit 0 "resolve the Go core" -- "$PROVENANCE" resolve --offline "$core" --format json
cp "$T/last.out" "$T/r.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/r.json" --kind core || fail "JSON contract"
C='[c for c in d["components"] if c["name"] == "example.com/crasher"]'
check_eq "$(json_get "$T/r.json" "$C[0]['commit']")" "$HEAD" "resolve: the commit is git rev-parse HEAD"
check_eq "$(json_get "$T/r.json" "$C[0]['commit_is']")" exact "resolve: commit exact"
check_eq "$(json_get "$T/r.json" "$C[0]['found_by']")" go-buildinfo "resolve: found by"

# the truth: the running goroutine's frames as the Go runtime printed them
# ("main.crashHere(...)" then "\t/path/main.go:15 +0x3 fp=... sp=... pc=0x...")
python3 - "$T/go.err" "$T/r.json" "$T/src/main.go" <<'EOF' || fail "$1: Go frames differ from the program's own traceback"
import json, re, sys
err = open(sys.argv[1]).read()
block = err.split("goroutine 1 [running]:\n", 1)[1].split("\n\n", 1)[0].splitlines()
truth = []  # (function, file, line, pc)
for a, b in zip(block, block[1:]):
    m = re.match(r"^([\w./*()]+)\(.*\)$", a)
    n = re.match(r"^\t(\S+):(\d+)(?: \+0x[0-9a-f]+)?(?: .*pc=(0x[0-9a-f]+))?", b)
    if m and n and n.group(3):
        # Go's traceback prints runtime.gopanic as "panic" (runtime/traceback.go)
        fn = "runtime.gopanic" if m.group(1) == "panic" else m.group(1)
        truth.append((fn, n.group(1), int(n.group(2)), int(n.group(3), 16)))
mains = [t for t in truth if t[0].startswith("main.")]
assert any(t[0] == "main.crashHere" for t in mains), truth
d = json.load(open(sys.argv[2]))
th = [t for t in d["threads"] if t["crashed"]][0]
frames = [(f.get("function"), f.get("file"), f.get("line"), int(f["pc"], 16)) for f in th["frames"] if f.get("pc")]
by_pc = {f[3]: f for f in frames}
seen, missing = 0, []
for fn, file, line, pc in truth:
    f = by_pc.get(pc)
    if f is None:
        if fn.startswith("main."):
            missing.append(fn)
        continue
    if f[0] != fn:
        sys.exit("pc 0x%x: %r, the program says %r" % (pc, f[0], fn))
    # by_pc holds the real frame at a pc (inlined frames at the same pc come first: t-go-inline.sh checks them)
    if f[2] is not None and f[2] != 0 and (f[1] != file or f[2] != line):
        sys.exit("%s: %s:%s, the program says %s:%s" % (fn, f[1], f[2], file, line))
    if fn.startswith("main.") and f[2] != line:
        sys.exit("%s: line %s, the program says %s" % (fn, f[2], line))
    print("ok: %s at %s:%d (pc 0x%x) as the program printed" % (fn, file, line, pc))
    seen += 1
for name in ("main.crashHere", "main.main"):
    if name not in [f[0] for f in frames]:
        sys.exit("%s is not among the crashing thread's frames" % name)
# no frame of ours names a main.* function the program did not print
for f in frames:
    if f[0] and f[0].startswith("main.") and f[0] not in [t[0] for t in truth]:
        sys.exit("frame %r is not in the program's traceback" % (f[0],))
src = open(sys.argv[3]).read().splitlines()
crash_line = [t for t in truth if t[0] == "main.crashHere"][0][2]
assert "n.next.v" in src[crash_line - 1], src[crash_line - 1]
# every main.* function of the program's traceback is there, in its order:
# main.crashHere is frameless (no locals), so only Go's pcsp table names its
# caller main.outer (frame-pointer unwinding skips it)
if missing:
    sys.exit("not unwound: " + ", ".join(missing))
ours = [f[0] for f in frames if f[0] and f[0].startswith("main.")]
theirs = [t[0] for t in mains]
if ours != theirs:
    sys.exit("main.* frames %r, the program printed %r" % (ours, theirs))
print("ok: the main.* frames in the program's order: " + " <- ".join(ours))
print("ok: %d frames match the program's traceback" % seen)
EOF
}
check_go_core "$T/bin/crasher-stripped"

# a stripped PIE: Go's linker names the table .data.rel.ro.gopclntab there
(cd "$T/src" && go build -buildvcs=true -buildmode=pie -ldflags='-s -w' -o "$T/bin/crasher-pie" .) ||
	fail "go build -buildmode=pie"
readelf -h "$T/bin/crasher-pie" | grep -q 'DYN' || fail "the PIE build is not ET_DYN"
readelf -S -W "$T/bin/crasher-pie" | grep -q ' \.data\.rel\.ro\.gopclntab ' ||
	fail "the PIE has no .data.rel.ro.gopclntab: the PIE check would prove nothing"
check_go_core "$T/bin/crasher-pie"
echo "ok: t-go"
