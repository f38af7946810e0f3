"""Every shell command the README shows runs, and prints the figures the README prints.

Collected from README.md and the pages under docs/ (in that order): the lines of fenced blocks
that start with `staticflops ` or `$ staticflops `, the lines of indented (4-space) code blocks
that start with `staticflops `, and the quick-start line's `... && staticflops ...`.  A synopsis (`staticflops analyze PATH
[--model NAME] ...`: it has `[` options) is not a command.  Each command runs in-process
(typer's runner, `COLUMNS=80`) and must exit 0 (or its `EXIT_STATUS` below).  Where the README
shows the output (the lines after a `$ staticflops` command in a fenced block, or after the
command in an indented block; `...` lines skip some), every figure of that output (numbers,
shapes, percentages) must appear in what the command prints now, as many times.

To add a README command that CI cannot run, add it to `NOT_RUN` with the reason, written
exactly as in the README (without `$ ` and without a trailing `# comment`).  An entry that no
longer matches a README command fails `test_not_run_entries_are_still_in_the_readme`.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter

import pytest
from typer.testing import CliRunner

from conftest import ROOT
from staticflops.cli.app import app

README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]

_YOURS = "a file or folder of the reader's own (a placeholder name), not in this repository"
_CHECKOUT = "needs a source checkout CI does not have (a clone of that repository)"
_SITE = "needs the library's source installed in an environment (the ground-truth torch venv), not in CI"

# command (as written) -> why the test does not run it.
NOT_RUN = {
    "staticflops analyze model.py --input 1x3x224x224 --rules thop": _YOURS,
    "staticflops compare model.py --input 1x3x224x224": _YOURS,
    "staticflops rules list | rules show ptflops | rules validate my_rules.yaml":
        "three commands on one line (not a pipeline); my_rules.yaml is the reader's file",
    "staticflops analyze model.py --model build_model --batch 1 --rules tf-profiler --format json": _YOURS,
    "staticflops analyze model.py --input 1x32x32x3": _YOURS,
    "staticflops check": "runs in the example project of that section (its config, git history and src/models/)",
    "staticflops diff --base HEAD": "runs in the example project of that section (its config, git history and src/models/)",
    "staticflops analyze vision/torchvision/models/resnet.py --model 'resnet50(weights=None)' --input 1x3x224x224":
        _CHECKOUT,
    "staticflops analyze vision/torchvision/models/efficientnet.py --model efficientnet_b0 "
    "--kwargs '{\"weights\": null}' --input 1x3x224x224": _CHECKOUT,
    "staticflops analyze nanoGPT/model.py --model 'GPT(GPTConfig(n_layer=12, n_head=12, n_embd=768))' "
    "--input 1x1024:int64": _CHECKOUT,
    "staticflops analyze detector.py --source-path src --model 'DetectionModel(\"yolov8n.yaml\")' "
    "--input 1x3x640x640": _CHECKOUT,
    "staticflops analyze llama-3-8b/config.json --input 1xT:int64 --source-path wheels/":
        "needs a downloaded config.json and transformers wheel (network)",
    "staticflops analyze llama-3-8b/config.json --input 1x2048:int64 --gradient-checkpointing":
        "needs a downloaded config.json and transformers (tests/test_checkpointing.py runs the option on small configs)",
    "staticflops analyze llama-3-8b/config.json --input 1x1:int64 --past-tokens P --assume 'P>=2' --dtype bf16 "
    "--source-path wheels/":
        "needs a downloaded config.json and transformers wheel (tests/test_generation.py analyses the same config)",
    "staticflops analyze sd-v1-5/unet/config.json --input 1x4x64x64 --input 1:int64 --input 1x77x768":
        "needs a downloaded config.json and diffusers installed (tests/test_diffusers.py analyses the same config)",
    "staticflops analyze models/ --input 1x3x224x224": _YOURS,
    "staticflops analyze a.py b.py --input 1x3x224x224 -f json": _YOURS,
    "staticflops analyze models/ -i 1x3x224x224 --jobs 2 --no-cache": _YOURS,
    "staticflops analyze stuck.py -i 2x8 --max-loop-iterations 1000":
        "stuck.py is shown, not shipped (tests/test_fault_tolerance.py runs the same case)",
}
# Commands whose documented exit status is not 0.
EXIT_STATUS: dict[str, int] = {}
# Prefixes of commands that need the library's source from an environment (they name a
# path inside site-packages or a package's unpacked wheel).
NOT_RUN_PREFIXES = {
    "staticflops analyze vit_pytorch/vit.py": _SITE,
    'staticflops analyze "$(python -c': _SITE,
    "staticflops analyze model.py --source-path diffusers-0.42.1": _SITE,
    "staticflops analyze tests/fixtures/timm_cases/convnext_head.py": "needs timm installed (the README's "
                                                                       "`pip install timm` before it); tests/test_timm.py runs it",
}

_BENCHMARK_ROW = re.compile(r"\s{2,}\d+\.\d+\s+\d+\.\d+")  # two columns of seconds
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?(?:x\d+)*%?")


def _commands() -> list[tuple[str, list[str]]]:
    """(command, output lines shown) in document order."""
    found: list[tuple[str, list[str]]] = []
    for document in DOCUMENTS:
        found += _commands_of(document.read_text().splitlines())
    return found


def _commands_of(lines: list[str]) -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    fenced = False
    output: list[str] | None = None  # the output lines of the last command shown with output
    index = 0
    while index < len(lines):
        line = lines[index]
        while line.endswith("\\") and index + 1 < len(lines):  # a continued shell line
            index += 1
            line = line[:-1].rstrip() + " " + lines[index].strip()
        index += 1
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced, output = not fenced, None
            continue
        indented = not fenced and line.startswith("    ") and not line.lstrip().startswith(("-", "*"))
        if not fenced and not indented:
            output = None
            continue
        prompt = stripped.startswith("$ ")
        text = stripped[2:] if prompt else stripped
        if " && staticflops " in text:  # the quick start: `pip install . && staticflops analyze ...`
            text = "staticflops " + text.split(" && staticflops ", 1)[1]
        if text.startswith("staticflops "):
            command = re.sub(r"\s+#\s.*$", "", text).strip()
            if re.search(r"\[(--|[A-Z])", command):  # `[--model NAME]`, `[PATH...]`
                output = None  # a synopsis
                continue
            if _BENCHMARK_ROW.search(command):  # `staticflops analyze resnet50 (cold CLI)   0.334   0.316`
                output = None  # a row of a benchmark table that names its case "staticflops ..."
                continue
            found.append((command, []))
            output = found[-1][1] if (prompt or indented) else None
        elif output is not None and stripped != "...":
            output.append(stripped)
    return found


COMMANDS = _commands()


def _skip_reason(command: str) -> str | None:
    if command in NOT_RUN:
        return NOT_RUN[command]
    return next((why for prefix, why in NOT_RUN_PREFIXES.items() if command.startswith(prefix)), None)


def test_the_readme_has_the_commands_it_is_known_to_have():
    commands = [command for command, _ in COMMANDS]
    assert "staticflops analyze samples/seed_conv_gru.py --input 1x1x100x256" in commands  # quick start
    assert sum(1 for _, shown in COMMANDS if shown) >= 2  # "What you get" and the memory example
    assert len(commands) >= 29  # the shell commands of the README on 2026-11-27 (benchmark rows are not commands)


def test_not_run_entries_are_still_in_the_readme():
    commands = {command for command, _ in COMMANDS}
    assert sorted(set(NOT_RUN) - commands) == []
    for prefix in NOT_RUN_PREFIXES:
        assert any(command.startswith(prefix) for command in commands), prefix


RUN = [(command, shown) for command, shown in COMMANDS if _skip_reason(command) is None]


@pytest.mark.parametrize("command, shown", RUN, ids=[command[12:70] for command, _ in RUN])
def test_readme_command(command, shown):
    args = shlex.split(command)
    assert args[0] == "staticflops"
    result = CliRunner().invoke(app, args[1:], env={"COLUMNS": "80"}, catch_exceptions=False)
    assert result.exit_code == EXIT_STATUS.get(command, 0), result.output
    printed = Counter(_FIGURE.findall(result.output))
    expected = Counter(_FIGURE.findall("\n".join(shown)))
    missing = expected - printed
    assert not missing, f"README figures not printed by `{command}`: {sorted(missing)}\n{result.output}"
