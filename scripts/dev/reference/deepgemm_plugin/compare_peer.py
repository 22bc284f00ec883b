#!/usr/bin/env python3
"""Tables of one gemmbench report that holds fp8gemm, cuBLASLt and the DeepGEMM plugin's rows
(dense.json's runs), and, given DeepGEMM's own profiler figures on the same shapes
(deepgemm_bench.py's JSON lines), the check of the plugin's times against them.

  compare_peer.py REPORT.json[.gz] [--peer PEER.jsonl[.gz]] [--kernel fp8gemm]

Ratios are times over times, above 1 meaning the first named is faster: `fp8gemm / cuBLASLt` is
cuBLASLt's median over fp8gemm's, `fp8gemm / DeepGEMM` DeepGEMM's median over fp8gemm's, all from
the one report (same data, flush, regime and timer). Geomeans per M. With --peer: the plugin's
median in gemmbench over DeepGEMM's median in its own profiler, beside the same quotient for
cuBLASLt (gemmbench's tuned cuBLASLt row over torch._scaled_mm's block-scaled cuBLASLt call in
the peer's profiler): where the two quotients agree, the difference is the harness, not the
plugin.
"""
import argparse
import gzip
import json
import math
import sys


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def rows_of(report):
    """{(m, n, k): {kernel: median ms}} from a gemmbench report (whole or one row per line)."""
    results = report["results"] if isinstance(report, dict) else [
        r for r in report if "kernel" in r]
    out = {}
    for r in results:
        if r.get("status") != "ok" or not r.get("time_ms"):
            continue
        out.setdefault((r["m"], r["n"], r["k"]), {})[r["kernel"]] = r["time_ms"]["median"]
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report")
    ap.add_argument("--peer", help="deepgemm_bench.py's JSON lines on the same shapes")
    ap.add_argument("--kernel", default="fp8gemm", help="our kernel's row (default fp8gemm)")
    a = ap.parse_args()
    rows = rows_of(load_json(a.report))
    ours, base, peer = a.kernel, "cublas", "deepgemm"
    print(f"| M | N x K | cuBLASLt ms | {ours} ms | DeepGEMM ms | {ours} / cuBLASLt | "
          f"DeepGEMM / cuBLASLt | {ours} / DeepGEMM |")
    print("|---|---|---|---|---|---|---|---|")
    by_m = {}
    for (m, n, k), t in sorted(rows.items()):
        if not all(x in t for x in (ours, base, peer)):
            continue
        r1, r2, r3 = t[base] / t[ours], t[base] / t[peer], t[peer] / t[ours]
        by_m.setdefault(m, []).append((r1, r2, r3))
        print(f"| {m} | {n}x{k} | {t[base]:.4f} | {t[ours]:.4f} | {t[peer]:.4f} | {r1:.3f}x | "
              f"{r2:.3f}x | {r3:.3f}x |")
    if not by_m:
        sys.exit(f"compare_peer: {a.report} has no shape with {ours}, cublas and deepgemm rows")
    print()
    print(f"| M | shapes | {ours} / cuBLASLt | DeepGEMM / cuBLASLt | {ours} / DeepGEMM |")
    print("|---|---|---|---|---|")
    for m, rs in sorted(by_m.items()):
        g = [geomean([r[i] for r in rs]) for i in range(3)]
        print(f"| {m} | {len(rs)} | {g[0]:.3f}x | {g[1]:.3f}x | {g[2]:.3f}x |")
    if not a.peer:
        return
    print()
    print("| M | N x K | DeepGEMM: gemmbench ms | its profiler ms | quotient | cuBLASLt: gemmbench "
          "ms | torch._scaled_mm block ms | quotient |")
    print("|---|---|---|---|---|---|---|---|")
    plugin_q, lt_q = [], []
    for line in load_json(a.peer):
        key = (line["m"], line["n"], line["k"])
        t = rows.get(key, {})
        if peer not in t or "deepgemm_ms" not in line:
            continue
        q = t[peer] / line["deepgemm_ms"]
        plugin_q.append(q)
        lt = line.get("scaled_mm_block_ms")
        ql = t[base] / lt if lt and base in t else None
        if ql:
            lt_q.append(ql)
        print(f"| {key[0]} | {key[1]}x{key[2]} | {t[peer]:.4f} | {line['deepgemm_ms']:.4f} | "
              f"{q:.3f} | {t.get(base, float('nan')):.4f} | "
              f"{lt if lt else float('nan'):.4f} | {ql if ql else float('nan'):.3f} |")
    print(f"\ngeomean quotient (gemmbench over the peer's profiler): DeepGEMM {geomean(plugin_q):.3f}"
          f", cuBLASLt {geomean(lt_q):.3f}")


if __name__ == "__main__":
    main()
