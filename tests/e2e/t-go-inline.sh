#!/usr/bin/env bash
# Go inlined calls in a stripped binary: the frames of the crashing
# goroutine, inlined ones included (from .gopclntab's inline tree), equal the
# program's own GOTRACEBACK=crash output: names, files, lines and order.
# It runs with `go` (Debian's golang-go: 1.19 in CI, the only one CI has) and
# then with every other toolchain installed as /usr/lib/go-1.*/bin/go (e.g.
# golang-1.21-go from bookworm-backports: the 1.20+ inline tree layout).
. "$(dirname "$0")/lib.sh"
for c in go readelf python3; do command -v $c >/dev/null || skip "$c not installed (make deps installs golang-go)"; done

export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOCACHE="$T/gocache" GOPATH="$T/gopath" HOME="$T"
mkdir -p "$T/src"
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

func deref(n *node) int {
	return n.next.v + 1
}

func middle(n *node) int {
	return deref(n) * 2
}

//go:noinline
func crashHere(n *node) int {
	return middle(n) + 3
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
run_one() {
local GO=$1 V=$2 B="$T/$2"
mkdir -p "$B/bin"
echo "== $V ($GO)"
(cd "$T/src" && { [ -f go.mod ] || "$GO" mod init example.com/inliner >/dev/null 2>&1; } &&
	"$GO" build -gcflags=-m -ldflags='-s -w' -o "$B/bin/inliner" . 2>"$B/m.txt") || { cat "$B/m.txt"; fail "$V: go build"; }
# the premises: the compiler inlined both calls, and the binary has no symbols or DWARF
grep -q 'main.go:18:[0-9]*: inlining call to deref' "$B/m.txt" || { cat "$B/m.txt"; fail "go did not inline deref"; }
grep -q 'main.go:23:[0-9]*: inlining call to middle' "$B/m.txt" || { cat "$B/m.txt"; fail "go did not inline middle"; }
if readelf -S -W "$B/bin/inliner" | grep -Eq '\.symtab|\.debug_info'; then
	fail "the -s -w build still has symbols or DWARF"
fi
echo "ok: go -gcflags=-m inlined middle and deref into crashHere; stripped"

rm -f "$B/core" "$B"/core.*
(cd "$B" && ulimit -c unlimited && GOTRACEBACK=crash exec "$B/bin/inliner") >"$B/go.out" 2>"$B/go.err"
rc=$?
[ $rc -ge 128 ] || fail "the Go program did not crash (exit $rc)"
core=$(ls -t "$B"/core "$B"/core.* 2>/dev/null | head -1)
[ -n "$core" ] || fail "the Go program crashed but left no core"

check_exit 0 "resolve the Go core" -- "$PROVENANCE" resolve --offline "$core" --format json
cp "$T/last.out" "$B/r.json"
python3 "$TOP/tests/e2e/check-json-contract.py" "$B/r.json" --kind core || fail "JSON contract"

# the truth: goroutine 1's frames as the Go runtime printed them; an inlined
# frame is "name(...)" followed by "\tfile:line" without a pc
python3 - "$B/go.err" "$B/r.json" "$T/src/main.go" <<'EOF' || fail "Go frames differ from the program's own traceback"
import json, re, sys
err = open(sys.argv[1]).read()
block = re.split(r"^goroutine 1 (?:gp=\S+ m=\S+ (?:mp=\S+ )?)?\[running\]:\n", err, 1, re.M)[1].split("\n\n", 1)[0].splitlines()
truth = []  # (function, file, line, inlined)
for a, b in zip(block, block[1:]):
    m = re.match(r"^([\w./*()]+)\((.*)\)$", a)
    n = re.match(r"^\t(\S+):(\d+)( \+0x[0-9a-f]+)?", b)
    if m and n:
        # Go's traceback prints runtime.gopanic as "panic" (runtime/traceback.go)
        fn = "runtime.gopanic" if m.group(1) == "panic" else m.group(1)
        truth.append((fn, n.group(1), int(n.group(2)), m.group(2) == "..." and not n.group(3)))
names = [t[0] for t in truth]
for want in ("main.deref", "main.middle", "main.crashHere", "main.outer", "main.main"):
    assert want in names, "the program printed no %s: %r" % (want, names)
src = open(sys.argv[3]).read().splitlines()
assert "n.next.v" in src[truth[names.index("main.deref")][2] - 1]
d = json.load(open(sys.argv[2]))
th = [t for t in d["threads"] if t["crashed"]][0]
ours = [(f.get("function"), f.get("file"), f.get("line"), bool(f.get("inlined"))) for f in th["frames"]]
first = [i for i, f in enumerate(ours) if f[0] == truth[0][0]]
if not first:
    sys.exit("no frame %s (the program's first): %r" % (truth[0][0], ours))
ours = ours[first[0]:first[0] + len(truth)]
for o, t in zip(ours, truth):
    print("%-20s %s:%s%s | program: %s %s:%s%s" % (o[0], o[1], o[2], " (inlined)" if o[3] else "",
          t[0], t[1], t[2], " (inlined)" if t[3] else ""))
if ours != truth:
    sys.exit("the frames differ from the program's traceback")
print("ok: %d frames equal the program's traceback, %d of them inlined" % (len(truth), sum(t[3] for t in truth)))
EOF

# text and Markdown say the inlined frames are inlined
check_exit 0 "resolve (text)" -- "$PROVENANCE" resolve --offline "$core"
grep -E 'main\.deref.*\(inlined\)' "$T/last.out" >/dev/null || { cat "$T/last.out"; fail "text: main.deref not shown inlined"; }
grep -E 'main\.middle.*\(inlined\)' "$T/last.out" >/dev/null || fail "text: main.middle not shown inlined"
grep -E 'main\.crashHere.*\(inlined\)' "$T/last.out" >/dev/null && fail "text: main.crashHere shown inlined"
check_exit 0 "resolve (markdown)" -- "$PROVENANCE" resolve --offline "$core" --format markdown
grep -E '^\| #[0-9]+ \(inlined\) \| `main\.deref`' "$T/last.out" >/dev/null || { cat "$T/last.out"; fail "markdown: main.deref not shown inlined"; }
grep -E '^\| #[0-9]+ \| `main\.crashHere`' "$T/last.out" >/dev/null || fail "markdown: main.crashHere not a real frame"
echo "ok: $V"
}

can_dump_core
run_one go "$(go env GOVERSION)"
for g in /usr/lib/go-1.*/bin/go; do
	[ -x "$g" ] || continue
	v=$("$g" env GOVERSION) || continue
	[ "$v" = "$(go env GOVERSION)" ] && continue
	run_one "$g" "$v"
done
echo "ok: t-go-inline"
