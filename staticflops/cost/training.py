"""What a training step and a training run cost, and why backward is not 2x forward."""

from __future__ import annotations

from dataclasses import dataclass, field

from staticflops.cost.evaluate import CostResult
from staticflops.ir import ModelIR
from staticflops.shapes import Expr, format_dim, numel


@dataclass
class TrainingFacts:
    ratio: float | None
    notes: list = field(default_factory=list)
    tokens: object = None
    versus_6n: float | None = None
    non_embedding_params: object = None
    six_n_t: object = None  # the rule of thumb 6 x N x T for the step (an Expr when T is symbolic)


def training_facts(ir: ModelIR, cost: CostResult) -> TrainingFacts:
    forward, backward = cost.flops, cost.backward
    facts = TrainingFacts(ratio=_ratio(backward, forward))
    if not _zero(cost.skipped_input_grad):
        facts.notes.append(
            f"{_fmt(cost.skipped_input_grad)} FLOPs of input gradients are not computed: layers whose inputs "
            "are model inputs (or only downstream of frozen layers) need no gradient w.r.t. them")
    if not _zero(cost.skipped_weight_grad):
        facts.notes.append(f"{_fmt(cost.skipped_weight_grad)} FLOPs of weight gradients are not computed: "
                           "those weights are frozen")
    if any(op.op.kind in ("matmul", "einsum", "scaled_dot_product_attention") and not _zero(op.backward)
           for op in cost.ops):
        facts.notes.append("products of two activations (attention scores, matmul) have two input "
                           "gradients and no weight gradient")
    if not _zero(cost.recompute):
        share = _ratio(cost.recompute, forward + backward)
        more = f" (+{100 * share:.1f} % on the step without it)" if share is not None else ""
        facts.notes.append(
            f"{_fmt(cost.recompute)} FLOPs of forward run again in backward by gradient checkpointing{more}, in the "
            "training FLOPs: each checkpointed region once more, and without reentrant checkpointing only until what "
            "backward needs is back (a region's last linear is not run again)")
    facts.notes.append("norms, activations, pooling and elementwise ops cost 0 in both directions under "
                       "this convention" if _all_matmul_class(cost) else
                       "ops other than matmul-class ones have backward costs of their own under this rule set")
    tokens = _tokens(ir)
    if tokens is not None:
        embedding = sum(layer.params for layer in cost.layers if layer.node.kind == "embedding")
        non_embedding = cost.params - embedding
        facts.tokens = tokens
        facts.non_embedding_params = non_embedding
        per_token = _ratio(cost.flops + backward, tokens)  # model FLOPs: recomputation left out, as 6·N·T does
        if isinstance(non_embedding, (int, Expr)) and not _zero(non_embedding):
            facts.six_n_t = 6 * non_embedding * tokens
        if per_token is not None and isinstance(non_embedding, int) and non_embedding:
            facts.versus_6n = per_token / (6 * non_embedding)
    return facts


def _tokens(ir: ModelIR):
    """Tokens per step for language models: the size of the first integer (token id) input."""
    for spec in ir.inputs:
        if spec.dtype == "int64" and any(node.kind == "embedding" for node in ir.root.walk()):
            return numel(spec.shape)
    return None


def _all_matmul_class(cost: CostResult) -> bool:
    matmul_class = {"linear", "bilinear", "conv", "conv_transpose", "matmul", "einsum",
                    "scaled_dot_product_attention", "multihead_attention", "rnn", "gru", "lstm",
                    "conv_tbc", "linear_cross_entropy",  # issue 20: F.conv_tbc, its projection to the classes
                    "conv_lstm", "stft_spectrogram"}  # Keras ConvLSTM: gate convolutions; STFTSpectrogram: DFT convolutions
    return all(op.op.kind in matmul_class or _zero(op.flops) for op in cost.ops)


def _ratio(a, b) -> float | None:
    try:
        value = a / b
    except (ZeroDivisionError, TypeError):
        return None
    if isinstance(value, Expr):
        return None
    return float(value)


def _zero(value) -> bool:
    return not isinstance(value, Expr) and value == 0


def _fmt(value) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def run_budget(training_flops, steps: int, peak: float | None, mfu: float | None, recompute=0) -> dict:
    """``recompute``: the forward FLOPs gradient checkpointing runs again, in ``training_flops``.
    MFU is a fraction of *model* FLOPs (PaLM's definition: recomputation is not useful work),
    so the GPU-hours leave them out; the total counts what runs."""
    total = training_flops * steps
    budget = {"steps": steps, "total_flops": total,
              "formula": "total FLOPs = training FLOPs per step x steps"}
    if peak is not None and mfu is not None:
        useful = total if _zero(recompute) else (training_flops - recompute) * steps
        budget["formula"] = ("GPU-hours = training FLOPs per step x steps / (peak FLOP/s x MFU) / 3600"
                             if _zero(recompute) else
                             "GPU-hours = (training FLOPs per step - recomputed forward) x steps / (peak FLOP/s x MFU)"
                             " / 3600 (MFU counts model FLOPs, not recomputation)")
        budget["gpu_hours"] = (useful / (peak * mfu) / 3600 if not isinstance(useful, Expr)
                               else _scaled_formula(useful, 1 / (peak * mfu * 3600)))
    return budget


def _scaled_formula(total: Expr, factor: float) -> str:
    """GPU-hours of a symbolic FLOP count, ``4.71e-11*B``: a float per term (an exact fraction
    of a float peak would print as ``5614889/1979680000000000*B``)."""
    degree = lambda monomial: sum(power for _, power in monomial)  # noqa: E731
    terms = sorted(total.terms.items(), key=lambda item: (-degree(item[0]), format_dim(Expr({item[0]: 1}))))
    parts = [f"{float(coefficient) * factor:.4g}" + (f"*{format_dim(Expr({monomial: 1}))}" if monomial else "")
             for monomial, coefficient in terms]
    return " + ".join(parts).replace("+ -", "- ")
