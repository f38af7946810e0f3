"""Folder mode's progress bar: an 80-file run takes seconds, so a terminal shows how far it is.

Only on a terminal (stderr a TTY, or a console forced to be one): in a pipe or a CI log a bar
would be noise (or control codes), so nothing is written.  The bar is transient: it is gone
when the table prints.  File names come from the analysed project: shown as plain text
(``markup=False``) through ``escape.visible``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from staticflops.report.escape import visible

NAME_WIDTH = 40  # the last file's name, cut from the left: the bar keeps its place


@contextmanager
def folder_progress(total: int, console: Console | None = None) -> Iterator[Callable[[str], None]]:
    """A callback to call with each file's path when it is done; a no-op off a terminal."""
    console = console or Console(stderr=True, highlight=False, emoji=False)
    if not console.is_terminal:
        yield lambda path: None
        return
    columns = (TextColumn("Analysing"), BarColumn(), MofNCompleteColumn(), TextColumn("files"), TimeElapsedColumn(),
               TextColumn("{task.fields[last]}", markup=False))
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("files", total=total, last="")

        def advance(path: str) -> None:
            name = visible(path)
            bar.update(task, advance=1, last=name if len(name) <= NAME_WIDTH else "…" + name[-NAME_WIDTH + 1:])

        yield advance
