"""One generation step over a key/value cache or a recurrent state (``--past-tokens P``).

A decoder that generates text runs its forward once per new token, over a cache of the keys
and values of every earlier token: the step's attention reads P + 1 positions, its other
layers only the new token.  Pricing the step means running the model as ``generate()`` does:
a first forward on P tokens with ``use_cache=True`` fills the cache (not counted: that is the
prompt's cost, what ``--input 1xP`` prices), then the traced forward takes the new tokens with
``past_key_values=`` that cache.  An encoder-decoder model (the new tokens given as
``decoder_input_ids``) runs its encoder in the first forward only: the step gets its output as
``encoder_outputs``, and its cross-attention keys and values come from the cache.

The model's own cache code runs both times, so whatever cache it keeps (transformers'
``DynamicCache``, sliding-window layers, a hand-written tuple of tensors) is what gets priced.
Nothing here knows a model: the argument and field names are transformers' conventions, which
hand-written decoders mostly share.

The cache's size after the step is the floating-point tensors it holds (the report prices
their bytes at ``--dtype``, as activations): for most decoders 2 × layers × B × kv-heads ×
(P + new) × head size.  A state-space or recurrent model (Mamba, RWKV) returns its state instead
(``cache_params``, ``state``), taken back under that name: a fixed size, whatever P.
"""

from __future__ import annotations

from staticflops.diagnostics import AnalysisError, BudgetExceeded, UsageError
from staticflops.frontend.values import Instance, Parameter, Tensor, Unknown, describe
from staticflops.shapes import InputSpec

# forward's keyword arguments and output fields, as transformers (and most hand-written
# decoders) name them.  The cache is the first of these the forward returns, and the step gets
# it back under the same name: attention's keys and values, or a state-space model's recurrent
# state (Mamba's convolution window and SSM state: a step's cost does not grow with P).
CACHE_ARGUMENTS = ("past_key_values", "cache_params", "state")
CACHE_ARGUMENT = CACHE_ARGUMENTS[0]
USE_CACHE = "use_cache"
DECODER_TOKENS = "decoder_input_ids"  # an encoder-decoder model's new tokens
ENCODER_STATE = "encoder_last_hidden_state"  # a seq2seq output's encoder result...
ENCODER_OUTPUTS = "encoder_outputs"  # ...which the step takes instead of running the encoder again


def prompt_inputs(inputs: list[InputSpec], keyword_inputs: dict, past) -> tuple[list, dict]:
    """The first forward's inputs: those given, with the new tokens' ids ``past`` long.  The new
    tokens are ``decoder_input_ids`` when given by keyword (an encoder-decoder model: its
    encoder's inputs stay as given), else the one positional input."""
    if DECODER_TOKENS in keyword_inputs:
        return list(inputs), {**keyword_inputs, DECODER_TOKENS: _lengthened(keyword_inputs[DECODER_TOKENS], past)}
    if len(inputs) != 1 or keyword_inputs:
        raise UsageError("--past-tokens takes the new tokens' ids: the one --input of a decoder (1x1:int64: one "
                         f"token per step), or --keyword-input {DECODER_TOKENS}=1x1:int64 beside an encoder's "
                         f"inputs (got {', '.join(map(str, inputs)) or 'no --input'}"
                         f"{', keyword inputs ' + ', '.join(keyword_inputs) if keyword_inputs else ''})")
    return [_lengthened(inputs[0], past)], {}


def _lengthened(spec: InputSpec, past) -> InputSpec:
    if len(spec.shape) != 2:
        raise UsageError(f"--past-tokens: the new tokens' ids are batch x tokens (1x1:int64), got {spec}")
    return InputSpec((spec.shape[0], past), spec.dtype, spec.fill)


def filled_cache(interp, root: Instance, prompt: list, keywords: dict, anchor, past=None) -> tuple:
    """((the output field it came in, the cache ``root`` returns after its forward on the prompt
    with ``use_cache=True``), the keyword arguments the step takes besides it: the encoder's
    output, which ``generate()`` computes once and hands to every step).  ``past``: P, for the
    message when that forward fails."""
    try:
        output = interp.call(root, prompt, {**keywords, USE_CACHE: True}, anchor)
    except AnalysisError as error:
        if isinstance(error, BudgetExceeded):
            raise
        # the step was never reached: say which forward failed (forward may not take use_cache)
        hint = "" if past is None or isinstance(past, int) else (
            f" (--past-tokens {past} is a name: a forward that loops over the prompt's tokens, as a state-space "
            "model's reference scan does, needs a number)")
        error.message = f"--past-tokens: the forward filling the cache (use_cache=True) failed: {error.message}{hint}"
        error.args = (error.message,)
        raise
    name, cache = _returned_cache(interp, output, anchor)
    if cache is None or isinstance(cache, Unknown):
        why = "none" if cache is None else describe(cache)
        # the model's class: where its forward is (a config.json's anchor is our generated expression)
        where = root.cls.location or (interp.location(anchor) if anchor is not None else None)
        raise AnalysisError(f"--past-tokens: {root.cls.name} returned no cache from forward(..., use_cache=True) "
                            f"({' or '.join(CACHE_ARGUMENTS)}: {why}), so there is no cache to run a step over",
                            where, "SF101")
    encoded = output[ENCODER_STATE] if isinstance(output, dict) and ENCODER_STATE in output else None
    return (name, cache), ({} if encoded is None else {ENCODER_OUTPUTS: (encoded,)})


def cache_after(interp, output, given, anchor):
    """The cache after the step: the one the step returns (a tuple cache is rebuilt each step),
    else the one it was given, ``(name, cache)`` (transformers' caches grow in place)."""
    _, returned = _returned_cache(interp, output, anchor)
    return given[1] if returned is None or isinstance(returned, Unknown) else returned


def _returned_cache(interp, output, anchor) -> tuple:
    """(the output field holding the cache, the cache), (the first field's name, None) if none."""
    if isinstance(output, tuple):  # (logits, past_key_values), the tuple convention
        return CACHE_ARGUMENT, output[1] if len(output) > 1 else None
    for name in CACHE_ARGUMENTS:
        if isinstance(output, dict):  # a ModelOutput, a dict: a field left None is not a key
            cache = output[name] if name in output else None
        elif isinstance(output, Instance):  # an output object with the attribute
            try:
                cache = interp.get_attribute(output, name, anchor)
            except AnalysisError:
                cache = None
        else:
            cache = None
        if cache is not None:
            return name, cache
    return CACHE_ARGUMENT, None


def step_keywords(cache: tuple, encoded: dict) -> dict:
    """forward's keyword arguments for the step: the filled cache ``(name, cache)`` under the
    name the forward returned it by, kept on, and the encoder's output when the model has one."""
    name, value = cache
    return {name: value, USE_CACHE: True, **encoded}


def cache_shapes(cache) -> list[tuple]:
    """Shapes of the floating-point tensors the cache holds, each once (a layer list, a tuple of
    (key, value) pairs, an object's attributes)."""
    shapes, seen, pending = [], set(), [cache]
    while pending:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, Tensor):  # a parameter the cache refers to is the model's, not the cache's
            if value.shape is not None and _floating(value.dtype) and not isinstance(value, Parameter):
                shapes.append(tuple(value.shape))
        elif isinstance(value, dict):
            pending.extend(reversed(list(value.values())))
        elif isinstance(value, (list, tuple)):
            pending.extend(reversed(value))
        if isinstance(value, Instance):
            pending.extend(reversed(list(value.attrs.values())))
    return shapes


def _floating(dtype: str) -> bool:
    return "float" in dtype or dtype in ("half", "double")
