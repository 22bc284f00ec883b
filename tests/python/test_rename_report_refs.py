"""scripts/dev/rename_report_refs.py: names of gzip-compressed reports rewritten to .gz, in the
forms the documents use, and nothing else; a second run changes nothing."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "dev", "rename_report_refs.py")

REPORTS = ("h100/2026-11-26_llm_decode_rule_p.json.gz", "h100/2026-11-26_llm_decode_rule_p_r2.json.gz",
           "h100/2026-11-26_llm_decode_rule_r2.json.gz", "h100/2026-11-22_defer_run1.json.gz",
           "h100/2026-11-22_defer_run2.json.gz", "h100/2026-11-22_sizes_4096.json.gz",
           "h100/2026-11-22_sizes_8192.json.gz", "h100/reference/2026-11-26_read_roof.jsonl.gz",
           "h100/2026-11-22_notes.txt", "h100/2026-11-22_plain.json", "h100/2026-11-22_old.json.gz")

BEFORE = """See `bench_results/h100/2026-11-26_llm_decode_rule_p.json`, `_r2.json` and `_rule_r2.json`;
`2026-11-22_defer_run{1,2}.json`, `2026-11-22_defer_run*.json`, `2026-11-22_sizes_4096.json`,
`..._8192.json`; `reference/2026-11-26_read_roof.jsonl`; `2026-11-22_notes.txt`;
`2026-11-22_plain.json` stays plain; `configs/llm_decode.json`, `--json out.json`, `x_1.json` too.
"""
AFTER = """See `bench_results/h100/2026-11-26_llm_decode_rule_p.json.gz`, `_r2.json.gz` and `_rule_r2.json.gz`;
`2026-11-22_defer_run{1,2}.json.gz`, `2026-11-22_defer_run*.json.gz`, `2026-11-22_sizes_4096.json.gz`,
`..._8192.json.gz`; `reference/2026-11-26_read_roof.jsonl.gz`; `2026-11-22_notes.txt`;
`2026-11-22_plain.json` stays plain; `configs/llm_decode.json`, `--json out.json`, `x_1.json` too.
"""


class RenameReportRefs(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = self._tmp.name
        for r in REPORTS:
            path = os.path.join(self.root, "bench_results", r)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").close()
        os.makedirs(os.path.join(self.root, "docs"))
        self.doc = os.path.join(self.root, "docs", "page.md")
        with open(self.doc, "w", encoding="utf-8") as f:
            f.write(BEFORE)

    def tearDown(self):
        self._tmp.cleanup()

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, "--root", self.root, *args],
                              capture_output=True, text=True)

    def test_rewrites_once_and_then_changes_nothing(self):
        self.assertEqual(self.run_script("--check").returncode, 1, "a rewrite is due")
        self.assertEqual(self.run_script().returncode, 0)
        with open(self.doc, encoding="utf-8") as f:
            self.assertEqual(f.read(), AFTER)
        self.assertEqual(self.run_script("--check").returncode, 0)
        self.run_script()
        with open(self.doc, encoding="utf-8") as f:
            self.assertEqual(f.read(), AFTER, "idempotent")

    def test_uncited_lists_what_no_document_names(self):
        self.run_script()
        out = self.run_script("--uncited").stdout.split()
        self.assertEqual(out, ["bench_results/h100/2026-11-22_old.json.gz"])


if __name__ == "__main__":
    unittest.main()
