"""Constructs found by tools/sweep_library.py (every file of timm, diffusers, ultralytics, einops,
vit-pytorch and torchvision's models analysed alone) that the interpreter got wrong, each
reduced to a tiny project.  Expected numbers by hand, in the comments."""

import textwrap

import pytest

import staticflops
from staticflops.diagnostics import AnalysisError


def _write(root, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_a_package_that_imports_its_own_submodule_by_its_absolute_name(tmp_path):
    # ultralytics/models/yolo/__init__.py: `from ultralytics.models.yolo import detect, obb, ...`.
    # While that line binds `sub`, Python finds no attribute `sub` on the half-run package and
    # imports the submodule; we looped on the binding itself (a RecursionError, reported as
    # "nests too deeply").
    _write(tmp_path, {
        "pkg/__init__.py": "from pkg import sub\n",
        "pkg/sub/__init__.py": "from .layer import WIDTH\n",
        "pkg/sub/layer.py": "WIDTH = 3\n",
        "model.py": '''
            import torch.nn as nn
            import pkg

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, pkg.sub.WIDTH)

                def forward(self, x):
                    return self.fc(x)
        ''',
    })
    report = staticflops.analyze(tmp_path / "model.py", inputs=["1x4"])
    # Linear(4, 3): 4 * 3 + 3 = 15 params; 2 * 4 * 3 = 24 FLOPs
    assert report.unknown == []
    assert report.totals.params == 15 and report.totals.forward_flops == 24


def test_itertools_product_and_combinations(tmp_path):
    # ultralytics' TinyViT attention: `points = list(itertools.product(range(h), range(w)))`
    # ("cannot iterate over an unknown value (`itertools.product` is not modelled)")
    _write(tmp_path, {"model.py": '''
        import itertools
        from itertools import combinations
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                points = list(itertools.product(range(2), range(3)))   # 6 pairs, (0, 0) ... (1, 2)
                pairs = list(combinations("abcd", 2))                  # C(4, 2) = 6
                bits = list(itertools.product([0, 1], repeat=2))       # 4
                self.fc = nn.Linear(4, len(points) + len(pairs) + len(bits) + sum(points[-1]))

            def forward(self, x):
                return self.fc(x)
    '''})
    report = staticflops.analyze(tmp_path / "model.py", inputs=["1x4"])
    # width 6 + 6 + 4 + (1 + 2) = 19: params 4 * 19 + 19 = 95, FLOPs 2 * 4 * 19 = 152
    assert report.unknown == []
    assert report.totals.params == 95 and report.totals.forward_flops == 152


def test_isinstance_of_an_unknown_is_undecidable_not_false(tmp_path):
    # ultralytics' AutoBackend: `ckpt = torch_safe_load(w)` (torch.load, not modelled), then
    # `if not isinstance(candidate, torch.nn.Module): raise TypeError(...)`.  isinstance of an
    # unknown was False, so the raise was taken as certain and named instead of the first cause.
    # Undecidable, the `if` takes the branch that does not raise (docs/python-support.md, "When the analyser
    # cannot decide"), and the model is built.
    _write(tmp_path, {"model.py": '''
        import torch.nn as nn
        from somelib import load

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                checkpoint = load("weights.pt")
                if not isinstance(checkpoint, dict):
                    raise TypeError("not a checkpoint")
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x)
    '''})
    report = staticflops.analyze(tmp_path / "model.py", inputs=["1x4"])
    # Linear(4, 2): 4 * 2 + 2 = 10 params, 2 * 4 * 2 = 16 FLOPs
    assert report.totals.params == 10 and report.totals.forward_flops == 16
    assert [d.code for d in report.diagnostics if str(d.location).endswith("model.py:9:12")] == ["SF131"]


def test_an_error_in_a_branch_taken_on_an_assumption_names_the_condition_and_its_first_cause(tmp_path):
    # diffusers' HunyuanImage refiner: `if i < np.log2(ratio):` (numpy not followed) assumed
    # true, then `block_out_channels[i + 1]` out of range: the error named only the IndexError.
    _write(tmp_path, {"model.py": '''
        import torch.nn as nn
        from somelib import ratio

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                widths = [4, 8]
                for i in range(len(widths)):
                    if i < ratio:
                        self.fc = nn.Linear(widths[i], widths[i + 1])

            def forward(self, x):
                return self.fc(x)
    '''})
    with pytest.raises(AnalysisError) as error:
        staticflops.analyze(tmp_path / "model.py", inputs=["1x4"])
    message = str(error.value)
    assert "\n" not in message
    # the symptom where it happened (line 11), then the assumed condition (line 10, col 16) and
    # its first cause, the import of somelib (line 3, col 1); line 1 is the text's empty first line
    assert message.startswith(f"{tmp_path / 'model.py'}:11:")
    assert "index 2 is out of range" in message
    assert f"the condition at {tmp_path / 'model.py'}:10:16 could not be decided ({tmp_path / 'model.py'}:3:1: " in message


def test_an_exception_from_an_assumed_branch_is_still_caught_by_the_try_around_it(tmp_path):
    _write(tmp_path, {"model.py": '''
        import torch.nn as nn
        from somelib import ratio

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                widths = [4, 8]
                try:
                    if ratio:
                        widths[5]
                    width = 1
                except IndexError as error:
                    width = 2 + len(error.args)
                self.fc = nn.Linear(4, width)

            def forward(self, x):
                return self.fc(x)
    '''})
    report = staticflops.analyze(tmp_path / "model.py", inputs=["1x4"])
    # caught: width = 2 + 1 (one message in args) = 3; Linear(4, 3): 15 params, 24 FLOPs
    assert report.totals.params == 15 and report.totals.forward_flops == 24
