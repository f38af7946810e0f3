"""``analyze --by-type``: the cost summed per layer or op type (fvcore's ``by_operator``), for
a model whose layer table is too long to read.  Only the leaves of the layer tree are summed
(a module's row already includes its children), so the rows add up to the totals."""

from __future__ import annotations

from dataclasses import dataclass, field

from staticflops.report.symbolic import leading, written_terms
from staticflops.report.units import human, share

# The ``--by-type`` table's columns, the same in the terminal and the HTML report.
COLUMNS = [("Type", "left"), ("Calls", "right"), ("FLOPs", "right"), ("MACs", "right"), ("Params", "right"),
           ("%FLOPs", "right")]


@dataclass
class TypeRow:
    type: str
    calls: int = 0  # leaf rows of this type
    flops: int = 0
    macs: int = 0
    params: int = 0
    symbolic: list = field(default_factory=list)  # formulas that cannot be added as integers
    unknown: int = 0


def by_type(layers: list) -> list[TypeRow]:
    """One row per type, most FLOPs first (symbolic and unknown counts after the integers)."""
    rows: dict[str, TypeRow] = {}
    for index, layer in enumerate(layers):
        following = layers[index + 1] if index + 1 < len(layers) else None
        if following is not None and following.depth > layer.depth:
            continue  # not a leaf: its children are counted
        row = rows.setdefault(layer.type, TypeRow(layer.type))
        row.calls += 1
        row.params += layer.params if isinstance(layer.params, int) else 0
        for name in ("flops", "macs"):
            value = layer.forward_flops if name == "flops" else layer.macs
            if isinstance(value, int):
                setattr(row, name, getattr(row, name) + value)
            elif value == "unknown":
                row.unknown += 1
            elif name == "flops":
                row.symbolic.append(value)
    # symbolic counts first (they are the non-zero ones of a symbolic input), then by FLOPs
    return sorted(rows.values(), key=lambda r: (not r.symbolic, tuple(-x for x in symbolic_size(r)), -r.flops, r.type))


def type_cells(report, amount) -> list[list[str]]:
    """The ``--by-type`` rows as plain text, one list of cells per ``COLUMNS`` (each renderer
    escapes them its own way); ``amount`` writes an integer count (human or exact)."""
    rows = []
    for row in by_type(report.layers):
        flops = (written_terms(leading_sum(row.symbolic), human) or "?") if row.symbolic else amount(row.flops)
        flops += f" + {row.unknown} unknown" if row.unknown else ""
        rows.append([row.type, str(row.calls), flops, "" if row.symbolic else amount(row.macs),
                     amount(row.params) if row.params else "",
                     "" if row.symbolic else share(row.flops, report.totals.forward_flops)])
    return rows


def leading_sum(formulas: list[str]) -> dict | None:
    """The leading terms of a sum of symbolic counts (``symbolic.leading``), None when one
    cannot be read."""
    total: dict = {}
    for formula in formulas:
        poly = leading(formula)
        if poly is None:
            return None
        for monomial, coefficient in poly.items():
            total[monomial] = total.get(monomial, 0) + coefficient
    top = max((sum(p for _, p in m) for m in total), default=None)
    return {m: c for m, c in total.items() if sum(p for _, p in m) == top and c} or None


def symbolic_size(row: TypeRow) -> tuple:
    """A symbolic row's size for sorting: the degree of its leading terms, then their
    coefficients' sum (``B·H·W`` outgrows ``B`` whatever the coefficients)."""
    poly = leading_sum(row.symbolic) if row.symbolic else None
    if not poly:
        return (0, 0.0)
    return (sum(p for _, p in next(iter(poly))), float(sum(poly.values())))
