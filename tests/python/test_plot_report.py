"""Tests of scripts/plot_report.py on tests/data/sample_report.json (synthetic numbers).

Standard library only (unittest), so CI needs python3 and, for the render test,
python3-matplotlib; without matplotlib that one test is skipped with its reason.

    python3 -m unittest discover -s tests/python -v
"""

import contextlib
import copy
import gzip
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "plot_report.py")
SAMPLE = os.path.join(ROOT, "tests", "data", "sample_report.json")

sys.dont_write_bytecode = True  # no __pycache__ left in scripts/ by the tests
sys.path.insert(0, os.path.dirname(SCRIPT))  # plot_report imports scripts/report_file.py
_spec = importlib.util.spec_from_file_location("plot_report", SCRIPT)
plot_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plot_report)

try:
    import matplotlib  # noqa: F401

    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False

BIG = (4096, 4096, 4096)


def sample():
    with open(SAMPLE, encoding="utf-8") as f:
        return json.load(f)


def run_main(argv):
    """(exit code, stdout, stderr) of plot_report.main(argv), in process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = plot_report.main(argv)
    return code, out.getvalue(), err.getvalue()


class TempDirCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write_json(self, name, doc):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        return path


class SampleIsMarkedSynthetic(unittest.TestCase):
    def test_metadata_says_synthetic(self):
        meta = sample()["metadata"]
        self.assertIn("not a measurement", meta["description"])
        self.assertEqual(meta["device"]["name"], "SAMPLE (synthetic)")

    def test_sample_passes_the_report_check(self):
        self.assertEqual(plot_report.check_report(sample(), "sample"), [])


class LoadAndCheck(TempDirCase):
    def assert_rejected(self, doc, fragment):
        with self.assertRaises(plot_report.ReportError) as caught:
            plot_report.check_report(doc, "x.json")
        self.assertIn(fragment, str(caught.exception))

    def test_missing_file(self):
        with self.assertRaises(plot_report.ReportError) as caught:
            plot_report.load_report(os.path.join(self.tmp, "absent.json"))
        self.assertIn("no such file", str(caught.exception))

    def test_not_json(self):
        path = os.path.join(self.tmp, "bad.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write("{ not json")
        with self.assertRaises(plot_report.ReportError) as caught:
            plot_report.load_report(path)
        self.assertIn("not JSON", str(caught.exception))

    def test_gzip_report_reads_as_the_plain_one(self):
        plain = self.write_json("r.json", sample())
        packed = os.path.join(self.tmp, "r.json.gz")
        with open(plain, "rb") as f, gzip.open(packed, "wb") as g:
            g.write(f.read())
        self.assertEqual(plot_report.load_report(packed), plot_report.load_report(plain))

    def test_truncated_gzip_is_unreadable(self):
        packed = os.path.join(self.tmp, "cut.json.gz")
        with gzip.open(packed, "wb") as g:
            g.write(json.dumps(sample()).encode())
        with open(packed, "rb") as f:
            data = f.read()
        with open(packed, "wb") as f:
            f.write(data[: len(data) // 2])
        with self.assertRaises(plot_report.ReportError) as caught:
            plot_report.load_report(packed)
        self.assertIn("cannot read", str(caught.exception))

    def test_report_table_reads_a_committed_gzip_fixture(self):
        fixture = os.path.join(ROOT, "tests", "data", "reports",
                               "2026-11-22_hopper_5120_repeat2.json.gz")
        out = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report_table.py"),
                              fixture], capture_output=True, text=True, check=True).stdout
        self.assertIn("hgemm_tn_sm90", out)
        self.assertIn("5120x4096x4096", out)

    def test_other_json_is_not_a_report(self):
        self.assert_rejected([1, 2], "not a gemmbench report")
        self.assert_rejected({"results": []}, "not a gemmbench report")
        self.assert_rejected({"metadata": {"tool": "nvbench"}, "results": []},
                             "not a gemmbench report")

    def test_inspect_output_points_to_plot_inspect(self):
        self.assert_rejected({"inspect": "swizzle"}, "plot_inspect.py")

    def test_row_without_a_required_key(self):
        doc = sample()
        del doc["results"][2]["kernel"]
        self.assert_rejected(doc, "results[2] lacks 'kernel'")

    def test_unknown_status(self):
        doc = sample()
        doc["results"][0]["status"] = "passed"
        self.assert_rejected(doc, "'passed'")

    def test_non_numeric_tflops(self):
        doc = sample()
        doc["results"][0]["tflops"] = "fast"
        self.assert_rejected(doc, "tflops")

    def test_incomplete_report_warns(self):
        doc = sample()
        doc["summary"].update(complete=False, aborted=True, rows_written=5,
                              abort_reason="CUDA context lost")
        warnings = plot_report.check_report(doc, "x.json")
        self.assertEqual(len(warnings), 1)
        self.assertIn("CUDA context lost", warnings[0])


class ShapeSelection(unittest.TestCase):
    def test_parse_shape(self):
        self.assertEqual(plot_report.parse_shape("4096x2048x512"), (4096, 2048, 512))
        self.assertEqual(plot_report.parse_shape("1024"), (1024, 1024, 1024))
        self.assertEqual(plot_report.parse_shape("8X8X8"), (8, 8, 8))
        for bad in ("", "4096x4096", "ax1x1", "0x1x1", "1x1x1x1", "-4"):
            with self.subTest(bad=bad), self.assertRaises(plot_report.ReportError):
                plot_report.parse_shape(bad)

    def test_default_is_the_shape_with_most_kernel_rows(self):
        # 4096^3 has 5 kernel rows (7 with cuBLAS); each sweep size has 2 (4).
        self.assertEqual(plot_report.pick_shape(sample()), BIG)
        doc = sample()
        doc["results"].reverse()  # the sweep's shapes now come first
        self.assertEqual(plot_report.pick_shape(doc), BIG)

    def test_cublas_rows_do_not_count(self):
        doc = sample()
        extra = copy.deepcopy([r for r in doc["results"] if r["kernel"] == "cublas"
                               and r["m"] == 256])
        doc["results"].extend(copy.deepcopy(extra) * 5)  # many cuBLAS rows at 256^3
        self.assertEqual(plot_report.pick_shape(doc), BIG)

    def test_tie_goes_to_the_first_shape(self):
        doc = sample()
        doc["results"] = [r for r in doc["results"] if r["run"] == "square_sweep"]
        self.assertEqual(plot_report.pick_shape(doc), (256, 256, 256))

    def test_chosen_shape(self):
        self.assertEqual(plot_report.pick_shape(sample(), "512x512x512"), (512, 512, 512))
        self.assertEqual(plot_report.pick_shape(sample(), "1024"), (1024, 1024, 1024))
        self.assertEqual(plot_report.pick_shape(sample(), (256, 256, 256)), (256, 256, 256))

    def test_absent_shape_lists_what_there_is(self):
        with self.assertRaises(plot_report.ReportError) as caught:
            plot_report.pick_shape(sample(), "2048")
        message = str(caught.exception)
        self.assertIn("2048x2048x2048", message)
        self.assertIn("4096x4096x4096 (7 rows)", message)


class LadderData(unittest.TestCase):
    def setUp(self):
        self.data = plot_report.ladder_data(sample(), BIG)

    def test_bars_in_report_order_grouped_cublas_first(self):
        self.assertEqual([b["label"] for b in self.data["bars"]],
                         ["cuBLAS", "sgemm_naive", "sgemm_smem",
                          "cuBLAS", "hgemm_wmma", "hgemm_tn"])
        self.assertEqual([b["group_label"] for b in self.data["bars"]],
                         ["f32 (acc f32) nn"] * 3 + ["f16 (acc f32) tn"] * 3)

    def test_percent_labels_come_from_ratio_to_cublas(self):
        by_label = {b["label"]: b for b in self.data["bars"] if not b["cublas"]}
        self.assertEqual(by_label["sgemm_naive"]["percent"], "0.97%")   # 0.498 / 51.4
        self.assertEqual(by_label["hgemm_wmma"]["percent"], "30%")      # 181 / 608
        self.assertEqual(by_label["hgemm_tn"]["percent"], "54%")        # 334 / 615
        for bar in self.data["bars"]:
            if bar["cublas"]:
                self.assertEqual(bar["percent"], "")

    def test_percent_label_format(self):
        self.assertEqual(plot_report.percent_label(0.009640023708434363), "0.96%")
        self.assertEqual(plot_report.percent_label(0.12148176019397385), "12%")
        self.assertEqual(plot_report.percent_label(0.034), "3.4%")
        self.assertEqual(plot_report.percent_label(1.07), "107%")
        self.assertEqual(plot_report.percent_label(None), "")

    def test_tflops_text_has_no_exponent(self):
        self.assertEqual(plot_report.tflops_text(0.49818), "0.498")
        self.assertEqual(plot_report.tflops_text(51.6144), "51.6")
        self.assertEqual(plot_report.tflops_text(612.0), "612")
        self.assertEqual(plot_report.tflops_text(1234.4), "1234")

    def test_failed_row_is_kept_and_flagged(self):
        smem = [b for b in self.data["bars"] if b["kernel"] == "sgemm_smem"]
        self.assertEqual(len(smem), 1)
        self.assertTrue(smem[0]["failed"])
        self.assertEqual(smem[0]["status"], "FAILED")
        self.assertAlmostEqual(smem[0]["tflops"], 9.1)
        self.assertFalse(any(b["failed"] for b in self.data["bars"] if b is not smem[0]))
        self.assertTrue(any(n.startswith("FAILED: sgemm_smem") for n in self.data["notes"]))

    def test_skipped_row_is_listed_not_drawn(self):
        self.assertNotIn("sgemm_warptile", [b["kernel"] for b in self.data["bars"]])
        notes = [n for n in self.data["notes"] if n.startswith("skipped: sgemm_warptile")]
        self.assertEqual(len(notes), 1)
        self.assertIn("shared memory", notes[0])

    def test_error_row_is_listed(self):
        doc = sample()
        row = next(r for r in doc["results"] if r["kernel"] == "hgemm_wmma")
        row.update(status="error", reason="cudaErrorIllegalAddress", tflops=None)
        data = plot_report.ladder_data(doc, BIG)
        self.assertNotIn("hgemm_wmma", [b["kernel"] for b in data["bars"]])
        self.assertTrue(any(n.startswith("error: hgemm_wmma") and "IllegalAddress" in n
                            for n in data["notes"]))

    def test_one_cublas_reference_per_group(self):
        refs = [(r["group_label"], r["tflops"]) for r in self.data["references"]]
        self.assertEqual(refs, [("f32 (acc f32) nn", 51.6), ("f16 (acc f32) tn", 612.0)])

    def test_cublas_opens_its_group_whatever_the_row_order(self):
        doc = sample()
        doc["results"].reverse()
        labels = [b["label"] for b in plot_report.ladder_data(doc, BIG)["bars"]]
        self.assertEqual(labels, ["cuBLAS", "hgemm_tn", "hgemm_wmma", "cuBLAS", "sgemm_smem",
                                  "sgemm_naive"])

    def test_no_ok_rows_is_an_error(self):
        doc = sample()
        for row in doc["results"]:
            if (row["m"], row["n"], row["k"]) == BIG and row["status"] == "ok":
                row["status"] = "skipped"
        with self.assertRaises(plot_report.ReportError) as caught:
            plot_report.ladder_data(doc, BIG)
        self.assertIn("no ok rows at shape 4096x4096x4096", str(caught.exception))

    def test_int3_data_is_its_own_labelled_group(self):
        doc = sample()
        int3 = [copy.deepcopy(r) for r in doc["results"]
                if (r["m"], r["n"], r["k"]) == BIG and r["dtype"] == "f16"]
        for row in int3:
            row["measure"]["data"] = "int3"
            if row["tflops"] is not None:
                row["tflops"] *= 1.1
        doc["results"].extend(int3)
        data = plot_report.ladder_data(doc, BIG)
        refs = [(r["group_label"], r["tflops"]) for r in data["references"]]
        self.assertEqual([label for label, _ in refs],
                         ["f32 (acc f32) nn", "f16 (acc f32) tn", "f16 (acc f32) tn, int3 data"])
        self.assertAlmostEqual(refs[2][1], 612.0 * 1.1)

    def test_throttled_row_is_marked(self):
        doc = sample()
        next(r for r in doc["results"] if r["kernel"] == "hgemm_tn"
             and r["m"] == 4096)["clock"]["throttled"] = True
        data = plot_report.ladder_data(doc, BIG)
        self.assertIn("hgemm_tn" + plot_report.THROTTLED_MARK, [b["label"] for b in data["bars"]])
        self.assertTrue(any("throttled: hgemm_tn" in n for n in data["notes"]))


class Merging(unittest.TestCase):
    def test_rows_concatenated_metadata_of_first(self):
        a, b = sample(), sample()
        b["metadata"]["device"]["name"] = "OTHER GPU"
        b["results"] = b["results"][:4]
        merged, warnings = plot_report.merge_reports([("a.json", a), ("b.json", b)])
        self.assertEqual(len(merged["results"]), len(a["results"]) + 4)
        self.assertEqual(merged["results"][len(a["results"])]["kernel"], "cublas")
        self.assertEqual(merged["metadata"]["device"]["name"], "SAMPLE (synthetic)")
        self.assertEqual(merged["metadata"]["merged_from"], ["a.json", "b.json"])
        self.assertEqual(len(warnings), 1)
        self.assertIn("different devices", warnings[0])
        self.assertIn("OTHER GPU", warnings[0])

    def test_same_device_no_warning_other_versions_warn(self):
        a, b = sample(), sample()
        self.assertEqual(plot_report.merge_reports([("a", a), ("b", b)])[1], [])
        b["metadata"]["device"]["cublas_version"] = "12.9.1"
        warnings = plot_report.merge_reports([("a", a), ("b", b)])[1]
        self.assertEqual(len(warnings), 1)
        self.assertIn("12.9.1", warnings[0])

    def test_repeated_kernel_is_numbered_not_dropped(self):
        merged, _ = plot_report.merge_reports([("a", sample()), ("b", sample())])
        labels = [b["label"] for b in plot_report.ladder_data(merged, BIG)["bars"]]
        self.assertEqual(labels.count("sgemm_naive"), 1)
        self.assertEqual(labels.count("sgemm_naive #2"), 1)
        self.assertEqual(labels.count("cuBLAS #2"), 2)

    def test_merged_title_counts_the_reports(self):
        merged, _ = plot_report.merge_reports([("a", sample()), ("b", sample())])
        lines = plot_report.title_lines(merged["metadata"])
        self.assertIn("SAMPLE (synthetic)", lines[0])
        self.assertIn("+ 1 more report(s)", lines[0])
        self.assertIn("cuBLAS 13.1.0", lines[0])
        self.assertIn("not a measurement", lines[1])


class Filtering(unittest.TestCase):
    def test_run_and_kernel_globs(self):
        doc = plot_report.filter_rows(sample(), kernels="hgemm_*", run="square_sweep")
        kernels = {r["kernel"] for r in doc["results"]}
        self.assertEqual(kernels, {"hgemm_tn", "cublas"})  # cuBLAS stays as the reference
        self.assertEqual({r["m"] for r in doc["results"]}, {256, 512, 1024})

    def test_nothing_left_is_an_error(self):
        with self.assertRaises(plot_report.ReportError) as caught:
            plot_report.filter_rows(sample(), run="nope")
        self.assertIn("cli, square_sweep", str(caught.exception))


class SweepData(unittest.TestCase):
    def series(self, data):
        return {s["label"]: s["points"] for s in data["series"]}

    def test_tflops_lines_per_kernel_and_cublas_group(self):
        doc = plot_report.filter_rows(sample(), run="square_sweep")
        data = plot_report.sweep_data(doc)
        lines = self.series(data)
        self.assertEqual(list(lines), ["cuBLAS [f32 (acc f32) nn]", "sgemm_coalesced",
                                       "cuBLAS [f16 (acc f32) tn]", "hgemm_tn"])
        self.assertEqual(lines["sgemm_coalesced"], [(256.0, 0.9), (512.0, 3.1), (1024.0, 5.2)])
        self.assertEqual([p[0] for p in lines["hgemm_tn"]], [256.0, 512.0, 1024.0])
        self.assertTrue(data["square"])
        self.assertEqual(data["sizes"], [256.0, 512.0, 1024.0])
        self.assertEqual(data["x_label"], "M = N = K")
        self.assertEqual(data["failed"], [])

    def test_ratio_metric_drops_cublas_lines(self):
        data = plot_report.sweep_data(plot_report.filter_rows(sample(), run="square_sweep"),
                                      metric="ratio")
        lines = self.series(data)
        self.assertEqual(list(lines), ["sgemm_coalesced", "hgemm_tn"])
        self.assertAlmostEqual(lines["sgemm_coalesced"][0][1], 100 * 0.9 / (2.1 * 1.01))

    def test_failed_points_and_skipped_notes(self):
        data = plot_report.sweep_data(sample())
        self.assertEqual([(x, label) for x, _, label in data["failed"]], [(4096.0, "sgemm_smem")])
        self.assertTrue(any(n.startswith("skipped: sgemm_warptile") for n in data["notes"]))
        self.assertNotIn("sgemm_smem", self.series(data))

    def test_non_square_sizes_use_the_cube_root(self):
        self.assertAlmostEqual(plot_report.problem_size(512, 2048, 128), 512.0)
        self.assertEqual(plot_report.problem_size(96, 96, 96), 96.0)
        doc = sample()
        for row in doc["results"]:
            if row["m"] == 512:
                row.update(n=2048, k=128)
        data = plot_report.sweep_data(plot_report.filter_rows(doc, run="square_sweep"))
        self.assertFalse(data["square"])
        self.assertEqual(data["x_label"], "(M*N*K)^(1/3)")
        self.assertAlmostEqual(self.series(data)["hgemm_tn"][1][0], 512.0)

    def test_kernel_in_two_groups_gets_its_group_in_the_label(self):
        doc = sample()
        extra = copy.deepcopy(next(r for r in doc["results"] if r["kernel"] == "hgemm_tn"))
        extra["accum"] = "f16"
        doc["results"].append(extra)
        labels = list(self.series(plot_report.sweep_data(doc)))
        self.assertIn("hgemm_tn [f16 (acc f32) tn]", labels)
        self.assertIn("hgemm_tn [f16 (acc f16) tn]", labels)

    def test_nothing_ok_is_an_error(self):
        doc = sample()
        for row in doc["results"]:
            row["status"] = "skipped"
        with self.assertRaises(plot_report.ReportError):
            plot_report.sweep_data(doc)


def synthetic_comparison():
    """A small document of the shape `gemmbench compare --json` writes (src/compare/format.cpp)."""
    case = {"case": "hgemm_tn 4096x4096x4096 tn f16/f32", "key": "k1", "base_status": "ok",
            "new_status": "ok", "base_median_ms": 0.25, "new_median_ms": 0.2625,
            "change_pct": 5.0, "base_noise_pct": 1.0, "new_noise_pct": 0.5,
            "method": "quantiles", "p_value": None, "base_ratio_to_cublas": 1.0,
            "new_ratio_to_cublas": 0.95, "ratio_change_pct": -5.0, "verdict": "slower",
            "note": ""}
    untimed = dict(case, case="sgemm_naive 37x53x71 nn f32/f32", key="k2",
                   new_status="skipped", new_median_ms=None, change_pct=None,
                   new_noise_pct=None, ratio_change_pct=None, verdict="untimed")
    return {"tool": "gemmbench compare",
            "base": {"path": "base.json", "metadata": {"git_commit": "aaa"}, "telemetry": ""},
            "new": {"path": "new.json", "metadata": {"git_commit": "bbb"}, "telemetry": ""},
            "threshold_pct": 3.0, "significance": 0.01, "metadata_differences": [],
            "warnings": [], "cases": [case, untimed], "only_in_base": ["cublas 1x1x1 (ok)"],
            "only_in_new": [], "summary": {"slower": 1, "untimed": 1}, "exit_code": 1}


class CompareData(TempDirCase):
    """`compare` draws what `gemmbench compare --json` decided: its verdicts, never its own.
    The end-to-end tests run the binary named by $GEMMBENCH (CTest sets it)."""

    def comparison(self, base, new):
        binary = os.environ.get("GEMMBENCH")
        if not binary:
            self.skipTest("GEMMBENCH is not set to the gemmbench binary (CTest sets it)")
        proc = subprocess.run([binary, "compare", self.write_json("base.json", base),
                               self.write_json("new.json", new), "--json", "-"],
                              capture_output=True, text=True, check=False)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        return json.loads(proc.stdout)

    def slowed(self, factor, spread=None):
        """The sample with the first timed kernel row's times scaled by `factor` (and its
        p10/p90 set to +-spread around the median when given); returns (doc, row index)."""
        doc = sample()
        for i, row in enumerate(doc["results"]):
            if row["provider"] != "cublas" and row.get("time_ms"):
                t = row["time_ms"]
                for k in ("median", "min", "p10", "p90", "mean"):
                    t[k] *= factor
                if spread is not None:
                    t["p10"], t["p90"] = t["median"] * (1 - spread), t["median"] * (1 + spread)
                return doc, i
        self.fail("no timed kernel row in the sample")

    def test_synthetic_comparison_keeps_its_verdicts(self):
        data = plot_report.compare_data(synthetic_comparison())
        self.assertEqual([c["verdict"] for c in data["cases"]], ["slower"])
        self.assertEqual(data["cases"][0]["ratio_change_pct"], -5.0)
        self.assertEqual(data["threshold"], 3.0)
        self.assertIn("not timed in both: sgemm_naive 37x53x71 nn f32/f32 (ok / skipped)",
                      data["notes"])
        self.assertIn("only in BASE: cublas 1x1x1 (ok)", data["notes"])

    def test_nothing_timed_in_both_is_an_error(self):
        doc = synthetic_comparison()
        doc["cases"] = doc["cases"][1:]
        with self.assertRaises(plot_report.ReportError):
            plot_report.compare_data(doc)

    def test_identical_reports_change_nothing(self):
        data = plot_report.compare_data(self.comparison(sample(), sample()))
        self.assertTrue(data["cases"])
        self.assertTrue(all(c["change_pct"] == 0 and c["verdict"] == "same"
                            for c in data["cases"]))
        self.assertFalse([n for n in data["notes"] if n.startswith("only in")])

    def test_slowdown_beyond_noise_and_threshold_is_slower(self):
        base, i = self.slowed(1.0, spread=0.01)
        new, _ = self.slowed(1.05, spread=0.01)
        data = plot_report.compare_data(self.comparison(base, new))
        slower = [c for c in data["cases"] if c["verdict"] == "slower"]
        self.assertEqual(len(slower), 1)
        self.assertIn(base["results"][i]["kernel"], slower[0]["label"])
        self.assertAlmostEqual(slower[0]["change_pct"], 5.0, places=6)
        self.assertAlmostEqual(slower[0]["base_noise_pct"], 1.0, places=6)
        # Within +-10% noise the same 5% is not called.
        wide_base, _ = self.slowed(1.0, spread=0.10)
        wide_new, _ = self.slowed(1.05, spread=0.10)
        wide = plot_report.compare_data(self.comparison(wide_base, wide_new))
        self.assertFalse([c for c in wide["cases"] if c["verdict"] != "same"])

    def test_rows_on_one_side_are_listed(self):
        new = sample()
        dropped = new["results"].pop(0)
        data = plot_report.compare_data(self.comparison(sample(), new))
        only = [n for n in data["notes"] if n.startswith("only in BASE: ")]
        self.assertEqual(len(only), 1)
        self.assertIn(dropped["kernel"], only[0])

    def test_compare_of_a_report_instead_of_a_comparison_exits_2(self):
        code, out, err = run_main(["compare", SAMPLE])
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("gemmbench compare", err)


def with_sol(report, bandwidth=3000.0):
    """The sample with the speed-of-light fields gemmbench writes (docs/reports-sol.md): the
    intensity rule, and the H100 ceilings at 132 SMs x 1980 MHz."""
    doc = copy.deepcopy(report)
    per_clk = {("f32", "f32"): 256, ("f16", "f32"): 4096, ("f16", "f16"): 4096,
               ("bf16", "f32"): 4096}
    names = {("f32", "f32"): "ffma_f32", ("f16", "f32"): "tensor_f16_f32acc",
             ("f16", "f16"): "tensor_f16_f16acc", ("bf16", "f32"): "tensor_bf16_f32acc"}
    for row in doc["results"]:
        m, n, k = row["m"], row["n"], row["k"]
        size = {"f32": 4, "f16": 2, "bf16": 2}[row["dtype"]]
        flop = 2 * m * n * k
        nbytes = (m * k + k * n + (2 if row["beta"] else 1) * m * n) * size
        key = (row["dtype"], row["accum"])
        compute = per_clk[key] * 132 * 1980e6 / 1e12
        memory = flop / nbytes * bandwidth / 1e3
        bound = min(compute, memory)
        row["sol"] = {"flop": flop, "bytes": nbytes, "intensity_flop_per_byte": flop / nbytes,
                      "instruction_class": names[key], "compute_tflops_max_clock": compute,
                      "mem_bw_gbs": bandwidth, "mem_bw_source": "measured",
                      "memory_tflops": memory, "bound_tflops": bound,
                      "bound": "memory" if memory < compute else "compute",
                      "pct_sol": 100 * row["tflops"] / bound if row.get("tflops") else None}
    return doc


class RooflineData(unittest.TestCase):
    def setUp(self):
        self.report = with_sol(sample())

    def test_one_point_per_timed_row_and_the_roofs(self):
        data = plot_report.roofline_data(self.report)
        timed = [r for r in self.report["results"]
                 if r["status"] in ("ok", "FAILED") and r.get("tflops")]
        self.assertEqual(len(data["points"]), len(timed))
        self.assertEqual(data["bandwidth_gbs"], 3000.0)
        self.assertEqual(data["bandwidth_source"], "measured")
        self.assertAlmostEqual(data["compute"]["ffma_f32"], 256 * 132 * 1980e6 / 1e12)
        # 4096^3 in f32: 2*4096^3 / (3 * 4096^2 * 4) = 682.67 FLOP per byte.
        big = [p for p in data["points"] if p["label"].startswith("cublas 4096x4096x4096 f32")]
        self.assertTrue(big)
        self.assertAlmostEqual(big[0]["x"], 4096 * 2 / 12)
        self.assertTrue(big[0]["cublas"])
        self.assertTrue(any(not p["cublas"] for p in data["points"]), "kernels are told apart")

    def test_failed_kept_skipped_listed(self):
        doc = self.report
        doc["results"][1]["status"] = "FAILED"
        doc["results"][2]["status"] = "skipped"
        doc["results"][2]["reason"] = "needs sm_90"
        data = plot_report.roofline_data(doc)
        self.assertTrue(any(p["failed"] for p in data["points"]))
        self.assertTrue(any("needs sm_90" in n for n in data["notes"]))

    def test_preset_label_on_the_point(self):
        self.report["results"][0]["preset"] = {"model": "llama3-8b", "layer": "o_proj"}
        data = plot_report.roofline_data(self.report)
        self.assertIn("[llama3-8b o_proj]", data["points"][0]["label"])

    def test_report_without_sol_is_an_error(self):
        with self.assertRaisesRegex(plot_report.ReportError, "speed-of-light"):
            plot_report.roofline_data(sample())


class CommandLineErrors(TempDirCase):
    """Bad input: exit code 2 and exactly one line on stderr, before matplotlib is needed."""

    def assert_exit_2(self, argv, fragment):
        code, out, err = run_main(argv)
        self.assertEqual(code, 2, err)
        self.assertEqual(out, "")
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertTrue(err.startswith("plot_report: "), err)
        self.assertIn(fragment, err)

    def test_missing_file(self):
        self.assert_exit_2(["ladder", os.path.join(self.tmp, "nope.json")], "no such file")

    def test_not_a_report(self):
        path = self.write_json("other.json", {"hello": "world"})
        self.assert_exit_2(["sweep", path, "-o", os.path.join(self.tmp, "s.png")],
                           "not a gemmbench report")

    def test_bad_and_absent_shape(self):
        out = os.path.join(self.tmp, "l.png")
        self.assert_exit_2(["ladder", SAMPLE, "--shape", "4096x4096", "-o", out], "MxNxK")
        self.assert_exit_2(["ladder", SAMPLE, "--shape", "333", "-o", out], "no rows at that shape")
        self.assertFalse(os.path.exists(out))

    def test_no_ok_rows_at_the_chosen_shape(self):
        doc = sample()
        for row in doc["results"]:
            if row["m"] == 512 and row["status"] == "ok":
                row["status"] = "FAILED"
        path = self.write_json("failed.json", doc)
        out = os.path.join(self.tmp, "l.png")
        self.assert_exit_2(["ladder", path, "--shape", "512", "-o", out],
                           "no ok rows at shape 512x512x512")

    def test_unknown_run(self):
        self.assert_exit_2(["sweep", SAMPLE, "--run", "nightly"], "no rows match --run 'nightly'")

    def test_real_process_exit_code_and_help(self):
        absent = os.path.join(self.tmp, "x.json")
        missing = subprocess.run([sys.executable, SCRIPT, "ladder", absent],
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(missing.returncode, 2)
        self.assertEqual(len(missing.stderr.strip().splitlines()), 1, missing.stderr)
        helped = subprocess.run([sys.executable, SCRIPT, "--help"], capture_output=True, text=True,
                                timeout=60)
        self.assertEqual(helped.returncode, 0)
        for word in ("ladder", "sweep", "% of cuBLAS", "exit status"):
            self.assertIn(word, helped.stdout)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib not importable by " + sys.executable
                     + " (apt-get install python3-matplotlib, or pip install -r "
                       "scripts/requirements.txt): charts not rendered")
class Render(TempDirCase):
    def assert_png(self, path):
        self.assertTrue(os.path.isfile(path), path)
        self.assertGreater(os.path.getsize(path), 10000, path)  # a blank figure is ~5 kB
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), PNG_SIGNATURE)

    def test_both_charts_end_to_end(self):
        cases = [["ladder", SAMPLE],
                 ["ladder", SAMPLE, "--log", "--shape", "256"],
                 ["sweep", SAMPLE, "--run", "square_sweep"],
                 ["sweep", SAMPLE, "--metric", "ratio", "--log"]]
        for i, argv in enumerate(cases):
            with self.subTest(argv=argv):
                out = os.path.join(self.tmp, f"chart{i}.png")
                code, stdout, err = run_main(argv + ["-o", out])
                self.assertEqual(code, 0, err)
                self.assertEqual(stdout.strip(), out)
                self.assert_png(out)

    def test_roofline_end_to_end(self):
        path = self.write_json("sol.json", with_sol(sample()))
        out = os.path.join(self.tmp, "roofline.png")
        code, stdout, err = run_main(["roofline", path, "-o", out])
        self.assertEqual(code, 0, err)
        self.assertEqual(stdout.strip(), out)
        self.assert_png(out)

    def test_merged_reports_warn_and_render(self):
        other = sample()
        other["metadata"]["device"]["name"] = "OTHER GPU"
        path = self.write_json("other.json", other)
        out = os.path.join(self.tmp, "merged.png")
        code, _, err = run_main(["ladder", SAMPLE, path, "-o", out])
        self.assertEqual(code, 0, err)
        self.assertIn("warning: reports from different devices", err)
        self.assert_png(out)

    def test_compare_chart(self):
        path = self.write_json("compare.json", synthetic_comparison())
        out = os.path.join(self.tmp, "compare.png")
        code, stdout, err = run_main(["compare", path, "-o", out])
        self.assertEqual(code, 0, err)
        self.assertEqual(stdout.strip(), out)
        self.assert_png(out)


if __name__ == "__main__":
    unittest.main()


class Fp8Rows(unittest.TestCase):
    """FP8 rows of one shape that differ only in their scaling are different problems, each
    with its own cuBLAS(Lt) row: the scripts must not fold them together."""

    def fp8_row(self, scale, fast=False):
        return {"kernel": "cublas", "dtype": "e4m3", "accum": "f32", "layout": "tn",
                "out": "bf16", "scale": scale, "fast_accum": fast,
                "measure": {"cache": "cold", "data": "uniform"}}

    def test_type_text_names_the_format(self):
        from report_file import type_text
        self.assertEqual(type_text({"dtype": "f16", "accum": "f32"}), "f16/f32")
        self.assertEqual(type_text(self.fp8_row("row", True)), "e4m3/f32 row fast")
        row = self.fp8_row("block128")
        row["out"] = "f32"
        self.assertEqual(type_text(row), "e4m3/f32 block128 ->f32")

    def test_scalings_group_apart(self):
        keys = {plot_report.group_key(self.fp8_row(s)) for s in ("tensor", "row", "block128")}
        self.assertEqual(len(keys), 3)
        self.assertNotEqual(plot_report.group_key(self.fp8_row("row")),
                            plot_report.group_key(self.fp8_row("row", True)))
        self.assertIn("e4m3 row", plot_report.group_label(plot_report.group_key(self.fp8_row("row"))))

    def test_b_types_group_apart(self):
        from report_file import type_text
        row = self.fp8_row("tensor")
        row["dtype_b"] = "e4m3"
        self.assertEqual(type_text(row), "e4m3/f32 tensor", "e4m3 x e4m3 reads as before")
        self.assertEqual(plot_report.group_key(row), plot_report.group_key(self.fp8_row("tensor")))
        mixed = dict(row, dtype_b="e5m2")
        self.assertEqual(type_text(mixed), "e4m3xe5m2/f32 tensor")
        self.assertNotEqual(plot_report.group_key(mixed), plot_report.group_key(row))
        self.assertIn("e4m3xe5m2 tensor", plot_report.group_label(plot_report.group_key(mixed)))
