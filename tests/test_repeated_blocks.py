"""Issue 21 item 2: identical numbered sibling blocks fold into one table row (`0-11 ×12`),
`--expand` shows them all, `--depth` still applies; the JSON keeps one row per module."""

import json
import os
import subprocess
import sys
import textwrap

GPT12 = ["samples/gpt_minimal.py", "--model", "GPT(GPTConfig(n_layer=12))", "--input", "1x64:int64"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One Block of samples/gpt_minimal.py at its defaults (n_embd 64, n_head 4, head size 16) on
# T = 64 tokens, by hand:
#   attn.c_attn Linear(64, 192): MACs 64*64*192 = 786,432 -> FLOPs 1,572,864
#   attention (SDPA): q·kᵀ 4*64*64*16 = 262,144 MACs, and as many for ·v: 524,288 -> 1,048,576
#   attn.c_proj Linear(64, 64): MACs 64*64*64 = 262,144 -> 524,288
#   mlp.c_fc Linear(64, 256) and mlp.c_proj Linear(256, 64): 64*64*256 = 1,048,576 MACs each
#     -> 2,097,152 FLOPs each
#   Block: 1,572,864 + 1,048,576 + 524,288 + 2*2,097,152 = 7,340,032 FLOPs (3,670,016 MACs)
#   params: ln_1 2*64 = 128, c_attn 64*192 + 192 = 12,480, c_proj 64*64 + 64 = 4,160,
#     ln_2 128, c_fc 64*256 + 256 = 16,640, mlp.c_proj 256*64 + 64 = 16,448: 49,984
# Twelve: 88,080,384 FLOPs, 44,040,192 MACs, 599,808 params.
BLOCK_FLOPS, BLOCK_MACS, BLOCK_PARAMS = 7_340_032, 3_670_016, 49_984


def run(*args, columns=200):
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run([sys.executable, "-m", "staticflops", "analyze", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=180)


def rows(stdout: str) -> dict:
    """Table rows by their label (first cell), each as the list of its cells."""
    found = {}
    for line in stdout.splitlines():
        cells = line.split("  ")
        cells = [c.strip() for c in cells if c.strip()]
        if cells:
            found.setdefault(cells[0], cells)
    return found


def test_twelve_identical_blocks_are_one_row_with_their_sum():
    result = run(*GPT12, "--exact")
    assert result.returncode == 0, result.stderr
    table = rows(result.stdout)
    assert table["0-11 ×12"][:6] == ["0-11 ×12", "Block", "1x64x64", f"{12 * BLOCK_FLOPS:,}", f"{12 * BLOCK_MACS:,}",
                                     f"{12 * BLOCK_PARAMS:,}"]
    # one block's rows follow, once: its attention and MLP at one block's figures
    assert table["attn"][3:6] == [f"{1_572_864 + 1_048_576 + 524_288:,}", f"{(1_572_864 + 1_048_576 + 524_288) // 2:,}",
                                  f"{12_480 + 4_160:,}"]
    assert table["mlp"][3] == f"{2 * 2_097_152:,}"
    assert result.stdout.count("c_attn") == 1 and "\n      1  " not in result.stdout
    assert "0-11 ×12: 12 identical blocks in one row, its figures their sum" in result.stdout


def test_expand_and_depth():
    expanded = run(*GPT12, "--exact", "--expand")
    assert expanded.returncode == 0, expanded.stderr
    assert "×12" not in expanded.stdout and expanded.stdout.count("c_attn") == 12
    table = rows(expanded.stdout)
    assert table["11"][3] == f"{BLOCK_FLOPS:,}"  # each block its own row, at one block's count
    shallow = run(*GPT12, "--exact", "--depth", "3")
    assert "0-11 ×12" in shallow.stdout and "c_attn" not in shallow.stdout and "ln_1" not in shallow.stdout


def test_json_keeps_one_row_per_block():
    result = run(*GPT12, "--format", "json")
    layers = json.loads(result.stdout)["layers"]
    blocks = [layer for layer in layers if layer["type"] == "Block"]
    assert [b["name"] for b in blocks] == [f"transformer.h.{i}" for i in range(12)]
    assert {b["forward_flops"] for b in blocks} == {BLOCK_FLOPS}


def test_blocks_that_differ_are_not_folded(tmp_path):
    """Sequential(Linear(8, 8), Linear(8, 8), Linear(8, 4), Linear(4, 4)) on 2x8: 0 and 1 are
    identical (MACs 2*8*8 = 128 -> 256 FLOPs, params 72 each: `0-1 ×2` with 512 FLOPs and 144
    params); 2 (2*8*4 = 64 MACs -> 128 FLOPs, 36 params) and 3 (2*4*4 = 32 MACs -> 64 FLOPs,
    20 params) differ from it and from each other: rows of their own."""
    model = tmp_path / "seq.py"
    model.write_text(textwrap.dedent("""\
        import torch
        from torch import nn


        class Stack(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 4), nn.Linear(4, 4))

            def forward(self, x):
                return self.body(x)
    """))
    result = run(str(model), "--input", "2x8", "--exact")
    assert result.returncode == 0, result.stderr
    table = rows(result.stdout)
    assert table["0-1 ×2"][:6] == ["0-1 ×2", "Linear", "2x8", "512", "256", "144"]
    assert table["2"][:6] == ["2", "Linear", "2x4", "128", "64", "36"]
    assert table["3"][:6] == ["3", "Linear", "2x4", "64", "32", "20"]
    assert "2-3" not in result.stdout
