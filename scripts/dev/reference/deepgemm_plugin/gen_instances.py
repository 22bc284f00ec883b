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

Grouped cases (DeepGEMM's m-grouped kernels, issue 51) come from --plan only: its e4m3 block128
rows whose grouping reads "G<g> ... contiguous/128 stored <rows>" (a multiple of 128: DeepGEMM's
contiguous layout) or "G<g> ... masked<=<max_m>"; each is instantiated with the configuration
DeepGEMM's m_grouped_gemm.py asks get_best_configs for (contiguous: the stored rows, one group,
BLOCK_M 128; masked: the mean M_g as expected_m, G groups) and written to table.cu's
kGroupedShapes.
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


GROUPED_RE = re.compile(r"\bG(\d+) m \S+ x\S+ (?:contiguous/(\d+) stored (\d+)|masked<=(\d+))")


def grouped_from_plan(path):
    """(kind, G, N, K, m, hint) of the plan's e4m3 block128 grouped rows: contiguous m = the stored
    rows (hint the same), masked m = max_m and hint = ceil(sum M_g / G), DeepGEMM's expected_m."""
    out = []
    if not path:
        return out
    for line in open(path):
        if "e4m3" not in line or "block128" not in line or "e5m2" in line:
            continue
        shape = re.search(r"\b(\d+)x(\d+)x(\d+)\b", line)
        g = GROUPED_RE.search(line)
        if not shape or not g:
            continue
        total, n, k = (int(v) for v in shape.groups())
        groups = int(g.group(1))
        if g.group(2):
            align, stored = int(g.group(2)), int(g.group(3))
            if align % 128:
                print(f"gen_instances: {line.split()[1]} G{groups} contiguous/{align} left out: "
                      f"DeepGEMM's contiguous layout pads each group to 128 rows "
                      f"(--group-align 128)", file=sys.stderr)
                continue
            item = ("contiguous", groups, n, k, stored, stored)
        else:
            max_m = int(g.group(4))
            item = ("masked", groups, n, k, max_m, max(1, -(-total // groups)))
        if item not in out:
            out.append(item)
    return out


def shapes_from_args_or_none(a):
    """A plan's dense e4m3 block128 rows (the grouped ones are read apart), none allowed."""
    out = []
    for line in open(a.plan):
        if "e4m3" in line and "block128" in line and "e5m2" not in line and not GROUPED_RE.search(line):
            m = re.search(r"\b(\d+)x(\d+)x(\d+)\b", line)
            if m:
                out.append(tuple(int(v) for v in m.groups()))
    return out


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
    grouped = grouped_from_plan(a.plan)
    shapes = []
    dense = shapes_from_args(a) if not (a.plan and grouped) else shapes_from_args_or_none(a)
    for s in dense:
        m, n, k = s
        if m < 1 or n % 64 or k % 128 or n == 0:
            print(f"gen_instances: {m}x{n}x{k} left out: DeepGEMM's dense API needs N % 64 == 0 "
                  f"and K % 128 == 0", file=sys.stderr)
        elif s not in shapes:
            shapes.append(s)
    if not shapes and not grouped:
        die("no shape left to build")

    instances, rows = [], []
    for (m, n, k) in shapes:
        num_sms, bm, bn, stages, (mc, on_a), smem = best_configs(m, n, k, 1, a.num_sms)
        key = (n, k, bm, bn, block_n_padding(bn), stages, mc, bool(on_a))
        if key not in instances:
            instances.append(key)
        rows.append((m, n, k, num_sms, smem, instances.index(key)))

    grouped_rows = []
    for (kind, groups, n, k, m, hint) in grouped:
        if n % 64 or k % 128:
            print(f"gen_instances: G{groups} {kind} {n}x{k} left out: DeepGEMM's m-grouped API "
                  f"needs N % 64 == 0 and K % 128 == 0", file=sys.stderr)
            continue
        if kind == "contiguous":  # m_grouped_gemm.py: get_best_configs(m, n, k, 1, ..., contiguous)
            cfg = best_configs(m, n, k, 1, a.num_sms, is_grouped_contiguous=True)
        else:  # get_best_configs(expected_m, n, k, num_groups, ..., masked)
            cfg = best_configs(hint, n, k, groups, a.num_sms, is_grouped_masked=True)
        num_sms, bm, bn, stages, (mc, on_a), smem = cfg
        gemm_type = "GroupedContiguous" if kind == "contiguous" else "GroupedMasked"
        key = (n, k, bm, bn, block_n_padding(bn), stages, mc, bool(on_a), groups, gemm_type)
        if key not in instances:
            instances.append(key)
        grouped_rows.append((kind, groups, n, k, m, num_sms, smem, instances.index(key)))

    os.makedirs(a.out, exist_ok=True)
    instances = [key if len(key) == 10 else key + (1, "Normal") for key in instances]
    for i, (n, k, bm, bn, pad, st, mc, on_a, groups, gemm_type) in enumerate(instances):
        with open(os.path.join(a.out, f"instance_{i}.cu"), "w") as f:
            f.write(f"// Generated by gen_instances.py: DeepGEMM's Gemm<N={n}, K={k}, BLOCK_M={bm}, "
                    f"BLOCK_N={bn}, stages {st}, multicast {mc}{' on A' if on_a else ''}>.\n"
                    f'#include "instance.cuh"\n\n'
                    f"namespace gb_deepgemm {{\n"
                    f"extern const Instance kInstance{i};\n"
                    f"const Instance kInstance{i} = Make<{n}, {k}, {bm}, {bn}, {pad}, {st}, {mc}, "
                    f"{'true' if on_a else 'false'}, {groups}, deep_gemm::GemmType::{gemm_type}>"
                    f"::instance();\n"
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
        f.write("const GroupedShape kGroupedShapes[] = {\n")
        for (kind, groups, n, k, m, sms, smem, i) in grouped_rows:
            f.write(f"    {{{'kContiguous' if kind == 'contiguous' else 'kMasked'}, {groups}, {n}, "
                    f"{k}, {m}, {sms}, {smem}, &kInstance{i}}},\n")
        if not grouped_rows:
            f.write("    {0, 0, 0, 0, 0, 0, 0, nullptr},  // none: a zero-length array is not C++\n")
        f.write("};\n")
        f.write(f"const int kNumGroupedShapes = {len(grouped_rows)};\n")
        f.write(f"const int kBuiltForSms = {a.num_sms};\n")
        f.write(f"const char* const kBuiltFrom = {json.dumps(provenance(a.deepgemm))};\n")
        f.write("}  // namespace gb_deepgemm\n")
    for (kind, groups, n, k, m, sms, smem, i) in grouped_rows:
        bm, bn, st, mc = instances[i][2], instances[i][3], instances[i][5], instances[i][6]
        print(f"G{groups} {kind} m {m} {n}x{k}: BLOCK_M {bm} BLOCK_N {bn} stages {st} "
              f"multicast {mc} grid {sms} smem {smem} -> instance_{i}.cu")
    for (m, n, k, sms, smem, i) in rows:
        n_, k_, bm, bn, pad, st, mc, on_a = instances[i][:8]
        on = (" on A" if on_a else " on B") if mc > 1 else ""
        print(f"{m}x{n}x{k}: BLOCK_M {bm} BLOCK_N {bn} stages {st} multicast {mc}{on}"
              f" grid {sms} smem {smem}"
              f" -> instance_{i}.cu")


if __name__ == "__main__":
    main()
