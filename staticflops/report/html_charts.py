"""The pictures of the HTML report as inline SVG: an icicle of the layer tree (FLOPs or
params; a module's box spans its children) and bars by layer or op type (``by_type.py``).

No script, no external resource: boxes and bars are plain ``<rect>``s with a ``<title>``
tooltip.  Every name and type comes from the analysed source, so each one reaches the SVG
only through ``escape.html_text`` (a layer named ``</svg><script>`` stays text).

How a count is sized: an integer by its value; ``unknown`` as 0; a formula (a symbolic
input dimension) by its leading terms (``symbolic.leading``, the floor divisions' rounding
dropped) with every symbol = 1.  That is exact when every count is linear in the same
symbols (``B``), and otherwise the share each layer tends to as the symbolic sizes grow.
The chart's caption says so and the tooltip shows the formula."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from staticflops.report.by_type import by_type
from staticflops.report.escape import html_text
from staticflops.report.symbolic import leading
from staticflops.report.units import human

WIDTH = 960  # px of a chart; the page lets it shrink (viewBox)
ROW = 26  # px of one level of the icicle
SMALLEST = 0.5  # px: a box narrower than this (and its children) is not drawn
MAX_BOXES = 3_000  # a 1,000-layer model stays a page a browser opens at once
MAX_ROWS = 24  # levels of the icicle drawn (a hostile model may nest modules thousands deep)
MAX_BARS = 15
LABEL_WIDTH = 200  # px left of the bars for the type's name
CHAR = 6.8  # px of one character at the chart's font size, to cut labels to their box


def size(count) -> float:
    """How wide a count is drawn (see the module docstring)."""
    if isinstance(count, int):
        return float(max(count, 0))
    if not isinstance(count, str) or count == "unknown":
        return 0.0
    poly = leading(count)
    return float(max(sum(poly.values()), 0)) if poly else 0.0


def is_symbolic(count) -> bool:
    return isinstance(count, str) and count != "unknown"


@dataclass
class Node:
    name: str
    type: str
    count: object  # the report's value: int, formula or "unknown"
    children: list = field(default_factory=list)
    extent: float = 0.0  # at least the sum of its children's: a formula's leading terms may undercount them


def layer_tree(report, metric: str) -> Node:
    """The model as the root, each layer under the nearest row above it with a smaller
    depth (the rows are in pre-order, like the table)."""
    root = Node(report.model, "model", getattr(report.totals, metric))
    stack, order = [(0, root)], [root]
    for layer in report.layers:
        while stack[-1][0] >= layer.depth:
            stack.pop()
        node = Node(layer.name, layer.type, getattr(layer, metric))
        stack[-1][1].children.append(node)
        stack.append((layer.depth, node))
        order.append(node)
    for node in reversed(order):  # children before parents, without recursion
        node.extent = max(size(node.count), sum(child.extent for child in node.children))
    return root


def colour(type_name: str) -> str:
    """A stable colour per type (crc32: Python's own hash differs between runs)."""
    hue = zlib.crc32(type_name.encode("utf-8", "replace")) % 360
    return f"hsl({hue},55%,62%)"


def _label(text: str, width: float) -> str:
    fits = int((width - 6) / CHAR)
    if fits < 2:
        return ""
    return text if len(text) <= fits else text[:fits - 1] + "…"


def icicle(report, metric: str, element_id: str, unit: str = "") -> str:
    """The layer tree as nested rows, one row per depth, each box as wide as its share."""
    root = layer_tree(report, metric)
    total = root.extent
    boxes: list[str] = []
    depth_used = 0

    def place(node: Node, x: float, width: float, depth: int) -> None:
        nonlocal depth_used
        if width < SMALLEST or len(boxes) >= MAX_BOXES or depth >= MAX_ROWS:
            return
        depth_used = max(depth_used, depth)
        shown = node.count if is_symbolic(node.count) or node.count == "unknown" else human(node.count, unit)
        tooltip = html_text(f"{node.name} ({node.type}): {shown}", 1_000)
        fill = "#9aa5b1" if depth == 0 else colour(node.type)
        label = html_text(_label(node.name.rsplit(".", 1)[-1] if depth else node.name, width))
        boxes.append(f'<g><title>{tooltip}</title><rect x="{x:.2f}" y="{depth * ROW}" width="{width:.2f}" '
                     f'height="{ROW - 2}" fill="{fill}" stroke="#fff" stroke-width="0.5"/>'
                     + (f'<text x="{x + 3:.2f}" y="{depth * ROW + 16}">{label}</text>' if label else "") + "</g>")
        extent = node.extent
        offset = x
        for child in node.children:
            share = width * child.extent / extent if extent else 0.0
            place(child, offset, share, depth + 1)
            offset += share

    if total > 0:
        place(root, 0.0, float(WIDTH), 0)
    else:
        boxes.append(f'<text x="4" y="16">nothing to draw: every {html_text(metric)} count is 0 or unknown</text>')
    height = (depth_used + 1) * ROW
    return (f'<svg id="{element_id}" class="chart" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
            f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img">' + "".join(boxes) + "</svg>")


def type_bars(report, element_id: str) -> str:
    """Forward FLOPs summed per layer or op type (the leaves of the tree), the largest first."""
    rows = []
    for row in by_type(report.layers):
        value = row.flops + sum(size(formula) for formula in row.symbolic)
        if value > 0:
            shown = human(row.flops, "FLOPs") if not row.symbolic else " + ".join(
                ([human(row.flops, "FLOPs")] if row.flops else []) + row.symbolic)
            rows.append((value, row.type, shown))
    rows.sort(key=lambda item: -item[0])
    if len(rows) > MAX_BARS:
        rest = rows[MAX_BARS - 1:]
        rows = rows[:MAX_BARS - 1] + [(sum(r[0] for r in rest), f"{len(rest)} other types", "")]
    if not rows:
        return '<p class="note">No forward FLOPs to draw.</p>'
    largest = rows[0][0]
    span = WIDTH - LABEL_WIDTH - 120
    bars = []
    for index, (value, name, shown) in enumerate(rows):
        y, width = index * ROW, max(span * value / largest, 1.0)
        bars.append(f'<g><title>{html_text(f"{name}: {shown}", 1_000)}</title>'
                    f'<text x="{LABEL_WIDTH - 6}" y="{y + 16}" text-anchor="end">'
                    f'{html_text(_label(name, LABEL_WIDTH))}</text>'
                    f'<rect x="{LABEL_WIDTH}" y="{y}" width="{width:.2f}" height="{ROW - 4}" fill="{colour(name)}"/>'
                    f'<text x="{LABEL_WIDTH + width + 4:.2f}" y="{y + 16}">{html_text(_label(shown, 116))}</text></g>')
    height = len(rows) * ROW
    return (f'<svg id="{element_id}" class="chart" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
            f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img">' + "".join(bars) + "</svg>")
