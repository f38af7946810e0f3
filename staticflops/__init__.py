"""staticflops: FLOPs, MACs, parameters and shapes of a model, read from its source.

The analysed code is never imported, executed or ``eval``-ed.
"""

from staticflops.api import analyze
from staticflops.diagnostics import AnalysisError, UsageError
from staticflops.report import Report

__all__ = ["AnalysisError", "Report", "UsageError", "analyze"]
__version__ = "0.1.0"
