"""Cost result -> :class:`Report` (numbers as ints or formula strings)."""

from __future__ import annotations

from staticflops.cost import CostResult
from staticflops.cost.memory import dtype_bytes
from staticflops.ir import ModelIR
from staticflops.report.schema import DiagnosticOut, Layer, Report, Totals, Training, Unknown
from staticflops.rulesets import RuleSet
from staticflops.shapes import Expr, format_dim


def count(value) -> int | str:
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
    report = Report(
        file=ir.file, model=ir.name, framework=ir.framework, rules=rules.name,
        inputs=[str(spec) for spec in ir.inputs],
        outputs=[shape_out(s) for s in ir.outputs],
        totals=Totals(forward_flops=count(cost.flops), macs=count(cost.macs), params=count(cost.params),
                      trainable_params=count(cost.trainable_params), convention=rules.convention,
                      complete=cost.complete and ir.stopped is None, dtype=dtype, **_memory(cost, size)),
        layers=_rows(cost, size),
        unknown=[Unknown.model_construct(location=str(where), what=what) for where, what in cost.unknowns],
        training=training,
    )
    if ir.stopped is not None:
        stop = ir.stopped
        report.partial = True
        report.stopped = DiagnosticOut(severity=stop.severity, code=stop.code, message=stop.message,
                                       location=str(stop.location) if stop.location else None)
        report.diagnostics.append(report.stopped)
    if cost.training:
        totals = report.totals
        totals.backward_flops = count(cost.backward)
        totals.input_grad_flops = count(cost.input_grad)
        totals.weight_grad_flops = count(cost.weight_grad)
        totals.training_flops = count(cost.flops + cost.backward)
        totals.saved_activation_bytes = count(cost.saved * size)
    return report


def _memory(cost, size: int, params=None) -> dict:
    """Bytes from element counts (a layer passes its inclusive params; totals use cost's)."""
    return {"param_bytes": count((cost.params if params is None else params) * size),
            "activation_bytes": count(cost.activation * size),
            "mem_read_bytes": count(cost.mem_read * size), "mem_write_bytes": count(cost.mem_write * size)}


def _rows(cost: CostResult, size: int) -> list[Layer]:
    # Built from our own computed values: constructed without re-validation (it cost ~0.6 ms a row).
    rows = []
    for layer in cost.layers:
        node = layer.node
        if node.name:
            rows.append(Layer.model_construct(
                name=node.name, type=node.type, kind="module", depth=layer.depth, location=str(node.location),
                output_shape=shape_out(node.output_shapes[0]) if node.output_shapes else None,
                forward_flops=count(layer.flops), macs=count(layer.macs), params=count(layer.params),
                calls=node.calls, backward_flops=count(layer.backward) if cost.training else None,
                saved_activation_bytes=count(layer.saved * size) if cost.training else None,
                **_memory(layer, size),
            ))
        seen: dict = {}
        for op_cost in layer.ops:
            op = op_cost.op
            if op.is_layer_call or (op_cost.known and _is_zero(op_cost.flops) and _is_zero(op_cost.macs)
                                    and _is_zero(op_cost.backward)):
                continue
            base = f"{node.name}.{op.kind}" if node.name else op.kind
            seen[base] = seen.get(base, 0) + 1
            name = base if seen[base] == 1 else f"{base}#{seen[base]}"
            rows.append(Layer.model_construct(
                name=name, type=op.label, kind="op", depth=layer.depth + 1, location=str(op.location),
                output_shape=shape_out(op.outputs[0]) if op.outputs else None,
                forward_flops=count(op_cost.flops) if op_cost.known else "unknown",
                macs=count(op_cost.macs) if op_cost.known else "unknown", params=0,
                backward_flops=count(op_cost.backward) if cost.training else None,
                saved_activation_bytes=count(op_cost.saved * size) if cost.training else None,
                **_memory(op_cost, size, params=0),
            ))
    return rows


def _is_zero(value) -> bool:
    return not isinstance(value, Expr) and value == 0
