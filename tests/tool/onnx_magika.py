"""A real ONNX model nobody on the project wrote: magika 1.0.x (PyPI, Apache-2.0),
magika/models/standard_v3_3/model.onnx (opset 15; 2 MatMul among LayerNorm, GELU-tanh, Conv,
pooling). Fetched at test time with `pip download magika==1.0.* --no-deps` (never committed).

  1. `armlower lower` of the whole model (onnx.shape_inference first: the file carries no
     value_info, and the MatMul inputs come from nodes armlower does not lower): both
     MatMul(+Add) regions are lowered (mxfp8_e4m3 takes several regions in one graph), every
     other node is listed by index, op type, name and reason; the lowering time is printed.
  2. Each region cut out (onnx.utils.extract_model) and lowered per scheme (int8, a16w8 with the
     region input's onnxruntime values as --calib; mxfp8_e4m3): armlower's output for the region
     input onnxruntime computes (intermediates exposed as extra graph outputs) vs onnxruntime's
     value of the region output: integer schemes within the numpy emulation's SQNR - 6 dB (as in
     onnx_check.py), mxfp8 >= 25 dB; the TOSA reference model equals `armlower run` bit for bit
     (integer schemes) or within 1e-5 relative (mxfp8: the fp32 accumulation order is free).
Usage: onnx_magika.py ARMLOWER_TOOL WORK_DIR. Exit 77 = skipped (oracles missing, or pip cannot
fetch the wheel)."""
import glob
import json
import os
import subprocess
import sys
import time
import zipfile

try:
    import numpy as np
    import onnx
    import onnx.utils
    import onnxruntime as ort
except ImportError as e:
    print(f"skipping: {e}")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_check as oc  # noqa: E402
from onnx_models import emulate, float_layers, sqnr  # noqa: E402

tool, work = sys.argv[1:3]
oc.setup(tool, work)
wheel_dir = os.path.join(work, "wheel")
os.makedirs(wheel_dir, exist_ok=True)
if not glob.glob(os.path.join(wheel_dir, "magika-1.0.*.whl")):
    r = subprocess.run([sys.executable, "-m", "pip", "download", "magika==1.0.*", "--no-deps", "-d", wheel_dir, "-q",
                        "--disable-pip-version-check"], capture_output=True, text=True)
    if r.returncode != 0:
        print("skipping: pip could not fetch magika:", r.stderr.strip()[-300:])
        sys.exit(77)
whl = sorted(glob.glob(os.path.join(wheel_dir, "magika-1.0.*.whl")))[-1]
with zipfile.ZipFile(whl) as z:
    z.extract("magika/models/standard_v3_3/model.onnx", work)
src = os.path.join(work, "magika/models/standard_v3_3/model.onnx")
print(f"{os.path.basename(whl)}, onnx {onnx.__version__}, onnxruntime {ort.__version__}")
model = onnx.shape_inference.infer_shapes(onnx.load(src))
full = os.path.join(work, "magika_shapes.onnx")
onnx.save(model, full)

# 1. the whole model
out = os.path.join(work, "magika_mxfp8.tosa")
t0 = time.perf_counter()
r = subprocess.run([tool, "-q", "lower", full, "--spec", "TOSA-1.1+FP+mxfp", "--scheme", "mxfp8_e4m3", "-o", out, "--json"],
                   capture_output=True, text=True)
ms = (time.perf_counter() - t0) * 1000
j = json.loads(r.stdout) if r.returncode == 0 else {}
lowered_nodes = len(model.graph.node) - len(j.get("left_out", []))
oc.check(r.returncode == 0 and len(j["left_out"]) == len(model.graph.node) - 4,
         f"magika: {lowered_nodes} of {len(model.graph.node)} nodes lowered (2 MatMul + 2 Add), "
         f"{len(j.get('left_out', []))} listed; armlower lower took {ms:.0f} ms (process wall time) {r.stderr.strip()[:300]}")
node_ops = {i: n.op_type for i, n in enumerate(model.graph.node)}
listed = {x["index"] for x in j.get("left_out", [])}
oc.check({i for i in node_ops if i not in listed} == {i for i, op in node_ops.items() if op == "MatMul"} |
         {i + 1 for i, op in node_ops.items() if op == "MatMul"},
         "the lowered nodes are exactly the MatMuls and the bias Adds after them")
oc.check(all(x["op"].startswith(node_ops[x["index"]] + " '") and x["reason"] for x in j.get("left_out", [])),
         "every listed node has its op type, name and a reason")

# 2. each region on its own, against onnxruntime's intermediates
regions = []
for i, n in enumerate(model.graph.node):
    if n.op_type == "MatMul":
        regions.append((n.input[0], model.graph.node[i + 1].output[0]))
names = sorted({v for reg in regions for v in reg})
exposed = onnx.ModelProto()
exposed.CopyFrom(model)
for v in names:
    exposed.graph.output.append(onnx.helper.make_empty_tensor_value_info(v))
exp_path = os.path.join(work, "magika_exposed.onnx")
onnx.save(exposed, exp_path)
sess = ort.InferenceSession(exp_path, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(3)


def samples(k):
    """k inputs like magika's: file bytes (here random text-like bytes) padded with 256."""
    x = np.full((k, 2048), 256, np.int32)
    for r in range(k):
        n = int(rng.integers(200, 2048))
        x[r, :n] = rng.integers(32, 127, n)
    return x


def intermediates(x):
    outs = sess.run(names, {"bytes": x})
    return dict(zip(names, outs))


cal, test = intermediates(samples(16)), intermediates(samples(4))
SCHEMES = {"int8": "TOSA-1.0+INT", "a16w8": "TOSA-1.0+INT+int16", "mxfp8_e4m3": "TOSA-1.1+FP+mxfp"}
for k, (rin, rout) in enumerate(regions):
    sub = os.path.join(work, f"region{k}.onnx")
    onnx.utils.extract_model(full, sub, [rin], [rout])
    layers = float_layers(onnx.load(sub))
    xcal, x, y_ort = cal[rin], test[rin], test[rout].astype(np.float64)
    calib = os.path.join(work, f"region{k}_calib.npy")
    np.save(calib, xcal.reshape(-1, xcal.shape[-1]).astype(np.float32))
    for scheme, spec in SCHEMES.items():
        t = os.path.join(work, f"region{k}_{scheme}.tosa")
        extra = ["--calib", calib] if scheme != "mxfp8_e4m3" else []
        t0 = time.perf_counter()
        rep = oc.lower(sub, spec, t, "--scheme", scheme, *extra)
        ms = (time.perf_counter() - t0) * 1000
        if rep is None:
            continue
        mx = scheme.startswith("mx")
        y, exact, o = oc.armlower_outputs(t, rep, x, rtol=1e-5 if mx else 0.0)
        if y is None:
            continue
        q = sqnr(y_ort.reshape(y.shape), y)
        if scheme == "mxfp8_e4m3":
            bound = 25.0
            note = "bound 25 dB"
        else:
            y_emu, _ = emulate(layers, x, xcal, scheme)
            bound = sqnr(y_ort.reshape(-1), y_emu.reshape(-1)) - 6
            note = f"emulation {bound + 6:.1f} dB"
        oc.check(exact, f"magika region {k} ({rin.split('/')[-1]} -> {rout.split('/')[-1]}) {scheme}: "
                        f"reference model == armlower run ({'within 1e-5 relative' if mx else 'bit-exact'})")
        oc.check(q >= bound, f"magika region {k} {scheme}: SQNR {q:.1f} dB vs onnxruntime ({note}), "
                             f"max|err| {np.abs(y - y_ort.reshape(y.shape)).max():.4g}; lowered in {ms:.0f} ms")

print(f"{oc.fails} failure(s)")
sys.exit(1 if oc.fails else 0)
