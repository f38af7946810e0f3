"""Outside containers a recorded call read, kept as snapshots to tell later whether they changed.

A construction being recorded (``construction_memo.py``) may not read mutable state from
outside itself: its hooks see reads of names and attributes, but not what Python's own
containers are asked afterwards (``key in mapping``, ``mapping.get(key)``, ``items[0]``), so a
list or dict from outside refuses.  A read of a ``__getattribute__`` written in the analysed
code (``getattribute_memo.py``) reads little else: the instance's ``__dict__`` and an alias
table (transformers' ``attribute_map``).  There a container from outside is *watched*
instead: the first read of it takes a snapshot of everything reachable from it through
containers, and the recorded call is valid later only while every watched container still
holds the very same objects in the same order.  Whatever the call asked of it then gets the
same answer, whichever builtin or operator asked.

What is reachable through containers must itself be plain: immutable values and definitions
(shared as they are), instances (their attributes are read through hooks that record them),
or containers again (watched with it).  Anything else (a tensor, an unknown, another object
of the analyser) makes the value unwatchable, and the call is not memoised.

A branch run on an undecidable test (``inert_branch.py``) watches containers only to see
whether it changed them (``reads=False``): there any item may be held, and a set is compared
by equality (an item replaced by an equal one changed nothing Python could tell).
"""

from __future__ import annotations

from operator import is_

# A watched value this large (items, summed over what is reachable) is not worth its checks.
_MAX_ITEMS = 4096
_MAX_DEPTH = 20


class Unwatchable(Exception):
    """The value holds something a snapshot cannot vouch for."""


def snapshot(value, plain, budget: list | None = None, depth: int = 0, reads: bool = True):
    """A snapshot of container ``value`` (dict, list, or a tuple holding containers):
    its exact type, its items as they are now, and the snapshots of the containers among
    them.  ``plain(item)`` tells an item that needs no snapshot (immutable, a definition, an
    instance)."""
    if budget is None:
        budget = [_MAX_ITEMS]
    kind = type(value)
    if depth > _MAX_DEPTH:
        raise Unwatchable("nested too deeply")
    if kind is dict:
        items = (tuple(value), tuple(value.values()))
        inner = items[1]
    elif kind is list or kind is tuple:
        items = tuple(value)
        inner = items
    elif kind is set and not reads:  # watched for changes only (1 and True would pass for the same item)
        items = frozenset(value)
        inner = ()
    else:
        raise Unwatchable(f"holds a {kind.__name__}")
    budget[0] -= len(inner) + 1
    if budget[0] < 0:
        raise Unwatchable("too large")
    nested = []
    for index, item in enumerate(inner):
        if not plain(item):
            nested.append((index, snapshot(item, plain, budget, depth + 1, reads)))
    return kind, items, tuple(nested)


def unchanged(value, shot) -> bool:
    """Whether ``value`` still holds what ``snapshot`` saw (the same objects, in the same order)."""
    kind, items, nested = shot
    if type(value) is not kind:
        return False
    if kind is dict:
        keys, values = items
        if len(value) != len(keys) or not all(map(is_, value, keys)):
            return False
        now = tuple(value.values())
        if not all(map(is_, now, values)):
            return False
    elif kind is set:
        return value == items
    else:
        now = value if kind is tuple else tuple(value)
        if len(now) != len(items) or not all(map(is_, now, items)):
            return False
    for index, inner in nested:
        if not unchanged(now[index], inner):
            return False
    return True
