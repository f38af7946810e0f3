"""Record PyTorch ground truth for pytorch/examples' dcgan ``Generator`` and ``Discriminator``.

dcgan's ``main.py`` is a training script: module-level argparse (``--dataset`` required),
dataset loading, a training loop.  staticflops analyses it as written; this script gives the
numbers to compare with.  It does NOT run main.py: it reads the file with ``ast``, takes the
two class definitions and the argparse defaults of ``--nz``/``--ngf``/``--ndf``, and executes
only the classes with torch, with ``nc = 3`` (every ``--dataset`` but mnist sets it so).
dcgan's source is not committed; pass its path.

How to run (torch 2.13.0 CPU):

    git clone https://github.com/pytorch/examples /tmp/examples   # or any copy of dcgan/main.py
    /work/torchvenv/bin/python tools/record_dcgan.py /tmp/examples/dcgan/main.py

Writes ``tests/fixtures/dcgan_ground_truth.json``: per model, ``input``, ``output_shape``,
``params`` (sum of ``numel`` over ``parameters()``) and ``forward_flops``
(``FlopCounterMode`` total, eval mode, ``torch.no_grad()``, oneDNN off), plus the sha256 of
the main.py measured.  Compare with:

    staticflops analyze main.py --model Generator --kwargs '{"ngpu": 1}' --input 1x100x1x1
    staticflops analyze main.py --model Discriminator --kwargs '{"ngpu": 1}' --input 1x3x64x64
"""
import ast
import hashlib
import json
import os
import sys

import torch
import torch.nn as nn
from torch.utils.flop_counter import FlopCounterMode

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "dcgan_ground_truth.json")
SIZES = ("nz", "ngf", "ndf")


def argparse_defaults(tree: ast.Module) -> dict:
    """``parser.add_argument('--nz', type=int, default=100)`` -> {"nz": 100}."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument" and node.args:
            name = ast.literal_eval(node.args[0]).lstrip("-")
            for keyword in node.keywords:
                if keyword.arg == "default" and name in SIZES:
                    found[name] = ast.literal_eval(keyword.value)
    return found


def classes(path: str) -> dict:
    text = open(path, encoding="utf-8").read()
    tree = ast.parse(text)
    wanted = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name in ("Generator", "Discriminator")]
    namespace = {"nn": nn, "torch": torch, "nc": 3, **argparse_defaults(tree)}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), path, "exec"), namespace)
    return namespace, hashlib.sha256(text.encode()).hexdigest()


def measure(model: nn.Module, shape: tuple) -> dict:
    model.eval()
    x = torch.randn(*shape)
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False), counter:
        out = model(x)
    return {"input": list(shape), "output_shape": list(out.shape),
            "params": sum(p.numel() for p in model.parameters()),
            "forward_flops": counter.get_total_flops()}


def main() -> None:
    namespace, digest = classes(sys.argv[1])
    torch.manual_seed(0)
    record = {
        "source_sha256": digest, "torch": torch.__version__,
        "sizes": {name: namespace[name] for name in (*SIZES, "nc")},
        "Generator": measure(namespace["Generator"](1), (1, namespace["nz"], 1, 1)),
        "Discriminator": measure(namespace["Discriminator"](1), (1, 3, 64, 64)),
    }
    with open(OUT, "w") as out:
        json.dump(record, out, indent=2, sort_keys=True)
        out.write("\n")
    print(json.dumps(record, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
