"""The console script.  ``staticflops check`` first asks the record of the last check
(``staticflops/verdicts.py``) whether anything it depends on changed; when nothing did, it
prints that check's verdict again before libcst, pydantic, rich or typer is imported (a
pre-commit hook on a commit that touches no model costs a few hundredths of a second).
``staticflops analyze FILE`` does the same with the record of the same command's last run
(``staticflops/answers.py``).  Everything else, and any doubt, goes to the full command line
(``cli/app.py``)."""

from __future__ import annotations

import os
import sys


def main() -> None:
    arguments = sys.argv[1:]
    answer = None
    if arguments[:1] == ["check"]:
        from staticflops.verdicts import fast_check

        answer = fast_check(arguments[1:])
        if answer is not None:
            answer = (answer[0], "", answer[1])
    elif arguments[:1] == ["analyze"]:
        from staticflops.answers import fast_analyze

        answer = fast_analyze(arguments[1:])
    if answer is not None:
        _replay(*answer)
    from staticflops.cli.app import main as full

    full()


def _replay(stdout: str, stderr: str, status: int) -> None:
    """Print a stored answer as the full command printed it, and end the process."""
    try:
        sys.stdout.write(stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head` closed the pipe: the rest was not wanted
        pass
    except (OSError, ValueError) as error:
        sys.stderr.write(f"staticflops: error: cannot write the output: {getattr(error, 'strerror', None) or error}\n")
        status = status or 1
    try:
        sys.stderr.write(stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(status)  # as the full CLI: no interpreter teardown
