"""scripts/plot_report.py with the tuned cuBLASLt baseline (--baseline cublaslt): which ratio the
charts use, which rows give the reference line, and the errors when a report has no such ratio.

The report is tests/data/sample_report.json (synthetic numbers) with the rows that
`gemmbench --baseline both` adds: a cublaslt row after each cublas row of the f16 groups, and
ratio_to_cublaslt on those groups' kernel rows.
"""

import copy
import json
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_plot_report import HAVE_MATPLOTLIB, BIG, plot_report, run_main, sample  # noqa: E402

LT_SPEEDUP = 1.08  # the synthetic cuBLASLt rows run 8% faster than cuBLAS


def with_cublaslt(report):
    """`report` as if run with --baseline both on its f16 groups."""
    doc = copy.deepcopy(report)
    rows = []
    for row in doc["results"]:
        rows.append(row)
        if row["dtype"] != "f16":
            continue
        row.setdefault("measure", {})["baseline"] = "both"
        if row["provider"] == "cublas" and row["status"] == "ok":
            lt = copy.deepcopy(row)
            lt.update(kernel="cublaslt", provider="cublaslt", family="cublaslt",
                      tflops=row["tflops"] * LT_SPEEDUP, ratio_to_cublas=LT_SPEEDUP,
                      cublas_median_ms=row["time_ms"]["median"])
            lt["time_ms"] = dict(row["time_ms"], median=row["time_ms"]["median"] / LT_SPEEDUP)
            lt["cublaslt_algo"] = {"description": "algo 66 tile 128x256 (heuristic #2 of 8)"}
            rows.append(lt)
        elif row["provider"] == "gemmbench" and row.get("ratio_to_cublas") is not None:
            row["ratio_to_cublaslt"] = row["ratio_to_cublas"] / LT_SPEEDUP
    doc["results"] = rows
    return doc


class LadderAgainstCublaslt(unittest.TestCase):
    def setUp(self):
        self.doc = with_cublaslt(sample())

    def bars(self, data):
        return {b["label"]: b for b in data["bars"]}

    def test_percentages_and_reference_come_from_the_chosen_baseline(self):
        data = plot_report.ladder_data(self.doc, BIG, baseline="cublaslt")
        bars = self.bars(data)
        self.assertEqual(bars["hgemm_tn"]["percent"], "50%")     # 0.543 / 1.08
        self.assertEqual(bars["hgemm_wmma"]["percent"], "28%")   # 0.298 / 1.08
        self.assertEqual(bars["sgemm_naive"]["percent"], "", "no cuBLASLt ratio in the f32 group")
        self.assertEqual(bars["cuBLASLt"]["percent"], "")
        self.assertEqual(data["baseline"], "cuBLASLt")
        f16 = [r for r in data["references"] if r["group"][0] == "f16"]
        self.assertEqual(len(f16), 1)
        self.assertAlmostEqual(f16[0]["tflops"], 612.0 * LT_SPEEDUP)
        self.assertFalse(any(r["group"][0] == "f32" for r in data["references"]),
                         "a group without a cublaslt row has no cuBLASLt line")

    def test_baselines_open_their_group_and_cublaslt_shows_its_percent_of_cublas(self):
        data = plot_report.ladder_data(self.doc, BIG)  # default: --baseline cublas
        f16 = [b for b in data["bars"] if b["group"][0] == "f16"]
        self.assertEqual([b["label"] for b in f16],
                         ["cuBLAS", "cuBLASLt", "hgemm_wmma", "hgemm_tn"])
        self.assertTrue(f16[1]["cublas"], "the cuBLASLt row is a baseline row")
        self.assertEqual(f16[1]["percent"], "108%")
        self.assertEqual(self.bars(data)["hgemm_tn"]["percent"], "54%")
        self.assertEqual(data["baseline"], "cuBLAS")

    def test_filters_keep_cublaslt_rows(self):
        doc = plot_report.filter_rows(self.doc, kernels="hgemm_tn")
        self.assertIn("cublaslt", [r["kernel"] for r in doc["results"]])

    def test_unknown_baseline(self):
        with self.assertRaises(plot_report.ReportError):
            plot_report.ladder_data(self.doc, BIG, baseline="cudnn")


class SweepAgainstCublaslt(unittest.TestCase):
    def test_ratio_lines_use_ratio_to_cublaslt(self):
        doc = plot_report.filter_rows(with_cublaslt(sample()), run="square_sweep")
        data = plot_report.sweep_data(doc, metric="ratio", baseline="cublaslt")
        lines = {s["label"]: s["points"] for s in data["series"]}
        self.assertEqual(list(lines), ["hgemm_tn"], "only rows with a cuBLASLt ratio")
        self.assertAlmostEqual(lines["hgemm_tn"][0][1], 100 * 0.6592238171185539 / LT_SPEEDUP)
        self.assertIn("% of cuBLASLt", data["y_label"])

    def test_against_cublas_the_cublaslt_line_is_its_percent_of_cublas(self):
        doc = plot_report.filter_rows(with_cublaslt(sample()), run="square_sweep")
        data = plot_report.sweep_data(doc, metric="ratio")
        lines = {s["label"]: s for s in data["series"]}
        lt = [s for s in data["series"] if s["kernel"] == "cublaslt"]
        self.assertEqual(len(lt), 1)
        self.assertTrue(lt[0]["cublas"], "drawn dashed, as a baseline")
        self.assertTrue(all(abs(y - 100 * LT_SPEEDUP) < 1e-9 for _, y in lt[0]["points"]))
        self.assertIn("sgemm_coalesced", lines)

    def test_report_without_cublaslt_says_how_to_get_one(self):
        doc = plot_report.filter_rows(sample(), run="square_sweep")
        with self.assertRaises(plot_report.ReportError) as e:
            plot_report.sweep_data(doc, metric="ratio", baseline="cublaslt")
        self.assertIn("ratio_to_cublaslt", str(e.exception))
        self.assertIn("--baseline cublaslt", str(e.exception))


class CommandLine(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "lt.json")
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(with_cublaslt(sample()), f)

    def tearDown(self):
        self.dir.cleanup()

    def test_bad_baseline_exits_2(self):
        with self.assertRaises(SystemExit) as e:
            run_main(["sweep", self.path, "--baseline", "cudnn"])
        self.assertEqual(e.exception.code, 2)

    def test_no_cublaslt_ratio_exits_2_with_one_line(self):
        plain = os.path.join(self.dir.name, "plain.json")
        with open(plain, "w", encoding="utf-8") as f:
            json.dump(sample(), f)
        code, _, err = run_main(["sweep", plain, "--run", "square_sweep", "--metric", "ratio",
                                 "--baseline", "cublaslt", "-o",
                                 os.path.join(self.dir.name, "x.png")])
        self.assertEqual(code, 2)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("ratio_to_cublaslt", err)

    @unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib not importable")
    def test_both_charts_render_against_cublaslt(self):
        for argv in (["ladder", self.path, "--baseline", "cublaslt"],
                     ["sweep", self.path, "--run", "square_sweep", "--metric", "ratio",
                      "--baseline", "cublaslt"]):
            out = os.path.join(self.dir.name, argv[0] + ".png")
            code, stdout, err = run_main(argv + ["-o", out])
            self.assertEqual(code, 0, err)
            self.assertEqual(stdout.strip(), out)
            self.assertGreater(os.path.getsize(out), 10000)


if __name__ == "__main__":
    unittest.main()
