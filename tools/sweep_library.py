"""Analyse every ``.py`` file of installed packages alone, as a user would, and count the outcomes.

Each file is one ``staticflops analyze FILE --format json --debug --max-seconds N`` subprocess
(the CLI users run; ``--jobs`` processes at a time), with no ``--model``/``--input``: the file's
own single model, if it has one, is built and its forward analysed with what it declares.
The packages' source is read where ``pip install --no-deps`` put it (never imported):

    pip install --no-deps timm==1.0.31 diffusers==0.42.1 ultralytics==8.4.190 einops vit-pytorch
    pip download --no-deps torchvision==0.28.0 -d /tmp/tv && unzip -q /tmp/tv/*.whl -d /tmp/tv/src
    python tools/sweep_library.py timm diffusers ultralytics einops vit_pytorch \\
        --folder torchvision.models=/tmp/tv/src/torchvision/models --jobs 2 --max-seconds 60 \\
        --markdown sweep.md --internal-errors sweep_exit3.json

Outcomes (one per file):
- ``complete``: exit 0, totals complete (nothing unresolved);
- ``partial``: exit 0 with unknowns (a lower bound), or exit 1 with a PARTIAL report (a budget);
- ``skipped``: exit 1 because the file holds no model to analyse alone: no nn.Module class or
  builder (SF104), the one function returns no module (SF101), the chosen class needs constructor
  arguments (SF114 at its own ``class``/``def`` line), several models to choose from (SF105), or
  the model was built and its forward needs an ``--input`` (SF102);
- ``exit 1``: any other located error (``path:line:col: error: ...``): a model that needs what
  could not be resolved, or wrong input;
- ``exit 3``: internal error (a bug of ours): the traceback goes to ``--internal-errors``;
- ``timed out``: the CLI's ``--max-seconds`` budget stopped it before a report (or the
  subprocess outlived ``--max-seconds`` + 30 s); a budget hit after the model was built is a
  PARTIAL report, counted as ``partial``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

OUTCOMES = ["complete", "partial", "skipped", "exit 1", "exit 3", "timed out"]
_LOCATED = re.compile(r"^(?P<path>.*?):(?P<line>\d+):(?P<col>\d+): error: (?P<message>.*)$")
_NO_MODEL = ("defines no nn.Module class or builder function", "defines several models", "defines no Keras model",
             "did not produce an nn.Module", "no --input given")


def package_folders(names: list[str], site: Path) -> dict[str, Path]:
    folders = {}
    for name in names:
        folder = site / name
        if not folder.is_dir():
            sys.exit(f"{name}: not installed in {site} (pip install --no-deps ...)")
        folders[name] = folder
    return folders


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _located(stderr: str):
    for line in stderr.splitlines():
        match = _LOCATED.match(line)
        if match:
            return match
    return None


def _unlocated(stderr: str) -> str:
    """The CLI's own error line when it names no place in the source (``staticflops: error: ...``)."""
    lines = [line for line in stderr.splitlines() if "error:" in line]
    return lines[0] if lines else stderr.strip()[-500:]


def _skipped(match, path: Path) -> bool:
    """A file with no model to analyse alone (what folder mode lists as skipped)."""
    message = match.group("message")
    if any(text in message for text in _NO_MODEL):
        return True
    if "missing required" in message and Path(match.group("path")) == path:
        try:  # the chosen candidate's own top-level class/def line: it needs constructor arguments
            line = path.read_text(encoding="utf-8", errors="replace").splitlines()[int(match.group("line")) - 1]
        except (OSError, IndexError):
            return False
        return line.startswith(("class ", "def ", "async def "))
    return False


def analyse(path: Path, max_seconds: int) -> dict:
    command = [sys.executable, "-m", "staticflops", "analyze", str(path), "--format", "json", "--debug",
               "--max-seconds", str(max_seconds)]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=max_seconds + 30,
                              env={**os.environ, "COLUMNS": "200"})
    except subprocess.TimeoutExpired:
        return {"path": str(path), "outcome": "timed out", "seconds": round(time.perf_counter() - start, 1)}
    row = {"path": str(path), "exit": done.returncode, "seconds": round(time.perf_counter() - start, 1)}
    report = None
    if done.stdout.strip():
        try:
            report = json.loads(done.stdout)
        except ValueError:
            report = None
    match = _located(done.stderr)
    message = match.group(0) if match else _unlocated(done.stderr)
    if done.returncode == 0 and report is not None:
        row["outcome"] = "complete" if report.get("totals", {}).get("complete") else "partial"
        row["unknown"] = len(report.get("unknown", []))
    elif done.returncode == 1 and report is not None:
        row["outcome"] = "partial"  # a budget stopped it after the model was built: the PARTIAL report
        row["error"] = message
    elif done.returncode == 1 and "(--max-seconds)" in message:
        row["outcome"] = "timed out"  # the wall-time budget stopped it before any report
        row["error"] = message
    elif done.returncode == 1:
        skipped = _skipped(match, path) if match else any(text in message for text in _NO_MODEL)
        row["outcome"] = "skipped" if skipped else "exit 1"
        row["error"] = message
        row["located"] = match is not None
    elif done.returncode == 3:
        row["outcome"] = "exit 3"
        row["traceback"] = done.stderr.strip()[-6000:]
    else:
        row["outcome"] = f"exit {done.returncode}"
        row["error"] = done.stderr.strip()[-500:]
    return row


def markdown(rows_by_package: dict[str, list[dict]], versions: dict[str, str], sizes: dict[str, int]) -> str:
    """One row per package; ``files`` says "n of N" when only n of its N files were swept."""
    lines = ["| package | files | complete | partial | skipped (no model alone) | exit 1 | exit 3 | timed out |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    totals = dict.fromkeys(["files", "size", *OUTCOMES], 0)
    for package, rows in rows_by_package.items():
        counts = {outcome: sum(r["outcome"] == outcome for r in rows) for outcome in OUTCOMES}
        for key, value in counts.items():
            totals[key] += value
        totals["files"] += len(rows)
        totals["size"] += sizes[package]
        label = f"{package} {versions.get(package, '')}".strip()
        lines.append(f"| {label} | {_swept(len(rows), sizes[package])} | "
                     + " | ".join(str(counts[o]) for o in OUTCOMES) + " |")
    lines.append(f"| **all** | {_swept(totals['files'], totals['size'])} | "
                 + " | ".join(str(totals[o]) for o in OUTCOMES) + " |")
    return "\n".join(lines) + "\n"


def _swept(count: int, size: int) -> str:
    return str(count) if count == size else f"{count} of {size}"


def _version(name: str, site: Path) -> str:
    distribution = name.replace("_", "-")
    for info in site.glob("*.dist-info"):
        stem = info.name[: -len(".dist-info")]
        project, _, version = stem.rpartition("-")
        if project.lower().replace("_", "-") == distribution.lower():
            return version
    return ""


def _logged(path: Path | None) -> dict[str, dict]:
    if path is None or not path.is_file():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {row["path"]: row for row in rows}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="*", help="installed packages (import names) to sweep, "
                        "or LABEL=DIR for a folder (as --folder), in the order to sweep them")
    parser.add_argument("--site", type=Path, default=Path(sysconfig.get_paths()["purelib"]),
                        help="site-packages holding them (default: this interpreter's)")
    parser.add_argument("--folder", action="append", default=[], metavar="LABEL=DIR",
                        help="also sweep the .py files of DIR (e.g. an unpacked wheel's subfolder)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-seconds", type=int, default=60)
    parser.add_argument("--only", default=None, help="only files whose path contains this text")
    parser.add_argument("--markdown", type=Path, help="write the summary table here")
    parser.add_argument("--internal-errors", type=Path, help="write the exit-3 cases (with tracebacks) here")
    parser.add_argument("--results", type=Path, help="write every file's row here (JSON)")
    parser.add_argument("--report-only", action="store_true",
                        help="analyse nothing: the summary of the files already in --log")
    parser.add_argument("--log", type=Path, help="append each file's row here as it ends (JSON lines); "
                        "files already in it are not analysed again (resume an interrupted sweep)")
    args = parser.parse_args(argv)

    folders: dict[str, Path] = {}
    versions: dict[str, str] = {}
    for item in [*args.packages, *args.folder]:  # in the order given: the sweep's order
        label, _, folder = item.partition("=")
        if folder:
            folders[label] = Path(folder)
        else:
            folders.update(package_folders([label], args.site))
            versions[label] = _version(label, args.site)
    work = [(label, path) for label, folder in folders.items() for path in python_files(folder)
            if args.only is None or args.only in str(path)]
    start = time.perf_counter()
    rows_by_package: dict[str, list[dict]] = {label: [] for label in folders}
    done = _logged(args.log)
    log = args.log.open("a") if args.log else None
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [(label, pool.submit(analyse, path, args.max_seconds)
                    if str(path) not in done and not args.report_only else None) for label, path in work]
        for count, ((label, future), (_, path)) in enumerate(zip(futures, work), 1):
            if future is None and str(path) not in done:
                continue  # --report-only: not swept
            row = done[str(path)] if future is None else future.result()
            rows_by_package[label].append(row)
            if log is not None and future is not None:
                log.write(json.dumps(row) + "\n")
                log.flush()
            print(f"[{count}/{len(work)}] {row['outcome']:9} {row.get('seconds', '')}s {row['path']}",
                  file=sys.stderr, flush=True)
    sizes = {label: sum(1 for lab, _ in work if lab == label) for label in folders}
    table = markdown(rows_by_package, versions, sizes)
    print(table)
    print(f"{len(work)} files in {time.perf_counter() - start:.0f} s, {args.jobs} processes", file=sys.stderr)
    internal = [row for rows in rows_by_package.values() for row in rows if row["outcome"] == "exit 3"]
    if args.markdown:
        args.markdown.write_text(table)
    if args.internal_errors:
        args.internal_errors.write_text(json.dumps(internal, indent=1) + "\n")
    if args.results:
        args.results.write_text(json.dumps(rows_by_package, indent=1) + "\n")
    return 1 if internal else 0


if __name__ == "__main__":
    sys.exit(main())
