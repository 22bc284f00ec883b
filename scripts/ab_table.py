#!/usr/bin/env python3
"""Two kernels of one report side by side: the A/B a variant is kept or dropped by.

For every case (shape and types) where both kernels ran ok, the ratio is A's median time over
B's (above 1: B is the faster), and where the report holds a baseline row for the case (cuBLASLt
or cuBLAS, timed in the same run) each kernel's speed over it. Cases are grouped (by default by
scaling and M, the token count of a decode sweep) into a geometric mean with its range. Each
report is a table of its own: two boards are two reports, never pooled.

  scripts/ab_table.py REPORT [REPORT ...] --a fp8gemm_decode_sm90_wmc --b fp8gemm_decode_sm90_wmcfit
      [--by scale,m] [--shapes 4096x14336,8192x8192] [--rows]

--shapes keeps the cases of those N x K only (the layers a rule takes); --rows adds one line per
case. A case where either kernel is missing or not ok is left out and counted.
"""
import argparse
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_file import load_json, type_text  # noqa: E402

BASELINES = ("cublaslt", "cublas")


def case_key(r):
    return (type_text(r), r.get("layout", "tn"), r["m"], r["n"], r["k"])


def median_ms(r):
    t = r.get("time_ms")
    return t.get("median") if isinstance(t, dict) else t


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def cases_of(doc, a, b):
    """{case: {'a': ms, 'b': ms, 'base': ms or None}}, and how many cases lacked a or b ok."""
    seen = defaultdict(dict)
    for r in doc["results"]:
        if r.get("status") != "ok" or median_ms(r) is None:
            continue
        name = r["kernel"] if r.get("provider", "gemmbench") == "gemmbench" else r["provider"]
        seen[case_key(r)].setdefault(name, (median_ms(r), r))
    out, missing = {}, 0
    for key, by in seen.items():
        if a not in by or b not in by:
            if a in by or b in by:
                missing += 1
            continue
        base = next((by[p][0] for p in BASELINES if p in by), None)
        out[key] = {"a": by[a][0], "b": by[b][0], "base": base, "row": by[a][1]}
    return out, missing


def group_value(row, field):
    if field == "m":
        return row["m"]
    if field == "scale":
        return row.get("scale", "-")
    if field == "shape":
        return f"{row['n']}x{row['k']}"
    return row.get(field, "-")


def fmt_range(xs):
    return f"{geomean(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


def table(path, doc, args):
    cases, missing = cases_of(doc, args.a, args.b)
    if args.shapes:
        keep = set(args.shapes.split(","))
        cases = {k: v for k, v in cases.items() if f"{k[3]}x{k[4]}" in keep}
    fields = args.by.split(",") if args.by else []
    groups = defaultdict(list)
    for key, c in cases.items():
        groups[tuple(group_value(c["row"], f) for f in fields)].append((key, c))
    meta = doc.get("metadata", {})
    lines = [f"{path} ({meta.get('device', {}).get('name', '?')}, {meta.get('date_utc', '?')[:10]}, "
             f"git {str(meta.get('git_commit', '?'))[:7]}): {args.a} (A) against {args.b} (B)"]
    if not cases:
        lines.append("no case where both ran ok")
        return "\n".join(lines)
    head = " | ".join(fields) if fields else "all"
    lines += ["", f"| {head} | cases | A / B time | with a baseline | base / A | base / B |",
              "|---" * (max(len(fields), 1) + 5) + "|"]
    for g in sorted(groups):
        items = groups[g]
        ab = [c["a"] / c["b"] for _, c in items]
        with_base = [c for _, c in items if c["base"]]
        base_a = fmt_range([c["base"] / c["a"] for c in with_base]) if with_base else "-"
        base_b = fmt_range([c["base"] / c["b"] for c in with_base]) if with_base else "-"
        label = " | ".join(str(v) for v in g) if fields else "all"
        lines.append(f"| {label} | {len(items)} | {fmt_range(ab)} | {len(with_base)} | {base_a} "
                     f"| {base_b} |")
    if args.rows:
        lines += ["", "| types | M x N x K | A ms | B ms | A / B | base ms |", "|---" * 6 + "|"]
        for key, c in sorted(cases.items()):
            base = f"{c['base']:.5f}" if c["base"] else "-"
            lines.append(f"| {key[0]} | {key[2]}x{key[3]}x{key[4]} | {c['a']:.5f} | {c['b']:.5f} "
                         f"| {c['a'] / c['b']:.3f} | {base} |")
    if missing:
        lines.append(f"\n{missing} case(s) left out: only one of the two kernels ran ok")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--a", required=True, help="kernel A (the ratio's numerator: A's time)")
    ap.add_argument("--b", required=True, help="kernel B (the denominator)")
    ap.add_argument("--by", default="scale,m",
                    help="group by these comma-separated fields (scale, m, shape, dtype, ...; "
                         "empty: one group)")
    ap.add_argument("--shapes", help="only these N x K, comma-separated (e.g. 4096x14336)")
    ap.add_argument("--rows", action="store_true", help="one line per case too")
    args = ap.parse_args()
    out = []
    for path in args.reports:
        try:
            doc = load_json(path)
        except (OSError, ValueError, EOFError) as e:
            print(f"ab_table: cannot read {path}: {e}", file=sys.stderr)
            return 2
        if "results" not in doc:
            print(f"ab_table: {path} is not a gemmbench report", file=sys.stderr)
            return 2
        out.append(table(path, doc, args))
    print("\n\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
