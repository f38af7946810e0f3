"""Frontends: read model source, trace its ops.  The kind catalogue enters every kind's shape
rule in the shapes stage's registry on import: done here, before any frontend traces an op."""

from staticflops.kinds import catalogue  # noqa: F401
