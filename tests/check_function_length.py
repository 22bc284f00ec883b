#!/usr/bin/env python3
"""No function in the driver (src/) or the ground layer (core/) runs over LIMIT lines (150 by
default; docs/contributing.md): a long function is a room that should be several. Kernels are not
checked (a kernel body is one unit of scheduling, split for reading by its own headers).

A function is a '{' not inside another function whose head (the text since the last ';', '{' or
'}') holds a ')' and does not open a namespace, class, struct, enum or union, nor a statement
(if, for, while, switch, catch, do); its length runs from the line the head starts on to its
closing brace. Comments, string and character literals are blanked first. Lambdas count as part
of the function that holds them.

Exit 0 and one summary line when every function fits; else one line per long function and exit 1.
Usage: check_function_length.py [ROOT] [--limit N]
"""
import os
import re
import sys

SOURCE_EXT = ('.hpp', '.cpp', '.cu', '.cuh', '.h')
TOPS = ('src', 'core')
NOT_A_FUNCTION = re.compile(r'\b(namespace|class|struct|enum|union)\b[^()]*$')
STATEMENT = re.compile(r'\s*(if|for|while|switch|catch|do)\b')
NAME = re.compile(r'([~\w:]+)\s*\(')


def blank(text):
    """Comments and literals replaced by spaces, newlines kept (line numbers stay right)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('R"', i) and (m := re.match(r'R"([^(]*)\(', text[i:])):
            j = text.find(')' + m.group(1) + '"', i)
            j = n if j < 0 else j + len(m.group(1)) + 2
        elif text[i] in '"\'' and not (text[i] == "'" and i > 0 and text[i - 1].isalnum()):
            j = i + 1  # a quote after a digit is a digit separator (1'000), not a literal
            while j < n and text[j] != text[i] and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r'[^\n]', ' ', text[i:j]))
        i = j
    return ''.join(out)


def functions(text):
    """(name, first line, last line) of every outermost function in `text`."""
    text = blank(text)
    found, stack, head_start, depth_fn = [], [], 0, 0
    for i, c in enumerate(text):
        if c == '{':
            head = text[head_start:i]
            is_fn = (not depth_fn and ')' in head and not NOT_A_FUNCTION.search(head)
                     and not STATEMENT.match(head))
            if is_fn:
                start = i - len(head.lstrip())
                names = NAME.findall(head)
                found.append([names[0] if names else '?', text.count('\n', 0, start) + 1, None])
                depth_fn += 1
            stack.append(is_fn)
            head_start = i + 1
        elif c == '}':
            if stack and stack.pop():
                depth_fn -= 1
                found[-1][2] = text.count('\n', 0, i) + 1
            head_start = i + 1
        elif c == ';':
            head_start = i + 1
    return [tuple(f) for f in found if f[2] is not None]


def main(argv):
    limit = 150
    if '--limit' in argv:
        k = argv.index('--limit')
        limit = int(argv[k + 1])
        del argv[k:k + 2]
    root = os.path.abspath(argv[1] if len(argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..'))
    long_ones, count = [], 0
    for top in TOPS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, errors='replace') as fh:
                    for name, first, last in functions(fh.read()):
                        count += 1
                        if last - first + 1 > limit:
                            long_ones.append((last - first + 1, os.path.relpath(path, root),
                                              first, name))
    for n, path, line, name in sorted(long_ones, reverse=True):
        print(f'{path}:{line}: {name} is {n} lines (limit {limit})')
    if long_ones:
        return 1
    print(f'check_function_length: {count} functions in {", ".join(TOPS)}, none over {limit} lines')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
