"""Every kind of the catalogue by name (the family modules' tables, merged; no duplicates)."""

from __future__ import annotations

from staticflops.kinds import elementwise, linalg, movement, search, sequence
from staticflops.kinds.record import catalogue

FAMILIES = (elementwise, linalg, search, sequence, movement)
KINDS = catalogue(*[kind for family in FAMILIES for kind in family.KINDS.values()])
