"""Dictionaries built with a key we cannot decide: ``{Image.NEAREST: 'nearest', ...}`` when
``Image`` is an unknown (PIL is not followed).

Python would build one entry per *distinct* key; we do not know which of the undecidable keys
are equal to each other or to the known ones, so merging them (or keeping them apart) would be
a guess that can give wrong numbers with exit 0.  Such a dict is a ``PartialDict``: an unknown
whose known entries can still be read where the answer does not depend on the undecidable keys:

- ``d[k]`` / ``d.get(k)`` for a known ``k`` stored after the last undecidable key (a later
  entry wins in Python, so no undecidable key can have replaced it): the value;
- ``k in d`` for a known ``k`` that is stored: True;
- anything else (a key that is absent or may have been replaced, ``len``, iteration,
  ``items()``, ...): an unknown naming the first undecidable key's location.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from staticflops.frontend.values import Unknown


@dataclass(eq=False)
class PartialDict(Unknown):
    known: dict = field(default_factory=dict)
    replaceable: set = field(default_factory=set)  # known keys an undecidable key came after
    undecidable: list = field(default_factory=list)  # (key, value) pairs, in order


def _key_id(key):
    try:
        hash(key)
    except TypeError:
        return None
    return key


def start(entries: dict, key: Unknown) -> PartialDict:
    """The dict built so far (``entries``) turned partial by the undecidable ``key``."""
    cause = f"a dictionary with an undecidable key ({key.reason})"
    return PartialDict(cause, key.location, known=dict(entries))


def store(target: PartialDict, key, value) -> None:
    if isinstance(key, Unknown):
        target.undecidable.append((key, value))
        target.replaceable.update(k for k in target.known)
        return
    target.known[key] = value
    target.replaceable.discard(key)


def plain(value):
    """A PartialDict flowing where any unknown goes (an operand, an attribute, a call result)
    stops being a dict: it becomes a plain unknown with the same cause."""
    return Unknown(value.reason, value.location) if isinstance(value, PartialDict) else value


def lookup(target: PartialDict, key, default=None, has_default=False):
    if isinstance(key, Unknown):
        return plain(key)
    if _key_id(key) is not None and key in target.known and key not in target.replaceable:
        return target.known[key]
    return Unknown(f"`{key!r}` may be one of the undecidable keys of {target.reason}", target.location)


def contains(target: PartialDict, key):
    if isinstance(key, Unknown):
        return plain(key)
    if _key_id(key) is not None and key in target.known:
        return True
    return Unknown(f"whether `{key!r}` is a key of {target.reason}", target.location)
