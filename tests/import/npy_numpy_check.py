"""Oracle check of armlower's .npy reader/writer against NumPy itself.

NumPy writes arrays of every supported dtype and shape; armlower reads and rewrites them; NumPy
loads the result and compares dtype, shape and bytes. Arrays armlower must refuse (big-endian,
Fortran order, unsupported dtypes) must give exit code 1 and one error line. Exit 77 = skip."""
import os, subprocess, sys
try:
    import numpy as np
except ImportError:
    print("numpy not installed: skipping"); sys.exit(77)

tool, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)
fails = 0
for dt in [np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.bool_]:
    for shape in [(), (5,), (2, 3, 4), (1, 256), (0, 3)]:
        a = (rng.standard_normal(shape) * 100).astype(dt)
        src, dst = f"{out}/in.npy", f"{out}/out.npy"
        np.save(src, a)
        r = subprocess.run([tool, src, dst], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL {np.dtype(dt)} {shape}: {r.stderr}"); fails += 1; continue
        b = np.load(dst)
        if b.dtype != a.dtype or b.shape != a.shape or b.tobytes() != a.tobytes():
            print(f"FAIL {np.dtype(dt)} {shape}: got {b.dtype} {b.shape}"); fails += 1
# large header (version 2.0 written by numpy for huge dict is rare; force via many dims)
bad = {
    "big-endian": np.arange(6, dtype=">i4").reshape(2, 3),
    "Fortran": np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
    "unsupported dtype": np.arange(4, dtype=np.float64),
    "unsupported dtype ": np.arange(4, dtype=np.uint16),
}
for what, a in bad.items():
    src = f"{out}/bad.npy"
    np.save(src, a)
    r = subprocess.run([tool, src, f"{out}/x.npy"], capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    key = what.strip().split()[0].lower()
    if r.returncode != 1 or len(lines) != 1 or key not in lines[0].lower():
        print(f"FAIL {what}: rc={r.returncode} stderr={r.stderr!r}"); fails += 1
    else:
        print(f"ok   refused {what}: {lines[0]}")
print("npy/numpy:", "FAILED" if fails else "all passed")
sys.exit(1 if fails else 0)
