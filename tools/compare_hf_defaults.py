"""Analyse every case of tests/fixtures/hf_default_configs.json (popular transformers
architectures from their default config.json, recorded with torch by
tools/record_hf_defaults.py) with staticflops, without torch, and print how many equal
FlopCounterMode: a Markdown table (case, params, forward FLOPs, verdict) and a summary line.

    python tools/compare_hf_defaults.py --source-path SITE_PACKAGES [--only bert-qa t5] [--markdown out.md]

SITE_PACKAGES holds transformers 5.23.0 and huggingface_hub (unpacked wheels or an environment's
site-packages).  Each case runs in a fresh temporary folder (a cold parsed-module cache).
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import staticflops

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "hf_default_configs.json"


def spelling(spec) -> str:
    shape = "x".join(str(d) for d in spec["shape"])
    return shape + (":int64" if spec["dtype"] == "int64" else "") + ("=1" if spec["name"] == "attention_mask" else "")


def run(name, case, source_path) -> dict:
    with tempfile.TemporaryDirectory(prefix="sf-hf-") as folder:
        config = Path(folder) / "config.json"
        config.write_text(json.dumps(case["config"]))
        started = time.perf_counter()
        try:
            report = staticflops.analyze(config, inputs=[spelling(s) for s in case["inputs"]], source_path=[source_path])
        except (staticflops.AnalysisError, staticflops.UsageError) as error:
            return {"error": str(error).splitlines()[0][:200], "seconds": time.perf_counter() - started}
        return {"params": report.totals.params, "flops": report.totals.forward_flops,
                "complete": report.totals.complete, "seconds": time.perf_counter() - started}


def verdict(case, mine) -> str:
    if "error" in case:
        return "torch fails too" if "error" in mine else "torch fails; staticflops does not"
    if "error" in mine:
        return "staticflops fails"
    same = (mine["params"], mine["flops"]) == (case["params"], case["forward_flops"])
    if same:
        return "exact" if mine["complete"] else "exact, with unknowns"
    return "differs" if mine["complete"] else "incomplete (a lower bound)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-path", required=True)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--markdown", default=None, help="also write the table to this file")
    args = parser.parse_args()
    cases = json.loads(FIXTURE.read_text())["cases"]
    rows, counts = [], {}
    for name, case in cases.items():
        if args.only and name not in args.only:
            continue
        mine = run(name, case, args.source_path)
        said = verdict(case, mine)
        counts[said] = counts.get(said, 0) + 1
        torch_side = case.get("error") or f"{case['params']:,} / {case['forward_flops']:,}"
        ours = mine.get("error") or f"{mine['params']:,} / {mine['flops']:,}"
        rows.append(f"| {name} | {case['config']['architectures'][0]} | {torch_side} | {ours} | {said} | "
                    f"{mine['seconds']:.1f} |")
        print(rows[-1], flush=True)
    table = ["| case | architecture | torch: params / FLOPs | staticflops | verdict | s |", "|---|---|---|---|---|---:|",
             *rows]
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    print(f"\n{len(rows)} cases: {summary}")
    if args.markdown:
        Path(args.markdown).write_text("\n".join(table) + f"\n\n{len(rows)} cases: {summary}\n")
    return 0 if all(k.startswith(("exact", "torch fails too")) for k in counts) else 1


if __name__ == "__main__":
    sys.exit(main())
