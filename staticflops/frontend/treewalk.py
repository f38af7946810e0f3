"""Reading every node of a syntax subtree (``syntax.py``) without a visitor.

libcst's ``node.visit(CSTVisitor)`` rebuilt each node it passed, which made a whole-file name
scan cost more than parsing.  Reading the fields directly visits the same children (a node's
node-valued fields are exactly its children) without building anything.
"""

from __future__ import annotations

from functools import lru_cache

from staticflops.frontend import syntax as cst


def _field_names(node_type: type) -> tuple:
    return node_type._fields  # the lowered tree's fields (syntax.py)


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
