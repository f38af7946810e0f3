"""Record what calflops 0.3.2 reports for the samples and the single-layer cases: the same
targets and inputs as tools/record_tools.py (tools/record_torch.py's list).

Like the other recording scripts this executes PyTorch; staticflops itself never does.  Run it
in an environment with torch 2.13.0 and calflops 0.3.2, e.g.

    /work/gt/torch/bin/python tools/record_calflops.py

It writes tests/fixtures/calflops_ground_truth.json (sorted keys, no timestamps): per model
file ``{"flops", "macs", "params"}`` as
``calculate_flops(model, args=inputs, output_as_string=False)`` returns them (``params``:
the parameters that require grad, which is what calflops counts), or ``{"error": "..."}`` when calflops raised.

calflops monkey-patches torch.nn.functional and torch functions for the duration of a call and,
when the call raises, leaves the patches installed (every later count in the process is then
inflated).  So each model runs in a forked child process: whatever a failure leaves behind
dies with it.
"""
import argparse
import contextlib
import io
import json
import multiprocessing
import os
import sys
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # flop_measure and record_torch beside this script
from flop_measure import allow_cuda_torchvision  # noqa: E402

allow_cuda_torchvision()  # calflops imports transformers, which imports torchvision when installed
from calflops import calculate_flops  # noqa: E402  (imports transformers: once, before the forks)
REPO = os.path.dirname(HERE)
OUT = os.path.join(REPO, "tests", "fixtures", "calflops_ground_truth.json")


import record_torch as RT  # noqa: E402  (the targets and inputs of tools/record_torch.py)


def run_calflops(model, inputs):
    sink = io.StringIO()
    # as users call it: no torch.no_grad() (calflops sets eval mode only), so the fused
    # MultiheadAttention / TransformerEncoderLayer fast paths are not taken
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        flops, macs, params = calculate_flops(model, args=list(inputs), print_results=False, print_detailed=False,
                                              output_as_string=False)
    return {"flops": int(flops), "macs": int(macs), "params": int(params)}


def _child(job):
    relpath, class_name, specs = job
    try:
        torch.set_num_threads(1)
        module = RT.load_module(relpath)
        torch.manual_seed(0)
        model = getattr(module, class_name)()
        inputs = RT.make_inputs(specs)
        return run_calflops(model, inputs)
    except Exception as error:  # a tool that cannot handle the model is a fact worth recording
        return {"error": f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:300]}


def versions():
    import importlib.metadata as md
    return {name: md.version(name) for name in ("torch", "calflops")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="record only paths containing this substring (merged into the JSON)")
    args = parser.parse_args()
    targets = RT.all_targets()
    if args.only:
        targets = {k: v for k, v in targets.items() if args.only in k}
    results = {"_versions": versions(), "models": {}}
    if args.only and os.path.exists(OUT):
        with open(OUT) as fh:
            results["models"] = json.load(fh)["models"]
    context = multiprocessing.get_context("fork")
    with context.Pool(1, maxtasksperchild=1) as pool:
        for relpath, (class_name, specs) in sorted(targets.items()):
            tool = pool.apply(_child, ((relpath, class_name, specs),))
            results["models"][relpath] = {"class": class_name,
                                          "inputs": [{"shape": s["shape"], "dtype": s["dtype"]} for s in specs],
                                          "calflops": tool}
            print(relpath, tool.get("flops", tool.get("error")), tool.get("macs"), flush=True)
    with open(OUT, "w") as fh:
        fh.write(json.dumps(results, sort_keys=True, indent=1) + "\n")
    print(f"wrote {len(results['models'])} entries to {os.path.relpath(OUT, REPO)}")


if __name__ == "__main__":
    main()
