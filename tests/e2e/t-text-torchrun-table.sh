#!/usr/bin/env bash
# torchrun's ChildFailedError table annotates the rank each row names (issue
# 33): host, exit code (a negative one is the signal), error_file ("<N/A>":
# none). Truth: the table's own rows in each launcher fixture that has one,
# read by this test; the tool's report must give each labelled crash the
# values of its row.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
n=0
for log in "$TOP"/fixtures/text-ranks/*/log.txt; do
	grep -q "ChildFailedError" "$log" || continue
	name=$(basename "$(dirname "$log")")
	"$PROVENANCE" resolve --offline --format json "$log" >"$T/r.json" 2>"$T/r.err"
	rc=$?
	[ $rc -le 1 ] || fail "$name: resolve exits $rc: $(head -3 "$T/r.err")"
	python3 - "$log" "$T/r.json" "$name" <<'PY' || fail "$name: the table's rows do not annotate their ranks"
import json, re, signal, sys
log, rep, name = sys.argv[1:]
rows, cur = {}, None
for line in open(log, errors="replace"):
    line = re.sub(r"^.*?(?=\[\d+\]:$|  (time|host|rank|exitcode|error_file)\s*:)", "", line.rstrip("\n"))
    if re.fullmatch(r"\[\d+\]:", line.strip()):
        cur = {}
        continue
    m = re.match(r"\s+(host|rank|exitcode|error_file)\s*:\s*(.*)$", line)
    if cur is None or not m:
        continue
    cur[m.group(1)] = m.group(2).strip()
    if m.group(1) == "rank":
        rows[int(cur["rank"].split()[0])] = cur
if not rows:
    sys.exit("%s: no table rows found" % name)
reports = {r["input"]["label"]: r for r in json.load(open(rep))}
for rank, row in sorted(rows.items()):
    r = reports.get("rank%d" % rank) or reports.get(str(rank))
    if r is None:
        sys.exit("rank %d: no crash labelled with it (labels: %s)" % (rank, sorted(reports)))
    ln = r["input"].get("launcher") or {}
    code = int(row["exitcode"].split()[0])
    want = {"host": row["host"], "exit_code": code,
            "error_file": None if row.get("error_file", "<N/A>") == "<N/A>" else row["error_file"],
            "signal": signal.Signals(-code).name if code < 0 else None}
    for k, v in want.items():
        if ln.get(k) != v:
            sys.exit("rank %d: launcher %s = %r, the table says %r" % (rank, k, ln.get(k), v))
print("ok: %s: %d rows of the ChildFailedError table annotate their ranks" % (name, len(rows)))
PY
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no launcher fixture has a ChildFailedError table"
