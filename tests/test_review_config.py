"""Project config ([tool.staticflops] / staticflops.yaml) and budget strings."""

import textwrap

import pytest

from staticflops.project.budget import BudgetError, parse_budget
from staticflops.project.config import ConfigError, find_config, load_config


@pytest.mark.parametrize("text, expected", [
    ("8.5G", 8_500_000_000),
    ("8.5e9", 8_500_000_000),
    ("8_500_000_000", 8_500_000_000),
    ("26M", 26_000_000),
    ("25.6 M", 25_600_000),
    ("1.5k", 1_500),
    ("2T", 2 * 10**12),
    ("7B", 7 * 10**9),  # "billion", as in 7B-parameter models
    (61706, 61706),
    (8.5e9, 8_500_000_000),
])
def test_budget_strings(text, expected):
    assert parse_budget(text) == expected


@pytest.mark.parametrize("text", ["8.5Q", "", "G", "-3M", "1.0000001K", True, None, [1], "1e-3"])
def test_bad_budgets_are_refused(text):
    with pytest.raises(BudgetError):
        parse_budget(text)


def test_pyproject_config(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(textwrap.dedent("""\
        [project]
        name = "x"

        [tool.staticflops]
        allow_unknown = true

        [[tool.staticflops.models]]
        name = "classifier"
        path = "src/models/resnet.py"
        model = "resnet50"
        kwargs = { num_classes = 10 }
        inputs = ["1x3x224x224"]
        rules = "standard"
        budget = { forward_flops = "8.5G", params = "26M", training_flops = "25G" }
    """))
    config = load_config(path)
    model = config.models[0]
    assert (model.name, model.path, model.model, model.kwargs) == ("classifier", "src/models/resnet.py", "resnet50",
                                                                   {"num_classes": 10})
    assert model.budget == {"forward_flops": 8_500_000_000, "params": 26_000_000, "training_flops": 25_000_000_000}
    assert config.allows_unknown(model) and config.root == tmp_path.resolve()
    assert config.budget_line(model, "params") == 14


def test_yaml_config_and_discovery(tmp_path):
    (tmp_path / "staticflops.yaml").write_text(textwrap.dedent("""\
        models:
          - name: lm
            path: lm.py
            inputs: 1x64:int64
            budget:
              forward_flops: 71M
    """))
    (tmp_path / "sub").mkdir()
    found = find_config(tmp_path / "sub")
    assert found == tmp_path / "staticflops.yaml"
    model = load_config(found).models[0]
    assert model.inputs == ["1x64:int64"] and model.budget == {"forward_flops": 71_000_000}
    assert load_config(found).budget_line(model, "forward_flops") == 6


def test_pyproject_without_our_table_is_skipped(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    with pytest.raises(ConfigError, match="no staticflops config found"):
        find_config(tmp_path)


def test_bad_budget_names_the_line(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(textwrap.dedent("""\
        [[tool.staticflops.models]]
        name = "a"
        path = "a.py"
        inputs = ["1x3"]

        [[tool.staticflops.models]]
        name = "b"
        path = "b.py"
        inputs = ["1x3"]
        budget = { forward_flops = "8.5Q" }
    """))
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).endswith("pyproject.toml:10:1: `models.1.budget`: budget '8.5Q' is not a number like "
                                     "8.5G, 26M, 8.5e9 or 8_500_000_000")


def test_unknown_key_and_metric_name_the_line(tmp_path):
    path = tmp_path / "staticflops.yaml"
    path.write_text("models:\n  - name: a\n    path: a.py\n    inputs: [1x3]\n    budget:\n      flops: 1G\n")
    with pytest.raises(ConfigError, match=r"staticflops.yaml:6:7: `models.0.budget`: unknown budget key 'flops'"):
        load_config(path)
    path.write_text("models:\n  - name: a\n    path: a.py\n    inputs: [1x3]\n    input_shape: 3\n")
    with pytest.raises(ConfigError, match=r"staticflops.yaml:5:18: `models.0.input_shape`: unknown key `input_shape`; did you mean `inputs`\?"):
        load_config(path)


def test_missing_field_and_syntax_errors(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text("[[tool.staticflops.models]]\nname = \"a\"\ninputs = [\"1x3\"]\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml:1:1: `models.0.path`: Field required"):
        load_config(path)
    path.write_text("[[tool.staticflops.models]]\nname = \"a\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml:2:\d+: not valid TOML"):
        load_config(path)
    yaml_path = tmp_path / "staticflops.yaml"
    yaml_path.write_text("models:\n  - name: [\n")
    with pytest.raises(ConfigError, match=r"staticflops.yaml:3:1: not valid YAML"):
        load_config(yaml_path)


# Each was an internal error (ConstructorError, ValueError, RecursionError) or, the repeated key,
# silently dropped.
@pytest.mark.parametrize("name, text, message", [
    ("staticflops.yaml", "models:\n  - {name: a, path: !!python/name:os.system , inputs: [1x3]}\n",
     r"staticflops.yaml:2:21: not plain YAML data: could not determine a constructor for the tag "
     r"'tag:yaml.org,2002:python/name:os.system'"),
    ("staticflops.yaml", "models:\n  - {name: a, path: a.py, inputs: [1x3], budget: {forward_flops: " + "9" * 5000 + "}}\n",
     r"staticflops.yaml:2:\d+: a number of 5,000 digits is over Python's limit"),
    ("staticflops.yaml", "models:\n  - {name: a, path: a.py, inputs: [1x3], name: b}\n",
     r"staticflops.yaml:2:42: key `name` is given twice \(first on line 2\)"),
    # libyaml stops at its nesting limit; PyYAML without libyaml gives the second message
    ("staticflops.yaml", "models: " + "[" * 50000 + "]" * 50000 + "\n",
     r"staticflops.yaml:1:\d+: (not valid YAML|collections nest too deeply)"),
    # line 2 starts `kwargs = { a = `: its first `[` is column 16
    ("pyproject.toml", "[tool.staticflops]\nkwargs = { a = " + "[" * 50000 + "]" * 50000 + " }\n",
     r"pyproject.toml:2:16: arrays or tables nest too deeply"),
    ("pyproject.toml", "[tool.staticflops]\nbudget = { forward_flops = " + "9" * 5000 + " }\n",  # column 28
     r"pyproject.toml:2:28: an integer of over 4,300 digits"),
])
def test_hostile_config_files_are_located_errors(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_duplicate_model_names(tmp_path):
    path = tmp_path / "staticflops.yaml"
    path.write_text("models:\n  - {name: a, path: a.py, inputs: [1x3]}\n  - {name: a, path: b.py, inputs: [1x3]}\n")
    with pytest.raises(ConfigError, match="two models are named 'a'"):
        load_config(path)


def test_signed_changes_use_the_total_prefix():
    from staticflops.report.units import signed

    assert signed(410_000_000, 8_590_000_000, "FLOPs") == "+0.41 GFLOPs"
    assert signed(8_388_608, 8_180_000_000, "FLOPs") == "+8.39 MFLOPs"  # under 0.01 G: its own prefix
    assert signed(-1680, 28_800, "FLOPs") == "-1.68 KFLOPs"
    assert signed(1024, 1792, "FLOPs", exact=True) == "+1024 FLOPs"
    assert signed(0, 5, "FLOPs") == "+0 FLOPs"
    assert signed("178368512*B", None, "FLOPs") == "+178368512*B FLOPs"
