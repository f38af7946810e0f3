"""Issue 21, items 2-4: one pipeline for every command (a front-end table, so `compare` reads
Keras models), tables that fit the terminal, and folder mode on real repositories."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, cwd=ROOT, columns=None):
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run([sys.executable, "-m", "staticflops", *args], capture_output=True, text=True, cwd=cwd,
                          env=env)


# samples/keras_seed.py, by hand (channels_first, input 1x1x100x256):
#   Conv2D(32, 4x4, stride 1x2): output 1x32x97x127 (100-4+1 = 97, (256-4)//2+1 = 127);
#     MACs 32*97*127 * 4*4*1 = 6,307,328; params 4*4*32 + 32 = 544
#   GRU(96, reset_after) on 97 steps of 32*127 = 4,064 features: MACs 97 * 3*(4,064*96 + 96*96) = 116,213,760;
#     params 3*(4,064*96 + 96*96 + 2*96) = 1,198,656
#   Dense(256) on 1x97x96: MACs 97*96*256 = 2,383,872; params 96*256 + 256 = 24,832
#   standard (2 FLOPs per MAC): 2 * (6,307,328 + 116,213,760 + 2,383,872) = 249,809,920; params 1,224,032
def test_compare_reads_a_keras_model():
    result = cli("compare", "samples/keras_seed.py", "--rules", "standard", "--rules", "full", "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = {row["rules"]: row for row in json.loads(result.stdout)["conventions"]}
    assert rows["standard"]["forward_flops"] == 249_809_920
    assert rows["standard"]["params"] == 1_224_032
    assert rows["full"]["macs"] == 124_904_960  # 6,307,328 + 116,213,760 + 2,383,872: MACs are the same in every convention
    table = cli("compare", "samples/keras_seed.py", columns=80)  # the table, every built-in rule set
    assert table.returncode == 0 and max(len(line) for line in _lines(table.stdout)) <= 80
    assert "Left out to fit 80 columns: torch-cpu" in table.stdout  # of the disagreement table's rule sets


def test_every_command_picks_its_front_end_from_one_table():
    from staticflops import api
    from staticflops.frontend.source import load_source

    keras = load_source(ROOT / "samples" / "keras_seed.py")
    torch = load_source(ROOT / "samples" / "seed_conv_gru.py")
    assert [end.name for end in api.FRONT_ENDS] == ["keras", "torch"]
    assert api.front_end(keras).name == "keras" and api.front_end(torch).name == "torch"


def _lines(text: str) -> list[str]:
    return text.splitlines()


def test_default_table_fits_80_columns_and_uses_a_wider_COLUMNS_in_a_pipe():
    args = ("analyze", "samples/seed_conv_gru.py", "--input", "1x1x100x256")
    narrow = cli(*args, columns=80)  # subprocess output is a pipe: COLUMNS must still be honoured
    assert narrow.returncode == 0, narrow.stderr
    assert max(len(line) for line in _lines(narrow.stdout)) <= 80
    assert all(line == line.rstrip() for line in _lines(narrow.stdout))  # no trailing spaces
    # every column kept at 80 (the gap narrowed to 2): conv's row, hand-derived in test_compare above
    # (Conv2d(1, 32, 4x4, stride 1x2): 12,614,656 FLOPs = 12.61 M, 6.31 M MACs, 4*4*32 + 32 = 544 params)
    assert "  conv     Conv2d   1x32x97x127   12.61 M    6.31 M      544    5.0%    13" in _lines(narrow.stdout)
    wide = cli(*args, columns=200)
    memory = next(line for line in _lines(wide.stdout) if line.startswith("Memory"))
    assert len(memory) > 80  # one line at 200 columns; wrapped at 80
    assert not any(line.startswith("Memory") and len(line) > 80 for line in _lines(narrow.stdout))
    assert max(len(line) for line in _lines(wide.stdout)) <= 200


def test_narrow_terminal_leaves_columns_out_in_the_written_order_and_says_so():
    result = cli("analyze", "samples/seed_conv_gru.py", "--input", "1x1x100x256", columns=60)
    header = next(line for line in _lines(result.stdout) if line.lstrip().startswith("Layer"))
    # Widths: Layer 7 (sigmoid), Type 7 (Sigmoid), Output 11, FLOPs 8 (232.43 M), MACs 8, Params 7 (24.83 K),
    # %FLOPs 6, Line 4.  A table takes sum + gap x columns: 58 + 2 x 8 = 74 > 60; without MACs 50 + 14 = 64 > 60;
    # without Line too 46 + 12 = 58 <= 60.
    assert header.split() == ["Layer", "Type", "Output", "FLOPs", "Params", "%FLOPs"]
    assert "Left out to fit 60 columns: MACs, Line (a wider COLUMNS, or --format" in " ".join(_lines(result.stdout))
    assert max(len(line) for line in _lines(result.stdout)) <= 60


def test_exact_writes_whole_numbers_with_separators():
    result = cli("analyze", "samples/seed_conv_gru.py", "--input", "1x1x100x256", "--exact", columns=200)
    # GRU(8128? no: 32*127 = 4,064 inputs, 96 hidden) on 97 steps: 2 * 97 * 3 * (4,064*96 + 96*96) = 232,427,520
    gru = next(line for line in _lines(result.stdout) if line.lstrip().startswith("gru"))
    assert "232,427,520" in gru and "12,614,656" not in gru
    assert "12,614,656" in next(line for line in _lines(result.stdout) if line.lstrip().startswith("conv"))


def test_symbolic_shapes_and_counts_are_shortened_for_the_table_only():
    from staticflops.report.symbolic import short_count, short_dim
    from staticflops.report.units import human

    # conv 7x7 stride 2 pad 3, then maxpool 3x3 stride 2 pad 1: ((H - 1)//2 + 1 - 1)//2 + 1 ~ H/4
    assert short_dim("((((H - 1)//2))//2) + 1") == "H/4"
    assert short_dim("((H - 2)//2) + 1") == "H/2"
    assert short_dim("T + 1") == "T + 1"  # no rounding involved: exact, kept
    # 18816*B*(H/2)*(W/2) = 4704*B*H*W; the terms of lower degree come from the rounding
    assert short_count("18816*B*((H - 1)//2)*((W - 1)//2) + 18816*B*((H - 1)//2) + 18816*B", human) == "≈ 4.70 K·B·H·W"
    assert short_count("512*B*T**2 + 196608*B*T", human) is None  # no floor division: every term shown
    assert short_count("__import__('os')//2", human) is None  # not a polynomial of names: shown as written


def test_symbolic_table_keeps_exact_formulas_in_json():
    table = cli("analyze", "samples/resnet50.py", "--input", "Bx3xHxW", "--depth", "1", columns=80)
    conv1 = next(line for line in _lines(table.stdout) if line.lstrip().startswith("conv1"))
    assert "Bx64xH/2xW/2" in conv1 and "≈ 4.70 K·B·H·W" in conv1  # 2*9408*B*(H/2)*(W/2): 64*3*7*7 = 9,408 MACs a pixel
    data = json.loads(cli("analyze", "samples/resnet50.py", "--input", "Bx3xHxW", "--format", "json").stdout)
    first = next(row for row in data["layers"] if row["name"] == "conv1")
    assert first["output_shape"][2] == "((H - 1)//2) + 1"


README = (ROOT / "README.md").read_text()


def test_readme_what_you_get_block_is_what_the_command_prints_at_80_columns():
    block = README.split("## What you get", 1)[1].split("```", 2)[1]
    command, *expected = [line for line in block.strip("\n").splitlines()]
    assert command == "$ staticflops analyze samples/seed_conv_gru.py --input 1x1x100x256"
    printed = cli(*command.split()[2:], columns=80).stdout
    assert [line for line in expected if line] == [line for line in _lines(printed) if line][:len([e for e in expected if e])]


def test_readme_quick_start_commands_run():
    quick = README.split("## Quick start", 1)[1].split("## ", 1)[0]
    commands = ["staticflops " + line.split("staticflops ", 1)[1] for line in quick.splitlines() if "staticflops " in line]
    assert commands  # the quick start names its commands
    for command in commands:
        result = cli(*command.split()[1:], columns=80)
        assert result.returncode == 0, (command, result.stderr)
        assert max(len(line) for line in _lines(result.stdout)) <= 80, command


TINY = """{comment}import torch.nn as nn


class {name}(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear({fan_in}, 3)

    def forward(self, x):
        return self.fc(x)
"""
BLOCKS = """import torch.nn as nn


class ConvBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3)

    def forward(self, x):
        return self.conv(x)
"""
HELPERS = """import torch


def count(module):
    return sum(p.numel() for p in module.parameters())
"""


def test_folder_mode_skips_helpers_reads_per_file_inputs_and_sorts_naturally(tmp_path):
    (tmp_path / "net10.py").write_text(TINY.format(comment="", name="Net10", fan_in=8))
    (tmp_path / "net2.py").write_text(TINY.format(comment="# staticflops: input=1x4\n", name="Net2", fan_in=4))
    (tmp_path / "blocks.py").write_text(BLOCKS)  # a layer that needs arguments: a helper
    (tmp_path / "utils.py").write_text(HELPERS)  # a function that returns no module
    result = cli("analyze", ".", "--input", "1x8", "--format", "json", "--no-cache", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert [entry["path"] for entry in data["files"]] == ["blocks.py", "net2.py", "net10.py", "utils.py"]
    by_path = {entry["path"]: entry for entry in data["files"]}
    assert by_path["blocks.py"]["skipped"] == "blocks.py:4:7: __init__() missing required argument 'channels'"
    assert "utils.py" in by_path["utils.py"]["skipped"] and "error" not in by_path["utils.py"]
    # Linear(4, 3) on the file's own 1x4: 2*4*3 = 24 FLOPs; Linear(8, 3) on --input 1x8: 2*8*3 = 48
    assert by_path["net2.py"]["report"]["totals"]["forward_flops"] == 24
    assert by_path["net10.py"]["report"]["totals"]["forward_flops"] == 48
    assert (data["summary"]["analysed"], data["summary"]["skipped"], data["summary"]["errors"]) == (2, 2, 0)
    table = cli("analyze", ".", "--input", "1x8", "--no-cache", cwd=tmp_path, columns=200)
    assert table.returncode == 0 and "skipped: blocks.py:4:7:" in table.stdout
    assert "(2 analysed, 0 errors, 2 skipped, " in table.stdout


def test_folder_mode_still_fails_a_broken_model_and_a_bad_input_comment(tmp_path):
    broken = TINY.format(comment="# staticflops: input=1x4x\n", name="Net", fan_in=4)
    (tmp_path / "net.py").write_text(broken)
    (tmp_path / "wrong.py").write_text(TINY.format(comment="", name="Wrong", fan_in=4))  # 1x8 into Linear(4, 3)
    result = cli("analyze", ".", "--input", "1x8", "--format", "json", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1
    by_path = {entry["path"]: entry for entry in json.loads(result.stdout)["files"]}
    assert by_path["net.py"]["error"].startswith("net.py:1:16: error: # staticflops: input=1x4x")  # "# staticflops: " is 15 characters
    assert "error" in by_path["wrong.py"] and "skipped" not in by_path["wrong.py"]


def test_by_type_sums_the_leaves_per_type():
    result = cli("analyze", "samples/resnet50.py", "--input", "1x3x224x224", "--by-type", "--exact", columns=120)
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line.split() for line in _lines(result.stdout)
            if line.startswith("  ") and line.split()[0] in ("Conv2d", "Linear", "BatchNorm2d", "ReLU")}
    # ResNet-50: 1 stem conv + 16 bottlenecks x 3 convs + 4 downsample convs = 53 Conv2d, as many BatchNorm2d;
    # ReLU: the stem's and one module per bottleneck (reused three times in it) = 17 rows
    assert (rows["Conv2d"][1], rows["BatchNorm2d"][1], rows["ReLU"][1]) == ("53", "53", "17")
    # fc: Linear(2048, 1000): 2 * 2048 * 1000 = 4,096,000 FLOPs; the convs are the rest of the
    # 8,178,368,512 FlopCounterMode recorded (samples/README.md): 8,174,272,512
    assert rows["Linear"][2] == "4,096,000" and rows["Conv2d"][2] == "8,174,272,512"
    order = [line.split()[0] for line in _lines(result.stdout) if line.startswith("  ") and line.split()[0] in rows]
    assert order[:2] == ["Conv2d", "Linear"]  # most FLOPs first


WRAPPED_INIT = """import functools
import torch.nn as nn


def register_to_config(init):
    @functools.wraps(init)
    def inner_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
    return inner_init


class Block(nn.Module):
    @register_to_config
    def __init__(self, channels, depth=2):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3)

    def forward(self, x):
        return self.conv(x)
"""


def test_a_wrapped_init_that_needs_arguments_is_a_helper_said_at_the_class(tmp_path):
    # diffusers' @register_to_config: the wrapper takes *args, **kwargs; inspect.signature (and
    # we) follow __wrapped__ to the def, which needs `channels`.  The decorator is no model.
    (tmp_path / "blocks.py").write_text(WRAPPED_INIT)  # `class Block` is line 12, `Block` at column 7
    result = cli("analyze", ".", "--format", "json", "--no-cache", cwd=tmp_path)
    entry = json.loads(result.stdout)["files"][0]
    assert entry["skipped"] == "blocks.py:12:7: __init__() missing required argument 'channels'", entry
    single = cli("analyze", "blocks.py", "--input", "1x4x8x8", cwd=tmp_path)
    assert single.returncode == 1 and "blocks.py:12:7: error: __init__() missing required argument 'channels'" in single.stderr
    # with the argument given, the wrapper runs the def: Conv2d(4, 4, 3) on 1x4x8x8 -> 1x4x6x6,
    # 144 outputs x 4*3*3 = 36 MACs each = 5,184 MACs = 10,368 FLOPs
    built = cli("analyze", "blocks.py", "--input", "1x4x8x8", "--kwargs", '{"channels": 4}', "--format", "json",
                cwd=tmp_path)
    assert json.loads(built.stdout)["totals"]["forward_flops"] == 10368, built.stderr
