"""``operator``: the functions behind Python's operators, evaluated by our interpreter exactly as
the operator itself (``operator.lt(a, b)`` is ``a < b``: a Version's ``__lt__`` included).
diffusers' ``compare_versions`` maps ``"<"`` to ``operator.lt``."""

from __future__ import annotations

import libcst as cst

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
    return found
