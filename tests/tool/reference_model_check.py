"""The .tosa files armlower makes from the real models, checked by the TOSA reference model
(tosa-tools): every graph is TOSA_VALID and computes what armlower's interpreter computes.

  hello_world_int8 -> TOSA-1.0+INT (SINGLE_ROUND) and +doubleround: exactly TFLite's 4, 60, 104,
                      123, 4 for inputs -128, -108, -87, -67, 0
  micro_speech     -> its FULLY_CONNECTED 4000->4 on TOSA-1.0+INT: same outputs as `armlower run`
  hello_world_float-> every scheme: same outputs as `armlower run` (bit-exact for integer graphs,
                      within 1e-5 relative for MXFP, whose fp32 accumulation order is free)
Usage: reference_model_check.py ARMLOWER_TOOL TFLITE_DIR WORK_DIR. Exit 77 = skipped."""
import json, os, subprocess, sys

try:
    import numpy as np
    import tosa_reference_model as trm
except ImportError as e:
    print(f"skipping: {e}")
    sys.exit(77)

tool, models, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
fails = 0


def sh(*args):
    r = subprocess.run([tool, "-q", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"armlower {' '.join(args)} failed: {r.stderr}")
    return r.stdout


def armlower_run(tosa, x):
    """armlower's interpreter on x; NaN-filled when `armlower run` fails (then the check fails)."""
    p = os.path.join(work, "in.npy")
    np.save(p, x)
    r = subprocess.run([tool, "-q", "run", tosa, "--input", p, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        print("     armlower run failed:", r.stderr.strip())
        return np.array([np.nan])
    out = json.loads(r.stdout)["outputs"][0]
    return np.array(out["values"], dtype=np.float64).reshape(out["shape"])


def ref_run(tosa, x):
    with open(tosa, "rb") as f:
        b = f.read()
    outs, status = trm.run(b, [x])
    return outs, status


def check(cond, msg):
    global fails
    print(("ok   " if cond else "FAIL ") + msg)
    fails += 0 if cond else 1


# 1. hello_world_int8: exact TFLite goldens
golden = {-128: 4, -108: 60, -87: 104, -67: 123, 0: 4}
for spec in ["TOSA-1.0+INT", "TOSA-1.0+INT+doubleround"]:
    t = os.path.join(work, f"hw_{spec.replace('+', '_')}.tosa")
    sh("lower", os.path.join(models, "hello_world_int8.tflite"), "--spec", spec, "-o", t)
    for q, y in golden.items():
        x = np.array([[q]], dtype=np.int8)
        outs, st = ref_run(t, x)
        ok = st == trm.GraphStatus.TOSA_VALID and int(np.asarray(outs[0]).reshape(-1)[0]) == y
        mine = armlower_run(t, x).reshape(-1)[0]
        check(ok and mine == y, f"hello_world_int8 {spec} input {q}: reference {st.name} "
              f"{np.asarray(outs[0]).reshape(-1).tolist()}, armlower {mine}, TFLite {y}")

# 2. micro_speech FC 4000->4
t = os.path.join(work, "micro_speech_fc.tosa")
sh("lower", os.path.join(models, "micro_speech_quantized.tflite"), "--spec", "TOSA-1.0+INT", "-o", t)
rng = np.random.default_rng(5)
for trial in range(3):
    x = rng.integers(-128, 128, size=(1, 25, 20, 8), dtype=np.int8)
    outs, st = ref_run(t, x)
    ref = np.asarray(outs[0]).reshape(-1)
    mine = armlower_run(t, x).reshape(-1)
    check(st == trm.GraphStatus.TOSA_VALID and np.array_equal(ref, mine),
          f"micro_speech FC trial {trial}: reference {st.name} {ref.tolist()}, armlower {mine.tolist()}")

# 3. hello_world_float per scheme
calib = os.path.join(work, "calib.npy")
np.save(calib, (np.arange(256, dtype=np.float32)[:, None] + 0.5) * np.float32(2 * np.pi / 256))
schemes = [("int8", "TOSA-1.0+INT"), ("a16w8", "TOSA-1.0+INT+int16"), ("mxfp8_e4m3", "TOSA-1.1+FP+mxfp"),
           ("mxfp8_e5m2", "TOSA-1.1+FP+mxfp"), ("mxfp6_e2m3", "TOSA-1.1+FP+mxfp"), ("mxfp6_e3m2", "TOSA-1.1+FP+mxfp"),
           ("mxfp4", "TOSA-1.1+FP+mxfp")]
xs = np.linspace(0, 2 * np.pi, 12, dtype=np.float32)
for scheme, spec in schemes:
    t = os.path.join(work, f"hf_{scheme}.tosa")
    sh("lower", os.path.join(models, "hello_world_float.tflite"), "--spec", spec, "--scheme", scheme, "--calib", calib,
       "-o", t)
    info = json.loads(sh("inspect", "--json", t))
    in_name = info["operators"][0]["inputs"][0]
    in_t = next(x for x in info["tensors"] if x["name"] == in_name)
    worst, valid = 0.0, True
    for v in xs:
        if in_t["dtype"] == "FP32":
            x = np.array([[v]], dtype=np.float32)
        else:  # quantized input: use an arbitrary in-range integer (the check is reference == armlower)
            dt = np.int8 if in_t["dtype"] == "INT8" else np.int16
            x = np.array([[int(v * 17) - 50]], dtype=dt)
        outs, st = ref_run(t, x)
        valid = valid and st == trm.GraphStatus.TOSA_VALID
        ref = np.asarray(outs[0], dtype=np.float64).reshape(-1)
        mine = armlower_run(t, x).astype(np.float64).reshape(-1)
        if ref.shape != mine.shape:
            d = np.inf
        elif in_t["dtype"] == "FP32":
            d = float(np.max(np.abs(ref - mine) / np.maximum(1e-6, np.abs(ref))))
        else:
            d = float(np.max(np.abs(ref - mine)))
        worst = np.inf if np.isnan(d) else max(worst, d)
    tol = 1e-5 if in_t["dtype"] == "FP32" else 0
    check(valid and worst <= tol, f"hello_world_float {scheme} on {spec}: TOSA_VALID={valid}, "
          f"max difference reference vs armlower {worst:.3g} (allowed {tol})")

print("reference model:", "FAILED" if fails else "all passed")
sys.exit(1 if fails else 0)
