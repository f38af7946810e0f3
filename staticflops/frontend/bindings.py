"""What a statement would bind and whether a block always raises, read from its syntax.

Used where the interpreter cannot follow a statement at a module's top level: the names the
statement would have bound become unknowns naming the cause, so a later use reports *that*
cause instead of a confusing symptom (``name is not defined``).  Nested ``def``/``class``
bodies, lambdas and comprehensions have scopes of their own and bind nothing here.
"""

from __future__ import annotations

from staticflops.frontend import syntax as cst

from staticflops.frontend.values import dotted_name

_OWN_SCOPE = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def bound_names(node) -> list[str]:
    """The names ``node`` binds in the scope it runs in, first binding first."""
    names: list[str] = []
    _collect(node, names)
    return list(dict.fromkeys(names))


def _collect(node, names: list[str]) -> None:
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        names.append(node.name.value)
        return  # decorators and defaults bind nothing worth following
    if isinstance(node, _OWN_SCOPE):
        return
    if isinstance(node, cst.If) and names_type_checking(node.test):
        # `if TYPE_CHECKING:` is False when the code runs: only the `else` binds (a lazy
        # package's body names are found again through type_checking_exports.py)
        if node.orelse is not None:
            _collect(node.orelse, names)
        return
    if isinstance(node, cst.Import):
        for alias in node.names:
            names.append(alias.asname.name.value if alias.asname else dotted_name(alias.name).split(".")[0])
        return
    if isinstance(node, cst.ImportFrom):
        if not isinstance(node.names, cst.ImportStar):
            names.extend(a.asname.name.value if a.asname else a.name.value for a in node.names)
        return
    if isinstance(node, cst.Assign):
        for target in node.targets:
            _targets(target.target, names)
    elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr)):
        _targets(node.target, names)
    elif isinstance(node, cst.WithItem) and node.asname is not None:
        _targets(node.asname.name, names)
    elif isinstance(node, cst.ExceptHandler) and node.name is not None:
        _targets(node.name.name, names)
    for child in node.children:
        _collect(child, names)


def names_type_checking(test) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``: the test of a block only type checkers read."""
    return (isinstance(test, cst.Name) and test.value == "TYPE_CHECKING"
            or isinstance(test, cst.Attribute) and test.attr.value == "TYPE_CHECKING")


def _targets(target, names: list[str]) -> None:
    """Plain names of an assignment target; ``a.b = ``/``a[i] = `` change objects, not names."""
    if isinstance(target, cst.Name):
        names.append(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _targets(element.value, names)
    elif isinstance(target, cst.StarredElement):
        _targets(target.value, names)


def always_raises(block) -> bool:
    """True when entering ``block`` (an ``if``/``else`` body, or an ``elif`` chain) surely ends
    in a ``raise``: a top-level ``raise`` reached before any ``return``/``break``/``continue``."""
    if block is None:
        return False
    if isinstance(block, cst.If):  # `elif`: raises only if every way through it does
        return always_raises(block.body) and always_raises(block.orelse)
    if isinstance(block, cst.Else):
        block = block.body
    for statement in block.body:
        smalls = statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement]
        if isinstance(block, cst.SimpleStatementSuite):
            smalls = [statement]
        for small in smalls:
            if isinstance(small, cst.Raise):
                return True
            if isinstance(small, (cst.Return, cst.Break, cst.Continue)):
                return False
    return False
