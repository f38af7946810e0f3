"""Compare staticflops with the numbers torchvision publishes for its classification models.

Each weights entry in ``torchvision/models/*.py`` publishes ``num_params`` and ``_ops``
(GMACs at the input size of its transforms' ``crop_size``).  This script reads those
numbers from the source text (with ``ast``; torchvision is never imported), runs
``staticflops.analyze`` on each builder with ``weights=None`` and prints a table.

    pip download --no-deps torchvision==0.28.0 -d /tmp/tv-src && (cd /tmp/tv-src && unzip -q *.whl)
    python tools/zoo_table.py /tmp/tv-src            # a folder holding torchvision/models/
    python tools/zoo_table.py /tmp/tv-src --only resnet --markdown

What torchvision's ``_ops`` counts (vision PR #6936, a TorchDispatchMode counter after
Chillee's): multiply-accumulates of aten mm/addmm/bmm/convolution, i.e. linear, conv and
matmul (so attention's q@k^T and attn@v are in, bias adds, norms, activations, pooling and
elementwise ops are out).  That is exactly MACs under our ``standard`` rule set, so the
comparison is ours ``macs`` / 1e9 rounded to the published number of decimals.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import staticflops  # noqa: E402
from staticflops.diagnostics import AnalysisError  # noqa: E402

# (file, builder, extra arguments): the models the issue lists, most common families first.
MODELS = [
    ("resnet", "resnet18", ""), ("resnet", "resnet34", ""), ("resnet", "resnet50", ""),
    ("resnet", "resnet101", ""), ("resnet", "resnet152", ""), ("resnet", "resnext50_32x4d", ""),
    ("resnet", "wide_resnet50_2", ""),
    ("vgg", "vgg11", ""), ("vgg", "vgg11_bn", ""), ("vgg", "vgg16", ""), ("vgg", "vgg16_bn", ""),
    ("vgg", "vgg19", ""), ("vgg", "vgg19_bn", ""),
    ("alexnet", "alexnet", ""),
    ("mobilenetv2", "mobilenet_v2", ""), ("mobilenetv3", "mobilenet_v3_large", ""),
    ("mobilenetv3", "mobilenet_v3_small", ""),
    ("efficientnet", "efficientnet_b0", ""), ("efficientnet", "efficientnet_b3", ""),
    ("efficientnet", "efficientnet_v2_s", ""),
    ("convnext", "convnext_tiny", ""),
    ("vision_transformer", "vit_b_16", ""),
    ("swin_transformer", "swin_t", ""),
    ("squeezenet", "squeezenet1_0", ""), ("squeezenet", "squeezenet1_1", ""),
    ("densenet", "densenet121", ""),
    ("googlenet", "googlenet", ", aux_logits=False"), ("inception", "inception_v3", ""),
    ("mnasnet", "mnasnet1_0", ""), ("shufflenetv2", "shufflenet_v2_x1_0", ""),
    ("regnet", "regnet_y_400mf", ""), ("maxvit", "maxvit_t", ""),
]


# Why a row is run the way it is.
NOTES = {
    "googlenet": "aux_logits=False, as the published model (its builder drops the aux heads)",
    "inception_v3": "published num_params include AuxLogits (kept when weights load); eval forward skips it",
}


class Published:
    """num_params, _ops (as written) and crop_size of a builder's first weights entry."""

    def __init__(self, path: Path, builder: str):
        text = path.read_text()
        tree = ast.parse(text)
        functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        weights_class = _annotation_name(functions[builder])
        entry = next(s.value for s in classes[weights_class].body if isinstance(s, ast.Assign))
        fields = _call_fields(entry)
        assigned = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
                     if isinstance(t, ast.Name)}
        meta = fields["meta"]
        self.params = ast.literal_eval(_dict_value(meta, "num_params", assigned))
        ops_node = _dict_value(meta, "_ops", assigned)
        self.ops_text = ast.get_source_segment(text, ops_node)
        self.crop = ast.literal_eval(_call_fields(fields["transforms"])["crop_size"])


def _annotation_name(function: ast.FunctionDef) -> str:
    for arg in function.args.kwonlyargs + function.args.args:
        if arg.arg == "weights":
            annotation = arg.annotation  # Optional[ResNet50_Weights]
            return annotation.slice.id if isinstance(annotation, ast.Subscript) else annotation.id
    raise KeyError(f"{function.name} has no weights parameter")


def _call_fields(call: ast.Call) -> dict:
    return {k.arg: k.value for k in call.keywords}


def _dict_value(node, key: str, assigned: dict):
    """The value for ``key`` in a dict display; ``**_COMMON_META`` spreads are followed."""
    found = None
    if isinstance(node, ast.Name) and node.id in assigned:
        return _dict_value(assigned[node.id], key, assigned)
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values):
            if k is None:
                try:
                    found = _dict_value(v, key, assigned)
                except KeyError:
                    pass
            elif isinstance(k, ast.Constant) and k.value == key:
                found = v
    if found is None:
        raise KeyError(key)
    return found


def run(models_dir: Path, only: str | None):
    rows = []
    for file, builder, extra in MODELS:
        if only and only not in builder:
            continue
        path = models_dir / f"{file}.py"
        published = Published(path, builder)
        expression = f"{builder}(weights=None{extra})"
        started = time.perf_counter()
        row = {"model": builder, "input": f"1x3x{published.crop}x{published.crop}",
               "published_params": published.params, "published_gmacs": published.ops_text,
               "params": None, "gmacs": None, "match": "no", "note": ""}
        try:
            report = staticflops.analyze(path, model=expression, inputs=[row["input"]])
        except AnalysisError as error:
            row["note"] = f"{error.location}: {error.message}" if error.location else error.message
        else:
            decimals = len(published.ops_text.split(".")[1]) if "." in published.ops_text else 0
            macs = report.totals.macs
            row["params"] = report.totals.params
            row["gmacs"] = f"{macs / 1e9:.{decimals}f}" if isinstance(macs, (int, float)) else str(macs)
            params_ok = row["params"] == published.params
            macs_ok = isinstance(macs, (int, float)) and round(macs / 1e9, decimals) == float(published.ops_text)
            row["match"] = "yes" if params_ok and macs_ok else "no"
            notes = [f"{u.location}: {u.what}" for u in report.unknown[:2]]
            row["note"] = "; ".join(notes + ([NOTES[builder]] if builder in NOTES else []))
        row["seconds"] = round(time.perf_counter() - started, 1)
        rows.append(row)
        print(_line(row), flush=True)
    return rows


def _line(row) -> str:
    params = "-" if row["params"] is None else f"{row['params']:,}"
    gmacs = "-" if row["gmacs"] is None else row["gmacs"]
    return (f"| {row['model']} | {row['input']} | {row['published_params']:,} | {params} | {row['published_gmacs']} "
            f"| {gmacs} | {row['match']} | {row['note']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="folder holding torchvision/models/ (an unpacked wheel or a checkout)")
    parser.add_argument("--only", help="run only builders whose name contains this")
    args = parser.parse_args()
    models_dir = args.root / "torchvision" / "models"
    if not models_dir.is_dir():
        models_dir = args.root / "models" if (args.root / "models").is_dir() else args.root
    print("| model | input | published params | ours | published GMACs | ours | matched | notes / blocked by |")
    print("|---|---|---:|---:|---:|---:|---|---|")
    rows = run(models_dir, args.only)
    matched = sum(r["match"] == "yes" for r in rows)
    print(f"\n{matched} of {len(rows)} rows match (torchvision source at {models_dir})")
    return 0 if matched == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
