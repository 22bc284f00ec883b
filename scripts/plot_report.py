#!/usr/bin/env python3
"""Draw gemmbench JSON reports (written by `gemmbench ... --json FILE`) as PNG charts.

    gemmbench --kernel 'sgemm_*' --json ladder.json
    python3 scripts/plot_report.py ladder ladder.json -o ladder.png
    gemmbench --config configs/square_sweep.json --json sweep.json
    python3 scripts/plot_report.py sweep sweep.json -o sweep.png --metric ratio

ladder  One problem shape: a bar of TFLOP/s per kernel, in the report's order (the ladder's
        rung order), one block of bars per (dtype, accumulate, layout) group, each block opening
        with its cuBLAS bar and crossed by a dashed line at cuBLAS's TFLOP/s. Every kernel bar
        carries its "% of cuBLAS" (ratio_to_cublas x 100: the median its group's cuBLAS bar
        shows over the kernel median, each provider sampled alone in alternating blocks
        (docs/method.md), so it is the ratio of the bar heights; in reports from before
        2026-11-27, sampled interleaved, it can differ a little from them).
        FAILED rows (timed, but the output is wrong) are drawn red and hatched and never
        dropped; skipped and error rows are listed under the chart with their reasons.
sweep   TFLOP/s (or --metric ratio: % of cuBLAS) against problem size, one line per kernel and
        a dashed one per cuBLAS group; size is M when M = N = K, else (M*N*K)^(1/3), on a
        log2 axis. FAILED points are red crosses off the lines.
compare The output of `gemmbench compare BASE NEW --json COMPARE.json` in a chart: one horizontal
        bar per case matched in both, the change of the median in % (right: slower), with a
        noise bar of +- the larger of the two runs' noise (half the p10-p90 spread) and a dot for
        the change of the ratio to cuBLAS (right: the kernel lost ground to cuBLAS). Dashed lines
        at +-threshold. The verdicts (red: slower, green: faster, hatched: newly failed) are
        gemmbench compare's own; rows on one side only, or untimed on one, are listed under it.

    gemmbench compare base.json new.json --json compare.json
    python3 scripts/plot_report.py compare compare.json -o compare.png
roofline  Achieved TFLOP/s against arithmetic intensity (FLOP per byte, the report's
        sol.intensity_flop_per_byte), both axes log: one marker per timed row (kernels filled
        and coloured by family, cuBLAS grey and hollow, FAILED red crosses), the memory roof
        (intensity x the rows' mem_bw_gbs, measured or datasheet as the rows say) and one compute
        roof per instruction class (sol.compute_tflops_max_clock). Needs a report written by a
        gemmbench with speed of light (rows with a 'sol' object).

--baseline cublaslt (both charts) takes the ratios against the tuned cuBLASLt baseline instead
(ratio_to_cublaslt, from a report run with `gemmbench --baseline cublaslt` or `both`), and its
rows give the reference line. cuBLAS and cuBLASLt rows are both baseline rows: kept by every
filter, drawn grey, opening their group.

Several reports may be given to one chart: their rows are drawn side by side in the order given
and the first report's metadata titles the chart (a warning says so when the devices differ).
The shards of one run are joined by `gemmbench merge` first, which checks that they come from one
plan and counts the rows.

The script reads only the reports. The data shaping functions (load_report, merge_reports,
pick_shape, ladder_data, sweep_data) need only the standard library, so they import and can be
tested without matplotlib; matplotlib (Agg, no display) is imported when a chart is drawn.
"""

import argparse
import copy
import fnmatch
import json
import sys

from report_file import input_text, load_json, type_text

STATUSES = ("ok", "FAILED", "skipped", "error")
REQUIRED_ROW_KEYS = ("kernel", "provider", "family", "m", "n", "k", "layout", "dtype", "accum",
                     "status")
KNOWN_SCHEMA_VERSION = 1
FAMILY_COLORS = {"sgemm": "#4c72b0", "hgemm": "#dd8452", "cublas": "#8c8c8c",
                 "cublaslt": "#5a5a5a"}
# --baseline: the provider whose rows are the reference -> (row field of the ratio, name shown).
BASELINES = {"cublas": ("ratio_to_cublas", "cuBLAS"),
             "cublaslt": ("ratio_to_cublaslt", "cuBLASLt")}
OTHER_COLORS = ["#55a868", "#8172b3", "#937860", "#da8bc3", "#ccb974", "#64b5cd"]
FAILED_FACE, FAILED_EDGE = "#f6d0d0", "#c00000"
THROTTLED_MARK = "\u2020"  # dagger after a kernel name: its clock fell while sampling
MAX_NOTES = 14        # footnote lines under a chart before "... and N more"
MAX_NOTE_CHARS = 150  # a reason longer than this is cut (the report has it whole)


class ReportError(ValueError):
    """Bad input: printed as one line, exit code 2."""


# ----------------------------------------------------------------------------------------------
# Reading and merging reports
# ----------------------------------------------------------------------------------------------

def load_report(path):
    """The report at `path` ('-' = standard input), checked to be a gemmbench report."""
    try:
        if path == "-":
            doc = json.load(sys.stdin)
        else:
            doc = load_json(path)  # plain or gzip-compressed
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file") from None
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: not JSON ({e})") from None
    except (OSError, UnicodeDecodeError, EOFError) as e:
        raise ReportError(f"{path}: cannot read: {e}") from None
    warnings = check_report(doc, path)
    return doc, warnings


def check_report(doc, name="report"):
    """Raise ReportError unless `doc` looks like a gemmbench report; return warnings."""
    if isinstance(doc, dict) and "inspect" in doc:
        raise ReportError(f"{name}: this is `gemmbench inspect` output: draw it with "
                          "scripts/plot_inspect.py")
    if (not isinstance(doc, dict) or not isinstance(doc.get("metadata"), dict)
            or doc["metadata"].get("tool") != "gemmbench"
            or not isinstance(doc.get("results"), list)):
        raise ReportError(f"{name}: not a gemmbench report (expected a JSON object with "
                          "'metadata' (tool = gemmbench) and 'results', as `gemmbench --json` "
                          "writes)")
    for i, row in enumerate(doc["results"]):
        if not isinstance(row, dict):
            raise ReportError(f"{name}: results[{i}] is not an object")
        missing = [key for key in REQUIRED_ROW_KEYS if key not in row]
        if missing:
            raise ReportError(f"{name}: results[{i}] lacks {', '.join(repr(k) for k in missing)}")
        if row["status"] not in STATUSES:
            raise ReportError(f"{name}: results[{i}] has status {row['status']!r}, not one of "
                              f"{', '.join(STATUSES)}")
        for key in ("m", "n", "k"):
            if not isinstance(row[key], int) or row[key] < 1:
                raise ReportError(f"{name}: results[{i}].{key} = {row[key]!r} is not a size >= 1")
        for key in ("tflops", "ratio_to_cublas", "ratio_to_cublaslt"):
            value = row.get(key)
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if value is not None and not number:
                raise ReportError(f"{name}: results[{i}].{key} = {value!r} is not a number or null")
    warnings = []
    version = doc["metadata"].get("schema_version")
    if isinstance(version, int) and version > KNOWN_SCHEMA_VERSION:
        warnings.append(f"{name}: schema_version {version} is newer than this script knows "
                        f"({KNOWN_SCHEMA_VERSION}); trying anyway")
    summary = doc.get("summary")
    if isinstance(summary, dict) and summary.get("complete") is False:
        why = summary.get("abort_reason") or "run interrupted"
        warnings.append(f"{name}: incomplete report ({summary.get('rows_written')} of "
                        f"{summary.get('rows_planned')} rows: {why})")
    return warnings


def _device(metadata):
    device = metadata.get("device")
    return device if isinstance(device, dict) else {}


def merge_reports(named_reports):
    """One chart's rows from [(name, report), ...]: rows concatenated in the order given, metadata
    of the first (plus 'merged_from', the names); no summary (`gemmbench merge` joins and counts
    the shards of one run). Returns (report, warnings); a warning says when the devices or the
    driver/CUDA/cuBLAS versions differ, since the title shows the first."""
    if not named_reports:
        raise ReportError("no report given")
    first_name, first = named_reports[0]
    merged = {"metadata": copy.deepcopy(first["metadata"]), "results": []}
    merged["metadata"]["merged_from"] = [name for name, _ in named_reports]
    warnings = []
    first_dev = _device(first["metadata"])
    version_keys = ("driver_version", "cuda_runtime", "cublas_version")
    for name, report in named_reports:
        merged["results"].extend(copy.deepcopy(report["results"]))
        dev = _device(report["metadata"])
        if dev.get("name") != first_dev.get("name"):
            warnings.append(f"reports from different devices: {first_name}: "
                            f"{first_dev.get('name')!r}, {name}: {dev.get('name')!r} "
                            "(the title names the first)")
        elif any(dev.get(key) != first_dev.get(key) for key in version_keys):
            theirs = "/".join(str(dev.get(k)) for k in version_keys)
            ours = "/".join(str(first_dev.get(k)) for k in version_keys)
            warnings.append(f"{name} was run with other versions than {first_name} "
                            f"(driver/CUDA/cuBLAS {theirs} vs {ours})")
    return merged, warnings


def filter_rows(report, kernels=None, run=None):
    """A copy of `report` keeping the rows whose kernel matches one of the comma-separated
    globs in `kernels` (cuBLAS rows always stay: they are the reference) and whose run name is
    `run`. None keeps everything."""
    patterns = [p.strip() for p in kernels.split(",") if p.strip()] if kernels else None
    rows = []
    for row in report["results"]:
        if run is not None and row.get("run") != run:
            continue
        if patterns and not is_cublas(row) and not any(fnmatch.fnmatchcase(row["kernel"], p)
                                                       for p in patterns):
            continue
        rows.append(row)
    if not rows:
        runs = sorted({str(r.get("run")) for r in report["results"]})
        what = []
        if kernels:
            what.append(f"--kernels {kernels!r}")
        if run is not None:
            what.append(f"--run {run!r} (runs in the report: {', '.join(runs)})")
        raise ReportError(f"no rows match {' and '.join(what)}")
    out = dict(report)
    out["results"] = rows
    return out


# ----------------------------------------------------------------------------------------------
# Shaping the data (pure: no matplotlib)
# ----------------------------------------------------------------------------------------------

def is_cublas(row):
    """A baseline row: cuBLAS or the tuned cuBLASLt call."""
    return row["provider"] in BASELINES


def baseline_of(name):
    """(ratio field, display name) of --baseline `name`."""
    if name not in BASELINES:
        raise ReportError(f"--baseline {name!r}: expected one of {', '.join(BASELINES)}")
    return BASELINES[name]


def baseline_name(row):
    return BASELINES[row["provider"]][1]


def shape_of(row):
    return (row["m"], row["n"], row["k"])


def shape_text(shape):
    m, n, k = shape
    return f"{m}x{n}x{k}"


def parse_shape(text):
    """'MxNxK' -> (m, n, k); one number N means the square problem N x N x N."""
    parts = text.strip().lower().split("x")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if len(dims) == 1:
        dims = dims * 3
    if len(dims) != 3 or min(dims) < 1:
        raise ReportError(f"--shape {text!r}: expected MxNxK (e.g. 4096x4096x4096) or one size "
                          "for a square problem")
    return dims


def group_key(row):
    """What makes rows comparable with one cuBLAS row: the runner times cuBLAS once per
    (shape, dtype, accumulate, layout, alpha, beta, measure settings)."""
    measure = row.get("measure") if isinstance(row.get("measure"), dict) else {}
    # Reports from before --data have no measure.data: they all used uniform data.
    # FP8 rows: B's type and the scaling are part of the type (type_text), each its own cuBLAS row.
    inputs = input_text(row)  # "e4m3", "e4m3xe5m2"
    fp8_format = type_text(row)[len(f"{inputs}/{row['accum']}"):]  # " row fast", or ""
    dtype = inputs + fp8_format
    return (dtype, row["accum"], row["layout"], row.get("alpha", 1.0), row.get("beta", 0.0),
            measure.get("cache", "cold"), measure.get("data", "uniform"))


def group_label(key):
    dtype, accum, layout, alpha, beta, cache, data = key
    text = f"{dtype} (acc {accum}) {layout}"
    if alpha != 1.0:
        text += f", alpha={alpha:g}"
    if beta != 0.0:
        text += f", beta={beta:g}"
    if cache != "cold":
        text += f", {cache} L2"
    if data != "uniform":  # low-entropy inputs run faster: never let such a bar pass as a headline
        text += f", {data} data"
    return text


def percent_label(ratio):
    """ratio_to_cublas as the text on a bar: '12%', '3.4%', '0.96%'; '' when absent."""
    if ratio is None:
        return ""
    p = 100.0 * ratio
    if p >= 10:
        return f"{p:.0f}%"
    if p >= 1:
        return f"{p:.1f}%"
    return f"{p:.2f}%"


def _note(row, group_text=None):
    reason = row.get("reason") or "(no reason given)"
    if len(reason) > MAX_NOTE_CHARS:
        reason = reason[:MAX_NOTE_CHARS - 3] + "..."
    where = group_text if group_text is not None else f"{shape_text(shape_of(row))}, " \
                                                      f"{group_label(group_key(row))}"
    return f"{row['status']}: {row['kernel']} [{where}]: {reason}"


def shapes_in(report):
    """[(shape, kernel rows, all rows)] in order of first appearance."""
    counts = {}
    for row in report["results"]:
        entry = counts.setdefault(shape_of(row), [0, 0])
        entry[0] += 0 if is_cublas(row) else 1
        entry[1] += 1
    return [(shape, kernels, rows) for shape, (kernels, rows) in counts.items()]


def pick_shape(report, wanted=None):
    """The shape the ladder shows: `wanted` ((m, n, k) or 'MxNxK') when given and present,
    else the shape with the most kernel (non-cuBLAS) rows, the first one on a tie."""
    shapes = shapes_in(report)
    if not shapes:
        raise ReportError("the report has no rows")
    if wanted is not None:
        if isinstance(wanted, str):
            wanted = parse_shape(wanted)
        wanted = tuple(wanted)
        if any(shape == wanted for shape, _, _ in shapes):
            return wanted
        listed = ", ".join(f"{shape_text(s)} ({n} rows)" for s, _, n in shapes[:8])
        more = f" and {len(shapes) - 8} more" if len(shapes) > 8 else ""
        raise ReportError(f"--shape {shape_text(wanted)}: no rows at that shape; the report has "
                          f"{listed}{more}")
    best = max(range(len(shapes)), key=lambda i: (shapes[i][1], -i))
    return shapes[best][0]


def ladder_data(report, shape, baseline="cublas"):
    """The bars of the ladder chart at `shape` (m, n, k); percentages and reference lines
    against `baseline` ('cublas' or 'cublaslt').

    Returns a dict:
      bars:       [{kernel, label, family, group, group_label, status, tflops, ratio, percent,
                    failed, cublas, throttled, reason}] grouped by (dtype, accum, layout, ...) in
                  order of first appearance, report (= rung) order inside a group, each group's
                  cuBLAS row first. FAILED rows are kept with failed=True.
      references: [{group, group_label, tflops}] one per group with an ok row of `baseline`.
      groups:     [group keys] in drawing order.
      notes:      footnote lines: skipped and error rows (never drawn), FAILED reasons,
                  throttled rows.
    Raises ReportError when no row at `shape` is ok.
    """
    ratio_key, _ = baseline_of(baseline)
    shape = tuple(shape)
    rows = [row for row in report["results"] if shape_of(row) == shape]
    groups = []
    by_group = {}
    for row in rows:
        key = group_key(row)
        if key not in by_group:
            groups.append(key)
            by_group[key] = []
        by_group[key].append(row)
    bars, references, notes = [], [], []
    for key in groups:
        label = group_label(key)
        members = by_group[key]
        # cuBLAS opens its group whatever the row order, so the reference is always on the left.
        ordered = [r for r in members if is_cublas(r)] + [r for r in members if not is_cublas(r)]
        seen = {}
        for row in ordered:
            if row["status"] in ("skipped", "error"):
                notes.append(_note(row, label))
                continue
            if row["status"] == "ok" and row.get("tflops") is None:  # not written by gemmbench
                notes.append(f"ok: {row['kernel']} [{label}]: no tflops in the row, not drawn")
                continue
            name = baseline_name(row) if is_cublas(row) else row["kernel"]
            seen[name] = seen.get(name, 0) + 1
            clock = row.get("clock") if isinstance(row.get("clock"), dict) else {}
            bar = {
                "kernel": row["kernel"],
                "label": name if seen[name] == 1 else f"{name} #{seen[name]}",
                "family": row["family"],
                "group": key,
                "group_label": label,
                "status": row["status"],
                "tflops": row.get("tflops"),
                "ratio": row.get(ratio_key),
                # The other baseline's bar carries its % too (tuned cuBLASLt as % of cuBLAS).
                "percent": ("" if row["provider"] == baseline
                            else percent_label(row.get(ratio_key))),
                "failed": row["status"] == "FAILED",
                "cublas": is_cublas(row),
                "throttled": bool(clock.get("throttled")),
                "reason": row.get("reason", ""),
            }
            bars.append(bar)
            if bar["failed"]:
                notes.append(_note(row, label))
            if bar["throttled"]:
                bar["label"] += THROTTLED_MARK
                notes.append(f"{THROTTLED_MARK}throttled: {bar['kernel']} [{label}]: SM clock fell "
                             "below 80% of its maximum while sampling "
                             f"({clock.get('throttle_reasons') or '?'})")
            if row["provider"] == baseline and row["status"] == "ok" \
                    and row.get("tflops") is not None \
                    and not any(ref["group"] == key for ref in references):
                references.append({"group": key, "group_label": label, "tflops": row["tflops"]})
    if not any(bar["status"] == "ok" and bar["tflops"] is not None for bar in bars):
        counts = {}
        for row in rows:
            counts[row["status"]] = counts.get(row["status"], 0) + 1
        detail = ", ".join(f"{n} {status}" for status, n in counts.items()) or "no rows"
        raise ReportError(f"no ok rows at shape {shape_text(shape)} ({detail}): nothing to draw")
    return {"shape": shape, "bars": bars, "references": references,
            "baseline": BASELINES[baseline][1],
            "groups": [key for key in groups if any(b["group"] == key for b in bars)],
            "notes": notes}


def problem_size(m, n, k):
    """The sweep's x: M for a square problem, else the cube root of M*N*K (same scale)."""
    if m == n == k:
        return float(m)
    return float(m * n * k) ** (1.0 / 3.0)


def sweep_data(report, metric="tflops", baseline="cublas"):
    """The lines of the sweep chart.

    metric 'tflops' plots TFLOP/s; 'ratio' plots the ratio to `baseline` x 100 (ratio_to_cublas,
    or ratio_to_cublaslt for 'cublaslt'; baseline lines are then the 100% line, not series).
    Returns a dict:
      series:  [{key, label, kernel, group, cublas, points: [(x, y), ...] sorted by x}] in order
               of first appearance (kernels and cuBLAS groups).
      failed:  [(x, y, label)] FAILED rows that have a value (drawn as red crosses).
      notes:   footnote lines: skipped/error rows, FAILED reasons, duplicate points left out.
      square:  True when every plotted row has M = N = K (the x axis then reads M = N = K).
      sizes:   the distinct x values, ascending.
      x_label, y_label.
    Raises ReportError when nothing can be plotted.
    """
    if metric not in ("tflops", "ratio"):
        raise ReportError(f"--metric {metric!r}: expected tflops or ratio")
    ratio_key, base_name = baseline_of(baseline)
    groups_seen = []
    for row in report["results"]:
        if group_key(row) not in groups_seen:
            groups_seen.append(group_key(row))
    kernel_groups = {}
    for row in report["results"]:
        kernel_groups.setdefault(row["kernel"], set()).add(group_key(row))

    def value(row):
        if metric == "tflops":
            return row.get("tflops")
        ratio = row.get(ratio_key)
        return None if ratio is None else 100.0 * ratio

    series, index, failed, notes = [], {}, [], []
    square = True
    for row in report["results"]:
        key = (row["kernel"], group_key(row))
        glabel = group_label(group_key(row))
        if is_cublas(row):
            label = baseline_name(row) + (f" [{glabel}]" if len(groups_seen) > 1 else "")
        else:
            several = len(kernel_groups[row["kernel"]]) > 1
            label = row["kernel"] + (f" [{glabel}]" if several else "")
        if row["status"] in ("skipped", "error"):
            notes.append(_note(row))
            continue
        if row["provider"] == baseline and metric == "ratio":  # it is the 100% line
            continue
        x, y = problem_size(*shape_of(row)), value(row)
        if row["status"] == "FAILED":
            notes.append(_note(row))
            if y is not None:
                failed.append((x, y, label))
                square = square and row["m"] == row["n"] == row["k"]
            continue
        if y is None:
            continue
        if key not in index:
            index[key] = len(series)
            series.append({"key": key, "label": label, "kernel": row["kernel"],
                           "group": group_key(row), "cublas": is_cublas(row), "points": []})
        points = series[index[key]]["points"]
        if any(px == x for px, _ in points):
            notes.append(f"duplicate: {label} at {shape_text(shape_of(row))}: only the first row "
                         "is drawn")
            continue
        points.append((x, y))
        square = square and row["m"] == row["n"] == row["k"]
    for s in series:
        s["points"].sort()
    if not any(s["points"] for s in series):
        hint = ""
        if metric == "ratio":
            hint = (f" (--metric ratio needs kernel rows with {ratio_key}; baseline rows have "
                    "none" + (", and it needs a report run with `gemmbench --baseline cublaslt` "
                              "or `both`" if baseline == "cublaslt" else "") + ")")
        raise ReportError("no ok rows to plot" + hint)
    y_label = ("TFLOP/s (2*M*N*K / median time)" if metric == "tflops"
               else f"% of {base_name} ({base_name} median / kernel median)")
    sizes = sorted({p[0] for s in series for p in s["points"]} | {f[0] for f in failed})
    return {"series": series, "failed": failed, "notes": notes, "square": square, "sizes": sizes,
            "baseline": base_name,
            "x_label": "M = N = K" if square else "(M*N*K)^(1/3)", "y_label": y_label}


# ----------------------------------------------------------------------------------------------
# compare: the verdicts of `gemmbench compare --json`
# ----------------------------------------------------------------------------------------------

COMPARE_VERDICTS = ("faster", "slower", "same", "newly_failed", "untimed")


def load_comparison(path):
    """The output of `gemmbench compare BASE NEW --json FILE` ('-' = stdin), checked."""
    try:
        if path == "-":
            doc = json.load(sys.stdin)
        else:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
    except OSError as e:
        raise ReportError(f"{path}: cannot read ({e.strerror or e})")
    except json.JSONDecodeError:
        raise ReportError(f"{path}: not JSON, so not the output of gemmbench compare --json")
    if not isinstance(doc, dict) or doc.get("tool") != "gemmbench compare" \
            or not isinstance(doc.get("cases"), list):
        raise ReportError(f"{path}: not the output of `gemmbench compare BASE NEW --json FILE` "
                          "(expected tool = 'gemmbench compare' and a 'cases' array)")
    for i, case in enumerate(doc["cases"]):
        if not isinstance(case, dict) or case.get("verdict") not in COMPARE_VERDICTS:
            raise ReportError(f"{path}: cases[{i}] has no verdict gemmbench compare writes")
    return doc


def compare_data(comparison):
    """The bars of the compare chart from gemmbench compare's JSON: each timed case's change of
    the median (%), both runs' noise (%), the change of the ratio to cuBLAS (%: > 0 is better)
    and gemmbench compare's verdict; the rest as notes."""
    cases, notes = [], []
    for c in comparison["cases"]:
        if c.get("change_pct") is None:
            notes.append(f"not timed in both: {c['case']} ({c['base_status']} / "
                         f"{c['new_status']})")
            continue
        if c["verdict"] == "newly_failed":
            notes.append(f"FAILED in NEW: {c['case']}")
        cases.append({"label": c["case"], "change_pct": c["change_pct"],
                      "base_noise_pct": c.get("base_noise_pct") or 0.0,
                      "new_noise_pct": c.get("new_noise_pct") or 0.0,
                      "ratio_change_pct": c.get("ratio_change_pct"),
                      "verdict": c["verdict"]})
    notes += [f"only in BASE: {label}" for label in comparison.get("only_in_base", [])]
    notes += [f"only in NEW: {label}" for label in comparison.get("only_in_new", [])]
    if not cases:
        raise ReportError("no case is timed in both reports: nothing to draw")
    return {"cases": cases, "notes": notes, "threshold": comparison.get("threshold_pct", 3.0)}


def figure_compare(comparison, data):
    import matplotlib.pyplot as plt

    cases = data["cases"]
    height = max(3.0, 0.32 * len(cases) + 1.6)
    fig, ax = plt.subplots(figsize=(11, height))
    ys = list(range(len(cases)))[::-1]
    colors = {"slower": "#c00000", "faster": "#2a8a2a", "same": "#9a9a9a",
              "newly_failed": "#c00000"}
    for y, c in zip(ys, cases):
        noise = max(c["base_noise_pct"], c["new_noise_pct"])
        ax.barh(y, c["change_pct"], color=colors[c["verdict"]], height=0.6,
                hatch="//" if c["verdict"] == "newly_failed" else None, edgecolor="#333333",
                linewidth=0.4)
        ax.errorbar(c["change_pct"], y, xerr=noise, color="#333333", capsize=3, linewidth=0.9)
        if c["ratio_change_pct"] is not None:
            # The ratio's change, sign flipped so that right means worse on both marks.
            ax.plot(-c["ratio_change_pct"], y, "o", color="#1f4e9c", markersize=4)
    for x in (-data["threshold"], data["threshold"]):
        ax.axvline(x, color="#555555", linestyle="--", linewidth=0.8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(ys)
    ax.set_yticklabels([c["label"] for c in cases], fontsize=7.5)
    ax.set_xlabel("change of the median time, % (right: slower); bar: +- the larger run noise "
                  "(half p10-p90); dot: -(change of ratio to cuBLAS), %", fontsize=8)
    base_meta = comparison["base"].get("metadata") or {}
    new_meta = comparison["new"].get("metadata") or {}
    lines = [f"gemmbench compare: NEW vs BASE, threshold +-{data['threshold']:g}%",
             f"BASE: {base_meta.get('date_utc', '?')} commit {base_meta.get('git_commit', '?')}"
             f"  {_device(base_meta).get('name', '?')}",
             f"NEW:  {new_meta.get('date_utc', '?')} commit {new_meta.get('git_commit', '?')}"
             f"  {_device(new_meta).get('name', '?')}"]
    fig.suptitle("\n".join(lines), fontsize=9)
    if data["notes"]:
        fig.text(0.005, -0.01, _footnote_text(data["notes"]), ha="left", va="top", fontsize=7,
                 family="monospace", color="#333333")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def render_compare(comparison, out_path):
    data = compare_data(comparison)
    _use_agg()
    save(figure_compare(comparison, data), out_path)
    return data
def roofline_data(report):
    """Points and roofs of the roofline chart, from the rows' 'sol' objects (docs/reports-sol.md).

    Returns {"points": [{x, y, label, cublas, failed, family, cls}], "compute": {class: TFLOP/s},
    "bandwidth_gbs", "bandwidth_source", "notes"}. Raises ReportError when no row has both an
    intensity and a TFLOP/s, or when no row carries speed-of-light fields at all.
    """
    rows = report["results"]
    if not any(isinstance(r.get("sol"), dict) for r in rows):
        raise ReportError("the report has no speed-of-light fields (rows without 'sol': written "
                          "by a gemmbench before the roofline existed)")
    points, notes, compute, bandwidths = [], [], {}, []
    for row in rows:
        sol = row.get("sol") if isinstance(row.get("sol"), dict) else {}
        cls = sol.get("instruction_class") or "?"
        if isinstance(sol.get("compute_tflops_max_clock"), (int, float)):
            compute[cls] = max(compute.get(cls, 0.0), float(sol["compute_tflops_max_clock"]))
        if isinstance(sol.get("mem_bw_gbs"), (int, float)):
            bandwidths.append((float(sol["mem_bw_gbs"]), sol.get("mem_bw_source") or "?"))
        label = f"{row['kernel']} {shape_text(shape_of(row))} {type_text(row)}"
        preset = row.get("preset")
        if isinstance(preset, dict):
            label += f" [{preset.get('model')} {preset.get('layer')}]"
        if row["status"] in ("skipped", "error"):
            notes.append(_note(row))
            continue
        x, y = sol.get("intensity_flop_per_byte"), row.get("tflops")
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)) or x <= 0 or y <= 0:
            notes.append(f"{label}: no intensity or TFLOP/s, not drawn")
            continue
        points.append({"x": float(x), "y": float(y), "label": label, "cublas": is_cublas(row),
                       "failed": row["status"] == "FAILED", "family": row.get("family", "?"),
                       "cls": cls, "pct_sol": sol.get("pct_sol"), "bound": sol.get("bound")})
    if not points:
        raise ReportError("no timed row with an arithmetic intensity to draw")
    bandwidth, source = (max(bandwidths) if bandwidths else (None, "none"))
    if len({b for b, _ in bandwidths}) > 1:
        notes.append("rows name different memory bandwidths (merged reports?): the roof uses "
                     f"the highest, {bandwidth:.0f} GB/s")
    return {"points": points, "compute": compute, "bandwidth_gbs": bandwidth,
            "bandwidth_source": source, "notes": notes}


def title_lines(metadata):
    """Second title line: device, date and versions; a third with the report's description."""
    dev = _device(metadata)
    sm = f" (sm_{dev['sm']})" if dev.get("sm") else ""
    parts = [f"{dev.get('name', 'unknown device')}{sm}", str(metadata.get("date_utc", "date ?")),
             f"driver {dev.get('driver_version', '?')}", f"CUDA {dev.get('cuda_runtime', '?')}",
             f"cuBLAS {dev.get('cublas_version', '?')}",
             f"gemmbench {metadata.get('tool_version', '?')} ({metadata.get('git_commit', '?')})"]
    lines = [" | ".join(parts)]
    merged = metadata.get("merged_from") or []
    if len(merged) > 1:
        lines[0] += f" | + {len(merged) - 1} more report(s)"
    if metadata.get("description"):
        lines.append(str(metadata["description"]))
    return lines


def tflops_text(value):
    """A bar's TFLOP/s as text: 3 significant digits, no exponent ('0.498', '51.6', '1234')."""
    return f"{value:.3g}" if value < 1000 else f"{value:.0f}"


def _footnote_text(notes):
    if len(notes) > MAX_NOTES:
        left = len(notes) - MAX_NOTES + 1
        notes = notes[:MAX_NOTES - 1] + [f"... and {left} more (see the report)"]
    return "\n".join(notes)


# ----------------------------------------------------------------------------------------------
# Drawing (matplotlib imported here only)
# ----------------------------------------------------------------------------------------------

def _family_color(family, shade, palette):
    from matplotlib.colors import to_rgb

    if family not in palette:
        palette[family] = (FAMILY_COLORS.get(family)
                           or OTHER_COLORS[len(palette) % len(OTHER_COLORS)])
    r, g, b = to_rgb(palette[family])
    if family in BASELINES:  # one grey for every cuBLAS bar: it is the same library each time
        return (r, g, b)
    # Later (dtype, accum, layout) groups of the same family get lighter tints of its colour.
    t = min(0.6, 0.3 * shade)
    return (r + (1 - r) * t, g + (1 - g) * t, b + (1 - b) * t)


def figure_ladder(report, data, log=False):
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle
    from matplotlib.transforms import blended_transform_factory

    bars = data["bars"]
    group_gap = 0.8
    xs, x, previous = [], 0.0, None
    for bar in bars:
        if previous is not None and bar["group"] != previous:
            x += group_gap
        xs.append(x)
        x += 1.0
        previous = bar["group"]
    width = max(6.5, 1.5 + 0.62 * (xs[-1] + 1))
    fig, ax = plt.subplots(figsize=(width, 5.6), layout="constrained")

    # The axis fits the rows that passed: a FAILED kernel that skips its work can time absurdly
    # fast, and its bar then runs off the top (labelled with its value) rather than squash the rest.
    timed = [b for b in bars if b["tflops"] is not None and b["tflops"] > 0]
    values = [b["tflops"] for b in timed]
    passed = [b["tflops"] for b in timed if not b["failed"]]
    top = max(passed or values or [1.0])
    if log:
        ax.set_yscale("log")
        ax.set_ylim(min(values or [1.0]) / 3.0, top * 8.0)
    else:
        ax.set_ylim(0, top * 1.28)
    y_max = ax.get_ylim()[1]

    palette, shades, legend = {}, {}, {}
    for family in dict.fromkeys(b["family"] for b in bars):
        groups_of_family = list(dict.fromkeys(b["group"] for b in bars if b["family"] == family))
        for i, key in enumerate(groups_of_family):
            shades[(family, key)] = i
    family_groups = {}
    for family, _ in shades:
        family_groups[family] = family_groups.get(family, 0) + 1
    axis_x = blended_transform_factory(ax.transData, ax.transAxes)
    for bx, bar in zip(xs, bars):
        color = _family_color(bar["family"], shades[(bar["family"], bar["group"])], palette)
        value = bar["tflops"]
        if bar["failed"]:
            if value is not None and value > 0:
                ax.bar(bx, value, 0.78, color=FAILED_FACE, edgecolor=FAILED_EDGE, hatch="///",
                       linewidth=1.0, zorder=2)
                if value <= top:
                    ax.annotate("FAILED", (bx, value), xytext=(0, 3), textcoords="offset points",
                                ha="center", va="bottom", fontsize=8, color=FAILED_EDGE,
                                fontweight="bold")
                else:  # above every passing bar: label inside its top, which may be cut off
                    text = f"FAILED\n{tflops_text(value)}"
                    if value > y_max:
                        text += "\noff scale"
                    ax.annotate(text, (bx, min(value, y_max)), xytext=(0, -14),
                                textcoords="offset points", ha="center", va="top", fontsize=7,
                                color=FAILED_EDGE, fontweight="bold", zorder=4,
                                bbox={"boxstyle": "square,pad=0.1", "facecolor": "white",
                                      "edgecolor": "none"})
            else:  # no timing: a hatched stub at the foot of the axis, so the row still shows
                ax.add_patch(Rectangle((bx - 0.39, 0), 0.78, 0.25, transform=axis_x,
                                       facecolor=FAILED_FACE, edgecolor=FAILED_EDGE, hatch="///",
                                       zorder=2))
                ax.text(bx, 0.27, "FAILED\n(no time)", transform=axis_x, ha="center",
                        va="bottom", fontsize=7, color=FAILED_EDGE, fontweight="bold")
            legend.setdefault("FAILED (output wrong)",
                              Patch(facecolor=FAILED_FACE, edgecolor=FAILED_EDGE, hatch="///"))
            continue
        ax.bar(bx, value, 0.78, color=color, edgecolor="black", linewidth=0.4, zorder=2)
        name = baseline_name({"provider": bar["family"]}) if bar["cublas"] else bar["family"]
        if not bar["cublas"] and family_groups[bar["family"]] > 1:
            name += f" [{bar['group_label']}]"
        legend.setdefault(name, Patch(facecolor=color, edgecolor="black", linewidth=0.4))
        text = tflops_text(value)
        if bar["percent"]:
            text = f"{bar['percent']}\n{text}"
        # The white box keeps the label readable where the dashed cuBLAS line crosses it.
        ax.annotate(text, (bx, value), xytext=(0, 2), textcoords="offset points", ha="center",
                    va="bottom", fontsize=7.5, linespacing=1.1, zorder=4,
                    fontweight="normal" if bar["cublas"] else "bold",
                    bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none",
                          "alpha": 0.85})

    for ref in data["references"]:
        members = [bx for bx, bar in zip(xs, bars) if bar["group"] == ref["group"]]
        ax.hlines(ref["tflops"], min(members) - 0.45, max(members) + 0.45, colors="#333333",
                  linestyles="--", linewidth=1.0, zorder=3)
    if data["references"]:
        legend[f"{data['baseline']} level"] = plt.Line2D([], [], color="#333333", linestyle="--",
                                                         linewidth=1.0)

    # Group headers along the top, separators between groups.
    for key in data["groups"]:
        members = [bx for bx, bar in zip(xs, bars) if bar["group"] == key]
        ax.text((min(members) + max(members)) / 2, 0.985, group_label(key), transform=axis_x,
                ha="center", va="top", fontsize=8.5, color="#222222",
                bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "#bbbbbb"})
    for i in range(1, len(bars)):
        if bars[i]["group"] != bars[i - 1]["group"]:
            ax.axvline((xs[i] + xs[i - 1]) / 2, color="#aaaaaa", linewidth=0.8, zorder=1)

    ax.set_xticks(xs)
    ax.set_xticklabels([b["label"] for b in bars], rotation=35, ha="right", rotation_mode="anchor",
                       fontsize=8.5)
    for tick, bar in zip(ax.get_xticklabels(), bars):
        if bar["failed"]:
            tick.set_color(FAILED_EDGE)
    ax.set_xlim(xs[0] - 0.7, xs[-1] + 0.7)
    ax.set_ylabel("TFLOP/s (2*M*N*K / median time)" + (", log scale" if log else ""))
    ax.grid(axis="y", which="major", color="#e4e4e4", zorder=0)
    ax.set_axisbelow(True)
    # Families first, then the cuBLAS entries and FAILED, whatever order the bars came in.
    order = sorted(legend, key=lambda name: (name.startswith("cuBLAS"), name.startswith("FAILED")))
    ax.legend([legend[name] for name in order], order, loc="lower left", bbox_to_anchor=(0, 1.0),
              ncol=len(order) if len(order) <= 5 else (len(order) + 1) // 2, frameon=False,
              fontsize=8, handlelength=1.6)
    m, n, k = data["shape"]
    size = f"M = N = K = {m}" if m == n == k else f"M = {m}, N = {n}, K = {k}"
    fig.suptitle("\n".join([f"GEMM ladder, {size}: TFLOP/s, label = % of {data['baseline']}"]
                           + title_lines(report["metadata"])), fontsize=9.5)
    if data["notes"]:
        fig.text(0.005, -0.01, _footnote_text(data["notes"]), ha="left", va="top", fontsize=7,
                 family="monospace", color="#333333")
    return fig


def figure_sweep(report, data, metric="tflops", log=False):
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    fig, ax = plt.subplots(figsize=(9, 5.6), layout="constrained")
    kernel_colors = plt.get_cmap("tab10").colors
    cublas_styles = [("#222222", "s"), ("#777777", "D"), ("#444444", "^"), ("#999999", "v")]
    ki = ci = 0
    for s in data["series"]:
        px = [p[0] for p in s["points"]]
        py = [p[1] for p in s["points"]]
        if s["cublas"]:
            color, marker = cublas_styles[ci % len(cublas_styles)]
            ci += 1
            ax.plot(px, py, linestyle="--", marker=marker, markersize=4, color=color,
                    linewidth=1.3, label=s["label"], zorder=2)
        else:
            ax.plot(px, py, linestyle="-", marker="o", markersize=4,
                    color=kernel_colors[ki % len(kernel_colors)], linewidth=1.6, label=s["label"],
                    zorder=3)
            ki += 1
    if data["failed"]:
        ax.scatter([f[0] for f in data["failed"]], [f[1] for f in data["failed"]], marker="x",
                   s=60, color=FAILED_EDGE, linewidths=2, zorder=4, label="FAILED (output wrong)")
    if metric == "ratio":
        ax.axhline(100, color="#222222", linestyle="--", linewidth=1.2,
                   label=f"{data['baseline']} = 100%",
                   zorder=1)
    ax.set_xscale("log", base=2)
    xs = data["sizes"]
    if len(xs) <= 16:
        ax.xaxis.set_major_locator(FixedLocator(xs))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([f"{v:.0f}" if abs(v - round(v)) < 1e-6 else f"{v:.1f}" for v in xs],
                           rotation=45 if len(xs) > 8 else 0, fontsize=8.5)
    else:
        ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(data["x_label"] + " (log2 scale)")
    ax.set_ylabel(data["y_label"] + (", log scale" if log else ""))
    ax.grid(True, which="major", color="#e4e4e4")
    ax.legend(fontsize=8, loc="best", framealpha=0.9)
    what = "TFLOP/s" if metric == "tflops" else f"% of {data['baseline']}"
    fig.suptitle("\n".join([f"GEMM size sweep: {what}"] + title_lines(report["metadata"])),
                 fontsize=9.5)
    if data["notes"]:
        fig.text(0.005, -0.01, _footnote_text(data["notes"]), ha="left", va="top", fontsize=7,
                 family="monospace", color="#333333")
    return fig


def figure_roofline(report, data):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 6), layout="constrained")
    xs = [p["x"] for p in data["points"]]
    lo, hi = min(xs) / 2, max(xs) * 2
    bw = data["bandwidth_gbs"]
    if bw:
        # The knee of the highest compute roof bounds the memory line's right end.
        top = max(data["compute"].values()) if data["compute"] else None
        hi = max(hi, 2 * top * 1e3 / bw) if top else hi
    grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    styles = ["-", "--", "-.", ":"]
    for i, (cls, peak) in enumerate(sorted(data["compute"].items(), key=lambda kv: -kv[1])):
        ys = [min(peak, x * bw / 1e3) if bw else peak for x in grid]
        ax.plot(grid, ys, color="#222222", lw=1.3, ls=styles[i % len(styles)],
                label=f"roof {cls}: {tflops_text(peak)} TFLOP/s at max SM clock")
    if bw:
        ax.plot(grid, [x * bw / 1e3 for x in grid], color="#888888", lw=0.8, ls=":",
                label=f"memory roof: {bw:.0f} GB/s ({data['bandwidth_source']})")
    palette, seen = {}, set()
    for p in data["points"]:
        if p["failed"]:
            kind, kw = "FAILED", dict(marker="x", color=FAILED_EDGE, s=50)
        elif p["cublas"]:
            kind, kw = "cuBLAS", dict(marker="o", facecolors="none", edgecolors="#555555", s=42)
        else:
            kind = f"kernel ({p['family']})"
            kw = dict(marker="^", color=_family_color(p["family"], 0, palette), s=42,
                      edgecolors="black", linewidths=0.4)
        ax.scatter([p["x"]], [p["y"]], zorder=3, label=None if kind in seen else kind, **kw)
        seen.add(kind)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (FLOP per byte: A, B read once, C written once, "
                  "C read when beta != 0)")
    ax.set_ylabel("TFLOP/s (2*M*N*K / median time)")
    ax.grid(True, which="both", color="#e5e5e5", lw=0.5)
    ax.legend(fontsize=7.5, loc="upper left")
    fig.suptitle("\n".join(["Roofline: achieved TFLOP/s against arithmetic intensity"] +
                           title_lines(report["metadata"])), fontsize=9.5)
    if data["notes"]:
        fig.text(0.005, -0.01, _footnote_text(data["notes"]), ha="left", va="top", fontsize=7,
                 family="monospace", color="#333333")
    return fig


def render_roofline(report, out_path):
    """Shape the data, then draw the roofline chart into the PNG `out_path`."""
    data = roofline_data(report)
    _use_agg()
    save(figure_roofline(report, data), out_path)
    return data


def save(fig, out_path):
    import matplotlib.pyplot as plt

    fig.savefig(out_path, dpi=150, bbox_inches="tight")
    plt.close(fig)


def _use_agg():
    try:
        import matplotlib
    except ImportError:
        raise RuntimeError("matplotlib is not installed (pip install -r scripts/requirements.txt, "
                           "or apt-get install python3-matplotlib)") from None
    matplotlib.use("Agg")


def render_ladder(report, out_path, shape=None, log=False, baseline="cublas"):
    """Shape the data, then draw the ladder chart into the PNG `out_path`."""
    data = ladder_data(report, pick_shape(report, shape), baseline)
    _use_agg()
    save(figure_ladder(report, data, log=log), out_path)
    return data


def render_sweep(report, out_path, metric="tflops", log=False, baseline="cublas"):
    """Shape the data, then draw the sweep chart into the PNG `out_path`."""
    data = sweep_data(report, metric, baseline)
    _use_agg()
    save(figure_sweep(report, data, metric=metric, log=log), out_path)
    return data


# ----------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------

EPILOG = """exit status: 0 chart written (its path is printed), 2 bad input (one line on stderr:
missing or unreadable file, not a gemmbench report, unknown shape, nothing ok to draw),
1 matplotlib missing."""


def build_parser():
    doc = __doc__.strip()
    parser = argparse.ArgumentParser(
        prog="plot_report.py", description=doc, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="chart", metavar="{ladder,sweep,compare,roofline}", required=True)

    def common(p, default_out):
        p.add_argument("reports", nargs="+", metavar="REPORT",
                       help="JSON report from `gemmbench --json` ('-' = stdin); several are "
                            "merged (rows in the order given, titles from the first)")
        p.add_argument("-o", "--output", default=default_out,
                       help=f"PNG to write (default: {default_out})")
        p.add_argument("--log", action="store_true",
                       help="log-scale y axis (so naive SGEMM at ~0.5 and HGEMM at ~600 "
                            "TFLOP/s both read on one chart)")
        p.add_argument("--kernels", metavar="GLOBS",
                       help="only kernels matching these comma-separated globs, e.g. "
                            "'sgemm_*,hgemm_tn' (cuBLAS rows always stay)")
        p.add_argument("--run", metavar="NAME",
                       help="only rows of this run (the config's run name; 'cli' for flags)")
        p.add_argument("--baseline", choices=tuple(BASELINES), default="cublas",
                       help="ratios against cublas (default: ratio_to_cublas) or cublaslt "
                            "(ratio_to_cublaslt: the tuned cuBLASLt baseline of a report run "
                            "with `gemmbench --baseline cublaslt` or `both`)")

    ladder = sub.add_parser(
        "ladder", help="bars of TFLOP/s per kernel at one shape, %% of cuBLAS on each",
        description="Bars of TFLOP/s per kernel at one problem shape, in rung order, one block "
                    "per (dtype, accumulate, layout) with its cuBLAS bar and a dashed cuBLAS "
                    "line; '% of cuBLAS' on every kernel bar; FAILED rows red and hatched; "
                    "skipped/error rows listed under the chart.",
        epilog=EPILOG)
    common(ladder, "ladder.png")
    ladder.add_argument("--shape", metavar="MxNxK",
                        help="the problem shape to show, e.g. 4096x4096x4096 or 4096 (default: "
                             "the shape with the most kernel rows)")

    sweep = sub.add_parser(
        "sweep", help="lines of TFLOP/s (or %% of cuBLAS) per kernel over problem size",
        description="One line per kernel (solid) and per cuBLAS group (dashed) over problem "
                    "size: M when M = N = K, else (M*N*K)^(1/3), log2 axis. For reports of "
                    "sweeps such as configs/square_sweep.json.",
        epilog=EPILOG)
    common(sweep, "sweep.png")
    sweep.add_argument("--metric", choices=("tflops", "ratio"), default="tflops",
                       help="tflops (default) or ratio: %% of cuBLAS, cuBLAS = 100%% line")

    compare = sub.add_parser(
        "compare", help="gemmbench compare's verdicts per case, with noise bars",
        description="The output of `gemmbench compare BASE NEW --json FILE`: one bar per case "
                    "(change of the median in %, right: slower, coloured by gemmbench "
                    "compare's verdict) with a noise bar, a dot for the change of the ratio to "
                    "cuBLAS and dashed lines at its threshold. Rows on one side only are listed "
                    "under the chart.",
        epilog=EPILOG)
    compare.add_argument("comparison", metavar="COMPARE_JSON",
                         help="written by `gemmbench compare BASE NEW --json FILE` ('-' = stdin)")
    compare.add_argument("-o", "--output", default="compare.png",
                         help="PNG to write (default: compare.png)")
    roofline = sub.add_parser(
        "roofline", help="achieved TFLOP/s against arithmetic intensity, with both roofs",
        description="One marker per timed row at (FLOP per byte, TFLOP/s), log axes, under the "
                    "memory roof (intensity x bandwidth) and one compute roof per instruction "
                    "class, all from the rows' speed-of-light fields. Kernels are filled "
                    "triangles, cuBLAS hollow circles, FAILED rows red crosses.",
        epilog=EPILOG)
    common(roofline, "roofline.png")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.chart == "compare":
        return _main_compare(args)
    try:
        named = []
        for path in args.reports:
            report, warnings = load_report(path)
            for w in warnings:
                print(f"plot_report: warning: {w}", file=sys.stderr)
            named.append((path, report))
        report, warnings = merge_reports(named)
        for w in warnings:
            print(f"plot_report: warning: {w}", file=sys.stderr)
        report = filter_rows(report, kernels=args.kernels, run=args.run)
        if args.chart == "ladder":
            render_ladder(report, args.output, shape=args.shape, log=args.log,
                          baseline=args.baseline)
        elif args.chart == "roofline":
            render_roofline(report, args.output)
        else:
            data = render_sweep(report, args.output, metric=args.metric, log=args.log,
                                baseline=args.baseline)
            if len(data["sizes"]) == 1:
                print("plot_report: warning: the report has one problem size: the ladder chart "
                      "shows it better", file=sys.stderr)
    except ReportError as e:
        print(f"plot_report: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"plot_report: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # the output cannot be written
        print(f"plot_report: {args.output}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(args.output)
    return 0


def _main_compare(args):
    try:
        render_compare(load_comparison(args.comparison), args.output)
    except ReportError as e:
        print(f"plot_report: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"plot_report: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"plot_report: {args.output}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
