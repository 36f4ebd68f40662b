#!/bin/bash
# bench/runbook-check.py's own test (issue 34): a canned Markdown report and
# JSON against a canned gdb truth. Every field agrees: "right"; the same report
# with a wrong fault address, crashing thread, frame line and Git Hash, and a
# fix called included that git says is not an ancestor, gets "wrong" for
# exactly those fields (the truth for Git Hash and fix status from git, on a
# repository made here).
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
CHK=$TOP/bench/runbook-check.py
R=$T/repo
gitc() { git -C "$R" -c user.name=t -c user.email=t@invalid "$@"; }
mkdir -p "$R" && gitc init -q && echo a >"$R/f" && gitc add f && gitc commit -qm one && gitc tag v1.0
echo b >"$R/f" && gitc commit -qam two
dep=$(gitc rev-parse v1.0) later=$(gitc rev-parse HEAD)

cat >"$T/gdb.json" <<'J'
{"threads": [{"lwp": 100, "num": 1, "selected": true}, {"lwp": 101, "num": 2, "selected": false}],
 "frames": [{"index": 0, "function": "crash", "pc": "0x1000", "type": 0, "signal_frame": false,
             "solib": "/bin/demo", "file": "demo.c", "line": 8, "vars": {"p": "0x0"}},
            {"index": 1, "function": "main", "pc": "0x1100", "type": 0, "signal_frame": false,
             "solib": "/bin/demo", "file": "demo.c", "line": 20, "vars": {}}],
 "siginfo": {"signo": 11, "code": 1, "addr": "0x10"},
 "regs": {"rip": "0x1000", "rax": "0x10"}, "insn": "=> 0x1000 <crash+4>:\tmov    DWORD PTR [rax],0x1",
 "crash_frame": 0, "all_threads": {}, "exprs": {}}
J
echo '{"crash": {"patterns": [{"id": "null-deref"}]}, "modules": []}' >"$T/r.json"
mkmd() {	# mkmd ADDR TID LINE HASH FIXWORD: a report in the runbook's template
	cat <<MD
**Crash signal:** SIGSEGV (11), SEGV_MAPERR, fault address $1  
**Crashing thread:** Thread $2 (main thread)  
**Crash context:** runtime  
**Determinism:** unknown (single occurrence)

### Crash call chain

| Frame | Function | Library / Source | Component |
|-------|----------|------------------|-----------|
| #0 | \`crash\` | demo — demo.c:$3 | demo |
| #1 | \`main\` | demo — demo.c:20 | demo |

### Crashing instruction

\`\`\`
=> 0x0000000000001000:  mov     dword ptr [rax], 1
\`\`\`

\`\`\`
rip  0x0000000000001000   rax  0x0000000000000010
\`\`\`

### Evidence: arguments and locals

Frame #0 \`crash\`:

- arg \`p\` (\`int *\`) = \`0x0\`

### Container environment

| Component | Version | Git Hash |
|-----------|---------|----------|
| demo | — | \`$4\` |

### Upstream fix status

- \`${later:0:12}\` $5 in the deployed demo

### Possible upstream fixes

- \`${later:0:12}\` — changes the crash line

### Recommended next steps

1. Find where the NULL pointer came from.
MD
}
run() {	# run MD: the checker's verdict per field, "field=verdict ..."
	python3 "$CHK" demo --md "$1" --json "$T/r.json" --truth "$T/gdb.json" --signal SIGSEGV --context runtime \
		--pattern null-deref --repo "$R" --ref v1.0 --component demo --fix "$later" >"$1.out" || fail "checker failed on $1"
	awk -F'|' '{printf "%s=%s ", $2, $3}' "$1.out"
}
mkmd 0x10 100 8 "$dep" "is **NOT included**" >"$T/good.md"
v=$(run "$T/good.md")
echo "$v"
check_eq "$(echo "$v" | tr ' ' '\n' | grep -v '=right$' | grep . | tr '\n' ' ')" "" "every field of the agreeing report is right"
mkmd 0x20 101 9 "$later" "**is included**" >"$T/bad.md"
v=$(run "$T/bad.md")
echo "$v"
check_eq "$(echo "$v" | tr ' ' '\n' | grep -v '=right$' | grep . | tr '\n' ' ')" \
	"signal=wrong thread=wrong chain=wrong environment=wrong fix-status=wrong " "the wrong fields and only they are wrong"
grep -q "Git Hash $later vs git rev-parse v1.0^{commit} $dep" "$T/bad.md.out" || fail "environment detail names both hashes"
