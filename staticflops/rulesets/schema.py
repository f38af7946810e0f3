"""What a rule file may contain (pydantic): the schema is the documentation."""

from __future__ import annotations

from typing import Optional, Union

from pydantic import BaseModel, ConfigDict, Field

FormulaText = Union[str, int, float]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BackwardRule(_Strict):
    """Backward cost; formulas may use ``forward`` (this op's forward FLOPs) and ``macs``."""

    input_grad: Optional[FormulaText] = None
    weight_grad: Optional[FormulaText] = None


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
