#!/usr/bin/env bash
# triage over thousands of single-crash groups (issue 27): the store ran one
# query per group over the whole selection's components (quadratic: 4,000
# groups with 500 component versions took 141 s of CPU). Now one pass
# (about 1 s): the bound is 30 s of CPU for 4,000 groups of 500 versions,
# far from both. The JSON of 4,000 groups of 30 versions is checked against
# what the generator wrote (python3 here): every group, every version with
# its count.
. "$(dirname "$0")/lib.sh"

gen() {
	python3 - "$1" "$2" "${3:-10}" "${4:-3}" <<'PY'
import json, sys
n, ncomp, nver = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(sys.argv[1], "w") as f:
    for i in range(n):
        r = {"schema": "provenance/1", "input": {"path": "core.%d" % i, "kind": "core"},
             "signal": {"number": 11, "name": "SIGSEGV"},
             "crash": {"context": "runtime", "patterns": [], "host": "n%d" % (i % 7),
                       "time": "2026-10-02T%02d:%02d:%02dZ" % (i // 3600 % 24, i // 60 % 60, i % 60)},
             "threads": [{"tid": 1, "crashed": True,
                          "frames": [{"function": "f%d_%d" % (i, k)} for k in range(3)]}],
             "modules": [],
             "components": [{"name": "comp%d" % c, "version": "1.%d" % ((i + c) % nver)} for c in range(ncomp)]}
        f.write(json.dumps(r) + "\n")
PY
}
for n in 4000 4000w; do
	if [ "$n" = 4000w ]; then gen "$T/r$n.jsonl" 4000 50 10; else gen "$T/r$n.jsonl" $n; fi ||
		fail "cannot write the reports"
	"$PROVENANCE" --cache "$T/c" import --store "$T/s$n.sqlite" "$T/r$n.jsonl" >/dev/null 2>"$T/i.err" ||
		{ cat "$T/i.err"; fail "import of $n reports"; }
done
/usr/bin/time -f "%U %S %M" -o "$T/time" timeout 300 "$PROVENANCE" --cache "$T/c" triage \
	--store "$T/s4000w.sqlite" >"$T/w.txt" 2>"$T/w.err"; rc=$?
cat "$T/w.err"
check_eq "$rc" 0 "triage of 4,000 groups of 500 versions: exit code"
grep -q "^" "$T/w.txt" || fail "triage printed nothing"
cpu=$(tail -n 1 "$T/time" | awk '{ printf "%d", $1 + $2 }')
echo "4,000 groups of 500 versions: $cpu s of CPU, $(tail -n 1 "$T/time" | awk '{ print $3 }') KiB"
[ "$cpu" -lt 30 ] || fail "triage of 4,000 groups of 500 versions took $cpu s of CPU"
"$PROVENANCE" --cache "$T/c" triage --store "$T/s4000.sqlite" --format json >"$T/t.json" || fail "triage"
python3 - "$T/t.json" <<'PY' || fail "the triage of 4,000 groups differs from the generator's"
import json, sys
d = json.load(open(sys.argv[1]))
n = 4000
assert d["total"] == n and len(d["groups"]) == n, (d["total"], len(d["groups"]))
total = {(c, v): sum(1 for j in range(n) if (j + c) % 3 == v) for c in range(10) for v in range(3)}
for g in d["groups"]:
    i = int(g["signature"].split("|")[1].split("_")[0][1:])
    want = {("comp%d" % c, "1.%d" % v): (1 if (i + c) % 3 == v else 0, total[(c, v)])
            for c in range(10) for v in range(3)}
    got = {(v["name"], v["version"]): (v["count"], v["all_crashes"]) for v in g["components"]}
    assert got == want, (g["signature"], got, want)
print("ok: 4,000 groups, 30 versions each, counts as generated")
PY
echo "ok: triage scales with the groups"
