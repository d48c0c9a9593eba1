#!/usr/bin/env python3
"""Compares armlower's TOSA interpreter with the TOSA reference model (tosa-tools).

Runs the C++ case writer (run_refmodel_cases) into a temporary directory: it writes each graph
as a .tosa file with armlower's serializer, its inputs as .npy and the interpreter's outputs as
.npy. Every graph is then run with `tosa_reference_model.run`; integer graphs must agree
bit-exactly, float graphs within the case's relative tolerance, and graphs the interpreter
refused with an ERROR_IF must not be TOSA_VALID in the reference model either (a REQUIRE
failure is "unpredictable" in the spec, so any reference outcome is accepted there).

Exit status: 0 pass, 1 mismatch, 77 skipped (tosa_reference_model not importable).
Usage: refmodel_compare.py <path-to-run_refmodel_cases> [--keep DIR]
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import tosa_reference_model as rm
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: tosa_reference_model / numpy not available ({e}); pip install tosa-tools numpy")
    sys.exit(77)


def version():
    try:
        from importlib.metadata import version as v
        return v("tosa-tools")
    except Exception:  # noqa: BLE001
        return "unknown"


def compare(name, mode, ref, got, idx):
    if ref.shape != got.shape:
        return f"{name} output {idx}: shape {ref.shape} (reference) vs {got.shape} (armlower)"
    if mode == "exact":
        r = ref.astype(np.int64)
        g = got.astype(np.int64)
        bad = np.nonzero(r != g)
        if bad[0].size:
            i = tuple(a[0] for a in bad)
            return (f"{name} output {idx}: {bad[0].size} of {r.size} elements differ; first at {i}: "
                    f"reference {r[i]} armlower {g[i]}")
        return None
    rtol = float(mode.split(":", 1)[1])
    r = ref.astype(np.float64)
    g = got.astype(np.float64)
    same_nan = np.isnan(r) == np.isnan(g)
    if not same_nan.all():
        i = tuple(a[0] for a in np.nonzero(~same_nan))
        return f"{name} output {idx}: NaN mismatch at {i}: reference {r[i]} armlower {g[i]}"
    fin = ~np.isnan(r)
    inf_ok = (np.isinf(r) == np.isinf(g)) & (~np.isinf(r) | (r == g))
    if not inf_ok[fin].all():
        return f"{name} output {idx}: Inf mismatch"
    fr = fin & ~np.isinf(r)
    scale = np.max(np.abs(r[fr])) if fr.any() else 0.0
    err = np.abs(r[fr] - g[fr])
    tol = rtol * scale
    if err.size and err.max() > tol:
        k = int(np.argmax(err))
        return (f"{name} output {idx}: max |ref - armlower| = {err.max():.3g} > {tol:.3g} "
                f"(rtol {rtol} of max|ref| {scale:.3g}); ref {r[fr][k]!r} armlower {g[fr][k]!r}")
    return None


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    exe = sys.argv[1]
    keep = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--keep" else None
    print(f"tosa-tools {version()}, numpy {np.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        out = keep or tmp
        # On an ERROR_IF the reference model prints a backtrace by running gdb, which takes
        # seconds per case; a no-op `gdb` first on PATH keeps the test fast.
        stub = os.path.join(tmp, "nogdb")
        os.makedirs(stub)
        with open(os.path.join(stub, "gdb"), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(stub, "gdb"), 0o755)
        os.environ["PATH"] = stub + os.pathsep + os.environ.get("PATH", "")
        subprocess.run([exe, out], check=True)
        failures = []
        n = 0
        with open(os.path.join(out, "cases.txt")) as f:
            lines = [ln.split() for ln in f if ln.strip()]
        for name, mode, nin, nout in lines:
            n += 1
            with open(os.path.join(out, name + ".tosa"), "rb") as f:
                graph = f.read()
            inputs = [np.load(os.path.join(out, f"{name}.in{i}.npy")) for i in range(int(nin))]
            try:
                outputs, status = rm.run(graph, inputs)
                status_name = str(status).split(".")[-1]
            except ValueError as e:  # the reference model refuses invalid graphs at load time
                outputs, status_name = [], f"ValueError({e})"
            if mode == "error:require":
                # REQUIRE failures are unpredictable in the spec: any reference outcome is compliant.
                print(f"ok   {name}: armlower reports a REQUIRE failure (unpredictable), reference {status_name}")
                continue
            if mode.startswith("error"):
                if status_name == "TOSA_VALID":
                    failures.append(f"{name}: armlower refused it ({mode}) but the reference model returned TOSA_VALID")
                else:
                    print(f"ok   {name}: both refuse (armlower {mode}, reference {status_name})")
                continue
            if status_name != "TOSA_VALID":
                failures.append(f"{name}: reference model status {status_name}")
                continue
            msgs = []
            for i in range(int(nout)):
                got = np.load(os.path.join(out, f"{name}.out{i}.npy"))
                m = compare(name, mode, np.asarray(outputs[i]), got, i)
                if m:
                    msgs.append(m)
            if msgs:
                failures.extend(msgs)
            else:
                print(f"ok   {name}: {nout} outputs agree ({mode})")
        for m in failures:
            print("FAIL " + m)
        print(f"{n - len(failures)}/{n} cases agree" if not failures else f"{len(failures)} failure(s)")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
