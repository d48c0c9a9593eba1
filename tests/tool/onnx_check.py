"""`armlower lower model.onnx` checked against onnxruntime and the TOSA reference model.

Models: tests/tool/onnx_models.py (onnx.helper float MLPs and onnxruntime quantize_static QDQ
copies; onnx 1.20.1, onnxruntime 1.32.0, scripts/requirements-onnx.txt).
  float models x scheme (int8 on TOSA-1.0+INT, a16w8 on TOSA-1.0+INT+int16):
      SQNR and max |error| of armlower's output vs onnxruntime's float output, bounded by a numpy
      emulation of the scheme (per-tensor affine int8 / symmetric int16 activations from the same
      calibration rows, symmetric int8 weights): SQNR >= emulated - 6 dB, max error <= 2 x
      emulated + 2 output quanta.
  QDQ models (int8 per tensor, per channel, uint8 activations, int16 activations): armlower keeps
      the model's own scales. onnxruntime (default graph optimizations) fuses int8/uint8 QDQ
      MatMul/Gemm/Add into QLinearMatMul / QGemm / QLinearAdd (integer, own rounding) and runs
      the int16 ones dequantized in float; the test prints which. armlower's TOSA (integer
      RESCALE) and onnxruntime's arithmetic round differently, and a quantum of difference in a
      layer output moves the next layer's output by at most sum|W|·s_in/s_out quanta, so the
      bound is per model the propagated sum over layers (printed); measured counts printed.
  Every .tosa: the TOSA reference model's output equals `armlower run`'s bit for bit.
Usage: onnx_check.py ARMLOWER_TOOL WORK_DIR. Exit 77 = skipped (onnx/onnxruntime/oracles missing)."""
import json
import os
import subprocess
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    import tosa_reference_model as trm
except ImportError as e:
    print(f"skipping: {e}")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_models  # noqa: E402
from onnx_models import emulate, float_layers, sqnr  # noqa: E402

tool, work = None, None
fails = 0
ROWS = 8


def setup(tool_path, work_dir):
    """Sets the armlower binary and the work folder (also for tests/tool/onnx_magika.py)."""
    global tool, work
    tool, work = tool_path, work_dir
    os.makedirs(work, exist_ok=True)


def check(cond, msg):
    global fails
    print(("ok   " if cond else "FAIL ") + msg, flush=True)
    fails += 0 if cond else 1


def lower(model, spec, out, *extra):
    r = subprocess.run([tool, "-q", "lower", model, "--spec", spec, "-o", out, "--json", *extra],
                       capture_output=True, text=True)
    if r.returncode != 0:
        check(False, f"armlower lower {os.path.basename(model)} {spec} {' '.join(extra)}: {r.stderr.strip()}")
        return None
    return json.loads(r.stdout)


def io_of(rep, role):
    return [x for x in rep["report"]["io"] if x["role"] == role][0]


NP = {"INT8": np.int8, "INT16": np.int16, "FP32": np.float32}


def run_both(tosa, xq):
    """(armlower run output, reference model output) for input array xq."""
    p = os.path.join(work, "in.npy")
    np.save(p, xq)
    r = subprocess.run([tool, "-q", "run", tosa, "--input", p, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        check(False, f"armlower run {tosa}: {r.stderr.strip()}")
        return None, None
    o = json.loads(r.stdout)["outputs"][0]
    a = np.array(o["values"], dtype=np.float64).reshape(o["shape"])
    with open(tosa, "rb") as f:
        outs, status = trm.run(f.read(), [xq])
    if str(status).split(".")[-1] != "TOSA_VALID":
        check(False, f"reference model status {status} on {tosa}")
        return a, None
    return a, np.asarray(outs[0], dtype=np.float64)


def armlower_outputs(tosa, rep, x, rtol=0.0):
    """Dequantized armlower outputs for the float rows x (one row per run: batch 1), and whether
    the reference model agreed on every row: bit for bit (rtol 0; integer graphs), or within
    rtol for MXFP graphs (whose fp32 accumulation order the spec leaves free)."""
    i, o = io_of(rep, "input"), io_of(rep, "output")
    ys, exact = [], True
    for r in range(x.shape[0]):
        xr = x[r:r + 1].reshape(i["shape"])
        if i["scale"] is not None:
            info = np.iinfo(NP[i["dtype"]])
            xr = np.clip(np.round(xr / i["scale"]) + i["zero_point"], info.min, info.max).astype(NP[i["dtype"]])
        a, ref = run_both(tosa, xr)
        if a is None:
            return None, False, o
        exact = exact and ref is not None and (np.array_equal(a, ref) if rtol == 0 else
                                               np.allclose(a, ref.reshape(a.shape), rtol=rtol, atol=rtol))
        if o["scale"] is not None:
            a = (a - o["zero_point"]) * o["scale"]
        ys.append(a.reshape(-1))
    return np.stack(ys), exact, o


def ort_run(path, x, opt=True):
    so = ort.SessionOptions()
    if not opt:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    n = s.get_inputs()[0].name
    return np.concatenate([s.run(None, {n: x[r:r + 1]})[0].reshape(1, -1) for r in range(x.shape[0])]).astype(np.float64)


def ort_fused_ops(path):
    so = ort.SessionOptions()
    opt = os.path.join(work, "ort_opt.onnx")
    so.optimized_model_filepath = opt
    ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return sorted({n.op_type for n in onnx.load(opt).graph.node} - {"QuantizeLinear", "DequantizeLinear"})


def qdq_weights(m):
    """The real (dequantized) weights [out, in] of every MatMul/Gemm of a QDQ model."""
    init = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    real = {}
    for n in m.graph.node:
        if n.op_type == "DequantizeLinear" and n.input[0] in init:
            q = init[n.input[0]].astype(np.float64)
            s = init[n.input[1]].astype(np.float64)
            z = init[n.input[2]].astype(np.float64) if len(n.input) > 2 and n.input[2] else np.zeros_like(s)
            ax = next((a.i for a in n.attribute if a.name == "axis"), 1)
            if s.size > 1:
                shp = [1] * q.ndim
                shp[ax] = -1
                s, z = s.reshape(shp), z.reshape(shp)
            real[n.output[0]] = (q - z) * s
    out = []
    for n in m.graph.node:
        if n.op_type in ("MatMul", "Gemm") and n.input[1] in real:
            w = real[n.input[1]]
            tb = any(a.name == "transB" and a.i for a in n.attribute)
            alpha = next((a.f for a in n.attribute if a.name == "alpha"), 1.0)
            out.append(alpha * (w if tb else w.T))
    return out


# ---- the checks ---------------------------------------------------------------------------------
def main():
    setup(*sys.argv[1:3])
    paths = onnx_models.write_all(os.path.join(work, "models"))
    rng = np.random.default_rng(11)
    print(f"onnx {onnx.__version__}, onnxruntime {ort.__version__}")

    SCHEMES = {"int8": "TOSA-1.0+INT", "a16w8": "TOSA-1.0+INT+int16"}
    for name in onnx_models.FLOAT_MODELS:
        m = onnx.load(paths[name])
        x = rng.uniform(-1, 1, onnx_models.input_shape(m, ROWS)).astype(np.float32)
        xcal = onnx_models.calibration(m)
        calib = os.path.join(work, f"{name}_calib.npy")
        np.save(calib, xcal.reshape(xcal.shape[0], -1))  # a leading Flatten/Reshape is absorbed: rows of 16
        y_ort = ort_run(paths[name], x)
        layers = float_layers(m)
        for scheme, spec in SCHEMES.items():
            for pc in (False, True):
                tag = f"{name} {scheme}{' per-channel' if pc else ''}"
                t = os.path.join(work, f"{name}_{scheme}{'_pc' if pc else ''}.tosa")
                rep = lower(paths[name], spec, t, "--scheme", scheme, "--calib", calib, *(["--per-channel"] if pc else []))
                if rep is None:
                    continue
                y, exact, o = armlower_outputs(t, rep, x)
                if y is None:
                    continue
                y_emu, s_out = emulate(layers, x, xcal, scheme, pc)
                q_emu, q_arm = sqnr(y_ort, y_emu), sqnr(y_ort, y)
                e_emu, e_arm = np.abs(y_emu - y_ort).max(), np.abs(y - y_ort).max()
                check(exact, f"{tag}: reference model == armlower run on {ROWS} rows (bit-exact)")
                check(q_arm >= q_emu - 6 and e_arm <= 2 * e_emu + 2 * o["scale"],
                      f"{tag}: vs onnxruntime SQNR {q_arm:.1f} dB (emulation {q_emu:.1f}), max|err| {e_arm:.4g} "
                      f"(emulation {e_emu:.4g}, bound {2 * e_emu + 2 * o['scale']:.4g})")

    for name in onnx_models.FLOAT_MODELS:
        for cfg in onnx_models.QUANT_CONFIGS:
            qn = f"{name}_{cfg}"
            m = onnx.load(paths[qn])
            x = rng.uniform(-1, 1, onnx_models.input_shape(m, ROWS)).astype(np.float32)
            spec = "TOSA-1.0+INT+int16" if cfg == "a16w8" else "TOSA-1.0+INT"
            t = os.path.join(work, qn + ".tosa")
            rep = lower(paths[qn], spec, t)  # the scheme comes from the model (int8 / a16w8)
            if rep is None:
                continue
            y, exact, o = armlower_outputs(t, rep, x)
            if y is None:
                continue
            check(exact, f"{qn}: reference model == armlower run on {ROWS} rows (bit-exact)")
            # Cortex-M plans of the same model (their numerics: the plan tests; here: it maps)
            for target in ("cortex-m55", "cortex-m4", "cortex-m0"):
                r = subprocess.run([tool, "-q", "lower", paths[qn], "--target", target, "-o",
                                    os.path.join(work, f"{qn}_{target}.hpp")], capture_output=True, text=True)
                check(r.returncode == 0, f"{qn}: --target {target} writes a plan {r.stderr.strip()}")
            # (1) the QDQ model as written: onnxruntime with graph optimizations off runs every
            # DequantizeLinear -> float op -> QuantizeLinear (round half to even) in float. armlower's
            # integer RESCALE rounds s_in*s_w/s_out*acc once; the float path rounds the product of the
            # rounded float32 values: the two differ by at most one quantum per requantization, and a
            # quantum of difference in one layer's output moves the next layer's by at most
            # max_o sum_i |W[o,i]| s_in/s_out quanta. Bound: quanta accumulated along the chain.
            y_ort_f = ort_run(paths[qn], x, opt=False)
            s = np.asarray(o["scale"], np.float64)
            d_f = np.round(np.abs(y - y_ort_f) / s).astype(int)
            nq = sum(1 for n in m.graph.node if n.op_type == "QuantizeLinear")
            check(d_f.max() <= nq - 1,
                  f"{qn}: vs onnxruntime unoptimized (float QDQ): {int((d_f == 0).sum())}/{d_f.size} outputs equal, "
                  f"max {d_f.max()} quanta (bound {nq - 1}: one per requantization after the input's)")
            # (2) onnxruntime as deployed (default optimizations): int8/uint8 QDQ fused into QGemm /
            # QLinearMatMul / QLinearAdd, int16 MatMul rewritten to MatMulNBits (its own arithmetic);
            # printed for the record, bounded by the gain-propagated bound.
            y_ort = ort_run(paths[qn], x)
            d = np.round(np.abs(y - y_ort) / s).astype(int)
            bound = 1.0
            for w in qdq_weights(m):
                bound = bound * np.abs(w).sum(axis=1).max() * 2 + 1
            bound = int(np.ceil(bound))
            ops = ort_fused_ops(paths[qn])
            check(d.max() <= bound,
                  f"{qn}: vs onnxruntime optimized (runs {','.join(ops)}): {int((d == 0).sum())}/{d.size} outputs equal, "
                  f"max {d.max()} quanta (gain-propagated bound {bound})")

    print(f"{fails} failure(s)")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
