"""Attention: softmax(q k^T / sqrt(d)) v, alone (F.scaled_dot_product_attention) or with its
input and output projections (nn.MultiheadAttention, which returns (output, weights), the
weights averaged over heads unless asked otherwise, None with need_weights=False)."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.layout import expect_rank, expect_size
from staticflops.shapes.shape import numel
from staticflops.shapes.tensor_ops import ShapeError, broadcast


def _multihead_attention(attrs, inputs):
    query, key = inputs[0], inputs[1]
    expect_rank(query, (2, 3), "MultiheadAttention")
    expect_size(query[-1], attrs["embed_dim"], "MultiheadAttention expects embed_dim {wanted}, got {actual}")
    expect_size(key[-1], attrs["kdim"], "MultiheadAttention expects key dimension {wanted}, got {actual}")
    if len(query) == 3:
        batch_first = attrs["batch_first"]
        batch = query[0] if batch_first else query[1]
        target = query[1] if batch_first else query[0]
        source = key[1] if batch_first else key[0]
    else:
        batch, target, source = 1, query[0], key[0]
    weights = ((batch,) if len(query) == 3 else ()) + (target, source)
    if not attrs.get("average_attn_weights", True):
        weights = weights[:-2] + (attrs["num_heads"],) + weights[-2:]
    outputs = [query, weights if attrs.get("need_weights", True) else None]
    return outputs, {"batch": batch, "target_len": target, "source_len": source}


def _sdpa(attrs, inputs):
    q, k, v = inputs[0], inputs[1], inputs[2]
    expect_size(q[-1], k[-1], "scaled_dot_product_attention: query has {actual} features per head, key {wanted}")
    expect_size(k[-2], v[-2], "scaled_dot_product_attention: key length {wanted} differs from value length {actual}")
    if attrs.get("enable_gqa") and len(q) >= 3 and len(k) >= 3 and len(v) >= 3:
        # grouped-query attention: each key/value head serves query_heads / kv_heads query heads
        heads = q[-3]
        for kv in (k[-3], v[-3]):
            if isinstance(heads, int) and isinstance(kv, int) and (kv <= 0 or heads % kv):
                raise ShapeError(f"scaled_dot_product_attention: {heads} query heads are not a multiple of "
                                 f"{kv} key/value heads")
        batch = broadcast(q[:-3], k[:-3], v[:-3]) + (heads,)
    else:
        batch = broadcast(q[:-2], k[:-2], v[:-2])
    return [batch + (q[-2], v[-1])], {"batch_heads": numel(batch), "target_len": q[-2], "source_len": k[-2]}


def _multi_head_attention(attrs, inputs):
    """Keras MultiHeadAttention(query, value[, key]): (B, T, E) -> (B, T, output_dim), and the
    scores (B, heads, T, S)."""
    query, value = inputs[0], inputs[1]
    key = inputs[2] if len(inputs) > 2 else value
    for what, shape, wanted in (("query", query, attrs["query_dim"]), ("value", value, attrs["value_in_dim"]),
                                ("key", key, attrs["key_in_dim"])):
        expect_rank(shape, (3,), "MultiHeadAttention " + what)
        expect_size(shape[-1], wanted, "MultiHeadAttention expects " + what + " features {wanted}, got {actual}")
    output_dim = attrs["output_dim"] or attrs["query_dim"]
    out = query[:-1] + (output_dim,)
    scores = (query[0], attrs["num_heads"], query[1], key[1])
    return [out, scores], {"batch": query[0], "target_len": query[1], "source_len": key[1]}


KINDS = catalogue(
    Kind("multihead_attention", _multihead_attention, True,
         "nn.MultiheadAttention: q/k/v projections, attention per head, an output projection",
         (Example("self.m(x, x, x)", ("x:2x5x8",), ((2, 5, 8), (2, 5, 5)), 6720,
                  "E = 8, 2 heads, L = S = 5, batch 2: per row 2*5*8*8 (q, out) + 5*(8 + 8)*8 (k, v) + 2*5*5*8 "
                  "(scores, weighted sum) = 640 + 640 + 400 = 1,680 MACs; x 2 = 3,360 MACs = 6,720 FLOPs; "
                  "weights averaged: (2, 5, 5); params 3*8*8 + 3*8 + 8*8 + 8 = 288",
                  init="self.m = nn.MultiheadAttention(8, 2, batch_first=True)", params=288),)),
    Kind("scaled_dot_product_attention", _sdpa, True,
         "softmax(q k^T / sqrt(E)) v over the last two dims, batched over the rest (grouped-query with enable_gqa)",
         (Example("F.scaled_dot_product_attention(q, k, v)", ("q:2x2x5x4", "k:2x2x6x4", "v:2x2x6x4"),
                  ((2, 2, 5, 4),), 1920,
                  "2*2 = 4 (batch, head) pairs x 5 x 6 x (4 + 4) = 960 MACs = 1,920 FLOPs (the math kernel)"),)),

    Kind("multi_head_attention", _multi_head_attention, True,
         "Keras MultiHeadAttention: q/k/v projections per head, scaled dot-product attention, an output projection",
         (Example("layers.MultiHeadAttention(num_heads=2, key_dim=3)(q, q)", ("q:1x2x4",), ((1, 2, 4),), 480,
                  "T = S = 2, E = 4, 2 heads x key_dim = value_dim 3: q, k, v projections 3 x 2*4*6 = 144 MACs, "
                  "scores and weighted sum 2*2*2*(3 + 3) = 48, output 2*6*4 = 48: 240 MACs = 480 FLOPs; params "
                  "3 x (4*6 + 6) + 6*4 + 4 = 118", params=118, framework="keras"),)),
)
