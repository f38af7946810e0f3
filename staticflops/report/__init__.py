"""Report stage: the report model (JSON contract) and its renderings."""

from staticflops.report.build import build_report
from staticflops.report.schema import SCHEMA_VERSION, Report

__all__ = ["SCHEMA_VERSION", "Report", "build_report"]
