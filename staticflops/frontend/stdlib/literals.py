"""``ast.literal_eval`` and the safe part of ``eval``: Python written in a string, from a
config file (ultralytics' model YAML), turned into our values — never run by Python.

``ast.literal_eval``: a literal (``"[1, 2]"``, ``"None"``) as our values.

The string is parsed by Python's parser (parsing runs nothing) and only these nodes become
values, as CPython's ``literal_eval`` accepts them: constants, tuples, lists, sets, dicts and a
sign before a number.  Anything else — a name, a call, an operator — raises ``ValueError`` in
the analysed program, a syntax error ``SyntaxError``, as CPython does; ``contextlib.suppress``
or ``except`` of the analysed code may catch them.  Strings over MAX_LITERAL_CHARS are an
unknown (a pull request controls the text).

The analysed program's ``eval`` of a text never hands it to Python's own: the text is only
*parsed* (``ast.parse``) and modelled for a name, a dotted name, or a call of one with literal
arguments (``"nn.SiLU()"``, ``"torch.nn.LeakyReLU(0.1)"``, ``"Conv"``): the name is looked up
in the calling module's globals, then the builtins, and the call is made by our interpreter.
Any other text — operators, subscripts, lambdas, a name that is only a local — is a located
unknown, whatever it would compute.
"""

from __future__ import annotations

import ast

from staticflops import pyast
from staticflops.frontend.values import Builtin, LazyValue, Namespace, Unknown

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
        tree = pyast.parse(text.lstrip(" \t"), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise interp.fail(f"ast.literal_eval({text[:60]!r}): {error}", node, python="SyntaxError") from None
    try:
        return _convert(tree.body)
    except (_Malformed, TypeError) as error:  # TypeError: an unhashable dict key or set item
        raise interp.fail(f"ast.literal_eval({text[:60]!r}): {error}", node, python="ValueError") from None
    except RecursionError:
        return interp.unknown("ast.literal_eval(): the literal nests too deeply", node)


def _dotted(node) -> list[str] | None:
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return [node.id, *reversed(names)] if isinstance(node, ast.Name) else None


def _modelled_eval(interp, args, kwargs, node):
    text = args[0] if args else kwargs.get("source")
    if isinstance(text, Unknown):
        return text
    if len(args) > 1 or set(kwargs) - {"source"}:
        return interp.unknown("eval() with its own namespaces is not modelled", node)
    if not isinstance(text, str) or len(text) > MAX_LITERAL_CHARS:
        return interp.unknown("eval() of a value that is not a short string", node)
    def refused():
        return interp.unknown(f"eval({text[:60]!r}): only a name or a call of one with literal arguments is "
                              "modelled (the text is never run)", node)
    try:
        tree = pyast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return refused()
    call = tree if isinstance(tree, ast.Call) else None
    names = _dotted(call.func if call is not None else tree)
    if names is None:
        return refused()
    try:
        arguments = [_convert(a) for a in call.args] if call is not None else []
        keywords = {k.arg: _convert(k.value) for k in call.keywords} if call is not None else {}
    except (_Malformed, TypeError, RecursionError):
        return refused()
    if None in keywords or any(isinstance(a, ast.Starred) for a in (call.args if call else [])):
        return refused()
    module = interp.current_globals(node)
    value = module.get(names[0], interp.builtins.get(names[0])) if isinstance(module, dict) else None
    if value is None:
        return interp.unknown(f"eval({text[:60]!r}): `{names[0]}` is not a global of this module", node)
    if isinstance(value, LazyValue):  # an import not yet followed
        value = value.force()
    for name in names[1:]:
        value = interp.get_attribute(value, name, node)
    return interp.call(value, arguments, keywords, node) if call is not None else value


def namespaces() -> dict:
    return {"ast": Namespace("ast", {"literal_eval": Builtin("ast.literal_eval", _literal_eval, bind_self=False)})}


def builtins() -> dict:
    return {"eval": Builtin("eval", _modelled_eval, bind_self=False)}
