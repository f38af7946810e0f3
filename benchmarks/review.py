"""Benchmark: `staticflops check` on a repository of 20 configured models, cold and warm
(cached), against counting the same models by executing them with torch.

    python benchmarks/review.py [--repeat 3] [--torch-python /path/to/python-with-torch]

The repository is built in a temporary directory: the four samples plus the 16 costliest
single-layer cases of tests/fixtures/torch_cases/, each configured with the class and inputs
recorded in tests/fixtures/torch_ground_truth.json and a budget.  Figures are median wall
times of fresh processes (interpreter start-up included):

* cold check: empty cache (``.staticflops_cache`` removed), so every model is parsed and
  analysed, in parallel processes;
* warm check: nothing changed since the last run, so nothing is parsed;
* torch: one process that imports torch, then for each model imports its file, builds it and
  runs one forward pass under FlopCounterMode (needs torch==2.13.0; skipped without it).

It also says how many cold-check totals equal the recorded ground truth and the live torch count.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GROUND_TRUTH = json.loads((ROOT / "tests" / "fixtures" / "torch_ground_truth.json").read_text())
SAMPLES = ["samples/seed_conv_gru.py", "samples/lenet5.py", "samples/resnet50.py", "samples/transformer.py"]

TORCH_COUNT = """
import importlib.util, json, sys, torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode
counts = {}
for name, path, cls, inputs in json.loads(sys.argv[1]):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = getattr(module, cls)().eval()
    args = [torch.randint(0, 10, i["shape"]) if i["dtype"] == "int64" else torch.randn(i["shape"]) for i in inputs]
    # As tools/record_torch.py: fused CPU kernels (flash SDPA, oneDNN LSTM, the fused MHA fast
    # path taken under no_grad) are counted as 0 by FlopCounterMode, so they are avoided.
    with sdpa_kernel(SDPBackend.MATH), torch.backends.mkldnn.flags(enabled=False), FlopCounterMode(display=False) as counter:
        model(*args)
    counts[name] = counter.get_total_flops()
print(json.dumps(counts))
"""


def chosen_models() -> list[str]:
    cases = sorted((k for k in GROUND_TRUTH if k.startswith("tests/fixtures/torch_cases/")),
                   key=lambda k: (-GROUND_TRUTH[k]["forward_flops"], k))
    return SAMPLES + cases[:16]


def build_repository(directory: Path) -> list[tuple]:
    (directory / "models").mkdir()
    lines, models = [], []
    for index, source in enumerate(chosen_models()):
        entry = GROUND_TRUTH[source]
        name = f"m{index:02d}_{Path(source).stem}"
        shutil.copy(ROOT / source, directory / "models" / f"{name}.py")
        inputs = ["x".join(map(str, i["shape"])) + (":int64" if i["dtype"] == "int64" else "") for i in entry["inputs"]]
        budget = max(entry["forward_flops"] * 2, 1)
        lines += ["[[tool.staticflops.models]]", f'name = "{name}"', f'path = "models/{name}.py"',
                  f'model = "{entry["class"]}"', f"inputs = {json.dumps(inputs)}",
                  f"budget = {{ forward_flops = {budget}, params = {max(entry['params'] * 2, 1)} }}", ""]
        models.append((name, str(directory / "models" / f"{name}.py"), entry["class"], entry["inputs"]))
    (directory / "pyproject.toml").write_text("\n".join(lines))
    subprocess.run(["git", "init", "-q"], cwd=directory, check=True)
    return models


def timed(command: list[str], cwd: Path, before=None) -> tuple[float, str]:
    if before:
        before()
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return elapsed, result.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--torch-python", default=sys.executable)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="staticflops-bench-") as temporary:
        repo = Path(temporary)
        models = build_repository(repo)
        check = [sys.executable, "-m", "staticflops", "check", "--format", "json"]
        clear = lambda: shutil.rmtree(repo / ".staticflops_cache", ignore_errors=True)  # noqa: E731
        cold = [timed(check, repo, clear) for _ in range(args.repeat)]
        warm = [timed(check, repo) for _ in range(args.repeat)]
        ours = {m["name"]: m["budgets"][0]["measured"] for m in json.loads(cold[-1][1])["models"]}
        recorded = {name: GROUND_TRUTH[source]["forward_flops"] for (name, *_), source in zip(models, chosen_models())}
        note = (f"forward FLOPs equal to the recorded ground truth for "
                f"{sum(ours[n] == recorded[n] for n in recorded)} of {len(recorded)} models")
        assert all(m["cached"] for m in json.loads(warm[-1][1])["models"]), "warm run was not served from cache"
        rows = [("staticflops check, cold (empty cache)", statistics.median(t for t, _ in cold)),
                ("staticflops check, warm (nothing changed)", statistics.median(t for t, _ in warm))]
        has_torch = subprocess.run([args.torch_python, "-c", "import torch"], capture_output=True).returncode == 0
        if has_torch:
            command = [args.torch_python, "-c", TORCH_COUNT, json.dumps(models)]
            runs = [timed(command, repo) for _ in range(args.repeat)]
            theirs = json.loads(runs[-1][1])
            same = sum(ours[name] == theirs[name] for name in theirs)
            rows.append(("torch: import + build + FlopCounterMode, 20 models", statistics.median(t for t, _ in runs)))
            note += f"; to this run's FlopCounterMode for {same} of {len(theirs)}"
        else:
            note += f"; torch row skipped: {args.torch_python} cannot import torch (pass --torch-python)"

    print(f"machine: {platform.machine()}, Python {platform.python_version()}, "
          f"{len(os.sched_getaffinity(0))} cores; {len(models)} models; median of {args.repeat} runs")
    print(f"{'case':55} {'wall s':>8} {'vs cold':>8} {'vs torch':>9}")
    cold_time = rows[0][1]
    torch_time = rows[2][1] if len(rows) > 2 else None
    for name, seconds in rows:
        versus_torch = f"{seconds / torch_time:.3f}" if torch_time else ""
        print(f"{name:55} {seconds:8.3f} {seconds / cold_time:8.3f} {versus_torch:>9}")
    print(note)


if __name__ == "__main__":
    main()
