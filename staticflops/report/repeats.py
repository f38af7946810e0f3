"""Repeated blocks folded into one table row: ``h.0`` ... ``h.11`` of a GPT become ``0-11``
of type ``Block ×12`` under ``h``, so a 96-layer model's table is one screen, not 1,000 rows.

A run is folded when it is two or more consecutive siblings numbered one after the other
(``h.0``, ``h.1``, ...: a ``ModuleList`` or ``Sequential``), of the same type, and whose
subtrees are identical row for row: names below the block, types, output shapes, calls and
every count.  A block that differs (another width, another input shape) ends the run, so
what is folded is exactly what a reader would otherwise check by eye.

The folded row's figures are the sum over the run (so the column still adds up with its
siblings and its %FLOPs is the run's share); the rows under it are one block's, folded the
same way in turn.  The JSON report keeps one row per module: this is only how the table shows
them."""

from __future__ import annotations

import re
from dataclasses import dataclass

# The counts a folded row sums (inclusive of children, like every row).
SUMMED = ("forward_flops", "macs", "params", "backward_flops")


@dataclass
class Shown:
    row: object  # a report Layer (summed over the run when ``repeats`` > 1)
    repeats: int = 1
    label: str | None = None  # ``0-11`` for a folded run, else None (the row's own name)


def collapsed(layers: list) -> list[Shown]:
    """The table's rows with every run of identical numbered siblings folded into one."""
    ends = _subtree_ends(layers)
    shown: list[Shown] = []
    _walk(layers, ends, 0, len(layers), shown)
    return shown


def _walk(layers: list, ends: list, start: int, stop: int, shown: list) -> None:
    index = start
    while index < stop:
        row = layers[index]
        count, after, last = _run(layers, ends, index, stop)
        if count == 1:
            shown.append(Shown(row))
            index += 1
            continue
        first = row.name.rsplit(".", 1)[-1]
        shown.append(Shown(row.model_copy(update={name: _times(getattr(row, name), count) for name in SUMMED}),
                           count, f"{first}-{last}"))
        _walk(layers, ends, index + 1, ends[index], shown)  # one block's rows
        index = after


def _run(layers: list, ends: list, index: int, stop: int) -> tuple[int, int, int]:
    """(blocks in the run starting at ``index``, the index after it, the last block's number)."""
    row = layers[index]
    prefix, _, number = row.name.rpartition(".")
    if row.kind != "module" or not (number.isascii() and number.isdigit()):
        return 1, index + 1, 0
    signature = _signature(layers, index, ends[index])
    count, after = 1, ends[index]
    while after < stop:
        following = layers[after]
        if (following.depth != row.depth or following.kind != "module" or following.type != row.type
                or following.name != (f"{prefix}.{int(number) + count}" if prefix else str(int(number) + count))
                or _signature(layers, after, ends[after]) != signature):
            break
        count, after = count + 1, ends[after]
    return count, after, int(number) + count - 1


def _signature(layers: list, start: int, end: int) -> tuple:
    """A block's subtree as compared: every row relative to the block (not its location:
    blocks built by the same loop line share it, blocks written out one by one do not)."""
    base = layers[start]
    return tuple((row.depth - base.depth, row.kind, row.type, row.name[len(base.name):], repr(row.output_shape),
                  row.calls, *(repr(getattr(row, name)) for name in SUMMED)) for row in layers[start:end])


def _subtree_ends(layers: list) -> list[int]:
    """For each row, the index after its last descendant (rows are in pre-order with depths)."""
    ends = [len(layers)] * len(layers)
    open_rows: list[int] = []
    for index, row in enumerate(layers):
        while open_rows and layers[open_rows[-1]].depth >= row.depth:
            ends[open_rows.pop()] = index
        open_rows.append(index)
    return ends


def _times(value, count: int):
    """``count`` identical blocks' count: an integer multiplied, a formula as ``count*(formula)``
    (exact; the table shortens it), ``unknown``/None/0 kept."""
    if isinstance(value, bool) or value is None or value == "unknown":
        return value
    if isinstance(value, int):
        return value * count
    monomial = re.fullmatch(r"(\d+)\*([A-Za-z_][A-Za-z0-9_]*(?:\*\*\d+)?(?:\*[A-Za-z_][A-Za-z0-9_]*(?:\*\*\d+)?)*)",
                            value)
    if monomial:  # 7340032*B -> 88080384*B: the table writes it 88.08 M·B
        return f"{int(monomial.group(1)) * count}*{monomial.group(2)}"
    return f"{count}*({value})"
