"""Which top-level definition is the model when --model is not given: a class or builder that
no other top-level definition mentions (helpers and blocks are used by the model)."""

import pytest

import staticflops

HEADER = "import torch\nfrom torch import nn\n\n\n"

NET = '''class Net(nn.Module):
    """A helper would be named in another definition; this docstring's "Block" is not a use."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x)
'''


def _analyze(tmp_path, text):
    path = tmp_path / "model.py"
    path.write_text(HEADER + text)
    return staticflops.analyze(path, inputs=["1x4"])


def test_builder_that_uses_the_class_is_the_model(tmp_path):
    report = _analyze(tmp_path, NET + "\n\ndef build():\n    return Net()\n")
    assert report.model == "build"
    assert report.totals.macs == 16  # Linear(4, 4) on 1x4: 4*4


def test_block_used_by_the_model_class_is_not_a_candidate(tmp_path):
    block = "class Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 4)\n\n    def forward(self, x):\n        return self.fc(x)\n\n\n"
    wrapper = ("class Wrapper(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
               "        self.a = Block()\n        self.b = Block()\n\n    def forward(self, x):\n        return self.b(self.a(x))\n")
    report = _analyze(tmp_path, block + wrapper)
    assert report.model == "Wrapper"
    assert report.totals.macs == 32  # two Linear(4, 4) on 1x4: 2 * 4*4


def test_a_name_only_inside_a_string_is_not_a_use(tmp_path):
    other = NET.replace("class Net", "class Block").replace('"Block"', '"Net"')
    with pytest.raises(staticflops.AnalysisError) as error:
        _analyze(tmp_path, NET + "\n\n" + other)
    assert "several models" in error.value.message and "Net, Block" in error.value.message


def test_a_model_built_at_the_top_level_is_the_model(tmp_path):
    # a script's `model = ...` (get_peft_model(base, config) is this shape): Linear(4, 2) is
    # 4 x 2 + 2 = 10 params, 2 x 4 x 2 = 16 FLOPs
    report = _analyze(tmp_path, "model = nn.Sequential(nn.Linear(4, 2), nn.ReLU())\n")
    assert (report.model, report.totals.params, report.totals.forward_flops) == ("model", 10, 16)


def test_several_top_level_modules_need_model_to_choose(tmp_path):
    text = "base = nn.Linear(4, 2)\nmodel = nn.Sequential(base, nn.ReLU())\n"
    with pytest.raises(staticflops.AnalysisError, match=r"name one with --model \(models built at its top level: base, model\)"):
        _analyze(tmp_path, text)
    path = tmp_path / "model.py"
    report = staticflops.analyze(path, model="model", inputs=["1x4"])
    assert (report.model, report.totals.params) == ("model", 10)
    with pytest.raises(staticflops.AnalysisError, match="the file already built it"):
        staticflops.analyze(path, model="model", inputs=["1x4"], kwargs={"width": 3})


def test_torch_compile_is_the_model_it_compiles(tmp_path):
    # torch.compile fuses kernels, it computes the same: Linear(4, 2) is 10 params, 16 FLOPs;
    # a compiled helper (`@torch.compile`, `@torch.compile(mode=...)`) as well: 2 x 16 = 32
    report = _analyze(tmp_path, "model = torch.compile(nn.Sequential(nn.Linear(4, 2)), mode='max-autotune')\n")
    assert (report.model, report.totals.params, report.totals.forward_flops) == ("model", 10, 16)
    report = _analyze(tmp_path, '''
@torch.compile
def twice(layer, x):
    return layer(x)


@torch.compile(fullgraph=True)
def again(layer, x):
    return layer(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return twice(self.fc, x) + again(self.fc, x)
''')
    assert (report.totals.params, report.totals.forward_flops) == (10, 32)


def test_a_top_level_model_that_could_not_be_built_says_why(tmp_path):
    # `model = make(...)` with `make` from a package that is not installed: the statement is
    # skipped, and the message names the variable and the first cause, at the import
    with pytest.raises(staticflops.AnalysisError) as error:
        _analyze(tmp_path, "from missing_lib import make\n\nmodel = make(nn.Linear(4, 2))\n")
    assert "`model` could not be built: import of `missing_lib`" in error.value.message
    assert (error.value.location.line, error.value.code) == (5, "SF104")  # 4 header lines + the import
