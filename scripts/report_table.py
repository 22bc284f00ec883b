#!/usr/bin/env python3
"""Print a Markdown table of gemmbench JSON reports, for README.md and issue notes.

Every figure in the table is read from the reports given, so a README table can be regenerated
from what is committed under bench_results/ instead of being typed by hand.

  scripts/report_table.py bench_results/h100/*.json.gz [--kernels 'sgemm_*,cublas'] [--shape 4096x4096x4096]
"""
import argparse
import fnmatch
import sys

from report_file import load_json, type_text


def load(paths):
    rows = []
    for path in paths:
        try:
            doc = load_json(path)  # plain or gzip-compressed
        except (OSError, ValueError, EOFError) as e:
            sys.exit(f"report_table: cannot read {path}: {e}")
        if "results" not in doc or "metadata" not in doc:
            sys.exit(f"report_table: {path} is not a gemmbench report")
        meta = doc["metadata"]
        for r in doc["results"]:
            r["_source"] = path
            r["_device"] = meta["device"]["name"]
            r["_date"] = meta["date_utc"][:10]
            rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--kernels", default="*", help="comma list of globs (default: all)")
    ap.add_argument("--shape", help="only this MxNxK")
    ap.add_argument("--source", action="store_true", help="add a column naming the report file")
    args = ap.parse_args()
    globs = [g.strip() for g in args.kernels.split(",") if g.strip()]
    print("| kernel | MxNxK | layout | dtype/accum | median ms | TFLOP/s | vs cuBLAS | rel. error | status |"
          + (" report |" if args.source else ""))
    print("|---|---|---|---|---:|---:|---:|---:|---|" + ("---|" if args.source else ""))
    for r in load(args.reports):
        shape = f"{r['m']}x{r['n']}x{r['k']}"
        if args.shape and shape != args.shape:
            continue
        if not any(fnmatch.fnmatch(r["kernel"], g) for g in globs):
            continue
        t = r.get("time_ms")
        ms = f"{t['median']:.3f}" if t else "-"
        tf = f"{r['tflops']:.1f}" if r.get("tflops") is not None else "-"
        ratio = f"{r['ratio_to_cublas']:.3f}x" if r.get("ratio_to_cublas") is not None else "-"
        err = f"{r['error']['normwise']:.1e}" if r["error"]["verified"] else "-"
        status = r["status"] + (f" ({r['reason']})" if r["reason"] and r["status"] != "ok" else "")
        # Reports from before --data have no measure.data: uniform. Other data runs faster on a
        # power-capped GPU, so its rows say so in the table itself.
        data = r.get("measure", {}).get("data", "uniform")
        types = type_text(r) + (f" ({data} data)" if data != "uniform" else "")
        line = (f"| {r['kernel']} | {shape} | {r['layout']} | {types} | {ms} | {tf} | "
                f"{ratio} | {err} | {status} |")
        if args.source:
            line += f" {r['_source'].split('/')[-1]} |"
        print(line)


if __name__ == "__main__":
    main()
