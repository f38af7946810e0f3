"""Kinds that move, select or create data and compute nothing: no rule set prices them, so
they are not recorded (as view/permute/cat are not); only their output shapes matter."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue, expect, smaller
from staticflops.shapes.shape import numel
from staticflops.shapes.tensor_ops import ShapeError, broadcast, concatenate, normalize_dim, split_sizes


def _same(attrs, inputs):
    return [inputs[0]], {}


def _rot90(attrs, inputs):
    x = inputs[0]
    dims = attrs.get("dims") or (0, 1)
    expect(len(dims) == 2 and len(x) >= 2, "rot90 expects two dimensions of a tensor of rank at least 2")
    a, b = (normalize_dim(d, len(x)) for d in dims)
    turns = attrs.get("k", 1) % 4
    if turns % 2 == 0:
        return [x], {}
    out = list(x)
    out[a], out[b] = x[b], x[a]
    return [tuple(out)], {}


def _diagonal_length(rows, columns, offset):
    if offset >= 0:
        length = smaller(rows, columns - offset)
    else:
        length = smaller(rows + offset, columns)
    return max(0, length) if isinstance(length, int) else length


def _diag(attrs, inputs):
    """diag: a 1-D input becomes a square matrix, a 2-D input gives its diagonal."""
    x, offset = inputs[0], attrs.get("diagonal", 0)
    expect(len(x) in (1, 2), f"diag expects a 1-D or 2-D input, got rank {len(x)}")
    if len(x) == 1:
        return [(x[0] + abs(offset),) * 2], {}
    return [(_diagonal_length(x[0], x[1], offset),)], {}


def _diagonal(attrs, inputs):
    x = inputs[0]
    expect(len(x) >= 2, "diagonal expects a tensor of rank at least 2")
    a, b = normalize_dim(attrs.get("dim1", 0), len(x)), normalize_dim(attrs.get("dim2", 1), len(x))
    rest = tuple(d for i, d in enumerate(x) if i not in (a, b))
    return [rest + (_diagonal_length(x[a], x[b], attrs.get("offset", 0)),)], {}


def _diag_embed(attrs, inputs):
    x = inputs[0]
    size = x[-1] + abs(attrs.get("offset", 0))
    rank = len(x) + 1
    a, b = normalize_dim(attrs.get("dim1", -2), rank), normalize_dim(attrs.get("dim2", -1), rank)
    rest = iter(x[:-1])
    return [tuple(size if i in (a, b) else next(rest) for i in range(rank))], {}


def _diagflat(attrs, inputs):
    size = numel(inputs[0]) + abs(attrs.get("offset", 0))
    return [(size, size)], {}


# hsplit / vsplit / dsplit: the dimension each splits (hsplit: 0 for a 1-D tensor).
_SPLIT_AXIS = {"vsplit": 0, "hsplit": 1, "dsplit": 2}


def _axis_split(attrs, inputs):
    x, op = inputs[0], attrs["op"]
    axis = 0 if op == "hsplit" and len(x) == 1 else _SPLIT_AXIS[op]
    expect(len(x) > axis, f"{op} expects a tensor of rank at least {axis + 1}, got {len(x)}")
    cut = attrs["sections"]
    if isinstance(cut, int):  # n equal sections
        expect(cut > 0 and isinstance(x[axis], int) and x[axis] % cut == 0,
               f"{op}: dimension {x[axis]} does not split into {cut} equal sections")
        sizes = split_sizes(x[axis], x[axis] // cut)
    else:  # split before each index
        bounds = [0, *[min(max(i, 0), x[axis]) for i in cut], x[axis]]
        sizes = [max(b - a, 0) for a, b in zip(bounds, bounds[1:])]
    return [x[:axis] + (s,) + x[axis + 1:] for s in sizes], {}


def _atleast(attrs, inputs):
    rank = attrs["rank"]
    out = []
    for x in inputs:
        if len(x) >= rank:
            out.append(x)
        elif rank == 3 and len(x) == 2:
            out.append(x + (1,))
        elif rank == 3 and len(x) == 1:
            out.append((1,) + x + (1,))
        else:
            out.append((1,) * (rank - len(x)) + x)
    return out, {}


def _stack_axis(attrs, inputs):
    """hstack / vstack / dstack / column_stack: cat after making each operand 1-, 2- or 3-D."""
    op = attrs["op"]
    if op == "hstack":
        return [concatenate(list(inputs), 0 if len(inputs[0]) == 1 else 1)], {}
    if op in ("vstack", "row_stack"):
        return [concatenate([(1,) + x if len(x) < 2 else x for x in inputs], 0)], {}
    if op == "column_stack":
        shaped = [x + (1,) if len(x) == 1 else (x[0], 1) if not x else x for x in inputs]
        return [concatenate([s if s else (1, 1) for s in shaped], 1)], {}
    shaped = _atleast({"rank": 3}, inputs)[0]
    return [concatenate(shaped, 2)], {}


def _block_diag(attrs, inputs):
    rows, columns = 0, 0
    for x in inputs:
        expect(len(x) <= 2, f"block_diag expects tensors of rank at most 2, got rank {len(x)}")
        matrix = (1, 1) if not x else (1, x[0]) if len(x) == 1 else x
        rows, columns = rows + matrix[0], columns + matrix[1]
    return [(rows, columns)], {}


def _broadcast_tensors(attrs, inputs):
    joint = broadcast(*inputs)
    return [joint for _ in inputs], {}


def _cartesian_prod(attrs, inputs):
    for x in inputs:
        expect(len(x) == 1, "cartesian_prod expects 1-D tensors")
    if len(inputs) == 1:
        return [inputs[0]], {}
    return [(numel(tuple(x[0] for x in inputs)), len(inputs))], {}


def _select(attrs, inputs):
    x = inputs[0]
    axis = normalize_dim(attrs["dim"], len(x))
    return [x[:axis] + x[axis + 1:]], {}


def _adjoint(attrs, inputs):
    x = inputs[0]
    expect(len(x) >= 2, "adjoint expects a tensor of rank at least 2")
    return [x[:-2] + (x[-1], x[-2])], {}


def _sliding_windows(attrs, inputs):
    """x.unfold(dimension, size, step): windows of ``size`` every ``step``, a new last dim."""
    x = inputs[0]
    axis = normalize_dim(attrs["dimension"], max(len(x), 1))
    size, step = attrs["size"], attrs["step"]
    expect(step > 0, f"unfold: step must be positive, got {step}")
    length = x[axis] if x else 1
    expect(size <= length, f"unfold: size {size} exceeds the dimension's {length}")
    windows = (length - size) // step + 1
    return [x[:axis] + (windows,) + x[axis + 1:] + (size,)], {}


def _flat_take(attrs, inputs):
    return [inputs[1]], {}


def _multinomial(attrs, inputs):
    x = inputs[0]
    expect(len(x) in (1, 2), "multinomial expects a 1-D or 2-D probability tensor")
    return [x[:-1] + (attrs["num_samples"],)], {}


def _created(attrs, inputs):
    """A new tensor of ``size`` (windows, randperm, range, scalar_tensor): no input."""
    size = attrs["size"]
    if isinstance(size, int) and not isinstance(size, bool) and size < 0:
        raise ShapeError(f"negative size {size}")
    return [tuple(size) if isinstance(size, tuple) else (size,)], {}


def _nonzero_static(attrs, inputs):
    """nonzero_static(x, size=n): n rows of indices (padded with fill_value): a static shape."""
    return [(attrs["size"], len(inputs[0]))], {}


def _lu_unpack(attrs, inputs):
    """lu_unpack(LU (..., m, n), pivots): P (m, m), L (m, k), U (k, n), k = min(m, n)."""
    x = inputs[0]
    expect(len(x) >= 2, "lu_unpack expects LU factors of rank at least 2")
    m, n = x[-2], x[-1]
    k = smaller(m, n)
    batch = x[:-2]
    return [batch + (m, m), batch + (m, k), batch + (k, n)], {}


def _unravel_index(attrs, inputs):
    """unravel_index(indices, shape): one coordinate tensor per dimension of ``shape``."""
    shape = attrs["shape"]
    count = len(shape) if isinstance(shape, tuple) else 1
    return [inputs[0]] * count, {}


def _examples(call, inputs, shape, why):
    return (Example(call, inputs, (shape,), 0, why),)


KINDS = catalogue(
    Kind("same_shape", _same, False,
         "flips, conjugation views, fills and scatters into a copy, sampling: the input's shape",
         _examples("torch.fliplr(x)", ("x:2x3x8x8",), (2, 3, 8, 8), "a reversed view: the same shape")),
    Kind("rot90", _rot90, False, "a quarter turn in the plane of two dims: an odd number of turns swaps them",
         _examples("torch.rot90(x)", ("x:2x3x8x8",), (3, 2, 8, 8), "k=1 in dims (0, 1): 2 and 3 swap")),
    Kind("diag", _diag, False, "a vector to a diagonal matrix, or a matrix's diagonal",
         _examples("torch.diag(x)", ("x:2x8",), (2,), "min(2, 8) diagonal elements")),
    Kind("diagonal", _diagonal, False, "the diagonal of two dims, moved last",
         _examples("torch.diagonal(x)", ("x:2x3x8x8",), (8, 8, 2), "dims 0 and 1 removed, min(2, 3) = 2 appended")),
    Kind("diag_embed", _diag_embed, False, "the last dim spread on the diagonal of two new dims",
         _examples("torch.diag_embed(x)", ("x:2x3x8x8",), (2, 3, 8, 8, 8), "the last 8 becomes an 8x8 diagonal")),
    Kind("diagflat", _diagflat, False, "the flattened input on a square matrix's diagonal",
         _examples("torch.diagflat(x)", ("x:2x3x8x8",), (384, 384), "2*3*8*8 = 384 elements")),
    Kind("axis_split", _axis_split, False, "hsplit / vsplit / dsplit: torch.tensor_split along dim 1 / 0 / 2",
         (Example("torch.dsplit(x, 2)", ("x:2x8x8",), ((2, 8, 4), (2, 8, 4)), 0,
                  "dim 2 of 8 in 2 sections of 4"),)),
    Kind("atleast", _atleast, False, "atleast_1d/2d/3d: leading (and for 3-D trailing) 1s up to the rank",
         _examples("torch.atleast_2d(x)", ("x:8",), (1, 8), "a 1-D tensor becomes a row")),
    Kind("stack_axis", _stack_axis, False, "hstack / vstack / dstack / column_stack / row_stack",
         _examples("torch.hstack([x, y])", ("x:2x8", "y:2x8"), (2, 16), "cat along dim 1: 8 + 8")),
    Kind("block_diag", _block_diag, False, "matrices along the diagonal of one matrix",
         _examples("torch.block_diag(x, y)", ("x:2x8", "y:3x4"), (5, 12), "rows 2 + 3, columns 8 + 4")),
    Kind("broadcast_tensors", _broadcast_tensors, False, "every operand expanded to the joint shape",
         _examples("torch.broadcast_tensors(x, y)[0]", ("x:2x8", "y:8"), (2, 8), "(2, 8) and (8,) broadcast")),
    Kind("cartesian_prod", _cartesian_prod, False, "every combination of the 1-D operands' elements",
         _examples("torch.cartesian_prod(x, y)", ("x:2", "y:3"), (6, 2), "2 * 3 pairs of 2")),
    Kind("select", _select, False, "one index along a dim: the dim disappears",
         _examples("torch.select(x, 0, 1)", ("x:2x8",), (8,), "row 1 of 2")),
    Kind("adjoint", _adjoint, False, "the conjugate transpose of the last two dims (a view)",
         _examples("torch.adjoint(x)", ("x:2x5x8",), (2, 8, 5), "the last two dims swap")),
    # Tensor.unfold; not `unfold`, the kind of F.unfold / nn.Unfold (im2col, kinds/conv.py),
    # whose name is a rule key of every rule set and so stays.
    Kind("sliding_windows", _sliding_windows, False,
         "Tensor.unfold: sliding windows along a dim, as a new last dim (a view)",
         _examples("x.unfold(1, 2, 2)", ("x:2x8",), (2, 4, 2), "(8 - 2) // 2 + 1 = 4 windows of 2")),
    # torch.take; not `take`, keras.ops.take's computing kind along an axis (a rule key).
    Kind("flat_take", _flat_take, False,
         "torch.take: elements of the flattened input at the index's positions: the index's shape",
         _examples("torch.take(x, i)", ("x:2x8", "i:int64:3"), (3,), "three indices")),
    Kind("multinomial", _multinomial, False, "num_samples draws per row of probabilities (int64 indices)",
         _examples("torch.multinomial(x, 2)", ("x:2x8",), (2, 2), "two draws for each of 2 rows")),
    Kind("created", _created, False, "a new tensor of a given size (window functions, randperm, range)",
         _examples("torch.hann_window(4)", ("x:2x8",), (4,), "4 samples (the input is unused)")),
    Kind("nonzero_static", _nonzero_static, False, "the first `size` nonzero positions: (size, rank) int64",
         _examples("torch.nonzero_static(x, size=4)", ("x:2x8",), (4, 2), "4 rows of 2 coordinates")),
    Kind("lu_unpack", _lu_unpack, False, "LU factors unpacked to P, L, U (masks and a permutation)",
         (Example("torch.lu_unpack(*torch.lu(x))", ("x:8x8",), ((8, 8), (8, 8), (8, 8)), 0,
                  "P 8x8, L 8x8, U 8x8 of a square LU"),)),
    Kind("unravel_index", _unravel_index, False, "flat indices to one coordinate tensor per dimension",
         (Example("torch.unravel_index(i, (4, 4))", ("i:int64:2x8",), ((2, 8), (2, 8)), 0,
                  "two coordinates for each of the (2, 8) indices"),)),
)
