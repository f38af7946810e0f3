"""staticflops: FLOPs, MACs, parameters and shapes of a model, read from its source.

The analysed code is never imported, executed or ``eval``-ed.
"""

from staticflops.diagnostics import AnalysisError, UsageError
from staticflops.version import __version__

__all__ = ["AnalysisError", "Report", "UsageError", "analyze", "compare", "__version__"]


def __getattr__(name: str):
    # Imported on first use, so `staticflops --help` does not pay for libcst and pydantic.
    if name in ("analyze", "compare"):
        from staticflops import api
        return getattr(api, name)
    if name == "Report":
        from staticflops.report import Report
        return Report
    raise AttributeError(name)
