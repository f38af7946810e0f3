"""Regressions for what coverage-guided fuzzing (tools/fuzz_atheris.py) found: each input
once escaped as an internal exception; now it is a located message or a sound result."""

import pytest

from probe_helpers import HEADER, LAYER_MODEL, error_of
from staticflops import AnalysisError
from staticflops.api import analyze_text


def test_return_in_a_class_body_is_a_located_syntax_error():
    # libcst parses it; Python's compiler rejects it. Was: the interpreter's internal _Return escaped.
    source = "class Model(nn.Module):\n    return 1\n"
    assert error_of(source) == "m.py:7:5: syntax error: 'return' outside function"


def test_break_and_continue_outside_a_loop_are_located_syntax_errors():
    assert error_of("break\n") == "m.py:6:1: syntax error: 'break' outside loop"
    source = ("class Model(nn.Module):\n    def forward(self, x):\n        continue\n\n\n"
              "def build():\n    return Model()\n")
    message = error_of(source, model="build", inputs=["1x4"])
    assert message == "m.py:8:9: syntax error: 'continue' not properly in loop"


CONV = """class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3{extra})

    def forward(self, x):
        return self.conv(x)
"""


@pytest.mark.parametrize("extra, message", [
    (", groups=0", "m.py:9:21: Conv2d: groups must be a positive integer, got 0"),  # was ZeroDivisionError
    (", groups=3", "m.py:9:21: Conv2d: in_channels (4) must be divisible by groups (3)"),  # 4 % 3 != 0
])
def test_conv_groups_pytorch_rejects_are_located_errors(extra, message):
    assert error_of(CONV.format(extra=extra), inputs=["1x4x8x8"]) == message


@pytest.mark.parametrize("extra", [", stride=0", ", dilation=0", ", stride=(1, -2)"])
def test_non_positive_conv_stride_or_dilation_is_a_located_error(extra):
    # was ZeroDivisionError in the output-size formula (stride 0)
    message = error_of(CONV.format(extra=extra), inputs=["1x4x8x8"])
    assert message.startswith("m.py:12:16: Conv2d: non-positive ")  # the layer named (issue 8)


def test_non_positive_pool_stride_is_a_located_error():
    source = "class Model(nn.Module):\n    def forward(self, x):\n        return F.max_pool2d(x, 2, stride=0)\n"
    assert error_of(source, inputs=["1x4x8x8"]).startswith("m.py:8:16: ")


def test_unknown_interpolate_scale_leaves_the_output_unknown_not_a_crash():
    # scale_factor is an undefined name: was TypeError (an Unknown inside the shape) when pricing
    source = ("class Model(nn.Module):\n    def forward(self, x):\n"
              "        return F.interpolate(x, scale_factor=missing, mode='nearest')\n")
    report = analyze_text(HEADER + source, "m.py", inputs=["1x3x6x7"])
    assert report.totals.forward_flops == 0
    assert any(u.location.startswith("m.py:8:") and "scale_factor" in u.what for u in report.unknown)


def test_a_syntax_error_does_not_also_emit_python_syntax_warnings(recwarn):
    # `1if` makes Python's parser warn (invalid decimal literal) before the real error
    with pytest.raises(AnalysisError, match=r"^m\.py:2:7: syntax error"):
        analyze_text("x = 1if 2 else 3\ndef f(:\n", "m.py")
    assert not [w for w in recwarn if issubclass(w.category, SyntaxWarning)]


@pytest.mark.parametrize("source, where, keyword", [
    ("def f(x):\n    return*x\n", "m.py:2:5", "return"),  # was libcst's CSTValidationError escaping
    ("for x in*y:\n    pass\n", "m.py:1:7", "in"),
    ("def f(x):\n    yield*x\n", "m.py:2:5", "yield"),
])
def test_keyword_written_against_an_operator_is_a_located_syntax_error(source, where, keyword):
    # Python's parser accepts these; libcst refuses to build the node, without a position
    with pytest.raises(AnalysisError) as caught:
        analyze_text(source, "m.py")
    assert str(caught.value) == f"{where}: syntax error: Must have at least one space after '{keyword}'" + (
        "." if keyword == "return" else " keyword.")


@pytest.mark.parametrize("call, shape, message", [
    ("x.split(0, dim=-1)", "1x6", "split: split size must be positive, got 0"),  # was ZeroDivisionError
    ("torch.chunk(x, 0, dim=1)", "1x6", "split: chunk count must be positive, got 0"),
    # 10**12 pieces of size 1: was MemoryError (or OverflowError past 2**63) building the list
    ("x.split(1, dim=1)", "1x1000000000000",
     "split: splitting into 1,000,000,000,000 pieces: more than the 1,000,000 this analysis handles"),
])
def test_split_into_zero_or_too_many_pieces_is_a_located_error(call, shape, message):
    source = f"class Model(nn.Module):\n    def forward(self, x):\n        return {call}\n"
    assert error_of(source, inputs=[shape]) == f"m.py:8:16: {message}"


# Same classes as the findings above, probed by hand: sizes that are strings, zero divisors.
@pytest.mark.parametrize("layer, call, shape, message", [
    # each was a TypeError/ValueError/ZeroDivisionError from the shape arithmetic or pricing;
    # a layer's run-time errors start with its name (issue 8)
    ("nn.Linear(6, 'b')", "self.m(x)", "1x6", "Linear: a size must be an integer, got 'b'"),
    ("nn.Conv2d(3, 'b', 3)", "self.m(x)", "1x3x8x8", "Conv2d: a size must be an integer, got 'b'"),
    ("nn.Embedding(10, 'a')", "self.m(x)", "1x8:int64", "Embedding: a size must be an integer, got 'a'"),
    ("nn.Unflatten(1, (0, -1))", "self.m(x)", "1x6", "Unflatten: cannot compute the output shape from these arguments"),
    ("nn.AdaptiveAvgPool2d('a')", "self.m(x)", "1x4x8x8", "AdaptiveAvgPool2d: a size must be an integer, got 'a'"),
    ("nn.Identity()", "F.interpolate(x, size='ab')", "1x3x6x7", "F.interpolate: a size must be an integer"),
    ("nn.Identity()", "x.split([1, 'a'], 1)", "1x6", "split: split sizes must be non-negative integers, got 'a'"),
    ("nn.Identity()", "torch.arange(0, 10, 0)", "1x6", "torch.arange: step must be nonzero"),
    ("nn.Identity()", "torch.arange(10, 0)", "1x6", "torch.arange(10, 0, 1): the bounds are inconsistent"),
])
def test_sizes_that_are_not_sizes_are_located_errors(layer, call, shape, message):
    assert error_of(LAYER_MODEL.format(layer=layer, call=call), inputs=[shape]).startswith(f"m.py:12:16: {message}")


def test_arange_with_a_float_step_has_an_integer_length():
    # ceil((2.5 - 0) / 0.5) = 5 elements: 0, 0.5, 1, 1.5, 2 (was the float size 5.0)
    report = analyze_text(HEADER + LAYER_MODEL.format(layer="nn.Identity()", call="torch.arange(0, 2.5, 0.5)"),
                          "m.py", inputs=["1x6"])
    assert report.outputs == [[5]]


@pytest.mark.parametrize("loop", ["[i for i in range(2**63)]", "[i for i in range(10**30, 0, -1)]"])
def test_a_range_past_2_63_items_hits_the_loop_budget(loop):
    # was OverflowError from len(range) in the budget check
    # hit in forward, so the report comes back partial (issue 8) with the budget as its reason
    source = f"class Model(nn.Module):\n    def forward(self, x):\n        n = {loop}\n        return x\n"
    report = analyze_text(HEADER + source, "m.py", inputs=["1x6"])
    assert report.partial is True
    assert report.stopped.location.startswith("m.py:8:")
    assert "over the loop budget (--max-loop-iterations)" in report.stopped.message


def test_len_of_a_huge_range_is_unknown_not_a_crash():
    source = ("class Model(nn.Module):\n    def forward(self, x):\n        n = len(range(2**64))\n"
              "        return x\n")
    report = analyze_text(HEADER + source, "m.py", inputs=["1x6"])
    assert report.outputs == [[1, 6]]
    assert any(u.location.startswith("m.py:8:") and "2**63" in u.what for u in report.unknown)
