"""Builds the ONNX test models of armlower's ONNX importer tests (tests/tool/onnx_check.py).

Made with onnx.helper (onnx 1.20.1) and quantized with onnxruntime 1.32.0's
`onnxruntime.quantization.quantize_static` (QDQ format); versions pinned in
scripts/requirements-onnx.txt. Nothing here is committed as a binary: the models are generated at
test time into a work folder.

Float models (ir_version 10, opset 17, symbolic batch dimension "N"):
  gemm_mlp      x[N,16] -> Gemm(transB=1, C) -> Relu -> Gemm(transB=0, alpha=0.5, beta=2, C) -> y[N,10]
  matmul_mlp    x[N,1,4,4] -> Flatten -> MatMul -> Add(b) -> Clip(0,6) -> MatMul -> Add(b) -> y[N,8]
  reshape_mlp   x[N,4,4] -> Reshape([-1,16]) -> Identity -> MatMul -> Add -> Relu -> Gemm(transB=1) -> y[N,6]
Quantized copies (onnxruntime quantize_static, QDQ, calibrated on `calibration(...)`):
  *_s8          int8 activations / int8 weights, per tensor
  *_s8pc        int8 / int8, weights per channel
  *_a16w8       int16 activations (ActivationSymmetric=True, zero point 0) / int8 weights
  *_u8          uint8 activations / int8 weights (the uint8 <-> int8 flip)
Usage as a script: onnx_models.py OUT_DIR  (writes every model)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 10
OPSET = 17


def _rng(seed):
    return np.random.default_rng(seed)


def _w(rng, *shape, scale=0.4):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _model(nodes, inputs, outputs, inits, name):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, producer_name="armlower-tests", opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = IR_VERSION
    onnx.checker.check_model(m)
    return m


def gemm_mlp(seed=1):
    r = _rng(seed)
    inits = {"w1": _w(r, 32, 16), "b1": _w(r, 32), "w2": _w(r, 32, 10), "b2": _w(r, 10)}
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h1"], name="fc1", transB=1),
        helper.make_node("Relu", ["h1"], ["a1"], name="relu1"),
        helper.make_node("Gemm", ["a1", "w2", "b2"], ["y"], name="fc2", alpha=0.5, beta=2.0),
    ]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 16])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], inits, "gemm_mlp")


def matmul_mlp(seed=2):
    r = _rng(seed)
    inits = {"w1": _w(r, 16, 24), "b1": _w(r, 24), "w2": _w(r, 24, 8), "b2": _w(r, 8),
             "lo": np.array(0, np.float32), "hi": np.array(6, np.float32)}
    nodes = [
        helper.make_node("Flatten", ["x"], ["xf"], name="flatten", axis=1),
        helper.make_node("MatMul", ["xf", "w1"], ["m1"], name="mm1"),
        helper.make_node("Add", ["m1", "b1"], ["h1"], name="add1"),
        helper.make_node("Clip", ["h1", "lo", "hi"], ["a1"], name="relu6"),
        helper.make_node("MatMul", ["a1", "w2"], ["m2"], name="mm2"),
        helper.make_node("Add", ["m2", "b2"], ["y"], name="add2"),
    ]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, 4, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8])], inits, "matmul_mlp")


def reshape_mlp(seed=3):
    r = _rng(seed)
    inits = {"shape": np.array([-1, 16], np.int64), "w1": _w(r, 16, 20), "b1": _w(r, 20), "w2": _w(r, 6, 20),
             "b2": _w(r, 6)}
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["xr"], name="reshape"),
        helper.make_node("Identity", ["xr"], ["xi"], name="identity"),
        helper.make_node("MatMul", ["xi", "w1"], ["m1"], name="mm1"),
        helper.make_node("Add", ["b1", "m1"], ["h1"], name="add1"),
        helper.make_node("Relu", ["h1"], ["a1"], name="relu1"),
        helper.make_node("Gemm", ["a1", "w2", "b2"], ["y"], name="fc2", transB=1),
    ]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 6])], inits, "reshape_mlp")


FLOAT_MODELS = {"gemm_mlp": gemm_mlp, "matmul_mlp": matmul_mlp, "reshape_mlp": reshape_mlp}


def input_shape(m, batch):
    d = m.graph.input[0].type.tensor_type.shape.dim
    return [batch] + [x.dim_value for x in d[1:]]


def calibration(m, rows=64, seed=7):
    return _rng(seed).uniform(-1, 1, input_shape(m, rows)).astype(np.float32)


QUANT_CONFIGS = {
    "s8": dict(activation_type="QInt8", weight_type="QInt8", per_channel=False, extra={}),
    "s8pc": dict(activation_type="QInt8", weight_type="QInt8", per_channel=True, extra={}),
    "a16w8": dict(activation_type="QInt16", weight_type="QInt8", per_channel=False,
                  extra={"ActivationSymmetric": True}),
    "u8": dict(activation_type="QUInt8", weight_type="QInt8", per_channel=False, extra={}),
}


def quantize(float_path, out_path, cfg):
    """quantize_static (QDQ) of the model at float_path on its calibration rows."""
    from onnxruntime import quantization as q
    m = onnx.load(float_path)
    x = calibration(m)
    name = m.graph.input[0].name

    class Reader(q.CalibrationDataReader):
        def __init__(self):
            self.it = iter([{name: x[i:i + 1]} for i in range(x.shape[0])])

        def get_next(self):
            return next(self.it, None)

    c = QUANT_CONFIGS[cfg]
    q.quantize_static(float_path, out_path, Reader(), quant_format=q.QuantFormat.QDQ,
                      activation_type=getattr(q.QuantType, c["activation_type"]),
                      weight_type=getattr(q.QuantType, c["weight_type"]), per_channel=c["per_channel"],
                      extra_options=dict(c["extra"]))


# numpy emulation of armlower's integer schemes on a float model (the bound of the float-model checks)
def float_layers(m):
    """The model as [("reshape", shape) | ("linear", W[out,in], b) | ("relu",) | ("relu6",)]."""
    init = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    out = []
    for n in m.graph.node:
        a = {x.name: onnx.helper.get_attribute_value(x) for x in n.attribute}
        if n.op_type in ("Flatten", "Reshape", "Identity"):
            out.append(("reshape",))
        elif n.op_type == "Gemm":
            w = init[n.input[1]] * a.get("alpha", 1.0)
            w = w if a.get("transB", 0) else w.T
            out.append(("linear", w, init[n.input[2]] * a.get("beta", 1.0)))
        elif n.op_type == "MatMul":
            out.append(("linear", init[n.input[1]].T, np.zeros(init[n.input[1]].shape[1], np.float32)))
        elif n.op_type == "Add":
            c = init[n.input[0]] if n.input[0] in init else init[n.input[1]]
            out[-1] = ("linear", out[-1][1], out[-1][2] + c)
        elif n.op_type == "Relu":
            out.append(("relu",))
        elif n.op_type == "Clip":
            out.append(("relu6",))
    return out


def emulate(layers, x, xcal, scheme, per_channel=False):
    """Fake-quantized forward pass: activations quantized at the input and after every
    linear+activation (ranges from xcal), weights symmetric int8 [-127, 127]."""
    def qparams(v):
        lo, hi = min(float(v.min()), 0.0), max(float(v.max()), 0.0)
        if scheme == "int8":
            s = (hi - lo) / 255 or 1.0
            return s, int(np.clip(round(-128 - lo / s), -128, 127)), -128, 127
        s = max(abs(lo), abs(hi)) / 32767 or 1.0
        return s, 0, -32768, 32767

    def fq(v, p):
        s, z, lo, hi = p
        return (np.clip(np.round(v / s) + z, lo, hi) - z) * s

    def fwd(v, params=None, collect=None):
        v = v.reshape(-1, next(L[1].shape[1] for L in layers if L[0] == 'linear'))  # rows of in_features
        k = 0
        v = fq(v, params[k]) if params else v
        if collect is not None:
            collect.append(qparams(v))
        for j, L in enumerate(layers):
            if L[0] == "linear":
                w = L[1]
                sw = (np.abs(w).max(axis=1, keepdims=True) if per_channel else np.abs(w).max()) / 127
                wq = np.clip(np.round(w / sw), -127, 127) * sw
                v = v @ (wq if params else w).T + L[2]
            elif L[0] == "relu":
                v = np.maximum(v, 0)
            elif L[0] == "relu6":
                v = np.clip(v, 0, 6)
            last = j + 1 == len(layers) or layers[j + 1][0] == "linear"
            if L[0] != "reshape" and last:
                k += 1
                if collect is not None:
                    collect.append(qparams(v))
                if params:
                    v = fq(v, params[k])
        return v

    ps = []
    fwd(xcal, None, ps)
    return fwd(x, ps), ps[-1][0]


def sqnr(ref, y):
    e = np.sum((ref - y) ** 2)
    return float("inf") if e == 0 else 10 * np.log10(np.sum(ref ** 2) / e)



def write_all(out):
    os.makedirs(out, exist_ok=True)
    paths = {}
    for n, f in FLOAT_MODELS.items():
        p = os.path.join(out, n + ".onnx")
        onnx.save(f(), p)
        paths[n] = p
        for cfg in QUANT_CONFIGS:
            qp = os.path.join(out, f"{n}_{cfg}.onnx")
            quantize(p, qp, cfg)
            paths[f"{n}_{cfg}"] = qp
    return paths


if __name__ == "__main__":
    for k, v in write_all(sys.argv[1]).items():
        print(k, v)
