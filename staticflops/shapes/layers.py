"""Output shapes of each op kind, given its normalised attributes and input shapes.

Each function returns ``(outputs, facts)``: the output shapes and derived quantities that
rule formulas use (sequence length, batch size, einsum index sizes).  Costs are *not* here:
they live in ``rules/*.yaml``.
"""

from __future__ import annotations

from staticflops.diagnostics import reason
from staticflops.shapes.expr import Dim, Expr, format_dim
from staticflops.shapes.shape import Shape, format_shape, numel
from staticflops.shapes.layout import channels_last, expect_rank, expect_size
from staticflops.shapes.tensor_ops import ShapeError, broadcast, matmul, normalize_dim, same
from staticflops.shapes.windows import conv_output_size, non_negative, positive, pool_output_size, same_output_size  # noqa: F401

SHAPE_FUNCTIONS: dict = {}


def shape_function(*kinds: str):
    def register(fn):
        for kind in kinds:
            SHAPE_FUNCTIONS[kind] = fn
        return fn
    return register


def infer(kind: str, attrs: dict, inputs: list) -> tuple[list, dict]:
    fn = SHAPE_FUNCTIONS.get(kind)
    if fn is None:
        raise KeyError(kind)
    try:
        outputs, facts = fn(attrs, inputs)
    except (TypeError, ValueError, ArithmeticError) as error:
        # the attributes are the model's own arguments: a string or 0 where PyTorch wants a size
        raise ShapeError(f"cannot compute the output shape from these arguments ({reason(error)})") from None
    for shape in outputs:
        for dim in shape or ():
            if isinstance(dim, bool) or not isinstance(dim, (int, Expr)):
                raise ShapeError(f"a size must be an integer, got {dim!r}")
            if isinstance(dim, int) and dim < 0:
                raise ShapeError(f"negative size {dim} in the output shape {format_shape(shape)}")
    return outputs, facts


# The checks under their old names: shapes/keras_layers.py imports them from here.
_expect_rank, _expect = expect_rank, expect_size


@shape_function("abs", "exp", "log", "sqrt", "rsqrt", "neg",
                "sin", "cos", "clamp", "erf", "round", "floor", "ceil", "sign")
def _same_shape(attrs, inputs):
    return [inputs[0]], {}


@shape_function("add", "sub", "mul", "div", "pow", "maximum", "minimum", "compare", "where", "polar")
def _elementwise(attrs, inputs):
    return [broadcast(*inputs)], {}


_positive, _non_negative = positive, non_negative


def _conv(attrs, inputs):
    """The `conv` kind's shape (kinds/conv.py), for shapes/keras_layers.py's separable_conv,
    which imports it from here: looked up in the registry, as this stage never imports kinds/."""
    return SHAPE_FUNCTIONS["conv"](attrs, inputs)


@shape_function("matmul")
def _matmul(attrs, inputs):
    a, b = inputs[0], inputs[1]
    inner = a[-1]
    return [matmul(a, b)], {"inner": inner}


# The operand ranks each of torch's add-a-product ops takes (input is broadcast to the result).
_ADD_PRODUCT_RANKS = {"addmm": (2, 2), "baddbmm": (3, 3), "addbmm": (3, 3), "addmv": (2, 1)}


@shape_function("add_product")
def _add_product(attrs, inputs):
    op = attrs["op"]
    base, a, b = inputs
    if (len(a), len(b)) != _ADD_PRODUCT_RANKS[op]:
        ranks = "-D and ".join(str(r) for r in _ADD_PRODUCT_RANKS[op])
        raise ShapeError(f"{op} expects {ranks}-D operands, got {format_shape(a)} and {format_shape(b)}")
    if op in ("baddbmm", "addbmm"):
        _expect(b[0], a[0], op + ": batch sizes {wanted} and {actual} differ")
    product = matmul(a, b)
    result = product[1:] if op == "addbmm" else product  # addbmm sums over the batch
    if broadcast(base, result) != tuple(result):
        raise ShapeError(f"{op}: input {format_shape(base)} does not broadcast to the result {format_shape(result)}")
    return [result], {"inner": a[-1], "products": numel(product) * a[-1]}


@shape_function("einsum")
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


@shape_function("cumulative", "normalize")
def _along_dim(attrs, inputs):
    return [inputs[0]], {}


@shape_function("sort")
def _sort(attrs, inputs):
    """sort / argsort / topk along ``dim``; ``comparisons`` = n * ceil(log2 n) per row for a
    full sort, n * ceil(log2 k) for the k largest (a heap of k), for rule sets that count them."""
    x = inputs[0]
    axis = attrs["dim"]
    n = x[axis] if x else 1
    k = attrs.get("k")
    if k is not None:
        if isinstance(k, int) and isinstance(n, int) and not 0 <= k <= n:
            raise ShapeError(f"k ({k}) is out of range for a dimension of size {n}")
        out = x[:axis] + (k,) + x[axis + 1:] if x else x
    else:
        out = x
    depth = k if k is not None else n
    log = (depth - 1).bit_length() if isinstance(depth, int) and depth > 1 else 0
    rows = numel(x) // n if x and isinstance(n, int) and n else numel(x)
    return [out], {"comparisons": rows * (n if x else 1) * log}


@shape_function("scatter_add")
def _scatter_add(attrs, inputs):
    return [inputs[0]], {}


@shape_function("reduce")
def _reduce(attrs, inputs):
    from staticflops.shapes.tensor_ops import reduce
    return [reduce(inputs[0], attrs.get("dim"), attrs.get("keepdim", False))], {}


# Keras' recurrent layers share the rnn/gru/lstm kinds (kinds/recurrent.py) but are batch-major:
# keras_layers.py puts its shape rule here (as it registers its own kinds), where the kind reads it.
BATCH_MAJOR_RECURRENT: dict = {}

