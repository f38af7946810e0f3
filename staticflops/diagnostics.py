"""Where things are and what went wrong: the vocabulary every stage shares."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    path: str
    line: int
    col: int  # 1-based, as editors and compilers print it

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning" | "info"
    code: str
    location: Location | None
    message: str

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.severity}: {self.message} [{self.code}]"


class Unresolved(tuple):
    """An unknown: ``(location, what)``, a 2-tuple as the IR and its readers unpack it, with
    its ``code`` (``staticflops/codes.py``, SF4xx) alongside, so that adding the code changed
    no reader."""

    code: str

    def __new__(cls, location: Location, what: str, code: str = "SF400"):
        entry = super().__new__(cls, (location, what))
        entry.code = code
        return entry


def code_of(unknown) -> str:
    """An unknown's code; a plain ``(location, what)`` pair is the general SF400."""
    return getattr(unknown, "code", "SF400")


class AnalysisError(Exception):
    """A fatal, user-facing problem: the model cannot be analysed.

    Carries a location so the CLI can print ``path:line:col: message`` and exit 1.
    """

    # Where the analysed project's own code called into the library this error came from (the
    # innermost such call): a failure deep in transformers is then also located in the user's file.
    reached_from: Location | None = None

    def __init__(self, message: str, location: Location | None = None, code: str = "SF100"):
        super().__init__(message)
        self.message = message
        self.location = location
        self.code = code

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message


class BudgetExceeded(AnalysisError):
    """An interpreter budget (``frontend/budget.py``) was hit.  Front ends catch it and return
    what they built and traced so far, marked partial; ``building`` is the outermost module
    whose constructor was still running (None when the budget was hit elsewhere)."""

    def __init__(self, message: str, location: Location | None = None, code: str = "SF120"):
        super().__init__(message, location, code)
        self.building = None


class UsageError(Exception):
    """The caller's request is malformed (bad --input, bad --kwargs, a rule or config file
    that fails validation): the CLI prints one line and exits 1, like an analysis error."""


def reason(error: Exception) -> str:
    """An exception's message for ours, in words for users.  Python refuses to write an integer
    of over 4,300 digits, and says so in terms of its own settings."""
    text = str(error)
    if isinstance(error, ValueError) and "integer string conversion" in text:
        return "a number of over 4,300 digits"
    return text
