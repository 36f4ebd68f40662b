#!/usr/bin/env bash
# Terminal escape sequences in input (issue 17 item 15): a backtrace whose
# paths carry "ESC]0;title BEL" and "ESC[31m", a dpkg package whose name and
# version carry "ESC[2J", a C1 CSI (U+009B). Text and Markdown reports, `env`
# and warnings on stderr must hold no raw control byte but \n and \t (checked
# byte by byte by python, not by provenance), and show them as \xHH instead;
# JSON keeps its own escaping (\u001b), which python's json reads back.
# (CSI sequences such as ESC[31m in pasted text are colour codes the text
# reader drops, as a log viewer would; the path here carries OSC sequences.)
. "$(dirname "$0")/lib.sh"

printf '#0  0x00007f0000001000 in evil () from /usr/lib/libe\033]2;t\007vil.so.1\n#1  0x0000000000401136 in main () at ma\033]0;pwned\007in\302\233.c:5\n' >"$T/bt.txt"
R="$T/root"
mkdir -p "$R/var/lib/dpkg/info"
printf 'Package: evil\033[2J\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1.0\033]0;x\007\n\n' >"$R/var/lib/dpkg/status"
printf '/.\n/usr/lib/libevil.so\n\001bad line\n' >"$R/var/lib/dpkg/info/evil\033[2J:amd64.list"

raw_controls() {	# raw_controls FILE: count of C0 (but \n \t), DEL and UTF-8 C1 sequences
	python3 -c 'import sys,re
b = open(sys.argv[1], "rb").read()
print(len(re.findall(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", b)))' "$1"
}

for fmt in text markdown; do
	"$PROVENANCE" resolve --offline --format $fmt "$T/bt.txt" >"$T/$fmt.out" 2>"$T/$fmt.err"
	check_eq "$(raw_controls "$T/$fmt.out")" 0 "raw control bytes in the $fmt report"
	grep -qF 'libe\x1b]2;t\x07vil.so.1' "$T/$fmt.out" || fail "$fmt: the escape is not shown as \\x1b"
	grep -qF 'ma\x1b]0;pwned\x07in\xc2\x9b.c' "$T/$fmt.out" || fail "$fmt: the title sequence / C1 is not shown escaped"
done
"$PROVENANCE" resolve --offline --format json "$T/bt.txt" >"$T/json.out"
check_eq "$(json_get "$T/json.out" 'd["modules"][0]["path"]')" "$(printf '/usr/lib/libe\033]2;t\007vil.so.1')" \
	"JSON keeps the exact bytes (its own escaping)"

"$PROVENANCE" env --sysroot "$R" >"$T/env.out" 2>"$T/env.err"
check_eq "$(raw_controls "$T/env.out")" 0 "raw control bytes in env's text output"
check_eq "$(raw_controls "$T/env.err")" 0 "raw control bytes in warnings"
