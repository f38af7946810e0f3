"""Reading every node of a libcst subtree without libcst's visitor.

``node.visit(CSTVisitor)`` rebuilds each node it passes (``_visit_and_replace_children``),
which made a whole-file name scan cost more than parsing.  Reading the dataclass fields
directly visits the same children (libcst's nodes are frozen dataclasses whose node-valued
fields are exactly their children) without building anything.
"""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache

import libcst as cst


@lru_cache(maxsize=None)
def _field_names(node_type: type) -> tuple:
    return tuple(f.name for f in fields(node_type))


@lru_cache(maxsize=None)
def _is_node_type(value_type: type) -> bool:
    # ``isinstance(x, cst.CSTNode)`` goes through ABCMeta, whose first negative answer for a
    # type walks every one of CSTNode's ~200 subclasses: 0.05 s of a cold ResNet-50 run.
    return cst.CSTNode in value_type.__mro__


def names_in(node: cst.CSTNode, skip: tuple = ()):
    """Every ``Name`` node under ``node`` (itself included), not entering node types in ``skip``
    (exact types: libcst's concrete node classes have no subclasses)."""
    stack = [node]
    name_type, skip = cst.Name, frozenset(skip)
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is name_type:
            yield current
            continue
        if kind in skip:
            continue
        for name in _field_names(kind):
            value = getattr(current, name)
            if _is_node_type(type(value)):
                stack.append(value)
            elif type(value) in (list, tuple):
                stack.extend(item for item in value if _is_node_type(type(item)))
