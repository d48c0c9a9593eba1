"""`armlower lower/inspect model.onnx` on bad and partly supported input.

Bad input (each must give exit 1, exactly one stderr line "armlower: error: ..." naming the file and
the rule, and no output file): truncated file, random bytes, wrong opset, wrong ir_version, missing
external-data file, an external-data path escaping the model's folder, an initializer shorter than
its shape, a QDQ zero scale, a per-axis scale of the wrong length, a cycle, --strict on a model
with an unsupported node.
Good input: external data next to the model lowers to the same .tosa as inline data; an
unsupported node (Softmax, Sigmoid) is listed by index, op type, name and reason and the rest is
lowered.
Usage: onnx_bad_input.py ARMLOWER_TOOL WORK_DIR. Exit 77 = skipped (onnx missing)."""
import json
import os
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print(f"skipping: {e}")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_models  # noqa: E402

tool, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
fails = 0


def check(cond, msg):
    global fails
    print(("ok   " if cond else "FAIL ") + msg, flush=True)
    fails += 0 if cond else 1


def refused(path, must_contain, *extra, args=None):
    out = os.path.join(work, "out.tosa")
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([tool, "-q", *(args or ["lower", path, "--spec", "TOSA-1.0+INT", "-o", out]), *extra],
                       capture_output=True, text=True)
    # One "armlower: error: " line, last; further findings come first as "armlower: note: " lines.
    lines = r.stderr.strip().splitlines()
    ok = (r.returncode == 1 and len(lines) >= 1 and lines[-1].startswith("armlower: error: ")
          and all(l.startswith("armlower: note: ") for l in lines[:-1])
          and all(s in lines[-1] for s in must_contain) and not os.path.exists(out))
    check(ok, f"{os.path.basename(path)}: {lines[-1] if lines else '(no message)'} (rc {r.returncode})")


def save(m, name, **kw):
    p = os.path.join(work, name)
    onnx.save(m, p, **kw)
    return p


def mlp(**kw):
    return onnx_models.gemm_mlp(**kw)


base = save(mlp(), "base.onnx")
data = open(base, "rb").read()

p = os.path.join(work, "truncated.onnx")
open(p, "wb").write(data[: len(data) // 2])
refused(p, ["truncated.onnx", "protobuf parse failed"])

p = os.path.join(work, "random.onnx")
open(p, "wb").write(np.random.default_rng(5).integers(0, 256, 4096, dtype=np.uint8).tobytes())
refused(p, ["random.onnx", "not an ONNX model"])

m = mlp()
m.opset_import[0].version = 12
refused(save(m, "opset12.onnx"), ["opset 12", "13..21"])
m = mlp()
m.ir_version = 11
refused(save(m, "ir11.onnx"), ["ir_version 11", "7..10"])

# external data: valid, missing file, escaping path, short file
m = mlp()
onnx.save(m, os.path.join(work, "ext.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
          location="ext.bin", size_threshold=0)
out_ext, out_in = os.path.join(work, "ext.tosa"), os.path.join(work, "inline.tosa")
r1 = subprocess.run([tool, "-q", "lower", os.path.join(work, "ext.onnx"), "--spec", "TOSA-1.0+INT", "-o", out_ext],
                    capture_output=True)
r2 = subprocess.run([tool, "-q", "lower", base, "--spec", "TOSA-1.0+INT", "-o", out_in], capture_output=True)
check(r1.returncode == 0 and r2.returncode == 0 and open(out_ext, "rb").read() == open(out_in, "rb").read(),
      "external data (ext.bin next to the model) lowers to the same .tosa as inline data")
ext = onnx.load(os.path.join(work, "ext.onnx"), load_external_data=False)


def with_location(loc, name):
    e = onnx.ModelProto()
    e.CopyFrom(ext)
    for t in e.graph.initializer:
        for kv in t.external_data:
            if kv.key == "location":
                kv.value = loc
    p = os.path.join(work, name)
    with open(p, "wb") as f:
        f.write(e.SerializeToString())
    return p


refused(with_location("missing.bin", "ext_missing.onnx"), ["missing.bin", "does not exist"])
refused(with_location("../ext.bin", "ext_escape.onnx"), ["../ext.bin", "escapes the model's folder"])
refused(with_location("/etc/passwd", "ext_abs.onnx"), ["/etc/passwd", "absolute path"])
open(os.path.join(work, "short.bin"), "wb").write(open(os.path.join(work, "ext.bin"), "rb").read()[:100])
refused(with_location("short.bin", "ext_short.onnx"), ["short data"])

# initializer shorter than its shape
m = mlp()
w = m.graph.initializer[0]
w.raw_data = w.raw_data[: len(w.raw_data) - 4]
refused(save(m, "short_init.onnx"), ["initializer 'w1'", "bytes of raw_data", "needs"])

# QDQ: zero scale, scale of the wrong length
qdir = os.path.join(work, "q")
os.makedirs(qdir, exist_ok=True)
onnx_models.quantize(base, os.path.join(qdir, "s8.onnx"), "s8")
onnx_models.quantize(base, os.path.join(qdir, "s8pc.onnx"), "s8pc")
m = onnx.load(os.path.join(qdir, "s8.onnx"))
for t in m.graph.initializer:
    if t.name == "a1_scale":
        t.CopyFrom(numpy_helper.from_array(np.array(0.0, np.float32), "a1_scale"))
refused(save(m, "zero_scale.onnx"), ["a1_scale", "is 0", "finite and > 0"])
m = onnx.load(os.path.join(qdir, "s8pc.onnx"))
for t in m.graph.initializer:
    if t.name in ("w1_scale", "w1_zero_point"):  # both one short: 31 values for 32 channels
        v = numpy_helper.to_array(t)
        t.CopyFrom(numpy_helper.from_array(v[:-1].copy(), t.name))
refused(save(m, "scale_length.onnx"), ["w1_scale", "values for axis"])

# int16 activations without ActivationSymmetric (zero point != 0): refused naming the tensor
onnx_models.QUANT_CONFIGS["a16_asym"] = dict(activation_type="QInt16", weight_type="QInt8", per_channel=False, extra={})
onnx_models.quantize(base, os.path.join(qdir, "a16_asym.onnx"), "a16_asym")
refused(os.path.join(qdir, "a16_asym.onnx"), ["x_QuantizeLinear_Output", "INT16 activations must be symmetric"],
        args=["lower", os.path.join(qdir, "a16_asym.onnx"), "--spec", "TOSA-1.0+INT+int16", "-o",
              os.path.join(work, "out.tosa")])

# a cycle: fc1 reads relu1's output
m = mlp()
m.graph.node[0].input[0] = "a1"
p = os.path.join(work, "cycle.onnx")
open(p, "wb").write(m.SerializeToString())  # onnx.save would not check; the checker refuses cycles
refused(p, ["cycle"])

# an unsupported node: listed, the rest lowered; --strict refuses
m = mlp()
m.graph.node.append(helper.make_node("Softmax", ["y"], ["p"], name="softmax", axis=-1))
m.graph.output[0].CopyFrom(helper.make_tensor_value_info("p", TensorProto.FLOAT, ["N", 10]))
p = save(m, "softmax.onnx")
r = subprocess.run([tool, "-q", "lower", p, "--spec", "TOSA-1.0+INT", "-o", os.path.join(work, "sm.tosa"), "--json"],
                   capture_output=True, text=True)
j = json.loads(r.stdout) if r.returncode == 0 else {}
check(j.get("left_out") == [{"index": 3, "op": "Softmax 'softmax'", "reason": "no lowering for this operator"}],
      f"Softmax listed by index, op type, name and reason: {j.get('left_out')}")
outs = [x["name"] for x in j.get("report", {}).get("io", []) if x["role"] == "output"]
check(outs == ["y"], f"the lowered region ends at the Softmax's input 'y': {outs}")
refused(p, ["1 node(s) cannot be lowered", "#3 Softmax 'softmax' (no lowering for this operator)"], "--strict")
# a node name that is not UTF-8 (protobuf would log about it on stderr itself): no stray lines
raw = open(p, "rb").read().replace(b"softmax", b"soft\xffax")
p8 = os.path.join(work, "not_utf8.onnx")
open(p8, "wb").write(raw)
r = subprocess.run([tool, "-q", "lower", p8, "--spec", "TOSA-1.0+INT", "-o", os.path.join(work, "u8.tosa")],
                   capture_output=True)
check(r.returncode == 0 and r.stderr == b"" and b"Softmax 'soft\xffax'" in r.stdout,
      f"a non-UTF-8 node name: lowered, listed as stored, nothing on stderr: {r.stderr[:200]!r}")
r = subprocess.run([tool, "-q", "inspect", p], capture_output=True, text=True)
check(r.returncode == 0 and "#3 Softmax 'softmax'" in r.stdout and "[left out]" in r.stdout and "ONNX model" in r.stdout,
      "inspect lists the nodes with [lowered]/[left out]")
r = subprocess.run([tool, "-q", "inspect", p, "--json"], capture_output=True, text=True)
check(r.returncode == 0 and json.loads(r.stdout)["format"] == "onnx", "inspect --json reads .onnx")

print(f"{fails} failure(s)")
sys.exit(1 if fails else 0)
