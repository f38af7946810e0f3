"""Regressions for the wrong/error cases of issue 20 that the torch recording cannot show
(Keras), with the arithmetic derived by hand.  The torch ones are recorded cases in
tests/test_ops_recorded.py (conv_transpose2d_output_size, max_pool2d_return_indices, ...)."""

import staticflops

KERAS_IDENTITY = '''
import keras
from keras import layers, ops

inputs = keras.Input(shape=(3,))
h = layers.Dense(3)(inputs)
model = keras.Model(inputs, ops.matmul(h, ops.identity(3)))
'''


def test_keras_ops_identity_builds_a_matrix(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(KERAS_IDENTITY)
    report = staticflops.analyze(str(path), batch=1)
    assert report.unknown == []
    # ops.identity(3) is a 3x3 matrix: (1, 3) @ (3, 3) -> (1, 3)
    assert [list(s) for s in report.outputs] == [[1, 3]]
    # Dense(3) on 3 features: 3*3 = 9 MACs; matmul: 3 outputs x 3 products = 9 MACs;
    # 18 MACs = 36 FLOPs.  Params: 3*3 + 3 = 12.
    assert report.totals.forward_flops == 36
    assert report.totals.params == 12


def test_tf_identity_still_returns_its_argument(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(KERAS_IDENTITY.replace("import keras\n", "import keras\nimport tensorflow as tf\n")
                    .replace("ops.matmul(h, ops.identity(3))", "tf.identity(h)"))
    report = staticflops.analyze(str(path), batch=1)
    assert report.unknown == []
    assert [list(s) for s in report.outputs] == [[1, 3]]
    assert report.totals.forward_flops == 18  # the Dense alone: 9 MACs


def _recorded(name: str, rules: str):
    import json
    from pathlib import Path

    from staticflops.api import analyze_text
    entry = json.loads((Path(__file__).parent / "fixtures" / "ops_ground_truth.json").read_text())[name]
    inputs = ["x".join(str(d) for d in spec["shape"]) for spec in entry["inputs"]]
    return analyze_text(entry["source"], f"{name}.py", model="Model", inputs=inputs, rules=rules)


def test_add_product_under_other_conventions():
    # GPT-2 Conv1D: addmm(bias[6], x[10, 8], W[8, 6]); 10*6 outputs x 8 products = 480 MACs.
    # full: per output 8 mults + 7 adds + 1 bias add = 16 -> 60 * 16 = 960.
    assert _recorded("addmm_gpt2_conv1d", "full").totals.forward_flops == 960
    # ptflops' addmm hook: prod(mat1) x mat2's last dim + prod(input) = 80*6 + 6 = 486 MACs.
    assert _recorded("addmm_gpt2_conv1d", "ptflops").totals.macs == 486
    # baddbmm(beta=0, alpha=0.125) on 3x4x5 @ 3x5x7: 84 outputs x 5 products = 420 MACs.
    # full: 5 mults + 4 adds (no input add, beta = 0) + 1 alpha multiply = 10 per output = 840.
    assert _recorded("baddbmm", "full").totals.forward_flops == 840
    # fvcore has a handle for aten::addmm only.
    assert _recorded("baddbmm", "fvcore").totals.macs == 0
    assert _recorded("addmm_gpt2_conv1d", "fvcore").totals.macs == 480
    # FlopCounterMode (`torch`) has no formula for aten.addbmm: 0, as recorded.
    assert _recorded("addbmm", "torch").totals.forward_flops == 0
    # thop sees modules only.
    assert _recorded("addmm_gpt2_conv1d", "thop").totals.macs == 0


def test_full_counts_the_new_kinds():
    # cumsum(1), cumsum(-1) on 3x4: 3 rows x 3 adds = 9 each; cumprod(0): 4 columns x 2 = 8 -> 26.
    assert _recorded("cumsum_cumprod", "full").totals.forward_flops == 26
    # sort along 5 on 3x5 (twice): 3 rows x 5 x ceil(log2 5) = 3 x 5 x 3 = 45 each -> 90.
    assert _recorded("sort_values_indices", "full").totals.forward_flops == 90
    # scatter: 0; scatter_add of a 3x2 source: 6 adds; index_add of x[:2] * 2 (2x5): 10 adds,
    # plus the 10 multiplies of `x[:2] * 2` -> 26.
    assert _recorded("scatter_family", "full").totals.forward_flops == 26
    # Linear(6, 6) on 4x6: 24 outputs x (6 + 5 + 1) = 288; F.normalize over 6 (twice):
    # 4 rows x (3 * 6 + 1) = 76 each -> 440.
    assert _recorded("f_normalize", "full").totals.forward_flops == 440
    # Under `standard` (FlopCounterMode) only the Linear counts: 24 x 6 = 144 MACs = 288.
    assert _recorded("f_normalize", "standard").totals.forward_flops == 288


def test_recurrent_cells_and_losses_under_other_conventions():
    # RNNCell(6, 5) on 3x6, bias: thop's count_rnn_cell = 5*(6 + 5) + 5 + 2*5 = 70 per row -> 210.
    assert _recorded("rnn_cell", "thop").totals.macs == 210
    # full: mat-vecs 5 * (2*6 + 2*5 - 2) = 100, tanh + combine 2*5 = 10, biases 2*5 = 10 -> 120
    # per row -> 360.
    assert _recorded("rnn_cell", "full").totals.forward_flops == 360
    # fvcore has no handle for aten::rnn_tanh_cell.
    assert _recorded("rnn_cell", "fvcore").totals.macs == 0
    # full on 3x4 inputs: MSELoss(sum) 12*2 + 11 adds = 35; F.mse_loss (mean) 24 + 11 + 1 = 36;
    # F.l1_loss(none) 24; SmoothL1Loss (mean) 12*5 + 12 = 72 -> 167.
    assert _recorded("mse_l1_losses", "full").totals.forward_flops == 167
    # Linear(6, 4) on 3x6: 12 x (6 + 5 + 1) = 144; CrossEntropyLoss over 4 classes, 3 rows:
    # 3 x 5*4 = 60, mean: 2 adds + 1 divide -> 63; 207 in all.
    assert _recorded("cross_entropy_module", "full").totals.forward_flops == 207


SYMBOLIC_SCALAR = '''
import torch
from torch import nn


class AddsItsLength(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.add(self.fc(x), x.shape[1])
'''


def test_a_symbolic_size_is_a_scalar_operand(tmp_path):
    """``torch.add(t, x.shape[1])`` with the size a symbol T: a Python number, as with a concrete
    size (it used to be "Expr used as a tensor", leaving the result unknown)."""
    path = tmp_path / "model.py"
    path.write_text(SYMBOLIC_SCALAR)
    report = staticflops.analyze(str(path), inputs=["1xTx8"])
    assert report.unknown == []
    assert report.outputs == [[1, "T", 8]]
    assert report.totals.forward_flops == "128*T"  # Linear(8, 8): 2 * 8 * 8 per token
