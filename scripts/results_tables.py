#!/usr/bin/env python3
"""Write the current numbers out of the reports in bench_results/<gpu>/latest/: docs/results.md
(every table) and the headline table of README.md (between its two `results_tables.py` marker
lines). Nothing here is typed by hand: every figure is read from a committed report, so the
numbers cannot drift from the reports. scripts/update_latest.sh runs it after a run; the host
test `results_tables_current` runs it with --check.

  scripts/results_tables.py            rewrite docs/results.md and README.md's headline table
  scripts/results_tables.py --check    exit 1, naming the file, when either is not what the
                                       reports give
  scripts/results_tables.py --root DIR the same for another tree (the tests' fixtures)

A ratio is the row's `ratio_to_cublas` (`ratio_to_cublaslt` where the row's baseline is cuBLASLt
alone): the baseline's median over the kernel's, above 1 the kernel is faster. FP8 rows are
compared with cuBLASLt FP8 in the same scaling. Over preset layers a cell is the geometric mean
over the layers, with the lowest ratio in parentheses.
"""
import argparse
import glob
import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_file import load_json, type_text  # noqa: E402

BASELINES = ("cublas", "cublaslt")
BEGIN = "<!-- results_tables.py: headline, begin (generated: edit the script, not this) -->"
END = "<!-- results_tables.py: headline, end -->"
# The GPU whose reports the README's headline table quotes.
HEADLINE_GPU = "h100"
LADDER_SHAPE = (5120, 4096, 4096)

# The ladder: rung, its kernels, what each adds, and where its own figure comes from in latest/:
# (report, kernel, types) at LADDER_SHAPE, or None where the rung's figures are its document's.
RUNGS = [
    ("S1", "`sgemm_naive`", "one thread per C element, warp along N: every access its own transaction",
     ("default", "sgemm_naive", ["f32/f32"]), "sgemm.md"),
    ("S2", "`sgemm_coalesced`", "warp along M, the contiguous dimension of C and A in NN",
     ("default", "sgemm_coalesced", ["f32/f32"]), "sgemm.md"),
    ("S3", "`sgemm_smem`", "32x32 tiles of A and B staged in shared memory",
     ("default", "sgemm_smem", ["f32/f32"]), "sgemm.md"),
    ("S4", "`sgemm_blocktile_1d`", "each thread a column of 8 results (1D register blocking)",
     ("default", "sgemm_blocktile_1d", ["f32/f32"]), "sgemm.md"),
    ("S5", "`sgemm_blocktile_2d`", "each thread an 8x8 tile (2D register blocking)",
     ("default", "sgemm_blocktile_2d", ["f32/f32"]), "sgemm.md"),
    ("S6", "`sgemm_vectorized`", "128-bit global loads; A tile transposed so shared loads vectorize",
     ("default", "sgemm_vectorized", ["f32/f32"]), "sgemm.md"),
    ("S7", "`sgemm_warptile`", "warp tiles between block and thread tiles",
     ("default", "sgemm_warptile", ["f32/f32"]), "sgemm.md"),
    ("S8", "`sgemm_pipelined`", "3-stage cp.async pipeline, 256x128x8 tile, 64x64 warp tiles",
     ("default", "sgemm_pipelined", ["f32/f32"]), "sgemm.md"),
    ("S9", "`sgemm_splitk`, `sgemm_streamk`, `sgemm_decode_gemv`",
     "the work cut to fit the SMs, deterministic f32 fix-up: split-K with tiles sized to M at few "
     "rows; stream-K where tiles fill the waves unevenly; a matrix-vector product at one row",
     None, "sgemm.md"),
    ("H1", "`hgemm_wmma`", "tensor cores through WMMA 16x16x16 from padded shared tiles",
     ("hgemm_ladder", "hgemm_wmma", ["f16/f16", "f16/f32"]), "hgemm-ampere.md"),
    ("H2", "`hgemm_mma`", "`mma.sync` m16n8k16 fed by `ldmatrix.x4`",
     ("hgemm_ladder", "hgemm_mma", ["f16/f16", "f16/f32"]), "hgemm-ampere.md"),
    ("H3", "`hgemm_tn`", "cp.async ring, XOR swizzle, register double-buffering, rasterization, "
     "persistent 128x256x64 tiles", ("hgemm_ladder", "hgemm_tn", ["f16/f16", "f16/f32"]),
     "hgemm-ampere.md"),
    ("H4", "`hgemm_nn`, `_nt`, `_tt`", "the same for MN-major operands, read with `ldmatrix.trans`",
     ("hgemm_ladder", "hgemm_nn,hgemm_nt,hgemm_tt", ["f16/f16", "f16/f32"]), "hgemm-ampere.md"),
    ("H10", "`hgemm_tn_sm90`", "Hopper: TMA, mbarriers, wgmma, warp specialization, 2-CTA multicast, "
     "deferred TMA-store epilogue; variants: stream-K tails, cuBLAS's 192x192 tile",
     ("hgemm_ladder", "hgemm_tn_sm90", ["f16/f16", "f16/f32"]), "hgemm-hopper.md"),
    ("H11", "`hgemm_decode`, `hgemm_decode_gemv`, `hgemm_decode_gemv_tc`",
     "decode (M <= 128 tokens, TN): weights as mma's M side, stream-K split over all SMs; the GEMV "
     "variants: one token on CUDA cores, 2-16 tokens with weights straight into mma.sync fragments",
     None, "hgemm-hopper.md"),
    ("H12", "`hgemm_decode_sm90`, `_n64`, `_n64_cs`, `_n48`, `_wmc`",
     "decode on Hopper: H10's TMA + wgmma kernel with the tokens as wgmma's narrow N, K split over "
     "a cluster where tiles are few, narrower weight tiles and TMA multicast of a weight tile",
     None, "hgemm-hopper.md"),
    ("F1-F3", "`fp8gemm_sm90`, `_persistent`, `_persistent_t` and its variants",
     "FP8 on H10's TMA + wgmma ring with DeepSeek's block scales, made persistent, then turned "
     "around (two A rows per thread), pipelined promotion, 128x192 tiles, stream-K", None, "fp8.md"),
    ("F4", "`fp8gemm_decode`", "FP8 decode at 1-16 tokens: weights straight into mma.sync m16n8k32 "
     "fragments", None, "fp8.md"),
    ("F5", "`fp8gemm_decode_sm90`, `_n64`, `_n64_cs`",
     "FP8 decode on Hopper (1-128 tokens, every scaling): H12's kernel and tiles on e4m3, each "
     "k-block promoted (times its block scales with block128)", None, "fp8.md"),
]

# The README's headline figures (HEADLINE_GPU): what, report, and how to read it from the rows.
HEADLINE = [
    ("HGEMM top rung `hgemm_tn_sm90`, 5120x4096x4096, f16 / f32 accumulate", "hgemm_ladder",
     dict(kernel="hgemm_tn_sm90", shape=LADDER_SHAPE, types=["f16/f16", "f16/f32"])),
    ("SGEMM top rung `sgemm_pipelined`, 5120x4096x4096, f32", "default",
     dict(kernel="sgemm_pipelined", shape=LADDER_SHAPE, types=["f32/f32"])),
    ("`hgemm` over 16 LLM layers at 4096 tokens, f16 / bf16", "llm_prefill",
     dict(kernel="hgemm", tokens=4096, types=["f16/f32", "bf16/f32"])),
    ("`hgemm` over 16 decode layers at 1 / 16 / 64 / 128 tokens, f16", "llm_decode",
     dict(kernel="hgemm", tokens=[1, 16, 64, 128], types=["f16/f32"])),
    ("`fp8gemm` at 4096 tokens: Llama 3 per-tensor / per-row, DeepSeek-V3 block128",
     "llm_fp8_prefill", dict(kernel="fp8gemm", tokens=4096, scales=["tensor", "row", "block128"])),
    ("`fp8gemm` at 8 tokens: Llama 3 per-tensor / per-row, DeepSeek-V3 block128", "llm_fp8_decode",
     dict(kernel="fp8gemm", tokens=8, scales=["tensor", "row", "block128"])),
]


# What a grouped run's cells divide (runner: the faster cuBLAS way is the row's baseline).
GROUPED_NOTE = ("Grouped expert layers (the config's MoE models), by the tokens routed to them: a "
                "kernel's ratio is to the faster of cuBLAS's two ways (a `cublas` call per "
                "expert, the grouped API), its row naming which; `cublas_grouped`'s is to the "
                "per-expert loop; FP8's to cuBLASLt, one call per expert (cuBLAS has no grouped "
                "FP8). A row's M is the routed rows, tokens x top-k.")


def ratio(row):
    baseline = (row.get("measure") or {}).get("baseline", "cublas")
    key = "ratio_to_cublaslt" if baseline == "cublaslt" else "ratio_to_cublas"
    return row.get(key)


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fmt_ratio(v):
    return f"{v:.3f}x"


def load_latest(root):
    """{gpu: {config name: report}} for every bench_results/<gpu>/latest/, sorted."""
    out = {}
    for folder in sorted(glob.glob(os.path.join(root, "bench_results", "*", "latest"))):
        gpu = os.path.basename(os.path.dirname(folder))
        docs = {}
        for path in sorted(glob.glob(os.path.join(folder, "*.json.gz")) +
                           glob.glob(os.path.join(folder, "*.json"))):
            name = os.path.basename(path).split(".json")[0]
            docs[name] = load_json(path)
        if docs:
            out[gpu] = docs
    return out


def timed_rows(doc):
    return [r for r in doc["results"] if r["kernel"] not in BASELINES]


def shape_of(r):
    return (r["m"], r["n"], r["k"])


def cell(rows):
    """A table cell over rows of one series and column: one ratio, or the geometric mean over
    preset layers with the lowest in parentheses; rows not ok are counted beside it."""
    ok = [ratio(r) for r in rows if r["status"] == "ok" and ratio(r)]
    not_ok = {}
    for r in rows:
        if r["status"] != "ok":
            not_ok[r["status"]] = not_ok.get(r["status"], 0) + 1
    text = ""
    if len(ok) == 1 and len(rows) == 1:
        text = fmt_ratio(ok[0])
    elif ok:
        text = f"{fmt_ratio(geomean(ok))} ({fmt_ratio(min(ok))})"
    elif not not_ok:
        text = "no ratio"
    extra = ", ".join(f"{n} {s}" for s, n in sorted(not_ok.items()))
    return "; ".join(p for p in (text, extra) if p) or "-"


def tokens_text(t):
    return "1 token" if t == 1 else f"{t} tokens"


def column_of(r):
    """A row's column and its token count (None for a shape): a grouped row's is the tokens its
    routing sent (grouped.routing.tokens; its M is the routed rows, tokens x top-k), a preset
    layer's its M, anything else its shape."""
    routing = (r.get("grouped") or {}).get("routing") or {}
    if routing.get("tokens") is not None:
        return tokens_text(routing["tokens"]), routing["tokens"]
    if r.get("preset"):
        return tokens_text(r["m"]), r["m"]
    return "x".join(map(str, shape_of(r))), None


def run_table(rows):
    """One run's rows as a Markdown table: a series is (kernel, layout, types), a column a shape
    (or, over preset layers, a token count: the cell then takes every layer of the run); the
    longer of the two runs down the page."""
    series, columns, cells, order = [], [], {}, {}
    for r in rows:
        s = (r["kernel"], r["layout"], type_text(r))
        c, t = column_of(r)
        if s not in series:
            series.append(s)
        if c not in columns:
            columns.append(c)
            order[c] = t
        cells.setdefault((s, c), []).append(r)
    # Grouped runs plan model by model, so their token counts come back round: in order.
    if any(r.get("grouped") for r in rows) and all(order[c] is not None for c in columns):
        columns.sort(key=lambda c: order[c])

    def name(s):
        kernel, layout, types = s
        return f"`{kernel}` {layout} {types}"

    across = columns if len(columns) <= len(series) else [name(s) for s in series]
    down = series if len(columns) <= len(series) else columns
    lines = ["| | " + " | ".join(across) + " |", "|---|" + "---:|" * len(across)]
    for d in down:
        if len(columns) <= len(series):
            vals = [cell(cells[(d, c)]) if (d, c) in cells else "" for c in columns]
            lines.append(f"| {name(d)} | " + " | ".join(vals) + " |")
        else:
            vals = [cell(cells[(s, d)]) if (s, d) in cells else "" for s in series]
            lines.append(f"| {d} | " + " | ".join(vals) + " |")
    return "\n".join(lines)


def rows_where(doc, kernel, shape=None, types=None, tokens=None, scale=None):
    kernels = kernel.split(",")
    out = []
    for r in timed_rows(doc):
        if r["kernel"] not in kernels:
            continue
        if shape and shape_of(r) != tuple(shape):
            continue
        if types and type_text(r) != types:
            continue
        if tokens is not None and (not r.get("preset") or r["m"] != tokens):
            continue
        if scale and r.get("scale") != scale:
            continue
        out.append(r)
    return out


def figure(rows):
    """One ratio, a geometric mean over layers, or a range over several kernels' rows."""
    vals = [ratio(r) for r in rows if r["status"] == "ok" and ratio(r)]
    if not vals:
        return None
    if len(vals) == 1:
        return fmt_ratio(vals[0])
    if len({r["kernel"] for r in rows}) > 1:
        return f"{min(vals):.3f}-{max(vals):.3f}x"
    return fmt_ratio(geomean(vals))


def ladder_table(docs):
    lines = ["| rung | kernel | what it adds | ratio at 5120x4096x4096 | story |",
             "|---|---|---|---:|---|"]
    for rung, kernels, adds, source, story in RUNGS:
        text = "-"
        if source and source[0] in docs:
            report, kernel, types = source
            figs = [figure(rows_where(docs[report], kernel, LADDER_SHAPE, t)) for t in types]
            if all(figs):
                text = " / ".join(figs) + f" ({report})"
        lines.append(f"| {rung} | {kernels} | {adds} | {text} | [{story}]({story}) |")
    return "\n".join(lines)


def report_line(name, doc):
    m = doc["metadata"]
    dev = m.get("device", {})
    s = doc.get("summary", {})
    return (f"`{name}.json.gz` (`configs/{name}.json`): git {m.get('git_commit', '?')}, "
            f"{m.get('date_utc', '?')}, {m.get('regime', '?')} regime, "
            f"{s.get('rows_written', len(doc['results']))} rows on {dev.get('name', '?')}")


def render_results(latest):
    out = ["# Current numbers", "",
           "Generated by `scripts/results_tables.py` from the reports in `bench_results/<gpu>/latest/`",
           "(one per shipped config, written by `scripts/update_latest.sh`, which reruns the script);",
           "do not edit by hand. A ratio is the baseline's median over the kernel's (above 1: the",
           "kernel is faster), each provider sampled alone in alternating blocks at steady state",
           "([method.md](method.md)); FP8 rows are compared with cuBLASLt FP8 in the same scaling.",
           "Over preset layers a cell is the geometric mean over the run's layers (its config",
           "names the models), the lowest ratio in parentheses; rows that did not run (skipped,",
           "FAILED, not_held) are counted beside it; \"no ratio\": the baseline row has no time",
           "(the report's row says why, e.g. cuBLASLt FP8 needs M a multiple of 8).",
           "The same ratio moves between sessions by up to about 2% at prefill shapes and up to 7%",
           "at the smallest decode layers ([method.md](method.md)).", ""]
    for gpu, docs in latest.items():
        dev = next(iter(docs.values()))["metadata"].get("device", {})
        out += [f"## {dev.get('name', gpu)} (`bench_results/{gpu}/latest/`)", "",
                f"Driver {dev.get('driver_version', '?')}, CUDA {dev.get('cuda_runtime', '?')}, "
                f"cuBLAS {dev.get('cublas_version', '?')}.", ""]
        if "default" in docs or "hgemm_ladder" in docs:
            out += ["### The ladder", "",
                    "Each rung's kernel at 5120x4096x4096 in its native layout (H rungs: f16 / f32 "
                    "accumulate; H4: the range over its three layouts). Rungs without a figure here "
                    "are measured in their story's reports.", "", ladder_table(docs), ""]
        for name, doc in docs.items():
            out += [f"### {name}", "", report_line(name, doc), ""]
            runs = []
            for r in timed_rows(doc):
                if r["run"] not in runs:
                    runs.append(r["run"])
            if any(r.get("grouped") for r in timed_rows(doc)):
                out += [GROUPED_NOTE, ""]
            for run in runs:
                rows = [r for r in timed_rows(doc) if r["run"] == run]
                out += [f"Run `{run}`:", "", run_table(rows), ""]
    return "\n".join(out).rstrip() + "\n"


def headline_value(doc, spec):
    kernel = spec["kernel"]
    parts = []
    if "scales" in spec:
        for scale in spec["scales"]:
            parts.append(figure(rows_where(doc, kernel, tokens=spec["tokens"], scale=scale)))
    elif isinstance(spec.get("tokens"), list):
        for t in spec["tokens"]:
            for ty in spec["types"]:
                parts.append(figure(rows_where(doc, kernel, tokens=t, types=ty)))
    else:
        for ty in spec["types"]:
            parts.append(figure(rows_where(doc, kernel, spec.get("shape"), ty, spec.get("tokens"))))
    return " / ".join(p or "-" for p in parts)


def render_headline(latest):
    docs = latest.get(HEADLINE_GPU, {})
    dev = next(iter(docs.values()))["metadata"].get("device", {}) if docs else {}
    lines = [BEGIN,
             f"| {dev.get('name', HEADLINE_GPU)}, sustained, cold L2 | ratio to cuBLAS | report |",
             "|---|---:|---|"]
    for what, report, spec in HEADLINE:
        if report in docs:
            lines.append(f"| {what} | {headline_value(docs[report], spec)} | "
                         f"`latest/{report}.json.gz` |")
    lines.append(END)
    return "\n".join(lines)


def with_headline(readme, block):
    if BEGIN not in readme or END not in readme:
        raise ValueError(f"README.md has no '{BEGIN}' ... '{END}' lines")
    head, rest = readme.split(BEGIN, 1)
    return head + block + rest.split(END, 1)[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 where a file is stale")
    args = ap.parse_args()
    latest = load_latest(args.root)
    results_path = os.path.join(args.root, "docs", "results.md")
    readme_path = os.path.join(args.root, "README.md")
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    want = {results_path: render_results(latest),
            readme_path: with_headline(readme, render_headline(latest))}
    stale = []
    for path, text in want.items():
        have = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if have == text:
            continue
        if args.check:
            stale.append(os.path.relpath(path, args.root))
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"results_tables: wrote {os.path.relpath(path, args.root)}")
    if stale:
        sys.exit(f"results_tables: {', '.join(stale)} not what bench_results/*/latest/ gives: "
                 "run scripts/results_tables.py and commit the result")


if __name__ == "__main__":
    main()
