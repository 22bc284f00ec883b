#!/usr/bin/env python3
"""Every repository path that README.md and docs/*.md name must exist.

Checked: markdown link targets that are not URLs or anchors (relative to the document), and, inside
`backquotes`, paths that start with one of the top-level folders (src/, kernels/, configs/,
scripts/, bench_results/, docs/, tests/, examples/, include/; relative to the repository root). A
glob or brace list (`bench_results/h100/2026-11-22_mma_peak_*.json.gz`,
`sm90_defer_run{1,2,3}`) must match at least one file. Placeholders are skipped: a part in angle
brackets (`bench_results/<gpu>/`), or in capitals (`configs/NAME.json`), or `...`. Abbreviated
names (`_rule_r2.json.gz`) are not paths and are not checked. Fenced code blocks are skipped.

    python3 tests/check_doc_paths.py [ROOT]

Prints one line per missing path (file:line: path) and exits 1 if there is any.
"""
import glob
import os
import re
import sys

# One brace expander for the repository's tools: the report-reference rewriter's.
sys.dont_write_bytecode = True  # no __pycache__ left in scripts/dev
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'scripts', 'dev'))
from rename_report_refs import expand_braces  # noqa: E402

TOP = ('core', 'src', 'kernels', 'configs', 'scripts', 'bench_results', 'docs', 'tests', 'examples',
       'include')
PATH_IN_CODE = re.compile(r'(?<![A-Za-z0-9_./:~$-])((?:' + '|'.join(TOP) +
                          r')/[A-Za-z0-9_./{},*?<>-]*)')
LINK = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
CODE_SPAN = re.compile(r'`([^`\n]+)`')


def documents(root):
    yield 'README.md'
    for f in sorted(os.listdir(os.path.join(root, 'docs'))):
        if f.endswith('.md'):
            yield os.path.join('docs', f)


def placeholder(path):
    if '<' in path or '>' in path or '...' in path:
        return True
    return any(re.fullmatch(r'[A-Z][A-Z0-9_]*(\.[a-z.]+)?', part) for part in path.split('/') if part)


def exists(root, path):
    """True when `path` (relative to root; a glob or brace list allowed) names something."""
    for p in expand_braces(path):
        full = os.path.join(root, p)
        if any(c in p for c in '*?['):
            if not glob.glob(full):
                return False
        elif not os.path.exists(full):
            return False
    return True


def strip_fences(text):
    """The text with fenced code blocks blanked, line numbers kept."""
    out, fenced = [], False
    for line in text.split('\n'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            out.append('')
            continue
        out.append('' if fenced else line)
    return out


def missing_paths(root, doc):
    with open(os.path.join(root, doc), encoding='utf-8') as f:
        lines = strip_fences(f.read())
    here = os.path.dirname(doc)
    out = []
    for n, line in enumerate(lines, 1):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r'[a-z][a-z0-9+.-]*:', target) or target.startswith('#'):
                continue  # a URL, mailto:, an anchor in the same page
            path = os.path.normpath(os.path.join(here, target.split('#')[0]))
            if not placeholder(path) and not exists(root, path):
                out.append((n, target))
        for span in CODE_SPAN.finditer(LINK.sub('', line)):
            for m in PATH_IN_CODE.finditer(span.group(1)):
                path = re.sub(r':\d+$', '', m.group(1).rstrip('.,:;'))
                if not placeholder(path) and not exists(root, path):
                    out.append((n, m.group(1)))
    return out


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..'))
    bad = 0
    for doc in documents(root):
        for n, path in missing_paths(root, doc):
            print(f'{doc}:{n}: {path} does not exist')
            bad += 1
    if bad:
        print(f'{bad} path(s) named in README.md and docs/ do not exist')
        return 1
    print('every path named in README.md and docs/*.md exists')
    return 0


if __name__ == '__main__':
    sys.exit(main())
