"""scripts/results_tables.py on a synthetic bench_results/h100/latest/: docs/results.md and the
README's headline block carry the reports' ratios (one row, a geometric mean over preset layers
with the lowest, rows not ok counted), the README outside its markers is untouched, and --check
fails on a stale file and passes once it is rewritten."""
import copy
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "results_tables.py")
BEGIN = "<!-- results_tables.py: headline, begin (generated: edit the script, not this) -->"
END = "<!-- results_tables.py: headline, end -->"

METADATA = {"tool": "gemmbench", "git_commit": "abc123def456", "date_utc": "2026-11-28T00:00:00Z",
            "regime": "sustained",
            "device": {"name": "NVIDIA H100 80GB HBM3", "driver_version": "580.159.04",
                       "cuda_runtime": "13.0", "cublas_version": "13.1.0"}}


def row(run, kernel, m, n, k, ratio=None, dtype="f16", accum="f32", layout="tn", status="ok",
        preset=None, **extra):
    r = {"run": run, "kernel": kernel, "m": m, "n": n, "k": k, "dtype": dtype, "accum": accum,
         "layout": layout, "status": status, "ratio_to_cublas": ratio,
         "measure": {"baseline": "cublas"}}
    if preset:
        r["preset"] = {"model": preset[0], "layer": preset[1]}
    r.update(extra)
    return r


def report(rows):
    return {"metadata": copy.deepcopy(METADATA), "results": rows,
            "summary": {"rows_written": len(rows), "rows_planned": len(rows)}}


DEFAULT = report([
    row("ladder", "cublas", 5120, 4096, 4096, dtype="f32", accum="f32", layout="nn"),
    row("ladder", "sgemm_naive", 5120, 4096, 4096, 0.0123, dtype="f32", accum="f32", layout="nn"),
    row("ladder", "sgemm_pipelined", 5120, 4096, 4096, 0.9876, dtype="f32", accum="f32",
        layout="nn"),
])
HGEMM_LADDER = report([
    row("hgemm_5120", "hgemm_tn_sm90", 5120, 4096, 4096, 1.2345, accum="f16"),
    row("hgemm_5120", "hgemm_tn_sm90", 5120, 4096, 4096, 1.0500),
    row("hgemm_5120", "hgemm_decode", 5120, 4096, 4096, status="skipped"),
])
# Two layers at 4096 tokens: ratios 1.1 and 0.9 (geometric mean sqrt(0.99) = 0.99499, lowest 0.9);
# the bf16 run has one layer FAILED beside one at 1.02.
LLM_PREFILL = report([
    row("prefill_f16", "hgemm", 4096, 6144, 4096, 1.1, preset=("llama3-8b", "qkv_proj")),
    row("prefill_f16", "hgemm", 4096, 4096, 4096, 0.9, preset=("llama3-8b", "o_proj")),
    row("prefill_bf16", "hgemm", 4096, 6144, 4096, 1.02, dtype="bf16",
        preset=("llama3-8b", "qkv_proj")),
    row("prefill_bf16", "hgemm", 4096, 4096, 4096, 0.5, dtype="bf16", status="FAILED",
        preset=("llama3-8b", "o_proj")),
])

# A grouped run, planned model by model as configs/llm_moe.json is: two models at 512 and 16
# tokens (M the routed rows, tokens x top-k), so the plan's token counts come back round. Columns
# are the routing's tokens, in order: 16 tokens (0.9 and 1.0: 0.949x, lowest 0.900x) before 512
# (1.2 and 1.1: 1.149x, lowest 1.100x), never "128 tokens" (a model's 16 x 8 routed rows).


def moe(kernel, model, tokens, topk, r):
    return row("moe_bf16", kernel, tokens * topk, 4096, 7168, r, dtype="bf16",
               preset=(model, "moe_down_proj"),
               grouped={"layout": "contiguous",
                        "routing": {"mode": "balanced", "tokens": tokens, "topk": topk}})


LLM_MOE = report([
    moe("hgemm", "deepseek-v3", 512, 8, 1.2), moe("hgemm", "deepseek-v3", 16, 8, 0.9),
    moe("hgemm", "mixtral-8x7b", 512, 2, 1.1), moe("hgemm", "mixtral-8x7b", 16, 2, 1.0),
])

README = f"""# gemmbench

Text before.

{BEGIN}
| stale | 9.999x | old |
{END}

Text after.
"""


class ResultsTables(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = self._tmp.name
        latest = os.path.join(self.root, "bench_results", "h100", "latest")
        os.makedirs(latest)
        os.makedirs(os.path.join(self.root, "docs"))
        for name, doc in (("default", DEFAULT), ("hgemm_ladder", HGEMM_LADDER),
                          ("llm_prefill", LLM_PREFILL), ("llm_moe", LLM_MOE)):
            with gzip.open(os.path.join(latest, name + ".json.gz"), "wt") as f:
                json.dump(doc, f)
        with open(os.path.join(self.root, "README.md"), "w") as f:
            f.write(README)

    def tearDown(self):
        self._tmp.cleanup()

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, "--root", self.root, *args],
                              capture_output=True, text=True,
                              env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))

    def read(self, rel):
        with open(os.path.join(self.root, rel)) as f:
            return f.read()

    def test_tables_carry_the_reports_ratios(self):
        self.assertEqual(self.run_script("--check").returncode, 1)  # nothing written yet
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stderr)
        results = self.read("docs/results.md")
        # The ladder: one row per rung, the figure from its report at 5120x4096x4096.
        self.assertIn("| S1 | `sgemm_naive` |", results)
        self.assertIn("| 0.012x (default) |", results)
        self.assertIn("| 0.988x (default) |", results)
        self.assertIn("| 1.234x / 1.050x (hgemm_ladder) |", results)
        # A rung without a report in latest/ has no figure, only its story.
        self.assertRegex(results, r"\| S2 \| `sgemm_coalesced` \|[^\n]*\| - \| \[sgemm.md\]")
        # Per run: a skipped row counted, a geometric mean over layers with the lowest, a FAILED
        # row counted beside the ok one.
        self.assertIn("| `hgemm_decode` tn f16/f32 | 1 skipped |", results)
        self.assertIn("| `hgemm` tn f16/f32 | 0.995x (0.900x) |", results)
        self.assertIn("| `hgemm` tn bf16/f32 | 1.020x (1.020x); 1 FAILED |", results)
        # A grouped run: by the routing's tokens, in order, with what its ratios divide.
        moe = results[results.index("### llm_moe"):]
        self.assertIn("the faster of cuBLAS's two ways", moe)
        self.assertIn("| 16 tokens | 0.949x (0.900x) |\n| 512 tokens | 1.149x (1.100x) |", moe)
        self.assertNotIn("128 tokens", moe)
        self.assertIn("git abc123def456", results)
        self.assertIn("Driver 580.159.04, CUDA 13.0, cuBLAS 13.1.0.", results)

        readme = self.read("README.md")
        self.assertTrue(readme.startswith("# gemmbench\n\nText before.\n\n" + BEGIN + "\n"))
        self.assertTrue(readme.endswith(END + "\n\nText after.\n"))
        self.assertNotIn("9.999x", readme)
        self.assertIn("| HGEMM top rung `hgemm_tn_sm90`, 5120x4096x4096, f16 / f32 accumulate | "
                      "1.234x / 1.050x | `latest/hgemm_ladder.json.gz` |", readme)
        self.assertIn("| `hgemm` over 16 LLM layers at 4096 tokens, f16 / bf16 | 0.995x / 1.020x |",
                      readme)
        # No report in latest/, no line.
        self.assertNotIn("llm_fp8", readme)

        # Written once, the check passes and a second run changes nothing; a report that moves
        # makes the check fail.
        self.assertEqual(self.run_script("--check").returncode, 0)
        self.assertNotIn("wrote", self.run_script().stdout)
        with open(os.path.join(self.root, "docs", "results.md"), "a") as f:
            f.write("a hand edit\n")
        r = self.run_script("--check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("docs/results.md", r.stderr)

    def test_a_readme_without_the_markers_is_an_error(self):
        with open(os.path.join(self.root, "README.md"), "w") as f:
            f.write("# gemmbench\n")
        r = self.run_script()
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("results_tables.py: headline", r.stderr)


if __name__ == "__main__":
    unittest.main()
