"""tests/check_doc_paths.py: the gate that every path README.md and docs/*.md name exists."""
import importlib.util
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("check_doc_paths",
                                               os.path.join(ROOT, "tests", "check_doc_paths.py"))
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


class DocPaths(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = self._tmp.name
        for path in ("src/report/report_file.cpp", "kernels/hgemm/sm90/kernels.cu",
                     "bench_results/h100/2026-01-01_fixture_f16.json.gz", "docs/other.md"):
            os.makedirs(os.path.join(self.root, os.path.dirname(path)), exist_ok=True)
            open(os.path.join(self.root, path), "w").close()

    def tearDown(self):
        self._tmp.cleanup()

    def missing(self, text, doc="docs/page.md"):
        with open(os.path.join(self.root, doc), "w", encoding="utf-8") as f:
            f.write(text)
        return [p for _, p in check.missing_paths(self.root, doc)]

    def test_existing_paths_pass(self):
        self.assertEqual(self.missing(
            "See `src/report/report_file.cpp:12`, `kernels/hgemm/sm90/`, [other](other.md#x),\n"
            "![chart](../bench_results/h100/2026-01-01_fixture_f16.json.gz) and "
            "`bench_results/h100/2026-01-01_fixture_*.json.gz`, `..._{f16,f16}.json.gz`.\n"), [])

    def test_a_moved_file_is_caught_in_backquotes_and_links(self):
        self.assertEqual(
            self.missing("The kernel: `kernels/hgemm/sm90.cu`; [tools](../scripts/reference/).\n"),
            ["../scripts/reference/", "kernels/hgemm/sm90.cu"])

    def test_a_glob_must_match(self):
        self.assertEqual(self.missing("`bench_results/h100/2026-01-01_fixture_*.json`\n"),
                         ["bench_results/h100/2026-01-01_fixture_*.json"])

    def test_placeholders_urls_fences_and_abbreviations_are_skipped(self):
        self.assertEqual(self.missing(
            "`bench_results/<gpu>/latest/`, `configs/NAME.json`, `_rule_r2.json.gz`,\n"
            "[site](https://example.com/src/x), [anchor](#top), `git show 1f8f1ea:bench_results/x`\n"
            "```\nscripts/none.sh\n```\n"), [])

    def test_readme_links_resolve_from_the_root(self):
        self.assertEqual(self.missing("[x](docs/other.md) [y](docs/absent.md)\n", "README.md"),
                         ["docs/absent.md"])


if __name__ == "__main__":
    unittest.main()
