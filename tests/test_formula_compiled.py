"""Formulas are compiled once into closures: every construct still computes what Python's
arithmetic says, and every error keeps its message and its column in the formula text."""

import pickle

import pytest

from staticflops.rulesets import Formula, FormulaError
from staticflops.shapes import symbol


@pytest.mark.parametrize("text, expected", [
    ("-x[0] + +x[1]", -2 + 3),
    ("not flag", False),
    ("flag and 0 or 7", 7),  # True and 0 -> 0 (falsy) -> or 7
    ("0 and nope", 0),  # short-circuit: `nope` is never looked up
    ("1 < x[0] <= 2 < x[1]", True),  # 1 < 2 <= 2 < 3
    ("1 < x[0] > 5", False),
    ("x[1:]", (3,)),
    ("x[::-1]", (3, 2)),
    ("[x[0], 4]", (2, 4)),  # lists become tuples
    ("'m' if label == 'Linear' else 'f'", "m"),
    ("x[0] in (1, 2)", True),
    ("7 // 2 + 7 % 2 + 2 ** 3", 3 + 1 + 8),
    ("max(x) * min(3, 5) + sum(x) + len(x)", 3 * 3 + 5 + 2),
    ("abs(-4)", 4),
])
def test_each_construct_computes_what_python_does(text, expected):
    assert Formula(text).evaluate({"x": (2, 3), "flag": True, "label": "Linear"}) == expected


@pytest.mark.parametrize("text, env, message, column", [
    ("1 + x ** 65", {"x": 2}, "exponent 65 is over the limit of 64", 4),
    ("3 + 1 / x", {"x": 0}, "division by zero", 4),
    ("2 * x[4]", {"x": (1, 2)}, "index out of range", 4),
    ("1 + 'a'", {}, "cannot combine 1 and 'a'", 0),
    ("4 + nope", {}, "unknown variable `nope`", 4),
    ("1 + max()", {}, "max(): ", 4),
    ("0 + (b > 2)", {"b": symbol("B")}, "cannot compare", 5),
    ("1 if b else 0", {"b": symbol("B")}, "depends on its symbols", 0),
])
def test_errors_keep_their_message_and_column(text, env, message, column):
    with pytest.raises(FormulaError, match=None) as error:
        Formula(text).evaluate(env)
    assert message in str(error.value)
    assert error.value.offset == column


def test_a_formula_pickles_by_its_text():
    restored = pickle.loads(pickle.dumps(Formula("2 * macs")))
    assert restored.text == "2 * macs" and restored.evaluate({"macs": 21}) == 42


def test_nesting_over_the_bound_is_refused_at_the_first_level_over_it():
    # 1,990 unary minus signs (under the 2,000-character limit): the minus at nesting level 201
    # (the expression itself is level 0) is the 201st sign, at column 200 of the text.
    with pytest.raises(FormulaError) as error:
        Formula("-" * 1990 + "1")
    assert "nests over 200 deep" in str(error.value)
    assert error.value.offset == 200


def test_a_long_sum_and_many_parentheses_stay_within_the_bound():
    # 150 terms: 149 additions nested inside each other, 1 + 1 + ... = 150;
    # parentheses add no nesting of operations.
    assert Formula(" + ".join(["1"] * 150)).evaluate({}) == 150
    assert Formula("(" * 150 + "x" + ")" * 150).evaluate({"x": 7}) == 7


@pytest.mark.parametrize("text, env, message, column", [
    # 2**64 has 65 bits; its 64th power about (65 - 1) * 64 + 1 = 4,097: refused before it is
    # computed (the next two powers would take gigabytes); the inner power starts at column 1
    ("((2**64)**64)**64", {}, "the result would have about 4,097 bits, over the limit of 1,000", 1),
    # (2**60)**10 = 2**600 (601 bits) times 2**600: 601 + 601 = 1,202 bits; the product starts at 0
    ("(2 ** 60) ** 10 * (2 ** 60) ** 10", {}, "about 1,202 bits", 0),
    # (1e60)**6 = 1e360, past a float's ~1.8e308
    ("(10.0 ** 60) ** 6", {}, "give a number too large for a float", 0),
    # a symbolic power: (b + c + d + e + 1) ** 20 has C(5 + 20 - 1, 20) = 10,626 terms
    ("(b + c + d + e + 1) ** 20", {n: symbol(n.upper()) for n in "bcde"}, "over 10,000 terms", 0),
])
def test_results_no_count_could_be_are_refused_before_they_are_computed(text, env, message, column):
    with pytest.raises(FormulaError) as error:
        Formula(text).evaluate(env)
    assert message in str(error.value)
    assert error.value.offset == column


@pytest.mark.parametrize("text, message", [
    ("1e200 * 1e200", "the result is inf, not a finite number"),  # float overflow gives no error by itself
    ("9" * 400, "the result has about 1,329 bits"),  # 10**400 - 1: 400 * log2(10) = 1,328.8 -> 1,329 bits
])
def test_the_final_result_must_be_a_finite_number_of_printable_size(text, message):
    with pytest.raises(FormulaError, match=message):
        Formula(text).evaluate({})


def test_large_but_real_counts_still_compute():
    # (2**64)**15 = 2**960: 961 bits, under the limit; (b + 1) ** 64 has 65 terms
    assert Formula("(2 ** 64) ** 15").evaluate({}) == 2 ** 960
    assert len(Formula("(b + 1) ** 64").evaluate({"b": symbol("B")}).terms) == 65  # B**64 ... B**0
