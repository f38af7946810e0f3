"""``ast.literal_eval``: a Python literal written in a string (``"[1, 2]"``, ``"None"``) as
our values.  Libraries use it on strings from config files (ultralytics' model YAML).

The string is parsed by Python's parser (parsing runs nothing) and only these nodes become
values, as CPython's ``literal_eval`` accepts them: constants, tuples, lists, sets, dicts and a
sign before a number.  Anything else — a name, a call, an operator — raises ``ValueError`` in
the analysed program, a syntax error ``SyntaxError``, as CPython does; ``contextlib.suppress``
or ``except`` of the analysed code may catch them.  Strings over MAX_LITERAL_CHARS are an
unknown (a pull request controls the text).
"""

from __future__ import annotations

import ast

from staticflops.frontend.values import Builtin, Namespace, Unknown

MAX_LITERAL_CHARS = 10_000


class _Malformed(Exception):
    pass


def _convert(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_convert(item) for item in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items if isinstance(node, ast.List) else set(items)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_convert(k): _convert(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = _convert(node.operand)
        if isinstance(operand, (int, float, complex)) and not isinstance(operand, bool):
            return operand if isinstance(node.op, ast.UAdd) else -operand
    raise _Malformed(f"malformed node or string: {ast.dump(node)[:80]}")


def _literal_eval(interp, args, kwargs, node):
    text = args[0] if args else kwargs.get("node_or_string")
    if isinstance(text, Unknown):
        return text
    if not isinstance(text, str):
        return interp.unknown("ast.literal_eval() of a value that is not a string", node)
    if len(text) > MAX_LITERAL_CHARS:
        return interp.unknown(f"ast.literal_eval() of a string over {MAX_LITERAL_CHARS:,} characters", node)
    try:
        tree = ast.parse(text.lstrip(" \t"), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise interp.fail(f"ast.literal_eval({text[:60]!r}): {error}", node, python="SyntaxError") from None
    try:
        return _convert(tree.body)
    except (_Malformed, TypeError) as error:  # TypeError: an unhashable dict key or set item
        raise interp.fail(f"ast.literal_eval({text[:60]!r}): {error}", node, python="ValueError") from None
    except RecursionError:
        return interp.unknown("ast.literal_eval(): the literal nests too deeply", node)


def namespaces() -> dict:
    return {"ast": Namespace("ast", {"literal_eval": Builtin("ast.literal_eval", _literal_eval, bind_self=False)})}
