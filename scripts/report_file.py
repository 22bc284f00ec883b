"""Open a gemmbench report, plain or gzip-compressed (committed reports are `gzip -9 -n`'d, so
`X.json.gz`): the one reader the scripts share, as `gemmbench compare` and `merge` read both."""
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
