"""Shape rules of tensor manipulation: broadcasting, reshape, permute, indexing, matmul, cat."""

from __future__ import annotations

from staticflops.shapes.expr import Dim, Expr, Undecidable, format_dim
from staticflops.shapes.shape import Shape, format_shape, numel


class ShapeError(Exception):
    """The shapes do not fit; the message names both sides."""


class IndexArray:
    """An integer index tensor inside a subscript: contributes its own shape."""

    def __init__(self, shape: Shape):
        self.shape = tuple(shape)


def same(a: Dim, b: Dim) -> bool:
    try:
        return a == b
    except Undecidable:
        return False


def normalize_dim(dim: int, rank: int) -> int:
    if not isinstance(dim, int):
        raise ShapeError(f"dimension index must be an integer, got {dim!r}")
    if not -rank <= dim < max(rank, 1):
        raise ShapeError(f"dimension {dim} is out of range for a tensor of rank {rank}")
    return dim % rank if rank else 0


def broadcast(*shapes: Shape) -> Shape:
    rank = max(len(s) for s in shapes)
    result = []
    for position in range(rank):
        dims = [s[len(s) - rank + position] for s in shapes if len(s) - rank + position >= 0]
        chosen: Dim = 1
        for d in dims:
            if same(d, 1):
                continue
            if same(chosen, 1):
                chosen = d
            elif not same(chosen, d):
                raise ShapeError(
                    f"shapes {' and '.join(format_shape(s) for s in shapes)} do not broadcast "
                    f"({format_dim(chosen)} vs {format_dim(d)})"
                )
        result.append(chosen)
    return tuple(result)


def reshape(shape: Shape, new: list) -> Shape:
    total = numel(shape)
    free = [i for i, d in enumerate(new) if isinstance(d, int) and d == -1]
    if len(free) > 1:
        raise ShapeError("only one dimension can be -1 in a reshape")
    if free:
        known: Dim = 1
        for i, d in enumerate(new):
            if i != free[0]:
                known = known * d
        if isinstance(total, int) and isinstance(known, int):  # exact: 40 elements never view as (-1, 7)
            if known == 0 or total % known:
                raise ShapeError(f"cannot reshape {format_shape(shape)} ({format_dim(total)} elements) into {_show(new)}")
            inferred = total // known
        else:
            inferred = total / known
            if isinstance(inferred, Expr) is False and getattr(inferred, "denominator", 1) != 1:
                raise ShapeError(f"cannot reshape {format_shape(shape)} ({format_dim(total)} elements) into {_show(new)}")
        new = list(new)
        new[free[0]] = int(inferred) if not isinstance(inferred, Expr) else inferred
    elif not same(numel(tuple(new)), total):
        raise ShapeError(f"cannot reshape {format_shape(shape)} ({format_dim(total)} elements) into {_show(new)}")
    return tuple(new)


def flatten(shape: Shape, start: int = 0, end: int = -1) -> Shape:
    if not shape:
        return (1,)
    start, end = normalize_dim(start, len(shape)), normalize_dim(end, len(shape))
    if start > end:
        raise ShapeError(f"start_dim {start} comes after end_dim {end}")
    return shape[:start] + (numel(shape[start:end + 1]),) + shape[end + 1:]


def permute(shape: Shape, order) -> Shape:
    order = [normalize_dim(d, len(shape)) for d in order]
    if sorted(order) != list(range(len(shape))):
        raise ShapeError(f"permutation {order} does not fit a tensor of rank {len(shape)}")
    return tuple(shape[d] for d in order)


def transpose(shape: Shape, a: int, b: int) -> Shape:
    a, b = normalize_dim(a, len(shape)), normalize_dim(b, len(shape))
    dims = list(shape)
    dims[a], dims[b] = dims[b], dims[a]
    return tuple(dims)


def squeeze(shape: Shape, dim=None) -> Shape:
    if dim is None:
        return tuple(d for d in shape if not same(d, 1))
    dims = dim if isinstance(dim, (tuple, list)) else [dim]
    drop = {normalize_dim(d, len(shape)) for d in dims}
    return tuple(d for i, d in enumerate(shape) if not (i in drop and same(d, 1)))


def unsqueeze(shape: Shape, dim: int) -> Shape:
    position = normalize_dim(dim, len(shape) + 1)
    return shape[:position] + (1,) + shape[position:]


def expand(shape: Shape, sizes: list) -> Shape:
    """PyTorch's expand: -1 keeps an existing dimension; only a size-1 dimension may change."""
    if len(sizes) < len(shape):
        raise ShapeError(f"expand to {len(sizes)} dimensions is fewer than the tensor's {len(shape)}")
    offset = len(sizes) - len(shape)
    result = []
    for i, size in enumerate(sizes):
        known = isinstance(size, int) and not isinstance(size, bool)
        if i < offset:  # a new leading dimension
            if known and size < 0:
                raise ShapeError(f"the expanded size {size} is not allowed in the new leading dimension {i}")
            result.append(size)
            continue
        existing = shape[i - offset]
        if known and size == -1:
            result.append(existing)
        elif known and size < 0:
            raise ShapeError(f"the expanded size {size} is negative (only -1, keeping the dimension, is allowed)")
        elif same(existing, size) or same(existing, 1):
            result.append(size)
        elif isinstance(existing, int) and known:
            raise ShapeError(f"the expanded size {size} must match the existing size {existing} at "
                             f"non-singleton dimension {i} (target {format_shape(tuple(sizes))}, "
                             f"tensor {format_shape(shape)})")
        else:  # symbolic and not provably equal: PyTorch would need them equal at run time
            result.append(size)
    return tuple(result)


def new_shape(sizes) -> Shape:
    """The shape of a new tensor (``torch.zeros(2, 3)``): sizes must be non-negative."""
    for size in sizes:
        if isinstance(size, int) and not isinstance(size, bool) and size < 0:
            raise ShapeError(f"negative size {size} in the requested shape")
    return tuple(sizes)


def repeat(shape: Shape, times: list) -> Shape:
    """PyTorch's repeat: one non-negative count per dimension, new leading ones allowed."""
    if len(times) < len(shape):
        raise ShapeError(f"repeat with {len(times)} counts is fewer than the tensor's {len(shape)} dimensions")
    for count in times:
        if isinstance(count, int) and count < 0:
            raise ShapeError(f"negative repeat count {count}")
    padded = (1,) * (len(times) - len(shape)) + tuple(shape)
    return tuple(a * b for a, b in zip(padded, times))


def reduce(shape: Shape, dim=None, keepdim: bool = False) -> Shape:
    if dim is None:
        return tuple(1 for _ in shape) if keepdim else ()
    dims = {normalize_dim(d, len(shape)) for d in (dim if isinstance(dim, (tuple, list)) else [dim])}
    if keepdim:
        return tuple(1 if i in dims else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in dims)


def concatenate(shapes: list, dim: int) -> Shape:
    first = shapes[0]
    axis = normalize_dim(dim, len(first))
    total: Dim = 0
    for s in shapes:
        if len(s) != len(first) or any(not same(a, b) for i, (a, b) in enumerate(zip(s, first)) if i != axis):
            raise ShapeError(f"cannot concatenate {format_shape(first)} and {format_shape(s)} along dim {dim}")
        total = total + s[axis]
    return first[:axis] + (total,) + first[axis + 1:]


def stack(shapes: list, dim: int) -> Shape:
    first = shapes[0]
    for s in shapes:
        if len(s) != len(first) or not all(same(a, b) for a, b in zip(s, first)):
            raise ShapeError(f"cannot stack {format_shape(first)} and {format_shape(s)}")
    return unsqueeze(first, dim)[:normalize_dim(dim, len(first) + 1)] + (len(shapes),) + first[normalize_dim(dim, len(first) + 1):]


MAX_PIECES = 1_000_000  # as many as the interpreter's largest container


def _piece_count(count: int) -> int:
    if count > MAX_PIECES:
        raise ShapeError(f"splitting into {count:,} pieces: more than the {MAX_PIECES:,} this analysis handles")
    return count


def split_sizes(size: Dim, split, chunks: bool = False) -> list:
    """Sizes of the pieces of a dimension for ``split`` (int or list) or ``chunk``."""
    if isinstance(split, (list, tuple)):
        for piece in split:
            if isinstance(piece, bool) or not isinstance(piece, (int, Expr)) or (isinstance(piece, int) and piece < 0):
                raise ShapeError(f"split sizes must be non-negative integers, got {piece!r}")
        total = sum(split)
        # PyTorch: the pieces cover the dimension exactly (decided when the difference is a number)
        if isinstance(size, (int, Expr)) and not isinstance(total - size, Expr) and total != size:
            raise ShapeError(f"split sizes must sum exactly to the dimension's size {format_dim(size)}, "
                             f"got {list(split)} (sum {format_dim(total)})")
        return list(split)
    if isinstance(split, int) and split <= 0:  # PyTorch refuses these too (0 only for an empty dimension)
        raise ShapeError(f"chunk count must be positive, got {split}" if chunks
                         else f"split size must be positive, got {split}")
    if chunks:
        piece = -(-size // split) if not isinstance(size, Expr) else size // split
        split = piece
    if isinstance(size, Expr):
        count = size // split
        if isinstance(count, Expr):
            raise ShapeError(f"cannot split a symbolic dimension {format_dim(size)} into a known number of pieces")
        return [split] * _piece_count(int(count))
    pieces = [split] * _piece_count(size // split)
    if size % split:
        pieces.append(size % split)
    return pieces


def matmul(a: Shape, b: Shape) -> Shape:
    if not a or not b:
        raise ShapeError("matmul needs tensors of rank at least 1")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if not same(a2[-1], b2[-2]):
        raise ShapeError(
            f"matmul of {format_shape(a)} and {format_shape(b)}: inner dimensions "
            f"{format_dim(a2[-1])} and {format_dim(b2[-2])} differ"
        )
    batch = broadcast(a2[:-2], b2[:-2])
    out = batch + (a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return out


def index(shape: Shape, key) -> Shape:
    """Shape after ``tensor[key]`` for ints, slices, None, Ellipsis and shape-known index tensors."""
    items = list(key) if isinstance(key, tuple) else [key]
    consumed = sum(1 for k in items if k is not None and k is not Ellipsis)
    if consumed > len(shape):
        raise ShapeError(f"too many indices ({consumed}) for a tensor of rank {len(shape)}")
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items = items[:at] + [slice(None)] * (len(shape) - consumed) + items[at + 1:]
    # Several index tensors are one advanced index: their shapes broadcast together, and the
    # result goes where the first one stands if the advanced indices (tensors and integers) are
    # adjacent, else in front (NumPy's rule, which torch follows): padding_mask[b, kv] with b of
    # Bx1x1x1 and kv of 1x1x1xK is Bx1x1xK.
    arrays = [item for item in items if isinstance(item, IndexArray)]
    joint = broadcast(*(a.shape for a in arrays)) if len(arrays) > 1 else None
    advanced = [i for i, item in enumerate(items) if isinstance(item, IndexArray)
                or isinstance(item, (int, Expr)) and not isinstance(item, bool)]
    in_front = joint is not None and advanced != list(range(advanced[0], advanced[-1] + 1))
    out: list = []
    position = 0
    for item in items:
        if item is None:
            out.append(1)
            continue
        size = shape[position]
        position += 1
        if isinstance(item, slice):
            out.append(slice_length(size, item))
        elif isinstance(item, (int, Expr)) and not isinstance(item, bool):
            if isinstance(item, int) and isinstance(size, int) and not -size <= item < size:
                raise ShapeError(f"index {item} is out of range for a dimension of size {size}")
        elif isinstance(item, IndexArray):
            if joint is None:
                out.extend(item.shape)
            elif item is arrays[0] and not in_front:
                out.extend(joint)
        else:
            raise ShapeError(f"unsupported index {item!r}")
    out.extend(shape[position:])
    return tuple(joint) + tuple(out) if in_front else tuple(out)


def slice_length(size: Dim, item: slice) -> Dim:
    start, stop, step = item.start, item.stop, item.step
    step = 1 if step is None else step
    if isinstance(size, int) and all(isinstance(v, (int, type(None))) for v in (start, stop)):
        return len(range(size)[slice(start, stop, step)])
    if start in (None, 0) and stop is None and step == 1:
        return size
    # Symbolic size: resolve negative bounds against it and assume they fall inside.
    lo = 0 if start is None else (size + start if isinstance(start, int) and start < 0 else start)
    hi = size if stop is None else (size + stop if isinstance(stop, int) and stop < 0 else stop)
    length = hi - lo
    return length if step == 1 else -((-length) // step)


def _show(dims) -> str:
    return "x".join(format_dim(d) for d in dims)
