#!/usr/bin/env python3
"""Validate a JSON document against a JSON Schema (docs/schema/*.json).

  check-schema.py SCHEMA FILE...

Exit 0 when every FILE is valid; 1 with the first problems of each invalid
one on stderr otherwise.
"""
import json
import sys

import jsonschema


def main():
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
