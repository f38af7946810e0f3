"""The ``staticflops`` command: a thin layer over :func:`staticflops.analyze`.

Exit status: 0 analysed (even with unknowns, which are listed); 1 the model could not be
analysed, or its input is wrong (--input, --kwargs, a rule or config file, a limit), or a
budget stopped the analysis (the partial report is printed): one located line on stderr;
2 the command line itself is wrong (unknown option, missing argument: click's errors);
3 internal error (a bug: please report it; ``--debug`` shows the traceback).
"""

from __future__ import annotations

import contextlib
import sys
from enum import Enum
from typing import Annotated, Optional

import typer

# Plain help and usage errors: typer's rich formatting imports rich's tables and markdown
# (~0.1 s, a third of `staticflops --help`); only our report tables need rich.
_PLAIN = None

app = typer.Typer(add_completion=True, no_args_is_help=True, rich_markup_mode=_PLAIN,
                  help="FLOPs, MACs, parameters and shapes of a model, read from its source without running it.")


class Format(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


class ReportFormat(str, Enum):
    """``analyze`` of one file: also a self-contained page and a spreadsheet."""
    table = "table"
    json = "json"
    markdown = "markdown"
    html = "html"
    csv = "csv"


class CheckFormat(str, Enum):
    """``check``: also GitHub Actions annotations."""
    table = "table"
    json = "json"
    markdown = "markdown"
    github = "github"


Debug = Annotated[bool, typer.Option("--debug", help="On an internal error, show the traceback.")]
# Options `check` and `diff` share.
ConfigFile = Annotated[Optional[str], typer.Option("--config", "-c", help="pyproject.toml or staticflops.yaml (default: the nearest one at or above the working directory).")]
Exact = Annotated[bool, typer.Option("--exact", help="Raw integers instead of 8.18 GFLOPs.")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Analyse again even when nothing changed.")]
Jobs = Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Parallel processes (default: CPU count).")]

# The interpreter's bounds (names and defaults: staticflops/limits.py): one --max-* flag each.
_LIMIT_HELP = {
    "max_steps": "Interpreter evaluation steps",
    "max_loop_iterations": "Loop iterations in all",
    "max_depth": "Nested calls",
    "max_container": "Items in one list, tuple or string built by the model's code",
    "max_expr_terms": "Terms of one symbolic expression, e.g. (B + S) ** 200",
    "max_int_bits": "Bits of one integer, e.g. 2 ** 10**9",
    "max_ops": "Ops traced in the forward pass (each is kept, priced and reported)",
    "max_import_depth": "Project files importing each other in a chain",
    "max_file_bytes": "Size of one analysed file in bytes",
    "max_expr_depth": "Nesting of one expression (operators, calls, attributes, conditionals), checked before parsing",
    "max_tokens": "Tokens of one analysed file, checked before parsing",
    "max_value_bytes": "Bytes of strings, lists, dicts and sets the model's code builds, in all",
    "max_seconds": "Wall time of one analysis in seconds",
    "max_modules": "Modules (layers) constructed",
}


def with_limits(command):
    """Give a command every ``--max-*`` budget flag; it receives them as one ``limits`` dict
    (None = the default).  One definition for all commands instead of a copy per command."""
    import functools
    import inspect

    from staticflops.limits import DEFAULT_LIMITS

    signature = inspect.signature(command, eval_str=True)
    flags = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[
        Optional[int], typer.Option("--" + name.replace("_", "-"), min=1,
                                    help=f"{text} (default {DEFAULT_LIMITS[name]:,}).")])
        for name, text in _LIMIT_HELP.items()]
    kept = [p for p in signature.parameters.values() if p.name != "limits"]

    @functools.wraps(command)
    def run(*args, **kwargs):
        return command(*args, limits={name: kwargs.pop(name) for name in _LIMIT_HELP}, **kwargs)

    run.__signature__ = signature.replace(parameters=kept + flags)
    run.__annotations__ = {}  # typer reads the signature above
    return run


def _print_version(asked: bool) -> None:
    if asked:
        from staticflops.version import __version__
        sys.stdout.write(f"staticflops {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """Keep subcommands explicit (``staticflops analyze ...``)."""


@app.command()
def schema() -> None:
    """Print the JSON schema of `analyze --format json` (the file ships in the package: staticflops/report/report.schema.json)."""
    from staticflops.report.schema import schema_text
    sys.stdout.write(schema_text())


@app.command()
@with_limits
def analyze(
    paths: Annotated[list[str], typer.Argument(help="Python file that defines the model. A folder, or several files: analyse every model file in them in parallel (results cached).", metavar="PATH")],
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Model class or builder function (default: the file's single top-level model class).")] = None,
    kwargs: Annotated[Optional[str], typer.Option("--kwargs", help="Constructor arguments as a JSON object.")] = None,
    inputs: Annotated[Optional[list[str]], typer.Option("--input", "-i", help="Shape of one forward argument: 1x3x224x224, B,3,224,224, Bx1024:int64; =V gives every element the value V (an attention mask of ones: 1x32:int64=1). Repeat per argument.")] = None,
    assume: Annotated[Optional[list[str]], typer.Option("--assume", help="Range of a size named in --input: T>=2, T<=4096 or 2<=T<=4096; the code's comparisons of it that the range decides are decided, and the totals say they hold in it. Repeatable.")] = None,
    keyword_inputs: Annotated[Optional[list[str]], typer.Option("--keyword-input", help="NAME=SHAPE: a tensor given to forward by keyword (decoder_input_ids=1x8:int64); a dotted NAME is a key of a dict argument (added_cond_kwargs.time_ids=1x6). Repeatable.", metavar="NAME=SHAPE")] = None,
    rules: Annotated[str, typer.Option("--rules", "-r", help="Rule set name or path to a YAML rule file.")] = "standard",
    output_format: Annotated[ReportFormat, typer.Option("--format", "-f", help="table, json, markdown, html (one self-contained page with charts) or csv (one row per layer); html and csv for one file.")] = ReportFormat.table,
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write the report to this file instead of the standard output.", metavar="FILE")] = None,
    depth: Annotated[Optional[int], typer.Option("--depth", help="Show layers down to this depth only (table/markdown/html).")] = None,
    training: Annotated[bool, typer.Option("--training", help="Add backward FLOPs (input and weight gradients) and training FLOPs per step.")] = False,
    freeze: Annotated[Optional[list[str]], typer.Option("--freeze", help="Module-path glob whose weights are frozen (no weight gradients); repeatable. Implies --training.")] = None,
    gradient_checkpointing: Annotated[bool, typer.Option("--gradient-checkpointing", help="Switch gradient checkpointing on with the model's own method (transformers' gradient_checkpointing_enable(), timm's set_grad_checkpointing()): backward runs the checkpointed forward again, counted in the training FLOPs. torch.utils.checkpoint calls in your code count without it. Implies --training.")] = False,
    past_tokens: Annotated[Optional[str], typer.Option("--past-tokens", help="Price one generation step: the new tokens (the --input 1x1:int64 of a decoder, or --keyword-input decoder_input_ids=1x1:int64 of an encoder-decoder) over a key/value cache (or a state-space model's state) of this many earlier tokens (2047, or a name such as P for a formula), which a first forward with use_cache=True fills, not counted. The report adds the cache's size.", metavar="N")] = None,
    steps: Annotated[Optional[int], typer.Option("--steps", min=1, help="Training steps: total training FLOPs = per step x steps. Implies --training.")] = None,
    hardware: Annotated[Optional[str], typer.Option("--hardware", help="Device from rules/hardware.yaml (h100, h200, a100, l4, cpu) for GPU-hours. Implies --training.")] = None,
    precision: Annotated[str, typer.Option("--precision", help="Precision whose peak throughput --hardware uses: fp64, fp32, tf32, bf16, fp16, fp8 (or float32, bfloat16, half...: the names --dtype takes).")] = "bf16",
    mfu: Annotated[Optional[float], typer.Option("--mfu", help="Model FLOPs utilisation, the fraction of peak reached (e.g. 0.4); needed with --hardware or --peak-tflops.")] = None,
    peak_tflops: Annotated[Optional[float], typer.Option("--peak-tflops", help="Peak throughput in TFLOP/s of a device not in rules/hardware.yaml, instead of --hardware (with --mfu) for GPU-hours. Implies --training.")] = None,
    batch: Annotated[Optional[int], typer.Option("--batch", help="Keras: size of the batch dimension Input(shape=...) leaves open (default: symbol B).")] = None,
    dtype: Annotated[str, typer.Option("--dtype", help="Element type for the memory figures: float32, bfloat16, float16, float64, float8, int8 (or fp32, bf16, half...: the names --precision takes).")] = "float32",
    exact: Annotated[bool, typer.Option("--exact", help="Table (and HTML): whole numbers with separators (12,614,656) instead of 12.61 M.")] = False,
    by_type_: Annotated[bool, typer.Option("--by-type", help="Table (and HTML): one row per layer or op type (summed), instead of one per layer.")] = False,
    expand: Annotated[bool, typer.Option("--expand", help="Table: every repeated block on its own rows, instead of one row `h.0-11 ×12` for identical numbered siblings.")] = False,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Folder mode: parallel processes (default: CPU count).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Analyse again even when nothing changed: in folder mode, and for one file (the same command again is otherwise answered from the results cache).")] = False,
    python: Annotated[Optional[str], typer.Option("--python", help="Interpreter of the environment whose site-packages third-party imports are read from (never run; default: staticflops' own).")] = None,
    source_path: Annotated[Optional[list[str]], typer.Option("--source-path", help="Folder searched for third-party packages before the environment; repeatable.")] = None,
    env: Annotated[Optional[list[str]], typer.Option("--env", help="KEY=VALUE in the analysed program's os.environ (empty otherwise, as on a clean CI machine); repeatable.")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when anything was not resolved (the totals are then lower bounds), after printing the report. `# staticflops: ignore[CODE]` on a line accepts that one.")] = False,
    debug: Debug = False,
    limits: Optional[dict] = None,
) -> None:
    """Analyse one model file (or every model file of a folder) and print its cost per layer and in total.
    A --max-* budget hit prints the partial report (marked PARTIAL, a lower bound) and exits 1."""
    from pathlib import Path

    # a Hugging Face hub-cache snapshot folder is one model (its config.json), not a folder of files
    if len(paths) > 1 or Path(paths[0]).is_dir() and not _is_model_config(paths[0]):
        options = {"model": model, "inputs": inputs or [], "kwargs": kwargs, "rules": rules}
        if assume:
            options["assume"] = list(assume)
        if keyword_inputs:
            options["keyword_inputs"] = list(keyword_inputs)
        if past_tokens is not None:
            options["past_tokens"] = past_tokens
        if training or freeze or steps is not None or hardware is not None or peak_tflops is not None \
                or gradient_checkpointing:
            options.update(training=True, freeze=freeze or [], steps=steps, hardware=hardware, precision=precision,
                           mfu=mfu)
            if peak_tflops is not None:
                options["peak_tflops"] = peak_tflops
            if gradient_checkpointing:
                options["gradient_checkpointing"] = True
        if batch is not None:
            options["batch"] = batch
        if dtype != "float32":
            options["dtype"] = dtype
        if any(value is not None for value in (limits or {}).values()):
            options["limits"] = limits
        if python is not None:
            options["python"] = python
        if source_path:
            options["source_path"] = list(source_path)
        if env:
            options["env"] = list(env)
        if output_format in (ReportFormat.html, ReportFormat.csv) or output is not None:
            option = "--output" if output is not None else f"--format {output_format.value}"
            _error_line(f"staticflops: error: {option} is for one file, not a folder")
            raise typer.Exit(2)
        _analyze_folder(paths, options, Format(output_format.value), jobs, not no_cache, strict)
        return
    path = paths[0]
    if output is not None and Path(output).resolve() == Path(path).resolve():
        _error_line(f"staticflops: error: --output {output} is the model file itself")
        raise typer.Exit(2)
    options = dict(model=model, inputs=inputs or [], kwargs=kwargs, rules=rules, training=training,
                   freeze=freeze or [], steps=steps, hardware=hardware, precision=precision, mfu=mfu, batch=batch,
                   dtype=dtype, limits=limits, python=python, source_path=source_path or [], env=env,
                   peak_tflops=peak_tflops, assume=assume or [])
    if keyword_inputs:  # only when given: the kept reports of commands without it keep their keys
        options["keyword_inputs"] = list(keyword_inputs)
    if gradient_checkpointing:  # likewise
        options["gradient_checkpointing"] = True
    if past_tokens is not None:  # likewise
        options["past_tokens"] = past_tokens
    # The console script keeps the report, and what this command prints, for a later run with
    # nothing changed (answers.py); not with --python: that environment's folders are found by
    # globbing, which the record cannot replay
    keep = _ARGV is not None and _ARGV[:1] == ["analyze"] and not no_cache and python is None
    report, depends = _cached_report(path, options) if keep else (None, None)
    if report is None:
        from staticflops.api import analyze as run

        with _logging_reads(keep) as logged:
            report = _guarded(lambda: run(path, **options), debug, path)
        depends = _kept_report(path, options, logged, report) if keep else None
    if depends is None or output is not None:
        _print_report(report, path, output_format, output, depth, exact, by_type_, expand, strict, debug)
        return
    global _STDERR
    stdout, real = _Tee(sys.stdout), sys.stdout
    sys.stdout, _STDERR = stdout, []
    status = None  # kept: printed in full (0), or --strict's verdict on the unknowns (1)
    try:
        _print_report(report, path, output_format, output, depth, exact, by_type_, expand, strict, debug)
        status = 0
    except _Unresolved:
        status = 1
        raise
    finally:
        sys.stdout, errors, _STDERR = real, _STDERR, None
        if status is not None:
            from staticflops.answers import write_answer

            _quietly(lambda: write_answer(_ARGV[1:], path, depends, "".join(stdout.parts), "".join(errors), status))


def _is_model_config(path: str) -> bool:
    from staticflops.api import is_model_config  # only for a folder: a kept report needs no analyser

    return is_model_config(path)


class _Unresolved(typer.Exit):
    """--strict with unknowns: the report was printed and the run fails (exit 1)."""


@contextlib.contextmanager
def _logging_reads(wanted: bool):
    """What the analysis finds on disk (files.ReadLog) and the folders its third-party imports
    search, for the results cache (answers.py); None when not ``wanted``."""
    if not wanted:
        yield None
        return
    from staticflops.api import recording_reads
    from staticflops.files import logging_reads

    with logging_reads() as log, recording_reads() as library:
        yield log, library


def _cached_report(path: str, options: dict) -> tuple:
    """(report, what it depends on) from the results cache, or (None, None)."""
    from staticflops.answers import cached_report
    from staticflops.report import Report

    try:
        found = cached_report(path, {"path": path, **options})
        return (Report.model_validate(found[0]), found[1]) if found is not None else (None, None)
    except Exception:  # noqa: BLE001  (pydantic's ValidationError...: any doubt, the analysis decides)
        return None, None


def _kept_report(path: str, options: dict, logged, report) -> dict | None:
    """Store a complete report in the results cache; what it depends on (None: not kept)."""
    from staticflops.answers import dependencies, keep_report

    depends = dependencies(logged[0], logged[1].folders)
    if depends is None or report.partial:  # a partial report is analysed again next time
        return None
    _quietly(lambda: keep_report(path, {"path": path, **options}, depends, report.model_dump(mode="json")))
    return depends


def _quietly(store) -> None:
    try:
        store()
    except (OSError, ValueError, TypeError):
        pass  # the results cache only saves time


def _print_report(report, path: str, output_format, output, depth, exact, by_type_, expand, strict, debug) -> None:
    def write(out) -> None:
        if output_format is ReportFormat.json:
            out.write(report.to_json() + "\n")
        elif output_format is ReportFormat.markdown:
            from staticflops.report.markdown import render_markdown
            out.write(render_markdown(report, depth))
        elif output_format is ReportFormat.html:
            from staticflops.report.html_page import render_html
            out.write(render_html(report, depth, exact=exact, by_type=by_type_))
        elif output_format is ReportFormat.csv:
            from staticflops.report.csv_rows import render_csv
            out.write(render_csv(report))
        else:
            from staticflops.report.text import render_table
            render_table(report, _console(out), depth, exact, by_type_, expand)

    def show() -> None:
        if output is None:
            write(sys.stdout)
            return
        with open(output, "w", encoding="utf-8", newline="") as out:  # newline="": CSV's CRLF as written
            write(out)

    _rendered(show, debug, path)
    if report.partial:  # the figures are printed, marked PARTIAL; the run still failed
        stop = report.stopped
        _error_line(f"{stop.location or path}: error: {stop.message}; the report above is partial (a lower bound)")
        raise typer.Exit(1)
    if strict and report.unknown:
        first = report.unknown[0]
        _error_line(f"{_shown(first.location)}: error: {len(report.unknown)} unresolved, the totals are lower bounds "
                    f"(--strict); first: {_shown(first.what)} [{_shown(first.code)}]")
        raise _Unresolved(1)


def _analyze_folder(paths: list[str], options: dict, output_format: Format, jobs: int | None, use_cache: bool,
                    strict: bool = False) -> None:
    import json

    from staticflops.project.folder import analyse_files, model_files
    from staticflops.report.folder import render_folder_markdown, render_folder_table

    files = _guarded(lambda: model_files(paths))
    if not files:
        _error_line(f"staticflops: error: no model file (importing torch, keras or tensorflow) in {' '.join(paths)}")
        raise typer.Exit(1)
    from staticflops.cli.progress import folder_progress

    with folder_progress(len(files)) as advance:  # on stderr, only when it is a terminal
        data = analyse_files(files, options, jobs, use_cache, progress=advance).to_dict()
    from staticflops.report.schema import contract_dict

    for entry in data["files"]:
        if "report" in entry:  # the same JSON as `analyze FILE --format json` (training fields only with --training)
            contract_dict(entry["report"])
    def show() -> None:
        if output_format is Format.json:
            # Compact: Python's C encoder; indenting hundreds of reports took most of a warm run.
            sys.stdout.write(json.dumps(data, separators=(",", ":")) + "\n")
        elif output_format is Format.markdown:
            sys.stdout.write(render_folder_markdown(data))
        else:
            render_folder_table(data, _console())

    _rendered(show)
    if data["summary"]["errors"]:
        raise typer.Exit(1)
    unresolved = [entry["path"] for entry in data["files"] if entry.get("report", {}).get("unknown")]
    if strict and unresolved:
        _error_line(f"{_shown(unresolved[0])}: error: {len(unresolved)} file(s) with unresolved parts, the totals are "
                    "lower bounds (--strict)")
        raise typer.Exit(1)


@app.command()
@with_limits
def check(
    paths: Annotated[Optional[list[str]], typer.Argument(help="Check only the models that read these files (what pre-commit passes; after `--`, an argument that looks like an option is a file name too). Default: every configured model.")] = None,
    config: ConfigFile = None,
    output_format: Annotated[CheckFormat, typer.Option("--format", "-f", help="table, json, markdown or github (GitHub Actions annotations at path:line).")] = CheckFormat.table,
    exact: Exact = False,
    no_cache: NoCache = False,
    jobs: Jobs = None,
    debug: Debug = False,
    limits: Optional[dict] = None,
) -> None:
    """Check every configured model against its budget: exit 1 on any overrun."""
    from staticflops.project import run_check
    from staticflops.report.review_markdown import render_check_markdown
    from staticflops.report.review_text import render_check

    trace: dict = {}
    result = _guarded(lambda: run_check(paths or [], config, not no_cache, jobs, limits, trace), debug,
                      config or "the configuration")
    def emit(shown) -> None:
        if output_format is CheckFormat.github:
            from staticflops.report.github import render_check_annotations
            _rendered(lambda: sys.stdout.write(render_check_annotations(shown, exact)))
        else:
            _emit(shown, Format(output_format.value), render_check, render_check_markdown, exact)

    if not result.models:
        typer.echo("staticflops check: no configured model reads the given files")
    else:
        emit(result)
    if trace and not any(value is not None for value in (limits or {}).values()):
        _record_verdict(result, trace, output_format.value, exact, emit)
    if not result.passed:
        raise typer.Exit(1)


def _record_verdict(result, trace: dict, format_name: str, exact: bool, emit) -> None:
    """Leave the fast path (verdicts.py) a record of this check: what it depends on and, when
    every model's verdict comes from the cache alone (no analysis error, no overrun, whose
    explanation reads git history), the text a cached run prints with these settings."""
    from staticflops.verdicts import output_setting, write_record

    rendering = None
    models = trace["models"]
    if result.models and all(_recordable(check) and "sources" in models.get(check.name, {}) for check in result.models):
        cached = result.model_copy(update={"models": [m.model_copy(update={"cached": True}) for m in result.models]})
        captured = _Captured(sys.stdout)
        real, sys.stdout = sys.stdout, captured
        try:
            emit(cached)
        finally:
            sys.stdout = real
        rendering = {"setting": output_setting(format_name, exact),
                     "selected": sorted(check.name for check in result.models), "stdout": "".join(captured.parts),
                     "status": 0 if result.passed else 1}
    try:
        write_record(trace, rendering)
    except (OSError, ValueError, TypeError):
        pass  # the record only saves time


def _recordable(check) -> bool:
    if check.status == "pass":
        return True
    return check.status == "fail" and not any(line.status == "fail" and isinstance(line.measured, int)
                                              for line in check.budgets)


class _Captured:
    """Collects what a renderer writes, as the real stdout would see it (its terminal-ness
    and encoding decide rich's layout and colours)."""

    def __init__(self, real):
        self.real, self.parts = real, []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return self.real.isatty()

    def fileno(self) -> int:
        return self.real.fileno()

    @property
    def encoding(self):
        return getattr(self.real, "encoding", "utf-8")


class _Tee(_Captured):
    """Writes through to the real stdout and collects it too (analyze's record)."""

    def write(self, text: str) -> int:
        self.real.write(text)
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        self.real.flush()


@app.command()
@with_limits
def diff(
    paths: Annotated[Optional[list[str]], typer.Argument(help="Compare only the models that read these files. Default: every configured model.")] = None,
    base: Annotated[str, typer.Option("--base", "-b", help="Git revision to compare the working tree with (origin/main, HEAD~1, a commit).")] = "HEAD",
    config: ConfigFile = None,
    output_format: Annotated[Format, typer.Option("--format", "-f", help="table, json or markdown (a pull-request comment).")] = Format.table,
    exact: Exact = False,
    no_cache: NoCache = False,
    jobs: Jobs = None,
    debug: Debug = False,
    limits: Optional[dict] = None,
) -> None:
    """Each configured model at a git revision versus the working tree: totals and changed layers."""
    from staticflops.project import run_diff
    from staticflops.report.review_markdown import render_diff_markdown
    from staticflops.report.review_text import render_diff

    result = _guarded(lambda: run_diff(base, paths or [], config, not no_cache, jobs, limits), debug, config or "the configuration")
    _emit(result, output_format, render_diff, render_diff_markdown, exact)


@app.command()
@with_limits
def compare(
    path: Annotated[str, typer.Argument(help="Python file that defines the model, or a Hugging Face config.json.")],
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Model class or builder function.")] = None,
    kwargs: Annotated[Optional[str], typer.Option("--kwargs", help="Constructor arguments as a JSON object.")] = None,
    inputs: Annotated[Optional[list[str]], typer.Option("--input", "-i", help="Shape of one forward argument; repeat per argument.")] = None,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", "-r", help="Rule sets to compare (default: every built-in one). Repeatable.")] = None,
    top: Annotated[int, typer.Option("--top", help="How many disagreeing layers to list.")] = 5,
    output_format: Annotated[Format, typer.Option("--format", "-f", help="table, json or markdown.")] = Format.table,
    python: Annotated[Optional[str], typer.Option("--python", help="Interpreter of the environment whose site-packages third-party imports are read from (never run).")] = None,
    source_path: Annotated[Optional[list[str]], typer.Option("--source-path", help="Folder searched for third-party packages first; repeatable.")] = None,
    batch: Annotated[Optional[int], typer.Option("--batch", help="Keras: size of the batch dimension Input(shape=...) leaves open (default: symbol B).")] = None,
    env: Annotated[Optional[list[str]], typer.Option("--env", help="KEY=VALUE in the analysed program's os.environ; repeatable.")] = None,
    assume: Annotated[Optional[list[str]], typer.Option("--assume", help="Range of a size named in --input (T>=2, 2<=T<=4096), as for analyze. Repeatable.")] = None,
    keyword_inputs: Annotated[Optional[list[str]], typer.Option("--keyword-input", help="NAME=SHAPE: a tensor given to forward by keyword (decoder_input_ids=1x8:int64); a dotted NAME is a key of a dict argument (added_cond_kwargs.time_ids=1x6). Repeatable.", metavar="NAME=SHAPE")] = None,
    debug: Debug = False,
    limits: Optional[dict] = None,
) -> None:
    """One row per counting convention (FLOPs, MACs, params, what it counts), then the layers
    where the conventions disagree most."""
    from staticflops.api import compare as run

    comparison = _guarded(lambda: run(path, model=model, inputs=inputs or [], kwargs=kwargs, rules=rules, top=top,
                                      limits=limits, python=python, source_path=source_path or (), batch=batch,
                                      env=env, assume=assume or (), keyword_inputs=keyword_inputs or ()), debug, path)
    def show() -> None:
        if output_format is Format.json:
            # keyword_inputs only when given: the JSON of a comparison without them is unchanged
            sys.stdout.write(comparison.model_dump_json(indent=2, exclude=None if comparison.keyword_inputs
                                                        else {"keyword_inputs"}) + "\n")
        elif output_format is Format.markdown:
            from staticflops.report.compare_text import render_compare_markdown
            sys.stdout.write(render_compare_markdown(comparison))
        else:
            from staticflops.report.compare_text import render_compare_table
            render_compare_table(comparison, _console())

    _rendered(show, debug, path)


rules_app = typer.Typer(help="List, show and check rule sets.", no_args_is_help=True, rich_markup_mode=_PLAIN)
app.add_typer(rules_app, name="rules")


@rules_app.command("list")
def rules_list() -> None:
    """The built-in rule sets, with what each one counts."""
    from staticflops.api import rule_sets
    for ruleset in _guarded(rule_sets):
        typer.echo(f"{ruleset.name:12} {ruleset.headline:5}  {ruleset.convention}")


@rules_app.command("show")
def rules_show(name: Annotated[str, typer.Argument(help="Rule set name or YAML file.")]) -> None:
    """Every rule of a rule set (after `extends`), with its formulas and notes."""
    from staticflops.api import describe_rules
    text = _guarded(lambda: describe_rules(name))
    typer.echo("".join(_shown(line) + "\n" for line in text.splitlines()), nl=False)  # a rule file may be hostile


@rules_app.command("validate")
def rules_validate(path: Annotated[str, typer.Argument(help="YAML rule file to check.")]) -> None:
    """Check a rule file (schema, formulas, extends); errors carry file:line:col."""
    from staticflops.api import load_rules
    ruleset = _guarded(lambda: load_rules(path))
    typer.echo(_shown(f"{path}: ok: rule set `{ruleset.name}`, {len(ruleset.rules)} rules, "
                      f"{len(ruleset.classes)} class rules"))


def _guarded(action, debug: bool = False, subject: str | None = None, let_through: tuple = ()):
    """Run an API call; an error about the input (UsageError: --input, --kwargs, rule, config
    or limit values) or the model (AnalysisError) is one clear line and exit 1 (issue 8); exit 2
    stays for click's own command-line errors.  Anything else is our bug: a short request for
    a report, exit 3 (traceback with --debug).  ``let_through``: exceptions handled by the
    caller (``main`` reports an output that cannot be written)."""
    from staticflops.version import __version__
    from staticflops.diagnostics import AnalysisError, UsageError
    _settle_heap()
    try:
        return action()
    except let_through:
        raise
    except UsageError as error:
        _error_line(f"staticflops: error: {error}")
        raise typer.Exit(1) from None
    except AnalysisError as error:
        _error_line(f"{error.location}: error: {error.message}" if error.location else f"staticflops: error: {error.message}")
        if error.reached_from is not None:  # the failure is in a library: where the user's code called it
            _error_line(f"{error.reached_from}: note: the library code above was called from here")
        raise typer.Exit(1) from None
    except (typer.Exit, KeyboardInterrupt):
        raise
    except Exception as error:  # noqa: BLE001 - the last line of defence against a traceback
        if debug:
            raise
        where = f" while analysing {subject}" if subject else ""
        _error_line(f"staticflops: internal error{where}: {type(error).__name__}: {error}. This is a bug in "
                    f"staticflops {__version__}; please report it with the file name and version "
                    f"(--debug shows the traceback).")
        raise typer.Exit(3) from None


def _rendered(show, debug: bool = False, subject: str | None = None) -> None:
    """Print a result: a renderer's bug is exit 3, never a traceback; an output that cannot be
    written is ``main``'s one-line error."""
    _guarded(show, debug, subject, let_through=(OSError,))


def _shown(text: str) -> str:
    """A line that quotes the analysed project (names, paths, rule text): control characters
    as escapes, cut at a documented length (``report/escape.py``), so it cannot drive the
    terminal or forge lines of a CI log."""
    from staticflops.report.escape import MAX_MESSAGE, visible
    return visible(text, MAX_MESSAGE)


def _error_line(text: str) -> None:
    typer.echo(_shown(text), err=True)
    if _STDERR is not None:
        _STDERR.append(_shown(text) + "\n")


_STDERR: list | None = None  # what _error_line printed, while analyze's answer is being kept


def _emit(result, output_format: Format, render_table, render_markdown, exact: bool) -> None:
    def show() -> None:
        if output_format is Format.json:
            sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        elif output_format is Format.markdown:
            sys.stdout.write(render_markdown(result, exact))
        else:
            render_table(result, _console(), exact)

    _rendered(show)


def _console(stream=None):
    """No highlighting (a 200,000-character rule description took 256 s of regular
    expressions) and no emoji codes: text from the analysed project is shown as written."""
    from rich.console import Console
    import os

    from staticflops.report.lines import TrimmedLines

    out = TrimmedLines(stream or sys.stdout)
    console = Console(file=out, highlight=False, emoji=False)  # rich takes the width from COLUMNS, else the terminal
    if console.is_terminal or os.environ.get("COLUMNS", "").strip().isdigit():
        return console
    return Console(file=out, width=PIPED_WIDTH, highlight=False, emoji=False)


PIPED_WIDTH = 160  # piped without COLUMNS: no terminal to fit, and rich's 80 would drop columns


def main() -> None:
    """The console script.  Once the output is flushed the process ends with ``os._exit``:
    an ordinary exit tears down every module of libcst and pydantic and garbage-collects the
    syntax trees, which took 0.15-0.3 s of a 0.9 s analysis (benchmarks/README.md)."""
    import gc
    import os

    global _ENDS_AT_EXIT, _ARGV
    _ENDS_AT_EXIT = True
    _ARGV = sys.argv[1:]  # what click parses: the key of analyze's record (answers.py)
    gc.disable()  # until the imports are done: see _settle_heap
    # pydantic looks for plugins (scanning every installed distribution's entry points, 2-5 ms
    # and more in a large environment) before its first validator; none has any business with
    # this process's internal models.  A user's own setting is kept.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        app()
        status = 0
    except SystemExit as done:
        status = _exit_status(done.code)
    except BrokenPipeError:  # `| head` closed the pipe: the rest was not wanted
        status = 0
    except OSError as error:  # writing the report failed (the API's own errors never get here)
        sys.stderr.write(f"staticflops: error: cannot write the output: {error.strerror or error}\n")
        status = 1
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except (OSError, ValueError):  # a full disk: the output is incomplete
        status = status or 1
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(status)


_ENDS_AT_EXIT = False  # set by ``main``: the process ends with os._exit once the output is written
_ARGV: list | None = None  # set by ``main``: the command line, when it is the one being run


def _settle_heap() -> None:
    """Console script only, before each step (the analysis, then printing its result): what
    exists so far lives until exit, so freeze it out of the collector's sight.  Before the
    analysis that is the modules imported (libcst's node classes, pydantic's schemas: else the
    first full pass rescans them all, 0.04 s of a 0.6 s run); before the output it is the
    analysis's values and the report, which grow with the model: the first collection of the
    middle generation while printing a 96-block GPT's report rescanned them, 22 ms, and
    freed nothing the process would use."""
    import gc

    if _ENDS_AT_EXIT:
        gc.freeze()
        gc.enable()  # ``main`` turned it off until the imports are done


def _exit_status(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")  # sys.exit("message") convention
    return 1
