"""Memory traffic and footprint, in elements (the report turns them into bytes).

Per op: ``mem_read`` / ``mem_write`` from the rule's formulas, or, under the rule-set option
``memory: io`` for kinds without one, the inputs (+ the layer's parameters) read and the
outputs written (torchstat's convention for conv/linear); ``activation``: its output
elements (every tensor it produces, none freed or done in place); ``saved`` (training only):
the activation elements kept for its backward, by the rule's ``saved`` formula or its inputs.
"""

from __future__ import annotations

from staticflops.diagnostics import Unresolved
from staticflops.rulesets import FormulaError
from staticflops.shapes import numel
from staticflops.shapes.precision import precision


def dtype_bytes(dtype: str) -> int:
    """Bytes per element of ``--dtype`` (any name of ``shapes/precision.py``: bf16, bfloat16...)."""
    return precision(dtype, "--dtype").bytes


def elements(shapes) -> object:
    """Total elements of known shapes (an unknown shape has already made its op unknown)."""
    return sum((numel(shape) for shape in shapes if shape is not None), 0)


def read_write(op, rule, env: dict, io_default: bool, unknowns: list) -> tuple:
    defaults = (elements(op.inputs) + env.get("params", 0), elements(op.outputs)) if io_default else (0, 0)
    values = []
    for formula, default, what in ((rule.mem_read, defaults[0], "mem_read"),
                                   (rule.mem_write, defaults[1], "mem_write")):
        if formula is None:
            values.append(default)
            continue
        try:
            values.append(formula.count(env))
        except FormulaError as error:
            unknowns.append(Unresolved(op.location, f"{what} of `{op.kind}` could not be evaluated: {error}", "SF404"))
            values.append(0)
    return tuple(values)


def saved(op, rule, env: dict, unknowns: list) -> object:
    if rule.saved is None:
        return elements(op.inputs)
    try:
        return rule.saved.count(env)
    except FormulaError as error:
        unknowns.append(Unresolved(op.location, f"saved activations of `{op.kind}` could not be evaluated: {error}",
                                   "SF404"))
        return 0
