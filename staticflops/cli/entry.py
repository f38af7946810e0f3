"""The console script.  ``staticflops check`` first asks the record of the last check
(``staticflops/verdicts.py``) whether anything it depends on changed; when nothing did, it
prints that check's verdict again before libcst, pydantic, rich or typer is imported (a
pre-commit hook on a commit that touches no model costs a few hundredths of a second).
Everything else, and any doubt, goes to the full command line (``cli/app.py``)."""

from __future__ import annotations

import os
import sys


def main() -> None:
    arguments = sys.argv[1:]
    if arguments[:1] == ["check"]:
        from staticflops.verdicts import fast_check

        answer = fast_check(arguments[1:])
        if answer is not None:
            text, status = answer
            try:
                sys.stdout.write(text)
                sys.stdout.flush()
            except BrokenPipeError:  # `| head` closed the pipe: the rest was not wanted
                pass
            except (OSError, ValueError) as error:
                sys.stderr.write(f"staticflops: error: cannot write the output: {getattr(error, 'strerror', None) or error}\n")
                status = status or 1
            os._exit(status)  # as the full CLI: no interpreter teardown
    from staticflops.cli.app import main as full

    full()
