"""``einops.rearrange/reduce/repeat/einsum/pack/unpack/parse_shape`` on symbolic tensors.

The pattern algebra is ``shapes.einops_patterns``.  What computes is recorded as the kind
torch would run: ``reduce`` as the tensor reductions einops calls (``amin``/``amax``/``sum``/
``mean``, one ``prod``/``any``/``all`` per axis), ``einsum`` as ``torch.einsum``.  rearrange,
repeat, pack and unpack are reshapes, permutes, expands and concatenations: data movement,
which records nothing, as for torch's own view/permute/cat.
"""

from __future__ import annotations

from staticflops.diagnostics import AnalysisError
from staticflops.frontend.values import CannotKnow, Tensor, Unknown
from staticflops.shapes import einops_patterns as patterns
from staticflops.shapes.einops_patterns import PatternError, PatternUndecided
from staticflops.shapes.tensor_ops import ShapeError, stack

# einops' torch backend: the tensor method each reduction calls.
_TORCH_REDUCTION = {"min": "amin", "max": "amax", "sum": "sum", "mean": "mean"}


class EinopsFunctions:
    """Implements each einops function once; the namespaces and layer stubs expose them."""

    def __init__(self, framework):
        self.framework = framework

    # ---- helpers ------------------------------------------------------------------------
    def _fail(self, interp, label: str, pattern, error: Exception, node):
        raise AnalysisError(f"{label}({pattern!r}): {error}", interp.location(node), "SF301") from None

    def _input_shape(self, interp, value, node):
        """A tensor, or a list of same-shaped tensors that einops stacks on a new first axis."""
        if isinstance(value, (list, tuple)):
            shapes = [self.framework.ops.shape_of(interp, v, node) for v in value]
            if not shapes:
                raise CannotKnow("an empty list of tensors")
            return stack(shapes, 0), next((v.dtype for v in value if isinstance(v, Tensor)), "float32")
        return self.framework.ops.shape_of(interp, value, node), getattr(value, "dtype", "float32")

    @staticmethod
    def _unknown_length(axes_lengths: dict):
        return next((v for v in axes_lengths.values() if isinstance(v, Unknown)), None)

    # ---- rearrange / reduce / repeat ----------------------------------------------------------
    def apply(self, interp, tensor, pattern, operation, axes_lengths: dict, label: str, node):
        """``label`` names the call in messages: ``rearrange``, or the layer ``Rearrange``."""
        if isinstance(pattern, Unknown) or isinstance(operation, Unknown):
            return pattern if isinstance(pattern, Unknown) else operation
        if unknown := self._unknown_length(axes_lengths):
            return interp.unknown(f"{label}({pattern!r}): an axis length is unknown ({unknown.reason})", node)
        if not isinstance(pattern, str):
            raise AnalysisError(f"{label}: the pattern must be a string, got {pattern!r}", interp.location(node), "SF301")
        try:
            shape, dtype = self._input_shape(interp, tensor, node)
        except CannotKnow as why:
            return interp.unknown(f"{label}({pattern!r}) on {why}", node)
        except ShapeError as error:
            self._fail(interp, label, pattern, error, node)
        if callable(operation) or not isinstance(operation, str):
            return interp.unknown(f"{label}({pattern!r}) with a custom reduction is not modelled", node)
        try:
            plan = patterns.transform(shape, pattern, operation, axes_lengths)
        except PatternError as error:
            self._fail(interp, label, pattern, error, node)
        except PatternUndecided as why:
            return interp.unknown(f"{label}({pattern!r}): cannot decide {why}", node)
        if operation in patterns.REDUCTIONS and plan.reduced:
            self._record_reduction(interp, operation, plan, label, node)
        return Tensor(plan.output, dtype)  # requires_grad: set by the caller's wrapper, as for torch ops

    def _record_reduction(self, interp, operation, plan, label, node):
        ops = self.framework.ops
        if operation in _TORCH_REDUCTION:
            name = _TORCH_REDUCTION[operation]
            ops.record(interp, "reduce", f"{label}:{name}", {"op": name, "dim": tuple(plan.reduced), "keepdim": False},
                       [plan.elementary], node)
            return
        shape = list(plan.elementary)
        for axis in sorted(plan.reduced, reverse=True):  # torch reduces these one axis at a time
            ops.record(interp, "reduce", f"{label}:{operation}", {"op": operation, "dim": axis, "keepdim": False},
                       [tuple(shape)], node)
            del shape[axis]

    def rearrange(self, interp, args, kwargs, node):
        tensor, pattern, lengths = _bind(args, kwargs, ("tensor", "pattern"))
        return self.apply(interp, tensor, pattern, "rearrange", lengths, "rearrange", node)

    def repeat(self, interp, args, kwargs, node):
        tensor, pattern, lengths = _bind(args, kwargs, ("tensor", "pattern"))
        return self.apply(interp, tensor, pattern, "repeat", lengths, "repeat", node)

    def reduce(self, interp, args, kwargs, node):
        tensor, pattern, reduction, lengths = _bind(args, kwargs, ("tensor", "pattern", "reduction"))
        return self.apply(interp, tensor, pattern, reduction, lengths, "reduce", node)

    # ---- einsum -------------------------------------------------------------------------------
    def einsum(self, interp, args, kwargs, node, label="einsum"):
        if len(args) < 2 or not isinstance(args[-1], str):
            if args and isinstance(args[-1], Unknown):
                return args[-1]
            raise AnalysisError(f"{label}: give the tensors first, then the pattern", interp.location(node), "SF301")
        pattern, operands = args[-1], list(args[:-1])
        try:
            shapes = [self.framework.ops.shape_of(interp, x, node) for x in operands]
        except CannotKnow as why:
            return interp.unknown(f"{label}({pattern!r}) on {why}", node)
        try:
            equation = patterns.einsum_equation(pattern, shapes)
        except PatternError as error:
            self._fail(interp, label, pattern, error, node)
        attrs = {"equation": equation, "operands": len(shapes)}
        try:
            return self.framework.ops.record(interp, "einsum", f"einops.{label}", attrs, shapes, node)
        except AnalysisError as error:  # name the pattern, not only the letter equation
            detail = error.message.split(": ", 1)[-1]
            raise AnalysisError(f"{label}({pattern!r}): {detail}", error.location, error.code) from None

    # ---- pack / unpack / parse_shape --------------------------------------------------------------
    def pack(self, interp, args, kwargs, node):
        tensors, pattern, _ = _bind(args, kwargs, ("tensors", "pattern"))
        if isinstance(tensors, Unknown):
            return tensors
        try:
            shapes = [self.framework.ops.shape_of(interp, t, node) for t in tensors]
        except CannotKnow as why:
            return interp.unknown(f"pack({pattern!r}) on {why}", node)
        try:
            out, packed = patterns.pack(shapes, pattern)
        except ShapeError as error:
            self._fail(interp, "pack", pattern, error, node)
        dtype = next((t.dtype for t in tensors if isinstance(t, Tensor)), "float32")
        return (Tensor(out, dtype), packed)

    def unpack(self, interp, args, kwargs, node):
        tensor, packed_shapes, pattern, _ = _bind(args, kwargs, ("tensor", "packed_shapes", "pattern"))
        for value in (packed_shapes, pattern):
            if isinstance(value, Unknown):
                return value
        try:
            shape = self.framework.ops.shape_of(interp, tensor, node)
            sizes = [tuple(_dims(ps)) for ps in packed_shapes]
        except CannotKnow as why:
            return interp.unknown(f"unpack({pattern!r}) on {why}", node)
        try:
            shapes = patterns.unpack(shape, sizes, pattern)
        except PatternError as error:
            self._fail(interp, "unpack", pattern, error, node)
        except PatternUndecided as why:
            return interp.unknown(f"unpack({pattern!r}): cannot decide {why}", node)
        return [Tensor(s, tensor.dtype) for s in shapes]

    def parse_shape(self, interp, args, kwargs, node):
        tensor, pattern, _ = _bind(args, kwargs, ("x", "pattern"))
        try:
            shape = self.framework.ops.shape_of(interp, tensor, node)
        except CannotKnow as why:
            return interp.unknown(f"parse_shape({pattern!r}) on {why}", node)
        try:
            return patterns.parse_shape(shape, pattern)
        except PatternError as error:
            self._fail(interp, "parse_shape", pattern, error, node)
        except PatternUndecided as why:
            return interp.unknown(f"parse_shape({pattern!r}): cannot decide {why}", node)

    def asnumpy(self, interp, args, kwargs, node):
        return args[0] if args else kwargs.get("tensor")

    # ---- EinMix ---------------------------------------------------------------------------------
    def einmix(self, interp, args, kwargs, node):
        """The stub's ``_einmix(pattern, weight_shape, bias_shape, axes_lengths)``: weight and
        bias shapes, einsum pattern and the rearranges around it."""
        pattern, weight_shape, bias_shape, lengths = args
        for value in (pattern, weight_shape, bias_shape, *lengths.values()):
            if isinstance(value, Unknown):
                raise CannotKnow(f"an EinMix argument is unknown ({value.reason})")
        try:
            mix = patterns.einmix(pattern, weight_shape, bias_shape, lengths)
        except PatternError as error:
            self._fail(interp, "EinMix", pattern, error, node)
        return (mix.weight, mix.bias, mix.equation, mix.pre, mix.pre_lengths, mix.post)

    def check(self, interp, args, kwargs, node):
        """The stub's ``_check(pattern, operation, axes_lengths, label)``: einops layers parse their
        pattern when built, so a malformed one fails at the constructor, as it does there."""
        pattern, operation, lengths, label = args
        if not isinstance(pattern, str) or not isinstance(operation, str):
            return None
        try:
            if pattern.count("->") != 1:
                raise PatternError("a pattern needs exactly one `->`")
            left_text, _, right_text = pattern.partition("->")
            left, right = patterns.parse_side(left_text), patterns.parse_side(right_text)
            if operation not in ("rearrange", "repeat", *patterns.REDUCTIONS):
                raise PatternError(f"unknown reduction {operation!r}, expected one of {', '.join(patterns.REDUCTIONS)}")
            if unused := set(lengths) - left.named() - right.named():
                raise PatternError(f"axes {', '.join(f'`{a}`' for a in sorted(unused))} are not used in the pattern")
        except PatternError as error:
            self._fail(interp, label, pattern, error, node)
        return None


def _bind(args, kwargs, names) -> list:
    """Positional-or-keyword leading parameters, then the remaining keywords (axis lengths)."""
    kwargs = dict(kwargs)
    values = [args[i] if i < len(args) else kwargs.pop(name, None) for i, name in enumerate(names)]
    return [*values, kwargs]


def _dims(packed) -> list:
    if isinstance(packed, Unknown):
        raise CannotKnow(packed.reason)
    if not isinstance(packed, (list, tuple)) or any(isinstance(d, Unknown) for d in packed):
        raise CannotKnow("packed shapes that are not known")
    return list(packed)
