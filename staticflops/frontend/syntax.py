"""The syntax tree the interpreter walks: plain objects named and shaped like libcst's nodes.

The interpreter reads nodes by class (``isinstance(node, syntax.Name)``, ``_eval_<ClassName>``
handlers) and by field (``node.value``, ``node.body``), never through libcst's own methods.
So the tree it walks can be a *lowered* copy of libcst's (``lowering.py``): one class per
libcst node class, with the same name and the same fields, minus whitespace, comments and
punctuation (commas, parentheses, colons), which no analysis reads.  Such a tree can be saved
as plain data and loaded again without importing libcst (``parsed_cache.py``): importing
libcst costs ~0.2-0.3 s, more than most analyses.

Modules of the interpreter write ``from staticflops.frontend import syntax as cst`` and use the
node classes as they would libcst's; a class is made on first use.  ``tests/test_syntax.py``
checks that every class made is a libcst node class and that only the parsing modules import
libcst itself (a libcst node class would never match a lowered node).
"""

from __future__ import annotations


class CSTNode:
    """Base of every lowered node.  Identity equality and hashing, as libcst's nodes have.
    ``_fields``: the kept fields of this node class, in libcst's order (set by the lowering
    or the loader)."""

    _fields: tuple = ()

    @property
    def children(self) -> list:
        """The nodes directly inside, in field order (libcst's ``children``, without layout)."""
        found = []
        for name in type(self)._fields:
            value = getattr(self, name)
            if isinstance(value, CSTNode):
                found.append(value)
            elif type(value) is tuple:
                found.extend(item for item in value if isinstance(item, CSTNode))
        return found

    def __getattr__(self, name: str):
        # Called only for a field not in the node's ``__dict__``: a node loaded from the
        # parsed-module cache gets its fields on first read (``parsed_cache.decode``), so
        # the bodies of functions never called are never decoded.
        pending = self.__dict__.pop("_pending", None)
        if pending is None:
            raise AttributeError(f"{type(self).__name__!r} node has no field {name!r}")
        pending[0](self, pending[1])
        return getattr(self, name)

    def __repr__(self) -> str:
        fields = {name: getattr(self, name) for name in type(self)._fields}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in fields.items())})"


# The second item of a node's ``_pending`` when its fields are lowered from the file's text on
# first read (a library file's block or annotation: ``ast_lowering.py``), not decoded from a cache entry.
FROM_TEXT = "from text"

_CLASSES: dict = {}


def node_class(name: str) -> type:
    """The lowered class for libcst's class ``name`` (made once per process)."""
    cls = _CLASSES.get(name)
    if cls is None:
        if not (name.isidentifier() and name[:1].isupper() and name.isascii()):
            raise AttributeError(f"not a syntax node class: {name!r}")
        cls = _CLASSES[name] = type(name, (CSTNode,), {"__module__": __name__})
    return cls


def made_classes() -> dict:
    return dict(_CLASSES)


def __getattr__(name: str):
    # `syntax.Name`, `syntax.If`, ...: module attributes made on demand, so that the interpreter's
    # modules keep reading like libcst code.  Lower-case and private names are not node classes
    # (the import system probes `__path__` and the like).
    if name[:1].isupper():
        cls = node_class(name)
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
