"""Benchmark: the cost of analysing a model statically vs. importing / running PyTorch.

    python benchmarks/run.py [--repeat 5] [--torch-python /path/to/python-with-torch]

Each figure is the median wall time of fresh processes (cold start: interpreter start-up and
imports included) and the peak resident memory of one of them.  The torch rows need a Python
that can ``import torch`` (torch==2.13.0 CPU); without one they are skipped with a message.
Run on an otherwise idle machine; these machines are noisy, so compare ratios, not seconds.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "resnet50.py"

# Each child reports its own peak RSS (KiB on Linux) on its last stderr line.
_PEAK = "import resource, sys; print('PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)"

GPT_SAMPLE = ROOT / "samples" / "transformer.py"
GPT_DEPTH = f"""
import sys
from staticflops.cli.app import main
sys.argv = ['staticflops', 'analyze', {str(GPT_SAMPLE)!r}, '--input', '1x2048:int64', '--format', 'json',
            '--kwargs', '{{{{"n_layer": {{layers}}, "n_embd": 12288, "n_head": 96, "block_size": 2048, "vocab_size": 50257}}}}']
try:
    main()
except SystemExit:
    pass
{_PEAK}
"""

HELP = f"""
import sys
from staticflops.cli.app import main
sys.argv = ['staticflops', '--help']
try:
    main()
except SystemExit:
    pass
{_PEAK}
"""

STATICFLOPS = f"""
import sys
from staticflops.cli.app import main
sys.argv = ['staticflops', 'analyze', {str(SAMPLE)!r}, '--input', '1x3x224x224', '--format', 'json']
try:
    main()
except SystemExit:
    pass
{_PEAK}
"""

IMPORT_TORCH = f"""
import torch
{_PEAK}
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
{_PEAK}
"""


def measure(python: str, code: str, repeat: int) -> tuple[float, float]:
    """(median seconds, peak MiB) over ``repeat`` fresh processes."""
    times, peaks = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            raise RuntimeError(result.stderr[-2000:])
        peak_line = [line for line in result.stderr.splitlines() if line.startswith("PEAK")][-1]
        peaks.append(int(peak_line.split()[1]) / 1024)
    return statistics.median(times), max(peaks)


def has_torch(python: str) -> bool:
    return subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--torch-python", default=sys.executable,
                        help="a Python interpreter that has torch installed (default: this one)")
    args = parser.parse_args()

    rows = [("staticflops analyze resnet50 (cold CLI, JSON)", *measure(sys.executable, STATICFLOPS, args.repeat))]
    torch_note = ""
    if has_torch(args.torch_python):
        rows.append(("python -c 'import torch'", *measure(args.torch_python, IMPORT_TORCH, args.repeat)))
        rows.append(("torch: import, build ResNet-50, FlopCounterMode forward",
                     *measure(args.torch_python, RUN_TORCH, args.repeat)))
    else:
        torch_note = (f"torch rows skipped: {args.torch_python} cannot import torch "
                      "(pass --torch-python with a venv that has torch==2.13.0)")

    ours_time, ours_peak = rows[0][1], rows[0][2]
    depth = [(layers, *measure(sys.executable, GPT_DEPTH.format(layers=layers), args.repeat))
             for layers in (2, 12, 48, 96)]
    help_time, help_peak = measure(sys.executable, HELP, args.repeat)
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}, "
          f"{len(__import__('os').sched_getaffinity(0))} cores; median of {args.repeat} cold runs")
    print(f"{'case':58} {'wall s':>8} {'peak MiB':>9} {'time ratio':>11} {'mem ratio':>10}")
    for name, seconds, peak in rows:
        time_ratio = "" if name.startswith("staticflops") else f"{ours_time / seconds:.3f}"
        mem_ratio = "" if name.startswith("staticflops") else f"{ours_peak / peak:.3f}"
        print(f"{name:58} {seconds:8.3f} {peak:9.1f} {time_ratio:>11} {mem_ratio:>10}")
    if torch_note:
        print(torch_note)
    else:
        print("ratios: staticflops / torch row (smaller is better)")
    print()
    print("depth: GPT sample, n_embd 12288, 96 heads, 1x2048 tokens, cold CLI (JSON)")
    print(f"{'n_layer':>8} {'params':>16} {'wall s':>8} {'peak MiB':>9} {'vs 2 layers':>12}")
    for layers, seconds, peak in depth:
        print(f"{layers:>8} {12 * layers * 12288 ** 2:>16,} {seconds:8.3f} {peak:9.1f} {seconds / depth[0][1]:12.2f}")
    print("  (params column: the 12*L*d^2 of the blocks, for scale)")
    print()
    print(f"`staticflops --help` (cold): {help_time:.3f} s, peak {help_peak:.1f} MiB")


if __name__ == "__main__":
    main()
