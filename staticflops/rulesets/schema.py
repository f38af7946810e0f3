"""What a rule file may contain (pydantic): the schema is the documentation."""

from __future__ import annotations

from typing import Optional, Union

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
    """The cost of one op kind.  ``flops`` defaults to ``2 * macs``; ``macs`` to 0."""

    macs: Optional[FormulaText] = None
    flops: Optional[FormulaText] = None
    params: Optional[FormulaText] = None
    backward: Optional[BackwardRule] = None
    note: Optional[str] = None


class RuleFile(_Strict):
    name: str
    description: str = ""
    convention: str = ""
    headline: str = Field("flops", pattern="^(flops|macs)$")  # which number the convention's tool reports
    extends: Optional[str] = None
    zero_cost: list[str] = Field(default_factory=list)  # kinds that cost nothing under this convention
    rules: dict[str, Rule] = Field(default_factory=dict)
