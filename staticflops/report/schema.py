"""The JSON report: a contract scripts and CI rely on.  Change it only additively;
anything else bumps ``SCHEMA_VERSION``.  A count is a JSON integer when concrete and a
formula string (``8178368512*B``) when it depends on a symbolic input dimension."""

from __future__ import annotations

import json
import re
from typing import Optional, Union

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import to_json

SCHEMA_VERSION = 1


class _Contract(BaseModel):
    # Our reports are constructed from computed values and written by plain_dump: validators
    # are built only when a report is read back (the cache), not at every start-up.
    model_config = ConfigDict(defer_build=True)
Count = Union[int, str]
ShapeOut = Optional[list[Count]]


class Totals(_Contract):
    forward_flops: Count
    macs: Count
    params: Count
    trainable_params: Count
    convention: str  # what the headline number is, in a few words
    complete: bool  # False when something was unknown: the counts are then lower bounds
    # Memory in bytes at `dtype` (every tensor at that element size): parameters, every
    # activation produced (op outputs, none freed), and the rule set's read/write traffic.
    dtype: str = "float32"
    param_bytes: Count = 0
    activation_bytes: Count = 0
    mem_read_bytes: Count = 0
    mem_write_bytes: Count = 0
    # With --training only (absent otherwise):
    backward_flops: Optional[Count] = None  # input_grad_flops + weight_grad_flops
    input_grad_flops: Optional[Count] = None
    weight_grad_flops: Optional[Count] = None
    training_flops: Optional[Count] = None  # forward + backward, per step
    saved_activation_bytes: Optional[Count] = None  # activations kept for backward (rules' `saved`)
    # forward FLOPs run again in backward (gradient checkpointing), included in training_flops
    recompute_flops: Optional[Count] = None

    def at(self, **sizes: int) -> "Totals":
        """These totals with a number for each symbolic input dimension:
        ``report.totals.at(B=8, T=2048).forward_flops`` is an int.  Every count (FLOPs, MACs,
        params, bytes, backward/training when present) is evaluated exactly; a symbol left
        without a value raises ``ValueError`` naming it."""
        from staticflops.report.symbolic import count_at

        for name, value in sizes.items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name}={value!r}: a size is a whole number")
        counts = {name: value for name, value in self.__dict__.items()
                  if name not in _NOT_COUNTS and value is not None}
        needed = sorted({symbol for value in counts.values() for symbol in _symbols_of(value)})
        missing = [symbol for symbol in needed if symbol not in sizes]
        if missing:
            raise ValueError(f"no value for {', '.join(missing)}: call .at({', '.join(f'{s}=...' for s in needed)})")
        return self.model_copy(update={name: count_at(value, sizes) for name, value in counts.items()})


_NOT_COUNTS = ("convention", "complete", "dtype")


def _symbols_of(count) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", count)) if isinstance(count, str) else set()


class Layer(_Contract):
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
    backward_flops: Optional[Count] = None  # with --training only
    param_bytes: Count = 0  # memory in bytes, inclusive of children like forward_flops
    activation_bytes: Count = 0
    mem_read_bytes: Count = 0
    mem_write_bytes: Count = 0
    saved_activation_bytes: Optional[Count] = None  # with --training only
    # true when the module was called but its output is unknown: the figures above count only
    # what ran before the unresolved value (absent otherwise)
    lower_bound: Optional[bool] = None


class TrainingBudget(_Contract):
    steps: int
    total_flops: Count  # training_flops x steps
    hardware: Optional[str] = None
    precision: Optional[str] = None
    peak_flops_per_second: Optional[float] = None
    mfu: Optional[float] = None
    gpu_hours: Optional[Union[float, str]] = None
    formula: str


class Training(_Contract):
    """With --training: why backward/forward is what it is, and the optional run budget."""

    backward_forward_ratio: Optional[float] = None
    notes: list[str]
    frozen: list[str] = Field(default_factory=list)  # --freeze patterns
    tokens_per_step: Optional[Count] = None
    flops_per_token_vs_6n: Optional[float] = None  # ours / (6 x non-embedding params)
    flops_6nt: Optional[Count] = None  # the rule of thumb 6 x N x T (N non-embedding params, T tokens/step)
    budget: Optional[TrainingBudget] = None


class Generation(_Contract):
    """With --past-tokens: the forward priced is one generation step over a key/value cache."""

    past_tokens: Count  # the cache's length before the step (a number, or a size name)
    kv_cache_bytes: Count  # the cache's floating-point tensors after the step, at totals.dtype
    kv_cache_tensors: int  # how many tensors those are (a key and a value per attention layer, most often)


class Unknown(_Contract):
    location: str
    what: str
    code: str = "SF400"  # staticflops/codes.py: SF4xx says what kind of thing was left unresolved


class Suppressed(_Contract):
    """An unknown or a warning that a ``# staticflops: ignore[CODE]`` comment on its line accepts:
    left out of ``unknown``/``diagnostics`` (so ``--strict`` and ``check`` pass) but kept here."""

    kind: str  # "unknown", or the diagnostic's severity ("warning", "info")
    code: str
    location: str
    message: str


class DiagnosticOut(_Contract):
    severity: str
    code: str
    location: Optional[str]
    message: str


class Report(_Contract):
    schema_version: int = SCHEMA_VERSION
    file: str
    model: str
    framework: str
    rules: str
    inputs: list[str]
    # Ranges of symbolic sizes the counts hold in (``--assume T>=2``: "2 <= T"); empty: any size.
    assumed: list[str] = Field(default_factory=list)
    outputs: list[ShapeOut]
    totals: Totals
    layers: list[Layer]
    unknown: list[Unknown] = Field(default_factory=list)
    diagnostics: list[DiagnosticOut] = Field(default_factory=list)
    training: Optional[Training] = None  # with --training only
    # A budget (--max-steps, --max-loop-iterations, ...) stopped the analysis: the layers built
    # and the ops traced until then are priced as usual, so every count is a lower bound.
    partial: bool = False
    stopped: Optional[DiagnosticOut] = None  # which budget, where (also in `diagnostics`)
    # What ignore comments accepted.  An accepted unknown still leaves its cost out of the
    # counts, so `totals.complete` stays False: the suppression changes the verdict, not the arithmetic.
    suppressed: list[Suppressed] = Field(default_factory=list)
    tool_version: Optional[str] = None  # the staticflops that wrote the report (None: read from an older cache)
    # forward's keyword arguments given (--keyword-input): name -> its input spec; absent when none
    keyword_inputs: dict[str, str] = Field(default_factory=dict)
    generation: Optional[Generation] = None  # with --past-tokens only

    def to_json(self) -> str:
        """The JSON contract: training-only fields are absent (not null) without --training."""
        # plain_dump and contract_dict in one pass over the rows (a deep model's ~1,000 rows)
        data = {name: _contract_rows(item) if name == "layers" else plain_dump(item)
                for name, item in self.__dict__.items()}
        return contract_json(_contract_head(data))

    def _repr_html_(self) -> str:
        """Jupyter shows a report as the HTML report's content, without the page around it."""
        from staticflops.report.html_page import render_html
        return render_html(self, page=False)

    def _repr_markdown_(self) -> str:
        """Where only Markdown is shown: the pull-request comment's Markdown."""
        from staticflops.report.markdown import render_markdown
        return render_markdown(self)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def plain_dump(value):
    """``model_dump(mode="json")`` for the report's models, which have no aliases, custom
    serializers or computed fields: each model as a dict of its fields in order, tuples as
    lists.  It needs no serializer, so a run never builds the report's schema
    (``tests/test_json_contract.py`` compares the two)."""
    kind = type(value)
    if kind in _SCALARS:  # most of a deep report's values: skip BaseModel's (ABC) isinstance
        return value
    if kind is list or kind is tuple:
        return [plain_dump(item) for item in value]
    if isinstance(value, BaseModel):  # a layer row's fields are mostly scalars: no call for them
        scalars = _SCALARS
        return {name: item if type(item) in scalars else plain_dump(item) for name, item in value.__dict__.items()}
    if isinstance(value, (list, tuple)):
        return [plain_dump(item) for item in value]
    return value


def contract_dict(data: dict) -> dict:
    """A dumped report (``model_dump(mode="json")``, e.g. from the cache) as the JSON contract
    has it: training-only fields removed when they are null.  Changes ``data`` in place."""
    for layer in data["layers"]:
        for key in _ROW_OPTIONAL:
            if layer.get(key, 0) is None:
                del layer[key]
    return _contract_head(data)


def _contract_head(data: dict) -> dict:
    """contract_dict for all but the rows."""
    for key in TRAINING_TOTALS:
        if data["totals"].get(key, 0) is None:
            del data["totals"][key]
    if data.get("training", 0) is None:
        del data["training"]
    if data.get("keyword_inputs", 0) == {}:
        del data["keyword_inputs"]
    if data.get("generation", 0) is None:
        del data["generation"]
    return data


_ROW_OPTIONAL = ("backward_flops", "saved_activation_bytes", "lower_bound")  # absent from a row when null
_ROW_VALUES = _SCALARS | {list}


def _contract_rows(rows: list) -> list:
    """``contract_dict``'s rows of ``plain_dump(rows)``.  A row holds scalars and its output
    shape, a list of scalars: its dump is a copy of its fields with that list copied."""
    dumped = []
    for row in rows:
        fields = row.__dict__
        if type(row) is not Layer or not _ROW_VALUES.issuperset(map(type, fields.values())):
            data = plain_dump(row)  # not a row as build_report makes them: the general way
        else:
            data = fields.copy()
            shape = data["output_shape"]
            if shape is not None:
                data["output_shape"] = plain_dump(shape)
        for key in _ROW_OPTIONAL:
            if data.get(key, 0) is None:
                del data[key]
        dumped.append(data)
    return dumped


def contract_json(data: dict) -> str:
    """``json.dumps(data, indent=2)``, byte for byte, in a fraction of its time for deep models.

    With ``indent`` the standard library encodes in pure Python (~17 ms for the 1,061 rows of
    a 96-layer GPT).  The rows hold only strings, integers and nulls, which pydantic-core's
    serializer writes exactly as ``json`` does, except that it leaves non-ASCII characters
    unescaped: escape those the way ``ensure_ascii`` does.  The rest of the report (it may
    hold floats, which the two format differently) stays with ``json``."""
    head = json.dumps({**data, "layers": []}, indent=2)
    rows = to_json(data["layers"], indent=2).decode()
    if not rows.isascii() or "\x7f" in rows:  # (both C scans: the regex search took ~2 ms on a 96-layer GPT's rows)
        rows = _NON_ASCII.sub(_escape, rows)
    # a top-level key starts a line, which no string can (json escapes newlines)
    return head.replace('\n  "layers": []', '\n  "layers": ' + rows.replace("\n", "\n  "), 1)


_NON_ASCII = re.compile(r"[^\x00-\x7e]")  # json's ensure_ascii escapes DEL (0x7f) too


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return "\\u%04x" % code
    code -= 0x10000  # outside the BMP: a UTF-16 surrogate pair, as json writes it
    return "\\u%04x\\u%04x" % (0xD800 | (code >> 10), 0xDC00 | (code & 0x3FF))


TRAINING_TOTALS = ("backward_flops", "input_grad_flops", "weight_grad_flops", "training_flops",
                    "saved_activation_bytes", "recompute_flops")


SCHEMA_FILE = "report.schema.json"  # next to this module, shipped in the wheel


def generated_schema() -> str:
    """The JSON schema of :class:`Report` as pydantic derives it (``tests/test_incomplete.py``
    keeps the shipped file equal to it)."""
    return json.dumps(Report.model_json_schema(), indent=2) + "\n"


def schema_text() -> str:
    """The shipped schema file: what ``staticflops schema`` prints."""
    from pathlib import Path
    return (Path(__file__).parent / SCHEMA_FILE).read_text(encoding="utf-8")
