"""The layer table's layout (report/grid.py), checked by hand on small cells, its speed
class (~1,000 rows must not cost more than the analysis, issue 9), and how counts are written."""

import io

from rich.console import Console

from staticflops.report.grid import grid
from staticflops.report.units import human


def _plain(text) -> str:
    console = Console(file=io.StringIO(), width=40, color_system=None)  # narrower than the table
    console.print(text, soft_wrap=True)
    return console.file.getvalue()


def test_columns_padded_and_justified_like_a_simple_head_table():
    text = grid("T", [("Layer", "left"), ("FLOPs", "right")], [["conv", "12 M"], ["sigmoid", "0"]], [None, "dim"])
    # Widths: Layer column max(5, 4, 7) = 7, FLOPs column max(5, 4, 1) = 5.
    # A line: 2 spaces (edge + padding), cell, 3 spaces (padding, gap, padding), cell; no trailing spaces.
    # The rule: 1 space, then 7 + 5 + 3 x 2 - 1 = 17 dashes.
    assert _plain(text).splitlines() == [
        "T",
        "",
        "  Layer     FLOPs",
        " " + "─" * 17,
        "  conv       12 M",
        "  sigmoid       0",
        "",  # a blank line before the totals that follow
    ]


def test_wide_characters_count_two_columns_and_long_lines_are_not_cut():
    # "层" is a wide (2-column) character: the column is 2 x 2 = 4 wide, so "ab" gets 2 spaces of padding.
    # The 60-character type name is wider than the 40-column console: the line is kept whole.
    long = "T" * 60
    lines = _plain(grid("t", [("L", "left"), ("Type", "left")], [["层层", long], ["ab", "x"]], [None, None])).splitlines()
    assert lines[2] == "  L      Type"  # L padded to 4, then 3 spaces
    assert lines[4] == "  层层   " + long
    assert lines[5] == "  ab     x"


def test_styles_reach_a_terminal():
    console = Console(file=io.StringIO(), force_terminal=True, color_system="standard", width=80)
    console.print(grid("t", [("L", "left")], [["op"]], ["dim"]), soft_wrap=True)
    out = console.file.getvalue()
    assert "\x1b[2m" in out and "\x1b[1m" in out  # dim row, bold header


def test_counts_past_a_float_are_written_in_scientific_notation():
    # 2**2000 = 10**(2000 * log10 2) = 10**602.06 = 1.148 x 10**602; dividing it by 10**12 for
    # "T" overflowed a float (a crash of the table for a 2**2000-sized tensor)
    assert human(2 ** 2000, "FLOPs") == "1.15e+602 FLOPs"
    assert human(-(2 ** 20000)) == "-3.98e+6020"  # 20000 * log10 2 = 6020.6, 10**0.6 = 3.98; no str() limit
    assert human(8_178_368_512, "FLOPs") == "8.18 GFLOPs"  # ordinary counts unchanged


def test_training_run_totals_get_the_larger_si_prefixes():
    # a 175B GPT, 2048 tokens: ~2.204e15 FLOPs a step, ~2.204e21 for a million steps; they
    # printed as "2204.41 TFLOPs" and "2204412785.20 TFLOPs"
    assert human(2_204_412_785_200_000, "FLOPs") == "2.20 PFLOPs"
    assert human(2_204_412_785_200_000_000_000, "FLOPs") == "2.20 ZFLOPs"
    assert human(10**18, "MACs") == "1.00 EMACs"
    assert human(999 * 10**24, "FLOPs") == "999.00 YFLOPs"
    assert human(10**27, "FLOPs") == "1.00e+27 FLOPs"  # past Y: scientific notation
