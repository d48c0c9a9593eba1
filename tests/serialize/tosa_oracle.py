#!/usr/bin/env python3
"""Checks armlower's .tosa files against tosa-tools (the TOSA reference model and serializer).

For every sample graph written by `serialize_emit_samples` (a <name>.tosa from armlower's
writer and a neutral <name>.json description of the same graph), this script
  1. rebuilds the graph from the JSON with tosa-tools' own serializer (`tosa_serializer`);
  2. compares the two files table by table with tosa-tools' generated flatbuffers reader
     (`import tosa`): version, tensors (name, shape, type, constant bytes; armlower pads data
     to 8 bytes with zeros, tosa_serializer may not), operators (op, attribute type, operands,
     every attribute field), block inputs/outputs;
  3. runs both files in the reference model (`tosa_reference_model.run`) on the same random
     inputs: both must return TOSA_VALID and identical output bytes;
  4. reads tosa_serializer's files with armlower's reader and rewrites them: the bytes must
     equal armlower's own file.
It also prints the wire encodings tosa-tools uses for the 1.1 types (FP6/FP4/E8M0/MXINT8).

Exit code 0: all checks pass; 1: a check failed; 77: tosa-tools missing (ctest SKIP).
Usage: tosa_oracle.py --emitter <path to serialize_emit_samples> [--keep DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import ml_dtypes
    import tosa_reference_model as trm
    import tosa_serializer as ts
    import tosa  # flatc-generated python reader shipped with tosa-tools
    import tosa.Attribute
    from tosa.TosaGraph import TosaGraph
except ImportError as e:  # pragma: no cover
    print(f"SKIP: tosa-tools / numpy / ml_dtypes not importable ({e}); install tosa-tools==2026.8.0")
    sys.exit(77)

D = ts.DType
CODE_VIEWS = {
    "FP8E4M3": ml_dtypes.float8_e4m3fn,
    "FP8E5M2": ml_dtypes.float8_e5m2,
    "FP6E2M3": ml_dtypes.float6_e2m3fn,
    "FP6E3M2": ml_dtypes.float6_e3m2fn,
    "FP4E2M1": ml_dtypes.float4_e2m1fn,
    "FP8UE8M0": ml_dtypes.float8_e8m0fnu,
}
INT_TYPES = {"BOOL": np.bool_, "INT4": np.int8, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "INT48": np.int64,
             "SHAPE": np.int64, "INT64": np.int64}

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)
    return cond


def values(t):
    shape = t["shape"]
    if "ints" in t:
        return np.array(t["ints"], dtype=INT_TYPES[t["dtype"]]).reshape(shape)
    if "f32" in t:
        return np.array(t["f32"], dtype=np.float32).reshape(shape)
    codes = np.array(t["codes"], dtype=np.uint8).reshape(shape)
    if t["dtype"] == "MXINT8":
        return codes.view(np.int8)
    return codes.view(CODE_VIEWS[t["dtype"]])


def rebuild(desc):
    """The same graph, serialized by tosa-tools."""
    major, minor, patch, draft = desc["version"]
    ser = ts.TosaSerializer("", targetMajor=major, targetMinor=minor, targetPatch=patch, targetDraft=draft)
    block = ser.currRegion.currBasicBlock
    # armlower writes the CONST_SHAPE ops first, then the CONST ops: add SHAPE constants first.
    ordered = [t for t in desc["tensors"] if t["dtype"] == "SHAPE"] + \
              [t for t in desc["tensors"] if t["dtype"] != "SHAPE"]
    for t in ordered:
        dt = getattr(D, t["dtype"])
        if any(k in t for k in ("ints", "f32", "codes")):
            ser.addConst(t["shape"], dt, values(t), name=t["name"])  # adds the CONST/CONST_SHAPE op
        else:
            block.addTensor(t["name"], t["shape"], dt)
    for n in desc["inputs"]:
        block.addInput(n)
    for n in desc["outputs"]:
        block.addOutput(n)
    dtypes = {t["name"]: t["dtype"] for t in desc["tensors"]}
    for o in desc["operators"]:
        a, attr = o["attr"], ts.TosaSerializerAttribute()
        op = o["op"]
        if op == "CONV2D":
            attr.Conv2dAttribute(a["pad"], a["stride"], a["dilation"], a["local_bound"], getattr(D, a["acc_type"]))
        elif op == "RESCALE":
            attr.RescaleAttribute(a["scale32"], ts.RoundingMode(a["rounding_mode"]), a["per_channel"],
                                  a["input_unsigned"], a["output_unsigned"])
        elif op == "TRANSPOSE":
            attr.TransposeAttribute(a["perms"])
        elif op == "CLAMP":
            np_t = {"INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "FP16": np.float16,
                    "BF16": ml_dtypes.bfloat16, "FP32": np.float32}[dtypes[o["inputs"][0]]]
            lo = list(np.array(a["min_val"], dtype=np_t).view(np.uint8))
            hi = list(np.array(a["max_val"], dtype=np_t).view(np.uint8))
            attr.ClampAttribute(lo, hi, ts.NanPropagationMode(a["nan_mode"]))
        elif op in ("CAST_TO_BLOCK_SCALED", "CAST_FROM_BLOCK_SCALED", "MATMUL_T_BLOCK_SCALED"):
            assert a["block_size"] == 32
            name = {"CAST_TO_BLOCK_SCALED": "CastToBlockScaledAttribute",
                    "CAST_FROM_BLOCK_SCALED": "CastFromBlockScaledAttribute",
                    "MATMUL_T_BLOCK_SCALED": "MatMulTBlockScaledAttribute"}[op]
            getattr(attr, name)(ts.BlockSize.BLOCK_SIZE_32)
        else:
            camel = {"MATMUL": "MatMul"}.get(op, op.capitalize())
            getattr(attr, camel + "Attribute")()
        ser.addOperator(getattr(ts.Op, op), o["inputs"], o["outputs"], attr)
    return ser.serialize()


def strs(n, get):
    return [get(i).decode() for i in range(n)]


def attr_fields(op):
    """Every field of the operator's attribute table, via tosa-tools' generated accessors."""
    import importlib
    at = op.AttributeType()
    names = [n for n, v in vars(tosa.Attribute.Attribute).items() if v == at and not n.startswith("_")]
    if not names or op.Attribute() is None:
        return (at, None)
    cls = getattr(importlib.import_module("tosa." + names[0]), names[0])
    tbl = cls()
    tbl.Init(op.Attribute().Bytes, op.Attribute().Pos)
    out = {}
    for m in dir(tbl):
        if m.startswith("_") or m in ("Init",) or m.startswith("GetRootAs") or m.endswith("IsNone") \
                or m.endswith("Length") or m.endswith("AsNumpy") or m.endswith("BufferHasIdentifier"):
            continue
        f = getattr(tbl, m)
        if not callable(f):
            continue
        if hasattr(tbl, m + "Length"):
            out[m] = [f(i) for i in range(getattr(tbl, m + "Length")())]
        else:
            try:
                out[m] = f()
            except TypeError:
                pass
    return (at, out)


def structure(buf):
    g = TosaGraph.GetRootAs(buf, 0)
    v = g.Version()
    s = {"version": (v._Major(), v._Minor(), v._Patch(), v._Draft()), "regions": g.RegionsLength()}
    r = g.Regions(0)
    s["region"] = r.Name().decode()
    s["blocks"] = r.BlocksLength()
    b = r.Blocks(0)
    s["block"] = b.Name().decode()
    s["tensors"] = []
    for i in range(b.TensorsLength()):
        t = b.Tensors(i)
        data = bytes(t.DataAsNumpy().tobytes()) if t.DataLength() else b""
        s["tensors"].append((t.Name().decode(), list(t.ShapeAsNumpy()) if t.ShapeLength() else [], t.Type(), data))
    s["shapes"] = []
    for i in range(b.ShapesLength()):
        sh = b.Shapes(i)
        data = bytes(sh.DataAsNumpy().tobytes()) if sh.DataLength() else b""
        s["shapes"].append((sh.Name().decode(), sh.Rank(), data))
    s["operators"] = []
    for i in range(b.OperatorsLength()):
        o = b.Operators(i)
        s["operators"].append((o.Op(), strs(o.InputsLength(), o.Inputs), strs(o.OutputsLength(), o.Outputs),
                               attr_fields(o)))
    s["inputs"] = strs(b.InputsLength(), b.Inputs)
    s["outputs"] = strs(b.OutputsLength(), b.Outputs)
    return s


def compare(name, mine, ref):
    a, b = structure(mine), structure(ref)
    check(a["version"] == b["version"], f"{name}: version {a['version']} != tosa_serializer {b['version']}")
    for k in ("regions", "region", "blocks", "block", "inputs", "outputs", "shapes"):
        check(a[k] == b[k], f"{name}: {k} {a[k]} != {b[k]}")
    check(len(a["tensors"]) == len(b["tensors"]), f"{name}: tensor count")
    for ta, tb in zip(a["tensors"], b["tensors"]):
        n = ta[0]
        check(ta[:3] == tb[:3], f"{name}: tensor {n}: (name, shape, type) {ta[:3]} != {tb[:3]}")
        da, db = ta[3], tb[3]
        padded = (len(db) + 7) // 8 * 8
        check(da[:len(db)] == db and set(da[len(db):]) <= {0} and len(da) in (len(db), padded),
              f"{name}: tensor {n}: data {da.hex()} != tosa_serializer {db.hex()} (modulo zero padding)")
    check(len(a["operators"]) == len(b["operators"]), f"{name}: operator count")
    for i, (oa, ob) in enumerate(zip(a["operators"], b["operators"])):
        check(oa == ob, f"{name}: operator {i}: {oa} != tosa_serializer {ob}")


def random_input(t, rng):
    shape, dt = t["shape"], t["dtype"]
    if dt in ("INT8", "INT16"):
        info = np.iinfo(INT_TYPES[dt])
        return rng.integers(info.min, info.max + 1, size=shape, dtype=INT_TYPES[dt])
    if dt == "FP32":
        return (rng.standard_normal(shape) * 3).astype(np.float32)
    raise ValueError(f"no input generator for {dt}")


def run_both(name, desc, mine, ref, rng):
    by_name = {t["name"]: t for t in desc["tensors"]}
    inputs = [random_input(by_name[n], rng) for n in desc["inputs"]]
    out_a, st_a = trm.run(mine, inputs)
    out_b, st_b = trm.run(ref, inputs)
    check(st_a == trm.GraphStatus.TOSA_VALID, f"{name}: reference model status {st_a} for armlower's file")
    check(st_b == trm.GraphStatus.TOSA_VALID, f"{name}: reference model status {st_b} for tosa_serializer's file")
    for k, (x, y) in enumerate(zip(out_a, out_b)):
        check(x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(),
              f"{name}: output {k} differs between armlower's and tosa_serializer's file")
    return st_a


def report_encodings():
    conv = ts.TosaSerializer.convertDataToUint8Vec
    print("tosa-tools wire encodings (convertDataToUint8Vec):")
    for dt, vals in [("FP6E2M3", [1.0, -1.0, 7.5, 0.5]), ("FP6E3M2", [1.0, -1.0, 28.0, 0.25]),
                     ("FP4E2M1", [1.0, -1.0, 6.0, 0.5, 3.0]), ("FP8UE8M0", [1.0, 2.0, 0.5])]:
        arr = np.array(vals, dtype=CODE_VIEWS[dt])
        print(f"  {dt:9s} codes {[int(c) for c in arr.view(np.uint8)]} -> bytes {conv(getattr(D, dt), arr)}")
    print(f"  MXINT8    codes [1, 254] -> bytes {conv(D.MXINT8, np.array([1, -2], dtype=np.int8))}")
    print(f"  INT48     [1, -2] -> bytes {conv(D.INT48, np.array([1, -2], dtype=np.int64))}")
    # FP6 must be the packed little-endian bit stream armlower writes (detail/payload.hpp).
    check(conv(D.FP6E2M3, np.array([1.0, -1.0, 7.5, 0.5], dtype=ml_dtypes.float6_e2m3fn)) == [8, 250, 17],
          "FP6E2M3 wire packing changed")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emitter", required=True)
    ap.add_argument("--keep", help="directory to keep the files in")
    args = ap.parse_args()
    report_encodings()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or tmp
        os.makedirs(out, exist_ok=True)
        subprocess.run([args.emitter, out], check=True)
        rng = np.random.default_rng(20261122)
        names = sorted(f[:-5] for f in os.listdir(out) if f.endswith(".json"))
        check(len(names) >= 8, f"only {len(names)} sample files")
        for name in names:
            desc = json.load(open(os.path.join(out, name + ".json")))
            mine = open(os.path.join(out, name + ".tosa"), "rb").read()
            ref = rebuild(desc)
            compare(name, mine, ref)
            st = run_both(name, desc, mine, ref, rng)
            print(f"{name:24s} {len(mine):6d} bytes (tosa_serializer {len(ref):6d}): {st.name}")
            open(os.path.join(out, name + ".ref.tosa"), "wb").write(ref)
        # 4. armlower reads tosa-tools' files (2026.8.0 appends fields armlower's FBS-1.1 lacks)
        #    and rewrites them to exactly its own bytes.
        rr = subprocess.run([args.emitter, "--reread", out], capture_output=True, text=True)
        print(rr.stdout.strip(), rr.stderr.strip())
        check(rr.returncode == 0, "armlower could not read/rewrite tosa_serializer's files")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all files TOSA_VALID, structure and outputs equal to tosa_serializer's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
