#!/usr/bin/env bash
# The schema check every e2e test gets from lib.sh bites: a child test whose
# $PROVENANCE prints triage JSON that does not conform to
# docs/schema/triage.schema.json fails with the schema's message, one that
# prints conforming JSON passes, and the wrapper passes argv, stdin, stderr,
# the exit status and a death by signal through unchanged. The "binary" here
# is a stand-in script, so the truth is what it was told to print.
. "$(dirname "$0")/lib.sh"

[ -n "$SCHEMA_RUNS" ] || skip "the schema check is off (PROVENANCE_SCHEMA_CHECK=0)"
python3 -c 'import jsonschema' 2>/dev/null || skip "no python3-jsonschema (make deps installs it)"
case "$PROVENANCE" in "$PROVENANCE_BIN") fail "\$PROVENANCE is not the wrapper" ;; esac

# the stand-in: prints $FAKE_OUT, echoes its argv and stdin on stderr, exits $FAKE_RC
cat >"$T/fake" <<'SH'
#!/bin/sh
printf '%s' "$FAKE_OUT"
{ printf 'argv:'; printf ' [%s]' "$@"; printf '\n'; } >&2
[ -n "${FAKE_STDIN:-}" ] && printf 'stdin:%s\n' "$(cat)" >&2
[ -n "${FAKE_SIG:-}" ] && kill -s "$FAKE_SIG" $$
exit "${FAKE_RC:-0}"
SH
chmod +x "$T/fake"

# child BODY: a test that sources lib.sh with the stand-in as its binary; its
# stdout+stderr go to $T/child.log and its exit status is printed
child() {
	printf '. %q\n%s\n' "$TOP/tests/e2e/lib.sh" "$1" >"$T/child.sh"
	env -u SCHEMA_RUNS PROVENANCE="$T/fake" TOP="$TOP" bash "$T/child.sh" >"$T/child.log" 2>&1
	echo $?
}

# what the real binary prints for an empty store conforms (and is checked so)
check_exit 0 "an empty store" -- "$PROVENANCE_BIN" import --store "$T/s.sqlite" /dev/null
good=$("$PROVENANCE_BIN" triage --format json --store "$T/s.sqlite") || fail "triage of an empty store"
good=$(printf '%s' "$good" | tr -d "\n'")

# a triage document that is an object where the schema wants groups
bad='{"groups": "not what the schema says"}'
check_eq "$(child "echo \"runs:\$SCHEMA_RUNS\"; FAKE_OUT='$bad' \"\$PROVENANCE\" triage --format json >/dev/null; echo body-ran")" 1 \
	"a test whose triage JSON breaks the schema fails"
grep -q '^body-ran$' "$T/child.log" || fail "the child's body did not run to its end"
grep -q 'schema: provenance triage --format json (exit 0) vs triage.schema.json' "$T/child.log" ||
	{ cat "$T/child.log"; fail "the failure does not name the command and the schema"; }
runs=$(sed -n 's/^runs://p' "$T/child.log")
[ -n "$runs" ] && [ ! -e "$runs" ] || fail "the child's schema folder '$runs' was left behind"

# the same with --format=json, and with show (JSON by default), and not JSON at all
check_eq "$(child "FAKE_OUT='[1]' \"\$PROVENANCE\" triage --format=json >/dev/null")" 1 "--format=json is checked"
check_eq "$(child "FAKE_OUT='{}' \"\$PROVENANCE\" show 1 >/dev/null")" 1 "show's default JSON is checked"
check_eq "$(child "FAKE_OUT='no json' \"\$PROVENANCE\" query 'SELECT 1' --format json >/dev/null")" 1 \
	"query output that is not JSON fails"
grep -q 'printed no JSON document' "$T/child.log" || { cat "$T/child.log"; fail "no JSON: message"; }

# a test's own EXIT trap still runs, and the check runs before it removes \$T
check_eq "$(child "trap 'echo own-trap; rm -rf \"\$T\"' EXIT
FAKE_OUT='[1]' \"\$PROVENANCE\" -c a=b --cache \"\$T/c\" triage --format json >/dev/null")" 1 \
	"the check runs under the test's own EXIT trap"
grep -q '^own-trap$' "$T/child.log" || fail "the test's own trap did not run"

# what is not checked: text output, --help, exit 2, a partial copy (| head)
check_eq "$(child "FAKE_OUT='{' \"\$PROVENANCE\" triage >/dev/null
FAKE_OUT='{' \"\$PROVENANCE\" triage --format json --help >/dev/null
FAKE_OUT='{' FAKE_RC=2 \"\$PROVENANCE\" triage --format json >/dev/null
FAKE_OUT='{' \"\$PROVENANCE\" triage --format markdown >/dev/null")" 0 \
	"text, --help and exit 2 are not checked"

# conforming JSON passes, and the test's own exit status stands
check_eq "$(child "FAKE_OUT='$good' \"\$PROVENANCE\" triage --format json >/dev/null")" 0 "conforming triage JSON passes"
check_eq "$(child "FAKE_OUT='$good' \"\$PROVENANCE\" triage --format json >/dev/null; exit 77")" 77 \
	"a skip stays a skip when the JSON conforms"

# pass-through: stdout, argv, stdin, stderr, exit status, signals (the
# wrapper this test has, pointed at the stand-in)
sed "s|^REAL=.*|REAL='$T/fake'|" "$PROVENANCE" >"$T/wrap" && chmod +x "$T/wrap" || fail "the wrapper copy"
PROVENANCE=$T/wrap
out=$(FAKE_OUT="$good" FAKE_STDIN=1 FAKE_RC=3 "$PROVENANCE" triage --format json 'a b' '' <<<"in put" 2>"$T/err")
check_eq "$?" 3 "the exit status passes through"
check_eq "$out" "$good" "stdout passes through"
check_eq "$(cat "$T/err")" "argv: [triage] [--format] [json] [a b] []
stdin:in put" "argv, stdin and stderr pass through"
FAKE_OUT="$good" FAKE_SIG=TERM "$PROVENANCE" triage --format json >/dev/null 2>&1
check_eq "$?" 143 "a death by SIGTERM passes through"
FAKE_OUT="$good" FAKE_SIG=TERM "$PROVENANCE" triage >/dev/null 2>&1
check_eq "$?" 143 "a death by SIGTERM passes through (exec'ed)"
rm -rf "$SCHEMA_RUNS/runs"/*	# the stand-in's documents are not the product's
