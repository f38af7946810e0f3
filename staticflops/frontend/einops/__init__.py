"""einops, modelled like torch is (never read from site-packages): the functions on symbolic
shapes (``functions.py``) and the layers as stub source (``stubs/``) built on them."""

from __future__ import annotations

from pathlib import Path

from staticflops.frontend.einops.functions import EinopsFunctions
from staticflops.frontend.stub_source import run_stub
from staticflops.frontend.scope import MISSING
from staticflops.frontend.values import Builtin, Namespace

_FUNCTIONS = ("rearrange", "reduce", "repeat", "einsum", "pack", "unpack", "parse_shape", "asnumpy")
_LAYERS = ("Rearrange", "Reduce", "EinMix")
_STUBS = Path(__file__).parent / "stubs"


def einops_namespaces(framework, interp, layer_bindings: dict, stub: str, flavours: tuple, wrap=None) -> dict:
    """``einops`` and its layer modules; ``layer_bindings`` are the framework names the layer
    stub ``stub`` uses (its base class, parameter constructor, ...), ``flavours`` the module
    names that expose its classes (``einops.layers.torch``).  ``wrap(name, fn)`` makes a
    function's Builtin (Keras: a graph op, so functional models can call einops between layers)."""
    functions = EinopsFunctions(framework)
    wrap = wrap or (lambda name, fn: Builtin(name, fn, bind_self=False))
    builtins = {name: wrap(f"einops.{name}", framework._with_grad(f"einops.{name}", getattr(functions, name)))
                for name in _FUNCTIONS}
    error = interp.builtins.get("RuntimeError")
    einops = Namespace("einops", dict(builtins, EinopsError=error, __version__="0.8.2"))
    helpers = {
        "_rearrange": builtins["rearrange"], "_einsum": builtins["einsum"],
        "_transform": Builtin("einops layer", framework._with_grad("einops layer", _layer_call(functions)),
                              bind_self=False),
        "_einmix": Builtin("EinMix", functions.einmix, bind_self=False),
        "_check": Builtin("einops layer", functions.check, bind_self=False),
    }
    loaded: dict = {}

    def layer(name: str):
        if name not in _LAYERS:
            return MISSING
        if not loaded:  # parsed on first use: most models never name an einops layer
            loaded.update(run_stub(interp, _STUBS / stub, f"<einops.layers:{stub}>", {**layer_bindings, **helpers}))
        return loaded[name]

    found = {"einops": einops, "einops.einops": einops, "einops.packing": einops}
    layers = Namespace("einops.layers", {})
    einops.members["layers"] = layers
    for flavour in flavours:
        namespace = Namespace(flavour, {}, loader=layer)
        layers.members[flavour.rsplit(".", 1)[-1]] = namespace
        found[flavour] = namespace
    found["einops.layers"] = layers
    return found


def _layer_call(functions: EinopsFunctions):
    """The stub layers' ``_transform(x, pattern, operation, axes_lengths, label)``."""
    def call(interp, args, kwargs, node):
        tensor, pattern, operation, lengths, label = args
        return functions.apply(interp, tensor, pattern, operation, dict(lengths), label, node)
    return call
