"""einops modelled like torch: the pattern algebra on symbolic shapes, FLOPs where einops
computes, and one located line naming the pattern when the axes do not fit.

Ground truth: tests/fixtures/einops_ground_truth.json, recorded by tools/record_einops.py
executing torch 2.13.0 CPU + einops 0.8.2 (FlopCounterMode, SDPA MATH backend, oneDNN off).
"""

import json
import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import staticflops
import wheels
from staticflops.api import analyze_text
from staticflops.cli.app import app
from staticflops.shapes import symbol
from staticflops.shapes.einops_patterns import PatternError, einsum_equation, einmix, transform

HERE = Path(__file__).parent
TRUTH = json.loads((HERE / "fixtures" / "einops_ground_truth.json").read_text())
FUNCTIONAL = "tests/fixtures/einops_cases/functional.py"
VIT_VERSION = TRUTH["versions"]["vit-pytorch"]


def _shape(entry) -> list[str]:
    return ["x".join(str(d) for d in spec["shape"]) for spec in entry["inputs"]]


def _assert_exact(report, entry):
    assert report.unknown == []
    assert [s for s in report.outputs if s is not None] == entry["output_shapes"]
    assert report.totals.params == entry["params"]
    assert report.totals.forward_flops == entry["forward_flops"]


# ---- real models against the recorded truth ---------------------------------------------------

def test_functional_einops_model_is_exact():
    entry = TRUTH[FUNCTIONAL]
    report = staticflops.analyze(FUNCTIONAL, model=entry["class"], inputs=_shape(entry))
    _assert_exact(report, entry)


@pytest.fixture(scope="module")
def vit_file(request, tmp_path_factory) -> Path:
    """lucidrains' vit_pytorch/vit.py as published (not ours to commit): downloaded once into
    pytest's cache folder (a temporary one when the cache plugin is off)."""
    folder = wheels.unpacked(request, tmp_path_factory, "vit-pytorch", VIT_VERSION, "vit_pytorch/vit.py")
    return folder / "vit_pytorch" / "vit.py"


@pytest.mark.parametrize("name", ["vit_b16", "vit_small_mean_pool"])
def test_vit_pytorch_vit_is_exact(vit_file, name):
    entry = TRUTH[name]
    # vit.py's pair() tests isinstance(t, tuple): the recording passed tuples, so do we
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in entry["kwargs"].items()}
    report = staticflops.analyze(vit_file, model="ViT", inputs=_shape(entry), kwargs=kwargs)
    _assert_exact(report, entry)


# ---- pattern algebra, by hand -----------------------------------------------------------------

def test_patch_pattern_solves_the_grouped_axes_by_exact_division():
    # 224 / 16 = 14 patches a side: (h w) = 196, (p1 p2 c) = 16 * 16 * 3 = 768
    plan = transform((1, 3, 224, 224), "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", "rearrange", {"p1": 16, "p2": 16})
    assert plan.output == (1, 196, 768)
    # symbolic H: h = H/16, so (h w) = H**2/256
    H = symbol("H")
    plan = transform((1, 3, H, H), "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", "rearrange", {"p1": 16, "p2": 16})
    assert plan.output == (1, H * H / 256, 768)


def test_reduce_repeat_and_ellipsis():
    plan = transform((2, 6, 8), "b (n two) d -> b d", "max", {"two": 2})
    assert (plan.elementary, plan.reduced, plan.output) == ((2, 3, 2, 8), [1, 2], (2, 8))
    assert transform((1, 5), "... d -> b ... d", "repeat", {"b": 4}).output == (4, 1, 5)
    assert transform((2, 3), "h w -> h w 3", "repeat", {}).output == (2, 3, 3)


def test_einsum_names_become_letters_and_the_ellipsis_is_spelled_out():
    assert einsum_equation("b h n e, b h m e -> b h n m", [(2, 4, 5, 8), (2, 4, 6, 8)]) == "abcd,abed->abce"
    # ranks 3 and 2: the ellipsis covers 2 axes of the first operand, given the next letters
    assert einsum_equation("... d, d e -> ... e", [(2, 3, 4), (4, 5)]) == "cda,ab->cdb"
    with pytest.raises(PatternError, match="axis `d` is 4 in one tensor, 6 in another"):
        einsum_equation("... d, d e -> ... e", [(2, 3, 4), (6, 5)])


def test_pack_unpack_parse_shape():
    from staticflops.shapes.einops_patterns import pack, parse_shape, unpack
    # i=2, j=3, k=5 matched by position; * packs () -> 1 and (7,) -> 7: 1 + 7 = 8
    assert pack([(2, 3, 5), (2, 3, 7, 5)], "i j * k") == ((2, 3, 8, 5), [(), (7,)])
    assert unpack((2, 3, 8, 5), [(), (7,)], "i j * k") == [(2, 3, 5), (2, 3, 7, 5)]
    # -1 is inferred: 8 - 1 = 7
    assert unpack((2, 3, 8, 5), [(), (-1,)], "i j * k") == [(2, 3, 5), (2, 3, 7, 5)]
    with pytest.raises(PatternError, match="axis \\(\\*\\) should have length 9, the tensor has 8"):
        unpack((2, 3, 8, 5), [(2,), (7,)], "i j * k")
    assert parse_shape((2, 3, 5, 7), "batch _ h w") == {"batch": 2, "h": 5, "w": 7}
    assert parse_shape((2, 3, 5, 7), "b ... w") == {"b": 2, "w": 7}


def test_einmix_weight_bias_and_rearranges():
    mix = einmix("b c (h p1) (w p2) -> b (h w) d", "c p1 p2 d", "d", {"c": 3, "p1": 4, "p2": 4, "d": 32})
    # the bias is added before the post-rearrange, on `b h w d`: one entry per elementary output axis
    assert mix.weight == (3, 4, 4, 32) and mix.bias == (1, 1, 1, 32)
    assert mix.pre == "b c (h p1) (w p2) -> b c h p1 w p2" and mix.post == "b h w d -> b (h w) d"


@pytest.mark.parametrize("shape, pattern, lengths, message", [
    ((1, 3, 100, 100), "b c (h p) w -> b c h p w", {"p": 16}, "axis of length 100 does not divide into chunks of 16"),
    ((1, 3, 4), "b c h w -> b c h w", {}, "expected 4 dimensions, the tensor has 3"),
    ((4, 4), "(a b) c -> a b c", {}, "cannot infer the lengths of `a`, `b`"),
    ((4, 4), "a b -> a b c", {}, "appear on one side only"),
    ((4, 4), "a b -> a b", {"z": 3}, "axis `z` is not used"),
    ((4, 4), "a (b c) -> a b c", {"b": 2, "c": 3}, "axis (b c) should have length 6, the tensor has 4"),
])
def test_axes_that_do_not_fit(shape, pattern, lengths, message):
    with pytest.raises(PatternError, match=re.escape(message)):
        transform(shape, pattern, "rearrange", lengths)


# ---- errors through the CLI: exit 1, one line, located at the call, naming the pattern ----------

HEADER = "import torch\nfrom torch import nn\nfrom einops import rearrange, repeat, einsum\nfrom einops.layers.torch import Rearrange, EinMix\n\n\n"
BAD = {
    "layer": ("""\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.patches = nn.Sequential(Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=16, p2=16))

            def forward(self, x):
                return self.patches(x)
        """, 13, "Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)'): axis of length 100 does not divide into "
                 "chunks of 16 (for `h`)"),
    "function": ("""\
        class Model(nn.Module):
            def forward(self, x):
                return rearrange(x, "b c h w -> b (c h w) k")
        """, 9, "rearrange('b c h w -> b (c h w) k'): axes `k` appear on one side only"),
    "repeat": ("""\
        class Model(nn.Module):
            def forward(self, x):
                return repeat(x, "b c h w -> b c h w r")
        """, 9, "repeat('b c h w -> b c h w r'): give the length of the new axes `r`"),
    "einsum": ("""\
        class Model(nn.Module):
            def forward(self, x):
                return einsum(x, x, "b c h w, b h c k -> b c w k")
        """, 9, "einsum('b c h w, b h c k -> b c w k'): axis `h` is 100 in one tensor, 3 in another"),
    "einmix": ("""\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.mix = EinMix("b c h w -> b d h w", weight_shape="c d", c=3)

            def forward(self, x):
                return self.mix(x)
        """, 10, "EinMix('b c h w -> b d h w'): give the length of weight axis `d`"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_axes_exit_1_with_one_located_line(tmp_path, case):
    body, line, message = BAD[case]
    path = tmp_path / "model.py"
    path.write_text(HEADER + textwrap.dedent(body))
    result = CliRunner().invoke(app, ["analyze", str(path), "--input", "1x3x100x100"])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"{path}:{line}:"), lines[0]
    assert lines[0].endswith(message), lines[0]


# ---- Keras flavour: einops 0.8 ships einops.layers.keras (= einops.layers.tensorflow) -------------

KERAS_MODEL = '''\
import keras
from keras import layers
from einops import rearrange
from einops.layers.{flavour} import EinMix, Rearrange, Reduce


def build():
    inputs = keras.Input((8, 8, 3))
    x = Rearrange("b (h p1) (w p2) c -> b (h w) (p1 p2 c)", p1=4, p2=4)(inputs)
    x = EinMix("b n d -> b n e", weight_shape="d e", bias_shape="e", d=48, e=16)(x)
    x = Reduce("b n e -> b e", "mean")(x)
    x = rearrange(x, "b (g f) -> b g f", g=4)
    x = layers.Flatten()(x)
    return keras.Model(inputs, layers.Dense(10)(x))
'''


@pytest.mark.parametrize("flavour", ["keras", "tensorflow"])
def test_keras_layers_by_hand(flavour):
    report = analyze_text(KERAS_MODEL.format(flavour=flavour), "keras_einops.py", batch=1)
    assert report.unknown == []
    # 8x8x3 in 4x4 patches: n = (8/4) * (8/4) = 4 tokens of d = 4*4*3 = 48 values
    # EinMix d=48 -> e=16: weight 48*16 = 768 + bias 16 = 784 params; einsum 1*4*48*16 = 3,072 MACs
    # Reduce mean over n -> 16; rearrange to 4x4; Flatten -> 16; Dense 16->10: 160 + 10 = 170 params, 160 MACs
    assert report.outputs == [[1, 10]]
    assert report.totals.params == 784 + 170
    assert report.totals.forward_flops == 2 * (3_072 + 160)


def test_einops_stays_modelled_even_with_an_einops_folder_beside_the_model(tmp_path):
    """A project (or an installed package) named einops is never read: the modelled one wins."""
    (tmp_path / "einops").mkdir()
    (tmp_path / "einops" / "__init__.py").write_text("def rearrange(tensor, pattern, **lengths):\n    return tensor\n")
    (tmp_path / "model.py").write_text(HEADER + textwrap.dedent("""\
        class Model(nn.Module):
            def forward(self, x):
                return rearrange(x, "b c h w -> b (c h w)")
        """))
    report = staticflops.analyze(tmp_path / "model.py", inputs=["1x3x100x100"])
    assert report.outputs == [[1, 30_000]]  # 3 * 100 * 100


def test_reduce_follows_the_rule_sets_reduction_convention():
    """`full` prices a reduction as numel(x) - numel(y) additions (+ numel(y) divisions for mean);
    einops' torch backend reduces prod one axis at a time, so that is two ops."""
    text = HEADER + textwrap.dedent("""\
        from einops import reduce


        class Model(nn.Module):
            def forward(self, x):
                return reduce(x, "a b c -> a", "prod") + reduce(x, "a (b two) c -> a", "mean", two=3)
        """)
    report = analyze_text(text, "reduce_model.py", inputs=["2x3x4"], rules="full")
    ops = [layer for layer in report.layers if layer.type.startswith("reduce:")]
    assert [op.type for op in ops] == ["reduce:prod", "reduce:prod", "reduce:mean"]
    # prod over c: 24 -> 6 elements, 18 multiplications; then over b: 6 -> 2, 4 more
    # mean over b, two, c of 2x(1*3)x4 (one torch.mean): 24 -> 2 elements, 22 additions + 2 divisions
    assert [op.forward_flops for op in ops] == [18, 4, 24]
    assert report.outputs == [[2]]
