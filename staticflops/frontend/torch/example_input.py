"""PyTorch Lightning's convention for a model's sample input: ``__init__`` sets
``self.example_input_array`` (a tensor, or a tuple of tensors, one per ``forward`` argument).

When no ``--input`` (and, in folder mode, no ``# staticflops: input=`` comment) is given, the
shapes and dtypes of that attribute are the inputs.  The interpreter has already run the
constructor abstractly, so ``torch.randn(1, 3, 224, 224)`` is a tensor value of that shape (and
``torch.randint(0, V, (1, 64))`` an int64 one): nothing is executed or allocated.  A dict (the
keyword form) or a tensor whose shape is not known gives nothing: the usual error asks for
``--input``."""

from __future__ import annotations

from staticflops.frontend.function_objects import positional_parameters, unwrapped
from staticflops.frontend.values import Function, Instance, Parameter, Tensor
from staticflops.shapes import InputSpec
from staticflops.shapes.expr import Expr

# The second is where LightningModule's property setter keeps the value.
ATTRIBUTES = ("example_input_array", "_example_input_array")


def example_inputs(model) -> list[InputSpec]:
    """The model's ``example_input_array`` as input specs, or [] when it has none usable."""
    if not isinstance(model, Instance):
        return []
    stores = [model.attrs] + ([model.module.attrs] if model.module is not None else [])
    for name in ATTRIBUTES:
        value = next((store[name] for store in stores if name in store), None)
        if value is None:
            continue
        tensors = list(value) if isinstance(value, (tuple, list)) else [value]
        if tensors and all(_known(tensor) for tensor in tensors):
            return [InputSpec(tuple(tensor.shape), tensor.dtype) for tensor in tensors]
    return []


def _known(value) -> bool:
    return (isinstance(value, Tensor) and not isinstance(value, Parameter) and value.shape is not None
            and all(isinstance(d, Expr) or (isinstance(d, int) and not isinstance(d, bool) and d >= 0)
                    for d in value.shape))


# What a forward argument usually holds, by its conventional name (Hugging Face's models, nanoGPT's
# ``idx``): the ``--input`` spelling a user who gave none is shown first.  A name not here gets the
# image example; the parameter list beside it says what the model wants.
_SPELLINGS = (
    (lambda n: n.endswith("_ids") or n in ("ids", "idx", "tokens", "input_tokens"), "1x32:int64"),
    (lambda n: n.endswith("mask"), "1x32:int64=1"),
    (lambda n: n == "input_features", "1x80x3000"),
    (lambda n: n in ("input_values", "waveform", "audio"), "1x16000"),
)
_SHOWN_PARAMETERS = 5


def input_hint(model) -> str:
    """``.forward(input_ids, attention_mask, ...), in order, e.g. --input 1x32:int64``: the
    parameters of the model's forward (through ``functools.wraps`` wrappers) and an example for
    the first."""
    forward = None
    if isinstance(model, Instance):
        try:
            forward = unwrapped(model.cls.lookup("forward"))
        except KeyError:
            pass
    names = positional_parameters(forward)[1:] if isinstance(forward, Function) else []
    shown = ", ".join(names[:_SHOWN_PARAMETERS]) + (", ..." if len(names) > _SHOWN_PARAMETERS else "")
    example = next((spelling for matches, spelling in _SPELLINGS if names and matches(names[0])), "1x3x224x224")
    return f".forward({shown}), in order, e.g. --input {example}" if names else f".forward, e.g. --input {example}"

