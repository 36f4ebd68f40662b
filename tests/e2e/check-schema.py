#!/usr/bin/env python3
"""Validate a JSON document against a JSON Schema (docs/schema/*.json).

  check-schema.py SCHEMA FILE...
  check-schema.py --wrapped SCHEMA-DIR DIR

Exit 0 when every FILE is valid; 1 with the first problems of each invalid
one on stderr otherwise.

--wrapped checks what tests/e2e/schema-wrap.sh kept in DIR: for each run,
NAME.XXXXXX (its stdout), .argv (one argument a line) and .rc (its exit
status); NAME is the schema (SCHEMA-DIR/NAME.schema.json). Runs that ended
with an exit status other than 0, 1 or 3 or whose copy is partial are not
checked.
"""
import glob
import json
import os
import sys

import jsonschema


def printable(s):
    """the command line as one safe line: no control characters on a terminal"""
    return "".join(c if c.isprintable() else "\\x%02x" % ord(c) if ord(c) < 256 else c
                   for c in s)[:300]


def wrapped(schema_dir, run_dir):
    schemas, bad, checked, unchecked = {}, 0, {}, 0
    for rcfile in sorted(glob.glob(os.path.join(run_dir, "*.rc"))):
        out = rcfile[:-3]
        try:
            rc = int(open(rcfile).read().strip())
        except ValueError:
            continue
        if rc not in (0, 1, 3) or os.path.exists(out + ".partial"):
            unchecked += 1
            continue
        name = os.path.basename(out).split(".")[0]
        checked[name] = checked.get(name, 0) + 1
        argv = open(out + ".argv", errors="replace").read().split("\n")[:-1]
        what = "provenance " + " ".join(printable(a) for a in argv)
        if name not in schemas:
            schema = json.load(open(os.path.join(schema_dir, name + ".schema.json")))
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            schemas[name] = cls(schema)
        try:
            doc = json.load(open(out))
        except ValueError as e:
            print("schema: %s (exit %d) printed no JSON document: %s" % (what, rc, e), file=sys.stderr)
            bad += 1
            continue
        errors = sorted(schemas[name].iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:5]:
            print("schema: %s (exit %d) vs %s.schema.json: %s: %s" % (
                what, rc, name, "/".join(str(p) for p in e.path) or "(top)", e.message[:300]),
                file=sys.stderr)
        bad += bool(errors)
    print("# schema: %s checked, %d bad; %d runs not checked (exit status, or stdout cut short)" % (
        ", ".join("%d %s" % (n, k) for k, n in sorted(checked.items())) or "none", bad, unchecked))
    return 1 if bad else 0


def main():
    if sys.argv[1] == "--wrapped":
        return wrapped(sys.argv[2], sys.argv[3])
    schema = json.load(open(sys.argv[1]))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    bad = 0
    for path in sys.argv[2:]:
        doc = json.load(open(path))
        errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:10]:
            print("%s: %s: %s" % (path, "/".join(str(p) for p in e.path) or "(top)", e.message),
                  file=sys.stderr)
        bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
