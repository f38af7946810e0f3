"""Expressions of the analysed program: literals, names, operators, calls, comprehensions."""

from __future__ import annotations

import operator
import sys

from staticflops.frontend import syntax as cst

from staticflops.frontend.scope import MISSING, Scope
from staticflops.frontend import partial_dict
from staticflops.frontend.partial_dict import PartialDict
from staticflops.shapes.growth import spec_length
from staticflops.frontend.values import (
    BoundMethod, Builtin, Function, Instance, LazyValue, StrMember, Tensor, Unknown, describe,
)


_COMPREHENSIONS = (cst.ListComp, cst.GeneratorExp)
# Values a pure builtin is given from one comprehension before it is not worth building them
# (Expressions._comprehension_argument): 2**18, some seconds of interpretation.
_LARGEST_PURE_ARGUMENT = 262_144


def _values_in(item) -> int:
    """The numbers in a nested list, from its first item down (a rectangular table's size)."""
    count = 1
    while isinstance(item, list):
        count *= len(item)
        item = item[0] if item else None
    return count

# Values Python's own format()/repr() may be given: they read nothing of the analyser's objects.
_FORMATTABLE = (str, int, float, bool, type(None), complex)


class Expressions:
    """Mixed into :class:`Interpreter`: one ``_eval_<Node>`` method per expression kind."""

    def evaluate_node(self, node, scope: Scope):
        # The hottest call of the interpreter: the handler per node type is looked up once.
        handler = self.expression_handlers.get(type(node))
        if handler is None:
            handler = self.expression_handlers[type(node)] = self.handler_for(type(node), "_eval_")
            if handler is None:
                return self.unknown(f"expression `{type(node).__name__}` is not interpreted", node)
        return handler(node, scope)

    def _eval_Name(self, node, scope):
        name = node.value
        local = scope.vars  # most names read are the scope's own: Scope.lookup's first test, inline
        value = local[name] if name in local else scope.lookup(name, self.builtins)
        if name.startswith("__"):  # a private name inside a class is mangled (parameters are not, here)
            mangled = scope.lookup(scope.mangle(name), self.builtins)
            value = value if mangled is MISSING else mangled
        if value is MISSING:
            return self.unknown(f"name `{name}` is not defined", node)
        value = value.force() if isinstance(value, LazyValue) else value
        if self.construction_memo.recorders:  # a global or closure read by a construction is recorded
            self.construction_memo.name_read(scope, name, value, self.builtins, node)
        return value

    # Numbers straight from their text, which libcst has already checked is a valid literal:
    # int(text, 0) reads exactly Python's integer literals (0x/0o/0b, underscores, `00`) and
    # float() its float literals.  libcst's `evaluated_value` runs ast.literal_eval each time
    # (~25 us; a 10,000-layer file spent 0.6 s there).
    def _eval_Integer(self, node, scope):
        try:
            return int(node.value, 0)
        except ValueError:  # a decimal literal over sys.get_int_max_str_digits(): Python rejects the file
            digits = sum(c.isdigit() for c in node.value)
            raise self.fail(f"syntax error: an integer literal of {digits:,} digits exceeds Python's limit of "
                            f"{sys.get_int_max_str_digits():,} (write it in hexadecimal)", node, code="SF004") from None

    def _eval_Float(self, node, scope):
        return float(node.value)

    def _eval_SimpleString(self, node, scope):
        # escapes and prefixes need Python's own reading; keep the value per node
        value = self.literals.get(node, MISSING)
        if value is MISSING:
            value = self.literals[node] = node.evaluated_value
        return value

    def _eval_ConcatenatedString(self, node, scope):
        left, right = self.evaluate_node(node.left, scope), self.evaluate_node(node.right, scope)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        return left if isinstance(left, Unknown) else right

    def _eval_FormattedString(self, node, scope):
        text = self._formatted_parts(node.parts, scope, "r" in node.start.lower())
        if not isinstance(text, Unknown):
            self.budget.build(self, len(text), len(text), node, "an f-string")
        return text

    def _formatted_parts(self, parts, scope, raw: bool):
        """The text of an f-string's parts (or of a field's format spec, which may hold fields)."""
        pieces = []
        for part in parts:
            if isinstance(part, cst.FormattedStringText):
                pieces.append(self._text_part(part, raw))
                continue
            value = self.evaluate_node(part.expression, scope)
            if isinstance(value, Unknown):
                return value
            spec = self._formatted_parts(part.format_spec, scope, raw) if part.format_spec else ""
            if isinstance(spec, Unknown):
                return spec
            if isinstance(value, Tensor) and value.shape == () and value.values and part.conversion is None:
                value = value.values[0]  # torch's Tensor.__format__: a 0-d tensor as its item (f"expert_{i}")
            self.budget.check_text(self, value, part)
            piece = self.display_text(value, part.conversion, spec, part)
            if isinstance(piece, Unknown):
                return piece
            pieces.append(piece)
        return "".join(pieces)

    def _text_part(self, part, raw: bool) -> str:
        """A literal piece of an f-string as Python reads it: ``{{``/``}}`` are braces and,
        unless the string is raw, backslash escapes are decoded (the node holds the source)."""
        text = self.literals.get(part, MISSING)
        if text is MISSING:
            text = part.value.replace("{{", "{").replace("}}", "}")
            if not raw and "\\" in text:
                try:  # non-ASCII characters as escapes first, so that only the source's escapes are read
                    text = text.encode("latin-1", "backslashreplace").decode("unicode_escape")
                except UnicodeDecodeError:
                    pass  # an escape Python rejects would have stopped the parse; keep the source text
            self.literals[part] = text
        return text

    def display_text(self, value, conversion, spec: str, node):
        """What ``format(value, spec)`` after ``!conversion`` (None, "s", "r", "a") gives, as
        CPython computes it: an object of the analysed code through its own ``__format__``,
        ``__str__`` or ``__repr__`` when its class defines one; numbers and strings by
        Python's own formatting (which reads no attribute of what it is given)."""
        if isinstance(value, StrMember) and not self.special_method(value, "__str__"):
            value = value.shown(conversion)  # CPython 3.11's text of a str enum member
            conversion = None
        if isinstance(value, Instance) and value.module is None:
            names = {"r": ("__repr__",), "a": ("__repr__",), "s": ("__str__", "__repr__")}.get(
                conversion, ("__format__",) if spec else ("__format__", "__str__", "__repr__"))
            for name in names:
                method = self.special_method(value, name)
                if isinstance(method, BoundMethod) and isinstance(method.function, Function):
                    # Held back: most such texts only go to a log message; one that matters
                    # (a layer's name, a test) is reported where it is used, with this reason.
                    text, held = self.quietly(lambda: self.call(method, [spec] if name == "__format__" else [], {}, node))
                    if held or type(text) is not str:
                        why = held[0][1] if held else text.reason if isinstance(text, Unknown) else \
                            f"it returned {type(text).__name__}, not str"
                        return Unknown(f"{name} of {value.cls.name} is not known ({why})", self.location(node))
                    if name == "__format__":
                        return text
                    text = text.encode("ascii", "backslashreplace").decode() if conversion == "a" else text
                    return self.display_text(text, None, spec, node) if spec else text  # f"{obj!r:>10}": on the text
            if not spec and self.builtins["BaseException"] in value.cls.mro():
                return self._exception_text(value, conversion, node)
            if spec:
                return self.unknown(f"unsupported format string passed to {value.cls.name}.__format__", node)
        if conversion is not None:  # (a container's items by their own repr; ours for the analyser's values)
            value = {"r": repr, "s": str, "a": ascii}[conversion](value)
        if not spec:
            return str(value)
        if not isinstance(value, _FORMATTABLE):
            return self.unknown(f"format spec {spec!r} on {describe(value)} is not evaluated", node)
        length = spec_length(value, spec)
        self.budget.build(self, length, length, node, "an f-string field")  # `{x:>1000000000}`: bounded
        try:
            return format(value, spec)
        except (ValueError, TypeError) as error:
            return self.unknown(f"format spec {spec!r}: {error}", node)

    def _exception_text(self, exception: Instance, conversion, node):
        """BaseException's ``__str__`` (its one argument's text, "" for none, the tuple of
        several) and ``__repr__`` (``TypeError('message')``), on the ``args`` it was given."""
        args = exception.attrs.get("args", ())
        if not isinstance(args, tuple):
            return self.unknown(f"the text of a {exception.cls.name} whose args are not a tuple", node)
        texts = [self.display_text(arg, "r", "", node) for arg in args]
        if conversion in ("r", "a"):
            return f"{exception.cls.name}({', '.join(map(str, texts))})"
        if len(args) == 1:
            return self.display_text(args[0], "s", "", node)
        return "" if not args else f"({', '.join(map(str, texts))})"

    def _eval_Ellipsis(self, node, scope):
        return Ellipsis

    def _eval_Tuple(self, node, scope):
        return tuple(self._elements(node.elements, scope))

    def _eval_List(self, node, scope):
        return self.budget.container(self, self._elements(node.elements, scope), node)

    def _eval_Set(self, node, scope):
        items = self._elements(node.elements, scope)
        try:
            return set(items)
        except TypeError:
            return list(items)

    def _elements(self, elements, scope) -> list:
        items = []
        for element in elements:
            value = self.evaluate_node(element.value, scope)
            if isinstance(element, cst.StarredElement):
                items.extend(self.iterate(value, element))
            else:
                items.append(value)
        return items

    def _eval_Dict(self, node, scope):
        result = {}
        for element in node.elements:
            if isinstance(element, cst.StarredDictElement):
                value = self.evaluate_node(element.value, scope)
                if isinstance(value, dict):
                    for key, item in value.items():
                        result = self._dict_store(result, key, item)
                elif isinstance(value, PartialDict):
                    for key, item in [*value.known.items(), *value.undecidable]:
                        result = self._dict_store(result, key, item)
                elif isinstance(value, Unknown):  # `**unknown` may hold any keys
                    result = self._dict_store(result, partial_dict.plain(value), value)
                continue
            key = self.evaluate_node(element.key, scope)
            try:
                result = self._dict_store(result, key, self.evaluate_node(element.value, scope))
            except TypeError:
                return self.unknown("dictionary key cannot be used", element.key)
        return result

    @staticmethod
    def _dict_store(result, key, value):
        """``result[key] = value`` while building a dict display or comprehension; an
        undecidable key makes it a PartialDict (see partial_dict.py), never merges entries."""
        if isinstance(key, Unknown) and not isinstance(result, PartialDict):
            result = partial_dict.start(result, key)
        if isinstance(result, PartialDict):
            partial_dict.store(result, key, value)
        else:
            result[key] = value
        return result

    def _eval_Attribute(self, node, scope):
        receiver = self.evaluate_node(node.value, scope)
        return self.get_attribute(receiver, scope.mangle(node.attr.value), node)

    def _eval_Subscript(self, node, scope):
        container = self.evaluate_node(node.value, scope)
        key = self._subscript_key(node, scope)
        return self.get_item(container, key, node)

    def _subscript_key(self, node, scope):
        keys = []
        for element in node.slice:
            piece = element.slice
            if isinstance(piece, cst.Slice):
                parts = [None if p is None else self.evaluate_node(p, scope) for p in (piece.lower, piece.upper, piece.step)]
                keys.append(slice(*parts))
            else:
                keys.append(self.evaluate_node(piece.value, scope))
        return keys[0] if len(keys) == 1 else tuple(keys)

    def _eval_BinaryOperation(self, node, scope):
        left = self.evaluate_node(node.left, scope)
        right = self.evaluate_node(node.right, scope)
        return self.binary(type(node.operator), left, right, node)

    def _eval_UnaryOperation(self, node, scope):
        value = self.evaluate_node(node.expression, scope)
        op = type(node.operator)
        if op is cst.Not:
            truth = self.truth(value, node)
            return truth if isinstance(truth, Unknown) else not truth
        if isinstance(value, Unknown):
            return value
        if isinstance(value, Tensor):
            return self.framework.tensor_unary(self, op.__name__.lower(), value, node)
        try:
            return {cst.Minus: operator.neg, cst.Plus: operator.pos, cst.BitInvert: operator.invert}[op](value)
        except TypeError:
            return self.unknown(f"unary operator on {describe(value)}", node)

    def _eval_BooleanOperation(self, node, scope):
        left = self.evaluate_node(node.left, scope)
        truth = self.truth(left, node.left)
        if isinstance(truth, Unknown):
            # Whatever the unknown is, `x and y` is false when y is false and `x or y` true when
            # y is true; y stands for the result then (it is the result, or x has y's truth).
            right = self.evaluate_node(node.right, scope)
            known = self.truth(right, node.right)
            return right if known is (not isinstance(node.operator, cst.And)) else truth
        if isinstance(node.operator, cst.And):
            return self.evaluate_node(node.right, scope) if truth else left
        return left if truth else self.evaluate_node(node.right, scope)

    def _eval_Comparison(self, node, scope):
        left = self.evaluate_node(node.left, scope)
        for target in node.comparisons:
            right = self.evaluate_node(target.comparator, scope)
            result = self.compare(type(target.operator), left, right, target)
            if isinstance(result, Unknown) or isinstance(result, Tensor) or not result:
                return result
            left = right
        return True

    def _eval_IfExp(self, node, scope):
        truth = self.decide(node.test, scope)
        return self.evaluate_node(node.body if truth else node.orelse, scope)

    def _eval_NamedExpr(self, node, scope):
        value = self.evaluate_node(node.value, scope)
        self.assign(node.target, value, scope)
        return value

    def _eval_Yield(self, node, scope):
        """``yield x`` / ``yield from xs`` in a generator function: the values are collected for
        its caller (see ``call_function``); what ``yield`` evaluates to (``send()``) is None."""
        if not self.generators:
            raise self.fail("syntax error: 'yield' outside function", node, code="SF004")
        if isinstance(node.value, cst.From):
            self.generators[-1].extend(self.iterate(self.evaluate_node(node.value.item, scope), node))
        elif node.value is not None:
            self.generators[-1].append(self.evaluate_node(node.value, scope))
        else:
            self.generators[-1].append(None)
        return None

    def _eval_Lambda(self, node, scope):
        return Function("<lambda>", node, scope, self.source, self._defaults(node.params, scope))

    def _eval_Call(self, node, scope):
        func = node.func
        if isinstance(func, cst.Attribute):  # `_eval_Attribute`, unless it is a plain str method
            receiver = self.evaluate_node(func.value, scope)
            name = func.attr.value
            if name.startswith("__"):  # (scope.mangle's own first test, inline: most names are not private)
                name = scope.mangle(name)
            direct = type(receiver) is str and name in self.framework.direct_str_methods
            # (reading such a method has no effect: it is read after the arguments if need be)
            function = None if direct else self.get_attribute(receiver, name, func)
        else:
            function = self.evaluate_node(func, scope)
        if function is not None and function is self.builtins.get("locals") and not node.args:
            # the calling scope's names (a snapshot, as CPython gives inside a function; the
            # module's own namespace at the module level): only the call site knows the scope
            if self.construction_memo.recorders:
                self.construction_memo.frame_handed_out()
            return scope.vars if scope is scope.module else dict(scope.vars)
        args, kwargs = [], {}
        unread = isinstance(function, Unknown)  # the arguments are evaluated for their effects alone
        pure, too_large = type(function) is Builtin and function.pure, None
        for arg in node.args:
            if (unread or pure) and type(arg.value) in _COMPREHENSIONS and not arg.star:
                value = self._comprehension_argument(arg.value, scope, read=pure)
                if value is None:  # not all made: only the effects counted
                    too_large = too_large or arg.value
                    continue
            else:
                value = self.evaluate_node(arg.value, scope)
            if arg.star == "*":
                if isinstance(value, Unknown):
                    return value
                args.extend(self.iterate(value, arg))
            elif arg.star == "**":
                if isinstance(value, dict):
                    kwargs.update(value)
                elif isinstance(value, Unknown):
                    return value
            elif arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        if too_large is not None and not unread:  # a pure builtin, given more than it is worth building
            return Unknown(f"`{function.name}` of a comprehension over {_LARGEST_PURE_ARGUMENT:,}+ values is not "
                           "computed", self.location(too_large))
        if function is None:
            if not kwargs and (type(args[0]) is str if len(args) == 1 else all(type(a) is str for a in args)) \
                    and not self.construction_memo.recorders:
                return self.framework.call_python_method(self, receiver, name, args, kwargs, node)
            function = self.get_attribute(receiver, name, func)
        return self.call(function, args, kwargs, node)

    def _comprehension(self, for_in, scope, produce, first_iterable=MISSING) -> None:
        """``first_iterable``: the outermost clause's iterable, when already evaluated."""
        inner = scope.child()

        def walk(clause):
            iterable = first_iterable if clause is for_in and first_iterable is not MISSING \
                else self.evaluate_node(clause.iter, inner)
            for item in self.iterate(iterable, clause.iter):
                self.budget.loop(self, clause)
                self.assign(clause.target, item, inner)
                if all(self.decide(condition.test, inner) for condition in clause.ifs):
                    if clause.inner_for_in is not None:
                        walk(clause.inner_for_in)
                    else:
                        produce(inner)

        walk(for_in)

    def _eval_ListComp(self, node, scope):
        items: list = []
        self._comprehension(node.for_in, scope, lambda s: items.append(self.evaluate_node(node.elt, s)))
        return self.budget.container(self, items, node)

    def _comprehension_argument(self, node, scope, read: bool):
        """A list or generator comprehension given to a call of an unknown (``read`` false:
        its elements are never read, only their effects count), or of a pure builtin
        (``np.array([...])``: a builtin that changes nothing).  Over a range, once the first
        element ran no statement and called nothing but pure builtins (maths), no other element
        can have an effect: for an unknown the rest is not run; for a pure builtin neither when
        the elements would hold over _LARGEST_PURE_ARGUMENT values (the call's result is then an
        unknown, reported only if the model needs it).  The elements made, else None.
        transformers' sinusoidal tables, ``np.array([[pos / np.power(10000, 2 * (j // 2) / dim)
        for j in range(dim)] for pos in range(n_pos)])``, ran 2 x 524,288 elements for
        Marian's default config, past the loop budget.  (An element further on that would
        raise, a division by zero, is not found: the call's result is unknown either way.)"""
        clause, items = node.for_in, []
        produce = (lambda inner: items.append(self.evaluate_node(node.elt, inner)))
        iterable = MISSING
        if type(clause.target) is cst.Name and not clause.ifs and clause.inner_for_in is None:
            iterable = self.evaluate_node(clause.iter, scope)
            if type(iterable) is range and iterable:
                inner = scope.child()
                self.budget.loop(self, clause)
                self.assign(clause.target, iterable[0], inner)
                steps, calls = self.budget.steps, self.effectful_calls
                produce(inner)
                if self.budget.steps == steps and self.effectful_calls == calls and \
                        (not read or len(iterable) * _values_in(items[0]) > _LARGEST_PURE_ARGUMENT):
                    return None
                iterable = iterable[1:]
        self._comprehension(clause, scope, produce, iterable)
        return self.budget.container(self, items, node)

    def _eval_GeneratorExp(self, node, scope):
        return self._eval_ListComp(node, scope)

    def _eval_SetComp(self, node, scope):
        items = self._eval_ListComp(node, scope)
        try:
            return set(items)
        except TypeError:
            return items

    def _eval_DictComp(self, node, scope):
        result: list = [{}]

        def add(s):
            result[0] = self._dict_store(result[0], self.evaluate_node(node.key, s), self.evaluate_node(node.value, s))
        self._comprehension(node.for_in, scope, add)
        return result[0]
