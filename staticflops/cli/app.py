"""The ``staticflops`` command: a thin layer over :func:`staticflops.analyze`.

Exit status: 0 analysed (even with unknowns, which are listed), 1 the model could not be
analysed (message on stderr), 2 usage error.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="FLOPs, MACs, parameters and shapes of a model, read from its source without running it.")


class Format(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


@app.callback()
def _root() -> None:
    """Keep subcommands explicit (``staticflops analyze ...``)."""


@app.command()
def analyze(
    path: Annotated[str, typer.Argument(help="Python file that defines the model.")],
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Model class or builder function (default: the file's single top-level model class).")] = None,
    kwargs: Annotated[Optional[str], typer.Option("--kwargs", help="Constructor arguments as a JSON object.")] = None,
    inputs: Annotated[Optional[list[str]], typer.Option("--input", "-i", help="Shape of one forward argument: 1x3x224x224, B,3,224,224, Bx1024:int64. Repeat per argument.")] = None,
    rules: Annotated[str, typer.Option("--rules", "-r", help="Rule set name or path to a YAML rule file.")] = "standard",
    output_format: Annotated[Format, typer.Option("--format", "-f", help="table, json or markdown.")] = Format.table,
    depth: Annotated[Optional[int], typer.Option("--depth", help="Show layers down to this depth only (table/markdown).")] = None,
) -> None:
    """Analyse one model file and print its cost per layer and in total."""
    from staticflops.api import analyze as run
    from staticflops.diagnostics import AnalysisError, UsageError

    try:
        report = run(path, model=model, inputs=inputs or [], kwargs=kwargs, rules=rules)
    except UsageError as error:
        typer.echo(f"staticflops: error: {error}", err=True)
        raise typer.Exit(2) from None
    except AnalysisError as error:
        typer.echo(f"{error.location}: error: {error.message}" if error.location else f"staticflops: error: {error.message}", err=True)
        raise typer.Exit(1) from None
    if output_format is Format.json:
        sys.stdout.write(report.model_dump_json(indent=2) + "\n")
    elif output_format is Format.markdown:
        from staticflops.report.markdown import render_markdown
        sys.stdout.write(render_markdown(report, depth))
    else:
        from rich.console import Console
        from staticflops.report.text import render_table
        console = Console()
        if not console.is_terminal:
            console = Console(width=140)  # piped or captured: no terminal width to fit
        render_table(report, console, depth)


@app.command()
def compare(
    path: Annotated[str, typer.Argument(help="Python file that defines the model.")],
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Model class or builder function.")] = None,
    kwargs: Annotated[Optional[str], typer.Option("--kwargs", help="Constructor arguments as a JSON object.")] = None,
    inputs: Annotated[Optional[list[str]], typer.Option("--input", "-i", help="Shape of one forward argument; repeat per argument.")] = None,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", "-r", help="Rule sets to compare (default: every built-in one). Repeatable.")] = None,
    top: Annotated[int, typer.Option("--top", help="How many disagreeing layers to list.")] = 5,
    output_format: Annotated[Format, typer.Option("--format", "-f", help="table, json or markdown.")] = Format.table,
) -> None:
    """One row per counting convention (FLOPs, MACs, params, what it counts), then the layers
    where the conventions disagree most."""
    from staticflops.api import compare as run

    comparison = _guarded(lambda: run(path, model=model, inputs=inputs or [], kwargs=kwargs, rules=rules, top=top))
    if output_format is Format.json:
        sys.stdout.write(comparison.model_dump_json(indent=2) + "\n")
    elif output_format is Format.markdown:
        from staticflops.report.compare_text import render_compare_markdown
        sys.stdout.write(render_compare_markdown(comparison))
    else:
        from staticflops.report.compare_text import render_compare_table
        render_compare_table(comparison, _console())


rules_app = typer.Typer(help="List, show and check rule sets.", no_args_is_help=True)
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
    typer.echo(_guarded(lambda: describe_rules(name)), nl=False)


@rules_app.command("validate")
def rules_validate(path: Annotated[str, typer.Argument(help="YAML rule file to check.")]) -> None:
    """Check a rule file (schema, formulas, extends); errors carry file:line:col."""
    from staticflops.api import load_rules
    ruleset = _guarded(lambda: load_rules(path))
    typer.echo(f"{path}: ok: rule set `{ruleset.name}`, {len(ruleset.rules)} rules, {len(ruleset.classes)} class rules")


def _guarded(action):
    """Run an API call; usage errors exit 2, analysis errors exit 1, both as one clear line."""
    from staticflops.diagnostics import AnalysisError, UsageError
    try:
        return action()
    except UsageError as error:
        typer.echo(f"staticflops: error: {error}", err=True)
        raise typer.Exit(2) from None
    except AnalysisError as error:
        typer.echo(f"{error.location}: error: {error.message}" if error.location else f"staticflops: error: {error.message}", err=True)
        raise typer.Exit(1) from None


def _console():
    from rich.console import Console
    console = Console()
    return console if console.is_terminal else Console(width=160)


def main() -> None:
    app()
