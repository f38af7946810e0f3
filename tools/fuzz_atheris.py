"""Coverage-guided fuzzing of the whole analysis with atheris (optional; not run in CI).

atheris is not a project dependency.  Install it in its own venv (Python <= 3.11 has wheels):

    python3.11 -m venv /tmp/fuzzvenv && /tmp/fuzzvenv/bin/pip install atheris==3.0.0 -e .
    /tmp/fuzzvenv/bin/python tools/fuzz_atheris.py --time 600 --work /tmp/sf-fuzz [--structured]

Each input is a model file's bytes, analysed in memory (``analyze(..., reader=...)``: parse,
interpreter, shapes, pricing) and rendered (JSON, markdown, table) under small budgets.  An
optional first line ``# fuzz: model=NAME inputs=1x3x32x32;1x8:int64 training`` (a comment, so
line numbers do not move) picks the model, its inputs and --training; the seeds carry it.

The oracle: the only acceptable outcomes are a Report or AnalysisError/UsageError, and every
location named (the error's, each unknown's, layer's and diagnostic's) lies inside the input (line 1..lines+1).
Anything else is a finding, saved under WORK/findings/ (one file per distinct kind and place)
and fuzzing goes on.  Hangs (``-timeout``) and memory blow-ups (``-rss_limit_mb``) end a
libFuzzer run with a timeout-/oom- artifact in WORK/findings/; the driver then starts a new
run until the time is used up.

``--structured``: the bytes drive a FuzzedDataProvider that picks a seed and mutates it the
way real edits do (integer literals replaced, statements deleted, duplicated or spliced in
from other seeds, indentation broken) instead of mutating raw bytes.

The driver (this script without ``--child``) seeds WORK/corpus from samples/*.py and
tests/fixtures/torch_cases/*.py, runs the fuzzer in child processes and prints a summary:
runs, executions, exec/s, coverage, corpus size, findings.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PATH = "fuzzed_model.py"  # the name the analysed text goes by
LIMITS = {"max_steps": 20_000, "max_loop_iterations": 5_000, "max_depth": 40, "max_container": 100_000}
HEADER = re.compile(rb"#\s*fuzz:([^\r\n]*)")
INTEGER = re.compile(r"(?<![\w.])\d+(?![\w.])")


# ---- seeds -----------------------------------------------------------------------------------

def seed_sources() -> dict[str, bytes]:
    """Seed files with a header naming their model and inputs (from the recorded ground truth)."""
    truth = json.loads((REPO / "tests/fixtures/torch_ground_truth.json").read_text())
    files = sorted(REPO.glob("samples/*.py")) + sorted(REPO.glob("tests/fixtures/torch_cases/*.py"))
    seeds = {}
    for file in files:
        relative = str(file.relative_to(REPO))
        header = b""
        if relative in truth:
            case = truth[relative]
            specs = ["x".join(str(d) for d in spec["shape"]) + ("" if spec["dtype"].startswith("float") else
                                                                 ":" + spec["dtype"]) for spec in case["inputs"]]
            header = f"# fuzz: model={case['class']} inputs={';'.join(specs)}\n".encode()
        seeds[relative] = header + file.read_bytes()
    return seeds


def seed_corpus(corpus: Path) -> None:
    corpus.mkdir(parents=True, exist_ok=True)
    for name, data in seed_sources().items():
        variants = {"seed-": data}
        if data.startswith(b"# fuzz:"):  # the same model with --training (backward rules, training facts)
            variants["seed-training-"] = data.replace(b"\n", b" training\n", 1)
        for prefix, variant in variants.items():
            target = corpus / (prefix + name.replace("/", "_"))
            if not target.exists():
                target.write_bytes(variant)


# ---- one execution ---------------------------------------------------------------------------

class Finding(Exception):
    """The oracle failed: an unexpected exception or a location outside the input."""


def options_from(data: bytes) -> dict:
    match = HEADER.match(data)
    options: dict = {}
    if not match:
        return options
    for word in match.group(1).decode("utf-8", "replace").split():
        key, _, value = word.partition("=")
        if key == "model" and value:
            options["model"] = value
        elif key == "inputs" and value:
            options["inputs"] = value.split(";")
        elif key == "training":
            options["training"] = True
    return options


def line_count(data: bytes) -> int:
    text = data.decode("utf-8", "replace")
    return max(text.count("\n"), len(re.findall(r"\r\n|\r|\n", text))) + 1


def check_location(location, lines: int, what: str) -> None:
    if location is None:
        return
    text = str(location)
    if not text.startswith(PATH + ":"):
        if text.startswith(("<", "--model:")) or "/stubs/" in text:  # a --model expression or a bundled stub
            return
        raise Finding(f"{what} location names another file: {text}")
    parts = text[len(PATH) + 1:].split(":")
    line, col = int(parts[0]), int(parts[1])
    if not (1 <= line <= lines and col >= 1):
        raise Finding(f"{what} location outside the input ({lines} lines): {text}")


def analyse_once(data: bytes) -> str:
    """Analyse ``data`` as a model file; returns the outcome's kind, raises Finding."""
    from staticflops.api import analyze
    from staticflops.diagnostics import AnalysisError, UsageError
    from staticflops.report.markdown import render_markdown
    from staticflops.report.text import render_table
    from rich.console import Console

    def reader(name: str) -> bytes:
        if str(name) != PATH:
            raise FileNotFoundError(2, "only the fuzzed file exists", str(name))
        return data

    lines = line_count(data)
    try:
        report = analyze(PATH, reader=reader, limits=LIMITS, **options_from(data))
    except (AnalysisError, UsageError) as error:
        check_location(getattr(error, "location", None), lines, "error")
        if not str(error).strip():
            raise Finding("error with an empty message")
        return f"error: {error}"
    for unknown in report.unknown:
        check_location(unknown.location, lines, "unknown")
    for layer in report.layers:
        check_location(layer.location, lines, "layer")
    for diagnostic in report.diagnostics:
        check_location(diagnostic.location, lines, "diagnostic")
    report.to_json()
    render_markdown(report)
    with open(os.devnull, "w") as sink:
        render_table(report, Console(file=sink, width=120))
    return f"report ({len(report.unknown)} unknown)"


def record(findings: Path, data: bytes, error: BaseException) -> None:
    """One file per distinct (exception type, innermost staticflops frame) so repeats do not pile up."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "staticflops" in f.filename]
    where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"
    message = str(error) if isinstance(error, Finding) else ""
    key = f"{type(error).__name__}|{where}|{re.sub(r'[0-9]+', 'N', message)}"
    name = hashlib.sha1(key.encode()).hexdigest()[:12]
    findings.mkdir(parents=True, exist_ok=True)
    target = findings / f"finding-{name}.py"
    if not target.exists() or len(data) < target.stat().st_size:
        target.write_bytes(data)
        (findings / f"finding-{name}.txt").write_text(
            key + "\n\n" + "".join(traceback.format_exception(type(error), error, error.__traceback__)))


# ---- structured mutations --------------------------------------------------------------------

def statement_spans(source: str) -> list[tuple[int, int]]:
    """(first, last) 0-based line spans of every statement in the seed, nested ones included."""
    try:
        tree = ast.parse(source)  # the fuzzer's own seeds; parsing is not running them
    except SyntaxError:
        return []
    return [(n.lineno - 1, n.end_lineno - 1) for n in ast.walk(tree) if isinstance(n, ast.stmt)]


class Mutator:
    def __init__(self):
        self.seeds = [data.decode("utf-8") for data in seed_sources().values()]
        self.spans = [statement_spans(text) for text in self.seeds]

    def build(self, raw: bytes) -> bytes:
        import atheris

        fdp = atheris.FuzzedDataProvider(raw)
        index = fdp.ConsumeIntInRange(0, len(self.seeds) - 1)
        lines = self.seeds[index].split("\n")
        for _ in range(fdp.ConsumeIntInRange(1, 4)):
            kind = fdp.ConsumeIntInRange(0, 5)
            at = fdp.ConsumeIntInRange(1, max(1, len(lines) - 1))  # line 0 is the header
            if kind == 0:  # an integer literal gets an edge value
                numbers = [(n, m) for n, line in enumerate(lines[1:], 1) for m in INTEGER.finditer(line)]
                if numbers:
                    n, match = numbers[fdp.ConsumeIntInRange(0, len(numbers) - 1)]
                    value = fdp.PickValueInList([0, 1, -1, 2, 3, 7, 64, 1000, 10**6, 10**12, 2**63,
                                                 fdp.ConsumeIntInRange(-100, 10_000)])
                    lines[n] = lines[n][:match.start()] + str(value) + lines[n][match.end():]
            elif kind == 1 and len(lines) > 2:
                del lines[at]
            elif kind == 2:
                lines.insert(fdp.ConsumeIntInRange(1, len(lines)), lines[at])
            elif kind == 3:  # splice a statement from another seed, re-indented to the target line
                other = fdp.ConsumeIntInRange(0, len(self.seeds) - 1)
                if self.spans[other]:
                    first, last = self.spans[other][fdp.ConsumeIntInRange(0, len(self.spans[other]) - 1)]
                    block = self.seeds[other].split("\n")[first:last + 1]
                    strip = len(block[0]) - len(block[0].lstrip(" "))
                    indent = " " * (len(lines[at]) - len(lines[at].lstrip(" ")))
                    lines[at:at] = [indent + line[strip:] if line[:strip].strip() == "" else line
                                    for line in block]
            elif kind == 4:
                lines[at] = fdp.PickValueInList(["", " ", "\t", "        "]) + lines[at].lstrip(" ")
            else:  # a few arbitrary characters into a line
                text = fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(1, 8))
                cut = fdp.ConsumeIntInRange(0, len(lines[at]))
                lines[at] = lines[at][:cut] + text + lines[at][cut:]
        return "\n".join(lines).encode("utf-8", "surrogatepass")


# ---- child: the libFuzzer process ------------------------------------------------------------

def child(findings: Path, structured: bool, libfuzzer_args: list[str]) -> None:
    import atheris

    with atheris.instrument_imports(include=["staticflops"]):
        import staticflops.api  # noqa: F401  (instrumented for coverage)
        import staticflops.frontend.keras_model  # noqa: F401  (imported lazily by api)
        import staticflops.report.markdown  # noqa: F401
        import staticflops.report.text  # noqa: F401
    mutator = Mutator() if structured else None

    def test_one_input(raw: bytes) -> None:
        data = mutator.build(raw) if mutator else raw
        try:
            analyse_once(data)
        except Exception as error:  # the oracle: anything reaching here is a finding
            record(findings, data, error)

    atheris.Setup([sys.argv[0], *libfuzzer_args], test_one_input)
    atheris.Fuzz()


# ---- driver ----------------------------------------------------------------------------------

STATS = re.compile(r"#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+).*?exec/s: (\d+)")
DONE = re.compile(r"Done (\d+) runs in (\d+) second")


def drive(args) -> int:
    work = Path(args.work)
    corpus, findings = work / "corpus", work / "findings"
    seed_corpus(corpus)
    findings.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + args.time
    runs, executions, seconds, last = 0, 0, 0.0, None
    while (remaining := int(deadline - time.monotonic())) > 5:
        runs += 1
        command = [sys.executable, __file__, "--child", "--work", str(work)] + (["--structured"] if args.structured
                                                                               else []) + [
            "--", str(corpus), f"-max_total_time={remaining}", f"-timeout={args.timeout}",
            f"-rss_limit_mb={args.rss_limit_mb}", f"-max_len={args.max_len}",
            f"-artifact_prefix={findings}/", "-print_final_stats=1"]
        started = time.monotonic()
        run_executions = 0
        with subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                              errors="replace") as process:
            for line in process.stderr:
                if args.verbose or not line.startswith("#"):
                    sys.stderr.write(line)
                if match := STATS.search(line):
                    last, run_executions = match.groups(), int(match.group(1))
                if match := DONE.search(line):
                    run_executions = int(match.group(1))
        executions += run_executions
        seconds += time.monotonic() - started
        print(f"run {runs}: exit {process.returncode}, {run_executions} executions", file=sys.stderr)
    found = sorted(p.name for p in findings.iterdir() if p.is_file() and not p.name.endswith(".txt"))
    print("\n==== atheris summary ====")
    print(f"mode: {'structured' if args.structured else 'bytes'}; runs: {runs}; time: {seconds:.0f} s")
    print(f"executions: {executions}; exec/s: {executions / max(seconds, 1):.1f}")
    if last:
        print(f"coverage (last run): cov {last[2]} edges, ft {last[3]} features, corpus {last[4]} inputs/{last[5]}")
    print(f"corpus size: {len(list(corpus.iterdir()))} files in {corpus}")
    print(f"findings: {len(found)} in {findings}")
    for name in found:
        print(f"  {name}")
    return 1 if found else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", default="/tmp/staticflops-fuzz", help="corpus and findings go here (not the repo)")
    parser.add_argument("--time", type=int, default=600, help="total seconds of fuzzing")
    parser.add_argument("--timeout", type=int, default=20, help="seconds one input may take (a hang)")
    parser.add_argument("--rss-limit-mb", type=int, default=3072, help="memory blow-up threshold")
    parser.add_argument("--max-len", type=int, default=16384, help="largest input in bytes")
    parser.add_argument("--structured", action="store_true", help="mutate seeds via FuzzedDataProvider")
    parser.add_argument("--verbose", action="store_true", help="show libFuzzer's progress lines")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--replay", nargs="+", metavar="FILE", help="run saved inputs once, no fuzzing")
    args, rest = parser.parse_known_args()
    rest = [a for a in rest if a != "--"]
    if args.replay:
        for name in args.replay:
            try:
                print(name, analyse_once(Path(name).read_bytes()))
            except Exception:
                print(name, "FINDING")
                traceback.print_exc()
        return 0
    if args.child:
        child(Path(args.work) / "findings", args.structured, rest)
        return 0
    return drive(args)


if __name__ == "__main__":
    sys.exit(main())
