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
    batch: Annotated[Optional[int], typer.Option("--batch", help="Keras: size of the batch dimension Input(shape=...) leaves open (default: symbol B).")] = None,
) -> None:
    """Analyse one model file and print its cost per layer and in total."""
    from staticflops.api import analyze as run
    from staticflops.diagnostics import AnalysisError, UsageError

    try:
        report = run(path, model=model, inputs=inputs or [], kwargs=kwargs, rules=rules, batch=batch)
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


def main() -> None:
    app()
