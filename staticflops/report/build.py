"""Cost result -> :class:`Report` (numbers as ints or formula strings)."""

from __future__ import annotations

from staticflops.version import __version__
from staticflops.cost import CostResult
from staticflops.cost.memory import dtype_bytes
from staticflops.diagnostics import code_of
from staticflops.ir import ModelIR
from staticflops.ir.construct import construct
from staticflops.report.schema import (SCHEMA_VERSION, TRAINING_TOTALS, DiagnosticOut, Generation, Layer, Report,
                                       Suppressed, Totals, Training, Unknown)
from staticflops.rulesets import RuleSet
from staticflops.shapes import Expr, InputSpec, format_dim
from staticflops.shapes.expr import symbol_range
from staticflops.shapes.shape import range_text


def count(value) -> int | str:
    if type(value) is int:
        return value
    if isinstance(value, Expr):
        return format_dim(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() else str(value)
    if hasattr(value, "denominator") and value.denominator != 1:
        return str(value)
    return int(value)


def shape_out(shape):
    return None if shape is None else [count(d) for d in shape]


def build_report(ir: ModelIR, cost: CostResult, rules: RuleSet, training: Training | None = None,
                 dtype: str = "float32") -> Report:
    size = dtype_bytes(dtype)
    # Built from our own values: constructed without validation, like the rows (so the report's
    # validators are needed only to read a cached report back).
    backward = {
        "backward_flops": count(cost.backward), "input_grad_flops": count(cost.input_grad),
        "weight_grad_flops": count(cost.weight_grad),
        "training_flops": count(cost.flops + cost.backward + cost.recompute),
        "saved_activation_bytes": count(cost.saved * size), "recompute_flops": count(cost.recompute),
    } if cost.training else dict.fromkeys(TRAINING_TOTALS)
    totals = construct(Totals, {
        "forward_flops": count(cost.flops), "macs": count(cost.macs), "params": count(cost.params),
        "trainable_params": count(cost.trainable_params), "convention": rules.convention,
        "complete": cost.complete and ir.stopped is None, "dtype": dtype, **_memory(cost, size), **backward},
        None if cost.training else _UNTRAINED_TOTALS)
    report = construct(Report, {
        "schema_version": SCHEMA_VERSION, "file": ir.file, "model": ir.name, "framework": ir.framework,
        "rules": rules.name, "inputs": [str(spec) for spec in ir.inputs], "assumed": assumed_ranges([*ir.inputs, *ir.keyword_inputs.values(), *_past_size(ir)]), "outputs": [shape_out(s) for s in ir.outputs],
        "totals": totals, "layers": _rows(cost, size),
        "unknown": [], "diagnostics": [], "training": training, "partial": False, "stopped": None,
        "suppressed": [], "tool_version": __version__,
        "keyword_inputs": {name: str(spec) for name, spec in ir.keyword_inputs.items()},
        "generation": None if ir.generation is None else _generation(ir.generation, size)}, _REPORT_GIVEN)
    _sort_suppressed(report, cost.unknowns, ir.diagnostics, ir.ignores)
    if ir.stopped is not None:
        report.partial = True
        report.stopped = _diagnostic(ir.stopped)
        report.diagnostics.append(report.stopped)
    return report


def _past_size(ir: ModelIR) -> list:
    """--past-tokens' size, as a one-size shape for ``assumed_ranges``."""
    return [] if ir.generation is None else [InputSpec((ir.generation["past_tokens"],), "int64")]


def _generation(step: dict, size: int) -> Generation:
    """The key/value cache after the step: its floating-point tensors at the report's dtype."""
    elements = 0
    for shape in step["kv_cache"]:
        numel = 1
        for dim in shape:
            numel = numel * dim
        elements = elements + numel
    return construct(Generation, {"past_tokens": count(step["past_tokens"]), "kv_cache_bytes": count(elements * size),
                                  "kv_cache_tensors": len(step["kv_cache"])})


def _sort_suppressed(report: Report, unknowns, diagnostics, ignores: dict) -> None:
    """Each unknown and warning to ``unknown``/``diagnostics``, or to ``suppressed`` when an
    ignore comment on its line names its code.  Errors are never suppressed."""
    def accepted(location, code: str) -> bool:
        return location is not None and code in ignores.get(location.path, {}).get(location.line, ())

    for entry in unknowns:
        where, what = entry
        code = code_of(entry)
        if accepted(where, code):
            report.suppressed.append(construct(Suppressed, {"kind": "unknown", "code": code, "location": str(where),
                                                            "message": what}))
        else:
            report.unknown.append(construct(Unknown, {"location": str(where), "what": what, "code": code}))
    for diagnostic in diagnostics:
        if diagnostic.severity != "error" and accepted(diagnostic.location, diagnostic.code):
            report.suppressed.append(construct(Suppressed, {
                "kind": diagnostic.severity, "code": diagnostic.code, "location": str(diagnostic.location),
                "message": diagnostic.message}))
        else:
            report.diagnostics.append(_diagnostic(diagnostic))


def _diagnostic(diagnostic) -> DiagnosticOut:
    return construct(DiagnosticOut, {"severity": diagnostic.severity, "code": diagnostic.code,
                                     "location": str(diagnostic.location) if diagnostic.location else None,
                                     "message": diagnostic.message})


def _memory(cost, size: int, params=None) -> dict:
    """Bytes from element counts (a layer passes its inclusive params; totals use cost's)."""
    return {"param_bytes": count((cost.params if params is None else params) * size),
            "activation_bytes": count(cost.activation * size),
            "mem_read_bytes": count(cost.mem_read * size), "mem_write_bytes": count(cost.mem_write * size)}


def _rows(cost: CostResult, size: int) -> list[Layer]:
    # Built from our own computed values: constructed without re-validation (it cost ~0.6 ms a
    # row), and without model_construct's per-field scan for aliases and defaults (~4 us a row).
    rows = []
    training = cost.training
    # id(Location) -> its text: a repeated block's modules and replayed ops share their
    # Location objects (immutable, and alive in the IR while the rows are built)
    places: dict = {}

    def place(location) -> str:
        text = places.get(id(location))
        if text is None:
            text = places[id(location)] = str(location)
        return text

    for layer in cost.layers:
        node = layer.node
        if node.name:
            # Called, but its (last) output is unknown: what it computed from there on was not
            # counted, so its figures are a lower bound, and nothing counted is "unknown", never 0.
            lower = node.calls > 0 and bool(node.output_shapes) and node.output_shapes[0] is None
            nothing = lower and _is_zero(layer.flops) and _is_zero(layer.macs)
            rows.append(construct(Layer, {
                "name": node.name, "type": node.type, "kind": "module", "depth": layer.depth,
                "location": place(node.location),
                "output_shape": shape_out(node.output_shapes[0]) if node.output_shapes else None,
                "forward_flops": "unknown" if nothing else count(layer.flops),
                "macs": "unknown" if nothing else count(layer.macs), "params": count(layer.params),
                "calls": node.calls, "backward_flops": count(layer.backward) if training else None,
                "param_bytes": count(layer.params * size), "activation_bytes": count(layer.activation * size),
                "mem_read_bytes": count(layer.mem_read * size), "mem_write_bytes": count(layer.mem_write * size),
                "saved_activation_bytes": count(layer.saved * size) if training else None,
                "lower_bound": True if lower else None,
            }, _ALL_FIELDS))
        seen: dict = {}
        for op_cost in layer.ops:
            op = op_cost.op
            if op.is_layer_call or (op_cost.known and _is_zero(op_cost.flops) and _is_zero(op_cost.macs)
                                    and _is_zero(op_cost.backward)):
                continue
            base = f"{node.name}.{op.kind}" if node.name else op.kind
            seen[base] = seen.get(base, 0) + 1
            name = base if seen[base] == 1 else f"{base}#{seen[base]}"
            rows.append(construct(Layer, {
                "name": name, "type": op.label, "kind": "op", "depth": layer.depth + 1, "location": place(op.location),
                "output_shape": shape_out(op.outputs[0]) if op.outputs else None,
                "forward_flops": count(op_cost.flops) if op_cost.known else "unknown",
                "macs": count(op_cost.macs) if op_cost.known else "unknown", "params": 0,
                "calls": _CALLS_DEFAULT, "backward_flops": count(op_cost.backward) if training else None,
                "param_bytes": 0, "activation_bytes": count(op_cost.activation * size),
                "mem_read_bytes": count(op_cost.mem_read * size), "mem_write_bytes": count(op_cost.mem_write * size),
                "saved_activation_bytes": count(op_cost.saved * size) if training else None, "lower_bound": None,
            }, _OP_FIELDS))
    return rows


_UNTRAINED_TOTALS = frozenset(Totals.model_fields) - set(TRAINING_TOTALS)  # the fields given without --training
_REPORT_GIVEN = frozenset({"file", "model", "framework", "rules", "inputs", "assumed", "outputs", "totals", "layers", "unknown",
                           "training", "tool_version", "keyword_inputs", "generation"})
_ALL_FIELDS = frozenset(Layer.model_fields)


def assumed_ranges(specs) -> list[str]:
    """The ``--assume`` ranges of the inputs' sizes, once per name: "2 <= T"."""
    found = {}
    for spec in specs:
        for dim in getattr(spec, "shape", ()):
            named = symbol_range(dim)
            if named is not None and (named[1] > 1 or named[2] is not None):
                found.setdefault(named[0], range_text(*named))
    return list(found.values())
_OP_FIELDS = _ALL_FIELDS - {"calls", "lower_bound"}  # an op row leaves these at their defaults
_CALLS_DEFAULT = Layer.model_fields["calls"].default


def _is_zero(value) -> bool:
    return not isinstance(value, Expr) and value == 0
