#!/usr/bin/env python3
"""Runs every .tosa file written by conformance_emit in the TOSA reference model (the oracle).

For each case of manifest.jsonl it requires:
  * tosa_reference_model.run(...) returns TOSA_VALID;
  * integer graphs (int8, a16w8): the reference model's output equals armlower's interpreter
    output bit for bit (and, for the "_cmsis" cases, the Cortex-M plan's output run through the
    CMSIS-form kernels: int8 against the DOUBLE_ROUND lowering, a16w8 against the a16w8 one); single layers are also within one output quantum + 1e-3 of the quantized
    model evaluated in float (ExecuTorch TosaPipelineINT: atol 1e-3 + qtol*scale, rtol 1e-3, qtol 1,
    against the Quantize stage, which ExecuTorch's tester uses as the reference of quantized models);
  * MXFP graphs: both the reference model's and armlower's outputs lie within the TOSA
    dot-product error bound of the fp64 result of MATMUL_T_BLOCK_SCALED on the block-scaled
    operands (spec pseudocode tosa_reference_check_dotproduct: |out - ref64| <= ABS_BOUND * max(
    out_bnd * 2^-(1+23), normal_min), ABS_BOUND = 2*ksb, ksb = K (+1 with a bias), out_bnd = fp64
    result on |A|, |B|, |bias|); chains (no operand dump) must agree to 1e-5 relative; and
    the output is within ExecuTorch's relative-Frobenius / cosine thresholds of the float model.

Exit code 77 (ctest SKIP_RETURN_CODE) when tosa_reference_model is not installed.
Usage: check_refmodel.py <cases-dir>
"""
import json
import math
import os
import sys

try:
    import numpy as np
    import tosa_reference_model as trm
except ImportError as e:  # pragma: no cover
    print(f"SKIP: {e} (pip install tosa-tools numpy)")
    sys.exit(77)


def status_ok(status):
    # GraphStatus.TOSA_VALID == 0; accept the enum or its integer value.
    try:
        return int(status) == 0
    except TypeError:
        return "TOSA_VALID" in str(status)


def frob_cos(test, ref):
    test = test.astype(np.float64).ravel()
    ref = ref.astype(np.float64).ravel()
    nr = np.linalg.norm(ref)
    if nr == 0:
        return 0.0, 1.0
    frob = np.linalg.norm(test - ref) / (nr + 1e-8)
    nt = np.linalg.norm(test)
    cos = 0.0 if nt == 0 else float(np.dot(test, ref) / (nr * nt))
    return float(frob), cos


def main():
    d = sys.argv[1]
    cases = [json.loads(l) for l in open(os.path.join(d, "manifest.jsonl")) if l.strip()]
    failures = []
    counts = {}
    for c in cases:
        name = c["name"]
        p = lambda s: os.path.join(d, name + s)
        with open(p(".tosa"), "rb") as f:
            graph = f.read()
        x = np.load(p(".in.npy"))
        try:
            outs, status = trm.run(graph, [x])
        except Exception as e:  # invalid graph -> ValueError
            failures.append(f"{name}: reference model raised {type(e).__name__}: {e}")
            continue
        if not status_ok(status):
            failures.append(f"{name}: reference model status {status}, expected TOSA_VALID")
            continue
        ref = np.asarray(outs[0])
        arm = np.load(p(".armlower.npy"))
        fl = np.load(p(".float.npy"))
        if ref.shape != arm.shape:
            ref = ref.reshape(arm.shape)
        counts[c["scheme"]] = counts.get(c["scheme"], 0) + 1
        if c["kind"] == "int":
            if not np.array_equal(ref.astype(np.int64), arm.astype(np.int64)):
                diff = np.abs(ref.astype(np.int64) - arm.astype(np.int64))
                failures.append(f"{name}: armlower differs from the reference model in {int((diff != 0).sum())} "
                                f"elements (max |diff| {int(diff.max())})")
                continue
            if os.path.exists(p(".fq.npy")):
                # ExecuTorch's qtol=1 check against the quantized model evaluated in float.
                fq = np.load(p(".fq.npy")).astype(np.float64).reshape(ref.shape)
                # The quantized model ends in QUANTIZE -> DEQUANTIZE, which saturates.
                info = np.iinfo(arm.dtype)
                fq = np.clip(fq, c["out_scale"] * (info.min - c["out_zp"]), c["out_scale"] * (info.max - c["out_zp"]))
                deq = c["out_scale"] * (ref.astype(np.float64) - c["out_zp"])
                tol = 1e-3 + c["out_scale"] + 1e-3 * np.abs(fq)
                bad = np.abs(deq - fq) > tol
                if bad.any():
                    failures.append(f"{name}: {int(bad.sum())} outputs beyond one quantum + 1e-3 of the quantized model")
        else:
            if os.path.exists(p(".a.npy")):
                a = np.load(p(".a.npy")).astype(np.float64)
                b = np.load(p(".b.npy")).astype(np.float64)
                r64 = a @ b.T
                bnd = np.abs(a) @ np.abs(b).T
                ksb = a.shape[1]
                if os.path.exists(p(".bias.npy")):
                    bias = np.load(p(".bias.npy")).astype(np.float64)
                    r64 = r64 + bias
                    bnd = bnd + np.abs(bias)
                    ksb += 1
                tol = 2 * ksb * np.maximum(bnd * 2.0 ** -24, 2.0 ** -126)
                r64 = r64.reshape(ref.shape)
                tol = tol.reshape(ref.shape)
                for who, out in (("reference model", ref), ("armlower", arm)):
                    err = np.abs(out.astype(np.float64) - r64)
                    if (err > tol).any():
                        failures.append(f"{name}: {who} output outside the dot-product bound "
                                        f"(max err/bound {float((err / np.maximum(tol, 1e-300)).max()):.3g})")
            else:
                scale = np.maximum(np.abs(ref.astype(np.float64)), 1e-30)
                rel = np.abs(ref.astype(np.float64) - arm.astype(np.float64)).max() / max(np.abs(ref).max(), 1e-30)
                if rel > 1e-5:
                    failures.append(f"{name}: armlower and the reference model differ by {rel:.3g} (relative to max |y|)")
            frob, cos = frob_cos(ref, fl)
            f_eff = frob - 0.02 if cos >= max(0.98, c["cos"]) else frob
            if c["frob"] >= 0 and (f_eff > c["frob"] or cos < c["cos"]):
                failures.append(f"{name}: vs float model rel. Frobenius {frob:.4f} (<= {c['frob']}), cosine {cos:.5f} "
                                f"(>= {c['cos']})")
    print(f"{len(cases)} cases run in tosa_reference_model: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for f in failures:
        print("FAIL " + f)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("all TOSA_VALID; integer outputs bit-exact; MXFP within the dot-product bound and the float-model thresholds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
