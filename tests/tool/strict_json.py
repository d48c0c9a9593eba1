#!/usr/bin/env python3
"""Strict RFC 8259 check of one `armlower ... --json` stdout, read from the file argv[1].

Exit 0 when the file is valid UTF-8 (strict decoding, no surrogates) and is exactly one line
holding one JSON value that Python's json module parses with NaN, Infinity and -Infinity
refused (parse_constant raises) and duplicate object keys refused; exit 1 otherwise, with the
reason on stderr.
"""
import json
import sys


def refuse_constant(name):
    raise ValueError("non-RFC 8259 constant " + name)


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key in an object")
    return dict(pairs)


def main():
    data = open(sys.argv[1], "rb").read()
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        print("not valid UTF-8: %s" % e, file=sys.stderr)
        return 1
    if not text.endswith("\n") or text.count("\n") != 1:
        print("expected exactly one line, got %d" % text.count("\n"), file=sys.stderr)
        return 1
    try:
        json.loads(text, parse_constant=refuse_constant, object_pairs_hook=no_duplicates)
    except ValueError as e:
        print("not RFC 8259 JSON: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
