#!/usr/bin/env python3
"""Make many crash reports from a few real ones, as if from many hosts.

  store-gen.py OUT.jsonl TRUTH.json N HOSTS SEED TEMPLATE.json...

Each output line is a template report (made by `provenance resolve --format
json` on a real core) with its host, time, input path and component versions
changed: host nodeNNN (HOSTS of them), a unique time, and for some reports a
synthetic component "rccl" whose version depends on the template (template 0
only ever with 2.20.1, the others with 2.19.3 or 2.20.1), so that triage has
a version split to find.  TRUTH.json holds what the generator did, computed
here from its own choices: per template the count, hosts, first and last
time, the signature rule's input (signal number and first five function
names of the crashing thread), rccl versions, and the latest report whose
components are the template's own (no rccl).
"""
import json
import random
import sys
import datetime

out_path, truth_path, n, nhosts, seed = sys.argv[1:6]
n, nhosts = int(n), int(nhosts)
rng = random.Random(int(seed))
templates = [json.load(open(p)) for p in sys.argv[6:]]
base = datetime.datetime(2026, 10, 2, 8, 0, 0, tzinfo=datetime.timezone.utc)


def signature(r):
    sig = str((r.get("signal") or {}).get("number") or 0)
    for t in r["threads"]:
        if t.get("crashed"):
            k = 0
            for f in t["frames"]:
                if f.get("function") is None:
                    continue
                if k == 5:
                    break
                sig += "|" + f["function"]
                k += 1
            break
    return sig


truth = {"total": n, "hosts": set(), "templates": []}
for i, t in enumerate(templates):
    truth["templates"].append({"signature": signature(t), "count": 0, "hosts": set(),
                               "first": None, "last": None, "rccl": {},
                               "last_plain": None, "frames": sum(len(th["frames"]) for th in t["threads"])})

with open(out_path, "w") as out:
    # unique times: minute i plus a random second, shuffled over the reports
    minutes = list(range(n))
    rng.shuffle(minutes)
    for i in range(n):
        k = 0 if rng.random() < 0.6 else 1 + rng.randrange(len(templates) - 1) if len(templates) > 1 else 0
        r = json.loads(json.dumps(templates[k]))
        host = "node%03d" % rng.randrange(nhosts)
        when = base + datetime.timedelta(minutes=minutes[i], seconds=rng.randrange(60))
        ts = when.strftime("%Y-%m-%dT%H:%M:%SZ")
        r["crash"]["host"] = host
        r["crash"]["time"] = ts
        r["input"]["path"] = "/scratch/%s/core.%d" % (host, 1000 + i)
        rc = None
        if rng.random() < 0.7:
            rc = "2.20.1" if k == 0 else rng.choice(["2.19.3", "2.20.1"])
            r["components"].append({"name": "rccl", "version": rc, "commit": None, "repo": None,
                                    "ref": None, "subdir": None, "found_by": "generated", "note": None})
        out.write(json.dumps(r, separators=(",", ":")) + "\n")
        tt = truth["templates"][k]
        tt["count"] += 1
        tt["hosts"].add(host)
        truth["hosts"].add(host)
        tt["first"] = ts if tt["first"] is None or ts < tt["first"] else tt["first"]
        tt["last"] = ts if tt["last"] is None or ts > tt["last"] else tt["last"]
        if rc:
            tt["rccl"][rc] = tt["rccl"].get(rc, 0) + 1
        elif tt["last_plain"] is None or ts > tt["last_plain"][0]:
            tt["last_plain"] = [ts, host]

truth["hosts"] = len(truth["hosts"])
for tt in truth["templates"]:
    tt["hosts"] = len(tt["hosts"])
json.dump(truth, open(truth_path, "w"), indent=1)
