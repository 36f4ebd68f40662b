#!/usr/bin/env bash
# Reals in JSON round-trip (issue 39 #16): query printed 6 decimals and triage
# 4, so 1.23e-7 read 0.000000 and a repro rate of 1 in 1,000,000 runs 0.0000;
# Inf/NaN came out as 0. The truth is python3's float of the same literal.
. "$(dirname "$0")/lib.sh"

python3 - "$T/r.jsonl" <<'PY' || fail "cannot write the report"
import json, sys
r = {"schema": "provenance/1", "input": {"path": "core.1", "kind": "core"},
     "signal": {"number": 11, "name": "SIGSEGV"},
     "crash": {"context": "runtime", "patterns": [], "host": "h1", "time": "2026-10-02T00:00:00Z"},
     "threads": [{"tid": 1, "crashed": True, "frames": [{"function": "f"}]}],
     "modules": [], "components": []}
open(sys.argv[1], "w").write(json.dumps(r) + "\n")
PY
"$PROVENANCE" --cache "$T/c" import --store "$T/s.sqlite" "$T/r.jsonl" >/dev/null 2>"$T/i.err" ||
	{ cat "$T/i.err"; fail "import"; }
"$PROVENANCE" --cache "$T/c" query --store "$T/s.sqlite" --format json \
	"SELECT 1.23e-7 AS small, 0.1 + 0.2 AS sum, 1e300 * 1e300 AS inf, 123456789012.34567 AS big" \
	>"$T/q.json" 2>"$T/q.err" || { cat "$T/q.err"; fail "query"; }
cat "$T/q.json"
python3 - "$T/q.json" <<'PY' || fail "query JSON reals are not the stored doubles"
import json, sys
d = json.load(open(sys.argv[1]), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))[0]
assert d["small"] == 1.23e-7, d
assert d["sum"] == 0.1 + 0.2, d
assert d["big"] == 123456789012.34567, d
assert d["inf"] is None, d
PY
"$PROVENANCE" --cache "$T/c" triage --store "$T/s.sqlite" --runs 1000000 --format json \
	>"$T/t.json" 2>"$T/t.err" || { cat "$T/t.err"; fail "triage"; }
python3 - "$T/t.json" <<'PY' || fail "triage repro rate is not 1/1000000"
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
assert g["repro_rate"] == 1 / 1000000, g["repro_rate"]
assert g["share"] == 1.0, g["share"]
PY
echo "ok: reals round-trip in query and triage JSON"
