"""Identifiers as Python reads them: NFKC-normalised (PEP 3131).

To Python ``ｗｉｄｔｈ`` (full-width letters) and ``width`` are one name: the tokenizer
normalises every identifier with NFKC before it is bound or looked up.  libcst keeps the text
as written, so without this a pull request could write ``ｗｉｄｔｈ = 100000`` and have us
price a model with the ``width`` it never uses.  Every identifier of the tree is a ``Name``
node (variables, attributes, parameters, keyword arguments, imports, class and function
names, ``global``/``nonlocal``), so normalising the ``Name`` nodes once, when the tree is
lowered (``lowering.py``), covers every place names are compared.  Strings are left alone,
as Python leaves them (``getattr(x, "ｗidth")`` is a different attribute).

Cost: nothing for ASCII text (``str.isascii``) or text already in NFKC form
(``unicodedata.is_normalized``, both C loops); otherwise one ``nfkc`` per ``Name`` as it is
lowered.
"""

from __future__ import annotations

import unicodedata


def nfkc(name: str) -> str:
    """``name`` as Python binds it (ASCII names are returned as they are)."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


def needs_normalising(text: str) -> bool:
    return not text.isascii() and not unicodedata.is_normalized("NFKC", text)
