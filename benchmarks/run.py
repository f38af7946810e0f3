"""Benchmark: the four figures of issue 9, printed as tables.

    python benchmarks/run.py [--repeat 5] [--torch-python /path/to/python-with-torch] [--files 200]

1. Cold CLI: `staticflops analyze` on the ResNet-50 sample vs. `import torch` and vs. torch
   building the model and running one forward under FlopCounterMode (time and peak memory
   ratios; targets <= 0.10 and <= 0.20), beside a process that only imports the dependencies
   (the floor under any run of the CLI).
2. Depth: the GPT sample at n_layer 2/12/48/96 with n_embd 12288 (and 768 for scale); target:
   96 layers at most 1.3x the time of 2 layers (issue 22) (JSON, and the default table at 2 and 96 layers).
3. Throughput: `staticflops analyze DIR` over a folder of generated model files (copies of the
   ResNet-50 and MobileNetV2 samples with different class counts), cold and warm (cache).
4. `python -X importtime -m staticflops --help`: import time and which heavy modules load.
5. timm: a user file with `timm.create_model("resnet50")` (timm 1.0.31 from `--timm-source`),
   cold and warm cache, vs. torch importing timm, building it and counting under FlopCounterMode.
6. The pre-commit hook with nothing changed: a warm `staticflops check` (the fast path,
   target <= 0.1 s) and `check -- README.md` (a commit that touches no model), beside the full
   command line answering from the results cache and a bare `python -c pass`.

By default the children run staticflops from a wheel built from this checkout and unpacked
into a temporary folder (`pip wheel`: as installed, with the rule sets compiled at build
time); `--from-checkout` runs the checkout itself (an editable install reads the rules' YAML).
7. Llama-3-8B from its config.json (transformers 5.23.0 read as source), cold and warm parsed
   cache (the warm one with --no-cache: analysed again), the same command again (the console
   script answering from the results cache, staticflops/answers.py) and the same analysis
   printed as Markdown (the full command line rendering the report the cold run kept), vs.
   torch + transformers building it on the meta device and FlopCounterMode failing there at
   `.item()`.

Each figure is the wall time over fresh processes (interpreter start-up and imports included),
as the median and as the fastest run (noise only ever adds time, so the fastest is the least
disturbed measure: timeit's convention), and the peak resident memory of one of them.  Children run with bytecode caching on
(as an installed package has), after one untimed warm-up run; the cases of one figure run in
turn, a process of each per round, so a noisy spell hits them alike.  The torch rows need a Python
that can ``import torch`` (torch==2.13.0 CPU); without one they are skipped with a message.
These machines are noisy: compare ratios measured in the same run, not seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "resnet50.py"
GPT_SAMPLE = ROOT / "samples" / "transformer.py"
FOLDER_SAMPLES = (ROOT / "samples" / "resnet50.py", ROOT / "samples" / "mobilenet_v2.py")  # both 1x3x224x224



PARSED_CACHE = ROOT / ".staticflops_cache" / "parsed"  # the samples' project root is the checkout


def _cli(*args: str, fresh_parse: bool = False, module: str = "app") -> str:
    """A child that runs the console script's entry point as `staticflops ARGS` (it ends the
    process itself, with os._exit, as the installed command does).  ``fresh_parse``: the child
    first deletes the parsed-module cache, so that every run is a first analysis (the deletion,
    ~1-3 ms, is counted against it).  ``module``: ``entry`` is the console script itself (check's
    fast path first), ``app`` the full command line."""
    forget = f"import shutil; shutil.rmtree({str(PARSED_CACHE)!r}, ignore_errors=True)" if fresh_parse else ""
    return f"""
{forget}
import sys
sys.argv = ['staticflops', *{list(args)!r}]
from staticflops.cli.{module} import main
main()
"""


LAYERS = (2, 12, 48, 96)


def _gpt(layers: int, width: int, output: str = "json") -> str:
    kwargs = (f'{{"n_layer": {layers}, "n_embd": {width}, "n_head": {width // 128}, "block_size": 2048, '
              '"vocab_size": 50257}')
    return _cli("analyze", str(GPT_SAMPLE), "--input", "1x2048:int64", "--format", output, "--kwargs", kwargs)


IMPORT_TORCH = "import torch"

# What every run of the CLI pays before reading a line of the model: the design's dependencies.
DEPENDENCY_FLOOR = """
import typer, pydantic.main, libcst
try:
    import typer._adapters  # typer >= 0.29 validates every option through pydantic on each run
except ImportError:
    pass
"""

RUN_TORCH = f"""
import importlib.util, torch
from torch.utils.flop_counter import FlopCounterMode
spec = importlib.util.spec_from_file_location('resnet50_sample', {str(SAMPLE)!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
model = module.ResNet50().eval()
with torch.no_grad(), FlopCounterMode(display=False) as counter:
    model(torch.randn(1, 3, 224, 224))
assert counter.get_total_flops() == 8178368512
"""


# 5. timm: a user file calling timm.create_model("resnet50"), timm read from its source.
TIMM_USER = """import timm
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = timm.create_model("resnet50")

    def forward(self, x):
        return self.net(x)
"""
# torch + timm need torchvision at import; tools/record_timm.py puts its fake one on sys.path
RUN_TIMM_TORCH = f"""
import sys
sys.path.insert(0, {str(ROOT / "tools")!r})
import record_timm  # import torch, timm (fake torchvision)
import torch
from torch.utils.flop_counter import FlopCounterMode
model = record_timm.timm.create_model("resnet50").eval()
with torch.no_grad(), FlopCounterMode(display=False) as counter:
    model(torch.randn(1, 3, 224, 224))
assert counter.get_total_flops() == 8178368512
"""


def timm_figure(args) -> None:
    source = args.timm_source
    if source is None:
        print("\n5. timm: skipped (pass --timm-source DIR, a folder holding timm 1.0.31's `timm/` package)")
        return
    folder = Path(tempfile.mkdtemp(prefix="staticflops-timm-"))
    try:
        (folder / "model.py").write_text(TIMM_USER)
        analyse = _cli("analyze", str(folder / "model.py"), "--input", "1x3x224x224", "--format", "json",
                       "--source-path", source)
        cache = folder / "cache"
        cases = [("staticflops, timm.create_model('resnet50'), cold (empty cache)",
                  (sys.executable, analyse, {"STATICFLOPS_CACHE_DIR": ""})),
                 ("  the same, warm (cache folder kept between runs)",
                  (sys.executable, analyse, {"STATICFLOPS_CACHE_DIR": str(cache)}))]
        if has_torch(args.torch_python):
            cases.append(("torch: import torch, timm; create_model; FlopCounterMode", (args.torch_python, RUN_TIMM_TORCH)))
        timings = measure_side_by_side([case for _, case in cases], args.repeat, cwd=folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("\n5. timm 1.0.31: a user file holding timm.create_model('resnet50'), 1x3x224x224")
    print(f"{'case':64} {'median s':>9} {'best s':>7} {'CPU s':>7} {'peak MiB':>9} {'vs torch':>9} {'(CPU)':>7}")
    for name, timing in zip([n for n, _ in cases], timings):
        ratio = (f"{timing.median / timings[2].median:9.3f} {timing.cpu / timings[2].cpu:7.3f}"
                 if len(timings) > 2 else "")
        print(f"{name:64} {timing.median:9.3f} {timing.best:7.3f} {timing.cpu:7.3f} {timing.peak:9.1f} {ratio}")


# 7. Llama-3-8B from its config.json (published values), transformers read from its source.
LLAMA_3_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
    "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
    "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": None, "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "use_cache": True, "vocab_size": 128256,
}
# The executing route: build it on the meta device (no weights allocated), then count a forward
# under FlopCounterMode, which stops at the first `.item()` (meta tensors hold no values); the
# time is what a user waits to learn that.
RUN_LLAMA_TORCH = """
import json, sys, torch
from torch.utils.flop_counter import FlopCounterMode
from transformers import AutoConfig, AutoModelForCausalLM
config = AutoConfig.for_model(**json.load(open("config.json")))
config.use_cache = False
with torch.device("meta"):
    model = AutoModelForCausalLM.from_config(config)
assert sum(p.numel() for p in model.parameters()) == 8030261248
try:
    with torch.device("meta"), torch.no_grad(), FlopCounterMode(display=False):
        model(torch.zeros(1, 32, dtype=torch.long, device="meta"))
except RuntimeError as error:
    assert ".item()" in str(error), error
else:
    sys.exit("FlopCounterMode counted a meta forward: the benchmark's premise changed")
"""


def llama_figure(args) -> None:
    if args.transformers_source is None:
        print("\n7. Llama-3-8B: skipped (pass --transformers-source DIR, a folder holding transformers 5.23.0's "
              "`transformers/` and `huggingface_hub/` packages, e.g. a site-packages)")
        return
    folder = Path(tempfile.mkdtemp(prefix="staticflops-llama-"))
    try:
        (folder / "config.json").write_text(json.dumps(LLAMA_3_8B))
        command = ("analyze", str(folder / "config.json"), "--input", "1x32:int64", "--format", "json",
                   "--source-path", args.transformers_source)
        analyse = _cli(*command)
        # the cold run starts from an empty cache folder (parsed modules, kept reports and answers)
        # and leaves there the records the last two rows of its round read
        forget = f"import shutil; shutil.rmtree({str(folder / '.staticflops_cache')!r}, ignore_errors=True)\n"
        cases = [("staticflops, Llama-3-8B config.json, cold (empty parsed cache)", (sys.executable, forget + analyse)),
                 ("  the same, warm (parsed-module cache kept), --no-cache", (sys.executable, _cli(*command, "--no-cache"))),
                 ("  the same command again, warm (results cache)", (sys.executable, _cli(*command, module="entry"))),
                 ("  the same analysis, --format markdown (kept report)",
                  (sys.executable, _cli(*command[:4], "--format", "markdown", *command[6:])))]
        if has_torch(args.torch_python):
            cases.append(("torch: import, build on meta, FlopCounterMode fails at .item()",
                          (args.torch_python, RUN_LLAMA_TORCH)))
        timings = measure_side_by_side([case for _, case in cases], args.repeat, cwd=folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("\n7. Llama-3-8B from its config.json (transformers 5.23.0 source), 1x32 tokens "
          "(targets: cold <= 2 s, warm <= 0.5 s)")
    print(f"{'case':64} {'median s':>9} {'best s':>7} {'CPU s':>7} {'peak MiB':>9} {'vs torch':>9} {'(CPU)':>7}")
    torch = timings[4] if len(timings) > 4 else None
    for name, timing in zip([n for n, _ in cases], timings):
        ratio = (f"{timing.median / torch.median:9.3f} {timing.cpu / torch.cpu:7.3f}" if torch else "")
        print(f"{name:64} {timing.median:9.3f} {timing.best:7.3f} {timing.cpu:7.3f} {timing.peak:9.1f} {ratio}")


INSTALLED: dict = {}  # PYTHONPATH of the unpacked wheel the children run, when built


def _env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    env.update(INSTALLED)
    return env


def install_wheel(directory: Path) -> None:
    """Build this checkout's wheel (isolated, as pip installs it) and unpack it into ``directory``."""
    import zipfile

    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(directory), str(ROOT)],
                   check=True, stdout=subprocess.DEVNULL)
    zipfile.ZipFile(next(directory.glob("staticflops-*.whl"))).extractall(directory / "site")
    INSTALLED["PYTHONPATH"] = str(directory / "site")


CHECK_CONFIG = """[tool.staticflops]

[[tool.staticflops.models]]
name = "resnet50"
path = "models/resnet50.py"
inputs = ["1x3x224x224"]
budget = { forward_flops = "9G", params = "30M" }
"""


def check_figure(args) -> None:
    """6. check with nothing changed: the console script (fast path) vs the full command line."""
    folder = Path(tempfile.mkdtemp(prefix="staticflops-check-"))
    try:
        (folder / "models").mkdir()
        shutil.copy(SAMPLE, folder / "models" / "resnet50.py")
        (folder / "pyproject.toml").write_text(CHECK_CONFIG)
        (folder / "README.md").write_text("notes\n")
        for _ in range(2):  # analyse and record; then the record of a run with every result cached
            subprocess.run([sys.executable, "-c", _cli("check")], cwd=folder, env=_env(), check=True,
                           stdout=subprocess.DEVNULL)
        cases = [("staticflops check, warm, nothing changed (fast path)", (sys.executable, _cli("check", module="entry"))),
                 ("staticflops check -- README.md (touches no model, fast path)",
                  (sys.executable, _cli("check", "--", "README.md", module="entry"))),
                 ("  full command line, every result from the cache", (sys.executable, _cli("check"))),
                 ("  python -c pass", (sys.executable, "pass"))]
        timings = measure_side_by_side([case for _, case in cases], args.repeat, cwd=folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("\n6. pre-commit with nothing changed: `staticflops check` on a project with the ResNet-50 sample "
          "(target: <= 0.1 s)")
    print(f"{'case':64} {'median s':>9} {'best s':>7} {'peak MiB':>9} {'cpu s':>7}")
    for (name, _), timing in zip(cases, timings):
        print(f"{name:64} {timing.median:9.3f} {timing.best:7.3f} {timing.peak:9.1f} {timing.cpu:7.3f}")
    print("cpu s: the child's own CPU time (user + system), median: what other jobs on the machine do not inflate")


class Timing(NamedTuple):
    median: float  # seconds
    best: float  # the fastest run: noise only ever adds time (timeit's convention)
    peak: float  # MiB
    # median CPU seconds (user + system) of the child: on a machine shared with other jobs the
    # wall time mostly measures waiting for a core, the CPU time what the run itself costs
    cpu: float = 0.0


def measure(python: str, code: str, repeat: int, cwd: Path = ROOT) -> Timing:
    """Wall time of ``repeat`` fresh processes after one untimed warm-up, and peak memory."""
    return measure_side_by_side([(python, code)], repeat, cwd)[0]


def measure_side_by_side(cases: list[tuple], repeat: int, cwd: Path = ROOT) -> list[Timing]:
    """``measure`` for several (python, code[, extra environment]) cases run in turn, one process
    of each per round, so that a noisy spell of the machine slows every case alike and their
    ratios hold.  Peak memory is the child's own maximum resident set, as the kernel reports it
    to ``wait4``."""
    times: list[list[float]] = [[] for _ in cases]
    peaks: list[list[float]] = [[] for _ in cases]
    cpus: list[list[float]] = [[] for _ in cases]
    for attempt in range(repeat + 1):
        for index, (python, code, *extra) in enumerate(cases):
            start = time.perf_counter()
            child = subprocess.Popen([python, "-c", code], cwd=cwd, env={**_env(), **(extra[0] if extra else {})},
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
            _, status, usage = os.wait4(child.pid, 0)
            elapsed = time.perf_counter() - start
            errors = child.stderr.read().decode(errors="replace")
            child.stderr.close()
            if os.waitstatus_to_exitcode(status) != 0:
                raise RuntimeError(errors[-2000:])
            if attempt == 0:  # warm-up: file caches, .pyc files
                continue
            times[index].append(elapsed)
            peaks[index].append(usage.ru_maxrss / 1024)  # KiB on Linux
            cpus[index].append(usage.ru_utime + usage.ru_stime)
    return [Timing(statistics.median(t), min(t), max(p), statistics.median(c)) for t, p, c in zip(times, peaks, cpus)]


def has_torch(python: str) -> bool:
    return subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0


def make_folder(directory: Path, count: int) -> None:
    """``count`` model files: the folder samples in turn, each with its own class count."""
    for index in range(count):
        sample = FOLDER_SAMPLES[index % len(FOLDER_SAMPLES)]
        text = sample.read_text().replace("num_classes=1000", f"num_classes={1000 + index}")
        (directory / f"{sample.stem}_{index:03}.py").write_text(text)


def throughput(directory: Path, repeat: int) -> list[tuple[str, float, float]]:
    """(label, median seconds, files/s) for a cold folder run (no cache) and a warm one."""
    args = ["-m", "staticflops", "analyze", str(directory), "--input", "1x3x224x224", "--format", "json"]
    files = len(list(directory.glob("*.py")))
    rows = []
    for label, extra in (("cold (no cache)", ["--no-cache"]), ("warm (cache)", [])):
        if label.startswith("warm"):  # fill the cache once
            subprocess.run([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=directory,
                           env=_env(), check=False)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            # stdout (200 reports) is discarded: held here it would raise this process's peak
            # memory, which later children inherit in their ru_maxrss.
            result = subprocess.run([sys.executable, *args, *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True, cwd=directory, env=_env())
            times.append(time.perf_counter() - start)
            if result.returncode != 0:
                raise RuntimeError(result.stderr[-2000:])
        seconds = statistics.median(times)
        rows.append((label, seconds, files / seconds))
    return rows


def import_time() -> tuple[float, list[str]]:
    """(seconds importing `staticflops.cli.app` and below, heavy modules that got imported)."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "staticflops", "--help"], capture_output=True,
                            text=True, cwd=ROOT, env=_env())
    total, heavy = 0, []
    for line in result.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if not match:
            continue
        cumulative, indent, name = int(match.group(1)), len(match.group(2)), match.group(3)
        if indent == 1:  # top-level imports of this run
            total += cumulative
        if name in ("libcst", "pydantic", "yaml", "rich.table", "torch", "staticflops.api"):
            heavy.append(name)
    return total / 1e6, heavy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--torch-python", default=sys.executable,
                        help="a Python interpreter that has torch installed (default: this one)")
    parser.add_argument("--files", type=int, default=200, help="model files in the throughput folder")
    parser.add_argument("--skip", default="", help="comma-separated figures to skip: cold,depth,folder,help,timm,check,llama")
    parser.add_argument("--from-checkout", action="store_true",
                        help="run this checkout (editable: rule sets read from YAML) instead of its wheel, unpacked")
    parser.add_argument("--timm-source", help="a folder holding timm 1.0.31's `timm/` package (figure 5)")
    parser.add_argument("--transformers-source",
                        help="a folder holding transformers 5.23.0 and huggingface_hub (figure 7)")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))

    wheel = None
    if not args.from_checkout:
        wheel = Path(tempfile.mkdtemp(prefix="staticflops-wheel-"))
        install_wheel(wheel)
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}, "
          f"{len(os.sched_getaffinity(0))} cores, load average {os.getloadavg()[0]:.2f}; "
          f"median of {args.repeat} fresh processes; staticflops from "
          f"{'this checkout' if wheel is None else 'its wheel, unpacked'}")
    try:
        figures(args, skip)
    finally:
        if wheel is not None:
            shutil.rmtree(wheel, ignore_errors=True)
        print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def figures(args, skip: set) -> None:

    if "cold" not in skip:
        resnet = _cli("analyze", str(SAMPLE), "--input", "1x3x224x224", "--format", "json", fresh_parse=True)
        # the same file again with other options: its trees come from the parsed-module cache
        again = _cli("analyze", str(SAMPLE), "--input", "1x3x160x160", "--format", "json")
        cases = [("staticflops analyze resnet50 (cold CLI, JSON)", (sys.executable, resnet)),
                 # no user cache folder: without its signing secret, no parsed-module cache
                 ("  the same, no user cache folder (no signing secret)",  # leaves the parsed cache alone
                  (sys.executable, _cli("analyze", str(SAMPLE), "--input", "1x3x224x224", "--format", "json"),
                   {"STATICFLOPS_CACHE_DIR": ""})),
                 ("  floor: import typer, pydantic, libcst (no work)", (sys.executable, DEPENDENCY_FLOOR)),
                 ("  second analysis, other --input (parsed cache)", (sys.executable, again))]
        torch_note = ""
        if has_torch(args.torch_python):
            cases.append(("python -c 'import torch'", (args.torch_python, IMPORT_TORCH)))
            cases.append(("torch: import, build ResNet-50, FlopCounterMode forward", (args.torch_python, RUN_TORCH)))
        else:
            torch_note = (f"torch rows skipped: {args.torch_python} cannot import torch "
                          "(pass --torch-python with a venv that has torch==2.13.0)")
        timings = measure_side_by_side([case for _, case in cases], args.repeat)
        ours, first, floor, second = timings[:4]
        print("\n1. cold CLI vs PyTorch (targets: time ratio <= 0.10, memory ratio <= 0.20)")
        print(f"{'case':56} {'median s':>9} {'best s':>7} {'peak MiB':>9} {'time ratio':>11} {'(best)':>7} "
              f"{'mem ratio':>10} {'no-store':>9}")
        for index, ((name, _), timing) in enumerate(zip(cases, timings)):
            ratios = "" if index < 4 else (f"{ours.median / timing.median:11.3f} {ours.best / timing.best:7.3f} "
                                           f"{ours.peak / timing.peak:10.3f} {first.median / timing.median:9.3f}")
            print(f"{name:56} {timing.median:9.3f} {timing.best:7.3f} {timing.peak:9.1f} {ratios}")
        print(f"vs the floor (medians): first analysis {ours.median / floor.median:.2f}x, second analysis of the same "
              f"file with another --input {second.median / floor.median:.2f}x (target <= 1.0; best runs "
              f"{ours.best / floor.best:.2f}x and {second.best / floor.best:.2f}x)")
        print(torch_note or "ratios: staticflops / torch row (smaller is better): of the medians, and of the best runs; "
                            "no-store: the second row (no user cache folder), medians")
        if not torch_note:
            torch_run = timings[-1]
            print(f"floor: the dependencies' imports alone are {floor.median / torch_run.median:.3f} of the torch run "
                  f"({floor.best / torch_run.best:.3f} best); staticflops adds {ours.median - floor.median:.3f} s "
                  "(its modules, the parse, the analysis, the output)")

    if "depth" not in skip:
        print("\n2. depth: GPT sample, 1x2048 tokens, cold CLI (JSON), layer counts run in turn "
              "(target: 96 layers <= 1.3x 2 layers; cpu: the child's median CPU seconds and their ratio)")
        print(f"{'n_layer':>8} {'n_embd':>7} {'block params 12Ld^2':>20} {'median s':>9} {'best s':>7} {'peak MiB':>9} "
              f"{'vs 2 layers':>12} {'(best)':>7} {'cpu s':>6} {'(cpu)':>6}")
        for width in (768, 12288):
            timings = measure_side_by_side([(sys.executable, _gpt(layers, width)) for layers in LAYERS], args.repeat)
            for layers, timing in zip(LAYERS, timings):
                print(f"{layers:>8} {width:>7} {12 * layers * width ** 2:>20,} {timing.median:9.3f} {timing.best:7.3f} "
                      f"{timing.peak:9.1f} {timing.median / timings[0].median:12.2f} {timing.best / timings[0].best:7.2f} "
                      f"{timing.cpu:6.3f} {timing.cpu / timings[0].cpu:6.2f}")
        # The default output is the table: one row per layer, so it must not grow with depth either.
        two, deep = measure_side_by_side([(sys.executable, _gpt(n, 768, "table")) for n in (2, 96)], args.repeat)
        print(f"table output (the default), n_embd 768: 2 layers {two.median:.3f} s, 96 layers {deep.median:.3f} s, "
              f"{deep.median / two.median:.2f}x (best runs: {deep.best / two.best:.2f}x)")

    if "folder" not in skip:
        directory = Path(tempfile.mkdtemp(prefix="staticflops-folder-"))
        try:
            make_folder(directory, args.files)
            rows = throughput(directory, max(1, min(args.repeat, 3)))
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        print(f"\n3. throughput: `staticflops analyze DIR` over {args.files} generated model files (ResNet-50 and "
              f"MobileNetV2 variants), {len(os.sched_getaffinity(0))} cores")
        print(f"{'run':18} {'wall s':>8} {'files/s':>9}")
        for label, seconds, rate in rows:
            print(f"{label:18} {seconds:8.2f} {rate:9.1f}")

    if "help" not in skip:
        help_time, _, help_peak = measure(sys.executable, _cli("--help"), args.repeat)
        imports, heavy = import_time()
        print("\n4. `python -X importtime -m staticflops --help`")
        print(f"wall {help_time:.3f} s (median), peak {help_peak:.1f} MiB; imports {imports:.3f} s; "
              f"heavy modules imported: {', '.join(heavy) or 'none of libcst, pydantic, yaml, rich.table'}")

    if "timm" not in skip:
        timm_figure(args)

    if "check" not in skip:
        check_figure(args)
    if "llama" not in skip:
        llama_figure(args)


if __name__ == "__main__":
    main()
