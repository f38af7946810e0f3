"""Recurrent layers: the same cell applied step after step (torch.nn RNN, GRU, LSTM and their
*Cell forms; Keras SimpleRNN, GRU, LSTM share the kinds, batch-major, with a shape rule of
their own, ``_keras_recurrent``).

Return structure: RNN and GRU give (output, h_n), LSTM (output, (h_n, c_n)); the cells give
h', and LSTMCell (h', c').
"""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.layout import expect_rank, expect_size


def _recurrent(attrs, inputs):
    x = inputs[0]
    if "return_sequences" in attrs:  # a Keras layer: batch-major, returns what return_* ask for
        return _keras_recurrent(attrs, x)
    name = attrs.get("type", "RNN")
    expect_rank(x, (2, 3), name)
    expect_size(x[-1], attrs["input_size"], name + " expects input_size {wanted}, got {actual}")
    batched = len(x) == 3
    if batched:
        batch, steps = (x[0], x[1]) if attrs["batch_first"] else (x[1], x[0])
    else:
        batch, steps = 1, x[0]
    directions = 2 if attrs["bidirectional"] else 1
    hidden_out = attrs["proj_size"] or attrs["hidden_size"]
    output = x[:-1] + (directions * hidden_out,)
    state = (directions * attrs["num_layers"],) + ((batch,) if batched else ()) + (hidden_out,)
    outputs = [output, state]
    if attrs["kind"] == "lstm":
        outputs.append(state[:-1] + (attrs["hidden_size"],))
    return outputs, {"seq_len": steps, "batch": batch}


def _keras_recurrent(attrs, x):
    """Keras RNN layers: batch-major (B, T, F); output (B, T, H) or (B, H), then the states."""
    name = attrs.get("type", "RNN")
    expect_rank(x, (3,), name)
    expect_size(x[-1], attrs["input_size"], name + " expects {wanted} input features, got {actual}")
    batch, steps, units = x[0], x[1], attrs["hidden_size"]
    directions = 2 if attrs["bidirectional"] else 1
    output = (batch, steps, directions * units) if attrs["return_sequences"] else (batch, directions * units)
    outputs = [output]
    if attrs.get("return_state"):
        outputs += [(batch, units)] * (2 if attrs["kind"] == "lstm" else 1) * directions
    return outputs, {"seq_len": steps, "batch": batch}


def _rnn_cell(attrs, inputs):
    x = inputs[0]
    name = attrs.get("type", "RNNCell")
    expect_rank(x, (1, 2), name)
    expect_size(x[-1], attrs["input_size"], name + " expects input_size {wanted}, got {actual}")
    h = x[:-1] + (attrs["hidden_size"],)
    return [h, h] if attrs["gates"] == 4 else [h], {"batch": x[0] if len(x) == 2 else 1}


KINDS = catalogue(
    Kind("rnn", _recurrent, True, "h' = tanh(W_ih x + W_hh h + b) per step, layer and direction (one gate)",
         (Example("self.m(x)", ("x:2x5x4",), ((2, 5, 8), (1, 2, 8)), 1920,
                  "batch_first: output (2, 5, 8), h_n (1 layer, 2, 8); 5 steps x 2 rows x 8 x (4 + 8) = 960 MACs = "
                  "1,920 FLOPs; params 8 x (4 + 8) + 2 biases x 8 = 112",
                  init="self.m = nn.RNN(4, 8, batch_first=True)", params=112),)),
    Kind("gru", _recurrent, True, "a gated recurrent unit: three gates per step",
         (Example("self.m(x)", ("x:5x4",), ((5, 8), (1, 8)), 2880,
                  "unbatched: output (5, 8), h_n (1, 8); 5 steps x 3 gates x 8 x (4 + 8) = 1,440 MACs = 2,880 "
                  "FLOPs; params 3*8*(4 + 8) + 2*3*8 = 336",
                  init="self.m = nn.GRU(4, 8)", params=336),)),
    Kind("lstm", _recurrent, True, "a long short-term memory: four gates and a cell state per step",
         (Example("self.m(x)", ("x:5x2x4",), ((5, 2, 8), (1, 2, 8), (1, 2, 8)), 7680,
                  "(time, batch, in): output (5, 2, 8), h_n and c_n (1, 2, 8); 5 steps x 2 rows x 4 gates x 8 x "
                  "(4 + 8) = 3,840 MACs = 7,680 FLOPs (counted as the math computes); params 4*8*(4 + 8) + "
                  "2*4*8 = 448", init="self.m = nn.LSTM(4, 8)", params=448),)),
    Kind("rnn_cell", _rnn_cell, True, "one step of an RNN, GRU (gates=3) or LSTM (gates=4) cell",
         (Example("self.m(x)", ("x:2x4",), ((2, 8), (2, 8)), 1536,
                  "LSTMCell: h' and c' of (2, 8); 2 rows x 4 gates x 8 x (4 + 8) = 768 MACs = 1,536 FLOPs (the "
                  "hidden matmul runs on a zero state); params 4*8*(4 + 8) + 2*4*8 = 448",
                  init="self.m = nn.LSTMCell(4, 8)", params=448),)),
)
