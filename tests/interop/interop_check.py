#!/usr/bin/env python3
"""armlower on .tosa files written by tosa-tools' own serializer, checked against its reference model.

Every file here is written at test time by `tosa_serializer` (tosa-tools 2026.8.0, the C++
serialization library's Python binding) in the forms other writers produce, and each one is
run in `tosa_reference_model` and in `armlower run` (plus `armlower check` / `inspect`):

 1. CLAMP with min_val/max_val padded to 8 bytes (as tosa-tools' test generator
    `tosa_build_gen.py` writes them) and longer (16 bytes, non-zero filler), for INT8, INT16,
    FP16, BF16 and FP32: armlower's outputs equal the reference model's bit for bit; bounds
    shorter than one value are refused by name (the reference model aborts on them).
 2. ExecuTorch 1.5.1's per-channel files: a per-channel int8 linear and a per-channel a16w8
    linear (CONV2D + per-channel RESCALE, 16 output channels) whose CONV2D weight zero point is
    16 bytes in a shape-[1] constant. First it is shown that the reference model reads element 0
    (the 16-byte file gives the same output as a 1-byte file holding element 0, and a different
    one from a file holding element 1); then armlower's output equals the reference model's bit
    for bit, with one warning on stderr naming the tensor.
 3. Non-SSA data flow (a tensor produced twice, a graph input overwritten, operators out of
    order, a cycle, an input never produced): armlower refuses each in run, check and inspect
    with one line naming the file's operator index and the tensor; graph inputs / outputs
    listed twice (which the reference model runs) give the reference model's outputs.
 4. The software version: a file armlower writes carries TosaGraph.software_version 2026.8.0,
    and the reference model no longer warns "created with version of SerLib before software
    version was encoded" (it still does for the same file without the field).

Exit 0: all pass; 1: a check failed; 77: tosa-tools / numpy / ml_dtypes missing (ctest SKIP).
Usage: interop_check.py --armlower <armlower tool> --emitter <serialize_emit_samples> --tmp DIR
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys

try:
    import numpy as np
    import ml_dtypes
    import tosa_serializer as ts
    from tosa.TosaGraph import TosaGraph
except ImportError as e:  # pragma: no cover
    print(f"SKIP: tosa-tools / numpy / ml_dtypes not importable ({e}); install tosa-tools==2026.8.0")
    sys.exit(77)

D = ts.DType
failures = []
ARGS = None


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)
    else:
        print("ok:  ", msg.splitlines()[0][:160])
    return cond


REF_RUNNER = r"""
import sys, numpy as np, tosa_reference_model as trm
buf = open(sys.argv[1], "rb").read()
ins = [np.load(p) for p in sys.argv[3:]]
outs, st = trm.run(buf, ins)
assert st == trm.GraphStatus.TOSA_VALID, st
np.savez(sys.argv[2], *outs)
"""


def ref_run(path, inputs):
    """Outputs of the reference model (in a child process: it aborts on some inputs)."""
    paths = []
    for k, x in enumerate(inputs):
        p = f"{path}.in{k}.npy"
        np.save(p, x)
        paths.append(p)
    out = path + ".ref.npz"
    r = subprocess.run([sys.executable, "-c", REF_RUNNER, path, out, *paths], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        return None
    z = np.load(out)
    return [z[f"arr_{k}"] for k in range(len(z.files))]


def armlower(*args):
    return subprocess.run([ARGS.armlower, *args], capture_output=True, text=True, timeout=120)


def armlower_run(path, inputs, n_out):
    ins, outs = [], []
    for k, x in enumerate(inputs):
        p = f"{path}.al_in{k}.npy"
        np.save(p, x)
        ins += ["-i", p]
    for k in range(n_out):
        outs += ["-o", f"{path}.al_out{k}.npy"]
    r = armlower("run", path, *ins, *outs)
    if r.returncode != 0:
        return None, r
    return [np.load(f"{path}.al_out{k}.npy") for k in range(n_out)], r


def same_bits(a, b):
    return a is not None and b is not None and len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes() for x, y in zip(a, b))


def write(name, buf):
    path = os.path.join(ARGS.tmp, name)
    with open(path, "wb") as f:
        f.write(bytes(buf))
    return path


def serializer(version=(1, 0, 0, False)):
    major, minor, patch, draft = version
    return ts.TosaSerializer("", targetMajor=major, targetMinor=minor, targetPatch=patch, targetDraft=draft)


# --- 1. CLAMP bounds padded as tosa-tools' test generator writes them ---------------------------

CLAMP_TYPES = {  # dtype: (numpy type, bound bytes view, lo, hi, input, spec)
    "INT8": (np.int8, np.uint8, -3, 5, [-100, -2, 3, 100], "TOSA-1.0+INT"),
    "INT16": (np.int16, np.uint8, -300, 500, [-1000, -2, 3, 1000], "TOSA-1.0+INT+int16"),
    "FP16": (np.float16, np.uint8, -1.5, 2.5, [-1000, -2, 0.25, 1000], "TOSA-1.0+FP"),
    "BF16": (ml_dtypes.bfloat16, np.uint8, -1.5, 2.5, [-1000, -2, 0.25, 1000], "TOSA-1.0+FP+bf16"),
    "FP32": (np.float32, np.uint8, -1.5, 2.5, [-1000, -2, 0.25, 1000], "TOSA-1.0+FP"),
}


def clamp_file(dt, n_bytes, filler):
    np_t, _, lo, hi, _, _ = CLAMP_TYPES[dt]
    ser = serializer()
    blk = ser.currRegion.currBasicBlock
    blk.addTensor("x", [4], getattr(D, dt))
    blk.addTensor("y", [4], getattr(D, dt))
    blk.addInput("x")
    blk.addOutput("y")

    def raw(v):
        b = list(np.array([v], dtype=np_t).view(np.uint8))
        b = b[:n_bytes]
        return b + [filler] * (n_bytes - len(b))

    attr = ts.TosaSerializerAttribute()
    attr.ClampAttribute(raw(lo), raw(hi), ts.NanPropagationMode.PROPAGATE)
    ser.addOperator(ts.Op.CLAMP, ["x"], ["y"], attr)
    return ser.serialize()


def test_clamp():
    for dt, (np_t, _, lo, hi, xin, spec) in CLAMP_TYPES.items():
        x = np.array(xin).astype(np_t)
        for n_bytes, filler in ((8, 0), (16, 0x55)):
            path = write(f"clamp_{dt}_{n_bytes}.tosa", clamp_file(dt, n_bytes, filler))
            if dt == "BF16":  # armlower's .npy reader has no bfloat16: reading only (values: tests/serialize)
                r = armlower("inspect", path)
            else:
                ref = ref_run(path, [x])
                got, r = armlower_run(path, [x], 1)
            check(dt == "BF16" or ref is not None and same_bits(got, ref),
                  f"CLAMP {dt} bounds in {n_bytes} bytes: armlower run == reference model "
                  f"({None if got is None else got[0].tolist()} vs {None if ref is None else ref[0].tolist()}) "
                  if dt != "BF16" else f"CLAMP BF16 bounds in {n_bytes} bytes: read "
                  f"{r.stderr.strip()}")
            warned = "max_val of input 'x'" in r.stderr and "as the TOSA reference model does" in r.stderr
            check(warned == (n_bytes > 8), f"CLAMP {dt} {n_bytes} bytes: warning only beyond the 8-byte padding")
            c = armlower("check", "--spec", spec, path)
            check(c.returncode == 0 and "legal" in c.stdout, f"CLAMP {dt} {n_bytes} bytes: check {spec} says legal "
                                                              f"({c.stdout.strip()} {c.stderr.strip()})")
            i = armlower("inspect", path)
            check(i.returncode == 0, f"CLAMP {dt} {n_bytes} bytes: inspect reads it")
        if dt in ("INT16", "FP32"):  # shorter than one value: the reference model aborts; armlower refuses
            path = write(f"clamp_{dt}_short.tosa", clamp_file(dt, 1, 0))
            for cmd in (["inspect", path], ["check", "--spec", spec, path]):
                r = armlower(*cmd)
                check(r.returncode != 0 and r.stderr.count("\n") == 1 and
                      "reader: model op #0 CLAMP: min_val of input 'x'" in r.stderr and "has 1 bytes" in r.stderr,
                      f"CLAMP {dt} 1-byte bounds: `{cmd[0]}` refuses by op and tensor: {r.stderr.strip()}")


# --- 2. ExecuTorch 1.5.1's per-channel weight zero point: N bytes in a shape-[1] constant -------

def per_channel_linear(kind, wzp_bytes, seed=7):
    """x [1,1,1,Cin] -> CONV2D (per-channel weights) -> RESCALE per channel -> y, as ExecuTorch's
    Arm backend lowers a per-channel linear; the weight zero point is `wzp_bytes` in shape [1]."""
    rng = np.random.default_rng(seed)
    cout, cin = 16, 24
    a16 = kind == "a16w8"
    ser = serializer()
    blk = ser.currRegion.currBasicBlock
    x_t, acc_t = (D.INT16, D.INT48) if a16 else (D.INT8, D.INT32)
    blk.addTensor("x", [1, 1, 1, cin], x_t)
    blk.addInput("x")
    ser.addConst([cout, 1, 1, cin], D.INT8, rng.integers(-127, 128, size=(cout, 1, 1, cin), dtype=np.int8), name="w")
    if a16:
        ser.addConst([cout], D.INT48, rng.integers(-2**22, 2**22, size=cout, dtype=np.int64), name="b")
        ser.addConst([1], D.INT16, np.array([0], np.int16), name="x_zp")
    else:
        ser.addConst([cout], D.INT32, rng.integers(-5000, 5000, size=cout, dtype=np.int32), name="b")
        ser.addConst([1], D.INT8, np.array([-5], np.int8), name="x_zp")
    ser.addConst([1], D.INT8, np.array(wzp_bytes, np.int8), name="w_zp")  # shape [1], len(wzp_bytes) bytes
    blk.addTensor("acc", [1, 1, 1, cout], acc_t)
    attr = ts.TosaSerializerAttribute()
    attr.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, acc_t)
    ser.addOperator(ts.Op.CONV2D, ["x", "w", "b", "x_zp", "w_zp"], ["acc"], attr)
    if a16:
        ser.addConst([cout], D.INT16, rng.integers(2**14, 2**15, size=cout, dtype=np.int16), name="mult")
        ser.addConst([cout], D.INT8, rng.integers(24, 28, size=cout, dtype=np.int8), name="shift")
        ser.addConst([1], D.INT48, np.array([0], np.int64), name="acc_zp")
        ser.addConst([1], D.INT16, np.array([0], np.int16), name="y_zp")
        blk.addTensor("y", [1, 1, 1, cout], D.INT16)
    else:
        ser.addConst([cout], D.INT32, rng.integers(2**30, 2**31 - 1, size=cout, dtype=np.int32), name="mult")
        ser.addConst([cout], D.INT8, rng.integers(40, 44, size=cout, dtype=np.int8), name="shift")
        ser.addConst([1], D.INT32, np.array([0], np.int32), name="acc_zp")
        ser.addConst([1], D.INT8, np.array([3], np.int8), name="y_zp")
        blk.addTensor("y", [1, 1, 1, cout], D.INT8)
    attr = ts.TosaSerializerAttribute()
    attr.RescaleAttribute(not a16, ts.RoundingMode.SINGLE_ROUND, True, False, False)
    ser.addOperator(ts.Op.RESCALE, ["acc", "mult", "shift", "acc_zp", "y_zp"], ["y"], attr)
    blk.addOutput("y")
    return ser.serialize()


def test_per_channel():
    rng = np.random.default_rng(11)
    for kind, spec in (("int8", "TOSA-1.0+INT"), ("a16w8", "TOSA-1.0+INT+int16")):
        if kind == "a16w8":
            x = rng.integers(-32768, 32768, size=(1, 1, 1, 24), dtype=np.int16)
        else:
            x = rng.integers(-128, 128, size=(1, 1, 1, 24), dtype=np.int8)
        # What the reference model reads: element 0 of the N bytes.
        probe = write(f"pc_{kind}_probe16.tosa", per_channel_linear(kind, [2] + [9] * 15))
        one0 = write(f"pc_{kind}_probe_e0.tosa", per_channel_linear(kind, [2]))
        one1 = write(f"pc_{kind}_probe_e1.tosa", per_channel_linear(kind, [9]))
        r16, r0, r1 = ref_run(probe, [x]), ref_run(one0, [x]), ref_run(one1, [x])
        check(r16 is not None and same_bits(r16, r0) and not same_bits(r16, r1),
              f"{kind}: the reference model reads element 0 of a 16-byte shape-[1] weight zero point")
        got, r = armlower_run(probe, [x], 1)
        check(same_bits(got, r16), f"{kind}: armlower run == reference model on the probe file {r.stderr.strip()}")
        # ExecuTorch's form: 16 zero bytes (symmetric per-channel weights).
        path = write(f"pc_{kind}_executorch.tosa", per_channel_linear(kind, [0] * 16))
        ref = ref_run(path, [x])
        got, r = armlower_run(path, [x], 1)
        check(ref is not None and same_bits(got, ref),
              f"{kind} per-channel (ExecuTorch layout): armlower run == reference model, bit-exact "
              f"({None if got is None else got[0].ravel()[:6].tolist()}...)")
        lines = [l for l in r.stderr.splitlines() if "warning" in l]
        check(len(lines) == 1 and "tensor 'w_zp' INT8 [1]: constant data has 16 bytes, 1 needed" in lines[0],
              f"{kind}: one warning line naming the tensor: {lines}")
        c = armlower("check", "--spec", spec, path)
        check(c.returncode == 0, f"{kind}: check {spec} accepts it ({c.stdout.strip()} {c.stderr.strip()})")


# --- 3. Data flow: SSA and order ---------------------------------------------------------------

def dataflow_file(inputs, ops, outputs):
    ser = serializer()
    blk = ser.currRegion.currBasicBlock
    seen = []
    for n in inputs + [n for o in ops for n in o] + outputs:
        if n not in seen:
            seen.append(n)
            blk.addTensor(n, [4], D.INT32)
    for n in inputs:
        blk.addInput(n)
    for a, b, y in ops:
        attr = ts.TosaSerializerAttribute()
        attr.AddAttribute()
        ser.addOperator(ts.Op.ADD, [a, b], [y], attr)
    for n in outputs:
        blk.addOutput(n)
    return ser.serialize()


DATAFLOW_REFUSED = {  # name: (inputs, ops, outputs, expected message)
    "produced_twice": (["x"], [("x", "x", "y"), ("y", "x", "y")], ["y"],
                       "model op #1 ADD, tensor 'y': output 0 is already produced by operator 0 (ADD)"),
    "produced_twice_2": (["x"], [("x", "x", "z"), ("x", "x", "y"), ("y", "y", "z")], ["z"],
                         "model op #2 ADD, tensor 'z': output 0 is already produced by operator 0 (ADD)"),
    "input_overwritten": (["x"], [("x", "x", "x")], ["x"],
                          "model op #0 ADD, tensor 'x': output 0 is graph input 0"),
    "out_of_order": (["x"], [("y", "x", "z"), ("x", "x", "y")], ["z"],
                     "model op #0 ADD, tensor 'y': input 0 is produced only by the later operator 1 (ADD)"),
    "cycle": (["x"], [("z", "x", "y"), ("y", "x", "z")], ["z"],
              "model op #0 ADD, tensor 'z': input 0 is produced only by the later operator 1 (ADD)"),
    "self_cycle": (["x"], [("y", "x", "y")], ["y"], "model op #0 ADD, tensor 'y': input 0 is its own output (a cycle)"),
    "never_produced": (["x"], [("w", "x", "y")], ["y"], "model op #0 ADD, tensor 'w': input 0 is never produced"),
}


def test_dataflow():
    x_npy = os.path.join(ARGS.tmp, "dataflow_x.npy")
    np.save(x_npy, np.array([1, 2, 3, 4], np.int32))
    for name, (ins, ops, outs, msg) in DATAFLOW_REFUSED.items():
        path = write(f"dataflow_{name}.tosa", dataflow_file(ins, ops, outs))
        for cmd in (["run", path, "-i", x_npy], ["check", "--spec", "TOSA-1.0+INT", path], ["inspect", path]):
            r = armlower(*cmd)
            check(r.returncode != 0 and r.stderr.count("\n") == 1 and msg in r.stderr,
                  f"{name}: `{cmd[0]}` refuses it in one line: {r.stderr.strip()}")
    # What the reference model runs: graph inputs or outputs listed twice.
    path = write("dataflow_input_twice.tosa", dataflow_file(["x", "x"], [("x", "x", "y")], ["y"]))
    a, b = np.array([1, 2, 3, 4], np.int32), np.array([10, 20, 30, 40], np.int32)
    ref = ref_run(path, [a, b])
    got, r = armlower_run(path, [a, b], 1)
    check(ref is not None and same_bits(got, ref) and "graph input 'x' is listed twice" in r.stderr,
          f"input listed twice: armlower run == reference model (last value), with a warning "
          f"({None if got is None else got[0].tolist()})")
    path = write("dataflow_output_twice.tosa", dataflow_file(["x"], [("x", "x", "y")], ["y", "y"]))
    ref = ref_run(path, [a])
    got, r = armlower_run(path, [a], 2)
    check(ref is not None and same_bits(got, ref), "output listed twice: armlower run == reference model")


# --- 4. Software version -----------------------------------------------------------------------

def test_software_version():
    ref_cli = shutil.which("tosa_reference_model")
    samples = os.path.join(ARGS.tmp, "samples")
    os.makedirs(samples, exist_ok=True)
    subprocess.run([ARGS.emitter, samples], check=True, capture_output=True)
    desc = json.load(open(os.path.join(samples, "int8_matmul.json")))
    path = os.path.join(samples, "int8_matmul.tosa")
    buf = open(path, "rb").read()
    sv = TosaGraph.GetRootAs(buf, 0).SoftwareVersion()
    check(sv is not None and (sv._Major(), sv._Minor(), sv._Micro(), sv._Modifier()) == (2026, 8, 0, b""),
          "armlower writes software_version 2026.8.0 (modifier '')")
    if ref_cli is None:
        print("note: tosa_reference_model CLI not on PATH; its message is not checked")
        return
    by_name = {t["name"]: t for t in desc["tensors"]}
    rng = np.random.default_rng(3)
    ins = []
    for n in desc["inputs"]:
        t = by_name[n]
        p = os.path.join(samples, n + ".npy")
        np.save(p, rng.integers(-128, 128, size=t["shape"], dtype=np.int8))
        ins.append(p)
    outs = [os.path.join(samples, n + ".out.npy") for n in desc["outputs"]]
    r = subprocess.run([ref_cli, "--tosa_file=" + path, "--ifm_name=" + ",".join(desc["inputs"]),
                        "--ifm_file=" + ",".join(ins), "--ofm_name=" + ",".join(desc["outputs"]),
                        "--ofm_file=" + ",".join(outs)], capture_output=True, text=True, timeout=120)
    text = r.stdout + r.stderr
    check(r.returncode == 0 and "SerLib" not in text,
          f"the reference model runs armlower's file without a SerLib version message: {text.strip()[:200]}")
    # The same file without the field warns. The root table gets a copy of its vtable, appended
    # to the buffer, with slot 2 (software_version) zeroed (vtables may be shared, so the
    # original is left alone).
    b = bytearray(buf)
    table = struct.unpack_from("<I", b, 0)[0]
    vtable = table - struct.unpack_from("<i", b, table)[0]
    vt_size = struct.unpack_from("<H", b, vtable)[0]
    check(vt_size >= 4 + 2 * 3, "TosaGraph's vtable has slot 2")
    new_vt = bytearray(b[vtable:vtable + vt_size])
    struct.pack_into("<H", new_vt, 4 + 2 * 2, 0)
    b += bytes((-len(b)) % 4)
    pos = len(b)
    b += new_vt
    struct.pack_into("<i", b, table, table - pos)
    check(TosaGraph.GetRootAs(bytes(b), 0).SoftwareVersion() is None and
          TosaGraph.GetRootAs(bytes(b), 0).RegionsLength() == 1, "software_version removed, the rest intact")
    stripped = os.path.join(samples, "int8_matmul_no_sw.tosa")
    open(stripped, "wb").write(b)
    r = subprocess.run([ref_cli, "--tosa_file=" + stripped, "--ifm_name=" + ",".join(desc["inputs"]),
                        "--ifm_file=" + ",".join(ins), "--ofm_name=" + ",".join(desc["outputs"]),
                        "--ofm_file=" + ",".join(outs)], capture_output=True, text=True, timeout=120)
    check("before software version was encoded" in r.stdout + r.stderr,
          "without the field the reference model warns 'before software version was encoded'")
    a = armlower("inspect", stripped)
    check(a.returncode == 0 and "warning" not in a.stderr, "armlower reads the file without the field")


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--armlower", required=True)
    ap.add_argument("--emitter", required=True)
    ap.add_argument("--tmp", required=True)
    ARGS = ap.parse_args()
    os.makedirs(ARGS.tmp, exist_ok=True)
    try:
        import tosa_reference_model  # noqa: F401
    except ImportError as e:
        print(f"SKIP: tosa_reference_model not importable ({e})")
        return 77
    test_clamp()
    test_per_channel()
    test_dataflow()
    test_software_version()
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all interop checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
