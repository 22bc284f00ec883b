#!/usr/bin/env python3
"""Rewrite the references to reports under bench_results/ that were gzip-compressed.

Committed reports are gzipped (`gzip -9 -n X.json` leaves X.json.gz; every gemmbench reader and
the scripts read both). A document that still names X.json then points at nothing; this script
rewrites each such name to X.json.gz in README.md, docs/, kernels/, src/, scripts/, tests/ (not
tests/data/), configs/ and the README.md files under bench_results/:

  scripts/dev/rename_report_refs.py            # rewrite in place, print what changed
  scripts/dev/rename_report_refs.py --check    # change nothing; exit 1 if a rewrite is due
  scripts/dev/rename_report_refs.py --uncited  # the files under bench_results/ nothing cites

A name is rewritten when every report it can stand for exists only compressed. The forms the
documents use are understood: a file name or a path ending in one
(`bench_results/h100/2026-11-26_llm_decode_rule_r2.json`), an abbreviated second name after a full
one (`_rule_r2.json`), brace lists and globs (`run{1,2,3}.json`, `2026-11-24_movmatrix_ab_*.json`)
and ranges (`_r1..r6.json`), and `..._8192.json` after a full name. Names of other files
(`configs/llm_decode.json`, `--json out.json`) are left alone. Running it twice changes nothing:
a name already followed by `.gz` is skipped.

--uncited lists, for retiring, each file under bench_results/ that no file outside bench_results/
names (by file name, by stem, by an abbreviation or glob that matches it, or by its folder).
"""
import argparse
import fnmatch
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
RESULTS = 'bench_results'
EXTS = ('jsonl', 'json', 'txt', 'log')
TEXT_SUFFIXES = ('.md', '.cpp', '.hpp', '.cu', '.cuh', '.h', '.py', '.sh', '.txt', '.cmake',
                 '.json', '.in', '.sbatch')
SCAN = ('README.md', 'docs', 'core', 'kernels', 'src', 'scripts', 'tests', 'configs', 'CMakeLists.txt')
# Not rewritten: report fixtures, and this script and its test (their names are examples).
SKIP = ('tests/data', 'scripts/dev/rename_report_refs.py', 'tests/python/test_rename_report_refs.py')

# A name: a run of path characters ending in one of EXTS, not already followed by .gz.
NAME = re.compile(r'(?<![A-Za-z0-9_./{},*-])([A-Za-z0-9_./{},*-]*?)\.(' + '|'.join(EXTS) +
                  r')(?![A-Za-z0-9_]|\.gz)')
# A name as cited, compressed or not, of any kind of file kept under bench_results/ (--uncited).
CITED = re.compile(r'(?<![A-Za-z0-9_./{},*-])([A-Za-z0-9_./{},*-]*?)\.(' + '|'.join(EXTS + ('png', 'md')) +
                   r')(\.gz)?(?![A-Za-z0-9_])')
RANGE = re.compile(r'^(.*?)([A-Za-z_]*)(\d+)\.\.\2?(\d+)(.*)$')


def expand_braces(s):
    m = re.search(r'\{([^{}]*)\}', s)
    if not m:
        return [s]
    out = []
    for alt in m.group(1).split(','):
        out += expand_braces(s[:m.start()] + alt + s[m.end():])
    return out


def expand(s):
    """Every name a written pattern stands for: braces, then `r1..r6` ranges."""
    out = []
    for e in expand_braces(s):
        m = RANGE.match(e)
        if m and int(m.group(3)) <= int(m.group(4)) and int(m.group(4)) - int(m.group(3)) < 100:
            pre, word, lo, hi, post = m.groups()
            out += [f'{pre}{word}{i}{post}' for i in range(int(lo), int(hi) + 1)]
        else:
            out.append(e)
    return out


def result_files(root):
    """Paths under bench_results/, relative to it; not latest/, whose reports are named after the
    shipped configs (configs/NAME.json) and were never committed uncompressed."""
    out = []
    for d, subdirs, files in os.walk(os.path.join(root, RESULTS)):
        subdirs[:] = [x for x in subdirs if x != 'latest']
        for f in files:
            out.append(os.path.relpath(os.path.join(d, f), os.path.join(root, RESULTS)))
    return sorted(out)


def result_dirs(files):
    return {os.path.basename(os.path.dirname(f)) for f in files if os.path.dirname(f)}


# A glob that matches more files than this is a usage example (`bench_results/h100/*.json`), not a
# reference to particular reports.
MAX_GLOB = 25


def context_dates(before):
    """The dates of the full names written shortly before an abbreviation (`_rule_r2.json` after
    `2026-11-26_llm_decode_rule_p.json`): the abbreviation stands for a report of one of them."""
    return set(re.findall(r'(\d{4}-\d{2}-\d{2})_', before[-1500:]))


def previous_name(before):
    """The last full report name written before an abbreviation, whose tail it replaces."""
    names = re.findall(r'\d{4}-\d{2}-\d{2}_[A-Za-z0-9_.-]+', before[-1500:])
    return names[-1] if names else ''


def common_prefix(a, b):
    return len(os.path.commonprefix([a, b]))


def matches(token, files, dirs, before=''):
    """The files under bench_results/ (relative paths, as they are now) `token` can name;
    `before` is the text before it, for abbreviations."""
    found = []
    for t in expand_braces(token):  # `bench_results/{h100,h200}/X.json` is two paths
        d, _, base = t.rpartition('/')
        folder = d.rstrip('/').rpartition('/')[2] if d else ''
        if folder and folder not in dirs and folder not in (RESULTS, 'h100', 'h200'):
            continue  # a path into another folder (configs/, tests/data/, out/)
        if folder in (RESULTS, 'h100', 'h200'):
            folder = ''
        for e in expand(base):
            if e.startswith('..._'):
                e = e[3:]  # `..._8192.json` after a full name: an abbreviation too
            abbrev = e.startswith('_')
            hits = match_name(e, files, folder, context_dates(before) if abbrev else set(),
                              previous_name(before) if abbrev else '')
            if hits is not None:
                found += hits
    return sorted(set(found))


def match_name(e, files, folder, dates, previous=''):
    """The files whose name (less .gz) is `e`; for a glob, match it (None when it matches more than
    MAX_GLOB); for an abbreviation (`_rule_r2.json`), end with it, preferring reports of the dates
    written just before it, and of those the ones that share most of the previous full name
    (`_r2.json` after `2026-11-26_llm_decode_rule_p.json` is `..._rule_p_r2.json`)."""
    glob = any(c in e for c in '*?[')
    pattern = ('*' + e if e.startswith('_') else e) if glob else None
    hits = []
    for f in files:
        if folder and os.path.basename(os.path.dirname(f)) != folder:
            continue
        b = os.path.basename(f)
        name = b[:-3] if b.endswith('.gz') else b
        if glob:
            hit = fnmatch.fnmatchcase(name, pattern)
        elif e.startswith('_'):
            hit = name.endswith(e)
        else:
            hit = name == e
        if hit:
            hits.append(f)
    if e.startswith('_') and dates:
        near = [f for f in hits if os.path.basename(f)[:10] in dates]
        hits = near or hits
    if e.startswith('_') and not glob and previous and len(hits) > 1:
        best = max(common_prefix(os.path.basename(f), previous) for f in hits)
        if best > 11:  # more than the date in common
            hits = [f for f in hits if common_prefix(os.path.basename(f), previous) == best]
    if glob and len(hits) > MAX_GLOB:
        return None
    return hits


def rename_in_text(text, files, dirs):
    """text with every name of a compressed-only report followed by .gz; the names rewritten."""
    present = set(files)
    done = []

    def sub(m):
        token = m.group(0)
        if not re.search(r'[0-9_]', os.path.basename(token)):
            return token  # `report.json`, `base.json`: a placeholder, not a report
        hits = matches(token, files, dirs, m.string[:m.start()])
        if hits and all(h.endswith('.gz') and h[:-3] not in present for h in hits):
            done.append(token)
            return token + '.gz'
        return token

    return NAME.sub(sub, text), done


def scanned_files(root):
    for top in SCAN:
        p = os.path.join(root, top)
        if os.path.isfile(p):
            yield top
            continue
        for d, subdirs, fs in os.walk(p):
            subdirs[:] = [s for s in subdirs if os.path.relpath(os.path.join(d, s), root) not in SKIP]
            for f in fs:
                rel = os.path.relpath(os.path.join(d, f), root)
                if f.endswith(TEXT_SUFFIXES) and rel not in SKIP:
                    yield rel
    for d, _, fs in os.walk(os.path.join(root, RESULTS)):
        for f in fs:
            if f == 'README.md':
                yield os.path.relpath(os.path.join(d, f), root)


def uncited(root, files):
    """Files under bench_results/ that nothing outside bench_results/ names."""
    dirs = result_dirs(files)
    corpus = {}
    for rel in scanned_files(root):
        if rel.startswith(RESULTS + '/'):
            continue
        with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
            corpus[rel] = f.read()
    cited = set()
    for rel, text in corpus.items():
        for m in CITED.finditer(text):
            token = m.group(0)[:-3] if m.group(3) else m.group(0)
            cited.update(matches(token, files, dirs, text[:m.start()]))
        # Stems (`2026-11-22_sm90_defer_run1`), globs and braces without an extension, perhaps
        # after their folder (`ncu_decode_sm90/2026-11-25_*`).
        for m in re.finditer(r'(?:([A-Za-z0-9_]+)/)?(\d{4}-\d{2}-\d{2}_[A-Za-z0-9_{},*.-]*[A-Za-z0-9}*])',
                             text):
            folder = m.group(1) if m.group(1) in dirs else ''
            for e in expand(m.group(2)):
                hits = [f for f in files
                        if (not folder or os.path.basename(os.path.dirname(f)) == folder) and
                        (os.path.basename(f).split('.')[0] == e or
                         fnmatch.fnmatchcase(os.path.basename(f).split('.')[0], e) or
                         fnmatch.fnmatchcase(os.path.basename(f), e))]
                if len(hits) <= MAX_GLOB:
                    cited.update(hits)
        # A folder named as one (`bench_results/h100/ncu_decode_sm90/`, not followed by a file
        # name): every file in it.
        for f in files:
            d = os.path.dirname(f)
            if not d or d in ('h100', 'h200'):
                continue
            needle = d + '/' if '/' in d else RESULTS + '/' + d + '/'
            if re.search(r'(?<![A-Za-z0-9_])' + re.escape(needle) + r'(?![A-Za-z0-9_*{])', text):
                cited.add(f)
    return [f for f in files if f not in cited]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='change nothing; exit 1 if a rewrite is due')
    ap.add_argument('--uncited', action='store_true', help='list the files under bench_results/ nothing cites')
    ap.add_argument('--root', default=ROOT, help='repository root (default: this checkout)')
    args = ap.parse_args()
    files = result_files(args.root)
    if args.uncited:
        for f in uncited(args.root, files):
            print(f'{RESULTS}/{f}')
        return 0
    dirs = result_dirs(files)
    due = 0
    for rel in scanned_files(args.root):
        path = os.path.join(args.root, rel)
        with open(path, encoding='utf-8') as f:
            text = f.read()
        new, done = rename_in_text(text, files, dirs)
        if new != text:
            due += len(done)
            print(f'{rel}: {len(done)} name(s): {", ".join(sorted(set(done)))}')
            if not args.check:
                with open(path, 'w', encoding='utf-8') as f:
                    f.write(new)
    return 1 if args.check and due else 0


if __name__ == '__main__':
    sys.exit(main())
