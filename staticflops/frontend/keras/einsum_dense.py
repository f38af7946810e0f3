"""Keras ``layers.EinsumDense(equation, output_shape, activation=None, bias_axes=None)``: an
einsum of the input with a kernel, plus a bias over some output axes, then the activation, as
Keras 3's ``call`` runs it (so each piece is priced as the same op anywhere else: einsum, add,
the activation).

The weight shapes follow Keras's reading of the equation (``ab,bc->ac``, ``...b,bc->...c``
with the ellipsis on the left, or ``abc...,cd->abd...`` on the right): a kernel letter found
in the output takes ``output_shape``'s size there (the batch first, then the given sizes),
otherwise the input's size; the bias spans the output from its first bias letter on, 1 where
a letter is not a bias axis.
"""

from __future__ import annotations

import re

from staticflops.frontend.keras.ops import keras_einsum
from staticflops.frontend.values import Builtin, Class, Parameter, Tensor, Unknown

_SIGNATURE = "equation, output_shape, activation=None, bias_axes=None, **kwargs"
_FORMS = ((re.compile(r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)"), False),
          (re.compile(r"0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)"), True),
          (re.compile(r"([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0"), False))


class EquationError(ValueError):
    pass


def weight_shapes(equation: str, bias_axes, input_shape: tuple, output_shape) -> tuple:
    """(kernel shape, bias shape or None) for an input of ``input_shape``."""
    text = equation.replace("...", "0")
    for pattern, left_elided in _FORMS:
        match = pattern.fullmatch(text)
        if match:
            break
    else:
        raise EquationError(f"equation {equation!r} is not of the forms ab,bc->ac, ...b,bc->...c or ab...,bc->ac...")
    input_spec, weight_spec, output_spec = match.groups()
    elided = len(input_shape) - len(input_spec)
    output = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):
            output.insert(1, input_shape[i])
    elif elided > 0:
        output.extend(input_shape[len(input_shape) - elided:])
    if left_elided:
        input_at = {d: i + elided - len(input_shape) for i, d in enumerate(input_spec)}
        output_at = {d: i + elided for i, d in enumerate(output_spec)}
    else:
        input_at = {d: i for i, d in enumerate(input_spec)}
        output_at = {d: i for i, d in enumerate(output_spec)}
    kernel = []
    for letter in weight_spec:
        if letter in output_at:
            kernel.append(output[output_at[letter]])
        elif letter in input_at:
            kernel.append(input_shape[input_at[letter]])
        else:
            raise EquationError(f"kernel letter {letter!r} is in neither the input nor the output")
    if any(d is None for d in kernel):
        raise EquationError("a kernel size is left open (None) in output_shape")
    if bias_axes is None:
        return tuple(kernel), None
    offset = elided if left_elided else 0
    sizes = {letter: output[i + offset] for i, letter in enumerate(output_spec)}
    if any(letter not in output_spec for letter in bias_axes):
        raise EquationError(f"bias axes {bias_axes!r} are not all in the output {output_spec!r}")
    first = min(output_spec.find(letter) for letter in bias_axes)
    bias = [sizes[letter] if letter in bias_axes else 1 for letter in output_spec[first:]]
    if not left_elided:
        bias.extend([1] * max(elided, 0))
    return tuple(kernel), tuple(bias)


def explicit(equation: str, rank: int) -> str:
    """The equation with its ellipsis spelled as letters it does not use (one per elided axis)."""
    if "..." not in equation:
        return equation
    spare = [c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in equation]
    elided = rank - len(equation.split(",")[0].replace("...", ""))
    return equation.replace("...", "".join(spare[:max(elided, 0)]))


def einsum_dense_class(engine) -> Class:
    def init(interp, args, kwargs, node):
        layer = args[0]
        bound = interp.bind_signature(f"self, {_SIGNATURE}", "EinsumDense", args, kwargs, node)
        engine._base_init(layer, bound.get("kwargs", {}))
        layer.keras.extra.update(equation=bound["equation"], output_shape=bound["output_shape"],
                                 bias_axes=bound["bias_axes"],
                                 activation=engine._activation(interp, "EinsumDense", bound["activation"], node))

    def call(interp, args, kwargs, node):
        layer, x = args[0], args[1]
        extra = layer.keras.extra
        if not isinstance(x, Tensor) or x.shape is None:
            return interp.unknown("EinsumDense: input of unknown shape", node)
        parameters = layer.module.parameters
        if "kernel" not in parameters:
            if any(isinstance(extra[k], Unknown) for k in ("equation", "output_shape", "bias_axes")):
                return interp.unknown("EinsumDense arguments are unknown", node)
            try:
                kernel, bias = weight_shapes(extra["equation"], extra["bias_axes"], tuple(x.shape), extra["output_shape"])
            except (EquationError, IndexError, KeyError, TypeError) as error:
                raise interp.fail(f"EinsumDense: {error}", node, code="SF301") from None
            parameters["kernel"] = Parameter(kernel, owner=layer)
            if bias is not None:
                parameters["bias"] = Parameter(bias, owner=layer)
        f = engine.framework.functions
        y = keras_einsum(interp, engine.framework, extra["equation"], [x, parameters["kernel"]], node,
                         explicit=explicit(extra["equation"], len(x.shape)))
        if "bias" in parameters and isinstance(y, Tensor):
            y = f["add"](interp, [y, parameters["bias"]], {}, node)
        if extra["activation"] and isinstance(y, Tensor):
            y = engine.record(layer, extra["activation"], "EinsumDense(activation)", {}, [y.shape], node,
                              is_layer_call=False, tensors=[y])[0]
        return y

    methods = {"__init__": init, "call": call}
    return Class("EinsumDense", (engine.layer_class,), {k: Builtin(f"EinsumDense.{k}", v) for k, v in methods.items()})

