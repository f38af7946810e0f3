"""``operator``: the functions behind Python's operators, evaluated by our interpreter exactly as
the operator itself (``operator.lt(a, b)`` is ``a < b``: a Version's ``__lt__`` included).
diffusers' ``compare_versions`` maps ``"<"`` to ``operator.lt``."""

from __future__ import annotations

from staticflops.frontend import syntax as cst

from staticflops.frontend.values import Builtin

_COMPARISONS = {"lt": cst.LessThan, "le": cst.LessThanEqual, "eq": cst.Equal, "ne": cst.NotEqual,
                "ge": cst.GreaterThanEqual, "gt": cst.GreaterThan, "is_": cst.Is, "is_not": cst.IsNot}
_ARITHMETIC = {"add": cst.Add, "sub": cst.Subtract, "mul": cst.Multiply, "truediv": cst.Divide,
               "floordiv": cst.FloorDivide, "mod": cst.Modulo, "pow": cst.Power, "matmul": cst.MatrixMultiply,
               "and_": cst.BitAnd, "or_": cst.BitOr, "xor": cst.BitXor}


def _two(name, evaluate):
    def call(interp, args, kwargs, node):
        if len(args) != 2:
            raise interp.fail(f"operator.{name} expected 2 arguments, got {len(args)}", node, python="TypeError")
        return evaluate(interp, args[0], args[1], node)
    return Builtin(f"operator.{name}", call, bind_self=False)


def members() -> dict:
    found = {}
    for name, op in _COMPARISONS.items():
        found[name] = _two(name, lambda interp, a, b, node, op=op: interp.compare(op, a, b, node))
    for name, op in _ARITHMETIC.items():
        found[name] = _two(name, lambda interp, a, b, node, op=op: interp.binary(op, a, b, node))
    found["getitem"] = _two("getitem", lambda interp, a, b, node: interp.get_item(a, b, node))
    found["contains"] = _two("contains", lambda interp, a, b, node: interp.compare(cst.In, b, a, node))
    found["attrgetter"] = Builtin("operator.attrgetter", _attrgetter, bind_self=False)
    found["itemgetter"] = Builtin("operator.itemgetter", _itemgetter, bind_self=False)
    return found


def _attrgetter(interp, args, kwargs, node):
    """``attrgetter("a.b", "c")(obj)``: the attribute each dotted name reaches, a tuple for several."""
    if not args or not all(isinstance(name, str) for name in args) or kwargs:
        raise interp.fail("attrgetter expected attribute names (str)", node, python="TypeError")

    def get(interp, inner, kwargs, node):
        found = []
        for dotted in args:
            value = inner[0]
            for name in dotted.split("."):
                value = interp.get_attribute(value, name, node)
            found.append(value)
        return found[0] if len(found) == 1 else tuple(found)
    return Builtin("attrgetter", get, bind_self=False)


def _itemgetter(interp, args, kwargs, node):
    """``itemgetter(k, ...)(obj)``: ``obj[k]``, a tuple for several keys."""
    if not args or kwargs:
        raise interp.fail("itemgetter expected 1 argument, got 0", node, python="TypeError")

    def get(interp, inner, kwargs, node):
        found = [interp.get_item(inner[0], key, node) for key in args]
        return found[0] if len(found) == 1 else tuple(found)
    return Builtin("itemgetter", get, bind_self=False)
