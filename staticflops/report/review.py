"""Results of ``check`` (budgets) and ``diff`` (two revisions): the JSON those commands print
with ``--format json``, and what the table and Markdown renderings read.  Additive changes
only, like the report itself."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, Field

from staticflops.report.schema import Count, ShapeOut, Unknown

REVIEW_SCHEMA_VERSION = 1


class BudgetLine(BaseModel):
    metric: str  # a `totals` field: forward_flops, macs, params, training_flops, ...
    budget: int
    measured: Optional[Count] = None  # None: not available from this analysis
    headroom_percent: Optional[float] = None  # (budget - measured) / budget x 100; negative = over
    status: Literal["pass", "fail", "not available"]
    note: Optional[str] = None
    location: Optional[str] = None  # path:line:col of the budget's key in the config (annotations point there)


class LayerGrowth(BaseModel):
    name: str
    type: str
    location: str  # path:line:col on the new side
    metric: str
    before: Optional[Count] = None  # None: the layer is new
    after: Count
    delta: Count


class ModelCheck(BaseModel):
    name: str
    file: str
    status: Literal["pass", "fail", "error"]
    budgets: list[BudgetLine] = Field(default_factory=list)
    unknown: list[Unknown] = Field(default_factory=list)
    allow_unknown: bool = False
    # Something was not resolved (and no ignore comment accepts it): the counts are lower bounds,
    # so a budget they meet is not shown met; tables say `incomplete` (a failure unless allow_unknown).
    incomplete: bool = False
    problems: list[str] = Field(default_factory=list)  # why it failed, one sentence each
    baseline: Optional[str] = None  # the revision an overrun is compared with
    grew: list[LayerGrowth] = Field(default_factory=list)  # the layers that grew most since `baseline`
    cached: bool = False


class CheckResult(BaseModel):
    schema_version: int = REVIEW_SCHEMA_VERSION
    config: str
    passed: bool
    models: list[ModelCheck]


class TotalChange(BaseModel):
    metric: str
    before: Optional[Count] = None
    after: Optional[Count] = None
    delta: Optional[Count] = None  # None when a side is missing; a formula when symbolic
    percent: Optional[float] = None


class LayerChange(BaseModel):
    name: str
    type: str
    change: Literal["added", "removed", "changed"]
    location: str  # new side for added/changed, base side for removed
    before_flops: Optional[Count] = None
    after_flops: Optional[Count] = None
    delta_flops: Optional[Count] = None
    before_macs: Optional[Count] = None
    after_macs: Optional[Count] = None
    delta_macs: Optional[Count] = None
    before_params: Optional[Count] = None
    after_params: Optional[Count] = None
    delta_params: Optional[Count] = None
    before_shape: ShapeOut = None
    after_shape: ShapeOut = None


class ModelDiff(BaseModel):
    name: str
    file: str
    status: Literal["changed", "unchanged", "added", "removed", "error"]
    totals: list[TotalChange] = Field(default_factory=list)
    layers: list[LayerChange] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    complete: bool = True  # False when either side has unknowns: the counts are lower bounds
    rules: Optional[str] = None
    convention: Optional[str] = None  # what the counts mean (the rule set's convention)


class DiffResult(BaseModel):
    schema_version: int = REVIEW_SCHEMA_VERSION
    base: str  # the revision as given
    base_commit: str
    models: list[ModelDiff]
