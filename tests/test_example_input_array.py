"""Issue 21 item 4: Lightning's `self.example_input_array` gives the inputs when none is given
(read from the constructor's abstract run, never executed); `--input` and the folder-mode
`# staticflops: input=` comment take precedence."""

import json
import subprocess
import sys
import textwrap

import staticflops

# Conv2d(3, 8, 3) on 1x3x32x32: output 1x8x30x30; MACs 8*30*30 * 3*3*3 = 7,200*27 = 194,400,
# FLOPs 2*194,400 = 388,800 (standard: 2 per MAC); params 8*27 + 8 = 224.
CONV = textwrap.dedent("""\
    import torch
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3)
            self.example_input_array = torch.randn(1, 3, 32, 32)

        def forward(self, x):
            return self.conv(x)
""")

# A tuple, one tensor per forward argument: randint -> int64 token ids 2x5, zeros -> float32
# 2x5x16.  Embedding(100, 16) counts 0 FLOPs, the add is elementwise (0 under `standard`);
# Linear(16, 4) on 2x5x16: MACs 2*5*16*4 = 640, FLOPs 1,280; params 100*16 + (16*4 + 4) = 1,668.
TWO_INPUTS = textwrap.dedent("""\
    import torch
    from torch import nn


    class TwoInputs(nn.Module):
        def __init__(self, vocab=100):
            super().__init__()
            self.embed = nn.Embedding(vocab, 16)
            self.proj = nn.Linear(16, 4)
            self.example_input_array = (torch.randint(0, vocab, (2, 5)), torch.zeros(2, 5, 16))

        def forward(self, tokens, extra):
            return self.proj(self.embed(tokens) + extra)
""")


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def test_a_tensor_gives_the_input(tmp_path):
    model = tmp_path / "net.py"
    model.write_text(CONV)
    report = staticflops.analyze(model)
    assert report.inputs == ["1x3x32x32"]
    assert report.outputs == [[1, 8, 30, 30]]
    assert (report.totals.forward_flops, report.totals.macs, report.totals.params) == (388_800, 194_400, 224)


def test_a_tuple_gives_one_input_per_argument_with_its_dtype(tmp_path):
    model = tmp_path / "two.py"
    model.write_text(TWO_INPUTS)
    report = staticflops.analyze(model)
    assert report.inputs == ["2x5:int64", "2x5x16"]
    assert report.outputs == [[2, 5, 4]]
    assert (report.totals.forward_flops, report.totals.macs, report.totals.params) == (1_280, 640, 1_668)


def test_input_given_wins(tmp_path):
    """--input 4x3x32x32: four times the MACs, 4*194,400 = 777,600 (FLOPs 1,555,200)."""
    model = tmp_path / "net.py"
    model.write_text(CONV)
    result = run("analyze", model, "--input", "4x3x32x32", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["inputs"] == ["4x3x32x32"] and data["totals"]["macs"] == 777_600


def test_folder_mode_uses_it_and_the_comment_wins(tmp_path):
    """commented.py says input=1x3x16x16: output 1x8x14x14, MACs 8*14*14*27 = 42,336,
    FLOPs 84,672; net.py has no comment: its example_input_array, 388,800 FLOPs."""
    (tmp_path / "net.py").write_text(CONV)
    (tmp_path / "commented.py").write_text("# staticflops: input=1x3x16x16\n" + CONV)
    result = run("analyze", ".", "--format", "json", "--no-cache", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    reports = {entry["path"]: entry["report"] for entry in json.loads(result.stdout)["files"]}
    assert reports["net.py"]["inputs"] == ["1x3x32x32"] and reports["net.py"]["totals"]["forward_flops"] == 388_800
    assert reports["commented.py"]["inputs"] == ["1x3x16x16"]
    assert reports["commented.py"]["totals"]["forward_flops"] == 84_672


def test_without_it_the_error_says_how_to_give_an_input(tmp_path):
    model = tmp_path / "net.py"
    model.write_text(CONV.replace("        self.example_input_array = torch.randn(1, 3, 32, 32)\n", ""))
    result = run("analyze", model)
    assert result.returncode != 0
    assert "no --input given" in result.stderr and "example_input_array" in result.stderr
    assert "Net.forward(x), in order, e.g. --input 1x3x224x224" in result.stderr


def test_the_error_names_forward_parameters_through_wrappers(tmp_path):
    """A decorated forward (functools.wraps, as transformers' `@can_return_tuple`) is named by the
    parameters of the def under it, and token ids get a token example."""
    model = tmp_path / "lm.py"
    model.write_text(textwrap.dedent("""\
        import functools
        from torch import nn


        def returns_tuple(fn):
            @functools.wraps(fn)
            def wrapper(self, *args, **kwargs):
                return fn(self, *args, **kwargs)
            return wrapper


        class LM(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(100, 16)

            @returns_tuple
            def forward(self, input_ids, attention_mask=None, position_ids=None, labels=None, past=None,
                        use_cache=False):
                return self.embed(input_ids)
    """))
    result = run("analyze", model)
    assert result.returncode == 1
    assert ("LM.forward(input_ids, attention_mask, position_ids, labels, past, ...), in order, "
            "e.g. --input 1x32:int64") in result.stderr
