"""The `compare` report: one row per convention, then the layers they disagree on most.
Part of the JSON contract (additive); the explanations come from the rule files."""

from __future__ import annotations

from pydantic import BaseModel, Field

from staticflops.cost.compare import disagreements
from staticflops.diagnostics import code_of
from staticflops.ir import ModelIR
from staticflops.report.build import assumed_ranges, count
from staticflops.report.schema import SCHEMA_VERSION, Count, Unknown


class ConventionRow(BaseModel):
    rules: str
    headline: str  # "flops" or "macs": which number the convention's tool reports
    headline_value: Count
    forward_flops: Count
    macs: Count
    params: Count
    trainable_params: Count
    convention: str
    description: str
    complete: bool
    unknown: list[Unknown] = Field(default_factory=list)


class LayerDisagreement(BaseModel):
    name: str
    type: str
    values: dict[str, Count]  # rule set -> its headline number (FLOPs or MACs, per `conventions`)


class Comparison(BaseModel):
    schema_version: int = SCHEMA_VERSION
    file: str
    model: str
    inputs: list[str]
    assumed: list[str] = Field(default_factory=list)  # --assume ranges the counts hold in
    conventions: list[ConventionRow]
    disagreements: list[LayerDisagreement]
    keyword_inputs: dict[str, str] = Field(default_factory=dict)  # forward's keyword arguments given, name -> spec


def build_comparison(ir: ModelIR, priced: list, top: int = 5) -> Comparison:
    rows = []
    for p in priced:
        cost, rules = p.cost, p.rules
        rows.append(ConventionRow(
            rules=rules.name, headline=rules.headline, headline_value=count(p.headline),
            forward_flops=count(cost.flops), macs=count(cost.macs), params=count(cost.params),
            trainable_params=count(cost.trainable_params), convention=rules.convention,
            description=" ".join(rules.description.split()), complete=cost.complete,
            unknown=[Unknown(location=str(entry[0]), what=entry[1], code=code_of(entry)) for entry in cost.unknowns],
        ))
    layers = [LayerDisagreement(name=d.path, type=d.type,
                                values={k: count(v) if v is not None else "-" for k, v in d.values.items()})
              for d in disagreements(priced, top)]
    return Comparison(file=ir.file, model=ir.name, inputs=[str(s) for s in ir.inputs], assumed=assumed_ranges(
        [*ir.inputs, *ir.keyword_inputs.values()]), conventions=rows, disagreements=layers,
        keyword_inputs={name: str(spec) for name, spec in ir.keyword_inputs.items()})
