"""Products of tensors: matmul (@, torch.matmul/mm/bmm/mv, F.linear's core), the add-a-product
ops (addmm, baddbmm, addbmm, addmv: GPT-2's Conv1D) and two-operand einsum."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.expr import Dim, format_dim
from staticflops.shapes.layout import expect_size
from staticflops.shapes.shape import format_shape, numel
from staticflops.shapes.tensor_ops import ShapeError, broadcast, matmul, normalize_dim, same


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
    terms, rhs, broadcast_letters = _einsum_ellipsis(terms, rhs, inputs, bool(_), equation)
    sizes: dict = {}
    for term, shape in zip(terms, inputs):
        if len(term) != len(shape):
            raise ShapeError(f"einsum term '{term}' does not fit operand of shape {format_shape(shape)}")
        for letter, size in zip(term, shape):
            if letter in sizes and not same(sizes[letter], size) and not same(size, 1) and \
                    not (letter in broadcast_letters and same(sizes[letter], 1)):
                raise ShapeError(f"einsum index '{letter}' is {format_dim(sizes[letter])} in one operand, {format_dim(size)} in another")
            if letter in broadcast_letters and same(sizes.get(letter, 1), 1):
                sizes[letter] = size  # the '...' dims broadcast: a 1 takes the other operand's size
            sizes.setdefault(letter, size)
    if not _:
        written = lhs.replace(",", "").replace(".", "")
        rhs = broadcast_letters + "".join(sorted(c for c in set(written) if written.count(c) == 1))
    product: Dim = 1
    for size in sizes.values():
        product = product * size
    # operands: one alone is a permutation, diagonal or sum, which torch runs without a product
    return [tuple(sizes[c] for c in rhs)], {"index_product": product, "operands": len(inputs)}


def _einsum_ellipsis(terms, rhs, inputs, explicit, equation):
    """'...' stands for the dims an operand has beyond its letters, broadcast together from the
    right (as torch.einsum): each becomes a letter of its own, placed where the '...' was (and
    first in an implicit output).  Returns the terms, the output and those letters."""
    if "." not in "".join(terms) + rhs:
        return terms, rhs, ""
    for term in (*terms, rhs):
        if term.count(".") not in (0, 3) or (term.count(".") == 3 and "..." not in term):
            raise ShapeError(f"einsum '{equation}': '.' is only allowed as one '...'")
    counts = [len(shape) - len(term.replace("...", "")) if "..." in term else 0 for term, shape in zip(terms, inputs)]
    if any(c < 0 for c in counts):
        raise ShapeError(f"einsum '{equation}': an operand has fewer dims than its letters")
    used = set("".join(terms) + rhs)
    free = [chr(c) for c in range(0x3b1, 0x3b1 + 64) if chr(c) not in used]  # Greek letters: never written
    width = max(counts, default=0)
    letters = "".join(free[:width])
    terms = [t.replace("...", letters[width - c:]) for t, c in zip(terms, counts)]
    if explicit:
        rhs = rhs.replace("...", letters)
    return terms, rhs, letters


_PRODUCT = "(2, 8) @ (8, 4): 2*4 outputs x 8 = 64 MACs = 128 FLOPs"


def _dot(attrs, inputs):
    """Keras Dot: a batched dot product of two inputs over one axis of each."""
    a, b = inputs[0], inputs[1]
    axes = attrs["axes"]
    axes = (axes, axes) if isinstance(axes, int) else tuple(axes)
    ia, ib = normalize_dim(axes[0], len(a)), normalize_dim(axes[1], len(b))
    expect_size(b[ib], a[ia], "Dot: the contracted axes differ ({wanted} vs {actual})")
    out = a[:ia] + a[ia + 1:] + b[1:ib] + b[ib + 1:]
    if len(out) == 1:
        out = out + (1,)
    return [out], {"inner": a[ia]}


KINDS = catalogue(
    Kind("matmul", _matmul, True, "torch.matmul's broadcasting product; `inner` MACs per output",
         (Example("x @ y", ("x:2x8", "y:8x4"), ((2, 4),), 128, _PRODUCT),)),
    Kind("add_product", _add_product, True, "beta * input + alpha * (a @ b): addmm, baddbmm, addbmm, addmv",
         (Example("torch.addmm(b, x, y)", ("b:4", "x:2x8", "y:8x4"), ((2, 4),), 128,
                  _PRODUCT + "; the scaled add of b counts 0"),)),
    Kind("einsum", _einsum, True, "a contraction named by an equation: one MAC per combination of its indices",
         (Example("torch.einsum('ij,jk->ik', x, y)", ("x:2x8", "y:8x4"), ((2, 4),), 128,
                  "i, j, k = 2, 8, 4: 64 combinations = 64 MACs = 128 FLOPs"),)),

    Kind("dot", _dot, True, "Keras Dot: per batch row, a dot product over the given axes; `inner` MACs per output",
         (Example("layers.Dot(axes=1)([a, b])", ("a:2x4", "b:2x4"), ((2, 1),), 16,
                  "axis 1 of both (4 = 4) contracted: (2,) kept as (2, 1); 2 outputs x 4 = 8 MACs = 16 FLOPs",
                  params=0, framework="keras"),)),
)
