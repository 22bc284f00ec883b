#!/usr/bin/env python3
"""Render `gemmbench inspect ... --json` output as PNG heat maps.

    gemmbench inspect swizzle --bits 3,3,3 --tile 64x64 --dtype f16 --json > swz.json
    python3 scripts/plot_inspect.py swz.json -o swz.png      # '-' reads standard input

swizzle:  the bank of every element before and after the swizzle, with the rows of the first
          request's first phase outlined (one ldmatrix 8x8 matrix, or 8 cp.async threads).
raster:   the linear id of the block computing each output tile (the visiting order), and the
          launched grid with its no-op CTAs.
ldmatrix: which thread holds each shared-memory element after the instruction.

The data shaping functions (*_grids) need only the standard library, so the module imports and
can be tested without matplotlib or a GPU; matplotlib is imported when a figure is drawn.
"""

import argparse
import json
import sys

from report_file import load_json

ANNOTATE_MAX_CELLS = 1024  # write the number into each cell up to this many cells
ANNOTATE_MAX_COLS = 32     # and this many columns (wider grids leave no room for the text)


def load(path):
    """The JSON document `gemmbench inspect ... --json` printed ('-' = standard input)."""
    if path == "-":
        return json.load(sys.stdin)
    return load_json(path)  # plain or gzip-compressed


def swizzle_grids(doc):
    """(bank_before, bank_after, outline): two (rows, cols) grids of bank numbers and the
    (row, col, elements) runs of request 0's first phase."""
    outline = []
    if doc["requests"]:
        for t in doc["requests"][0]["phases"][0]["threads"]:
            outline.append((t["row"], t["col"], t["elements"]))
    return doc["bank_before"], doc["bank_after"], outline


def raster_grids(doc):
    """(visit, blocks): visit[m][n] is the id of the block computing tile (m, n);
    blocks[y][x] is the tile (m, n) of block (x, y), or None for a no-op CTA."""
    grid_x, grid_y = doc["grid"]
    blocks = [[None] * grid_x for _ in range(grid_y)]
    for cta in doc["ctas"]:
        x, y = cta["block"]
        blocks[y][x] = tuple(cta["tile"]) if cta["valid"] else None
    return doc["visit_id"], blocks


def ldmatrix_grids(doc):
    """(holder, register): for the smem rows the instruction reads (8*num rows of 8 b16),
    the thread holding each element and the register it is in; -1 where nobody holds it."""
    rows = 8 * doc["num"]
    row_index = {r: i for i, r in enumerate(doc["row_of_thread"])}
    holder = [[-1] * 8 for _ in range(rows)]
    register = [[-1] * 8 for _ in range(rows)]
    for entry in doc["threads"]:
        for reg, halves in enumerate(entry["regs"]):
            for value in halves:
                smem_row, col = divmod(value, 8)
                if smem_row in row_index:
                    holder[row_index[smem_row]][col] = entry["thread"]
                    register[row_index[smem_row]][col] = reg
    return holder, register


def _heat(ax, grid, title, cmap, vmin=None, vmax=None, labels=None):
    from matplotlib.ticker import MaxNLocator

    image = ax.imshow(grid, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest", aspect="auto")
    ax.set_title(title, fontsize=9)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    rows, cols = len(grid), len(grid[0]) if grid else 0
    if rows * cols <= ANNOTATE_MAX_CELLS and cols <= ANNOTATE_MAX_COLS:
        for r in range(rows):
            for c in range(cols):
                text = labels[r][c] if labels else grid[r][c]
                if text is not None and text != "":
                    ax.text(c, r, str(text), ha="center", va="center", fontsize=6)
    return image


def _outline(ax, runs, color="black"):
    from matplotlib.patches import Rectangle

    for row, col, elements in runs:
        ax.add_patch(Rectangle((col - 0.5, row - 0.5), elements, 1, fill=False, edgecolor=color,
                               linewidth=1.2))


def figure_swizzle(doc):
    import matplotlib.pyplot as plt

    before, after, outline = swizzle_grids(doc)
    s = doc["summary"]
    b, m, sh = doc["bits"]
    rows, cols = doc["tile"]
    fig, axes = plt.subplots(1, 2, figsize=(min(4 + cols * 0.2, 24), min(2 + rows * 0.18, 20)),
                             layout="constrained")
    _heat(axes[0], before, f"bank before: worst phase {s['max_phase_wavefronts_before']} "
          f"wavefront(s), {s['wavefronts_before']} in all", "twilight", 0, 31)
    image = _heat(axes[1], after, f"bank after Swizzle<{b},{m},{sh}>: worst phase "
                  f"{s['max_phase_wavefronts_after']}, {s['wavefronts_after']} in all "
                  f"(ideal {s['ideal_wavefronts']})", "twilight", 0, 31)
    # The outline marks logical elements: the same ones in both panels.
    for ax in axes:
        _outline(ax, outline)
        ax.set_xlabel("column (element)")
        ax.set_ylabel("row")
    fig.colorbar(image, ax=list(axes), label="bank")
    fig.suptitle(f"{rows}x{cols} {doc['dtype']} tile, access {doc['access']} "
                 "(outlined: request 0, phase 0)", fontsize=10)
    return fig


def figure_raster(doc):
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    visit, blocks = raster_grids(doc)
    tiles_m, tiles_n = doc["tiles"]
    grid_x, grid_y = doc["grid"]
    fig, axes = plt.subplots(1, 2, figsize=(min(4 + (tiles_n + grid_x) * 0.35, 30),
                                            min(2 + max(tiles_m, grid_y) * 0.35, 20)),
                             layout="constrained")
    image = _heat(axes[0], visit, f"visit order (block id) of the {tiles_m}x{tiles_n} tiles, "
                  f"L = {doc['log_tile']}", "viridis")
    axes[0].set_xlabel("tile n")
    axes[0].set_ylabel("tile m")
    fig.colorbar(image, ax=axes[0], label="linear block id")
    valid = [[0 if t is None else 1 for t in row] for row in blocks]
    labels = [["--" if t is None else f"{t[0]},{t[1]}" for t in row] for row in blocks]
    no_op_or_tile = ListedColormap(["#f4a6a6", "#dddddd"])
    _heat(axes[1], valid, f"grid {grid_x}x{grid_y}: tile (m,n) of each block, "
          f"{len(doc['noop_ctas'])} no-op (--)", no_op_or_tile, 0, 1, labels)
    axes[1].set_xlabel("blockIdx.x")
    axes[1].set_ylabel("blockIdx.y")
    return fig


def figure_ldmatrix(doc):
    import matplotlib.pyplot as plt

    holder, register = ldmatrix_grids(doc)
    labels = [[f"t{t}.r{r}" if t >= 0 else "" for t, r in zip(hr, rr)]
              for hr, rr in zip(holder, register)]
    fig, ax = plt.subplots(figsize=(7, 1.5 + 0.3 * len(holder)), layout="constrained")
    image = _heat(ax, holder, f"{doc['instruction']} ({doc['source']}): thread holding each "
                  "element", "turbo", 0, 31, labels)
    ax.set_xlabel("column")
    ax.set_ylabel("matrix row (8 per matrix)")
    fig.colorbar(image, ax=ax, label="thread")
    return fig


FIGURES = {"swizzle": figure_swizzle, "raster": figure_raster, "ldmatrix": figure_ldmatrix}


def render(doc, out_path):
    """Draw the figure for `doc` into the PNG file `out_path`."""
    import matplotlib

    matplotlib.use("Agg")
    kind = doc.get("inspect")
    if kind not in FIGURES:
        raise ValueError(f"not gemmbench inspect JSON (inspect = {kind!r}); "
                         f"expected one of {sorted(FIGURES)}")
    fig = FIGURES[kind](doc)
    fig.savefig(out_path, dpi=150, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="JSON from gemmbench inspect ... --json ('-' = stdin)")
    parser.add_argument("-o", "--output", help="PNG to write (default: inspect_<kind>.png)")
    args = parser.parse_args(argv)
    try:
        doc = load(args.input)
        out = args.output or f"inspect_{doc.get('inspect', 'unknown')}.png"
        render(doc, out)
    except (OSError, ValueError, KeyError) as e:  # json.JSONDecodeError is a ValueError
        print(f"plot_inspect: {e}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
