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


_GQA = ("head_dim, num_query_heads, num_key_value_heads, dropout=0.0, use_bias=True, sliding_window=None, "
        "flash_attention=None, kernel_initializer='glorot_uniform', bias_initializer='zeros', "
        "kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, "
        "bias_constraint=None, use_gate=False, seed=None, **kwargs")
_GQA_CALL = ("query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None, "
             "return_attention_scores=False, training=None, use_causal_mask=False")


def grouped_query_attention_class(engine) -> Class:
    """``layers.GroupedQueryAttention`` (also exported as GroupQueryAttention): EinsumDense
    projections of the query to (T, Hq, head_dim) and of key and value to (S, Hkv, head_dim),
    key/value heads repeated Hq / Hkv times, attention, and an EinsumDense back to the query's
    features; made of sub-layers as Keras builds it (`query`, `key`, `value`, `gate`,
    `attention_output`), so the projections are EinsumDense layers in every rule set."""
    from staticflops.frontend.keras.ops import dot_product_attention, keras_einsum, repeat

    def init(interp, args, kwargs, node):
        layer = args[0]
        bound = interp.bind_signature(f"self, {_GQA}", "GroupedQueryAttention", args, kwargs, node)
        engine._base_init(layer, bound.get("kwargs", {}))
        heads, kv_heads = bound["num_query_heads"], bound["num_key_value_heads"]
        if isinstance(heads, int) and isinstance(kv_heads, int) and (kv_heads <= 0 or heads % kv_heads):
            raise interp.fail("GroupedQueryAttention: num_query_heads must be a multiple of num_key_value_heads",
                              node, code="SF301")
        layer.keras.extra.update({k: bound[k] for k in ("head_dim", "num_query_heads", "num_key_value_heads",
                                                         "dropout", "use_bias", "use_gate", "sliding_window")})

    def dense(interp, layer, name, equation, output_shape, bias_axes, node, activation=None):
        child = interp.call(engine.layers["EinsumDense"], [equation],
                            {"output_shape": output_shape, "bias_axes": bias_axes if layer.keras.extra["use_bias"] else None,
                             "activation": activation, "name": name}, node)
        layer.module.children[name] = child
        return child

    def call(interp, args, kwargs, node):
        layer = args[0]
        bound = interp.bind_signature(f"self, {_GQA_CALL}", "GroupedQueryAttention.call", args, kwargs, node)
        query, value = bound["query"], bound["value"]
        key = value if bound["key"] is None else bound["key"]
        extra = layer.keras.extra
        if extra["sliding_window"] is not None:
            return interp.unknown("GroupedQueryAttention with sliding_window is not modelled", node)
        if not all(isinstance(t, Tensor) and t.shape is not None and len(t.shape) == 3 for t in (query, key, value)):
            return interp.unknown("GroupedQueryAttention expects (batch, length, features) tensors of known shape",
                                  node)
        if isinstance(query.shape[-1], int) and isinstance(value.shape[-1], int) and query.shape[-1] != value.shape[-1]:
            raise interp.fail(f"GroupedQueryAttention: the query and value features must be equal, got "
                              f"{query.shape[-1]} and {value.shape[-1]}", node, code="SF301")
        heads, kv_heads, size = extra["num_query_heads"], extra["num_key_value_heads"], extra["head_dim"]
        children = layer.module.children
        if "query" not in children:  # Keras's build, on the first call
            dense(interp, layer, "query", "bqm,muh->bquh", (None, heads, size), "uh", node)
            dense(interp, layer, "key", "bkm,mvh->bkvh", (None, kv_heads, size), "vh", node)
            if extra["use_gate"]:
                dense(interp, layer, "gate", "bqm,muh->bquh", (None, heads, size), "uh", node, activation="sigmoid")
            dense(interp, layer, "value", "bkm,mvh->bkvh", (None, kv_heads, size), "vh", node)
            dense(interp, layer, "attention_output", "bquh,uhm->bqm", (None, query.shape[-1]), "m", node)
        f = engine.framework.functions
        gate = interp.call(children["gate"], [query], {}, node) if "gate" in children else None
        q = interp.call(children["query"], [query], {}, node)
        k = interp.call(children["key"], [key], {}, node)
        v = interp.call(children["value"], [value], {}, node)
        if not all(isinstance(t, Tensor) and t.shape is not None for t in (q, k, v)):
            return interp.unknown("GroupedQueryAttention projections of unknown shape", node)
        k = repeat(interp, engine.framework, k, heads // kv_heads, 2, node)
        v = repeat(interp, engine.framework, v, heads // kv_heads, 2, node)
        masked = bound["use_causal_mask"] or any(bound[m] is not None for m in (
            "query_mask", "value_mask", "key_mask", "attention_mask"))
        scale = 1.0 / size ** 0.5 if isinstance(size, int) else 1.0
        scores = None
        if not (extra["dropout"] or bound["return_attention_scores"]):  # ops.dot_product_attention
            output = dot_product_attention(interp, engine.framework, q, k, v, node, scale=scale, is_causal=masked)
        else:  # the layer's own einsums (Keras's einsum: matmuls for TensorFlow)
            q = f["mul"](interp, [q, scale], {}, node)
            scores = keras_einsum(interp, engine.framework, "bquh,bkuh->buqk", [q, k], node)
            if masked:
                scores = f["where"](interp, [Tensor(scores.shape, "bool"), scores, scores], {}, node)
            scores = f["softmax"](interp, [scores], {"dim": -1}, node)
            output = keras_einsum(interp, engine.framework, "buqk,bkuh->bquh", [scores, v], node)
        if gate is not None and isinstance(output, Tensor):
            output = f["mul"](interp, [output, gate], {}, node)
        output = interp.call(children["attention_output"], [output], {}, node)
        return (output, scores) if bound["return_attention_scores"] else output

    methods = {"__init__": init, "call": call}
    return Class("GroupedQueryAttention", (engine.layer_class,),
                 {k: Builtin(f"GroupedQueryAttention.{k}", v) for k, v in methods.items()})
