"""Name resolution with Python's rules, simplified: local, enclosing functions, module, builtins."""

from __future__ import annotations

_MISSING = object()
_NONE_DECLARED: frozenset = frozenset()


class Scope:
    __slots__ = ("vars", "parent", "module", "is_class", "globals_declared", "nonlocals_declared", "class_name",
                 "qualname", "defining_class")

    def __init__(self, parent: "Scope | None" = None, module: "Scope | None" = None, is_class: bool = False):
        self.vars: dict = {}
        self.parent = parent
        self.module = module or self  # the module-level scope
        self.is_class = is_class
        # `global`/`nonlocal` names: a shared empty set until a declaration replaces it (a
        # scope is made per call, and most functions declare neither)
        self.globals_declared: frozenset = _NONE_DECLARED
        self.nonlocals_declared: frozenset = _NONE_DECLARED
        self.class_name: str | None = None  # a class body's class, for private-name mangling
        self.qualname: str | None = None  # the class's or function's __qualname__ (None: the module)
        self.defining_class = None  # a class body's Class: the functions defined in it remember it

    def lookup(self, name: str, builtins: dict):
        if name in self.vars:
            return self.vars[name]
        scope = self.parent
        while scope is not None:
            # Class bodies are not visible from the methods defined inside them.
            if not scope.is_class and name in scope.vars:
                return scope.vars[name]
            scope = scope.parent
        if name in self.module.vars:
            return self.module.vars[name]
        return builtins.get(name, _MISSING)

    def assign(self, name: str, value) -> None:
        if name in self.globals_declared:
            self.module.vars[name] = value
            return
        if name in self.nonlocals_declared:
            scope = self.parent
            while scope is not None:
                if not scope.is_class and name in scope.vars:
                    scope.vars[name] = value
                    return
                scope = scope.parent
        self.vars[name] = value

    def mangle(self, name: str) -> str:
        """CPython's private-name mangling: ``self.__x`` written inside ``class Cls`` (its body
        or a function defined in it) is attribute ``_Cls__x``."""
        if not name.startswith("__") or name.endswith("__"):
            return name
        scope = self
        while scope is not None:
            if scope.class_name is not None:
                stripped = scope.class_name.lstrip("_")
                return f"_{stripped}{name}" if stripped else name
            scope = scope.parent
        return name

    def qualified(self, name: str) -> str:
        """``__qualname__`` of ``name`` defined in this scope, as CPython builds it: ``Cls.method``
        in a class body, ``outer.<locals>.inner`` in a function; libraries tell methods from
        top-level functions by the dot (transformers' ``auto_docstring``)."""
        if self.qualname is None:
            return name
        return f"{self.qualname}.{name}" if self.is_class else f"{self.qualname}.<locals>.{name}"

    def child(self, is_class: bool = False) -> "Scope":
        return Scope(self, self.module, is_class)


MISSING = _MISSING
