"""Which framework a file is written for, from its top-level imports (no other parsing)."""

from __future__ import annotations

from staticflops.frontend import syntax as cst

from staticflops.frontend.source import SourceFile

KERAS_IMPORT_ROOTS = ("keras", "tensorflow", "tf_keras")


def uses_keras(source: SourceFile) -> bool:
    """True when the file imports keras/tensorflow and not torch (framework detection)."""
    roots = set()
    for statement in source.module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Import):
                roots.update(_root(alias.name) for alias in small.names)
            elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
                roots.add(_root(small.module))
    return bool(roots & set(KERAS_IMPORT_ROOTS)) and "torch" not in roots


def _root(node) -> str:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""
