#!/usr/bin/env python3
"""MAXIMUM through armlower's CLI, on files written by tosa-tools' `tosa_serializer`.

The conformance sweep (sweep.py) checks `armlower run` on every MAXIMUM row against the TOSA
reference model; this test checks the other subcommands name the op:
  inspect         lists the operator as "MAXIMUM" (text and --json)
  check           INT32 MAXIMUM is legal for TOSA-1.0+INT and, as the row needs PRO-INT (TOSA 1.0
                  MAXIMUM type table), a finding naming MAXIMUM and PRO-INT for TOSA-1.0+FP
  run             a MaximumAttribute whose nan_mode is UNKNOWN (0, not a NanPropagationMode) is
                  refused with one line naming the op and nan_mode; the reference model rejects
                  the same file (so armlower does not pick a mode the file does not state)
Exit status: 0 pass, 1 failure, 77 skipped (tosa-tools / numpy / ml_dtypes missing).
Usage: maximum_cli.py ARMLOWER_EXE
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402  (exits 77 itself when tosa-tools is missing)

np, ts = sweep.np, sweep.ts
exe = sys.argv[1]
fails = []


def expect(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        fails.append(what)


def tool(*args):
    r = subprocess.run([exe, "-q", *args], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def write(d, t, mode):
    """MAXIMUM of a [2,3,4] input and a [1,3,4] constant of dtype t; returns the .tosa path."""
    g = sweep.Graph(d, "1.0")
    gen = sweep.Gen(7)
    a = g.tensor(t, gen.data(t, [2, 3, 4]), True)
    b = g.const(t, gen.data(t, [1, 3, 4]))
    y = g.output(t, [2, 3, 4])
    g.op("MAXIMUM", [a, b], [y], sweep.attr("MaximumAttribute", mode))
    return g, g.write()


with tempfile.TemporaryDirectory(prefix="armlower_maximum_") as work:
    _, f32 = write(os.path.join(work, "i32"), "INT32", ts.NanPropagationMode.PROPAGATE)

    rc, out, err = tool("inspect", f32)
    expect(rc == 0 and re.search(r"#\d+ MAXIMUM \(", out) is not None, f"inspect lists '#k MAXIMUM (...)': {out!r}{err!r}")
    rc, out, err = tool("inspect", "--json", f32)
    doc = json.loads(out) if rc == 0 else {}
    expect("MAXIMUM" in json.dumps(doc), f"inspect --json names MAXIMUM: {out[:300]!r}{err!r}")

    rc, out, err = tool("check", "--spec", "TOSA-1.0+INT", f32)
    expect(rc == 0 and "legal" in out, f"check TOSA-1.0+INT: INT32 MAXIMUM is legal: {rc} {out!r}{err!r}")
    rc, out, err = tool("check", "--spec", "TOSA-1.0+FP", f32)
    expect(rc == 1 and re.search(r"op #\d+ MAXIMUM: .*MAXIMUM i32 requires PRO-INT", out) is not None,
           f"check TOSA-1.0+FP: INT32 MAXIMUM names the op and PRO-INT: {rc} {out!r}{err!r}")

    g, bad = write(os.path.join(work, "unknown"), "FP32", ts.NanPropagationMode.UNKNOWN)
    rc, out, err = tool("run", bad, "-i", os.path.join(g.dir, "in0.npy"), "--json")
    lines = [ln for ln in err.splitlines() if ln.strip()]
    expect(rc == 1 and len(lines) == 1 and "MAXIMUM" in lines[0] and "nan_mode 0" in lines[0],
           f"run refuses nan_mode UNKNOWN in one line naming MAXIMUM and nan_mode: {rc} {err!r}")
    status, _ = sweep.run_reference(g, os.path.join(work, "reference_model.log"))
    expect(status != "TOSA_VALID", f"the reference model rejects nan_mode UNKNOWN too: {status}")

print(f"{len(fails)} failure(s)")
sys.exit(1 if fails else 0)
