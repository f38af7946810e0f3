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
    assert cli("compare", "samples/keras_seed.py").returncode == 0  # the table, every built-in rule set


def test_every_command_picks_its_front_end_from_one_table():
    from staticflops import api
    from staticflops.frontend.source import load_source

    keras = load_source(ROOT / "samples" / "keras_seed.py")
    torch = load_source(ROOT / "samples" / "seed_conv_gru.py")
    assert [end.name for end in api.FRONT_ENDS] == ["keras", "torch"]
    assert api.front_end(keras).name == "keras" and api.front_end(torch).name == "torch"
