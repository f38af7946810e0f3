"""Reading a parsed-module cache entry in tests (frontend/parsed_cache.py's encoded form)."""

from __future__ import annotations

import marshal


def stored(data: dict) -> dict:
    """An encoded tree as a later run reads it back from its entry."""
    return marshal.loads(marshal.dumps(data))


def entry_data(raw: bytes) -> dict:
    """The encoded tree of an entry file's bytes (a signature line, then the marshalled data)."""
    return marshal.loads(raw.partition(b"\n")[2])


def stubs_in(data: dict) -> dict:
    """How many nodes of each class an encoded tree holds as stubs (lowered from the text when
    read), in all its segments: [kinds, ..., lazy, stubs, owner] (``parsed_cache.encode``)."""
    names = [name for name, _ in data["classes"]]
    found: dict = {}
    segments = [data["tree"]]
    while segments:
        segment = segments.pop()
        kinds, lazy, stubs = segment[0], segment[-3], segment[-2]
        for index in stubs:
            found[names[kinds[index]]] = found.get(names[kinds[index]], 0) + 1
        segments.extend(inner for _, inner in lazy)
    return found


def entry_stubs(raw: bytes) -> dict:
    """``stubs_in`` of an entry file's bytes."""
    return stubs_in(entry_data(raw))
