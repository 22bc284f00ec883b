#!/usr/bin/env python3
"""Reference measurement (not part of gemmbench's build): PyTorch's grouped GEMM on gemmbench's
grouped cases (issue 51, docs/grouped.md), the peer a Mixture-of-Experts engineer reaches for.

Providers:
  grouped_mm  torch.nn.functional.grouped_mm (torch._grouped_mm where F has none): one call over
              all groups, A [sum M_g, K] with cumulative row ends `offs`, the weights [G, N, K]
              passed as their (G, K, N) transpose view (column-major per group, as the operator
              wants)
  loop        one torch.mm per group with rows into its slice of C (a Python loop: what an engine
              without a grouped kernel runs)

Cases: the grouped cases of a gemmbench JSON report (--report: its cublas rows' groups, so the
M_g are gemmbench's own routing), or one given here (--group-m LIST --n N --k K). Only the
contiguous layout without padding is run: grouped_mm's groups are the ranges between cumulative
row ends, so a padded layout would compute the padding rows as the next group's and a masked one
every stored row; those cases are written with the reason and skipped.

Inputs: A and the weights uniform [-1, 1) from a seeded torch generator, in the case's type
(bf16 or f16): gemmbench's distribution, not its values. C is [sum M_g, N], N-contiguous, as
gemmbench's (core/include/core/grouping.hpp). FLOP = 2 * sum(M_g) * N * K, as gemmbench counts.

Timing: deepgemm_bench.py's harness, imported from beside this file: the device span of each
call's kernels from the CUDA profiler, the L2 made cold before every sample outside it, each
provider alone in blocks (its own loop untimed for --warmup-s, then --samples samples), blocks
forward then backward over the providers; the median of all of a provider's samples.

Verification, before timing: each provider's rows of every group against an fp64 product of the
same inputs (group by group), normwise, held to gemmbench's bound for the type (2 u_out + 2^-24
sqrt(K), src/verify/tolerance.hpp).

Setup on the GPU host (it has PyTorch; scripts/dev/reference/README.md):
  python3 scripts/dev/reference/grouped_bench.py --report moe_bf16.json --out $OUT/grouped.jsonl

One JSON line per case on stdout and in --out, as each case ends; progress on stderr.
"""
import argparse
import json
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from deepgemm_bench import (L2Flush, compare, dated_environment, emit, log, median,  # noqa: E402
                            sequence_of, time_block)

PROVIDERS = ("grouped_mm", "loop")
TYPES = {"bf16": (torch.bfloat16, 2.0**-8), "f16": (torch.float16, 2.0**-11)}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--report", help="a gemmbench JSON report: its grouped cases")
    p.add_argument("--group-m", help="M_g, comma-separated (with --n and --k)")
    p.add_argument("--n", type=int)
    p.add_argument("--k", type=int)
    p.add_argument("--dtype", default="bf16", choices=sorted(TYPES))
    p.add_argument("--providers", default=",".join(PROVIDERS))
    p.add_argument("--samples", type=int, default=50)
    p.add_argument("--blocks", type=int, default=2, help="blocks per provider (forward, back)")
    p.add_argument("--warmup-s", type=float, default=1.0)
    p.add_argument("--flush-mb", type=int, default=256)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out")
    a = p.parse_args()
    a.providers = [x for x in a.providers.split(",") if x]
    bad = [x for x in a.providers if x not in PROVIDERS]
    if bad:
        p.error(f"unknown provider(s) {bad}; known: {', '.join(PROVIDERS)}")
    if bool(a.report) == bool(a.group_m):
        p.error("give --report or --group-m (with --n and --k), one of them")
    if a.group_m and (not a.n or not a.k):
        p.error("--group-m needs --n and --k")
    return a


def cases_of(a):
    """(dtype, layout note, M_g list, N, K, label) of every distinct grouped case asked for."""
    if a.group_m:
        m = [int(x) for x in a.group_m.split(",")]
        return [{"dtype": a.dtype, "m": m, "n": a.n, "k": a.k, "layout": "contiguous",
                 "align": 1, "label": "given"}]
    rows = json.load(open(a.report))["results"]
    seen, out = set(), []
    for r in rows:
        g = r.get("grouped")
        if not g or r.get("kernel") != "cublas":
            continue
        key = (r["dtype"], tuple(g["m"]), r["n"], r["k"], g["layout"], g.get("align", 1),
               g.get("max_m"))
        if key in seen:
            continue
        seen.add(key)
        preset = r.get("preset") or {}
        out.append({"dtype": r["dtype"], "m": list(g["m"]), "n": r["n"], "k": r["k"],
                    "layout": g["layout"], "align": g.get("align", 1), "max_m": g.get("max_m"),
                    "label": f"{preset.get('model', '')} {preset.get('layer', '')}".strip()})
    return out


def grouped_mm_fn():
    f = getattr(torch.nn.functional, "grouped_mm", None)
    return f if f is not None else torch._grouped_mm


def run_case(a, c, flush, flush_seq):
    row = {"tool": "grouped_bench", "label": c["label"], "dtype": c["dtype"], "n": c["n"],
           "k": c["k"], "groups": len(c["m"]), "m": c["m"], "rows": sum(c["m"])}
    if c["dtype"] not in TYPES:
        row["skipped"] = f"type {c['dtype']}: the peer runs bf16 and f16"
        return row
    if c["layout"] != "contiguous" or c.get("align", 1) != 1:
        row["skipped"] = (f"layout {c['layout']} (align {c.get('align', 1)}): grouped_mm would "
                          "compute padding or masked rows as a group's")
        return row
    dtype, u_out = TYPES[c["dtype"]]
    m, n, k = c["m"], c["n"], c["k"]
    total, groups = sum(m), len(m)
    gen = torch.Generator(device="cuda").manual_seed(a.seed)
    a_x = (torch.rand(total, k, device="cuda", generator=gen) * 2 - 1).to(dtype)
    w = (torch.rand(groups, n, k, device="cuda", generator=gen) * 2 - 1).to(dtype)
    ends = torch.tensor([sum(m[:i + 1]) for i in range(groups)], dtype=torch.int32,
                        device="cuda")
    starts = [sum(m[:i]) for i in range(groups)]
    # C: the loop writes into its own; grouped_mm returns a fresh one each call (no out=).
    out = {"loop": torch.empty(total, n, dtype=dtype, device="cuda"), "grouped_mm": None}
    gmm = grouped_mm_fn()

    def call_grouped_mm():
        out["grouped_mm"] = gmm(a_x, w.transpose(-2, -1), offs=ends)

    def call_loop():
        c_ = out["loop"]
        for g in range(groups):
            if m[g]:
                r0, r1 = starts[g], starts[g] + m[g]
                torch.mm(a_x[r0:r1], w[g].t(), out=c_[r0:r1])

    calls = {"grouped_mm": call_grouped_mm, "loop": call_loop}
    # Verification: the loop's C poisoned with NaN first (grouped_mm's is its own, fresh).
    tol = 2 * u_out + 2.0**-24 * math.sqrt(k)
    ref = torch.empty(total, n, dtype=torch.float64, device="cuda")
    for g in range(groups):
        if m[g]:
            r0, r1 = starts[g], starts[g] + m[g]
            ref[r0:r1] = a_x[r0:r1].double() @ w[g].double().t()
    row["errors"] = {}
    for p in a.providers:
        if out[p] is not None:
            out[p].fill_(float("nan"))
        try:
            calls[p]()
            torch.cuda.synchronize()
            e = compare(out[p][:total], ref)
            e["pass"] = e["normwise"] is not None and e["normwise"] <= tol
        except Exception as ex:  # an operator this torch lacks, or one that refuses the case
            e = {"pass": False, "error": f"{type(ex).__name__}: {ex}"}
        e["tolerance"] = tol
        row["errors"][p] = e
    del ref
    timed = [p for p in a.providers if row["errors"][p]["pass"]]
    samples = {p: [] for p in timed}
    seqs = {p: sequence_of(calls[p]) for p in timed}
    for b in range(a.blocks):  # A B ... then ... B A: a linear drift weighs each alike
        for p in timed if b % 2 == 0 else timed[::-1]:
            samples[p] += time_block(calls[p], flush, flush_seq, seqs[p], a.samples, a.warmup_s)
    flop = 2.0 * total * n * k
    for p in timed:
        ms = median(samples[p])
        row[p + "_ms"] = ms
        row[p + "_tflops"] = flop / (ms * 1e-3) / 1e12
        row[p + "_samples"] = len(samples[p])
    return row


def main():
    a = parse_args()
    if not torch.cuda.is_available():
        print("grouped_bench: no CUDA device", file=sys.stderr)
        return 1
    torch.cuda.init()
    env = dated_environment(None)
    method = {
        "timing": "device kernel span per call from the CUDA profiler (CUPTI), median of all "
                  "samples; kernels only (the loop's span runs from its first kernel to its last)",
        "l2": f"cold: {a.flush_mb} MiB write, then a read-only pass over another {a.flush_mb} MiB, "
              "before each sample",
        "regime": f"blocks {a.blocks} per provider (forward, then backward), each {a.warmup_s} s "
                  f"of its own flush+call loop untimed, then {a.samples} samples",
        "inputs": f"uniform [-1,1) (torch.Generator('cuda'), seed {a.seed}) in the case's type",
        "verification": "normwise vs fp64 of the same inputs, group by group; gemmbench's bound",
    }
    cases = cases_of(a)
    log(f"grouped_bench: {env['device']}, torch {env['torch']}, {len(cases)} cases, providers "
        f"{','.join(a.providers)}")
    flush = L2Flush(a.flush_mb)
    flush_seq = sequence_of(flush)
    out = open(a.out, "w") if a.out else None
    status = 0
    for c in cases:
        t0 = time.perf_counter()
        try:
            row = run_case(a, c, flush, flush_seq)
        except Exception as e:
            row = {"tool": "grouped_bench", "label": c["label"], "n": c["n"], "k": c["k"],
                   "m": c["m"], "error": f"{type(e).__name__}: {e}"}
            status = 1
        row["method"], row["env"] = method, env
        emit(row, out)
        log(f"  {c['label']} G{len(c['m'])} rows {sum(c['m'])} {c['n']}x{c['k']}: "
            + (row.get("skipped") or row.get("error") or ", ".join(
                f"{p} {row.get(p + '_ms', 'FAIL')} ms" for p in a.providers))
            + f" ({time.perf_counter() - t0:.1f} s)")
        torch.cuda.empty_cache()
    if out:
        out.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
