"""Record what other FLOP counters report for the samples and the single-layer cases.

Like tools/record_torch.py this executes PyTorch; staticflops itself never does.
It installs nothing: run it in an environment that has the tools, e.g.

    python -m venv /tmp/tv-conv
    /tmp/tv-conv/bin/pip install torch==2.13.0 fvcore thop ptflops torchinfo
    pip download --no-deps torchstat -d /tmp/tstat && unzip the wheel to /tmp/tstat/unpacked
    /tmp/tv-conv/bin/python tools/record_tools.py --torchstat /tmp/tstat/unpacked

and it writes tests/fixtures/tools_ground_truth.json (sorted keys, no timestamps).
Targets and inputs are the ones tools/record_torch.py uses (same classes, same shapes).

Per model file and per tool the entry holds the tool's own numbers, as the tool reports
them, or ``{"error": "..."}`` when the tool raised:

* ``torch``: ``torch.utils.flop_counter.FlopCounterMode`` with default settings on CPU
  (eval mode, ``torch.no_grad()``, default kernels): what a user gets; it is device- and
  kernel-dependent (LSTM via oneDNN, CPU flash attention and the fused MHA/encoder fast
  path count 0).  ``flops`` (FLOPs), ``by_module`` (FQN -> FLOPs, zeros omitted).
  ``meta_flops`` is the same count on the ``meta`` device for reference.
* ``fvcore``: ``FlopCountAnalysis(model, inputs).total()`` (fvcore calls them flops; they
  are multiply-accumulates), ``by_module`` (non-zero entries), ``params`` =
  ``parameter_count(model)[""]``.
* ``thop``: ``thop.profile(model, inputs, ret_layer_info=True)`` -> ``macs``, ``params``
  and ``by_module`` (flattened from the nested layer dict, zeros omitted).
* ``ptflops``: ``get_model_complexity_info(..., backend="pytorch")`` with an
  ``input_constructor`` that passes the inputs as keyword arguments -> ``macs``,
  ``params``; ``aten_macs`` is the ``aten`` backend's total for reference.
* ``torchinfo``: ``torchinfo.summary(model, input_data=inputs, verbose=0)`` ->
  ``macs`` (``total_mult_adds``), ``params`` (``total_params``), ``trainable_params``,
  ``by_module`` (leaf layers' ``macs``, zeros omitted).
* ``torchstat``: torchstat 0.0.7 cannot run as published on current numpy/torch
  (``np.long``); we apply its formula functions (``compute_flops``, ``compute_madd``,
  ``compute_memory``) exactly as its ``ModelHook`` does: once per leaf-module class
  ``__call__``, the last call of a module wins, ``input[0]`` and the first output tensor,
  memory in elements x itemsize (4 bytes for float32).  ``flops`` (its Flops column),
  ``madd``, ``mem_read``/``mem_write`` (bytes), ``params`` (leaf modules' own
  parameters).  If one of its asserts fires (e.g. a Linear on a 3-D input) the whole
  model is an error, as it is for the tool.
"""
import argparse
import contextlib
import copy
import io
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OUT = os.path.join(REPO, "tests", "fixtures", "tools_ground_truth.json")


# The targets and inputs of tools/record_torch.py (this script's folder is on sys.path when it runs).
sys.path.insert(0, HERE)
import record_torch as RT  # noqa: E402


def forward_arg_names(model, count):
    import inspect
    names = [p for p in inspect.signature(model.forward).parameters]
    return names[:count]


def quietly(fn):
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        return fn()


def nonzero(mapping):
    return {k: int(v) for k, v in sorted(mapping.items()) if v}


def run_torch(model, inputs, specs):
    model.eval()
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        model(*inputs)
    by_module = {fqn: int(sum(ops.values())) for fqn, ops in counter.get_flop_counts().items()}
    meta = copy.deepcopy(model).to("meta")
    meta_counter = FlopCounterMode(display=False)
    with torch.no_grad(), meta_counter:
        meta(*RT.make_inputs(specs, "meta"))
    return {"flops": int(counter.get_total_flops()), "by_module": nonzero(by_module),
            "meta_flops": int(meta_counter.get_total_flops()), "device": "cpu"}


def run_fvcore(model, inputs, specs):
    from fvcore.nn import FlopCountAnalysis, parameter_count
    analysis = FlopCountAnalysis(model.eval(), tuple(inputs))
    analysis.unsupported_ops_warnings(False)
    analysis.uncalled_modules_warnings(False)
    total = quietly(analysis.total)
    return {"macs": int(total), "by_module": nonzero(analysis.by_module()),
            "params": int(parameter_count(model)[""])}


def run_thop(model, inputs, specs):
    import thop
    macs, params, layers = quietly(lambda: thop.profile(model, inputs=tuple(inputs), verbose=False, ret_layer_info=True))
    flat = {}

    def walk(prefix, tree):
        for name, (ops, _params, children) in tree.items():
            path = f"{prefix}.{name}" if prefix else name
            flat[path] = ops
            walk(path, children)
    walk("", layers)
    return {"macs": int(macs), "params": int(params), "by_module": nonzero(flat)}


def run_ptflops(model, inputs, specs):
    from ptflops import get_model_complexity_info
    names = forward_arg_names(model, len(inputs))

    def count(backend):
        return quietly(lambda: get_model_complexity_info(
            model, (1,), input_constructor=lambda _res: dict(zip(names, inputs)), as_strings=False,
            print_per_layer_stat=False, backend=backend, verbose=False))
    macs, params = count("pytorch")
    if macs is None:
        return {"error": "ptflops returned None (an exception inside its pytorch backend)"}
    aten_macs, _ = count("aten")
    return {"macs": int(macs), "params": int(params), "aten_macs": None if aten_macs is None else int(aten_macs)}


def run_torchinfo(model, inputs, specs):
    import torchinfo
    stats = quietly(lambda: torchinfo.summary(model, input_data=list(inputs), verbose=0, depth=100))
    names = {id(m): n for n, m in model.named_modules()}
    by_module = {}
    for info in stats.summary_list:
        if info.is_leaf_layer and info.macs:
            name = names.get(id(info.module), info.var_name)
            by_module[name] = by_module.get(name, 0) + int(info.macs)
    return {"macs": int(stats.total_mult_adds), "params": int(stats.total_params),
            "trainable_params": int(stats.trainable_params), "by_module": dict(sorted(by_module.items()))}


def run_torchstat(model, inputs, specs, torchstat_dir):
    if torchstat_dir is None:
        return {"error": "not recorded (pass --torchstat DIR)"}
    if torchstat_dir not in sys.path:
        sys.path.insert(0, torchstat_dir)
    from torchstat.compute_flops import compute_flops
    from torchstat.compute_madd import compute_madd
    from torchstat.compute_memory import compute_memory
    last = {}  # module name -> (flops, madd, read, write); the last call wins as in ModelHook

    def first_tensor(out):
        while isinstance(out, (tuple, list)):
            out = out[0]
        return out

    def hook(name):
        def fn(module, args, output):
            out = first_tensor(output)
            itemsize = args[0].element_size()
            if len(args) == 1:
                values = (compute_flops(module, args[0], out), compute_madd(module, args[0], out),
                          compute_memory(module, args[0], out))
            else:
                values = (compute_flops(module, args, out), compute_madd(module, args, out),
                          compute_memory(module, args, out))
            flops, madd, (read, write) = values
            last[name] = (int(flops), int(madd), int(read) * itemsize, int(write) * itemsize)
        return fn

    leaves = [(n, m) for n, m in model.named_modules() if not list(m.children())]
    handles = [m.register_forward_hook(hook(n)) for n, m in leaves]
    try:
        with torch.no_grad():
            quietly(lambda: model.eval()(*inputs))
    except AssertionError as error:
        return {"error": f"torchstat assertion failed: {error or 'assert'}"}
    finally:
        for h in handles:
            h.remove()
    params = sum(p.numel() for _, m in leaves for p in m._parameters.values() if p is not None)
    totals = [sum(v[i] for v in last.values()) for i in range(4)]
    return {"flops": totals[0], "madd": totals[1], "mem_read": totals[2], "mem_write": totals[3],
            "params": int(params), "by_module": {n: list(v) for n, v in sorted(last.items()) if any(v)}}


TOOLS = ("torch", "fvcore", "thop", "ptflops", "torchinfo", "torchstat")


def record(relpath, class_name, specs, torchstat_dir):
    module = RT.load_module(relpath)
    cls = getattr(module, class_name)
    entry = {"class": class_name, "inputs": [{"shape": s["shape"], "dtype": s["dtype"]} for s in specs]}
    for tool in TOOLS:
        torch.manual_seed(0)
        model = cls()
        inputs = RT.make_inputs(specs)
        try:
            if tool == "torchstat":
                entry[tool] = run_torchstat(model, inputs, specs, torchstat_dir)
            else:
                entry[tool] = globals()[f"run_{tool}"](model, inputs, specs)
        except Exception as error:  # a tool that cannot handle the model is a fact worth recording
            entry[tool] = {"error": f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:300]}
    return entry


def versions():
    import importlib.metadata as md
    return {name: md.version(name) for name in ("torch", "fvcore", "thop", "ptflops", "torchinfo")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="record only paths containing this substring (merged into the JSON)")
    parser.add_argument("--torchstat", help="directory holding the unpacked torchstat 0.0.7 wheel")
    args = parser.parse_args()
    torch.set_num_threads(1)
    targets = RT.all_targets()
    if args.only:
        targets = {k: v for k, v in targets.items() if args.only in k}
    results = {"_versions": {}, "models": {}}
    if args.only and os.path.exists(OUT):
        with open(OUT) as fh:
            results = json.load(fh)
    results["_versions"] = dict(versions(), torchstat="0.0.7 (formula functions)" if args.torchstat else None)
    for relpath, (class_name, specs) in sorted(targets.items()):
        entry = record(relpath, class_name, specs, args.torchstat)
        results["models"][relpath] = entry
        summary = {t: entry[t].get("macs", entry[t].get("flops", entry[t].get("error"))) for t in TOOLS}
        print(relpath, summary, flush=True)
    with open(OUT, "w") as fh:
        fh.write(json.dumps(results, sort_keys=True, indent=1) + "\n")
    print(f"wrote {len(results['models'])} entries to {os.path.relpath(OUT, REPO)}")


if __name__ == "__main__":
    main()
