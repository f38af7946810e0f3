"""What a rule file may contain (pydantic): the schema is the documentation."""

from __future__ import annotations

from typing import Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

FormulaText = Union[str, int, float]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BackwardRule(_Strict):
    """Backward FLOPs.  Formulas may use ``forward`` (this op's forward FLOPs), ``macs``,
    ``needs_grad``, ``grad_inputs`` and ``trainable_inputs``."""

    input_grad: Optional[FormulaText] = None  # w.r.t. the op's inputs, when some input needs grad
    weight_grad: Optional[FormulaText] = None  # w.r.t. its weights, when they are trainable
    state_grad: Optional[FormulaText] = None  # internal (e.g. RNN recurrence), when either is needed


class Rule(_Strict):
    """The cost of one op kind.  ``flops`` defaults to ``2 * macs``; ``macs`` to 0.

    ``mem_read`` / ``mem_write``: elements read and written per call (bytes = elements x
    the dtype's size); by default the inputs plus the layer's parameters, and the outputs
    (rule-set option ``memory: io``; ``memory: rules`` counts only kinds with a formula).
    ``saved``: with --training, the activation elements the op keeps for its backward (by
    default its inputs); formulas may use ``needs_grad``, ``grad_inputs``, ``trainable_inputs``.
    """

    macs: Optional[FormulaText] = None
    flops: Optional[FormulaText] = None
    params: Optional[FormulaText] = None
    mem_read: Optional[FormulaText] = None
    mem_write: Optional[FormulaText] = None
    saved: Optional[FormulaText] = None
    backward: Optional[BackwardRule] = None
    note: Optional[str] = None


class Options(_Strict):
    """How a convention observes a model (rule-set wide; unset fields are inherited)."""

    # False: only calls of framework layers (nn.Conv2d, ...) are costed; functional ops and
    # operators in ``forward`` cost 0 (tools that hook modules: thop, torchinfo, torchstat).
    functional: Optional[bool] = None
    # False: nn.Parameters that a user module declares itself are not counted as params;
    # "leaf": counted only on modules without submodules (tools that walk leaf modules).
    declared_params: Optional[Union[bool, Literal["leaf"]]] = None
    # "sum": every call of a layer counts; "last": only its last call (torchstat).
    repeated_calls: Optional[str] = Field(None, pattern="^(sum|last)$")
    # Memory of kinds without mem_read/mem_write formulas: "io" = inputs + params read, outputs
    # written; "rules": 0 (tools that know only a few layer types: torchstat).
    memory: Optional[str] = Field(None, pattern="^(io|rules)$")


class RuleFile(_Strict):
    name: str
    description: str = ""
    convention: str = ""
    # Which number the convention's tool reports (unset: inherited, else "flops").
    headline: Optional[str] = Field(None, pattern="^(flops|macs)$")
    extends: Optional[str] = None
    zero_cost: list[str] = Field(default_factory=list)  # kinds that cost nothing under this convention
    options: Options = Field(default_factory=Options)
    rules: dict[str, Rule] = Field(default_factory=dict)
    # Rules for user-defined nn.Module classes, by class name or "<file stem>.<class>": the
    # formula costs each call of the module as a whole, replacing what its forward does.
    classes: dict[str, Rule] = Field(default_factory=dict)
