#!/usr/bin/env bash
# Lines that look like frames but no format reads are counted in JSON
# (input.unparsed_lines, input.unparsed) and named in the text and Markdown
# reports; the frames around them stay one stack. The input is written here:
# line 3 is the unreadable one.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"

cat > "$T/bt.txt" <<'TXT'
Program received signal SIGSEGV, Segmentation fault.
#0  0x0000555555555149 in parse (s=0x0) at parse.c:7
#1  0x000055555555516a in load (path=0x5555 "x") at load.c:3 (and then it hung)
#2  0x0000555555555190 in main () at main.c:12
TXT
"$PROVENANCE" resolve "$T/bt.txt" --offline --format json >"$T/out.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve exited $rc"; }
check_eq "$(json_get "$T/out.json" 'd["input"]["unparsed_lines"]')" 1 "unparsed_lines"
check_eq "$(json_get "$T/out.json" 'd["input"]["unparsed"][0][:6]')" "3: #1 " "the line is named with its number"
check_eq "$(json_get "$T/out.json" 'len(d["threads"])')" 1 "one stack around it"
check_eq "$(json_get "$T/out.json" '[f["index"] for f in d["threads"][0]["frames"]]')" "[0, 2]" "the readable frames"

"$PROVENANCE" resolve "$T/bt.txt" --offline >"$T/out.txt" 2>/dev/null
check_match "$(cat "$T/out.txt")" 'not read: 1 line\(s\) that look like frames' "text report"
check_match "$(cat "$T/out.txt")" 'line 3: #1  0x000055555555516a in load' "text report names it"
"$PROVENANCE" resolve "$T/bt.txt" --offline --format markdown >"$T/out.md" 2>/dev/null
check_match "$(cat "$T/out.md")" '\*\*Not read:\*\* 1 line' "markdown report"

# a clean backtrace says nothing of the kind
sed 3d "$T/bt.txt" > "$T/clean.txt"
"$PROVENANCE" resolve "$T/clean.txt" --offline --format json >"$T/clean.json" 2>/dev/null
check_eq "$(json_get "$T/clean.json" 'd["input"]["unparsed_lines"]')" 0 "clean: no unparsed lines"
"$PROVENANCE" resolve "$T/clean.txt" --offline >"$T/clean.out" 2>/dev/null
grep -q 'not read' "$T/clean.out" && fail "clean input: the text report mentions unread lines"
echo "ok: unparsed lines reported"
