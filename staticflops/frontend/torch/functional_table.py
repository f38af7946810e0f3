"""``torch.nn.functional`` functions added for issue 20, as a table: each names the op kind it
records (the kind its module form records too), its Python signature, which bound arguments
are the op's input tensors, which are weights it reads sizes from, and its constant attributes.
One binder (``bind``) serves every row: no per-function code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from staticflops.diagnostics import AnalysisError
from staticflops.frontend.values import Tensor, Unknown
from staticflops.shapes.expr import Expr
from staticflops.frontend.torch.layers import CONFIGURE, argument_error, legacy_reduction

_REDUCTION = "size_average=None, reduce=None, reduction='mean'"


@dataclass(frozen=True)
class Functional:
    kind: str
    signature: str  # the function's own, as torch 2.13 declares it
    inputs: tuple = ("input",)  # bound names whose shapes are the op's inputs (absent ones skipped)
    weights: tuple = ()  # bound names of weight tensors whose shapes ``sizes`` reads
    extra: dict = field(default_factory=dict)  # constant attributes (a loss's op, a mode)
    dims: int | None = None  # spatial dimensions of pooling functions
    sizes: Callable | None = None  # weight shapes -> attributes (F.bilinear's feature counts)


def _loss(op: str, signature: str, inputs=("input", "target")) -> Functional:
    return Functional("loss", signature, inputs, extra={"op": op})


def _bilinear_sizes(weights: dict) -> dict:
    out, in1, in2 = weights["weight"]
    return {"out_features": out, "in1_features": in1, "in2_features": in2}


def _embedding_sizes(weights: dict) -> dict:
    return {"num_embeddings": weights["weight"][0], "embedding_dim": weights["weight"][1]}


def _classifier_sizes(weights: dict) -> dict:
    return {"num_classes": weights["linear_weight"][0], "in_features": weights["linear_weight"][-1]}


FUNCTIONAL: dict[str, Functional] = {
    "hardshrink": Functional("hardshrink", "input, lambd=0.5"),
    "softshrink": Functional("softshrink", "input, lambd=0.5"),
    "tanhshrink": Functional("tanhshrink", "input"),
    "logsigmoid": Functional("logsigmoid", "input"),
    "softsign": Functional("softsign", "input"),
    "rrelu": Functional("rrelu", "input, lower=0.125, upper=0.3333333333333333, training=False, inplace=False"),
    "threshold": Functional("threshold", "input, threshold, value, inplace=False"),
    "softmin": Functional("softmin", "input, dim=None, _stacklevel=3, dtype=None"),
    "gumbel_softmax": Functional("gumbel_softmax", "logits, tau=1, hard=False, eps=1e-10, dim=-1", ("logits",)),
    "channel_shuffle": Functional("channel_shuffle", "input, groups"),
    "local_response_norm": Functional("local_response_norm", "input, size, alpha=0.0001, beta=0.75, k=1.0"),
    "alpha_dropout": Functional("dropout", "input, p=0.5, training=False, inplace=False"),
    "feature_alpha_dropout": Functional("dropout", "input, p=0.5, training=False, inplace=False"),
    "cosine_similarity": Functional("cosine_similarity", "x1, x2, dim=1, eps=1e-08", ("x1", "x2")),
    "pairwise_distance": Functional("pairwise_distance", "x1, x2, p=2.0, eps=1e-06, keepdim=False", ("x1", "x2")),
    "pdist": Functional("pdist", "input, p=2"),
    "unfold": Functional("unfold", "input, kernel_size, dilation=1, padding=0, stride=1"),
    "fold": Functional("fold", "input, output_size, kernel_size, dilation=1, padding=0, stride=1"),
    "affine_grid": Functional("affine_grid", "theta, size, align_corners=None", ("theta",)),
    "grid_sample": Functional("grid_sample", "input, grid, mode='bilinear', padding_mode='zeros', align_corners=None",
                              ("input", "grid")),
    "upsample_nearest": Functional("interpolate", "input, size=None, scale_factor=None", extra={"mode": "nearest"}),
    "upsample_bilinear": Functional("interpolate", "input, size=None, scale_factor=None", extra={"mode": "bilinear"}),
    "bilinear": Functional("bilinear", "input1, input2, weight, bias=None", ("input1", "input2"), ("weight",),
                           sizes=_bilinear_sizes),
    "embedding_bag": Functional(
        "embedding_bag", "input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, "
        "mode='mean', sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None",
        ("input", "offsets"), ("weight",), sizes=_embedding_sizes),
    "conv_tbc": Functional("conv_tbc", "input, weight, bias, pad=0", ("input", "weight")),
    "linear_cross_entropy": Functional(
        "linear_cross_entropy", "input, linear_weight, target, *, linear_bias=None, weight=None, reduction='mean', "
        "ignore_index=None, label_smoothing=0.0, options=None", ("input", "target"), ("linear_weight",),
        sizes=_classifier_sizes),
    "cosine_embedding_loss": _loss("cosine_embedding_loss", f"input1, input2, target, margin=0, {_REDUCTION}",
                                   ("input1", "input2", "target")),
    "hinge_embedding_loss": _loss("hinge_embedding_loss", f"input, target, margin=1.0, {_REDUCTION}"),
    "margin_ranking_loss": _loss("margin_ranking_loss", f"input1, input2, target, margin=0, {_REDUCTION}",
                                 ("input1", "input2", "target")),
    "soft_margin_loss": _loss("soft_margin_loss", f"input, target, {_REDUCTION}"),
    "multilabel_margin_loss": _loss("multilabel_margin_loss", f"input, target, {_REDUCTION}"),
    "multilabel_soft_margin_loss": _loss("multilabel_soft_margin_loss", f"input, target, weight=None, {_REDUCTION}"),
    "multi_margin_loss": _loss("multi_margin_loss", f"input, target, p=1, margin=1.0, weight=None, {_REDUCTION}"),
    "poisson_nll_loss": _loss("poisson_nll_loss", "input, target, log_input=True, full=False, size_average=None, "
                                                  "eps=1e-08, reduce=None, reduction='mean'"),
    "gaussian_nll_loss": _loss("gaussian_nll_loss", "input, target, var, full=False, eps=1e-06, reduction='mean'",
                               ("input", "target", "var")),
    "triplet_margin_loss": _loss("triplet_margin_loss", "anchor, positive, negative, margin=1.0, p=2, eps=1e-06, "
                                                        f"swap=False, {_REDUCTION}", ("anchor", "positive", "negative")),
    "triplet_margin_with_distance_loss": _loss(
        "triplet_margin_with_distance_loss", "anchor, positive, negative, *, distance_function=None, margin=1.0, "
        "swap=False, reduction='mean'", ("anchor", "positive", "negative")),
    "ctc_loss": _loss("ctc_loss", "log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean', "
                                  "zero_infinity=False", ("log_probs", "targets")),
}
for _n in (1, 2, 3):
    FUNCTIONAL[f"lp_pool{_n}d"] = Functional("lp_pool", "input, norm_type, kernel_size, stride=None, ceil_mode=False",
                                             dims=_n)
    FUNCTIONAL[f"max_unpool{_n}d"] = Functional(
        "max_unpool", "input, indices, kernel_size, stride=None, padding=0, output_size=None", ("input", "indices"),
        dims=_n)
# In-place variants follow their out-of-place kind (the probe leaves them out for that reason).
FUNCTIONAL["rrelu_"] = Functional("rrelu", "input, lower=0.125, upper=0.3333333333333333, training=False")
FUNCTIONAL["threshold_"] = Functional("threshold", "input, threshold, value")
for _n in (2, 3):
    FUNCTIONAL[f"fractional_max_pool{_n}d"] = Functional(
        "fractional_max_pool", "input, kernel_size, output_size=None, output_ratio=None, return_indices=False, "
        "_random_samples=None", dims=_n)


def call_distance(interp, distance, tensors: list, swap, node) -> None:
    """TripletMarginWithDistanceLoss's ``distance_function`` runs on (anchor, positive) and
    (anchor, negative), and (positive, negative) with ``swap``: its own ops are traced (a
    matmul in it is counted), its results only feed the loss."""
    if distance is None or len(tensors) < 3:
        return
    pairs = [(0, 1), (0, 2)] + ([(1, 2)] if swap is True else [])
    for a, b in pairs:
        interp.call(distance, [tensors[a], tensors[b]], {}, node)


def _plain(value) -> bool:
    """A value an attribute may hold: numbers, strings, sizes (symbolic too), or an Unknown that
    ``record`` then reports as the unresolved argument."""
    simple = (bool, int, float, str, Expr, Unknown)
    return value is None or isinstance(value, simple) or (
        isinstance(value, (tuple, list)) and all(isinstance(v, simple) for v in value))


def build_functional(ops) -> dict:
    """name -> fn(interp, args, kwargs, node) for every row of ``FUNCTIONAL``."""
    return {name: _binder(ops, name, spec) for name, spec in FUNCTIONAL.items()}


def _binder(ops, name: str, spec: Functional):
    label = f"F.{name}"

    def bind(interp, args, kwargs, node):
        bound = interp.bind_signature(spec.signature, label, args, kwargs, node)
        shapes = [ops.shape_of(interp, bound[k], node) for k in spec.inputs if bound.get(k) is not None]
        tensor_names = set(spec.inputs) | set(spec.weights)
        attrs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in bound.items()
                 if k not in tensor_names and not k.startswith("_") and _plain(v)}
        attrs.update(spec.extra, type=label)
        if spec.sizes is not None:
            attrs.update(spec.sizes({k: ops.shape_of(interp, bound[k], node) for k in spec.weights}))
            attrs["bias"] = bound.get("bias", bound.get("linear_bias")) is not None
        if spec.kind == "loss":
            attrs["reduction"] = legacy_reduction(attrs)
            if "distance_function" in bound:
                attrs["custom_distance"] = bound["distance_function"] is not None
        if spec.kind in CONFIGURE:
            attrs = CONFIGURE[spec.kind](attrs, spec.dims)
        if problem := argument_error(spec.kind, attrs):
            raise AnalysisError(f"{label}: {problem}", interp.location(node), "SF301")
        call_distance(interp, bound.get("distance_function"), [bound.get(k) for k in spec.inputs], bound.get("swap"), node)
        first = bound.get(spec.inputs[0])
        dtype = first.dtype if isinstance(first, Tensor) and spec.kind != "embedding_bag" else "float32"
        result = ops.record(interp, spec.kind, label, attrs, shapes, node, dtype=dtype)
        if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], Tensor):
            result[1].dtype, result[1].requires_grad = "int64", False  # (values, indices)
        return result
    return bind
