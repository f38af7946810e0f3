"""Symbolic dimensions: exact polynomial arithmetic, worked by hand."""

import pytest

from staticflops.shapes import Undecidable, evaluate, parse_input_spec, symbol
from staticflops.shapes.windows import conv_output_size, pool_output_size

B, T = symbol("B"), symbol("T")


def test_constants_collapse_to_int():
    assert (B * 2) // B == 2
    assert isinstance(B - B + 5, int)


def test_formatting_is_python_syntax():
    assert str(8178368512 * B) == "8178368512*B"
    assert str(B * T * T * 3 + T) == "3*B*T**2 + T"


def test_floor_division_stays_exact():
    half = (T + 1) // 2
    assert evaluate(half * 2, {"T": 7}) == 8  # (7+1)//2*2
    assert evaluate(half, {"T": 6}) == 3  # (6+1)//2


def test_comparisons_use_that_sizes_are_positive():
    assert B >= 1 and 4 * B > 3 and not (B < 1)
    with pytest.raises(Undecidable):
        bool(B > 2)


def test_conv_and_pool_output_sizes():
    # (224 + 2*3 - 1*(7-1) - 1)//2 + 1 = 112
    assert conv_output_size(224, 7, 2, 3, 1) == 112
    # ceil_mode: ceil((5 - 2)/2) + 1 = 3, and the last window starts inside the input
    assert pool_output_size(5, 2, 2, 0, 1, True) == 3
    assert pool_output_size(5, 2, 2, 0, 1, False) == 2


def test_input_spec_spellings():
    assert str(parse_input_spec("B,3,224,224")) == "Bx3x224x224"
    spec = parse_input_spec("8x512:int64")
    assert spec.shape == (8, 512) and spec.dtype == "int64"


def test_input_spec_with_a_fill_value():
    """`=V`: every element of the input has the value V (an attention mask of ones)."""
    from staticflops.diagnostics import UsageError
    from staticflops.shapes import parse_input_spec

    spec = parse_input_spec("1x32:int64=1")
    assert (spec.shape, spec.dtype, spec.fill) == ((1, 32), "int64", 1) and str(spec) == "1x32:int64=1"
    assert parse_input_spec("2x3=0.5").fill == 0.5
    assert parse_input_spec("1x4:int64=2.0").fill == 2 and isinstance(parse_input_spec("1x4:int64=2.0").fill, int)
    assert parse_input_spec("1x4").fill is None
    for bad in ("1x4:int64=0.5", "1x4=abc", "1x4=", "1x4=1e999999"):
        with pytest.raises(UsageError):
            parse_input_spec(bad)


def test_a_range_from_assume_decides_comparisons_it_settles():
    """--assume T>=2: `T > 1` (a sequence of more than one token) is true; T**2 - 4 >= 0 since
    T**2 >= 4; with 2 <= T <= 4096, 2*T <= 8192 and T > 4096 is false, while T > 100 stays
    open (T may be 2 or 4096)."""
    from staticflops.shapes import assume_ranges

    (spec,) = assume_ranges([parse_input_spec("1xT:int64")], ["T>=2"])
    t = spec.shape[1]
    assert t > 1 and t * t - 4 >= 0 and not (t < 2)
    (spec,) = assume_ranges([parse_input_spec("1xT:int64")], ["2<=T", "T<=4096"])
    t = spec.shape[1]
    assert 2 * t <= 8192 and not (t > 4096) and not (4096 < t) and 4097 > t
    with pytest.raises(Undecidable):
        bool(t > 100)
    # each monomial is bounded on its own: T in [2, 4096], T**2 in [4, 4096**2], so T - T**2
    # lies in [2 - 4096**2, 4096 - 4]: `<= 4092` is decided, `< 0` (true, but not by these
    # bounds) stays open
    with pytest.raises(Undecidable):
        bool(t - t * t < 0)
    assert t - t * t <= 4092


@pytest.mark.parametrize("text, low, high", [("T>=2", 2, None), ("T>1", 2, None), ("2<=T", 2, None),
                                             ("T<=4096", 1, 4096), ("T<4097", 1, 4096), ("4096>=T", 1, 4096),
                                             ("1<T<=5", 2, 5), ("5>T>1", 2, 4), ("T>=0", 1, None)])
def test_assume_spellings(text, low, high):
    from staticflops.shapes import assume_ranges
    from staticflops.shapes.expr import symbol_range

    (spec,) = assume_ranges([parse_input_spec("BxT")], [text])
    assert symbol_range(spec.shape[1]) == ("T", low, high)
    assert symbol_range(spec.shape[0]) == ("B", 1, None)  # a size not named keeps its range


@pytest.mark.parametrize("texts, message", [(["X>1"], "X is not a size named in --input (named: B, T)"),
                                            (["T>=2<=3"], "expected a range"), (["T>=x"], "expected a range"),
                                            (["2<=3"], "expected a range"), (["T<1"], "no size T is in this range"),
                                            (["T>5", "T<3"], "no size T satisfies every range")])
def test_assume_mistakes_are_usage_errors(texts, message):
    from staticflops.diagnostics import UsageError
    from staticflops.shapes import assume_ranges

    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        assume_ranges([parse_input_spec("BxT")], texts)
