"""Identifiers as Python reads them: NFKC-normalised (PEP 3131).

To Python ``ｗｉｄｔｈ`` (full-width letters) and ``width`` are one name: the tokenizer
normalises every identifier with NFKC before it is bound or looked up.  libcst keeps the text
as written, so without this a pull request could write ``ｗｉｄｔｈ = 100000`` and have us
price a model with the ``width`` it never uses.  Every identifier of the tree is a ``Name``
node (variables, attributes, parameters, keyword arguments, imports, class and function
names, ``global``/``nonlocal``), so normalising the ``Name`` nodes once, right after parsing,
covers every place names are compared.  Strings are left alone, as Python leaves them
(``getattr(x, "ｗidth")`` is a different attribute).

Cost: nothing for ASCII text (``str.isascii``) or text already in NFKC form
(``unicodedata.is_normalized``, both C loops); the tree is rebuilt only when some character
of the file changes under NFKC.
"""

from __future__ import annotations

import unicodedata


def nfkc(name: str) -> str:
    """``name`` as Python binds it (ASCII names are returned as they are)."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


def needs_normalising(text: str) -> bool:
    return not text.isascii() and not unicodedata.is_normalized("NFKC", text)


def normalise_identifiers(module, positions):
    """The libcst module with NFKC identifiers, and start positions (``positions.StartPositions``)
    for its (partly new) nodes.  libcst is imported here, not with this module: ``nfkc`` is
    also needed when a cached tree is analysed, without libcst (``parsed_cache.py``)."""
    import libcst as cst

    from staticflops.frontend.positions import StartPositions

    class _NormaliseNames(cst.CSTTransformer):
        """Rewrites each non-normalised ``Name``; every node rebuilt on the way (its ancestors)
        keeps the start position of the node it replaces."""

        def __init__(self, starts: dict):
            super().__init__()
            self.starts = starts

        def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
            value = nfkc(updated_node.value)
            return updated_node if value == updated_node.value else updated_node.with_changes(value=value)

        def on_leave(self, original_node, updated_node):
            result = super().on_leave(original_node, updated_node)
            if result is not original_node and isinstance(result, cst.CSTNode):
                position = self.starts.get(id(original_node))
                if position is not None:
                    self.starts[id(result)] = position
            return result

    starts = dict(positions.by_id)
    normalised = module.visit(_NormaliseNames(starts))
    return normalised, StartPositions(starts, (module, normalised))  # both trees alive: no id is reused
