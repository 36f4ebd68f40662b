#!/usr/bin/env bash
# One report model, three renderings: the facts of the JSON report (signal,
# crashing frames, component commits, source lines, fix status and how,
# determinism over several inputs, why there is no disassembly) appear in the
# text and the Markdown renderings too, on the demo core (with --fix), on two
# copies of it, and on a text backtrace. The facts themselves are checked
# against git (merge-base --is-ancestor, rev-parse) and against the inputs.
# Every JSON output is also validated against docs/schema/*.json.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
python3 -c 'import jsonschema' 2>/dev/null || skip "no python3-jsonschema (apt-get install python3-jsonschema)"
can_dump_core

"$TOP/fixtures/demo/build-scenario.sh" "$T/demo" >"$T/build.log" 2>&1 || {
	rc=$?; [ $rc = 77 ] && skip "the demo scenario cannot make a core here"; cat "$T/build.log"; fail "demo build"; }
. "$T/demo/facts"
core=$T/demo/root/core
cp "$core" "$T/core2"
ins="url.file://$T/demo/upstream.insteadOf=https://example.invalid/libgreet.git"
run() { "$PROVENANCE" --cache "$T/cache" -c "$ins" resolve "$@" --sysroot "$T/demo/root" \
	--mapping "$TOP/fixtures/demo/greet.map" --offline --fix "$fix"; }

# ground truth for the fix and the deployed commit
git -C "$T/demo/upstream" merge-base --is-ancestor "$fix" "$deployed" && want_inc=True || want_inc=False
check_eq "$(git -C "$T/demo/upstream" rev-parse "$deployed_tag^{commit}")" "$deployed" "facts: deployed = git rev-parse $deployed_tag"

parity() { # parity NAME ARGS...: render three ways and compare
	local name=$1; shift
	for f in text markdown json; do
		run "$@" --format "$f" >"$T/$name.$f" 2>"$T/$name.$f.err"
		local rc=$?
		[ $rc -le 1 ] || { cat "$T/$name.$f.err"; fail "$name --format $f exited $rc"; }
	done
	python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/$name.json" ||
		fail "$name: JSON does not match docs/schema/report.schema.json"
	python3 - "$T/$name" "$want_inc" <<'PY' || fail "$name: the renderings disagree"
import json, sys
base, want_inc = sys.argv[1], sys.argv[2] == "True"
d = json.load(open(base + ".json"))
reports = d if isinstance(d, list) else [d]
text, md = open(base + ".text").read(), open(base + ".markdown").read()
bad = []
def need(fact, what):
    for name, doc in (("text", text), ("markdown", md)):
        if fact not in doc:
            bad.append("%s lacks %s: %r" % (name, what, fact))
r = reports[0]
if r["signal"]:
    need(r["signal"]["name"], "the signal")
crashed = [t for t in r["threads"] if t["crashed"]][0]
for f in crashed["frames"]:
    if f["function"]:
        need(f["function"], "frame function")
for c in r["components"]:
    if c["commit"]:
        need(c["commit"][:12], "the commit of " + c["name"])
for s in r["sources"]:
    for l in s["lines"]:
        if l["number"] == s["line"] and l["text"].strip():
            need(l["text"].strip(), "the source line %s:%d" % (s["path"], s["line"]))
for x in r["fixes"]:
    if x["included"] is not want_inc:
        bad.append("json: included=%s, git merge-base says %s" % (x["included"], want_inc))
    need(x["fix"][:12], "the fix")
    if x["first_tag"]:
        need(x["first_tag"], "the fix's first tag")
    for name, doc, word in (("text", text, "NO" if not x["included"] else "YES"),
                            ("markdown", md, "NOT included" if not x["included"] else "is included")):
        if word not in doc:
            bad.append("%s lacks the fix status %r" % (name, word))
    if x["how"] and x["how"] != "missing":
        need({"ancestor": "by ancestry", "cherry-pick": "as cherry-pick", "distribution-patch":
              "as distribution patch", "adapted": "adapted (", "partial": "partly ("}[x["how"]], "how the fix is in")
    elif not x["included"]:
        need("upgrade to " + (x["branch_tag"] or x["first_tag"]), "what to do")
if r["determinism"]:
    need(r["determinism"], "the determinism line")
if not r["instructions"] and r["instructions_note"]:
    need(r["instructions_note"], "why there is no disassembly")
for i in r["instructions"]:
    if i["current"]:
        need(i["text"].split()[0], "the crashing instruction")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("ok: %d facts agree" % (len(crashed["frames"]) + len(r["components"]) + len(r["fixes"])))
PY
	echo "ok: $name: text, Markdown and JSON say the same"
}

parity one "$core"
check_eq "$(json_get "$T/one.json" 'd["fixes"][0]["first_tag"]')" "$fix_tag" "first tag of the fix = facts"

parity two "$core" "$T/core2"
check_match "$(json_get "$T/two.json" 'd[0]["determinism"]')" "^deterministic: all 2 inputs" "two copies of one core are deterministic"

# a text backtrace: no disassembly, and each rendering says why
bt=$TOP/fixtures/text/gdb/core-bt-full.txt
for f in text markdown json; do
	"$PROVENANCE" --cache "$T/cache" resolve "$bt" --offline --format "$f" >"$T/bt.$f" 2>/dev/null
done
note_=$(json_get "$T/bt.json" 'd["instructions_note"]')
[ "$note_" != null ] || fail "the JSON says nothing about the missing disassembly"
grep -qF "$note_" "$T/bt.text" || fail "the text report does not say why there is no disassembly"
grep -q "Not available from a text backtrace" "$T/bt.markdown" || fail "the Markdown report does not say why"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/bt.json" || fail "text input JSON vs schema"
echo "ok: a text backtrace: every rendering says why there is no disassembly"

# the other JSON outputs against their schemas (analyze, env, fixcheck)
"$PROVENANCE" --cache "$T/cache" analyze "$core" --format json >"$T/analyze.json" || fail "analyze"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/analyze.json" || fail "analyze JSON vs schema"
"$PROVENANCE" --cache "$T/cache" -c "$ins" env --sysroot "$T/demo/root" --mapping "$TOP/fixtures/demo/greet.map" --format json >"$T/env.json" || fail "env"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/env.schema.json" "$T/env.json" || fail "env JSON vs schema"
"$PROVENANCE" --cache "$T/cache" fixcheck "$fix" "$deployed" --repo "$T/demo/upstream" --at "$deployed_tag" --format json >"$T/fc.json"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/fixcheck.schema.json" "$T/fc.json" || fail "fixcheck JSON vs schema"
# the schemas can fail: a wrong type and a missing key are caught
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d[0]["included"]="yes"; json.dump(d,open(sys.argv[2],"w"))' "$T/fc.json" "$T/fc-bad.json"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/fixcheck.schema.json" "$T/fc-bad.json" 2>/dev/null && fail "the fixcheck schema accepts included=\"yes\""
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["threads"]; json.dump(d,open(sys.argv[2],"w"))' "$T/analyze.json" "$T/an-bad.json"
python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/an-bad.json" 2>/dev/null && fail "the report schema accepts a report without threads"
echo "ok: analyze, env and fixcheck JSON match their schemas; broken documents do not"
echo "all ok"
