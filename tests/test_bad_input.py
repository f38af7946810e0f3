"""Every kind of bad input gets exactly one line, `path:line:col: error: ...` where there is a
place in a file, and an exit status: 1 the model cannot be analysed or its input is wrong (--input, --kwargs,
a rule or config file), as issue 8 states; 2 only for click's own command-line errors
(unknown option, missing argument).  Never a traceback."""

import json
import textwrap

import pytest
from typer.testing import CliRunner

from staticflops.cli.app import app

TWO_MODELS = textwrap.dedent('''\
    from torch import nn


    class A(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x)


    class B(nn.Module):
        def forward(self, x):
            return x
''')

NET = textwrap.dedent('''\
    import torch
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3)
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            {body}
''')


def run(tmp_path, content, *args, name="model.py"):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = CliRunner().invoke(app, ["analyze", str(path), *args])
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.output.replace(str(tmp_path) + "/", "")


def net(body):
    return NET.format(body=body)


CASES = [
    # --- the file cannot be read as Python -----------------------------------------------------
    ("python 2 print", b'print "hello"\n', ["-i", "1x4"], 1,
     "model.py:1:1: error: syntax error: Missing parentheses in call to 'print'. Did you mean print(...)?"),
    ("python 2 raise", b'raise ValueError, "bad"\n', ["-i", "1x4"], 1, "model.py:1:17: error: syntax error: invalid syntax"),
    ("python 2 exec", b'exec "x = 1"\n', ["-i", "1x4"], 1,
     "model.py:1:1: error: syntax error: Missing parentheses in call to 'exec'. Did you mean exec(...)?"),
    ("cut mid-line", b"from torch import nn\nclass Net(nn.Module):\n    def forward(self, x):\n        return self.fc(x",
     ["-i", "1x4"], 1, "model.py:4:23: error: syntax error: '(' was never closed"),
    ("cut mid-block", b"from torch import nn\nclass Net(nn.Module):\n    def forward(self, x):\n", ["-i", "1x4"], 1,
     "model.py:3:26: error: syntax error: expected an indented block after function definition on line 3"),
    # 0xe9 is Latin-1 'é' after "# caf" (5 characters) on line 2
    ("latin-1 byte", b"x = 1\n# caf\xe9\n", ["-i", "1x4"], 1,
     "model.py:2:6: error: not UTF-8 text: invalid continuation byte (byte 0xe9)"),
    ("NUL byte", b"x = 1\x00\n", ["-i", "1x4"], 1, "model.py:1:6: error: NUL byte in the source: not a Python text file"),
    # Python 3.11+ refuses decimal literals over 4,300 digits (sys.get_int_max_str_digits); "1" + 5,000 zeros,
    # used in forward so that it is evaluated; `W = ` puts the literal at column 5 of line 2
    ("5,001-digit literal", net("return self.fc(x) * W").replace("from torch import nn\n", "from torch import nn\nW = 1" + "0" * 5000 + "\n"),
     ["-i", "1x8"], 1,
     "model.py:3:5: error: syntax error: an integer literal of 5,001 digits exceeds Python's limit of 4,300 (write it in hexadecimal)"),
    # --- which model ---------------------------------------------------------------------------
    ("empty file", b"", ["-i", "1x4"], 1,
     "model.py:1:1: error: model.py defines no nn.Module class or builder function; name one with --model"),
    ("no model", b"import torch\nWIDTH = 3\n", ["-i", "1x4"], 1,
     "model.py:1:1: error: model.py defines no nn.Module class or builder function; name one with --model"),
    ("--model names nothing", TWO_MODELS, ["-m", "C", "-i", "1x4"], 1,
     "model.py:1:1: error: no class or function named `C` at the top level of model.py (model classes: A, B)"),
    ("ambiguous", TWO_MODELS, ["-i", "1x4"], 1,
     "model.py:1:1: error: model.py defines several models; choose one with --model (model classes: A, B)"),
    # --- the command line ----------------------------------------------------------------------
    ("input rank", TWO_MODELS, ["-m", "A", "-i", "4"], 0, None),  # Linear takes any rank >= 1: valid
    ("conv input rank", net("return self.conv(x)"), ["-i", "4x8"], 1,
     "model.py:12:16: error: Conv2d expects a 3 or 4-D input, got shape 4x8"),
    ("non-numeric dim", TWO_MODELS, ["-m", "A", "-i", "1x4.5"], 1,
     "staticflops: error: --input '1x4.5': '4.5' is neither a number nor a symbol name"),
    ("negative dim", TWO_MODELS, ["-m", "A", "-i", "1x-4"], 1, None),
    # str.isdigit() takes a superscript two, which int() refuses: was an internal error (exit 3)
    ("superscript dim", TWO_MODELS, ["-m", "A", "-i", "1x\u00b2"], 1,
     "staticflops: error: --input '1x\u00b2': '\u00b2' is neither a number nor a symbol name"),
    # 2**63 = 9223372036854775808, one past int64
    ("dim past int64", TWO_MODELS, ["-m", "A", "-i", "1x9223372036854775808"], 1,
     "staticflops: error: --input '1x9223372036854775808': dimension '9223372036854775808' is over the int64 "
     "size limit (2**63 - 1)"),
    # 5,000 digits: int() refuses it (Python's 4,300-digit limit): was an internal error (exit 3)
    ("dim of 5,000 digits", TWO_MODELS, ["-m", "A", "-i", "1x" + "9" * 5000], 1,
     "staticflops: error: --input '1x99999999999999999999999...9999999999999999999999999' (5,002 characters): "
     "dimension '9999999999999999999999999...9999999999999999999999999' (5,000 characters) is over the int64 "
     "size limit (2**63 - 1)"),
    ("bad kwargs JSON", TWO_MODELS, ["-m", "A", "-i", "1x4", "--kwargs", "{width: 3}"], 1,
     "staticflops: error: --kwargs is not valid JSON: Expecting property name enclosed in double quotes at column 2"),
    # json.loads refuses an integer of over 4,300 digits (ValueError) and recurses per bracket:
    # both were internal errors (exit 3)
    ("kwargs integer of 5,000 digits", TWO_MODELS, ["-m", "A", "-i", "1x4", "--kwargs", '{"w": ' + "9" * 5000 + "}"], 1,
     "staticflops: error: --kwargs holds an integer of over 4,300 digits"),
    ("kwargs nested 50,000 deep", TWO_MODELS, ["-m", "A", "-i", "1x4", "--kwargs", '{"w": ' + "[" * 50000 + "]" * 50000 + "}"],
     1, "staticflops: error: --kwargs nests too deeply"),
    ("kwargs not an object", TWO_MODELS, ["-m", "A", "-i", "1x4", "--kwargs", "[3]"], 1,
     "staticflops: error: --kwargs must be a JSON object, e.g. '{\"num_classes\": 10}'"),
    ("kwargs unknown parameter", TWO_MODELS, ["-m", "A", "-i", "1x4", "--kwargs", '{"width": 3}'], 1,
     "model.py:4:7: error: __init__() got an unexpected keyword argument 'width'"),
    # --- shapes that do not fit (the model's own bug, at its line) ----------------------------------
    ("channels", net("return self.conv(x)"), ["-i", "1x4x8x8"], 1,
     "model.py:12:16: error: Conv2d expects 3 input channels, got 4"),
    ("features", net("return self.fc(x)"), ["-i", "2x7"], 1, "model.py:12:16: error: Linear expects 8 input features, got 7"),
    ("matmul inner dims", net("return x @ torch.ones(5, 3)"), ["-i", "2x4"], 1,
     "model.py:12:16: error: @: matmul of 2x4 and 5x3: inner dimensions 4 and 5 differ"),
    # 2*4*5 = 40 elements; 40 / 7 is not whole
    ("view -1 does not divide", net("return x.view(-1, 7)"), ["-i", "2x4x5"], 1,
     "model.py:12:16: error: view/reshape: cannot reshape 2x4x5 (40 elements) into -1x7"),
    ("view sizes", net("return x.view(3, 5)"), ["-i", "2x4"], 1,
     "model.py:12:16: error: view/reshape: cannot reshape 2x4 (8 elements) into 3x5"),
    ("cat sizes", net("return torch.cat([x, torch.ones(2, 5, 3)], dim=1)"), ["-i", "2x4x4"], 1,
     "model.py:12:16: error: cat: cannot concatenate 2x4x4 and 2x5x3 along dim 1"),
]


@pytest.mark.parametrize("content, args, status, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_gives_one_located_line(tmp_path, content, args, status, message):
    code, output = run(tmp_path, content, *args)
    assert code == status, output
    if message is not None:
        assert output == message + "\n"
    elif status:
        assert output.count("\n") == 1 and "error:" in output, output


def test_unknown_layer_is_reported_by_its_qualified_name_and_the_rest_is_counted(tmp_path):
    source = net("return self.fc(x) + self.odd(x)[..., :4]").replace(
        "self.fc = nn.Linear(8, 4)", "self.fc = nn.Linear(8, 4)\n        self.odd = nn.FancyLayer(8)")
    code, output = run(tmp_path, source, "-i", "2x8", "--format", "json")
    assert code == 0
    report = json.loads(output)
    assert report["unknown"] == [{"location": "model.py:10:20",
                                  "what": "`torch.nn.FancyLayer` is not modelled", "code": "SF400"}]
    # Linear(8, 4) on 2x8 still counted: 2*8*4 = 64 MACs = 128 FLOPs, 8*4+4 = 36 params
    # plus Conv2d(3, 8, 3) params 8*3*3*3 + 8 = 224 (built, not called)
    assert (report["totals"]["macs"], report["totals"]["params"], report["totals"]["complete"]) == (64, 260, False)


def test_missing_imported_file_is_an_unknown_at_the_import(tmp_path):
    source = "from .missing import Thing\n" + net("return self.fc(x)").replace(
        "self.fc = nn.Linear(8, 4)", "self.fc = nn.Linear(8, 4)\n        self.ext = Thing(8)")
    code, output = run(tmp_path, source, "-i", "2x8", "--format", "json")
    assert code == 0
    report = json.loads(output)
    assert report["unknown"] == [{"location": "model.py:1:1",
                                  "what": "import of `.missing`: no such file in the analysed project",
                                  "code": "SF400"}]
    assert report["totals"]["macs"] == 64  # 2*8*4, counted anyway


def test_missing_model_file(tmp_path):
    result = CliRunner().invoke(app, ["analyze", str(tmp_path / "absent.py"), "-i", "1x4"])
    assert result.exit_code == 1
    assert result.output == f"staticflops: error: cannot read {tmp_path / 'absent.py'}: No such file or directory\n"


def test_rule_file_schema_error_has_line_and_column(tmp_path):
    rules = tmp_path / "bad.yaml"
    rules.write_text("name: bad\nextends: standard\nrules:\n  linear:\n    macs: [1, 2]\n")
    code, output = run(tmp_path, TWO_MODELS, "-m", "A", "-i", "1x4", "--rules", str(rules))
    assert code == 1
    assert output == "bad.yaml:5:11: error: rule file: `rules.linear.macs.str`: Input should be a valid string\n"


def test_config_key_typo_names_the_closest_key(tmp_path, monkeypatch):
    (tmp_path / "model.py").write_text(TWO_MODELS)
    (tmp_path / "pyproject.toml").write_text('[[tool.staticflops.models]]\nname = "a"\npath = "model.py"\n'
                                             'model = "A"\ninputs = ["1x4"]\nbudgte = { params = 100 }\n')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["check"])
    assert result.exit_code == 1
    assert result.output == ("staticflops: error: pyproject.toml:6:1: `models.0.budgte`: unknown key `budgte`; "
                             "did you mean `budget`?\n")
