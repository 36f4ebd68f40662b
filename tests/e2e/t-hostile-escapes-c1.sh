#!/usr/bin/env bash
# C1 controls (U+0080..U+009F; CSI is UTF-8 C2 9B) and C0 escapes from data
# not ours reach no terminal raw (issue 27): an imported report's function
# name through `triage` and `query`, a root's pip METADATA through `env`, a
# report file name with OSC/CSI sequences in `import`'s messages. Checked
# byte by byte by python; JSON output still reads back the exact string.
. "$(dirname "$0")/lib.sh"

raw_controls() {	# raw_controls FILE: count of C0 (but \n \t), DEL and UTF-8 C1 sequences
	python3 -c 'import sys,re
b = open(sys.argv[1], "rb").read()
print(len(re.findall(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", b)))' "$1"
}
printf '#0  0x00007f0000001000 in foo () from /usr/lib/libfoo.so.1\n#1  0x0000000000401136 in main () at main.c:5\n' >"$T/bt.txt"
"$PROVENANCE" --cache "$T/c" resolve --offline --format json "$T/bt.txt" >"$T/r.json" 2>"$T/r.err"
[ $? -le 1 ] || { cat "$T/r.err"; fail "resolve of the backtrace"; }
python3 - "$T/r.json" <<'PY' || fail "cannot plant the function name"
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["threads"]:
    for f in t["frames"]:
        f["function"] = "ev\u009b2J\u009d0;t\u009cil\u001b[31m"
json.dump(d, open(sys.argv[1], "w"))
PY
S="$T/store.sqlite"
"$PROVENANCE" --cache "$T/c" import --store "$S" "$T/r.json" 2>"$T/i.err" || { cat "$T/i.err"; fail "import"; }

for fmt in text markdown; do
	"$PROVENANCE" --cache "$T/c" triage --store "$S" --format $fmt >"$T/t.out" 2>"$T/t.err"
	check_eq "$(raw_controls "$T/t.out")" 0 "raw control bytes in triage --format $fmt"
	grep -qF 'ev\xc2\x9b2J' "$T/t.out" || { cat "$T/t.out"; fail "triage $fmt: the CSI is not shown as \\xc2\\x9b"; }
done
for fmt in table csv; do
	"$PROVENANCE" --cache "$T/c" query --store "$S" --format $fmt "SELECT function FROM frames" >"$T/q.out" 2>"$T/q.err"
	check_eq "$(raw_controls "$T/q.out")" 0 "raw control bytes in query --format $fmt"
done
"$PROVENANCE" --cache "$T/c" query --store "$S" --format json "SELECT function FROM frames LIMIT 1" >"$T/q.json" 2>"$T/q.err"
check_eq "$(raw_controls "$T/q.json")" 0 "raw control bytes in query --format json"
check_eq "$(json_get "$T/q.json" 'd[0]["function"] == "ev\u009b2J\u009d0;t\u009cil\u001b[31m"')" true \
	"query JSON keeps the exact string (its own escaping)"
echo "ok: triage and query show C1 as \\xHH"

# ---- pip metadata in a root ----
R="$T/root"
SITE="$R/usr/lib/python3/dist-packages"
mkdir -p "$SITE/evil-1.0.dist-info" "$SITE/evil"
printf 'Metadata-Version: 2.1\nName: ev\302\233il\nVersion: 1.0\302\2332J\n' >"$SITE/evil-1.0.dist-info/METADATA"
printf 'evil/__init__.py,,\n' >"$SITE/evil-1.0.dist-info/RECORD"
: >"$SITE/evil/__init__.py"
for fmt in text markdown; do
	"$PROVENANCE" --cache "$T/c" env --sysroot "$R" --format $fmt >"$T/env.out" 2>"$T/env.err"
	check_eq "$(raw_controls "$T/env.out")" 0 "raw control bytes in env --format $fmt"
	check_eq "$(raw_controls "$T/env.err")" 0 "raw control bytes in env's warnings"
done
grep -qF '\xc2\x9b' "$T/env.out" || { cat "$T/env.out"; fail "env: the pip name's C1 is not in the output, escaped"; }
echo "ok: env shows a pip name's C1 as \\xHH"

# ---- a report file name with OSC / CSI ----
bad="$T/$(printf 'r\033]0;pwned\007\302\233.json')"
printf '{"not": "a report"' >"$bad"
"$PROVENANCE" --cache "$T/c" import --store "$S" "$bad" >"$T/b.out" 2>"$T/b.err"
check_eq "$(raw_controls "$T/b.err")" 0 "raw control bytes in import's message about a file name"
grep -qF 'r\x1b]0;pwned\x07\xc2\x9b.json' "$T/b.err" || { cat "$T/b.err"; fail "import: the file name is not shown escaped"; }
"$PROVENANCE" --cache "$T/c" import --store "$S" "$bad.missing" 2>"$T/b.err"
check_eq "$(raw_controls "$T/b.err")" 0 "raw control bytes in import's message about a missing file"
echo "ok: import's messages show a file name's controls as \\xHH"
