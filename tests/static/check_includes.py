#!/usr/bin/env python3
"""Static checks over include/armlower (no compiler needed).

  check_includes.py citations INCLUDE_DIR  -- no header cites a file outside the repository
                                              (`../shared/...` or its reference notes).
  check_includes.py layering INCLUDE_DIR   -- the firmware modules stay below the hosted ones:
      core includes nothing of armlower; dtype/quant/mx/kernels/compat never include a hosted
      module (tosa, graph, passes, serialize, run, import, io, cortex_m); quant/mx/dtype never
      include kernels (no back-edge); firmware headers never include Boost.
Prints one line per violation (file:line: rule) and exits 1 when there is any.
"""
import pathlib
import re
import sys

# module -> modules of armlower it may include (itself always allowed)
ALLOWED = {
    "core": set(),
    "dtype": {"core"},
    "quant": {"core", "dtype"},
    "mx": {"core", "dtype"},
    "kernels": {"core", "dtype", "quant", "mx"},
    "compat": {"core", "dtype", "quant", "mx", "kernels"},
}
# firmware modules (the armlower::kernels target) must not need Boost; dtype/dispatch.hpp is the
# hosted Mp11 bridge and is never included by a firmware header.
NO_BOOST = {"core", "quant", "mx", "kernels", "compat"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
EXTERNAL = re.compile(r"\.\./shared|reference/(tosa|kernels|executorch-arm|oracles|anchors|style)\.md"
                      r"|\b(tosa|kernels|executorch-arm|oracles)\.md\b")


def headers(root):
    return sorted(p for p in root.rglob("*") if p.suffix in {".hpp", ".h", ".fbs"} and p.is_file())


def citations(root):
    bad = []
    for p in headers(root):
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if EXTERNAL.search(line):
                bad.append(f"{p}:{n}: cites a file outside the repository: {line.strip()}")
    return bad


def layering(root):
    bad = []
    base = root / "armlower"
    for p in headers(base):
        rel = p.relative_to(base).parts
        if len(rel) < 2 or rel[0] not in ALLOWED:
            continue
        module = rel[0]
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if target.startswith("boost/") and module in NO_BOOST:
                bad.append(f"{p}:{n}: firmware module '{module}' includes Boost: {target}")
            if target.startswith("armlower/"):
                parts = target.split("/")
                dep = parts[1] if len(parts) > 2 else parts[1].removesuffix(".hpp")
                if dep != module and dep not in ALLOWED[module]:
                    bad.append(f"{p}:{n}: '{module}' may not include '{dep}' ({target}); "
                               f"allowed: {sorted(ALLOWED[module]) or 'nothing of armlower'}")
    return bad


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in {"citations", "layering"}:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[2])
    if not (root / "armlower").is_dir():
        print(f"{root}: no armlower/ include directory", file=sys.stderr)
        return 2
    bad = citations(root) if sys.argv[1] == "citations" else layering(root)
    for b in bad:
        print(b)
    print(f"{sys.argv[1]}: {len(bad)} violation(s) in {root}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
