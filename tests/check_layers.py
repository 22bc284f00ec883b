#!/usr/bin/env python3
"""The layers point one way (docs/development.md, "Layout"). Every quoted #include is resolved the
way the build resolves it (the including file's folder, then core/include/, src/, kernels/) and
checked:

  core/        the ground layer: includes only core/ (and the generated version.hpp)
  kernels/     includes only kernels/ and core/ (the compiler enforces it too: the kernels'
               include path has no src/; the layer_probe_* tests prove it)
  src/*        the driver: never kernels/ (it reaches kernels through the registry), except
               src/inspect/, which draws the kernels' own index math and PTX wrappers and may
               include what INSPECT_MAY_INCLUDE names
  include/     the public plugin header: includes nothing of ours

Exit 0 and one summary line when every include points the right way; else one line per wrong
include and exit 1. Usage: check_layers.py [ROOT]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE_EXT = ('.hpp', '.cpp', '.cu', '.cuh', '.h')
INSPECT_MAY_INCLUDE = {
    'kernels/common/swizzle.hpp', 'kernels/common/raster.hpp', 'kernels/common/hd.hpp',
    'kernels/common/ptx.cuh', 'kernels/hgemm/fragments.cuh',
}


def resolve(root, including, name):
    for base in (os.path.dirname(including), 'core/include', 'src', 'kernels', 'include'):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None  # generated (version.hpp) or a system header written with quotes


def layer_of(path):
    if path.startswith('core/'):
        return 'core'
    if path.startswith('kernels/'):
        return 'kernels'
    if path.startswith('src/inspect/'):
        return 'inspect'
    if path.startswith('src/'):
        return 'driver'
    if path.startswith('include/'):
        return 'public'
    return None


def allowed(src_layer, target):
    tgt_layer = layer_of(target)
    if src_layer == 'core':
        return tgt_layer == 'core'
    if src_layer == 'kernels':
        return tgt_layer in ('core', 'kernels')
    if src_layer == 'driver':
        return tgt_layer in ('core', 'driver', 'inspect', 'public')
    if src_layer == 'inspect':
        return tgt_layer in ('core', 'driver', 'inspect') or target in INSPECT_MAY_INCLUDE
    if src_layer == 'public':
        return False
    return True


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..'))
    wrong, checked = [], 0
    for top in ('core', 'src', 'kernels', 'include'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXT):
                    continue
                path = os.path.relpath(os.path.join(dirpath, f), root)
                src_layer = layer_of(path)
                with open(os.path.join(root, path), errors='replace') as fh:
                    text = fh.read()
                for m in INCLUDE.finditer(text):
                    target = resolve(root, path, m.group(1))
                    checked += 1
                    if target and not allowed(src_layer, target):
                        line = text.count('\n', 0, m.start()) + 1
                        wrong.append(f'{path}:{line}: {src_layer} layer includes {target} '
                                     f'({layer_of(target)} layer)')
    for w in wrong:
        print(w)
    print(f'check_layers: {checked} includes, {len(wrong)} pointing the wrong way')
    return 1 if wrong else 0


if __name__ == '__main__':
    sys.exit(main())
