"""Products of tensors: matmul (@, torch.matmul/mm/bmm/mv, F.linear's core), the add-a-product
ops (addmm, baddbmm, addbmm, addmv: GPT-2's Conv1D) and two-operand einsum."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.expr import Dim, format_dim
from staticflops.shapes.layout import expect_size
from staticflops.shapes.shape import format_shape, numel
from staticflops.shapes.tensor_ops import ShapeError, broadcast, matmul, same


def _matmul(attrs, inputs):
    a, b = inputs[0], inputs[1]
    inner = a[-1]
    return [matmul(a, b)], {"inner": inner}


# The operand ranks each of torch's add-a-product ops takes (input is broadcast to the result).
_ADD_PRODUCT_RANKS = {"addmm": (2, 2), "baddbmm": (3, 3), "addbmm": (3, 3), "addmv": (2, 1)}


def _add_product(attrs, inputs):
    op = attrs["op"]
    base, a, b = inputs
    if (len(a), len(b)) != _ADD_PRODUCT_RANKS[op]:
        ranks = "-D and ".join(str(r) for r in _ADD_PRODUCT_RANKS[op])
        raise ShapeError(f"{op} expects {ranks}-D operands, got {format_shape(a)} and {format_shape(b)}")
    if op in ("baddbmm", "addbmm"):
        expect_size(b[0], a[0], op + ": batch sizes {wanted} and {actual} differ")
    product = matmul(a, b)
    result = product[1:] if op == "addbmm" else product  # addbmm sums over the batch
    if broadcast(base, result) != tuple(result):
        raise ShapeError(f"{op}: input {format_shape(base)} does not broadcast to the result {format_shape(result)}")
    return [result], {"inner": a[-1], "products": numel(product) * a[-1]}


def _einsum(attrs, inputs):
    equation = attrs["equation"].replace(" ", "")
    lhs, _, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(inputs):
        raise ShapeError(f"einsum '{equation}' names {len(terms)} operands, got {len(inputs)}")
    sizes: dict = {}
    for term, shape in zip(terms, inputs):
        if "." in term:
            raise ShapeError("einsum with '...' is not supported yet")
        if len(term) != len(shape):
            raise ShapeError(f"einsum term '{term}' does not fit operand of shape {format_shape(shape)}")
        for letter, size in zip(term, shape):
            if letter in sizes and not same(sizes[letter], size) and not same(size, 1):
                raise ShapeError(f"einsum index '{letter}' is {format_dim(sizes[letter])} in one operand, {format_dim(size)} in another")
            sizes.setdefault(letter, size)
    if not _:
        rhs = "".join(sorted(c for c in set(lhs.replace(",", "")) if lhs.replace(",", "").count(c) == 1))
    product: Dim = 1
    for size in sizes.values():
        product = product * size
    return [tuple(sizes[c] for c in rhs)], {"index_product": product}


_PRODUCT = "(2, 8) @ (8, 4): 2*4 outputs x 8 = 64 MACs = 128 FLOPs"

KINDS = catalogue(
    Kind("matmul", _matmul, True, "torch.matmul's broadcasting product; `inner` MACs per output",
         (Example("x @ y", ("x:2x8", "y:8x4"), ((2, 4),), 128, _PRODUCT),)),
    Kind("add_product", _add_product, True, "beta * input + alpha * (a @ b): addmm, baddbmm, addbmm, addmv",
         (Example("torch.addmm(b, x, y)", ("b:4", "x:2x8", "y:8x4"), ((2, 4),), 128,
                  _PRODUCT + "; the scaled add of b counts 0"),)),
    Kind("einsum", _einsum, True, "a contraction named by an equation: one MAC per combination of its indices",
         (Example("torch.einsum('ij,jk->ik', x, y)", ("x:2x8", "y:8x4"), ((2, 4),), 128,
                  "i, j, k = 2, 8, 4: 64 combinations = 64 MACs = 128 FLOPs"),)),
)
