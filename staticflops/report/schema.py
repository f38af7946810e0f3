"""The JSON report: a contract scripts and CI rely on.  Change it only additively;
anything else bumps ``SCHEMA_VERSION``.  A count is a JSON integer when concrete and a
formula string (``8178368512*B``) when it depends on a symbolic input dimension."""

from __future__ import annotations

from typing import Optional, Union

from pydantic import BaseModel, Field

SCHEMA_VERSION = 1
Count = Union[int, str]
ShapeOut = Optional[list[Count]]


class Totals(BaseModel):
    forward_flops: Count
    macs: Count
    params: Count
    trainable_params: Count
    convention: str  # what the headline number is, in a few words
    complete: bool  # False when something was unknown: the counts are then lower bounds


class Layer(BaseModel):
    name: str  # dotted module path; functional ops: "<module>.<op>" (with "#n" when repeated)
    type: str
    kind: str  # "module" or "op"
    depth: int
    location: str  # path:line:col (construction for modules, the call for ops)
    output_shape: ShapeOut
    forward_flops: Count  # inclusive of children
    macs: Count
    params: Count
    calls: int = 1


class Unknown(BaseModel):
    location: str
    what: str


class DiagnosticOut(BaseModel):
    severity: str
    code: str
    location: Optional[str]
    message: str


class Report(BaseModel):
    schema_version: int = SCHEMA_VERSION
    file: str
    model: str
    framework: str
    rules: str
    inputs: list[str]
    outputs: list[ShapeOut]
    totals: Totals
    layers: list[Layer]
    unknown: list[Unknown] = Field(default_factory=list)
    diagnostics: list[DiagnosticOut] = Field(default_factory=list)
