#!/usr/bin/env python3
"""Conformance sweep: every type-support row of armlower's op table, written by the official writer.

For each row of `armlower::tosa::op_table` (exported as JSON by the `sweep_op_rows` helper, so the
rows are never copied by hand), this script writes small single-op graphs with tosa-tools'
python `tosa_serializer` (the official writer, with the layout choices of tosa-tools' own test
generator `generator/tosa_build_gen.py`: attribute bytes padded to 8, RESHAPE's shape as a
SHAPE constant, TOSA 1.0 files as version 1.0.0 and 1.1 files as 1.1.0 draft), random inputs
valid for the op, in two variants where the dtypes allow it:
  input  - the data operands are graph inputs (.npy; only dtypes armlower's CLI reads as .npy)
  const  - every operand is a constant in the file
Each 1.0 row is written as a TOSA 1.0 and as a TOSA 1.1 file; a 1.1 row as a 1.1 file.

Every file is run by the TOSA reference model (`tosa_reference_model.run` in-process; the
`tosa_reference_model` executable for outputs the python binding cannot return: INT48, FP4,
FP6, MXINT8, FP8UE8M0) and by `armlower -q run FILE -i ... --json`. Classes:
  MATCH       integer/code outputs bit-exact; float outputs bit-exact for exact ops (CONST,
              RESHAPE, TRANSPOSE, CLAMP, ADD, MAXIMUM, MINIMUM, MUL, CAST, CAST_*_BLOCK_SCALED) and within the TOSA
              dot-product bound (see `dot_bound_check`) for CONV2D, MATMUL, MATMUL_T_BLOCK_SCALED
  REFUSED     armlower exits 1..127 with one stderr line naming the op or a tensor of the graph
  VAGUE       a one-line refusal naming neither (reported, does not fail the test)
  CRASH       signal, exit code >= 128, sanitizer report, timeout, or more than one stderr line
  MISMATCH    armlower exits 0 with a wrong answer (or unparsable output)
  REF-REJECTS the reference model rejects the file (armlower's outcome is recorded beside it)
The test fails on CRASH or MISMATCH unless the case is in KNOWN_FAILING with that outcome, and
on a KNOWN_FAILING entry that no longer fails (so the list is emptied as fixes land).

Exit status: 0 pass, 1 failure, 77 skipped (tosa_serializer / tosa_reference_model missing).
Usage: sweep.py --rows EXE --armlower EXE [--keep DIR] [--only REGEX] [-v]
"""
import argparse
import collections
import concurrent.futures
import contextlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import ml_dtypes as md
    import numpy as np
    import tosa_reference_model as rm
    import tosa_serializer as ts
    from tosa_serializer import numpy_utils as tnu
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: tosa-tools / numpy / ml_dtypes not available ({e}); pip install tosa-tools")
    sys.exit(77)

# ------------------------------------------------------------------ known failures
# Cases that fail today and are being fixed. Key: a regex over the case id
# ("OP:T1xT2xT3@VERSION/VARIANT"), value: the outcome expected today. An entry whose case now
# passes makes the test fail, so stale entries are noticed. Empty: every row the op table lists
# and the reference model runs either matches or is refused by name.
KNOWN_FAILING = {
}

# ------------------------------------------------------------------ dtype facts
DT = ts.DType
# Dtypes armlower's CLI reads and writes as .npy (armlower/io/npy.hpp).
NPY_OK = {"BOOL", "INT8", "INT16", "INT32", "INT64", "FP16", "FP32"}
# Outputs the python binding of the reference model cannot return ("Unsupported tensor DType").
REF_CLI_ONLY = {"INT4", "INT48", "FP4E2M1", "FP6E2M3", "FP6E3M2", "MXINT8", "FP8UE8M0"}
INT_KIND = {"BOOL", "INT4", "INT8", "INT16", "INT32", "INT48", "INT64"}
REAL_KIND = {"FP16", "BF16", "FP32"}  # armlower's JSON prints these as numbers
# every other dtype (FP8*, FP6*, FP4, MXINT8, FP8UE8M0) is compared as its bit code
FLOAT_NP = {"FP16": np.float16, "BF16": md.bfloat16, "FP32": np.float32,
            "FP8E4M3": md.float8_e4m3fn, "FP8E5M2": md.float8_e5m2,
            "FP6E2M3": md.float6_e2m3fn, "FP6E3M2": md.float6_e3m2fn, "FP4E2M1": md.float4_e2m1fn,
            "FP8UE8M0": md.float8_e8m0fnu}
INT_NP = {"BOOL": np.bool_, "INT4": np.int8, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
          "INT48": np.int64, "INT64": np.int64}
FRAC = {"FP16": 10, "BF16": 7, "FP32": 23}          # fraction bits of dot-product outputs/accumulators
NORMAL_MIN = {"FP16": 2.0 ** -14, "BF16": 2.0 ** -126, "FP32": 2.0 ** -126}
EXACT_OPS = {"CONST", "RESHAPE", "TRANSPOSE", "CLAMP", "ADD", "MAXIMUM", "MINIMUM", "MUL", "CAST", "RESCALE",
             "CAST_TO_BLOCK_SCALED", "CAST_FROM_BLOCK_SCALED"}


class Gen:
    """Random data valid for each dtype (seeded; the same case always gets the same data)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def ints(self, dt, shape, lo=None, hi=None):
        info = {"BOOL": (0, 1), "INT4": (-7, 7), "INT8": (-128, 127), "INT16": (-32768, 32767),
                "INT32": (-2 ** 31, 2 ** 31 - 1), "INT48": (-2 ** 47, 2 ** 47 - 1),
                "INT64": (-2 ** 63, 2 ** 63 - 1)}[dt]
        lo = info[0] if lo is None else lo
        hi = info[1] if hi is None else hi
        a = self.rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64)
        return a.astype(INT_NP[dt])

    def floats(self, dt, shape, scale=2.0):
        """Finite values of dt: normal(0, scale), clipped to the format's range."""
        x = self.rng.standard_normal(size=shape) * scale
        if dt == "FP8UE8M0":
            return (2.0 ** self.rng.integers(-4, 5, size=shape)).astype(md.float8_e8m0fnu)
        if dt == "MXINT8":  # codes of int8 values (scaled by 2^-6 in the MX format)
            return self.rng.integers(-127, 127, size=shape, endpoint=True).astype(np.int8).view(np.uint8)
        t = FLOAT_NP[dt]
        big = float(md.finfo(t).max) if dt not in ("FP16", "FP32") else float(np.finfo(t).max)
        return np.clip(x, -big, big).astype(t)

    def data(self, dt, shape, **kw):
        if dt in INT_KIND:
            return self.ints(dt, shape, kw.get("lo"), kw.get("hi"))
        return self.floats(dt, shape, kw.get("scale", 2.0))


def as_f64(dt, a):
    """Numeric values of a generated array, float64 (MXINT8 codes scaled by 2^-6)."""
    if dt == "MXINT8":
        return a.view(np.int8).astype(np.float64) / 64.0
    return np.asarray(a).astype(np.float64)


def ref_feed(dt, a):
    """An input array as the reference model's python binding takes it (raw bytes for ml_dtypes)."""
    if dt in ("BF16",):
        return a.view(np.uint16)
    if a.dtype.kind == "V" or dt in FLOAT_NP and dt not in ("FP16", "FP32"):
        return a.view(np.uint8)
    return a


# ------------------------------------------------------------------ graph building
class Graph:
    """One single-op graph written with tosa_serializer, plus what is needed to check it."""

    def __init__(self, case_dir, version):
        self.dir = case_dir
        os.makedirs(case_dir, exist_ok=True)
        minor = 0 if version == "1.0" else 1
        self.ser = ts.TosaSerializer(case_dir, targetMajor=1, targetMinor=minor, targetPatch=0,
                                     targetDraft=minor == 1)
        self.inputs = []     # (name, dtype, array) in graph-input order
        self.outputs = []    # (name, dtype, shape)
        self.names = []      # every tensor name (refusal messages must name one, or the op)
        self.oracle = None   # dot-product cases: (ref64, bnd64, ksb, out dtype) per output 0

    def tensor(self, dt, a, as_input):
        shape = list(np.shape(a))
        if as_input:
            t = self.ser.addPlaceholder(shape, getattr(DT, dt), a)
            self.inputs.append((t.name, dt, a))
        else:
            t = self.ser.addConst(shape, getattr(DT, dt), a)
        self.names.append(t.name)
        return t.name

    def const(self, dt, a):
        return self.tensor(dt, a, False)

    def shape_const(self, dims):
        t = self.ser.addConst([len(dims)], DT.SHAPE, np.array(dims, np.int64))
        self.names.append(t.name)
        return t.name

    def output(self, dt, shape):
        t = self.ser.addOutput(list(shape), getattr(DT, dt))
        self.outputs.append((t.name, dt, list(shape)))
        self.names.append(t.name)
        return t.name

    def op(self, op, ins, outs, attr):
        self.ser.addOperator(getattr(ts.Op, op), ins, outs, attr)

    def write(self):
        path = os.path.join(self.dir, "graph.tosa")
        with open(path, "wb") as f:
            f.write(self.ser.serialize())
        with open(os.path.join(self.dir, "desc.json"), "w") as f:
            f.write(self.ser.writeJson("graph.tosa"))
        for i, (_, dt, a) in enumerate(self.inputs):
            np.save(os.path.join(self.dir, f"in{i}.npy"), a)
        return path


def attr(method, *args):
    a = ts.TosaSerializerAttribute()
    getattr(a, method)(*args)
    return a


def padded_bytes(dt, v, pad):
    """Attribute bytes of one value (tosa_build_gen.build_clamp pads them to 8 bytes)."""
    b = list(ts.TosaSerializer.convertDataToUint8Vec(getattr(DT, dt), [v]))
    while pad and len(b) % 8:
        b.append(0)
    return b


def zp(g, dt, value=0):
    if dt in FLOAT_NP:
        return g.const(dt, np.array([value], np.float32).astype(FLOAT_NP[dt]))
    return g.const(dt, np.array([value], INT_NP[dt]))


def dot_oracle(g, ref64, bnd64, ks, acc, out_dt, bias_nonzero):
    """Per-output data for the TOSA dot-product check: ksb = ceil(KS / 2^((frac(acc)-frac(out))/2))
    + (bias != 0), from the TOSA specification's tosa_reference_check_dotproduct pseudocode."""
    ksb = math.ceil(ks / 2 ** ((FRAC[acc] - FRAC[out_dt]) / 2)) + (1 if bias_nonzero else 0)
    g.oracle = (ref64, bnd64, ksb, out_dt)


NOT_NPY = "skip: input variant: {} cannot be a .npy input of armlower's CLI (armlower/io/npy.hpp)"


# ----- per-op builders: (g, row, variant, gen) -> None (graph built) or "skip: reason"
# The reference model packs FP6/FP4 .npy outputs in groups along the last dimension (a [2,3]
# FP6 output comes back truncated), so tensors of the MX dtypes keep a last dimension of 32.
MX = {"FP6E2M3", "FP6E3M2", "FP4E2M1", "MXINT8", "FP8UE8M0"}


def b_const(g, row, variant, gen):
    if variant != "const":
        return "skip: CONST has no graph input"
    (t,) = row["types"]
    shape = [2, 32] if t in MX else [2, 3]
    tens = g.ser.addConst(shape, getattr(DT, t), gen.data(t, shape))
    g.ser.addOutputTensor(tens)  # as tosa_build_gen.build_const
    g.names.append(tens.name)
    g.outputs.append((tens.name, t, shape))


def b_reshape(g, row, variant, gen):
    (t,) = row["types"]
    shape, new = ([2, 4, 32], [8, 32]) if t in MX else ([2, 3, 4], [4, 6])
    x = g.tensor(t, gen.data(t, shape), variant == "input" and t in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(t)
    s = g.shape_const(new)
    y = g.output(t, new)
    g.op("RESHAPE", [x, s], [y], attr("ReshapeAttribute"))


def b_transpose(g, row, variant, gen):
    (t,) = row["types"]
    shape, perm = ([2, 4, 32], [1, 0, 2]) if t in MX else ([2, 3, 4], [2, 0, 1])
    x = g.tensor(t, gen.data(t, shape), variant == "input" and t in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(t)
    y = g.output(t, [shape[p] for p in perm])
    g.op("TRANSPOSE", [x], [y], attr("TransposeAttribute", perm))


def b_conv2d(g, row, variant, gen):
    ti, tw, to = row["types"]
    acc = row["acc"]
    n, h, w, ic, oc, kh, kw = 1, 5, 5, 3, 4, 3, 3
    pad, stride, dil = [1, 0, 0, 0], [1, 2], [1, 1]  # asymmetric; (IH-1+pads-(KH-1)) % stride == 0
    oh = (h + pad[0] + pad[1] - kh) // stride[0] + 1
    ow = (w + pad[2] + pad[3] - kw) // stride[1] + 1
    xa = gen.data(ti, [n, h, w, ic], scale=1.0)
    wa = gen.data(tw, [oc, kh, kw, ic], scale=1.0)
    integer = ti in INT_KIND
    if integer:
        ba = gen.ints(to, [oc], -1000, 1000)
        izp = int(gen.ints("INT8", [], -20, 20)) if ti == "INT8" else 0
        wzp = int(gen.ints("INT8", [], -20, 20)) if tw == "INT8" else 0
    else:
        ba = gen.data(to, [oc], scale=1.0)
        izp = wzp = 0
    x = g.tensor(ti, xa, variant == "input" and ti in NPY_OK)
    wt = g.tensor(tw, wa, variant == "input" and tw in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(ti + "/" + tw)
    b = g.const(to, ba)
    zi, zw = zp(g, ti, izp), zp(g, tw, wzp)
    y = g.output(to, [n, oh, ow, oc])
    g.op("CONV2D", [x, wt, b, zi, zw], [y],
         attr("Conv2dAttribute", pad, stride, dil, False, getattr(DT, acc)))
    if not integer:
        xf, wf, bf = as_f64(ti, xa), as_f64(tw, wa), as_f64(to, ba)
        xp = np.pad(xf, ((0, 0), (pad[0], pad[1]), (pad[2], pad[3]), (0, 0)))
        ref = np.zeros((n, oh, ow, oc))
        bnd = np.zeros((n, oh, ow, oc))
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw, :]
                ref[:, i, j, :] = np.einsum("nhwc,ohwc->no", patch, wf) + bf
                bnd[:, i, j, :] = np.einsum("nhwc,ohwc->no", np.abs(patch), np.abs(wf)) + np.abs(bf)
        dot_oracle(g, ref, bnd, kh * kw * ic, acc, to, bool(np.any(bf != 0)))


def b_matmul(g, row, variant, gen):
    ta, tb, to = row["types"]
    n, h, c, w = 2, 3, 5, 4
    aa = gen.data(ta, [n, h, c], scale=1.0)
    ba = gen.data(tb, [n, c, w], scale=1.0)
    a = g.tensor(ta, aa, variant == "input" and ta in NPY_OK)
    b = g.tensor(tb, ba, variant == "input" and tb in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(ta + "/" + tb)
    integer = ta in INT_KIND
    azp = int(gen.ints("INT8", [], -20, 20)) if ta == "INT8" else 0
    bzp = int(gen.ints("INT8", [], -20, 20)) if tb == "INT8" else 0
    za, zb = zp(g, ta, azp), zp(g, tb, bzp)
    y = g.output(to, [n, h, w])
    g.op("MATMUL", [a, b, za, zb], [y], attr("MatMulAttribute"))
    if not integer:
        af, bf = as_f64(ta, aa), as_f64(tb, ba)
        dot_oracle(g, af @ bf, np.abs(af) @ np.abs(bf), c, row["acc"], to, False)


def rescale_params(gen, ti, to, scale32, nc, span=None):
    """multiplier/shift as tosa_quant_gen.computeMultiplierAndShift makes them (shift 2..62)."""
    width = {"INT8": 8, "INT16": 16, "INT32": 32, "INT48": 48}
    mults, shifts = [], []
    for _ in range(nc):
        s = float(gen.rng.random()) * (2.0 ** width[to]) / (2.0 ** width[ti])
        if span is not None:  # result in int32 and REQUIRE(|value| < 2^(shift-1)) of apply_scale
            s = float(gen.rng.uniform(0.05, 0.9)) * (2.0 ** ((31 if scale32 else 15) - 2)) / span
        s = min(max(s, 2.0 ** -31), (2 ** 31 - 1) if scale32 else 32767.0)
        bits = 31 if scale32 else 15
        m, sh = math.frexp(s)
        mult = round(m * (1 << bits))
        if mult == (1 << bits):
            mult //= 2
            sh += 1
        sh = -sh + bits
        if sh < 2:
            mult >>= (2 - sh)
            sh = 2
        if sh > 62:
            mult = 0 if sh - 62 > 31 else mult >> (sh - 62)
            sh = 62
        mults.append(mult)
        shifts.append(sh)
    return mults, shifts


RESCALE_VARIANTS = [  # (suffix, scale32, rounding, per_channel, input_unsigned, output_unsigned)
    ("s32", True, "SINGLE_ROUND", False, False, False),
    ("s16pc", False, "SINGLE_ROUND", True, False, False),
    ("d32pc", True, "DOUBLE_ROUND", True, False, False),
    ("s32iu", True, "SINGLE_ROUND", False, True, False),
    ("s32ou", True, "SINGLE_ROUND", False, False, True),
]


def b_rescale(g, row, variant, gen, sub):
    ti, to = row["types"]
    _, scale32, rnd, per_channel, iu, ou = sub
    if ti == "INT48" and scale32:
        scale32 = False  # ERROR_IF(scale32 && in_t == i48) (TOSA 1.0 RESCALE)
        if rnd == "DOUBLE_ROUND":
            return "skip: DOUBLE_ROUND needs scale32, not allowed for INT48 input"
    if iu and (ti not in ("INT8", "INT16") or to == "INT32"):
        return "skip: input_unsigned only for INT8/INT16 input and non-INT32 output"
    if ou and (to not in ("INT8", "INT16") or ti in ("INT32", "INT48")):
        return "skip: output_unsigned only for INT8/INT16 output and INT8/INT16 input"
    shape = [2, 3, 4]
    nc = shape[-1] if per_channel else 1
    if iu:
        lo, hi = (0, 255) if ti == "INT8" else (0, 65535)
        raw = gen.rng.integers(lo, hi, size=shape, endpoint=True)
        xa = raw.astype(np.uint8 if ti == "INT8" else np.uint16).view(INT_NP[ti])
        izp = int(gen.rng.integers(0, 256)) if ti == "INT8" else 32768
    else:
        xa = gen.ints(ti, shape, -2 ** 40 if ti == "INT48" else None, 2 ** 40 if ti == "INT48" else None)
        izp = int(gen.ints("INT8", [], -128, 127)) if ti == "INT8" else 0
    if ou:
        ozp = int(gen.rng.integers(0, 256)) if to == "INT8" else 32768
    else:
        ozp = int(gen.ints("INT8", [], -128, 127)) if to == "INT8" else 0
    # An INT32 result out of range is a REQUIRE failure (unpredictable), not saturation: keep
    # |x - input_zp| * scale inside int32 there (INT8/INT16 outputs saturate, which is tested).
    span = float(np.max(np.abs(xa.astype(np.int64) - (izp if not iu else 0)))) + 1.0 if to == "INT32" else None
    mults, shifts = rescale_params(gen, ti, to, scale32, nc, span)
    x = g.tensor(ti, xa, variant == "input" and ti in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(ti)
    m = g.const("INT32" if scale32 else "INT16", np.array(mults, np.int32 if scale32 else np.int16))
    s = g.const("INT8", np.array(shifts, np.int8))
    # Unsigned zero points are stored in the signed dtype's bits (32768 as INT16 -32768).
    zi = g.const(ti, np.array([izp], np.int64).astype(np.uint64).astype(INT_NP[ti]) if ti != "INT48"
                 else np.array([izp], np.int64))
    zo = g.const(to, np.array([ozp], np.int64).astype(np.uint64).astype(INT_NP[to]))
    y = g.output(to, shape)
    g.op("RESCALE", [x, m, s, zi, zo], [y],
         attr("RescaleAttribute", scale32, getattr(ts.RoundingMode, rnd), per_channel, iu, ou))


def b_add(g, row, variant, gen):
    (t,) = row["types"]
    kw = {"INT32": dict(lo=-2 ** 30, hi=2 ** 30), "INT64": dict(lo=-2 ** 62, hi=2 ** 62)}.get(t, {})
    a = g.tensor(t, gen.data(t, [2, 3, 4], **kw), variant == "input" and t in NPY_OK)
    b = g.tensor(t, gen.data(t, [1, 3, 4], **kw), variant == "input" and t in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(t)
    y = g.output(t, [2, 3, 4])
    g.op("ADD", [a, b], [y], attr("AddAttribute"))


def b_extremum(g, row, variant, gen, mode):
    """MAXIMUM / MINIMUM (row["op"]) of [2,3,4] and a broadcast [1,3,4], NaN mode `mode`."""
    (t,) = row["types"]
    xa, xb = gen.data(t, [2, 3, 4]), gen.data(t, [1, 3, 4])
    fa, fb = xa.reshape(-1), xb.reshape(-1)
    fb[5] = fa[5]  # equal operands
    if t in REAL_KIND:
        # signed zeros (apply_max_s: a >= b ? a : b; apply_min_s: a < b ? a : b) and NaN in either, both or a broadcast operand
        fa[0], fb[0], fa[1], fb[1] = 0.0, -0.0, -0.0, 0.0
        fa[2], fb[3], fa[4], fb[4], fa[12 + 6] = np.nan, np.nan, np.nan, np.nan, np.nan
        fb[7] = np.nan  # repeated over the broadcast dim: meets fa[7] and fa[19]
    a = g.tensor(t, xa, variant == "input" and t in NPY_OK)
    b = g.tensor(t, xb, variant == "input" and t in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(t)
    y = g.output(t, [2, 3, 4])
    op = row["op"]
    g.op(op, [a, b], [y], attr(op.capitalize() + "Attribute", getattr(ts.NanPropagationMode, mode)))


def b_mul(g, row, variant, gen):
    ti, to = row["types"]
    # INT64: full range, so most products wrap (apply_mul_s<i64_t> keeps the low 64 bits)
    kw = {"INT32": dict(lo=-2 ** 15, hi=2 ** 15)}.get(ti, {})
    a = g.tensor(ti, gen.data(ti, [2, 3, 4], **kw), variant == "input" and ti in NPY_OK)
    b = g.tensor(ti, gen.data(ti, [1, 3, 4], **kw), variant == "input" and ti in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(ti)
    sh = g.const("INT8", np.array([3 if ti == "INT32" else 0], np.int8))
    y = g.output(to, [2, 3, 4])
    g.op("MUL", [a, b, sh], [y], attr("MulAttribute"))


def b_clamp(g, row, variant, gen, pad):
    (t,) = row["types"]
    xa = gen.data(t, [2, 3, 4])
    if t in INT_KIND:
        lo, hi = sorted(int(v) for v in gen.ints(t, [2], -100, 100))
    else:
        lo, hi = sorted(float(v) for v in gen.floats(t, [2], 1.0))
    x = g.tensor(t, xa, variant == "input" and t in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(t)
    y = g.output(t, [2, 3, 4])
    g.op("CLAMP", [x], [y], attr("ClampAttribute", padded_bytes(t, lo, pad), padded_bytes(t, hi, pad),
                                 ts.NanPropagationMode.PROPAGATE))


def cast_input(gen, ti, to, shape):
    """Inputs of CAST whose result is defined and finite in `to`."""
    if ti in INT_KIND:
        if to in ("FP16",) and ti == "INT32":
            return gen.ints(ti, shape, -60000, 60000)
        return gen.ints(ti, shape)
    if to == "BOOL" and ti in REAL_KIND:  # out = (in != 0): include +-0, NaN and +-Inf
        x = gen.floats(ti, shape, 4.0).reshape(-1)
        x[:6] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40 if ti == "FP32" else 1e-7]
        return x.reshape(shape)
    if to in INT_KIND and to != "BOOL":
        hi = {"INT8": 120, "INT16": 30000, "INT32": 2 ** 30, "INT64": 2 ** 30}[to]
        if ti in FLOAT_NP and ti not in ("FP32",):
            hi = min(hi, float(md.finfo(FLOAT_NP[ti]).max) if ti != "FP16" else 60000.0)
        x = gen.rng.uniform(-hi, hi, size=shape)
        return x.astype(FLOAT_NP[ti])
    rng_max = {"FP8E4M3": 400.0, "FP8E5M2": 50000.0, "FP16": 60000.0, "BF16": 1e30, "FP32": 1e30}
    scale = min(rng_max.get(ti, 1e30), rng_max.get(to, 1e30)) / 8
    return gen.floats(ti, shape, scale)


def b_cast(g, row, variant, gen):
    ti, to = row["types"]
    xa = cast_input(gen, ti, to, [2, 3, 4])
    x = g.tensor(ti, xa, variant == "input" and ti in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(ti)
    y = g.output(to, [2, 3, 4])
    g.op("CAST", [x], [y], attr("CastAttribute"))


def b_cast_to_bs(g, row, variant, gen):
    ti, to = row["types"]
    xa = gen.floats(ti, [2, 64], 3.0)
    xa.reshape(-1)[5::23] = -0.0  # -0.0 gives the negative-zero code (or 0 for MXINT8)
    x = g.tensor(ti, xa, variant == "input" and ti in NPY_OK)
    if variant == "input" and not g.inputs:
        return NOT_NPY.format(ti)
    yd = g.output(to, [2, 64])
    ys = g.output("FP8UE8M0", [2, 2])
    g.op("CAST_TO_BLOCK_SCALED", [x], [yd, ys], attr("CastToBlockScaledAttribute", ts.BlockSize.BLOCK_SIZE_32))


def b_cast_from_bs(g, row, variant, gen):
    ti, to = row["types"]
    if variant == "input":
        return NOT_NPY.format(ti + "/FP8UE8M0")
    da = gen.floats(ti, [2, 64])
    if ti != "MXINT8":  # negative-zero codes in every block: out = (fp32)x * scale keeps the sign
        da.reshape(-1)[3::17] = -0.0
    d = g.const(ti, da)
    s = g.const("FP8UE8M0", gen.floats("FP8UE8M0", [2, 2]))
    y = g.output(to, [2, 64])
    g.op("CAST_FROM_BLOCK_SCALED", [d, s], [y], attr("CastFromBlockScaledAttribute", ts.BlockSize.BLOCK_SIZE_32))


def b_matmul_t_bs(g, row, variant, gen):
    ta, tb = row["types"]
    if variant == "input":
        return NOT_NPY.format(ta + "/FP8UE8M0")
    n, h, w, c = 1, 3, 4, 64
    aa, asc = gen.floats(ta, [n, h, c], 1.5), gen.floats("FP8UE8M0", [n, h, c // 32])
    ba, bsc = gen.floats(tb, [n, w, c], 1.5), gen.floats("FP8UE8M0", [n, w, c // 32])
    ins = [g.const(ta, aa), g.const("FP8UE8M0", asc), g.const(tb, ba), g.const("FP8UE8M0", bsc)]
    y = g.output("FP32", [n, h, w])
    g.op("MATMUL_T_BLOCK_SCALED", ins, [y], attr("MatMulTBlockScaledAttribute", ts.BlockSize.BLOCK_SIZE_32))
    af = as_f64(ta, aa) * np.repeat(as_f64("FP8UE8M0", asc), 32, axis=-1)
    bf = as_f64(tb, ba) * np.repeat(as_f64("FP8UE8M0", bsc), 32, axis=-1)
    dot_oracle(g, af @ bf.transpose(0, 2, 1), np.abs(af) @ np.abs(bf).transpose(0, 2, 1), c, "FP32", "FP32", False)


def builders(row):
    """(sub-variant suffix, builder) pairs for a row."""
    op = row["op"]
    if op == "RESCALE":
        return [(v[0], lambda g, r, var, gen, v=v: b_rescale(g, r, var, gen, v)) for v in RESCALE_VARIANTS]
    if op == "CLAMP":
        return [("pad8", lambda g, r, var, gen: b_clamp(g, r, var, gen, True)),
                ("nopad", lambda g, r, var, gen: b_clamp(g, r, var, gen, False))]
    if op in ("MAXIMUM", "MINIMUM"):
        return [(m.lower(), lambda g, r, var, gen, m=m: b_extremum(g, r, var, gen, m)) for m in ("PROPAGATE", "IGNORE")]
    table = {"CONST": b_const, "RESHAPE": b_reshape, "TRANSPOSE": b_transpose, "CONV2D": b_conv2d,
             "MATMUL": b_matmul, "ADD": b_add, "MUL": b_mul, "CAST": b_cast,
             "CAST_TO_BLOCK_SCALED": b_cast_to_bs, "CAST_FROM_BLOCK_SCALED": b_cast_from_bs,
             "MATMUL_T_BLOCK_SCALED": b_matmul_t_bs}
    return [("", table[op])]


# ------------------------------------------------------------------ running
@contextlib.contextmanager
def quiet_fds(log_path):
    """The reference model prints warnings from C++ on fds 1/2: send them to a log file."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log_path, "ab") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def canon(dt, a, shape):
    """An output as comparable numbers: int64 for integer and code dtypes, float64 for FP16/BF16/FP32."""
    a = np.asarray(a)
    if dt in INT_KIND:
        return a.astype(np.int64).reshape(shape)
    if dt in REAL_KIND:
        t = FLOAT_NP[dt]
        if a.dtype.kind == "V":
            a = a.view(np.uint16 if dt != "FP32" else np.uint32).view(t)
        return a.astype(t).astype(np.float64).reshape(shape)
    return a.view(np.uint8).astype(np.int64).reshape(shape)  # codes


def run_reference(g, log_path):
    """(status, [canonical outputs]) from the TOSA reference model."""
    outs_cli = any(dt in REF_CLI_ONLY for _, dt, _ in g.outputs)
    if not outs_cli:
        with open(os.path.join(g.dir, "graph.tosa"), "rb") as f:
            fb = f.read()
        try:
            with quiet_fds(log_path):
                outs, status = rm.run(fb, [ref_feed(dt, a) for _, dt, a in g.inputs])
        except ValueError as e:
            return f"ValueError({e})", []
        status = str(status).split(".")[-1]
        if status != "TOSA_VALID":
            return status, []
        return status, [canon(dt, o, shape) for (_, dt, shape), o in zip(g.outputs, outs)]
    r = subprocess.run(["tosa_reference_model", "--test_desc", os.path.join(g.dir, "desc.json")],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return f"exit {r.returncode}: {(r.stdout + r.stderr).strip().splitlines()[-1:]}", []
    res = []
    for i, (_, dt, shape) in enumerate(g.outputs):
        a = tnu.load_npy(os.path.join(g.dir, f"ref-result-{i}.npy") if os.path.exists(
            os.path.join(g.dir, f"ref-result-{i}.npy")) else os.path.join(g.dir, f"ref-{g.outputs[i][0]}.npy"),
            getattr(DT, dt))
        a = np.asarray(a)
        if dt in ("FP4E2M1", "FP6E2M3", "FP6E3M2"):
            a = a.reshape(-1)[:int(np.prod(shape))]
        res.append(canon(dt, a, shape))
    return "TOSA_VALID", res


def parse_json(text):
    """armlower's --json output, parsed strictly (RFC 8259: json.loads refuses NaN/Infinity
    literals); non-finite reals are the strings "inf", "-inf", "nan" (docs/tool.md)."""
    def strict(tok):
        raise ValueError(f"non-RFC-8259 literal {tok}")
    doc = json.loads(text, parse_constant=strict)
    special = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
    res = []
    for o in doc["outputs"]:
        vals = [special[v] if isinstance(v, str) else v for v in o["values"]]
        res.append((o["dtype"], o["shape"], vals))
    return res


def run_armlower(exe, g, timeout):
    args = [exe, "-q", "run", os.path.join(g.dir, "graph.tosa")]
    for i in range(len(g.inputs)):
        args += ["-i", os.path.join(g.dir, f"in{i}.npy")]
    args.append("--json")
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "", f"timeout after {timeout} s"
    return r.returncode, r.stdout, r.stderr


def bits_equal(dt, ref, got):
    if dt in REAL_KIND:
        t = FLOAT_NP[dt]
        r, a = ref.astype(t), got.astype(t)
        same = (r.view(np.uint16 if dt != "FP32" else np.uint32) == a.view(np.uint16 if dt != "FP32" else np.uint32))
        return same | (np.isnan(ref) & np.isnan(got))
    return ref == got


def dot_bound_check(oracle, out, who):
    """TOSA dot-product compliance (spec pseudocode tosa_reference_check_dotproduct): per output
    err = (out - ref_fp64) / max(bnd * 2^(-1-frac(out_t)), normal_min(out_t)) with |err| <= 2*ksb
    (bnd = the fp64 result on |inputs|, a local bound: stricter than the global one), and
    sum(err^2) <= 0.4 * 4 * ksb * T. Returns None or the first violation."""
    ref, bnd, ksb, out_dt = oracle
    if not np.all(np.isfinite(out)):
        return f"{who}: non-finite output where the fp64 result is finite"
    tol = np.maximum(bnd * 2.0 ** (-1 - FRAC[out_dt]), NORMAL_MIN[out_dt])
    err = (out - ref) / tol
    if np.max(np.abs(err)) > 2 * ksb:
        k = np.unravel_index(np.argmax(np.abs(err)), err.shape)
        return (f"{who}: |err| {np.abs(err)[k]:.3g} > 2*ksb = {2 * ksb} at {tuple(int(i) for i in k)}: "
                f"{out[k]!r} vs fp64 {ref[k]!r}")
    if np.sum(err ** 2) > 0.4 * 4 * ksb * err.size:
        return f"{who}: sum(err^2) {np.sum(err ** 2):.3g} > {0.4 * 4 * ksb * err.size:.3g}"
    return None


def classify(g, op, ref_status, ref_outs, rc, out, err):
    """(class, message, reference-model note or None)."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if rc is None:
        return "CRASH", err, None
    if rc < 0 or rc >= 128 or re.search(r"AddressSanitizer|runtime error:|LeakSanitizer|terminate called", err):
        return "CRASH", f"exit {rc}: " + " | ".join(lines[-3:]), None
    if rc != 0:
        if len(lines) != 1:
            return "CRASH", f"exit {rc} with {len(lines)} stderr lines: " + " | ".join(lines[:3]), None
        msg = lines[0]
        named = op.lower() in msg.lower() or re.search(r"op #\d", msg) or any(n in msg for n in g.names)
        cls = "REFUSED" if named else "VAGUE"
        if ref_status != "TOSA_VALID":
            cls = "REF-REJECTS"
        return cls, msg, None
    if ref_status != "TOSA_VALID":
        return "REF-REJECTS", f"reference {ref_status}; armlower answered (exit 0)", None
    try:
        got = parse_json(out)
    except (ValueError, KeyError, TypeError) as e:
        return "MISMATCH", f"unparsable --json output ({e}): {out[:200]!r}", None
    if len(got) != len(g.outputs):
        return "MISMATCH", f"{len(got)} outputs, expected {len(g.outputs)}", None
    note = None
    for i, ((name, dt, shape), (gdt, gshape, vals), ref) in enumerate(zip(g.outputs, got, ref_outs)):
        if gdt != dt or list(gshape) != list(shape):
            return "MISMATCH", f"output {name}: {gdt}{gshape}, expected {dt}{shape}", None
        a = np.array(vals, dtype=np.float64 if dt in REAL_KIND else np.int64).reshape(shape)
        if g.oracle is not None and i == 0 and op not in EXACT_OPS:
            m = dot_bound_check(g.oracle, a, "armlower")
            rnote = dot_bound_check(g.oracle, ref, "reference model")
            if rnote:
                note = rnote
            if m:
                return "MISMATCH", f"output {name}: {m}", note
            continue
        same = bits_equal(dt, ref, a)
        if not np.all(same):
            k = tuple(int(j) for j in np.argwhere(~same)[0])
            return "MISMATCH", (f"output {name} {dt}: {int(np.sum(~same))} of {same.size} differ; first at {k}: "
                                f"reference {ref[k]!r} armlower {a[k]!r}"), note
    return "MATCH", "", note


# ------------------------------------------------------------------ main
FAILING = {"CRASH", "MISMATCH"}


def case_id(row, version, variant, sub):
    types = "x".join(row["types"]) + (f"_acc{row['acc']}" if row["op"] in ("CONV2D",) and row["acc"] != row["types"][-1] else "")
    return f"{row['op']}:{types}@{version}/{variant}" + (f"/{sub}" if sub else "")


def known_outcome(cid):
    for pat, cls in KNOWN_FAILING.items():
        if re.fullmatch(pat, cid):
            return cls
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", required=True, help="the sweep_op_rows executable (op table as JSON)")
    ap.add_argument("--armlower", required=True, help="the armlower CLI")
    ap.add_argument("--keep", help="write the cases here and keep them")
    ap.add_argument("--only", help="regex: run only matching case ids")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    rows = json.loads(subprocess.run([args.rows], check=True, capture_output=True, text=True).stdout)["rows"]
    work = args.keep or tempfile.mkdtemp(prefix="armlower_sweep_")
    os.makedirs(work, exist_ok=True)
    # On an ERROR_IF the reference model runs gdb for a backtrace (seconds per case): no-op gdb.
    stub = os.path.join(work, "nogdb")
    os.makedirs(stub, exist_ok=True)
    with open(os.path.join(stub, "gdb"), "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(os.path.join(stub, "gdb"), 0o755)
    os.environ["PATH"] = stub + os.pathsep + os.environ.get("PATH", "")
    ref_log = os.path.join(work, "reference_model.log")

    # 1. write every case and run the reference model on it
    cases, skipped = [], collections.Counter()
    seed = 0
    for row in rows:
        versions = ["1.0", "1.1"] if row["since"] == "1.0" else ["1.1"]
        for version in versions:
            for variant in ("input", "const"):
                for sub, build in builders(row):
                    seed += 1
                    cid = case_id(row, version, variant, sub)
                    if args.only and not re.search(args.only, cid):
                        continue
                    d = os.path.join(work, re.sub(r"[^A-Za-z0-9_.-]", "_", cid))
                    if os.path.isdir(d):
                        shutil.rmtree(d)
                    g = Graph(d, version)
                    why = build(g, row, variant, Gen(seed))
                    if why:
                        skipped[why] += 1
                        shutil.rmtree(d, ignore_errors=True)
                        continue
                    g.write()
                    cases.append((cid, row, g))

    def ref_job(item):
        cid, row, g = item
        try:
            return run_reference(g, ref_log)
        except Exception as e:  # noqa: BLE001 - a reference-model failure is a result here
            return f"exception {type(e).__name__}: {e}", []

    # in-process runs are sequential (one model instance); CLI runs go to the pool with armlower
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        cli_futs = {}
        for item in cases:
            if any(dt in REF_CLI_ONLY for _, dt, _ in item[2].outputs):
                cli_futs[item[0]] = pool.submit(ref_job, item)
            else:
                results[item[0]] = ref_job(item)
        for cid, fut in cli_futs.items():
            results[cid] = fut.result()
        al = {item[0]: pool.submit(run_armlower, args.armlower, item[2], args.timeout) for item in cases}
        outcomes = []
        for cid, row, g in cases:
            rc, out, err = al[cid].result()
            status, ref_outs = results[cid]
            cls, msg, note = classify(g, row["op"], status, ref_outs, rc, out, err)
            if status != "TOSA_VALID":
                msg = f"[reference: {status}] {msg}"
            outcomes.append((cid, row, cls, msg, note))

    # 2. report
    by_cls = collections.Counter(c for _, _, c, _, _ in outcomes)
    failures, fixed = [], []
    print(f"tosa-tools sweep: {len(rows)} op-table rows, {len(cases)} files tried "
          f"({sum(skipped.values())} variants not generated)")
    for cid, row, cls, msg, note in outcomes:
        known = known_outcome(cid)
        if args.verbose or cls != "MATCH" or note:
            print(f"{cls:11} {cid}{' (known: ' + known + ')' if known else ''}{': ' + msg if msg else ''}")
        if note:
            print(f"{'':11}   reference-model note: {note}")
        if cls in FAILING and known != cls:
            failures.append(f"{cid}: {cls}: {msg}")
        if known and cls != known:
            fixed.append(f"{cid}: KNOWN_FAILING says {known}, now {cls} - remove the entry")
    print("\nsummary")
    print(f"  files tried  {len(cases)}")
    for c in ("MATCH", "REFUSED", "VAGUE", "REF-REJECTS", "CRASH", "MISMATCH"):
        print(f"  {c:12} {by_cls.get(c, 0)}")
    per_op = collections.defaultdict(collections.Counter)
    for _, row, cls, _, _ in outcomes:
        per_op[row["op"]][cls] += 1
    print("\nper op: " + "; ".join(f"{op} " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
                                  for op, c in per_op.items()))
    groups = collections.defaultdict(list)
    for cid, _, cls, msg, _ in outcomes:
        if cls in ("REFUSED", "VAGUE", "REF-REJECTS"):
            groups[(cls, re.sub(r"'[^']*'|\b\d+\b|\S+\.tosa", "_", msg))].append(cid)
    if groups:
        print("\nrefusals grouped by message (tensor names and numbers blanked):")
        for (cls, msg), ids in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(ids):3}x {cls}: {msg}\n        e.g. {ids[0]}")
    if skipped:
        print("\nvariants not generated:")
        for why, n in skipped.most_common():
            print(f"  {n:3}x {why}")
    for f in failures:
        print("FAIL " + f)
    for f in fixed:
        print("FAIL " + f)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
