"""Name resolution with Python's rules, simplified: local, enclosing functions, module, builtins."""

from __future__ import annotations

_MISSING = object()


class Scope:
    __slots__ = ("vars", "parent", "module", "is_class", "globals_declared", "nonlocals_declared")

    def __init__(self, parent: "Scope | None" = None, module: "Scope | None" = None, is_class: bool = False):
        self.vars: dict = {}
        self.parent = parent
        self.module = module or self  # the module-level scope
        self.is_class = is_class
        self.globals_declared: set = set()
        self.nonlocals_declared: set = set()

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

    def child(self, is_class: bool = False) -> "Scope":
        return Scope(self, self.module, is_class)


MISSING = _MISSING
