"""Coverage of ``--past-tokens`` over transformers' causal language models: every architecture
that transformers' ``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES`` lists, built from its default config
(``{"model_type", "architectures"}``, as ``staticflops analyze config.json`` builds it), priced
for one new token over a cache of 7 earlier ones.  Prints how many give a complete step, how many
leave located unknowns, and how many fail, with each failure's first cause.

Runs the staticflops on PATH (or ``--staticflops``) over the transformers found with
``--source-path`` (an unpacked wheel folder, or a site-packages); no torch:

    python tools/generation_coverage.py --source-path /path/site-packages --out /tmp/generation.jsonl

The list is read from the text of ``models/auto/modeling_auto.py`` (never imported).  One JSON
line per architecture in --out; those already there are skipped (resume).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def causal_lms(source_path: str) -> list[tuple[str, str]]:
    """(model_type, class) pairs of MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, in its order."""
    text = (Path(source_path) / "transformers" / "models" / "auto" / "modeling_auto.py").read_text()
    block = re.search(r"^MODEL_FOR_CAUSAL_LM_MAPPING_NAMES = OrderedDict\(\s*\[(.*?)^\s*\]\s*\)", text, re.M | re.S)
    if block is None:
        sys.exit("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES not found in modeling_auto.py")
    return re.findall(r'\(\s*"([\w-]+)"\s*,\s*"(\w+)"\s*\)', block.group(1))


def run_one(model_type: str, architecture: str, args) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.json"
        config.write_text(json.dumps({"model_type": model_type, "architectures": [architecture]}))
        command = [*args.staticflops, "analyze", str(config), "--input", "1x1:int64", "--past-tokens", "7",
                   "--source-path", args.source_path, "--format", "json", "--no-cache"]
        start = time.monotonic()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.max_seconds)
        except subprocess.TimeoutExpired:
            return {"model_type": model_type, "class": architecture, "outcome": "timeout"}
    row = {"model_type": model_type, "class": architecture, "seconds": round(time.monotonic() - start, 1),
           "exit": done.returncode}
    if done.returncode == 0:
        report = json.loads(done.stdout)
        row.update(outcome="complete" if report["totals"]["complete"] else "analysed",
                   flops=report["totals"]["forward_flops"], kv_cache_bytes=(report.get("generation") or {}).get(
                       "kv_cache_bytes"), unknown=[u["what"][:200] for u in report["unknown"]][:3])
    else:
        errors = [line for line in done.stderr.splitlines() if ": error: " in line]
        row.update(outcome="internal" if done.returncode == 3 else "failed",
                   cause=(errors[0] if errors else done.stderr.strip()[-300:])[:400])
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-path", required=True)
    parser.add_argument("--out", default="generation-coverage.jsonl")
    parser.add_argument("--max-seconds", type=int, default=240)
    parser.add_argument("--staticflops", nargs="+", default=[sys.executable, "-m", "staticflops"])
    args = parser.parse_args()
    done = {}
    if os.path.exists(args.out):
        done = {row["model_type"]: row for row in map(json.loads, open(args.out))}
    with open(args.out, "a") as out:
        for model_type, architecture in causal_lms(args.source_path):
            if model_type in done:
                continue
            row = done[model_type] = run_one(model_type, architecture, args)
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(model_type, row["outcome"], row.get("cause", "")[-160:], flush=True)
    counts = Counter(row["outcome"] for row in done.values())
    print(f"{len(done)} causal LMs: " + ", ".join(f"{counts[k]} {k}" for k in
                                                    ("complete", "analysed", "failed", "timeout", "internal")))


if __name__ == "__main__":
    main()
