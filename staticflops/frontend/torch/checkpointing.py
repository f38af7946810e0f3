"""``torch.utils.checkpoint``: gradient (activation) checkpointing.

``checkpoint(fn, *args)`` computes ``fn(*args)`` but keeps none of what its ops save for
backward; backward runs ``fn``'s forward again to get it back.  The ops traced while ``fn``
runs are tagged with the region (:class:`Region`) so that pricing can add that second
forward to a training step (cost/recompute.py decides how much of it torch runs).

What torch 2.13 does, followed here:
* ``use_reentrant`` not given means True (torch warns that it will be required).
* ``use_reentrant=True`` runs ``fn`` under ``torch.no_grad()`` and hands the result to
  autograd as one function of the tensor arguments: the result requires grad only if one
  of them does, so a region whose inputs need no gradient gets no backward at all (its
  parameters get no gradient: the known trap of reentrant checkpointing on a frozen
  embedding).  Keyword arguments for ``fn`` are refused, as torch refuses them.
* ``use_reentrant=False`` records the graph as usual; ``early_stop=False`` asks for the
  whole region again in backward.
* ``checkpoint_sequential(functions, segments, input)`` checkpoints all but the last of
  ``segments`` equal chunks, as torch splits them.
"""

from __future__ import annotations

from staticflops.frontend.values import Builtin, Instance, Namespace, Parameter, Tensor

_OWN_KEYWORDS = ("use_reentrant", "context_fn", "determinism_check", "debug", "early_stop")


class Region:
    """One call of ``checkpoint``: the ops it traced are run again in backward."""

    __slots__ = ("whole", "parent", "inputs")

    def __init__(self, whole: bool, parent: "Region | None", inputs: tuple = ()):
        self.whole = whole  # the whole region again (reentrant, or early_stop=False), not up to its last saved tensor
        self.parent = parent  # the region this one runs inside, if any
        self.inputs = inputs  # shapes of its tensor arguments: what it keeps for backward instead

    def chain(self) -> tuple:
        """This region and those it runs inside, outermost first."""
        regions, region = [], self
        while region is not None:
            regions.append(region)
            region = region.parent
        return tuple(reversed(regions))


class Regions:
    """The checkpoint regions being traced, innermost last."""

    def __init__(self, framework):
        self.framework = framework  # its grad-mode stack (``blocks``): a reentrant region runs under no_grad
        self.stack: list = []

    def current(self) -> Region | None:
        return self.stack[-1] if self.stack else None

    def namespace(self) -> Namespace:
        return Namespace("torch.utils.checkpoint", {
            "checkpoint": Builtin("checkpoint", self._checkpoint, bind_self=False),
            "checkpoint_sequential": Builtin("checkpoint_sequential", self._sequential, bind_self=False)})

    def _checkpoint(self, interp, args, kwargs, node):
        if not args:
            raise interp.fail("checkpoint() missing 1 required positional argument: 'function'", node,
                              python="TypeError")
        function, arguments = args[0], list(args[1:])
        kwargs = dict(kwargs)
        own = {name: kwargs.pop(name) for name in _OWN_KEYWORDS if name in kwargs}
        kwargs.pop("preserve_rng_state", None)
        reentrant = own.get("use_reentrant")
        reentrant = True if reentrant is None else reentrant
        if reentrant is not True and reentrant is not False:
            return interp.unknown("checkpoint(use_reentrant=...) is not a known bool", node)
        if reentrant and kwargs:
            raise interp.fail("Unexpected keyword arguments: " + ",".join(kwargs), node, python="ValueError")
        return self.run(interp, function, arguments, kwargs, node, reentrant, own.get("early_stop", True) is False)

    def run(self, interp, function, arguments: list, kwargs: dict, node, reentrant: bool, whole: bool = False):
        """``function(*arguments, **kwargs)`` as one checkpointed region."""
        kept = tuple(a.shape for a in arguments if isinstance(a, Tensor) and not isinstance(a, Parameter))
        region = Region(reentrant or whole, self.current(), kept)
        if reentrant:
            inputs_need_grad = any(isinstance(a, Tensor) and a.requires_grad for a in arguments)
            grad = inputs_need_grad and self.framework.blocks.recording_grad()
            self.framework.blocks.grad_modes.append(grad)  # no graph inside unless the result will require grad
        self.stack.append(region)
        try:
            return interp.call(function, arguments, kwargs, node)
        finally:
            self.stack.pop()
            if reentrant:
                self.framework.blocks.grad_modes.pop()

    def _sequential(self, interp, args, kwargs, node):
        """torch's split: ``len(functions) // segments`` per chunk, the last chunk (and what the
        division leaves over) run without checkpointing."""
        names = ("functions", "segments", "input")
        given = dict(zip(names, args), **{k: v for k, v in kwargs.items() if k in names})
        if len(given) < 3:
            missing = ", ".join(repr(name) for name in names if name not in given)
            raise interp.fail(f"checkpoint_sequential() missing required arguments: {missing}", node,
                              python="TypeError")
        functions, segments, value = given["functions"], given["segments"], given["input"]
        reentrant = kwargs.get("use_reentrant")
        reentrant = True if reentrant is None else reentrant
        if isinstance(functions, Instance) and functions.module is not None:
            functions = [child for child in functions.module.children.values() if child is not None]
        if not isinstance(functions, (list, tuple)) or type(segments) is not int or segments < 1 \
                or reentrant not in (True, False):
            return interp.unknown("checkpoint_sequential() of arguments that are not modelled", node)
        size = len(functions) // segments
        end = -1
        for start in range(0, size * (segments - 1), size):
            end = start + size - 1
            chunk = functions[start:end + 1]
            value = self.run(interp, _chained(chunk), [value], {}, node, reentrant)
        for function in functions[end + 1:]:
            value = interp.call(function, [value], {}, node)
        return value


def _chained(functions: list) -> Builtin:
    """One chunk of ``checkpoint_sequential``: its functions applied in turn."""
    def forward(interp, args, kwargs, node):
        value = args[0]
        for function in functions:
            value = interp.call(function, [value], {}, node)
        return value
    return Builtin("checkpoint_sequential.<locals>.forward", forward, bind_self=False)
