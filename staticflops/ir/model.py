from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field

from staticflops.diagnostics import Diagnostic, Location


class _IR(BaseModel):
    # The PyTorch front end builds the IR from its own values without validation
    # (ir/construct.py), so a run needs these models' validators only for Keras and class
    # rules: built on first use rather than at import (6-14 ms of a cold run).
    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)


class ParamDecl(_IR):
    """A parameter a module declares itself (``nn.Parameter``), not through a layer rule."""

    name: str
    shape: Optional[tuple]
    trainable: bool = True


class LayerNode(_IR):
    name: str  # dotted path from the root; "" for the root
    type: str  # the class name users wrote: Conv2d, Bottleneck
    kind: Optional[str] = None  # rule key for framework layers ("conv"); None for containers
    attrs: dict[str, Any] = Field(default_factory=dict)
    location: Location
    children: list["LayerNode"] = Field(default_factory=list)
    params: list[ParamDecl] = Field(default_factory=list)
    # Tensors the layer's rule counts but that it no longer holds: its weight was replaced by
    # another layer's (weight tying), which is counted there, as PyTorch counts it once.
    replaced_params: list[ParamDecl] = Field(default_factory=list)
    frozen: bool = False
    # Of a layer not frozen as a whole, its own weights that are (BitFit: the weight frozen, the
    # bias trained): not in its trainable parameters.
    frozen_params: list[ParamDecl] = Field(default_factory=list)
    output_shapes: list[Optional[tuple]] = Field(default_factory=list)  # of its last call
    calls: int = 0
    # Per call: the shapes of its tensor arguments and results, so a rule can cost a user
    # class's call as a whole; and the plain values (numbers, strings) it holds as attributes.
    call_shapes: list[dict] = Field(default_factory=list)
    scalars: dict[str, Any] = Field(default_factory=dict)
    qualified_type: Optional[str] = None  # "<file stem>.<class>" where the class is defined

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


class OpCall(_IR):
    """One operation executed by ``forward``: a layer call or a functional op."""

    kind: str
    label: str  # as written: "Conv2d", "F.relu", "@"
    attrs: dict[str, Any] = Field(default_factory=dict)
    facts: dict[str, Any] = Field(default_factory=dict)  # derived by shape inference
    inputs: list[Optional[tuple]] = Field(default_factory=list)
    outputs: list[Optional[tuple]] = Field(default_factory=list)
    module: str  # the layer this op is charged to
    is_layer_call: bool  # True: the call of a framework layer (module == that layer)
    location: Location
    needs_grad: list[bool] = Field(default_factory=list)  # per activation input, for backward
    trainable_inputs: int = 0  # trainable weight tensors the op uses (its weight gradients)
    # The innermost torch.utils.checkpoint region it ran in (an index of ModelIR.checkpoints):
    # backward runs it again (cost/recompute.py).
    checkpoint: Optional[int] = None


class ModelIR(_IR):
    name: str
    framework: str
    file: str
    root: LayerNode
    ops: list[OpCall]
    inputs: list[Any]  # InputSpec
    outputs: list[Optional[tuple]]
    unknowns: list[tuple[Location, str]]
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    stopped: Optional[Diagnostic] = None  # a budget ended the analysis early: the IR is partial
    # path -> {line: codes}: the `# staticflops: ignore[CODE]` comments of the files the analysis ran
    ignores: dict = Field(default_factory=dict)
    # forward's keyword arguments given (--keyword-input): name (dotted: a key of a dict argument) -> InputSpec
    keyword_inputs: dict = Field(default_factory=dict)
    # Checkpoint regions, by the index ops give: {"whole": the whole region runs again in backward
    # (reentrant, or early_stop=False), "parent": the region it runs inside, or None, "inputs":
    # the shapes of its tensor arguments, which it keeps for backward instead of its ops' tensors}.
    checkpoints: list[dict] = Field(default_factory=list)
    # --past-tokens: the forward is one generation step, {"past_tokens": the cache's length before
    # it (int or symbol), "kv_cache": the shapes of the cache's floating-point tensors after it}
    generation: Optional[dict] = None
