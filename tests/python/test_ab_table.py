"""scripts/ab_table.py on a synthetic report: A's time over B's per group as a geometric mean
with its range, each kernel's speed over the case's baseline row where there is one, cases where
only one kernel ran ok left out and counted, --shapes keeping the named N x K only, and a
non-report refused with exit 2."""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "ab_table.py")

METADATA = {"tool": "gemmbench", "git_commit": "abc123def456", "date_utc": "2026-12-01T00:00:00Z",
            "device": {"name": "NVIDIA H200"}}


def row(kernel, m, n, k, ms, provider="gemmbench", status="ok", scale="tensor"):
    return {"kernel": kernel, "provider": provider, "m": m, "n": n, "k": k, "dtype": "e4m3",
            "accum": "f32", "layout": "tn", "scale": scale, "status": status,
            "time_ms": {"median": ms}}


def rows():
    out = []
    # 72 tokens: B faster by 1.10 and 1.05 (geomean sqrt(1.155)); baseline on both.
    out += [row("ka", 72, 4096, 4096, 0.011), row("kb", 72, 4096, 4096, 0.010),
            row("cublaslt", 72, 4096, 4096, 0.0105, provider="cublaslt")]
    out += [row("ka", 72, 8192, 8192, 0.021), row("kb", 72, 8192, 8192, 0.020),
            row("cublaslt", 72, 8192, 8192, 0.020, provider="cublaslt")]
    # 96 tokens: A faster (0.9); no baseline.
    out += [row("ka", 96, 4096, 4096, 0.009), row("kb", 96, 4096, 4096, 0.010)]
    # B failed here: left out and counted.
    out += [row("ka", 96, 8192, 8192, 0.02), row("kb", 96, 8192, 8192, 0.02, status="FAILED")]
    return out


class AbTable(unittest.TestCase):
    def run_script(self, *args, doc=None):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json.gz")
            with gzip.open(path, "wt") as f:
                json.dump(doc if doc is not None else {"metadata": METADATA, "results": rows()}, f)
            return subprocess.run([sys.executable, SCRIPT, path, *args], capture_output=True,
                                  text=True)

    def line(self, out, start):
        found = [ln for ln in out.splitlines() if ln.startswith(start)]
        self.assertEqual(len(found), 1, out)
        return found[0]

    def test_groups_by_scale_and_m(self):
        p = self.run_script("--a", "ka", "--b", "kb")
        self.assertEqual(p.returncode, 0, p.stderr)
        g72 = (1.1 * 1.05) ** 0.5
        l72 = self.line(p.stdout, "| tensor | 72 |")
        self.assertIn(f"| 2 | {g72:.3f} (1.050-1.100) | 2 |", l72)
        # base / A: 0.0105/0.011 and 0.020/0.021; base / B: 1.05 and 1.0.
        ba = ((0.0105 / 0.011) * (0.020 / 0.021)) ** 0.5
        self.assertIn(f"{ba:.3f} (0.952-0.955)", l72)
        self.assertIn(f"{(1.05 ** 0.5):.3f} (1.000-1.050)", l72)
        l96 = self.line(p.stdout, "| tensor | 96 |")
        self.assertIn("| 1 | 0.900 (0.900-0.900) | 0 | - | - |", l96)
        self.assertIn("1 case(s) left out", p.stdout)

    def test_shapes_and_rows(self):
        p = self.run_script("--a", "ka", "--b", "kb", "--shapes", "8192x8192", "--by", "", "--rows")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| all | 1 | 1.050 (1.050-1.050) | 1 |", p.stdout)
        self.assertIn("| e4m3/f32 tensor | 72x8192x8192 | 0.02100 | 0.02000 | 1.050 | 0.02000 |",
                      p.stdout)
        self.assertNotIn("72x4096x4096", p.stdout)

    def test_a_kernel_not_in_the_report(self):
        p = self.run_script("--a", "ka", "--b", "nope")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("no case where both ran ok", p.stdout)

    def test_not_a_report(self):
        p = self.run_script("--a", "ka", "--b", "kb", doc={"hello": 1})
        self.assertEqual(p.returncode, 2)
        self.assertIn("is not a gemmbench report", p.stderr)


if __name__ == "__main__":
    unittest.main()
