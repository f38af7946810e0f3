"""Keras's dot-product and additive attention layers (``layers.Attention``,
``layers.AdditiveAttention``), written as the ops Keras 3's own ``call`` runs, so every rule
set prices each of them as it prices that op anywhere else (matmul, softmax, tanh, ...): no
cost of their own to decide.

Inputs ``[query (B, Tq, dim), value (B, Tv, dim_v)]`` or ``[query, value, key]`` (key
defaults to value); output ``(B, Tq, dim_v)``, and the attention weights ``(B, Tq, Tv)``
with ``return_attention_scores=True``.  Weights: Attention's scalar ``scale``
(``use_scale=True``) and ``concat_score_weight`` (``score_mode='concat'``); AdditiveAttention's
``scale`` of size ``dim`` (``use_scale=True``, its default).
"""

from __future__ import annotations

from staticflops.frontend.values import Builtin, Class, Parameter, Tensor

_SIGNATURES = {
    "Attention": "use_scale=False, score_mode='dot', dropout=0.0, seed=None, **kwargs",
    "AdditiveAttention": "use_scale=True, dropout=0.0, **kwargs",
}
_CALL = "inputs, mask=None, training=False, return_attention_scores=False, use_causal_mask=False"


def attention_classes(engine) -> dict:
    return {name: _attention_class(engine, name) for name in _SIGNATURES}


def _attention_class(engine, name: str) -> Class:
    def init(interp, args, kwargs, node):
        layer = args[0]
        bound = interp.bind_signature(f"self, {_SIGNATURES[name]}", name, args, kwargs, node)
        engine._base_init(layer, bound.get("kwargs", {}))
        mode = "additive" if name == "AdditiveAttention" else bound["score_mode"]
        if mode not in ("dot", "concat", "additive"):
            raise interp.fail(f"{name}: score_mode must be 'dot' or 'concat', got {mode!r}", node, code="SF301")
        layer.keras.extra.update(use_scale=bool(bound["use_scale"]), mode=mode)

    def call(interp, args, kwargs, node):
        layer = args[0]
        bound = interp.bind_signature(f"self, {_CALL}", f"{name}.call", args, kwargs, node)
        inputs = bound["inputs"]
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3) \
                or not all(isinstance(t, Tensor) and t.shape is not None for t in inputs):
            return interp.unknown(f"{name} expects [query, value] or [query, value, key] tensors of known shape",
                                  node)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        weights = _weights(layer, query)
        f = engine.framework.functions
        mode = layer.keras.extra["mode"]
        if mode == "dot":
            scores = f["matmul"](interp, [query, f["transpose"](interp, [key, -2, -1], {}, node)], {}, node)
            if "scale" in weights:
                scores = f["mul"](interp, [scores, weights["scale"]], {}, node)
        else:  # sum(scale * tanh(q[:, :, None] + k[:, None]), axis=-1)
            pairs = f["add"](interp, [f["unsqueeze"](interp, [query, -2], {}, node),
                                      f["unsqueeze"](interp, [key, -3], {}, node)], {}, node)
            if mode == "concat" and "scale" in weights:
                pairs = f["mul"](interp, [weights["scale"], pairs], {}, node)
            pairs = f["tanh"](interp, [pairs], {}, node)
            if mode == "additive":  # `scale` is 1.0 without use_scale: Keras still multiplies
                pairs = f["mul"](interp, [weights.get("scale", 1.0), pairs], {}, node)
            scores = f["sum"](interp, [pairs], {"dim": -1}, node)
            if mode == "concat":
                scores = f["mul"](interp, [weights["concat_score_weight"], scores], {}, node)
        if not isinstance(scores, Tensor):
            return scores
        if bound["use_causal_mask"] or bound["mask"] is not None:  # masked scores: where(mask, s - big, s)
            scores = f["where"](interp, [Tensor(scores.shape, "bool"), scores, scores], {}, node)
        attention = f["softmax"](interp, [scores], {"dim": -1}, node)
        output = f["matmul"](interp, [attention, value], {}, node)
        return (output, attention) if bound["return_attention_scores"] else output

    methods = {"__init__": init, "call": call}
    return Class(name, (engine.layer_class,), {k: Builtin(f"{name}.{k}", v) for k, v in methods.items()})


def _weights(layer, query: Tensor) -> dict:
    """The layer's weights, made on its first call (Keras's build): name -> Parameter."""
    parameters = layer.module.parameters
    if not layer.keras.extra.get("weights_made"):
        layer.keras.extra["weights_made"] = True
        extra = layer.keras.extra
        if extra["use_scale"]:
            shape = (query.shape[-1],) if extra["mode"] == "additive" else ()
            parameters["scale"] = Parameter(shape, owner=layer)
        if extra["mode"] == "concat":
            parameters["concat_score_weight"] = Parameter((), owner=layer)
    return dict(parameters)
