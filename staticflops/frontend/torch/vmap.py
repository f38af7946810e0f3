"""``torch.vmap(func, in_dims=0, out_dims=0)``: ``func`` written for one example, run over a
dimension of its tensor arguments (transformers builds its attention masks so: four nested vmaps
of a mask function over batch, head, query and key indices).

The mapped function is called once, on the arguments with their mapped dimension removed, and
the size of that dimension is put back into each output at ``out_dims``.  What the function does
inside runs once per example in the analysis but on the whole batch in torch: every op it traced
gets the mapped size in front of its shapes, which prices a per-element op (a compare, an add, a
where) as torch runs it.  An op whose cost is not per element (a matmul, a reduction) would need
more than a leading dimension: its cost under vmap is a located unknown, never a guess."""

from __future__ import annotations

from staticflops.frontend.values import Builtin, Tensor, Unknown

# The kinds whose cost is a function of their broadcast shapes element by element, so a leading
# mapped dimension on inputs and outputs prices them as the batched op torch runs.
PER_ELEMENT = frozenset({
    "add", "sub", "mul", "div", "pow", "maximum", "minimum", "compare", "where", "neg", "abs", "exp", "log",
    "sqrt", "rsqrt", "sin", "cos", "clamp", "erf", "round", "floor", "ceil", "sign", "identity", "unary_math",
    "binary_math", "ternary_math",
})


def vmap(interp, args, kwargs, node):
    """``torch.vmap(func, in_dims=0, out_dims=0, randomness='error', *, chunk_size=None)``."""
    func = args[0] if args else kwargs.get("func")
    in_dims = args[1] if len(args) > 1 else kwargs.get("in_dims", 0)
    out_dims = args[2] if len(args) > 2 else kwargs.get("out_dims", 0)
    return Builtin("torch.vmap(...)", lambda i, a, k, n: _mapped_call(i, func, in_dims, out_dims, a, k, n),
                   bind_self=False)


def _mapped_call(interp, func, in_dims, out_dims, args, kwargs, node):
    dims = tuple(in_dims) if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
    if len(dims) != len(args):
        raise interp.fail(f"vmap: in_dims has {len(dims)} entries for {len(args)} arguments", node,
                          python="ValueError")
    examples, sizes = [], set()
    for value, dim in zip(args, dims):
        if dim is None:
            examples.append(value)
            continue
        if isinstance(value, Unknown):
            return value
        if not isinstance(value, Tensor) or value.shape is None or not isinstance(dim, int):
            return interp.unknown("torch.vmap over an argument that is not a tensor of known shape", node)
        rank = len(value.shape)
        if not -rank <= dim < rank:
            raise interp.fail(f"vmap: in_dim {dim} is out of range for a tensor of rank {rank}", node,
                              python="ValueError")
        dim %= rank
        sizes.add(value.shape[dim])
        examples.append(Tensor(tuple(value.shape[:dim]) + tuple(value.shape[dim + 1:]), value.dtype))
    if len(sizes) != 1:
        if not sizes:
            raise interp.fail("vmap: at least one argument must be mapped over (in_dims all None)", node,
                              python="ValueError")
        raise interp.fail(f"vmap: the mapped dimensions have different sizes {sorted(map(str, sizes))}", node,
                          python="ValueError")
    size = sizes.pop()
    ops = interp.framework.tracer.ops
    start = len(ops)
    result = interp.call(func, examples, kwargs, node)
    for op in ops[start:]:
        if op.kind not in PER_ELEMENT:
            return interp.unknown(f"`{op.label}` inside torch.vmap: its cost over the mapped dimension is not "
                                  "modelled (only per-element ops are)", node)
        op.inputs = [None if s is None else (size, *s) for s in op.inputs]
        op.outputs = [None if s is None else (size, *s) for s in op.outputs]
    return _stacked(interp, result, size, out_dims, node)


def _stacked(interp, result, size, out_dims, node):
    """The per-example result with the mapped dimension put back at ``out_dims``."""
    if isinstance(result, Unknown):
        return result
    if isinstance(result, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(result)
        return type(result)(_stacked(interp, r, size, d, node) for r, d in zip(result, dims))
    if not isinstance(result, Tensor) or result.shape is None or not isinstance(out_dims, int):
        return interp.unknown("torch.vmap of a function that does not return tensors of known shape", node)
    shape = tuple(result.shape)
    position = out_dims % (len(shape) + 1)
    return Tensor(shape[:position] + (size,) + shape[position:], result.dtype)
