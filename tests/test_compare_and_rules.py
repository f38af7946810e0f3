"""`staticflops compare`, `staticflops rules list|show|validate`, and user rule files."""

import json
import subprocess
import sys

import pytest

import staticflops
from staticflops.api import compare, describe_rules, load_rules
from staticflops.diagnostics import AnalysisError

CUSTOM = "tests/fixtures/custom_rules/"
BUILTIN = ["standard", "full", "torch", "torch-cpu", "fvcore", "thop", "ptflops", "torchinfo", "torchstat", "calflops"]


def run(*args):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True)


def test_compare_seed_model_one_row_per_convention():
    comparison = compare("samples/seed_conv_gru.py", inputs=["1x1x100x256"])
    rows = {row.rules: row for row in comparison.conventions}
    assert [r for r in BUILTIN if r in rows] == BUILTIN
    # Numbers each tool printed for this model (tests/fixtures/tools_ground_truth.json):
    assert rows["standard"].forward_flops == 249_809_920   # FlopCounterMode
    assert rows["torch"].headline_value == 249_809_920
    assert rows["torch-cpu"].headline_value == 249_809_920  # no LSTM/attention here: same on CPU
    assert rows["fvcore"].headline_value == 8_691_200      # GRU counts 0 in fvcore
    assert rows["thop"].headline_value == 125_026_016
    assert rows["ptflops"].headline_value == 126_233_472
    assert rows["torchinfo"].headline_value == 122_996_000
    assert rows["fvcore"].headline == "macs" and rows["standard"].headline == "flops"
    assert all(row.description for row in comparison.conventions)
    # The GRU is where they disagree most: 232,427,520 FLOPs standard, 0 in fvcore.
    assert comparison.disagreements[0].name == "gru"
    assert comparison.disagreements[0].values["fvcore"] == 0


def test_compare_cli_table_and_json():
    table = run("compare", "samples/resnet50.py", "--input", "1x3x224x224")
    assert table.returncode == 0, table.stderr
    for name in BUILTIN:
        assert name in table.stdout
    assert "disagree most" in table.stdout
    data = json.loads(run("compare", "samples/lenet5.py", "--input", "1x1x28x28", "-f", "json").stdout)
    rows = {row["rules"]: row for row in data["conventions"]}
    assert rows["standard"]["forward_flops"] == 833_040   # FlopCounterMode, recorded
    assert rows["fvcore"]["macs"] == 416_520


def test_rules_list_and_show():
    listed = run("rules", "list")
    assert listed.returncode == 0
    for name in BUILTIN:
        assert name in listed.stdout
    shown = describe_rules("ptflops")
    assert "linear:" in shown and "note: ptflops counts the bias add" in shown
    assert run("rules", "show", "thop").returncode == 0


def test_custom_class_rule_costs_my_attention_as_a_whole():
    path = CUSTOM + "my_attention.py"
    standard = staticflops.analyze(path, model="Net", inputs=["2x10x32"])
    custom = staticflops.analyze(path, model="Net", inputs=["2x10x32"], rules=CUSTOM + "my_rules.yaml")
    layers = {row.name: row for row in custom.layers}
    # MyAttention(dim=32) on 2x10x32: 2 x (4 x 10 x 32 x 32 + 2 x 10 x 10 x 32) = 94,720 MACs.
    assert layers["attn"].macs == 94_720
    assert layers["attn.qkv"].macs == 0  # inside the class rule: not counted again
    # head: Linear(32, 10) on 2x10x32: 20 x 10 x 32 = 6,400 MACs.
    assert layers["head"].macs == 6_400
    assert custom.totals.macs == 94_720 + 6_400
    assert custom.totals.params == standard.totals.params
    assert custom.unknown == []


def test_class_rule_by_qualified_name(tmp_path):
    rules = tmp_path / "q.yaml"
    rules.write_text("name: q\nextends: standard\nclasses:\n  my_attention.MyAttention:\n    macs: 7\n")
    report = staticflops.analyze(CUSTOM + "my_attention.py", model="Net", inputs=["2x10x32"], rules=str(rules))
    assert {row.name: row for row in report.layers}["attn"].macs == 7


@pytest.mark.parametrize("name,where,what", [
    ("broken_rules.yaml", ":5:18", "not a valid formula"),
    ("unknown_field.yaml", ":5:", "rules.linear.mcas"),
])
def test_malformed_rule_file_is_rejected_with_position(name, where, what):
    with pytest.raises(AnalysisError) as error:
        load_rules(CUSTOM + name)
    assert what in error.value.message
    assert str(error.value.location).startswith(CUSTOM + name + where)
    result = run("rules", "validate", CUSTOM + name)
    assert result.returncode == 1
    assert result.stderr.startswith(CUSTOM + name + where) and "Traceback" not in result.stderr


def _one_rule_file(tmp_path, formula: str):
    path = tmp_path / "one_rule.yaml"
    path.write_text(f'name: one-rule\nextends: standard\nrules:\n  linear:\n    flops: "{formula}"\n')
    return path


def test_quoted_formula_errors_point_at_the_character(tmp_path):
    # `    flops: "` is 12 characters: the formula starts at column 13; its `(` is 4 further.
    rules = _one_rule_file(tmp_path, "2 * (macs")
    result = run("rules", "validate", str(rules))
    assert result.returncode == 1
    assert result.stderr.startswith(f"{rules}:5:17: error: rule `linear`, `flops`: not a valid formula")


def test_a_formula_nested_too_deep_is_a_located_error_not_a_crash(tmp_path):
    # It was a RecursionError, reported as an internal error (exit 3).  1,990 minus signs: the
    # 201st is the first over the bound, 200 columns after the formula's start (column 13).
    rules = _one_rule_file(tmp_path, "-" * 1990 + "1")
    expected = f"{rules}:5:213: error: rule `linear`, `flops`: formula nests over 200 deep\n"
    result = run("rules", "validate", str(rules))
    assert (result.returncode, result.stderr) == (1, expected)
    result = run("analyze", "samples/seed_conv_gru.py", "--input", "1x1x100x256", "--rules", str(rules))
    assert (result.returncode, result.stderr) == (1, expected)


def test_validate_accepts_a_good_file():
    result = run("rules", "validate", CUSTOM + "my_rules.yaml")
    assert result.returncode == 0 and "ok" in result.stdout


def test_extends_keeps_headline_and_options():
    thop = load_rules("thop")
    assert thop.headline == "macs" and thop.options["functional"] is False
    assert load_rules(CUSTOM + "my_rules.yaml").headline == "flops"


def test_a_formula_that_would_take_gigabytes_is_an_unknown_not_a_hang(tmp_path):
    # Six nested powers of 2**64 is 2**(64**6): it hung the analysis (and the table crashed on
    # float overflow for 2**4096).  Refused at the first power over 1,000 bits, (2**64)**64;
    # the Linear op (line 27, column 13 of the seed model) is priced as unknown, and the rest stays.
    rules = _one_rule_file(tmp_path, "((((((2**64)**64)**64)**64)**64)**64)")
    result = run("analyze", "samples/seed_conv_gru.py", "--input", "1x1x100x256", "--rules", str(rules),
                 "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [u["location"] for u in report["unknown"]] == ["samples/seed_conv_gru.py:27:13"]
    assert "the result would have about 4,097 bits, over the limit of 1,000" in report["unknown"][0]["what"]
    assert report["totals"]["complete"] is False


# Each was an internal error (a traceback's last line, exit 3) or, for round_sig, a hang.
@pytest.mark.parametrize("formula, what", [
    ("'abc' * 10", "the result is a str, not a number"),
    ("x", "the result is a tuple, not a number"),  # the input shape
    ("max", "the result is a function, not a number"),
    ("'abc' * 10000000000", "the repetition would have over 10,000 items"),  # was a MemoryError
    ("x[::0]", "cannot slice: slice step cannot be zero"),
    ("x < 3", "cannot compare tuple with int"),
    ("floor(1e308 * 10)", "floor(): cannot convert float infinity to integer"),
    ("round_sig(macs, 10 ** 9)", "round_sig(): digits must be from 1 to 17, got 1000000000"),  # was a hang
])
def test_formulas_that_are_no_count_are_located_unknowns(tmp_path, formula, what):
    rules = _one_rule_file(tmp_path, formula)
    result = run("analyze", "samples/seed_conv_gru.py", "--input", "1x1x100x256", "--rules", str(rules),
                 "--format", "json")
    assert result.returncode == 0, result.stderr
    unknown = json.loads(result.stdout)["unknown"]
    assert [u["location"] for u in unknown] == ["samples/seed_conv_gru.py:27:13"]  # the Linear call
    assert unknown[0]["what"].endswith(f"could not be evaluated: {what}")


@pytest.mark.parametrize("text, message", [
    # the safe loader refuses the tag; it was a ConstructorError escaping (exit 3)
    ("name: !!python/object/apply:os.system ['echo hi']\n",
     ":1:7: error: not plain YAML data: could not determine a constructor for the tag "
     "'tag:yaml.org,2002:python/object/apply:os.system'"),
    # Python will not read an integer of over 4,300 digits: was a ValueError escaping (exit 3)
    ("name: x\nextends: standard\nrules:\n  linear:\n    flops: " + "9" * 5000 + "\n",
     ":5:12: error: a number of 5,000 digits is over Python's limit of 4,300"),
    # YAML keeps the last of two equal keys silently
    ("name: x\nextends: standard\nname: y\n", ":3:1: error: key `name` is given twice (first on line 1)"),
])
def test_yaml_that_is_no_plain_data_is_a_located_error(tmp_path, text, message):
    rules = tmp_path / "bad.yaml"
    rules.write_text(text)
    result = run("rules", "validate", str(rules))
    assert (result.returncode, result.stderr) == (1, f"{rules}{message}\n")


def test_compare_refuses_a_dimension_past_int64_as_analyze_does(tmp_path):
    # compare builds its own IR: it priced the 2**20000-row tensor without a word
    model = tmp_path / "m.py"
    model.write_text("import torch\nimport torch.nn as nn\n\n\nclass M(nn.Module):\n    def __init__(self):\n"
                     "        super().__init__()\n        self.m = nn.Identity()\n\n    def forward(self, x):\n"
                     "        return self.m(x.expand(2 ** 20000, 4))\n")
    with pytest.raises(AnalysisError) as error:
        compare(model, inputs=["1x4"])
    assert str(error.value.location) == f"{model}:11:16"  # the call of self.m
    assert error.value.message == ("Identity: a dimension of about 2**20000 is over the int64 size limit (2**63 - 1) "
                                   "of PyTorch and TensorFlow")
