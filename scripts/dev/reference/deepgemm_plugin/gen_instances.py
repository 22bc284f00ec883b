#!/usr/bin/env python3
"""Writes the ahead-of-time instantiations of DeepGEMM's dense FP8 kernel for gemmbench's DeepGEMM
plugin (scripts/dev/reference/deepgemm_plugin, docs/plugins.md "DeepGEMM in the harness").

DeepGEMM (v1, 677143b) compiles one kernel per (N, K, tile configuration) at run time: its
`get_best_configs` (deep_gemm/jit_kernels/gemm.py) picks BLOCK_M, BLOCK_N, the stage count, TMA
multicast and the grid size from (M, N, K) and the SM count, and its JIT compiles the template with
those constants. This script runs DeepGEMM's own `get_best_configs`, read from the checkout (its
source, executed without torch), over the shapes asked for, and writes:
  instance_<i>.cu  one file per distinct (N, K, configuration): the template instantiated, as the
                   JIT's generated source would instantiate it;
  table.cu         each shape (M, N, K) with the configuration DeepGEMM chooses and its instance;
                   the plugin runs exactly these shapes and declines any other with the reason.
So the configuration is DeepGEMM's choice, not ours. The compile flags are the JIT's (CMakeLists.txt
beside this file). DeepGEMM's JIT post-processes the SASS (its FFMA interleave) only with nvcc 12.8
or older; CMakeLists.txt refuses such an nvcc, so with the nvcc it accepts the AOT kernels are the
JIT's.

Shapes: --shapes MxNxK,... | --m LIST --nk NxK,... | --config FILE (a gemmbench config's runs with
explicit "shapes") | --plan FILE (the output of `gemmbench ... --dry-run`: its e4m3 block128 rows).
Shapes DeepGEMM's dense API refuses (N not a multiple of 64, K not a multiple of 128) are left out
and listed on stderr.
"""
import argparse
import ast
import functools
import json
import math
import os
import re
import sys
import typing

# DeepGEMM's README shapes: M 64, 128, 4096 times DeepSeek-V3's dense (N, K) (issue 50's targets).
DEFAULT_M = "64,128,4096"
DEFAULT_NK = "2112x7168,24576x1536,32768x512,7168x16384,4096x7168,7168x2048"
GEMM_FUNCS = ("is_tma_multicast_legal", "get_block_n_padding_for_smem_d", "get_smem_size",
              "get_best_configs")
UTIL_FUNCS = ("ceil_div", "get_m_alignment_for_contiguous_layout")


def die(msg):
    print(f"gen_instances: {msg}", file=sys.stderr)
    sys.exit(2)


def load_deepgemm_heuristic(root):
    """DeepGEMM's get_best_configs and what it calls, from the checkout's own source."""
    pkg = os.path.join(root, "deep_gemm")
    ns = {"math": math, "lru_cache": functools.lru_cache, "Tuple": typing.Tuple}
    for rel, names in (("jit_kernels/utils.py", UTIL_FUNCS), ("jit_kernels/gemm.py", GEMM_FUNCS)):
        path = os.path.join(pkg, rel)
        try:
            tree = ast.parse(open(path).read(), path)
        except OSError as e:
            die(f"cannot read {path} ({e.strerror}): is {root} a DeepGEMM checkout or an unpacked "
                f"deepgemm_pack.sh archive?")
        found = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        missing = [n for n in names if n not in found]
        if missing:
            die(f"{path} has no {', '.join(missing)}: this script follows DeepGEMM v1 (677143b)")
        module = ast.Module(body=[found[n] for n in names], type_ignores=[])
        exec(compile(module, path, "exec"), ns)
    return ns["get_best_configs"], ns["get_block_n_padding_for_smem_d"]


def provenance(root):
    packed = os.path.join(root, "deep_gemm", "PACKED_FROM")
    if os.path.exists(packed):
        return " / ".join(l.strip() for l in open(packed) if l.strip())
    head = os.path.join(root, ".git", "HEAD")
    if os.path.exists(head):
        ref = open(head).read().strip()
        if ref.startswith("ref: "):
            ref_path = os.path.join(root, ".git", ref[5:])
            ref = open(ref_path).read().strip() if os.path.exists(ref_path) else ref
        return f"DeepGEMM {ref} (checkout {root})"
    return f"DeepGEMM at {root} (no commit recorded)"


def parse_triples(text, what):
    out = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        m = re.fullmatch(r"(\d+)x(\d+)x(\d+)", item)
        if not m:
            die(f"{what}: '{item}' is not MxNxK")
        out.append(tuple(int(v) for v in m.groups()))
    return out


def shapes_from_args(a):
    if a.shapes:
        return parse_triples(a.shapes, "--shapes")
    if a.config:
        cfg = json.load(open(a.config))
        out = []
        for run in cfg.get("runs", []):
            for s in run.get("shapes", []):
                out.append(tuple(int(v) for v in s))
        if not out:
            die(f"--config {a.config}: no run gives explicit \"shapes\"; for presets, pass the "
                f"output of `gemmbench --config {a.config} --dry-run` with --plan")
        return out
    if a.plan:
        out = []
        for line in open(a.plan):
            if "e4m3" in line and "block128" in line and "e5m2" not in line:
                m = re.search(r"\b(\d+)x(\d+)x(\d+)\b", line)
                if m:
                    out.append(tuple(int(v) for v in m.groups()))
        if not out:
            die(f"--plan {a.plan}: no e4m3 block128 row (a `gemmbench --dry-run` listing)")
        return out
    ms = [int(v) for v in a.m.split(",") if v]
    nks = []
    for item in a.nk.split(","):
        m = re.fullmatch(r"(\d+)x(\d+)", item.strip())
        if not m:
            die(f"--nk: '{item}' is not NxK")
        nks.append((int(m.group(1)), int(m.group(2))))
    return [(m_, n, k) for m_ in ms for (n, k) in nks]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deepgemm", required=True, help="DeepGEMM checkout or unpacked pack")
    ap.add_argument("--out", required=True, help="folder for instance_*.cu and table.cu")
    ap.add_argument("--num-sms", type=int, default=132, help="the device's SMs (H100 SXM: 132)")
    ap.add_argument("--shapes", help="MxNxK,...")
    ap.add_argument("--m", default=DEFAULT_M)
    ap.add_argument("--nk", default=DEFAULT_NK)
    ap.add_argument("--config", help="a gemmbench config with explicit shapes")
    ap.add_argument("--plan", help="`gemmbench --dry-run` output")
    a = ap.parse_args()

    best_configs, block_n_padding = load_deepgemm_heuristic(a.deepgemm)
    shapes = []
    for s in shapes_from_args(a):
        m, n, k = s
        if m < 1 or n % 64 or k % 128 or n == 0:
            print(f"gen_instances: {m}x{n}x{k} left out: DeepGEMM's dense API needs N % 64 == 0 "
                  f"and K % 128 == 0", file=sys.stderr)
        elif s not in shapes:
            shapes.append(s)
    if not shapes:
        die("no shape left to build")

    instances, rows = [], []
    for (m, n, k) in shapes:
        num_sms, bm, bn, stages, (mc, on_a), smem = best_configs(m, n, k, 1, a.num_sms)
        key = (n, k, bm, bn, block_n_padding(bn), stages, mc, bool(on_a))
        if key not in instances:
            instances.append(key)
        rows.append((m, n, k, num_sms, smem, instances.index(key)))

    os.makedirs(a.out, exist_ok=True)
    for i, (n, k, bm, bn, pad, st, mc, on_a) in enumerate(instances):
        with open(os.path.join(a.out, f"instance_{i}.cu"), "w") as f:
            f.write(f"// Generated by gen_instances.py: DeepGEMM's Gemm<N={n}, K={k}, BLOCK_M={bm}, "
                    f"BLOCK_N={bn}, stages {st}, multicast {mc}{' on A' if on_a else ''}>.\n"
                    f'#include "instance.cuh"\n\n'
                    f"namespace gb_deepgemm {{\n"
                    f"extern const Instance kInstance{i};\n"
                    f"const Instance kInstance{i} = Make<{n}, {k}, {bm}, {bn}, {pad}, {st}, {mc}, "
                    f"{'true' if on_a else 'false'}>::instance();\n"
                    f"}}  // namespace gb_deepgemm\n")
    with open(os.path.join(a.out, "table.cu"), "w") as f:
        f.write("// Generated by gen_instances.py: each shape with DeepGEMM's own configuration.\n"
                '#include "deepgemm_plugin.hpp"\n\nnamespace gb_deepgemm {\n')
        for i in range(len(instances)):
            f.write(f"extern const Instance kInstance{i};\n")
        f.write("const Shape kShapes[] = {\n")
        for (m, n, k, sms, smem, i) in rows:
            f.write(f"    {{{m}, {n}, {k}, {sms}, {smem}, &kInstance{i}}},\n")
        f.write("};\n")
        f.write(f"const int kNumShapes = {len(rows)};\n")
        f.write(f"const int kBuiltForSms = {a.num_sms};\n")
        f.write(f"const char* const kBuiltFrom = {json.dumps(provenance(a.deepgemm))};\n")
        f.write("}  // namespace gb_deepgemm\n")
    for (m, n, k, sms, smem, i) in rows:
        n_, k_, bm, bn, pad, st, mc, on_a = instances[i]
        on = (" on A" if on_a else " on B") if mc > 1 else ""
        print(f"{m}x{n}x{k}: BLOCK_M {bm} BLOCK_N {bn} stages {st} multicast {mc}{on}"
              f" grid {sms} smem {smem}"
              f" -> instance_{i}.cu")


if __name__ == "__main__":
    main()
