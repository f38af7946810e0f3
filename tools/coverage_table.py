"""Run every case of the op-surface probe (tests/fixtures/coverage/*.json, recorded by
tools/record_coverage.py) through staticflops, in process and without torch, and print the
per-family coverage table that docs/ground-truth.md's "Single ops" section shows.

    python tools/coverage_table.py            # the Markdown table
    python tools/coverage_table.py --cases    # also one line per case that is not exact and per gap

Each case is classified:

* ``exact``: no unknown, and the output shapes, parameters and forward FLOPs are the recorded
  ones (torch: `standard` against FlopCounterMode; Keras: `tf-profiler` against the TF
  profiler, batch 1, as tests/test_keras_cases.py);
* ``wrong``: no unknown, but a number or shape differs (the worst outcome);
* ``not modelled``: the analysis names what it could not resolve (a located unknown, or a
  located ``path:line:col: error`` about the op);
* ``error``: an error without a location, or an exception of staticflops itself.

Cases marked ``out_of_scope`` (output shapes that depend on the tensor's values) are counted
apart.  The primary-op column counts each op's first case (``variant`` 0) out of the ops probed
plus the ops no recipe could call (``no recipe``: not covered either).
tests/test_coverage_probe.py imports this module (no torch needed).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "coverage"
FAMILIES = {"nn_modules": "nn modules", "nn_functional": "nn.functional", "tensor_ops": "tensor ops",
            "keras_layers": "keras layers", "keras_ops": "keras ops"}
CLASSES = ("exact", "wrong", "not modelled", "error")

# Where `standard` deliberately counts what FlopCounterMode has no formula for (it says 0), as in
# tests/test_ops_recorded.py; the number is derived by hand in the comment.  Keyed (op, call).
DELIBERATE: dict = {
    # FlopCounterMode has no formula for aten._trilinear (says 0); `standard` counts the products,
    # as tests/test_torch_cases.py does: Bilinear(8, 6, 4) on (2, 8), (2, 6): 2*4 outputs x 8*6
    # products = 384 MACs = 768 FLOPs.
    ("Bilinear", "self.m(x, y)"): 768,
    # FlopCounterMode has no formula for aten.dot / aten.vdot / aten.mv (says 0); `standard` counts
    # their products as every matrix-vector product (rules/standard.yaml `matmul`'s note):
    # dot/vdot of two 8-vectors: 8 MACs = 16 FLOPs; mv of (5, 8) by (8,): 5 x 8 = 40 MACs = 80 FLOPs.
    **{(op, call): 16 for op, call in (("Tensor.dot", "x.dot(y)"), ("torch.dot", "torch.dot(x, y)"),
                                       ("Tensor.vdot", "x.vdot(y)"), ("torch.vdot", "torch.vdot(x, y)"))},
    ("Tensor.mv", "x.mv(v)"): 80, ("torch.mv", "torch.mv(x, v)"): 80,
    # torch.tensordot(x, y) of two (2, 8) contracts both dims: torch runs aten.dot of 16 (0 in
    # FlopCounterMode); `standard` counts 16 MACs = 32 FLOPs.
    ("torch.tensordot", "torch.tensordot(x, y)"): 32,
    # aten.addbmm / aten.addmv have no FlopCounterMode formula (0); `standard` counts their products
    # (rules/standard.yaml `add_product`): addbmm of (2, 5, 8) @ (2, 8, 4) summed over the batch:
    # 2 x 5 x 4 x 8 = 320 MACs = 640 FLOPs; addmv of (5, 8) by (8,): 40 MACs = 80 FLOPs.
    ("Tensor.addbmm", "x.addbmm(y, z)"): 640, ("torch.addbmm", "torch.addbmm(x, y, z)"): 640,
    ("Tensor.addmv", "x.addmv(y, v)"): 80, ("torch.addmv", "torch.addmv(x, y, v)"): 80,
    # The same op as a function: F.bilinear(x (2, 8), y (2, 6), w (4, 8, 6)) = 768, as above.
    ("F.bilinear", "F.bilinear(x, y, self.w)"): 768,
    # FlopCounterMode has no formula for aten.conv_tbc (says 0); `standard` counts it as a conv:
    # x (5, 2, 8) with w (3, 8, 4) gives (5 - 3 + 1, 2, 4) = 24 outputs x 3*8 products = 576 MACs
    # = 1152 FLOPs.
    ("F.conv_tbc", "F.conv_tbc(x, self.w, self.b)"): 1152,
}


def load(family: str) -> dict:
    return json.loads((FIXTURES / f"{family}.json").read_text())


def case_source(header: str, case: dict) -> str:
    """The model text tools/record_coverage.py executed (its ``case_source``)."""
    names = [spec.split(":")[0] for spec in case["inputs"]]
    body = "".join(f"        {line}\n" for line in case["init"].splitlines())
    return (header + "    def __init__(self):\n        super().__init__()\n" + body + "\n"
            + f"    def forward(self, {', '.join(names)}):\n        return {case['call']}\n")


def keras_case_source(header: str, case: dict) -> str:
    """The Functional model tools/record_coverage_keras.py executed (its ``case_source``)."""
    lines = []
    for spec in case["inputs"]:
        name, _, rest = spec.partition(":")
        dtype, _, dims = rest.rpartition(":")
        shape = ", ".join(dims.split("x")) + ("," if "x" not in dims else "")
        lines.append(f"{name} = keras.Input(shape=({shape})" + (f', dtype="{dtype}"' if dtype else "") + ")\n")
    names = [spec.split(":")[0] for spec in case["inputs"]]
    model_inputs = names[0] if len(names) == 1 else f"[{', '.join(names)}]"
    return header + "".join(lines) + f"out = {case['call']}\nmodel = keras.Model({model_inputs}, out)\n"


def _input_specs(case: dict) -> list:
    """``x:2x3`` -> ``2x3``; ``i:int64:2x3`` -> ``2x3:int64`` (the CLI's --input form)."""
    out = []
    for spec in case["inputs"]:
        _, _, rest = spec.partition(":")
        dtype, _, dims = rest.rpartition(":")
        out.append(dims + (f":{dtype}" if dtype else ""))
    return out


def classify(header: str, case: dict) -> tuple[str, str]:
    """(class, detail) of one recorded case."""
    from staticflops import AnalysisError
    from staticflops.api import analyze_text
    from staticflops.diagnostics import UsageError

    path = "case.py"
    keras = "tf_profiler_flops" in case  # Keras ground truth is the TF profiler's (tools/record_keras.py)
    if keras:
        source, options = keras_case_source(header, case), {"rules": "tf-profiler", "batch": 1}
    else:
        source, options = case_source(header, case), {"model": "Model", "inputs": _input_specs(case)}
    try:
        report = analyze_text(source, path, **options)
    except (AnalysisError, UsageError) as error:
        location = getattr(error, "location", None)
        if location is not None and str(location).startswith(path):
            return "not modelled", f"{location}: error: {error.message}"
        return "error", f"error: {error}"
    except Exception as error:  # noqa: BLE001 - our bug: counted, listed
        return "error", f"internal: {type(error).__name__}: {error}"
    if report.unknown:
        return "not modelled", f"{report.unknown[0].location}: {report.unknown[0].what}"
    outputs = [list(s) if s is not None else None for s in report.outputs]
    if any(s is None for s in outputs):
        return "not modelled", "an output's shape is unknown"
    flops = DELIBERATE.get((case["op"], case["call"]), case["tf_profiler_flops" if keras else "forward_flops"])
    got = (outputs, report.totals.params, report.totals.forward_flops)
    want = (case["output_shapes"], case["params"], flops)
    if got != want:
        return "wrong", f"got shapes/params/flops {got}, recorded {want}"
    return "exact", ""


def measure(families=FAMILIES) -> dict:
    """family -> {"cases": [(case, class, detail)], "gaps": ..., "excluded": ...}."""
    out = {}
    for family in families:
        data = load(family)
        results = [(case, *classify(data["header"], case)) for case in data["cases"]]
        out[family] = {"cases": results, "gaps": data["gaps"], "excluded": data["excluded"],
                       "recorded_with": data["recorded_with"], "gap_reasons": data.get("gap_reasons", {})}
    return out


def summary(results: list) -> dict:
    """Counts per class over in-scope cases, the primary ops exact / probed, and out of scope."""
    in_scope = [(c, k) for c, k, _ in results if "out_of_scope" not in c]
    counts = Counter(k for _, k in in_scope)
    primary = [k for c, k in in_scope if c["variant"] == 0]
    return {"cases": len(in_scope), **{k: counts.get(k, 0) for k in CLASSES},
            "primary_exact": primary.count("exact"), "primary": len(primary),
            "out_of_scope": len(results) - len(in_scope)}


def table(measured: dict) -> str:
    lines = ["| family | cases | exact | wrong | not modelled | error | primary ops exact | no recipe | data-dependent |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for family, data in measured.items():
        s = summary(data["cases"])
        no_recipe = sum(1 for gap in data["gaps"].values() if gap == "no recipe")
        ops = s["primary"] + no_recipe  # an op the probe cannot call is not covered either
        percent = 100 * s["primary_exact"] / ops if ops else 0
        lines.append(f"| {FAMILIES[family]} | {s['cases']} | {s['exact']} | {s['wrong']} | {s['not modelled']} | "
                     f"{s['error']} | {s['primary_exact']}/{ops} ({percent:.0f}%) | {no_recipe} | "
                     f"{s['out_of_scope']} |")
    return "\n".join(lines) + "\n"


def main(argv: list) -> int:
    measured = measure()
    sys.stdout.write(table(measured))
    if "--cases" in argv:
        for family, data in measured.items():
            for case, kind, detail in data["cases"]:
                if kind != "exact":
                    print(f"{family}\t{kind}\t{case['op']}\t{case['call']}\t{detail[:200]}")
            for op, gap in data["gaps"].items():  # ops no probe call could run, with the reason when known
                print(f"{family}\t{gap}\t{op}\t\t{data['gap_reasons'].get(op, '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
