"""The torch.nn / torch.nn.functional kinds added for issue 20 (helper nnsurface): each has an
explicit decision in every built-in rule set's own file, and a few hand-derived figures under
`standard` and `full` (the recorded ones are the probe's cases, tests/test_coverage_probe.py).
`torch-cpu` is `torch` on CPU kernels and takes its decisions from it."""

from pathlib import Path

import pytest
import yaml

from staticflops import AnalysisError
from staticflops.api import analyze_text

RULES = Path(__file__).resolve().parent.parent / "rules"
NN_KINDS = ["hardshrink", "softshrink", "tanhshrink", "logsigmoid", "rrelu", "threshold", "softmin",
            "gumbel_softmax", "channel_shuffle", "local_response_norm", "cosine_similarity", "pairwise_distance",
            "pdist", "unfold", "fold", "affine_grid", "grid_sample", "fractional_max_pool", "max_unpool",
            "embedding_bag", "conv_tbc", "linear_cross_entropy"]
RULE_SETS = ["standard", "full", "tf-profiler", "torch", "fvcore", "thop", "ptflops", "torchinfo", "torchstat", "calflops"]

HEADER = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n\n\nclass Model(nn.Module):\n"


@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_every_nn_kind_is_decided(rule_set):
    data = yaml.safe_load((RULES / f"{rule_set}.yaml").read_text())
    decided = set(data.get("zero_cost") or ()) | set(data.get("rules") or {})
    assert [k for k in NN_KINDS if k not in decided] == []


def test_full_counts_them_and_says_where_it_approximates():
    data = yaml.safe_load((RULES / "full.yaml").read_text())
    counted = set(data["rules"])
    copies = {"channel_shuffle", "unfold", "max_unpool"}  # pure data movement: in its zero_cost
    assert copies <= set(data["zero_cost"])
    assert [k for k in NN_KINDS if k not in counted and k not in copies] == []
    assert all(data["rules"][k].get("note") for k in ("fold", "affine_grid", "embedding_bag", "loss"))


def _run(init: str, call: str, inputs: list, rules: str = "standard", names=("x",)):
    body = "".join(f"        {line}\n" for line in init.splitlines())
    source = (HEADER + "    def __init__(self):\n        super().__init__()\n" + body + "        pass\n\n"
              + f"    def forward(self, {', '.join(names)}):\n        return {call}\n")
    return analyze_text(source, "case.py", model="Model", inputs=inputs, rules=rules)


def _outputs(report):
    return [list(s) for s in report.outputs]


def test_lazy_conv_reads_its_channels_at_the_first_call():
    report = _run("self.m = nn.LazyConv2d(4, 3)", "self.m(x)", ["2x3x8x8"])
    assert report.unknown == []
    assert _outputs(report) == [[2, 4, 6, 6]]
    # weight 4 x 3 x 3 x 3 = 108 + bias 4 = 112; 2*4*6*6 = 288 outputs x 27 products x 2 = 15,552
    assert report.totals.params == 112
    assert report.totals.forward_flops == 15552


def test_lazy_linear_and_lazy_batch_norm():
    report = _run("self.m = nn.LazyLinear(4)\nself.n = nn.LazyBatchNorm1d()", "self.n(self.m(x))", ["2x8"])
    assert report.unknown == []
    # Linear: 8 * 4 + 4 = 36; BatchNorm1d(4): 2 * 4 = 8.  FLOPs: 2 * (2 * 4) outputs * 8 = 128.
    assert report.totals.params == 44
    assert report.totals.forward_flops == 128


def test_unfold_and_fold_sizes():
    # Unfold(3, padding=1, stride=2) on 8x8: (8 + 2 - 2 - 1) // 2 + 1 = 4 positions per side,
    # 16 blocks of 3 * 3 * 3 = 27 values.
    assert _outputs(_run("self.m = nn.Unfold(3, padding=1, stride=2)", "self.m(x)", ["2x3x8x8"])) == [[2, 27, 16]]
    # Fold((4, 4), 2) of (2, 12, 9): 12 / (2 * 2) = 3 channels; (4 - 2) + 1 = 3 positions per
    # side = 9 blocks, as given.  full: one add per input element, 2 * 12 * 9 = 216.
    report = _run("self.m = nn.Fold((4, 4), 2)", "self.m(x)", ["2x12x9"], rules="full")
    assert _outputs(report) == [[2, 3, 4, 4]]
    assert report.totals.forward_flops == 216


def test_fold_with_the_wrong_number_of_blocks_is_a_located_error():
    with pytest.raises(AnalysisError, match=r"case\.py:\d+:\d+: .*Fold expects 9 blocks, got 8"):
        _run("self.m = nn.Fold((4, 4), 2)", "self.m(x)", ["2x12x8"])


def test_channel_shuffle_needs_divisible_channels():
    with pytest.raises(AnalysisError, match="6 channels cannot be shuffled in 4 groups"):
        _run("", "F.channel_shuffle(x, 4)", ["2x6x4x4"])


def test_max_unpool_undoes_the_pooling_size():
    report = _run("self.p = nn.MaxPool2d(2, return_indices=True)\nself.m = nn.MaxUnpool2d(2)",
                  "self.m(*self.p(x))", ["2x3x8x8"])
    # (4 - 1) * 2 - 0 + 2 = 8 per side
    assert _outputs(report) == [[2, 3, 8, 8]]


def test_embedding_bag_params_and_full_count():
    report = _run("self.m = nn.EmbeddingBag(10, 4)", "self.m(x)", ["2x5:int64"], rules="full")
    assert _outputs(report) == [[2, 4]]
    assert report.totals.params == 40  # 10 x 4 table
    # mean of L = 5 rows of D = 4 per bag: (L - 1) * D adds + D divides = L * D = 20 per bag,
    # 2 bags = 40
    assert report.totals.forward_flops == 40


def test_linear_cross_entropy_counts_its_projection():
    init = "self.m = nn.LinearCrossEntropyLoss(8, 10)"
    report = _run(init, "self.m(x, t)", ["2x8", "2:int64"], names=("x", "t"))
    assert _outputs(report) == [[]]
    # weight 10 x 8, no bias by default = 80; 2 rows x 8 x 10 = 160 MACs = 320 FLOPs
    assert report.totals.params == 80
    assert report.totals.forward_flops == 320
    # full: 2 * 10 logits x (2 * 8 - 1) = 300, cross entropy 2 rows x 5 * 10 = 100, mean 2 = 402
    assert _run(init, "self.m(x, t)", ["2x8", "2:int64"], rules="full", names=("x", "t")).totals.forward_flops == 402


def test_row_losses_keep_a_term_per_row_without_reduction():
    report = _run("", "F.triplet_margin_loss(x, y, z, reduction='none')", ["2x8", "2x8", "2x8"],
                  names=("x", "y", "z"))
    assert _outputs(report) == [[2]]
    # full, mean: 2 rows x (8 * 8 + 3) = 134, + 1 add + 1 divide = 136
    report = _run("", "F.triplet_margin_loss(x, y, z)", ["2x8", "2x8", "2x8"], rules="full", names=("x", "y", "z"))
    assert report.totals.forward_flops == 136


def test_softmin_and_cosine_similarity_under_full():
    # softmin over dim 1 of 2x3x8x8 (384 elements, 128 rows of 3): 384 negates + 128 * (5 * 3 - 2)
    assert _run("self.m = nn.Softmin(dim=1)", "self.m(x)", ["2x3x8x8"], rules="full").totals.forward_flops \
        == 384 + 128 * 13
    # cosine over 8 features, 2 outputs: 2 * (6 * 8 + 1) = 98
    report = _run("", "F.cosine_similarity(x, y)", ["2x8", "2x8"], rules="full", names=("x", "y"))
    assert _outputs(report) == [[2]]
    assert report.totals.forward_flops == 98


def test_grid_sampling_shapes():
    assert _outputs(_run("", "F.affine_grid(t, [2, 3, 5, 6], align_corners=False)", ["2x2x3"], names=("t",))) \
        == [[2, 5, 6, 2]]
    assert _outputs(_run("", "F.grid_sample(x, g, align_corners=False)", ["2x3x8x8", "2x5x6x2"],
                         names=("x", "g"))) == [[2, 3, 5, 6]]


# One probe case per new kind (tests/fixtures/coverage/*.json, recorded by tools/record_coverage.py
# with torch 2.13.0): each runs under every built-in rule set without an exception and without a
# rule that fails to evaluate.  (tf-profiler's batch_norm reads Keras's `scale`: a PyTorch
# BatchNorm2d fails there too, before issue 20; the new kinds are what this checks.)
ONE_CASE_PER_KIND = ["Hardshrink", "Softshrink", "Tanhshrink", "LogSigmoid", "RReLU", "Threshold", "Softmin",
                     "F.gumbel_softmax", "ChannelShuffle", "LocalResponseNorm", "CrossMapLRN2d", "CosineSimilarity",
                     "PairwiseDistance", "F.pdist", "Unfold", "Fold", "F.affine_grid", "F.grid_sample",
                     "FractionalMaxPool2d", "MaxUnpool2d", "EmbeddingBag", "F.conv_tbc", "LinearCrossEntropyLoss",
                     "F.linear_cross_entropy", "CTCLoss", "MultiLabelMarginLoss", "CosineEmbeddingLoss",
                     "LazyConv2d", "LPPool2d"]


def _probe_cases():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "coverage_table", Path(__file__).resolve().parent.parent / "tools" / "coverage_table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    found = {}
    for family in ("nn_modules", "nn_functional"):
        data = table.load(family)
        for case in data["cases"]:
            if case["op"] in ONE_CASE_PER_KIND and case["op"] not in found:
                found[case["op"]] = (table.case_source(data["header"], case), table._input_specs(case))
    return found


@pytest.mark.parametrize("rule_set", RULE_SETS + ["torch-cpu"])
def test_new_kinds_evaluate_under_every_rule_set(rule_set):
    cases = _probe_cases()
    assert sorted(cases) == sorted(ONE_CASE_PER_KIND)
    failed = []
    for op, (source, inputs) in cases.items():
        report = analyze_text(source, "case.py", model="Model", inputs=inputs, rules=rule_set)
        failed += [f"{op}: {u.what}" for u in report.unknown]
    assert failed == []


def test_calflops_counts_local_response_norm_through_its_patched_calls():
    # F.local_response_norm(x, 2) on 2x3x8x8 (384 elements): Tensor.mul (384), avg_pool3d on the
    # padded squares 2 x 1 x (3 + 1) x 8 x 8 (512), Tensor.mul and Tensor.add (384 each) = 1,664
    # (a calflops 0.3.2 run on torch 2.13.0 gives 1664 too); CrossMapLRN2d: in-place ops, 0.
    assert _run("", "F.local_response_norm(x, 2)", ["2x3x8x8"], rules="calflops").totals.forward_flops == 1664
    assert _run("self.m = nn.CrossMapLRN2d(3)", "self.m(x)", ["2x3x8x8"], rules="calflops").totals.forward_flops == 0
    # LinearCrossEntropyLoss(8, 10): calflops' patched F.linear, 2 x 8 x 10 = 160 MACs, 320 FLOPs
    report = _run("self.m = nn.LinearCrossEntropyLoss(8, 10)", "self.m(x, t)", ["2x8", "2:int64"],
                  rules="calflops", names=("x", "t"))
    assert (report.totals.forward_flops, report.totals.macs) == (320, 160)


def test_adaptive_log_softmax_is_a_located_unknown_with_its_reason():
    report = _run("self.m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])", "self.m(x, t)", ["2x8", "2:int64"],
                  names=("x", "t"))
    assert [u.location for u in report.unknown] == ["case.py:9:18"]
    assert "depends on the target values" in report.unknown[0].what


def test_embedding_bag_rows_are_float_and_its_mode_is_checked():
    # 2 bags x 4 features feed a Linear(4, 3): 2 * 3 outputs x 4 products = 24 MACs = 48 FLOPs
    report = _run("self.m = nn.EmbeddingBag(10, 4, mode='sum')\nself.l = nn.Linear(4, 3)", "self.l(self.m(x))",
                  ["2x5:int64"])
    assert report.unknown == [] and report.totals.forward_flops == 48
    with pytest.raises(AnalysisError, match="mode has to be one of sum, mean or max, got 'min'"):
        _run("self.m = nn.EmbeddingBag(10, 4, mode='min')", "self.m(x)", ["2x5:int64"])


def test_a_custom_distance_function_is_traced():
    # distance(a, b) = (a * b) @ w: a (2, 8) x (8, 1) product = 16 MACs per call; called on
    # (anchor, positive), (anchor, negative) and, with swap, (positive, negative): 48 MACs = 96 FLOPs
    # (FlopCounterMode on torch 2.13.0 says 96 for the module form too)
    init = "self.w = nn.Parameter(torch.randn(8, 1))\nself.m = nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: ((a * b) @ self.w)[:, 0], swap=True)"
    report = _run(init, "self.m(x, y, z)", ["2x8", "2x8", "2x8"], names=("x", "y", "z"))
    assert report.unknown == []
    assert report.totals.forward_flops == 96
    functional = _run("self.w = nn.Parameter(torch.randn(8, 1))",
                      "F.triplet_margin_with_distance_loss(x, y, z, distance_function=lambda a, b: ((a * b) @ self.w)[:, 0])",
                      ["2x8", "2x8", "2x8"], names=("x", "y", "z"))
    assert functional.totals.forward_flops == 64  # no swap: two calls


def test_full_prices_a_custom_distance_once():
    # the default distance: 2 rows x (8 * 8 + 3) + 2 (mean) = 136, as triplet_margin_loss;
    # a custom one (a * b summed: 8 mults + 7 adds = 15 per row, two calls, 60) + 2 rows x 3 + 2 = 68
    names = ("x", "y", "z")
    assert _run("", "F.triplet_margin_with_distance_loss(x, y, z)", ["2x8"] * 3, rules="full",
                names=names).totals.forward_flops == 136
    assert _run("", "F.triplet_margin_with_distance_loss(x, y, z, distance_function=lambda a, b: (a * b).sum(1))",
                ["2x8"] * 3, rules="full", names=names).totals.forward_flops == 68


def test_in_place_variants_follow_their_kind():
    # F.threshold_ / F.rrelu_: the shape and kind of threshold / rrelu; full: 1 and 2 per element
    report = _run("", "F.rrelu_(F.threshold_(x, 0.1, 0.0))", ["2x3x8x8"], rules="full")
    assert _outputs(report) == [[2, 3, 8, 8]]
    assert report.totals.forward_flops == 384 + 2 * 384
