"""Contents of small tensors whose values are known while the model is built.

Some model code computes its architecture with tensor maths: RegNet's width schedule is
``torch.round(torch.log(torch.arange(depth) * w_a + w_0) ...).int().tolist()``.  Tensors made
from known numbers (``arange``, ``tensor([...])``) carry their values (flat, row-major) through
elementwise maths, with float32 rounding after every step as PyTorch's default dtype does,
so ``.tolist()`` / ``.item()`` give the numbers the real code would see.
"""

from __future__ import annotations

import math
import operator
import struct

from staticflops.frontend.values import Tensor

MAX_VALUES = 1 << 16  # larger tensors keep only their shape

_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
           "pow": operator.pow, "maximum": max, "minimum": min,
           # priced as divisions, valued as torch rounds them: `//` and rounding_mode="floor" floor
           # as Python does, `%` (torch.remainder) takes the divisor's sign as Python's does
           "floordiv": operator.floordiv, "mod": operator.mod,
           "truncdiv": lambda a, b: (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)
           if isinstance(a, int) and isinstance(b, int) else float(math.trunc(a / b))}

_UNARY = {"log": math.log, "exp": math.exp, "sqrt": math.sqrt, "abs": abs, "neg": operator.neg,
          "round": lambda v: float(round(v)), "floor": lambda v: float(math.floor(v)),
          "ceil": lambda v: float(math.ceil(v))}


def float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def fit(values: list, dtype: str) -> list:
    if dtype == "int64":
        return [int(v) for v in values]
    if dtype == "bool":
        return [bool(v) for v in values]
    return [float32(float(v)) for v in values]


def repeated(value, count: int, dtype: str) -> list:
    """``count`` copies of ``value`` as ``fit`` would give them: converted once, not per element
    (``torch.ones(4096)`` in every norm layer of a large model)."""
    return fit([value], dtype) * count


def flat(value, out: tuple | None = None):
    """The known values of a tensor or Python number, or None; with ``out`` (the broadcast shape
    of an elementwise op), a tensor's values broadcast to it."""
    if isinstance(value, Tensor):
        if out is not None and value.values is not None and value.shape is not None and tuple(value.shape) != tuple(out):
            return expanded(value.values, tuple(value.shape), tuple(out))
        return value.values
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [value]
    return None


_INTEGER = ("int64", "int32", "bool")
_FLOAT_RANK = {"float16": 1, "bfloat16": 1, "float32": 2, "float64": 3}


def binary_dtype(kind: str, left, right) -> str:
    """torch's type promotion, for what the values need: a tensor's floating dtype wins over a
    Python number (float16 + 0.5 stays float16), two floating tensors give the wider (float16
    with bfloat16: float32), integers stay int64 unless a float or a true division is involved."""
    floats = [v.dtype for v in (left, right) if isinstance(v, Tensor) and v.dtype not in _INTEGER]
    if floats:
        widest = max(floats, key=lambda d: _FLOAT_RANK.get(d, 2))
        return "float32" if len(set(floats)) > 1 and _FLOAT_RANK.get(widest) == 1 else widest
    if kind == "div" or any(isinstance(v, float) for v in (left, right)):
        return "float32"
    return "int64"


def binary_values(kind: str, left, right, dtype: str, out: tuple | None = None):
    a, b = flat(left, out), flat(right, out)
    if a is None or b is None or kind not in _BINARY:
        return None
    if len(a) != len(b):
        if len(a) == 1:
            a = a * len(b)
        elif len(b) == 1:
            b = b * len(a)
        else:
            return None  # broadcasting between shapes: not needed for what model code computes
    try:
        return fit([_BINARY[kind](x, y) for x, y in zip(a, b)], dtype)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


_COMPARE = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
            "ge": operator.ge, "greater": operator.gt, "greater_equal": operator.ge, "less": operator.lt,
            "less_equal": operator.le, "not_equal": operator.ne}


def compare_values(name, left, right, out: tuple | None = None) -> list | None:
    """Known values of a comparison of known values (``index == 8`` decides an ``if``)."""
    a, b = flat(left, out), flat(right, out)
    if a is None or b is None or name not in _COMPARE or (len(a) != len(b) and 1 not in (len(a), len(b))):
        return None
    a, b = (a * len(b) if len(a) == 1 else a), (b * len(a) if len(b) == 1 else b)
    return [bool(_COMPARE[name](x, y)) for x, y in zip(a, b)]


def unary_values(name: str, tensor) -> list | None:
    values = flat(tensor)
    if values is None or name not in _UNARY:
        return None
    try:
        result = [_UNARY[name](v) for v in values]
    except (ValueError, OverflowError):
        return None
    dtype = tensor.dtype if isinstance(tensor, Tensor) else "float32"
    return fit(result, "float32" if name in ("log", "exp", "sqrt") else dtype)


def nested(values: list, shape: tuple):
    """Row-major values as the nested lists ``tolist()`` returns."""
    if not shape:
        return values[0]
    step = len(values) // shape[0] if shape[0] else 0
    return [nested(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def known(shape: tuple, values: list | None) -> list | None:
    """``values`` if they are a tensor of ``shape``'s contents, else None: elementwise maths on
    flat values is right only when no operand was broadcast along a dimension, which the count
    tells (a (32, 1) == (1, 32) comparison has 1,024 results, not the 32 pairs of a zip)."""
    if values is None or not all(isinstance(d, int) for d in shape):
        return None
    count = 1
    for d in shape:
        count *= d
    return values if len(values) == count and count <= MAX_VALUES else None


def padded(values: list | None, shape: tuple, amounts: list, fill) -> list | None:
    """The values of ``F.pad(x, amounts, value=fill)`` (constant mode) for a tensor of ``shape``:
    ``amounts`` pairs (before, after) from the last dim backwards, each non-negative; None when
    a size or a pad is not a known non-negative int."""
    if known(shape, values) is None or not all(type(a) is int and a >= 0 for a in amounts) or \
            type(fill) not in (int, float, bool):
        return None
    pads = [(0, 0)] * (len(shape) - len(amounts) // 2) + \
        [(amounts[2 * i], amounts[2 * i + 1]) for i in reversed(range(len(amounts) // 2))]
    out = 1
    for d, (before, after) in zip(shape, pads):
        out *= d + before + after
    if out > MAX_VALUES:
        return None

    def pad(flat, dims, pairs):
        if not dims:
            return flat
        step = len(flat) // dims[0] if dims[0] else 0
        inner = 1
        for d, (b, a) in zip(dims[1:], pairs[1:]):
            inner *= d + b + a
        rows = [pad(flat[i * step:(i + 1) * step], dims[1:], pairs[1:]) for i in range(dims[0])]
        before, after = pairs[0]
        return [fill] * (before * inner) + [v for row in rows for v in row] + [fill] * (after * inner)
    return pad(list(values), tuple(shape), pads)


def _point_lists(key, shape: tuple) -> list | None:
    """``t[(rows, cols)]`` with one 1-D int64 tensor of known values per dim, all as long: the
    element coordinates they list (as lists), else None."""
    if not isinstance(key, tuple) or len(key) != len(shape) or len(key) < 2:
        return None
    lists = []
    for item in key:
        if not (isinstance(item, Tensor) and item.dtype == "int64" and item.values is not None
                and item.shape is not None and len(item.shape) == 1):
            return None
        lists.append(list(item.values))
    return lists if len({len(each) for each in lists}) == 1 else None


def _points(shape: tuple, lists: list) -> list | None:
    """Row-major positions of the coordinates ``zip(*lists)`` (negative ones count from the end)."""
    positions = []
    for point in zip(*lists):
        flat_index = 0
        for size, at in zip(shape, point):
            if not -size <= at < size:
                return None
            flat_index = flat_index * size + at % size
        positions.append(flat_index)
    return positions


def assigned(values: list | None, shape: tuple, key, value, dtype: str) -> list | None:
    """The values of a tensor after ``tensor[key] = value``, for the keys ``indexed`` follows
    and a number or a tensor of known values (one per written element, or a single one); None
    when that is not known (the old values would be stale)."""
    if known(shape, values) is None:
        return None
    positions = indexed(list(range(len(values))), shape, key) if not _point_lists(key, shape) else \
        _points(shape, _point_lists(key, shape))
    if positions is None or len(set(positions)) != len(positions):
        return None  # a key not followed, or one that writes an element twice
    if type(value) in (int, float, bool):
        written = [value] * len(positions)
    elif isinstance(value, Tensor) and value.values is not None and len(value.values) in (1, len(positions)):
        written = list(value.values) * (len(positions) if len(value.values) == 1 else 1)
    else:
        return None
    result = list(values)
    for position, item in zip(positions, fit(written, dtype)):
        result[position] = item
    return result


def overwritten(shape: tuple, dtype: str, source) -> list | None:
    """The values of a tensor of ``shape`` after ``copy_(source)`` or ``fill_(source)``: a
    number or a tensor of known values broadcast to it, cast to ``dtype``; None when that is
    not known (transformers' ``init.copy_`` writes a conv's stride into its buffer this way)."""
    if isinstance(source, bool) or not isinstance(source, (int, float, Tensor)) or \
            not all(type(d) is int for d in shape):
        return None
    count = 1
    for d in shape:
        count *= d
    if count > MAX_VALUES:
        return None
    values = [source] * count if not isinstance(source, Tensor) else flat(source, tuple(shape))
    return fit(values, dtype) if known(shape, values) is not None else None


def flipped(values: list | None, shape: tuple, dims) -> list | None:
    """The values of ``flip(dims)``: each listed dim read backwards."""
    if known(shape, values) is None or not shape:
        return None
    dims = [dims] if type(dims) is int else list(dims)
    if not all(type(d) is int and -len(shape) <= d < len(shape) for d in dims):
        return None
    axes = {d % len(shape) for d in dims}

    def walk(item, axis):
        if axis == len(shape):
            return item
        rows = [walk(row, axis + 1) for row in item]
        return rows[::-1] if axis in axes else rows
    return _flatten(walk(nested(values, shape), 0))


def reduced_along(values: list | None, shape: tuple, axis, fn) -> list | None:
    """``fn`` over one dim of a tensor of known values (``mask.sum(-1)``): the results in
    row-major order of the remaining dims (keepdim only adds a size-1 dim: the same order)."""
    if known(shape, values) is None or not shape:
        return None
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if type(axis) is not int or not -len(shape) <= axis < len(shape):
        return None
    axis %= len(shape)
    outer = 1
    for size in shape[:axis]:
        outer *= size
    inner = 1
    for size in shape[axis + 1:]:
        inner *= size
    length = shape[axis]
    if length == 0:
        return None
    return [fn([values[(o * length + k) * inner + i] for k in range(length)])
            for o in range(outer) for i in range(inner)]


def reshaped(values: list | None, shape: tuple) -> list | None:
    """The values of a view/reshape/unsqueeze/squeeze to ``shape``: row-major order is kept."""
    return known(shape, values)


def indexed(values: list | None, shape: tuple, key) -> list | None:
    """The values of ``tensor[key]`` for ints, slices, None and ``...`` (basic indexing), or None
    (a tensor or list index: advanced indexing is not followed)."""
    if values is None or not all(isinstance(d, int) for d in shape):
        return None
    items = list(key) if isinstance(key, tuple) else [key]
    # one 1-D index of known ints (a list, or a tensor with its values: `mask[:, indices]`) is
    # followed too: its axis keeps its place, as with a single advanced index in torch
    for at, item in enumerate(items):
        if isinstance(item, Tensor) and item.dtype == "int64" and item.values is not None and \
                item.shape is not None and len(item.shape) == 1:
            items[at] = list(item.values)
    if sum(type(i) is list for i in items) > 1 or any(type(i) is list and not all(type(v) is int for v in i)
                                                       for i in items):
        return None
    if any(not (type(i) in (int, list) or isinstance(i, slice) or i is None or i is Ellipsis) for i in items):
        return None
    if any(isinstance(i, slice) and not all(v is None or type(v) is int for v in (i.start, i.stop, i.step))
           for i in items):
        return None
    if items.count(Ellipsis) > 1:
        return None
    if Ellipsis in items:
        at = items.index(Ellipsis)
        fill = len(shape) - (len(items) - 1 - items.count(None))
        items[at:at + 1] = [slice(None)] * max(fill, 0)

    def walk(nested_value, keys):
        if not keys:
            return nested_value
        first, rest = keys[0], keys[1:]
        if first is None:
            return [walk(nested_value, rest)]
        if type(first) is int:
            return walk(nested_value[first], rest)
        if type(first) is list:
            return [walk(nested_value[i], rest) for i in first]
        return [walk(item, rest) for item in nested_value[first]]

    try:
        picked = walk(nested(values, shape), items)
    except (IndexError, TypeError):
        return None
    return _flatten(picked)


def _flatten(value) -> list:
    if not isinstance(value, list):
        return [value]
    found = []
    for item in value:
        found.extend(_flatten(item))
    return found


def along_last(values: list | None, shape: tuple, fn) -> list | None:
    """``fn(row) -> new row`` applied to every row along the last dimension (diff, cumsum)."""
    if values is None or not shape or not all(isinstance(d, int) for d in shape) or not shape[-1]:
        return None
    width = shape[-1]
    result = []
    for start in range(0, len(values), width):
        result.extend(fn(values[start:start + width]))
    return result


def running_total(row: list) -> list:
    total, found = 0, []
    for value in row:
        total += value
        found.append(total)
    return found


def tiled(values: list | None, shape: tuple, repeats: list, out: tuple) -> list | None:
    """The values of ``x.repeat(*repeats)``: the whole block copied along each dimension (new
    leading dimensions for extra repeats)."""
    if values is None or not all(type(r) is int for r in repeats) or len(repeats) < len(shape):
        return None
    padded = (1,) * (len(repeats) - len(shape)) + tuple(shape)
    if not all(type(d) is int for d in padded):
        return None

    def tile(block, reps):
        if not reps:
            return block
        return [tile(item, reps[1:]) for item in block] * reps[0]

    return known(out, _flatten(tile(nested(values, padded), list(repeats))))


def expanded(values: list | None, shape: tuple, out: tuple) -> list | None:
    """The values of ``x.expand(*out)``: each size-1 dimension broadcast to the new size."""
    if values is None or not all(type(d) is int for d in (*shape, *out)):
        return None
    padded = (1,) * (len(out) - len(shape)) + tuple(shape)

    def grow(block, dims):
        if not dims:
            return block
        (size, wanted), rest = dims[0], dims[1:]
        items = [grow(item, rest) for item in block]
        return items * wanted if size == 1 else items

    return known(out, _flatten(grow(nested(values, padded), list(zip(padded, out)))))


# ---- tensors whose last size is a symbol ---------------------------------------------------
# Their values cannot be listed, but what model code computes from positions often has a
# simple form along the last dimension: arange(T) is start 0, step 1; its first differences
# all 1; `!= 1` of those all False; a running sum of zeros all 0.  A *progression* (start,
# step) says element [..., j] is start + step * j for every leading index; step 0 is a
# tensor of one value.  Integer and boolean tensors only, so every value is exact.  What
# becomes small enough to list (`positions[:, :1]`, `mask[:, -1]`) is listed as ``values``.

_EXACT = ("int64", "bool")


def progression(value) -> tuple | None:
    """The (start, step) known of a tensor, or of a number (one value everywhere), or None."""
    if isinstance(value, Tensor):
        if value.progression is not None:
            return value.progression
        known_values = value.values
        if known_values and value.dtype in _EXACT and all(v == known_values[0] for v in known_values):
            return known_values[0], 0
        return None
    if type(value) is int or type(value) is bool:
        return value, 0
    return None


def settle(tensor, found: tuple | None):
    """Give ``tensor`` the progression ``found``: listed as its values when its shape is
    concrete and small, kept as a progression otherwise.  Returns the tensor."""
    if found is None or tensor.dtype not in _EXACT or tensor.shape is None:
        return tensor
    start, step = found
    if tensor.dtype == "bool" and step:
        return tensor
    if all(type(d) is int for d in tensor.shape):
        count = math.prod(tensor.shape)
        if count <= MAX_VALUES:
            width = tensor.shape[-1] if tensor.shape else 1
            row = [start + step * j for j in range(width)]
            tensor.values = fit(row * (count // width) if width else [], tensor.dtype)
        return tensor
    tensor.progression = (bool(start), 0) if tensor.dtype == "bool" else (int(start), int(step))
    return tensor


def _along_last(value, out: tuple) -> bool:
    """Whether ``value`` spans ``out``'s last dimension itself (it is not broadcast along it)."""
    shape = value.shape if isinstance(value, Tensor) else None
    return bool(shape) and bool(out) and shape[-1] == out[-1]


def binary_progression(kind: str, left, right, dtype: str, out: tuple) -> tuple | None:
    """``left <kind> right`` for progressions: sums and differences term by term, a product
    when one side is a single value."""
    a, b = progression(left), progression(right)
    if a is None or b is None or dtype not in _EXACT:
        return None
    for operand, (_, step) in ((left, a), (right, b)):
        if step and not _along_last(operand, out):
            return None  # a progression spread along another dimension by broadcasting
    if kind == "add":
        return a[0] + b[0], a[1] + b[1]
    if kind == "sub":
        return a[0] - b[0], a[1] - b[1]
    if kind == "mul" and (a[1] == 0 or b[1] == 0):
        return a[0] * b[0], a[0] * b[1] + a[1] * b[0]
    return None


def compare_progression(name: str, left, right) -> tuple | None:
    """A comparison of two tensors of one value each: one known truth everywhere."""
    a, b = progression(left), progression(right)
    if a is None or b is None or a[1] or b[1] or name not in _COMPARE:
        return None
    return bool(_COMPARE[name](a[0], b[0])), 0


def kept_progression(tensor, shape: tuple) -> tuple | None:
    """A view, reshape, (un)squeeze to ``shape`` keeps the progression when the last size stays."""
    if not isinstance(tensor, Tensor) or tensor.progression is None or not tensor.shape or not shape:
        return None
    return tensor.progression if shape[-1] == tensor.shape[-1] else None


def indexed_progression(tensor, key) -> tuple | None:
    """``tensor[key]`` for basic indexing (ints, slices, None, ``...``): a slice of the last
    dimension from a known start is a progression again, one element of it a single value."""
    found = tensor.progression if isinstance(tensor, Tensor) else None
    if found is None or not tensor.shape:
        return None
    items = list(key) if isinstance(key, tuple) else [key]
    if any(not (type(i) is int or isinstance(i, slice) or i is None or i is Ellipsis) for i in items):
        return None  # a tensor or list index: advanced indexing
    if items.count(Ellipsis) > 1:
        return None
    addressed = len(items) - items.count(None) - items.count(Ellipsis)
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at:at + 1] = [slice(None)] * max(len(tensor.shape) - addressed, 0)
    elif addressed < len(tensor.shape):
        items += [slice(None)] * (len(tensor.shape) - addressed)
    last = max(at for at, item in enumerate(items) if item is not None)
    start, step = found
    if any(item is None for item in items[last + 1:]) and step:
        return None  # a new last dimension: the progression is along another one now
    item = items[last]
    if type(item) is int:
        return (start + step * item, 0) if item >= 0 else (start, 0) if not step else None
    for part in (item.start, item.step):
        if part is not None and type(part) is not int:
            return None
    first, stride = item.start or 0, 1 if item.step is None else item.step
    if stride < 1 or (first < 0 and step):
        return None
    return (start + step * max(first, 0), step * stride) if step else (start, 0)


def diff_progression(bound: dict, x: tuple, axis: int) -> tuple | None:
    """``torch.diff`` along the last dimension of a progression, with a one-value ``prepend``:
    all ``step`` when the prepended values continue it (prepend ``start - step``)."""
    source = progression(bound["input"])
    if bound["n"] != 1 or axis != len(x) - 1 or bound["append"] is not None or source is None:
        return None
    start, step = source
    extra = bound["prepend"]
    if extra is None:
        return step, 0
    before = progression(extra)
    width = extra.shape[-1] if isinstance(extra, Tensor) and extra.shape else None
    if before is None or before[1] or type(width) is not int or width < 1:
        return None
    if width == 1:
        return (step, 0) if start - before[0] == step else None
    return (0, 0) if step == 0 and start == before[0] else None


def cast_progression(tensor, dtype: str) -> tuple | None:
    """The progression of ``tensor.to(dtype)`` (a move keeps it): integers stay exact, one value
    becomes a boolean; to floats it is dropped."""
    found = tensor.progression if isinstance(tensor, Tensor) else None
    if found is None:
        return None
    if dtype == "int64":
        return int(found[0]), int(found[1])
    if dtype == "bool" and not found[1]:
        return bool(found[0]), 0
    return None


def running_progression(tensor) -> tuple | None:
    """The running sum along the last dimension of one value c: c, 2c, 3c, ..."""
    found = progression(tensor) if isinstance(tensor, Tensor) else None
    if found is None or found[1]:
        return None
    return int(found[0]), int(found[0])
