#!/usr/bin/env python3
"""Generates tosa_ref.txt: RESCALE, CONV2D and MATMUL test cases evaluated by the TOSA reference
model (PyPI tosa-tools; `tosa_serializer` builds a one-operator TOSA 1.0 graph whose operands are all
constants, `tosa_reference_model.run` executes it). Only graphs the reference model reports as
TOSA_VALID are written. Used by tests/kernels/tosa_ref.test.cpp.

Usage: python3 tests/kernels/goldens/gen_tosa_goldens.py   (writes next to this script)

Format (whitespace separated; one case = a header line + one line per array):
  rescale in_t out_t scale32 rounding per_channel input_unsigned output_unsigned input_zp output_zp channels count
          multiplier[...] / shift[...] / input[count] / output[count]     (8/16-bit values as signed storage)
  (INT48 results are read back through an identity RESCALE to INT32, see to_i32)
  conv2d  row n ih iw ic oc kh kw bias_size pad_t pad_b pad_l pad_r stride_y stride_x dil_y dil_x input_zp weight_zp
          input / weight / bias / output      (row: i8 | i16 | f32; floats written with float.hex)
  matmul  row n h c w a_zp b_zp
          a / b / output
"""
import os
import sys
import warnings

import numpy as np
import tosa_reference_model as trm
import tosa_serializer as ts

warnings.filterwarnings("ignore")
rng = np.random.default_rng(20261122)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tosa_ref.txt")

DT = {"i8": (ts.DType.INT8, np.int8, 8), "i16": (ts.DType.INT16, np.int16, 16),
      "i32": (ts.DType.INT32, np.int32, 32), "i48": (ts.DType.INT48, np.int64, 48),
      "f32": (ts.DType.FP32, np.float32, 32)}


def new_ser():
    return ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)


def run(ser):
    outs, st = trm.run(ser.serialize(), [])
    ok = str(st).endswith("TOSA_VALID") and all(np.asarray(o).size > 0 for o in outs)
    return outs, ok


def to_i32(ser, name, shape):
    """Identity RESCALE INT48 -> INT32 (16-bit multiplier 2^14, shift 14; exact while |v| < 2^31):
    the Python binding of the reference model cannot return INT48 tensors."""
    m = ser.addConst([1], ts.DType.INT16, np.array([1 << 14], dtype=np.int16))
    s = ser.addConst([1], ts.DType.INT8, np.array([14], dtype=np.int8))
    iz = ser.addConst([1], ts.DType.INT48, np.array([0], dtype=np.int64))
    oz = ser.addConst([1], ts.DType.INT32, np.array([0], dtype=np.int32))
    out = ser.addOutput(shape, ts.DType.INT32)
    a = ts.TosaSerializerAttribute()
    a.RescaleAttribute(False, ts.RoundingMode.SINGLE_ROUND, False, False, False)
    ser.addOperator(ts.Op.RESCALE, [name, m.name, s.name, iz.name, oz.name], [out.name], a)


def rand_ints(n, bits, extreme=0.15):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    widths = rng.integers(0, bits, size=n)
    mags = np.array([int(rng.integers(0, 1 << int(w))) if w > 0 else 0 for w in widths], dtype=object)
    signs = rng.choice([-1, 1], size=n)
    v = [max(lo, min(hi, int(m) * int(s))) for m, s in zip(mags, signs)]
    for i in range(n):
        if rng.random() < extreme:
            v[i] = lo if rng.random() < 0.5 else hi
    return v


def fmt(vals, is_float=False):
    if is_float:
        return " ".join(float(np.float32(x)).hex() for x in np.ravel(vals))
    return " ".join(str(int(x)) for x in np.ravel(vals))


def rescale_case():
    while True:
        in_t = rng.choice(["i8", "i16", "i32", "i48"])
        out_t = rng.choice(["i8", "i16", "i32"])
        scale32 = in_t != "i48" and rng.random() < 0.75
        dbl = scale32 and rng.random() < 0.4
        small_io = in_t in ("i8", "i16") and out_t in ("i8", "i16")
        in_uns = small_io and rng.random() < 0.2
        out_uns = small_io and not in_uns and rng.random() < 0.25
        per_channel = rng.random() < 0.5
        channels = int(rng.integers(1, 6))
        count = channels * int(rng.integers(1, 9))
        bits = DT[in_t][2]
        x = rand_ints(count, bits)
        if in_t == "i32" and rng.random() < 0.3:
            x = rand_ints(count, 21)
        izp = 0
        if in_t == "i8":
            izp = int(rng.integers(-128, 128))
        if in_t == "i16" and in_uns and rng.random() < 0.7:
            izp = -32768  # bit pattern of the unsigned zero point 32768
        ozp = 0
        if out_t == "i8":
            ozp = int(rng.integers(-128, 128))
        if out_t == "i16" and out_uns and rng.random() < 0.7:
            ozp = -32768
        nm = channels if per_channel else 1
        mult, shift = [], []
        for _ in range(nm):
            if scale32:
                m = int(rng.integers(1 << 30, 1 << 31)) if rng.random() < 0.85 else int(rng.integers(0, 1 << 31))
                lo = {"i8": 11, "i16": 19, "i32": 33 if max(abs(v) for v in x) >= (1 << 20) else 23}[in_t]
                s = int(rng.integers(lo, 63))
            else:
                m = int(rng.integers(1 << 14, 1 << 15)) if rng.random() < 0.85 else int(rng.integers(0, 1 << 15))
                lo = 31 if in_t == "i48" else (2 if in_t != "i32" else 18)
                s = int(rng.integers(lo, 63))
            mult.append(m)
            shift.append(s)
        ser = new_ser()
        shape = [count // channels, channels]
        idt, inp_np, _ = DT[in_t]
        odt, out_np, _ = DT[out_t]
        inp = ser.addConst(shape, idt, np.array(x, dtype=inp_np).reshape(shape))
        m_c = ser.addConst([nm], ts.DType.INT32 if scale32 else ts.DType.INT16,
                           np.array(mult, dtype=np.int32 if scale32 else np.int16))
        s_c = ser.addConst([nm], ts.DType.INT8, np.array(shift, dtype=np.int8))
        iz = ser.addConst([1], idt, np.array([izp], dtype=inp_np))
        oz = ser.addConst([1], odt, np.array([ozp], dtype=out_np))
        out = ser.addOutput(shape, odt)
        a = ts.TosaSerializerAttribute()
        a.RescaleAttribute(bool(scale32), ts.RoundingMode.DOUBLE_ROUND if dbl else ts.RoundingMode.SINGLE_ROUND,
                           bool(per_channel), bool(in_uns), bool(out_uns))
        ser.addOperator(ts.Op.RESCALE, [inp.name, m_c.name, s_c.name, iz.name, oz.name], [out.name], a)
        try:
            outs, ok = run(ser)
        except ValueError:
            continue
        if not ok:
            continue
        head = (f"rescale {in_t} {out_t} {int(scale32)} {3 if dbl else 1} {int(per_channel)} {int(in_uns)} "
                f"{int(out_uns)} {izp} {ozp} {channels} {count}")
        y = np.asarray(outs[0]).astype(out_np)  # unsigned results as signed storage bit patterns
        return "\n".join([head, fmt(mult), fmt(shift), fmt(x), fmt(y)])


def conv_case(row, one_by_one):
    while True:
        n = int(rng.integers(1, 3))
        if one_by_one:
            ih, iw, kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4)), 1, 1
            ic = int(rng.choice([1, 3, 16, 17, 31, 32, 33, 64, 100, 257]))
            oc = int(rng.integers(1, 11))
            pad, stride, dil = [0, 0, 0, 0], [1, 1], [1, 1]
        else:
            ih, iw = int(rng.integers(1, 7)), int(rng.integers(1, 7))
            kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
            ic, oc = int(rng.integers(1, 9)), int(rng.integers(1, 6))
            pad = [int(p) for p in rng.integers(0, 3, size=4)]
            stride = [int(s) for s in rng.integers(1, 3, size=2)]
            dil = [int(d) for d in rng.integers(1, 3, size=2)]
        ny = ih - 1 + pad[0] + pad[1] - (kh - 1) * dil[0]
        nx = iw - 1 + pad[2] + pad[3] - (kw - 1) * dil[1]
        if ny < 0 or nx < 0:
            continue
        pad[1] += (-ny) % stride[0]
        pad[3] += (-nx) % stride[1]
        ny = ih - 1 + pad[0] + pad[1] - (kh - 1) * dil[0]
        nx = iw - 1 + pad[2] + pad[3] - (kw - 1) * dil[1]
        oh, ow = ny // stride[0] + 1, nx // stride[1] + 1
        bc = oc if rng.random() < 0.8 else 1
        ishape, wshape = [n, ih, iw, ic], [oc, kh, kw, ic]
        izp = wzp = 0
        if row == "f32":
            x = rng.standard_normal(ishape).astype(np.float32)
            w = rng.standard_normal(wshape).astype(np.float32)
            b = rng.standard_normal([bc]).astype(np.float32)
            in_dt, w_dt, out_dt, acc = ts.DType.FP32, ts.DType.FP32, ts.DType.FP32, ts.DType.FP32
            zp_np, wzp_np, b_dt = np.float32, np.float32, ts.DType.FP32
        else:
            ib = 8 if row == "i8" else 16
            x = np.array(rand_ints(int(np.prod(ishape)), ib), dtype=np.int8 if ib == 8 else np.int16).reshape(ishape)
            w = np.array(rand_ints(int(np.prod(wshape)), 8), dtype=np.int8).reshape(wshape)
            if row == "i8":
                izp, wzp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128)) if rng.random() < 0.5 else 0
                b = np.array(rand_ints(bc, 24), dtype=np.int32)
                in_dt, out_dt, acc, b_dt, zp_np = ts.DType.INT8, ts.DType.INT32, ts.DType.INT32, ts.DType.INT32, np.int8
            else:
                wzp = int(rng.integers(-128, 128)) if rng.random() < 0.3 else 0
                b = np.array(rand_ints(bc, 28), dtype=np.int64)
                in_dt, out_dt, acc, b_dt, zp_np = ts.DType.INT16, ts.DType.INT48, ts.DType.INT48, ts.DType.INT48, np.int16
            w_dt, wzp_np = ts.DType.INT8, np.int8
        ser = new_ser()
        xi = ser.addConst(ishape, in_dt, x)
        wi = ser.addConst(wshape, w_dt, w)
        bi = ser.addConst([bc], b_dt, b)
        iz = ser.addConst([1], in_dt, np.array([izp], dtype=zp_np))
        wz = ser.addConst([1], w_dt, np.array([wzp], dtype=wzp_np))
        if row == "i16":
            out = ser.addIntermediate([n, oh, ow, oc], out_dt)
        else:
            out = ser.addOutput([n, oh, ow, oc], out_dt)
        a = ts.TosaSerializerAttribute()
        a.Conv2dAttribute(pad, stride, dil, False, acc)
        ser.addOperator(ts.Op.CONV2D, [xi.name, wi.name, bi.name, iz.name, wz.name], [out.name], a)
        if row == "i16":
            to_i32(ser, out.name, [n, oh, ow, oc])
        outs, ok = run(ser)
        if not ok:
            continue
        fl = row == "f32"
        head = " ".join(str(v) for v in ["conv2d", row, n, ih, iw, ic, oc, kh, kw, bc, *pad, *stride, *dil, izp, wzp])
        return "\n".join([head, fmt(x, fl), fmt(w, fl), fmt(b, fl), fmt(outs[0], fl)])


def matmul_case(row):
    while True:
        n, h, c, w = (int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(rng.choice([1, 5, 16, 33, 70])),
                      int(rng.choice([1, 3, 17, 64, 65, 130])))
        azp = bzp = 0
        if row == "f32":
            a_ = rng.standard_normal([n, h, c]).astype(np.float32)
            b_ = rng.standard_normal([n, c, w]).astype(np.float32)
            dt, odt, npt = ts.DType.FP32, ts.DType.FP32, np.float32
        else:
            bits = 8 if row == "i8" else 16
            npt = np.int8 if bits == 8 else np.int16
            vb = bits if bits == 8 else 13  # i16: keep |result| < 2^31 (INT48 read back through INT32)
            a_ = np.array(rand_ints(n * h * c, vb), dtype=npt).reshape([n, h, c])
            b_ = np.array(rand_ints(n * c * w, vb), dtype=npt).reshape([n, c, w])
            if row == "i8":
                azp, bzp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
            dt, odt = (ts.DType.INT8, ts.DType.INT32) if bits == 8 else (ts.DType.INT16, ts.DType.INT48)
        ser = new_ser()
        ai = ser.addConst([n, h, c], dt, a_)
        bi = ser.addConst([n, c, w], dt, b_)
        az = ser.addConst([1], dt, np.array([azp], dtype=npt))
        bz = ser.addConst([1], dt, np.array([bzp], dtype=npt))
        out = ser.addIntermediate([n, h, w], odt) if row == "i16" else ser.addOutput([n, h, w], odt)
        at = ts.TosaSerializerAttribute()
        at.MatMulAttribute()
        ser.addOperator(ts.Op.MATMUL, [ai.name, bi.name, az.name, bz.name], [out.name], at)
        if row == "i16":
            to_i32(ser, out.name, [n, h, w])
        outs, ok = run(ser)
        if not ok:
            continue
        fl = row == "f32"
        return "\n".join([f"matmul {row} {n} {h} {c} {w} {azp} {bzp}", fmt(a_, fl), fmt(b_, fl), fmt(outs[0], fl)])


def main():
    import importlib.metadata as md
    cases = [rescale_case() for _ in range(400)]
    for row in ("i8", "i16", "f32"):
        cases += [conv_case(row, one_by_one=(i % 2 == 0)) for i in range(24)]
        cases += [matmul_case(row) for _ in range(10)]
    with open(OUT, "w") as f:
        f.write(f"# TOSA reference model goldens: tosa-tools {md.version('tosa-tools')}, numpy {np.__version__}; "
                f"made by gen_tosa_goldens.py (seed 20261122)\n")
        f.write("\n".join(cases) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
