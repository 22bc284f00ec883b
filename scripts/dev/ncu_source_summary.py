#!/usr/bin/env python3
"""Condense Nsight Compute's per-instruction source page (ncu -i REP --page source --csv
--print-source sass) to where the warps were sampled: the instructions holding the most warp-state
samples, each with its leading stall reasons, and the totals per reason.

usage: scripts/dev/ncu_source_summary.py SOURCE.csv [--top N]

The column names differ between ncu versions; any column whose name contains "Samples" counts as
a sample column, and the per-reason columns are the numeric ones whose names start with "stall"
(case-insensitive) or contain "Stall". The header is printed when no sample column is found.
"""
import argparse
import csv
import sys


def as_number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()

    with open(args.csv, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    # The first row that names a source column is the header (ncu may print notes before it).
    head = next((i for i, r in enumerate(rows) if any(c.strip() == "Source" for c in r)), None)
    if head is None:
        print("no header with a 'Source' column; first rows:", rows[:3])
        return 1
    header = [c.strip() for c in rows[head]]
    body = rows[head + 1:]
    src = header.index("Source")
    addr = next((i for i, c in enumerate(header) if c.lower() in ("address", "#address")), None)
    samples = [i for i, c in enumerate(header) if "Samples" in c and "Not" not in c]
    if not samples:
        print("no sample column; header:", header)
        return 1
    total_col = samples[0]
    reasons = [
        i for i, c in enumerate(header)
        if i not in samples and (c.lower().startswith("stall") or "Stall" in c)
    ]

    parsed = []
    for r in body:
        if len(r) < len(header):
            continue
        n = as_number(r[total_col]) or 0.0
        parsed.append((n, r))
    total = sum(n for n, _ in parsed)
    print(f"{len(parsed)} SASS lines, {total:.0f} samples in '{header[total_col]}'")
    if total == 0:
        return 0

    per_reason = {}
    for _, r in parsed:
        for i in reasons:
            v = as_number(r[i])
            if v:
                per_reason[header[i]] = per_reason.get(header[i], 0.0) + v
    if per_reason:
        print("samples per reason:",
              ", ".join(f"{k} {100 * v / total:.1f}%"
                        for k, v in sorted(per_reason.items(), key=lambda kv: -kv[1])[:10]))

    for n, r in sorted(parsed, key=lambda t: -t[0])[: args.top]:
        top = sorted(((as_number(r[i]) or 0.0, header[i]) for i in reasons), reverse=True)[:3]
        why = ", ".join(f"{name} {v:.0f}" for v, name in top if v > 0)
        where = r[addr] if addr is not None else ""
        print(f"{100 * n / total:5.1f}%  {where:>8}  {r[src].strip()[:60]:60}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
