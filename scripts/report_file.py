"""Open a gemmbench report, plain or gzip-compressed (committed reports are `gzip -9 -n`'d, so
`X.json.gz`): the one reader the scripts share, as `gemmbench compare` and `merge` read both.
Also the one text of a row's types (type_text), as the console and `compare` print them."""
import gzip
import json

GZIP_MAGIC = b"\x1f\x8b"


def open_text(path):
    """A text stream over `path`, gunzipped when the file starts with gzip's magic bytes."""
    with open(path, "rb") as f:
        gz = f.read(2) == GZIP_MAGIC
    return gzip.open(path, "rt", encoding="utf-8") if gz else open(path, encoding="utf-8")


def load_json(path):
    """The JSON document in `path`, plain or gzip-compressed."""
    with open_text(path) as f:
        return json.load(f)


def input_text(row):
    """A's type, or 'AxB' where an FP8 row's B differs ('e4m3xe5m2'), as GemmProblem::input_types.
    Reports from before e5m2 have no dtype_b: B had A's type."""
    b = row.get("dtype_b", row["dtype"])
    return row["dtype"] if b == row["dtype"] else f"{row['dtype']}x{b}"


def type_text(row):
    """'f16/f32'; an FP8 row adds B's type where it is not A's, its scaling, fast accumulation and
    a C other than bf16 ('e4m3/f32 row fast', 'e4m3xe5m2/f32 tensor'), as
    GemmProblem::type_string does: rows of one shape that differ only there are different
    problems."""
    text = f"{input_text(row)}/{row['accum']}"
    if "scale" in row:
        text += f" {row['scale']}" + (" fast" if row.get("fast_accum") else "")
        if row.get("out", "bf16") != "bf16":
            text += f" ->{row['out']}"
    return text
