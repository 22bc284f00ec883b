"""tests/check_function_length.py: the gate that no function in src/ or core/ exceeds its limit."""
import importlib.util
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "check_function_length", os.path.join(ROOT, "tests", "check_function_length.py"))
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


def function_of(lines, name="f"):
    """A function `name` spanning `lines` lines, signature to closing brace."""
    body = ["  x += 1;"] * (lines - 2)
    return "\n".join([f"int {name}(int x) {{"] + body + ["}"]) + "\n"


class FunctionLength(unittest.TestCase):
    def test_lengths_run_from_signature_to_closing_brace(self):
        self.assertEqual(check.functions(function_of(7)), [("f", 1, 7)])

    def test_namespaces_structs_and_statements_are_not_functions(self):
        text = ("namespace a {\nstruct S {\n  int g() const {\n    if (x) {\n      return 1;\n"
                "    }\n    return 0;\n  }\n};\n}  // namespace a\n")
        self.assertEqual(check.functions(text), [("g", 3, 8)])

    def test_lambdas_and_braces_in_comments_and_strings_count_for_the_outer_function(self):
        text = ('void h() {\n  auto l = [&](int y) { return y; };  // { not a brace\n'
                '  const char* s = "}{";\n  /* } */\n  int n = 1\'000;\n}\nint k() { return 0; }\n')
        self.assertEqual(check.functions(text), [("h", 1, 6), ("k", 7, 7)])

    def test_the_gate_fails_one_line_over_the_limit_and_passes_at_it(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "src", "x"))
            path = os.path.join(root, "src", "x", "a.cpp")
            with open(path, "w") as f:
                f.write(function_of(150, "fits") + function_of(151, "too_long"))
            out = io.StringIO()
            with redirect_stdout(out):
                rc = check.main(["check", root])
            self.assertEqual(rc, 1)
            self.assertIn("src/x/a.cpp:151: too_long is 151 lines (limit 150)", out.getvalue())
            self.assertNotIn("fits", out.getvalue())
            with open(path, "w") as f:
                f.write(function_of(150, "fits"))
            with redirect_stdout(io.StringIO()):
                self.assertEqual(check.main(["check", root]), 0)


if __name__ == "__main__":
    unittest.main()
