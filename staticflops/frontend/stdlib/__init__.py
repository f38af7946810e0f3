"""Standard-library modules the interpreter models, one file per module family.

Each module is either a set of builtins written in Python over our values (``containers``,
``functools_``, ``inspect_``, ``operator_``, ``regex``, ``system``) or a stand-in written as Python source in
``stubs/`` and run by our interpreter on first use (``collections.abc``'s mixin methods).
Nothing of the analysed program is ever run by Python: the builtins only handle known data.
"""

from __future__ import annotations

from staticflops.frontend.scope import MISSING, Scope
from staticflops.frontend.values import Builtin, Class, Function, Namespace
from staticflops.frontend.stdlib.stub_modules import run_stub

# isinstance(x, Mapping) is true for a plain dict too: the Python types each abc class covers
_ABC_PYTYPES = {
    "Mapping": dict, "MutableMapping": dict, "Sequence": (list, tuple, str, range), "MutableSequence": list,
    "Set": (set, frozenset), "MutableSet": set, "Sized": (list, tuple, str, dict, set, frozenset, range),
    "Container": (list, tuple, str, dict, set, frozenset, range),
    "Collection": (list, tuple, str, dict, set, frozenset, range),
    "Iterable": (list, tuple, str, dict, set, frozenset, range), "Iterator": (), "Hashable": (int, float, str, tuple),
}


def abc_namespace(interp) -> Namespace:
    """``collections.abc``: its classes come from the stand-in source, run on first use."""
    namespace = Namespace("collections.abc", {})

    def load(name):
        if not namespace.members:
            scope = Scope()
            scope.vars["__name__"] = "collections.abc"
            run_stub(interp, "collections_abc.pyi", scope)
            for key, value in scope.vars.items():
                if isinstance(value, Class):
                    value.pytype = _ABC_PYTYPES.get(key)
                    if key == "Callable":
                        value.pytype = None
                        value.instance_check = _is_callable
                    namespace.members[key] = value
        return namespace.members.get(name, MISSING)

    namespace.loader = load
    return namespace


def collections_namespace(interp, members: dict, abc: Namespace) -> Namespace:
    """``collections``: the containers' builtins, and ``UserDict`` from its stand-in source
    (on first use, a MutableMapping of collections.abc)."""
    namespace = Namespace("collections", members)

    def load(name):
        if name == "UserDict" and name not in namespace.members:
            scope = Scope()
            scope.vars.update({"__name__": "collections", "MutableMapping": abc.loader("MutableMapping")})
            run_stub(interp, "collections_userdict.pyi", scope)
            namespace.members["UserDict"] = scope.vars["UserDict"]
        return namespace.members.get(name, MISSING)

    namespace.loader = load
    return namespace


def _is_callable(value) -> bool:
    from staticflops.frontend.values import BoundMethod, Partial
    return isinstance(value, (Function, Builtin, Class, BoundMethod, Partial))


def build(interp, builtins: dict) -> dict:
    """name -> Namespace for the modules below (merged into the framework's known modules)."""
    from staticflops.frontend.stdlib import containers, functools_, inspect_, literals, operator_, regex, system

    abc = abc_namespace(interp)
    modules = {
        "collections": collections_namespace(interp, containers.members(interp, abc), abc),
        "collections.abc": abc,
        "functools": Namespace("functools", functools_.members(builtins)),
        "inspect": Namespace("inspect", inspect_.members(builtins)),
        "re": Namespace("re", regex.members()),
        "operator": Namespace("operator", operator_.members()),
    }
    modules["numbers"] = numbers_namespace(builtins)
    modules.update(system.modules(interp, builtins))
    modules.update(literals.namespaces())
    return modules


def installed_library(name: str) -> Namespace | None:
    """A third-party module we model natively (``regex``), used in place of its files when the
    environment has it installed (``Interpreter.import_module``), or None."""
    from staticflops.frontend.stdlib import regex

    if name == "regex":
        return Namespace("regex", regex.regex_members())
    return None


def numbers_namespace(builtins: dict) -> Namespace:
    """``numbers``: the numeric tower for ``isinstance`` (``isinstance(dim, numbers.Integral)``,
    diffusers' RMSNorm); a symbolic size is an integer."""
    from fractions import Fraction

    from staticflops.shapes import Expr

    tower = {"Number": (int, float, complex, Fraction, Expr), "Complex": (int, float, complex, Fraction, Expr),
             "Real": (int, float, Fraction, Expr), "Rational": (int, Fraction, Expr), "Integral": (int, Expr)}
    members = {}
    for name, pytypes in tower.items():
        members[name] = Class(name, (builtins["object"],), {})
        members[name].pytype = pytypes
    return Namespace("numbers", members)
