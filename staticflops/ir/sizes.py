"""PyTorch and TensorFlow hold every size in an int64: a larger dimension is an error there.
Here it would also be a number no report can print (Python refuses to write an integer of
over 4,300 digits, and ``2 ** 20000`` is within the interpreter's integer bound)."""

from __future__ import annotations

from staticflops.diagnostics import AnalysisError, Location
from staticflops.ir.model import ModelIR
from staticflops.shapes.shape import MAX_SIZE


def check_sizes(ir: ModelIR) -> None:
    """Raise at the first op (in execution order), then layer, with a dimension over MAX_SIZE."""
    # id() of the shape lists and shapes already checked (all held by the IR meanwhile): a
    # replayed block's ops and modules share theirs with the first block's (frontend/pytorch.py)
    checked = set()
    for op in ir.ops:
        for shapes in (op.inputs, op.outputs):
            if id(shapes) not in checked:
                checked.add(id(shapes))
                for shape in shapes:
                    _check(shape, op.label, op.location)
    pending = [ir.root]
    while pending:
        layer = pending.pop()
        if layer.params or layer.replaced_params:
            for param in (*layer.params, *layer.replaced_params):
                _check(param.shape, f"{layer.type} parameter `{param.name}`", layer.location)
        for shape in layer.output_shapes:
            if id(shape) not in checked:  # a replayed block's modules share their recorded outputs' shapes
                checked.add(id(shape))
                _check(shape, layer.type, layer.location)
        pending.extend(reversed(layer.children))


def _check(shape, what: str, where: Location) -> None:
    for size in shape or ():
        if type(size) is int and size > MAX_SIZE:
            raise AnalysisError(f"{what}: a dimension of about 2**{size.bit_length() - 1} is over the int64 size "
                                "limit (2**63 - 1) of PyTorch and TensorFlow", where, code="SF302")
