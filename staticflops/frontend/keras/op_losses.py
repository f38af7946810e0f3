"""``keras.ops`` losses as Keras 3.15.1's TensorFlow backend computes them, from existing kinds
(helper kops, issue 20): the cross entropies, ``ctc_loss``, greedy ``ctc_decode`` and ``psnr``.
Each records the elementwise, reduction and loss kinds its lowering runs; the small scalar ops
are the backend's constant arithmetic, which the TF profiler counts one each (the `tf-profiler`
ground truth of tools/record_coverage_keras.py's probe).  frontend/keras/op_table.py binds
``LOSSES`` with its other tables.
"""

from __future__ import annotations

from staticflops.frontend.keras.op_composites import _record, _scalars, _tensor, _unknown_first
from staticflops.frontend.values import Tensor


def _binary_crossentropy(framework, f, interp, b, node):
    """binary_crossentropy(target, output): output clipped to [eps, 1 - eps], then
    -(t log(o) + (1 - t) log(1 - o)): Log, Mul, two Subs, Log, Mul, Add, Neg per element."""
    t, o = (_tensor(interp, b[name], "binary_crossentropy", node) for name in ("target", "output"))
    if not isinstance(t, Tensor) or not isinstance(o, Tensor):
        return _unknown_first(t, o)
    if b["from_logits"]:
        return interp.unknown("keras.ops.binary_crossentropy with from_logits=True is not modelled", node)
    one = Tensor((), "float32")
    o = f["clamp"](interp, [o], {}, node)
    positive = f["mul"](interp, [t, f["log"](interp, [o], {}, node)], {}, node)
    rest, complement = f["sub"](interp, [one, t], {}, node), f["sub"](interp, [one, o], {}, node)
    negative = f["mul"](interp, [rest, f["log"](interp, [complement], {}, node)], {}, node)
    return f["neg"](interp, [f["add"](interp, [positive, negative], {}, node)], {}, node)


def _categorical_crossentropy(framework, f, interp, b, node):
    """categorical_crossentropy(target, output, axis=-1): output / sum(output) along the axis,
    clipped, -sum(t log(o)) along the axis (Sum, RealDiv, clip, Log, Mul, Sum, Neg)."""
    t, o = (_tensor(interp, b[name], "categorical_crossentropy", node) for name in ("target", "output"))
    if not isinstance(t, Tensor) or not isinstance(o, Tensor):
        return _unknown_first(t, o)
    if b["from_logits"]:
        return interp.unknown("keras.ops.categorical_crossentropy with from_logits=True is not modelled", node)
    axis = b["axis"]
    total = _record(framework, interp, "reduce", "categorical_crossentropy",
                    {"op": "sum", "dim": axis, "keepdim": True}, [o], [o.shape], node, o.dtype)
    o = f["clamp"](interp, [f["div"](interp, [o, total], {}, node)], {}, node)
    terms = f["mul"](interp, [t, f["log"](interp, [o], {}, node)], {}, node)
    summed = _record(framework, interp, "reduce", "categorical_crossentropy",
                     {"op": "sum", "dim": axis, "keepdim": False}, [terms], [terms.shape], node, o.dtype)
    return f["neg"](interp, [summed], {}, node)


def _sparse_categorical_crossentropy(framework, f, interp, b, node):
    """sparse_categorical_crossentropy(target (batch,), output (batch, classes)): output
    clipped, its Log, then each row's target class picked and negated (kind loss, nll_loss with
    reduction 'none': the pick has no arithmetic the profiler sizes)."""
    t = _tensor(interp, b["target"], "sparse_categorical_crossentropy", node)
    o = _tensor(interp, b["output"], "sparse_categorical_crossentropy", node)
    if not isinstance(t, Tensor) or not isinstance(o, Tensor):
        return _unknown_first(t, o)
    if b["from_logits"] or len(o.shape) != 2 or b["axis"] not in (-1, 1):
        return interp.unknown("keras.ops.sparse_categorical_crossentropy with from_logits=True or an output "
                              "other than (batch, classes) is not modelled", node)
    logs = f["log"](interp, [f["clamp"](interp, [o], {}, node)], {}, node)
    return _record(framework, interp, "loss", "sparse_categorical_crossentropy",
                   {"op": "nll_loss", "reduction": "none"}, [logs, t], [logs.shape, t.shape], node, o.dtype)


def _ctc_loss(framework, f, interp, b, node):
    """ctc_loss(target (B, L), output (B, T, C), target_length, output_length): TensorFlow's
    ctc_loss_dense (tf.nn.ctc_loss, keras 3.15.1): the labels' one-hot probabilities (a Mul per
    (T, B, L, C) element, a Sum over the classes); the state transitions of the S = 2L + 2
    states (ctc_state_trans: an Add per label + 1, per S x S pair twice and a Log per pair, a
    Mul of 3 per sequence, an Add of 3 and an Equal and a Sub per label gap); nine scalar ops;
    the initial and final states (a Mul, a Sub and a Mul per (2, L + 1, B) element); the
    sequence mask (a Less per (B, T)); and the forward-backward recursion (kind loss, op
    ctc_loss: inside a tf.scan, which the profiler cannot size).  One loss per sequence.
    Measured by the op-surface probe at (L, T, C) = (3, 5, 4): 352; at (2, 6, 5) and (4, 7, 3)
    by tools/record_coverage_keras.py --one: 260 and 509 (tests/test_keras_op_lowerings.py)."""
    t, o = _tensor(interp, b["target"], "ctc_loss", node), _tensor(interp, b["output"], "ctc_loss", node)
    if not isinstance(t, Tensor) or not isinstance(o, Tensor):
        return _unknown_first(t, o)
    if len(t.shape) != 2 or len(o.shape) != 3 or not all(isinstance(d, int) for d in t.shape + o.shape):
        return interp.unknown("keras.ops.ctc_loss of other than a (batch, labels) target and a (batch, time, "
                              "classes) output of known sizes is not modelled", node)
    (batch, time, classes), labels = o.shape, t.shape[1]
    states = 2 * labels + 2
    hot = f["mul"](interp, [Tensor((time, batch, labels, classes)), Tensor((time, batch, labels, classes))], {}, node)
    _record(framework, interp, "reduce", "ctc_loss", {"op": "sum", "dim": -1, "keepdim": False}, [hot], [hot.shape],
            node)
    f["add"](interp, [Tensor((labels + 1,)), Tensor(())], {}, node)
    f["add"](interp, [Tensor((states, states)), Tensor(())], {}, node)
    f["mul"](interp, [Tensor((batch, 3)), Tensor(())], {}, node)
    gaps = Tensor((batch, labels - 1))
    f["add"](interp, [Tensor((batch, labels - 1, 3)), Tensor(())], {}, node)
    f["eq"](interp, [gaps, gaps], {}, node)
    f["sub"](interp, [gaps, gaps], {}, node)
    f["log"](interp, [f["add"](interp, [Tensor((batch, states, states)), Tensor(())], {}, node)], {}, node)
    _scalars(f, interp, node, "add", "add", "add", "add", "log", "log", "sub", "add", "add")
    ends = Tensor((2, labels + 1, batch))
    f["mul"](interp, [f["sub"](interp, [f["mul"](interp, [ends, ends], {}, node), ends], {}, node), ends], {}, node)
    f["lt"](interp, [Tensor((batch, time)), Tensor((batch, 1))], {}, node)
    return _record(framework, interp, "loss", "ctc_loss", {"op": "ctc_loss", "reduction": "none"},
                   [Tensor((time, batch, classes)), t], [(time, batch, classes), t.shape], node, o.dtype)


def _psnr(framework, f, interp, b, node):
    """psnr(x1, x2, max_val): 20 log10(max_val) - 10 log10(mse): Sub, Square and Mean per
    element, then per log10 two Logs (of the value and of 10), a RealDiv and a Mul, and a Sub."""
    a, c = _tensor(interp, b["x1"], "psnr", node), _tensor(interp, b["x2"], "psnr", node)
    if not isinstance(a, Tensor) or not isinstance(c, Tensor):
        return _unknown_first(a, c)
    squares = f["square"](interp, [f["sub"](interp, [a, c], {}, node)], {}, node)
    _record(framework, interp, "reduce", "psnr", {"op": "mean", "dim": None, "keepdim": False}, [squares],
            [squares.shape], node, a.dtype)
    _scalars(f, interp, node, "log", "log", "div", "mul", "log", "log", "div", "mul")
    return f["sub"](interp, [Tensor((), a.dtype), Tensor((), a.dtype)], {}, node)


def _ctc_decode(framework, f, interp, b, node):
    """ctc_decode(inputs (batch, time, classes), sequence_lengths, strategy='greedy'): the most
    likely class per time step (CTCGreedyDecoder: recorded as the argmax reduction over the
    classes, `ctc_greedy`), repeats merged and blanks dropped (no arithmetic): the decoded
    (top_paths, batch, time) int32 labels and the (batch, top_paths) log probabilities."""
    x = _tensor(interp, b["inputs"], "ctc_decode", node)
    if not isinstance(x, Tensor):
        return x
    if b["strategy"] != "greedy" or len(x.shape) != 3:
        return interp.unknown("keras.ops.ctc_decode other than greedy of (batch, time, classes) is not modelled", node)
    batch, time = x.shape[0], x.shape[1]
    with framework.ops.arguments([x]):
        decoded, log_probs = framework.ops.record(interp, "reduce", "ctc_decode",
                                                  {"op": "ctc_greedy", "dim": -1, "keepdim": False}, [x.shape], node,
                                                  outputs=[(1, batch, time), (batch, 1)], facts={}, dtype="float32")
    return Tensor(decoded.shape, "int32"), log_probs


# name -> (signature, lowering)
LOSSES = {
    "binary_crossentropy": ("target, output, from_logits=False", _binary_crossentropy),
    "categorical_crossentropy": ("target, output, from_logits=False, axis=-1", _categorical_crossentropy),
    "sparse_categorical_crossentropy": ("target, output, from_logits=False, axis=-1", _sparse_categorical_crossentropy),
    "ctc_loss": ("target, output, target_length, output_length, mask_index=0", _ctc_loss),
    "ctc_decode": ("inputs, sequence_lengths, strategy='greedy', beam_width=100, top_paths=1, merge_repeated=True, "
                   "mask_index=0", _ctc_decode),
    "psnr": ("x1, x2, max_val", _psnr),
}
