"""The package's version, in a module of its own so that any stage can read it without
importing the root package (which would make every stage depend on all of them)."""

__version__ = "0.1.0"  # keep equal to pyproject.toml's `version` (tests/test_packaging.py)
