"""Tensor methods and torch.* functions bound by one table (issue 20, tensor ops family).

Structure: every binding of ``frontend/torch/tensor_table.py`` names a known kind, each kind
of the catalogue (``staticflops/kinds/``) carries worked examples, and every kind that computes
has an explicit decision in every built-in rule set's own file.  Behaviour: each example runs
under every rule set with the expected number written here, derived by hand; a few ops with
more than one product or an unusual signature get their own derived case.
"""

from pathlib import Path

import pytest
import yaml

from staticflops import AnalysisError
from staticflops.api import analyze_text
from staticflops.frontend.torch import tensor_table
from staticflops.frontend.torch.framework import TorchFramework
from staticflops.kinds.catalogue import KINDS, TENSOR_FAMILIES
from staticflops.shapes.layers import SHAPE_FUNCTIONS

RULES = Path(__file__).resolve().parent.parent / "rules"
RULE_SETS = ["standard", "full", "tf-profiler", "torch", "fvcore", "thop", "ptflops", "torchinfo", "torchstat",
             "calflops"]
# The tensor-op kinds (the nn layer kinds have their own per-rule-set figures and decisions:
# tests/test_nn_kinds.py, tests/test_kind_decisions.py).
COMPUTING = sorted(name for family in TENSOR_FAMILIES for name, kind in family.KINDS.items() if kind.computes)


def _model(call: str, inputs, init: str = "") -> tuple:
    names = [spec.split(":")[0] for spec in inputs]
    constructor = "".join(f"        {line}\n" for line in init.splitlines())
    if constructor:
        constructor = "    def __init__(self):\n        super().__init__()\n" + constructor + "\n"
    functional = "import torch.nn.functional as F\n" if "F." in call else ""  # (line numbers asserted below)
    source = ("import torch\nfrom torch import nn\n" + functional + "\n\nclass Model(nn.Module):\n"
              f"{constructor}    def forward(self, {', '.join(names)}):\n        return {call}\n")
    specs = []
    for spec in inputs:
        _, _, rest = spec.partition(":")
        dtype, _, dims = rest.rpartition(":")
        specs.append(dims + (f":{dtype}" if dtype else ""))
    return source, specs


def _keras_model(call: str, inputs) -> tuple:
    """A Keras functional model: one ``keras.Input`` per input (its first size the batch), the
    call its output."""
    lines, names, batch = ["import keras", "from keras import layers", "", ""], [], None
    for spec in inputs:
        name, _, rest = spec.partition(":")
        dtype, _, dims = rest.rpartition(":")
        sizes = [int(d) for d in dims.split("x")]
        batch = sizes[0] if batch is None else batch
        assert sizes[0] == batch, "the inputs of a Keras case share the batch"
        shape = "".join(f"{d}, " for d in sizes[1:])
        lines.append(f"{name} = keras.Input(shape=({shape.rstrip(' ')})" + (f", dtype={dtype!r})" if dtype else ")"))
        names.append(name)
    lines.append(f"model = keras.Model([{', '.join(names)}], {call})")
    return "\n".join(lines) + "\n", batch


def run(call: str, inputs, rules: str = "standard", init: str = "", framework: str = "torch"):
    """Analyse a worked case: a torch.nn Module whose forward returns ``call``, or (framework
    "keras") a Keras functional model whose output is ``call``."""
    if framework == "keras":
        source, batch = _keras_model(call, inputs)
        return analyze_text(source, "m.py", rules=rules, batch=batch)
    source, specs = _model(call, inputs, init)
    return analyze_text(source, "m.py", model="Model", inputs=specs, rules=rules)


# ---- structure -------------------------------------------------------------------------

def test_every_binding_names_a_known_kind_and_every_alias_a_function():
    functions = TorchFramework().functions
    for name, entry in tensor_table.TABLE.items():
        if isinstance(entry, tensor_table.Op):
            assert entry.kind in KINDS or entry.kind in SHAPE_FUNCTIONS, name
        elif isinstance(entry, tensor_table.Alias):
            assert entry.target in functions, name
        assert name in functions, name


def test_a_name_is_bound_once():
    # The table may not rebind a name functions.py already defines (as FlopCounterMode's
    # register_flop_formula refuses a duplicate).
    with pytest.raises(ValueError, match="bound twice"):
        tensor_table.build_table(None, {"acos": object()})


def test_every_kind_has_a_worked_example():
    assert [name for name, kind in KINDS.items() if not kind.examples] == []


@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_every_computing_kind_is_decided_in_every_rule_set(rule_set):
    # In the rule set's own file (a rule, or a place in zero_cost), not inherited from `standard`.
    data = yaml.safe_load((RULES / f"{rule_set}.yaml").read_text())
    decided = set(data.get("zero_cost") or ()) | set(data.get("rules") or {})
    assert [k for k in COMPUTING if k not in decided] == []


def test_full_prices_every_computing_kind_with_a_rule():
    rules = yaml.safe_load((RULES / "full.yaml").read_text())["rules"]
    assert [k for k in COMPUTING if k not in rules] == []


def test_data_movement_kinds_record_nothing():
    # x.fliplr() moves data: no op, so no rule set can price it (0 everywhere, no unknown).
    report = run("torch.fliplr(x)", ["x:2x3x8x8"], "full")
    assert report.unknown == [] and report.outputs == [[2, 3, 8, 8]] and report.totals.forward_flops == 0


# ---- the examples, under every rule set ---------------------------------------------------

@pytest.mark.parametrize("name", sorted(KINDS))
def test_kind_examples_under_standard(name):
    for example in KINDS[name].examples:
        report = run(example.call, example.inputs, init=example.init, framework=example.framework)
        assert report.unknown == [], example.call
        assert report.outputs == [list(s) for s in example.shapes], example.call
        assert report.totals.forward_flops == example.flops, example.call
        if example.params is not None:
            assert report.totals.params == example.params, example.call


# Forward FLOPs of each computing kind's first example per rule set.  Every rule set but `full`
# lists these kinds in zero_cost except `covariance`, which `standard` and `torch` count as the
# aten.mm it runs: (2, 8) @ (8, 2) = 2*2*8 = 32 MACs = 64 FLOPs.  `full`, by hand:
FULL = {
    "unary_math": 384,  # acos of 2*3*8*8 = 384 elements, 1 each
    "binary_math": 16,  # atan2 to (2, 8): 16 outputs, 1 each
    "ternary_math": 32,  # addr (alpha = beta = 1): u_i v_j and the add of x: 2 x 16 outputs
    "kron": 256,  # (4, 64) outputs, one multiply each
    "linalg": 2046,  # det: 6 matrices x floor(8^3 * 2/3) = 6 x 341 (LU)
    "covariance": 98,  # V=2, N=8: means and centring V(2N + 1) = 34, products V^2 * 2N = 64
    "distance": 96,  # cdist: 2x2 pairs x 3 x 8 features
    "search": 32,  # bucketize 8 values in 8 boundaries: ceil(log2 9) = 4 comparisons each
    "sequence_math": 56,  # cumulative_trapezoid of (2, 8): 2 x 7 intervals x 4
    "stft": 816,  # 2 x 17 frames x (4 window multiplies + floor(5 * 4 * log2(4) / 2) = 20)
}


@pytest.mark.parametrize("rule_set", RULE_SETS)
@pytest.mark.parametrize("name", COMPUTING)
def test_each_kind_and_rule_set_has_its_number(name, rule_set):
    example = KINDS[name].examples[0]
    counted = name == "covariance" and rule_set in ("standard", "torch")
    expected = FULL[name] if rule_set == "full" else 64 if counted else 0
    report = run(example.call, example.inputs, rule_set)
    assert report.unknown == []
    assert report.totals.forward_flops == expected


# ---- ops with their own derivation --------------------------------------------------------

def test_matrix_power_squares_and_multiplies_as_torch_does():
    # x^5 = (x^2)^2 * x: bit_length(5) - 1 = 2 squarings + popcount(5) - 1 = 1 product = 3
    # matmuls of (2, 8, 8): each 2*8*8*8 = 1024 MACs; 3 x 2048 = 6144 FLOPs.
    report = run("torch.matrix_power(x, 5)", ["x:2x8x8"])
    assert report.outputs == [[2, 8, 8]] and report.totals.forward_flops == 6144


def test_chain_matmul_takes_the_cheapest_order():
    # (2x8)(8x16)(16x1): left first 2*8*16 + 2*16*1 = 288 MACs; right first 8*16*1 + 2*8*1 = 144
    # MACs (multi_dot's choice) = 288 FLOPs.
    report = run("torch.chain_matmul(a, b, c)", ["a:2x8", "b:8x16", "c:16x1"])
    assert report.outputs == [[2, 1]] and report.totals.forward_flops == 288


def test_inner_and_tensordot_shapes():
    # inner((2, 3, 8), (5, 8)): (6, 8) @ (8, 5) = 240 MACs, shape (2, 3, 5): 480 FLOPs.
    report = run("torch.inner(x, y)", ["x:2x3x8", "y:5x8"])
    assert report.outputs == [[2, 3, 5]] and report.totals.forward_flops == 480
    # tensordot((2, 3, 4), (3, 4, 5), dims=2): K = 12, (2, 12) @ (12, 5) = 120 MACs: 240 FLOPs.
    report = run("torch.tensordot(x, y, dims=2)", ["x:2x3x4", "y:3x4x5"])
    assert report.outputs == [[2, 5]] and report.totals.forward_flops == 240
    # dims=([0], [1]) on (3, 4) and (5, 3): free (4,) and (5,), K = 3: 60 MACs = 120 FLOPs.
    report = run("torch.tensordot(x, y, dims=([0], [1]))", ["x:3x4", "y:5x3"])
    assert report.outputs == [[4, 5]] and report.totals.forward_flops == 120


def test_returns_are_named_as_torch_returns_them():
    # cummax(dim=1) of (2, 8): values and int64 indices, both (2, 8); aminmax: two scalars;
    # kthvalue(3) along the last dim of (2, 8): (2,) each.
    source = ("import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
              "    def forward(self, x):\n"
              "        c = x.cummax(1)\n        m = torch.aminmax(x)\n        k = x.kthvalue(3)\n"
              "        return c.values, c.indices, m.min, m.max, k.indices\n")
    report = analyze_text(source, "m.py", model="Model", inputs=["2x8"])
    assert report.unknown == []
    assert report.outputs == [[2, 8], [2, 8], [], [], [2]]


def test_stft_and_istft_shapes():
    # n_fft 8, hop 2 on (3, 32), centred: 32 + 2*4 = 40 samples, (40 - 8) // 2 + 1 = 17 frames of
    # 8 // 2 + 1 = 5 bins; return_complex=False adds (re, im).  istft back: 2*(17 - 1) + 8 - 8 = 32.
    report = run("torch.stft(x, 8, hop_length=2, return_complex=False)", ["x:3x32"])
    assert report.outputs == [[3, 5, 17, 2]]
    report = run("torch.istft(torch.stft(x, 8, hop_length=2, return_complex=True), 8, hop_length=2)", ["x:3x32"])
    assert report.outputs == [[3, 32]]


def test_polygamma_in_both_argument_orders_and_rsub():
    report = run("(torch.polygamma(1, x), x.polygamma(2), torch.rsub(x, y))", ["x:2x8", "y:8"])
    assert report.unknown == [] and report.outputs == [[2, 8], [2, 8], [2, 8]]


def test_data_dependent_ops_say_why():
    report = run("torch.unique(x)", ["x:2x8"])
    assert len(report.unknown) == 1
    assert "depends on the tensor's values" in report.unknown[0].what
    assert str(report.unknown[0].location).startswith("m.py:7:")


def test_real_and_imag_stay_attributes_not_methods():
    # x.real is a tensor attribute in torch; binding torch.real must not make it a method: the
    # attribute is the tensor's real part, of its shape (a complex tensor keeps the float dtype
    # here), and calling it calls a tensor
    report = run("x.real", ["x:2x8"])
    assert report.unknown == [] and report.outputs == [[2, 8]]
    called = run("x.imag()", ["x:2x8"])
    assert "a tensor is called like a function" in called.unknown[0].what


def test_a_wrong_call_is_a_located_error():
    with pytest.raises(AnalysisError) as error:
        run("torch.atan2(x)", ["x:2x8"])
    assert str(error.value.location).startswith("m.py:7:") and "other" in error.value.message
    with pytest.raises(AnalysisError, match="hypot: shapes"):
        run("torch.hypot(x, y)", ["x:2x8", "y:3"])


def test_median_with_a_dim_gives_values_and_indices():
    # median(x) of (2, 8) is one scalar tensor; median(x, 1) is (values, indices) of (2,) each.
    source = ("import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
              "    def forward(self, x):\n        m = x.median(1)\n        return x.median(), m.values, m.indices\n")
    report = analyze_text(source, "m.py", model="Model", inputs=["2x8"])
    assert report.unknown == [] and report.outputs == [[], [2], [2]]


def test_in_place_variants_follow_their_out_of_place_kind():
    # x.atan2_(y), x.lerp_(y, 0.5), x.clamp_min_(0.0): x's shape (2, 8), elementwise (0 under
    # standard); under `full` as the out-of-place ops: atan2 16 + lerp 3 x 16 + maximum 16 = 80.
    report = run("(x.atan2_(y), x.lerp_(y, 0.5), x.clamp_min_(0.0))", ["x:2x8", "y:2x8"], "full")
    assert report.unknown == [] and report.outputs == [[2, 8]] * 3
    assert report.totals.forward_flops == 80


def test_full_counts_both_reductions_of_aminmax_and_std_mean_as_std():
    # aminmax of 16 elements: a min and a max, 15 compares each = 30.  std_mean of (2, 8) counts as
    # std in full.yaml's `reduce`: the sum's 15 adds + 4 per element (the mean's share, subtract,
    # square, add: 64) + 1 (divide and root folded per output) = 80.
    assert run("torch.aminmax(x)", ["x:2x8"], "full").totals.forward_flops == 30
    assert run("torch.std_mean(x)", ["x:2x8"], "full").totals.forward_flops == 80


def test_a_symbolic_minimum_is_unknown_not_guessed():
    # the diagonal of a (B, 8) matrix has min(B, 8) elements: not known while B is a symbol;
    # of a (B, B) one, B.
    source = ("import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
              "    def forward(self, x):\n        return torch.diag(x)\n")
    report = analyze_text(source, "m.py", model="Model", inputs=["Bx8"])
    assert len(report.unknown) == 1 and "min(B, 8)" in report.unknown[0].what
    report = analyze_text(source.replace("torch.diag(x)", "torch.diag(x @ x.mT)"), "m.py", model="Model",
                          inputs=["Bx8"])
    assert report.unknown == [] and report.outputs == [["B"]]
