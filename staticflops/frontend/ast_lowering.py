"""Third-party library source lowered from Python's own parser (``ast.parse``: parse only,
nothing is compiled or run) into the same ``syntax.py`` tree, with the same start positions,
that ``lowering.py`` makes out of the libcst parse.

Why: a model read from ``transformers`` parses ~100 library files (~60,000 lines) it never
edits or reports layout for; libcst's parse and the code-generation pass that finds its
positions cost ~9 s of a 11 s cold analysis of Llama-3-8B on the 2-core machine, Python's C
parser a few hundredths of that.  The analysed project's own files stay on libcst (the design:
libcst is the parser); only read-only library source takes this route (``source.py``).

What makes the two trees equal: ``ast`` keeps no parentheses, operator tokens, keywords or the
raw text of literals, and libcst places some nodes where the whitespace before them starts; so
each such place is found in the text next to the nodes ``ast`` does place, with a bracket table
built once per file (strings and comments skipped).  ``tests/test_ast_lowering.py`` compares the
two routes node by node and position by position over the samples, the test fixtures and the
transformers files a model reads.  Anything this module does not model (``match``, ``try*``,
type parameters, a text ``ast`` refuses) raises ``Unsupported``, and the file goes to libcst.

Indented blocks (function bodies, branches) and signature annotations are lowered on first read
(``syntax.CSTNode.__getattr__``): most functions of a library module are never called by the
analysis, most annotations never evaluated.  One this route cannot model (a ``match``) is taken
from the tree libcst makes then (``libcst_route.fields_from_libcst``).
"""

from __future__ import annotations

import ast
import bisect
from itertools import accumulate
import re
import warnings

import threading

from staticflops import pyast
from staticflops.frontend.syntax import FROM_TEXT, node_class


class Unsupported(Exception):
    """Text this route does not lower exactly: the caller parses it with libcst."""


# libcst's kept fields per class (``lowering._kept_fields``), for the classes made here;
# tests/test_ast_lowering.py checks each against libcst's own.
FIELDS = {
    "Module": ("body", "encoding", "default_indent", "default_newline", "has_trailing_newline"),
    "SimpleStatementLine": ("body",), "SimpleStatementSuite": ("body",), "IndentedBlock": ("body", "indent"),
    "FunctionDef": ("name", "params", "body", "decorators", "returns", "asynchronous", "type_parameters"),
    "ClassDef": ("name", "body", "bases", "keywords", "decorators", "type_parameters"),
    "Decorator": ("decorator",), "Asynchronous": (), "Annotation": ("annotation",),
    "Parameters": ("params", "star_arg", "kwonly_params", "star_kwarg", "posonly_params", "posonly_ind"),
    "Param": ("name", "annotation", "default", "star"), "ParamStar": (), "ParamSlash": (),
    "Return": ("value",), "Del": ("target",), "Assign": ("targets", "value"), "AssignTarget": ("target",),
    "AugAssign": ("target", "operator", "value"), "AnnAssign": ("target", "annotation", "value"),
    "For": ("target", "iter", "body", "orelse", "asynchronous"), "While": ("test", "body", "orelse"),
    "If": ("test", "body", "orelse"), "Else": ("body",), "Finally": ("body",),
    "With": ("items", "body", "asynchronous"), "WithItem": ("item", "asname"), "AsName": ("name",),
    "Raise": ("exc", "cause"), "From": ("item",), "Try": ("body", "handlers", "orelse", "finalbody"),
    "ExceptHandler": ("body", "type", "name"), "Assert": ("test", "msg"), "Import": ("names",),
    "ImportFrom": ("module", "names", "relative"), "ImportAlias": ("name", "asname"), "ImportStar": (),
    "Dot": (), "Global": ("names",), "Nonlocal": ("names",), "NameItem": ("name",), "Expr": ("value",),
    "Pass": (), "Break": (), "Continue": (),
    "BooleanOperation": ("left", "operator", "right"), "NamedExpr": ("target", "value"),
    "BinaryOperation": ("left", "operator", "right"), "UnaryOperation": ("operator", "expression"),
    "Lambda": ("params", "body"), "IfExp": ("test", "body", "orelse"), "Dict": ("elements",),
    "DictElement": ("key", "value"), "StarredDictElement": ("value",), "Set": ("elements",),
    "List": ("elements",), "Tuple": ("elements",), "Element": ("value",), "StarredElement": ("value",),
    "ListComp": ("elt", "for_in"), "SetComp": ("elt", "for_in"), "GeneratorExp": ("elt", "for_in"),
    "DictComp": ("key", "value", "for_in"), "CompFor": ("target", "iter", "ifs", "inner_for_in", "asynchronous"),
    "CompIf": ("test",), "Await": ("expression",), "Yield": ("value",),
    "Comparison": ("left", "comparisons"), "ComparisonTarget": ("operator", "comparator"),
    "Call": ("func", "args"), "Arg": ("value", "keyword", "star"), "Attribute": ("value", "attr"),
    "Subscript": ("value", "slice"), "SubscriptElement": ("slice",), "Index": ("value", "star"),
    "Slice": ("lower", "upper", "step"), "Name": ("value",), "Ellipsis": (),
    "Integer": ("value", "evaluated_value"), "Float": ("value", "evaluated_value"), "Imaginary": ("value",),
    "SimpleString": ("value", "evaluated_value"), "ConcatenatedString": ("left", "right", "evaluated_value"),
    "FormattedString": ("parts", "start", "end"), "FormattedStringText": ("value",),
    "FormattedStringExpression": ("expression", "conversion", "format_spec"),
}
_OPERATORS = {
    ast.Add: "Add", ast.Sub: "Subtract", ast.Mult: "Multiply", ast.Div: "Divide", ast.FloorDiv: "FloorDivide",
    ast.Mod: "Modulo", ast.Pow: "Power", ast.LShift: "LeftShift", ast.RShift: "RightShift", ast.BitOr: "BitOr",
    ast.BitXor: "BitXor", ast.BitAnd: "BitAnd", ast.MatMult: "MatrixMultiply",
}
_UNARY = {ast.Not: "Not", ast.USub: "Minus", ast.UAdd: "Plus", ast.Invert: "BitInvert"}
_COMPARE = {
    ast.Eq: "Equal", ast.NotEq: "NotEqual", ast.Lt: "LessThan", ast.LtE: "LessThanEqual", ast.Gt: "GreaterThan",
    ast.GtE: "GreaterThanEqual", ast.Is: "Is", ast.IsNot: "IsNot", ast.In: "In", ast.NotIn: "NotIn",
}
for _name in (*_OPERATORS.values(), *(f"{name}Assign" for name in _OPERATORS.values()), *_UNARY.values(),
              *_COMPARE.values(), "And", "Or"):
    FIELDS.setdefault(_name, ("value",) if _name == "NotEqual" else ())

_CLASSES: dict = {}


def _classes() -> dict:
    """The lowered classes this route makes, with libcst's fields (made on the first parse)."""
    if not _CLASSES:
        for name, fields in FIELDS.items():
            node_class(name)._fields = fields
            _CLASSES[name] = node_class(name)
    return _CLASSES


# Strings and comments (their brackets are text), and the brackets themselves.
_STRING = (r"[A-Za-z]{0,2}(?:'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^\"\\]|\\.|\"(?!\"\"))*\"\"\""
           r"|'(?:[^'\\\r\n]|\\.|\\\r\n)*'|\"(?:[^\"\\\r\n]|\\.|\\\r\n)*\")")
# A string's prefix letters hold no bracket, so the brackets' walk matches strings from their
# quote (and no names: a walk over every identifier cost ~3x as much).
_TOKENS = re.compile(r"#[^\r\n]*|" + _STRING.replace("[A-Za-z]{0,2}", "", 1) + r"|[()\[\]{}]", re.DOTALL)
_PIECE = re.compile(_STRING, re.DOTALL)
_STRINGS = re.compile(r"#[^\r\n]*|" + _STRING, re.DOTALL)  # comments first: a quote in one is text
# What the guard's token count and depth are bounded by (see ``_Lowerer.within_limits``).
_COUNTED = re.compile(r"#[^\r\n]*|" + _STRING + r"|\w+|[^\s\w]", re.DOTALL)
_NESTING = re.compile(r"(?P<c>#[^\r\n]*)|(?P<s>" + _STRING + r")|[(\[{.+\-*/%@<>=&|^~:]"
                      r"|\b(?:and|or|not|in|is|if|else|await|yield|lambda|for)\b", re.DOTALL)
_BLANK = re.compile(r"(?:[ \t\f\r\n]|\\\r?\n|\\\r|#[^\r\n]*)*")
_BLANK_STARTS = frozenset(" \t\f\r\n\\#")  # what a match of _BLANK that is not empty starts with
_ELSEWHERE = object()  # _Lowerer._opening_before: the bracket table decides
_INLINE = re.compile(r"(?:[ \t\f]|\\\r?\n|\\\r)*")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_INDENT = re.compile(r"[ \t\f]*")
_IDENTIFIER = re.compile(r"\w+")
_WIDE = re.compile(r"[^\x00-\x7f]+")



def _parse(text: str) -> ast.Module:
    """CPython's parse of ``text``; what it refuses is ``Unsupported`` (the caller falls back)."""
    with warnings.catch_warnings():  # invalid escapes and the like: not ours to print
        warnings.simplefilter("ignore")
        try:
            return pyast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            raise Unsupported(str(error)) from None


def lower_library_source(text: str, name: str = "", parse_limits: tuple | None = None,
                         lazy_bodies: bool = True) -> tuple:
    """(lowered module, {node: (line, zero-based column)}), or ``Unsupported``.
    ``parse_limits``: (--max-tokens, --max-expr-depth): the text is refused where
    ``parse_guard.check_parse_cost`` refuses it, which runs unless cheap counts prove it
    would pass (``_Lowerer.within_limits``).  ``lazy_bodies``: indented blocks and signature
    annotations lowered on first read (else all at once)."""
    if re.search(r"\r(?!\n)", text):  # old Mac line ends: libcst reads the file's end otherwise
        raise Unsupported("carriage return alone")
    tree = _parse(text)
    _classes()
    lowerer = _Lowerer(text)
    lowerer.name, lowerer.lazy_bodies = name, lazy_bodies
    if parse_limits is not None and not lowerer.within_limits(tree, *parse_limits):
        from staticflops.frontend.parse_guard import check_parse_cost

        check_parse_cost(text, name, *parse_limits)
    try:
        return lowerer.module(tree), lowerer.positions
    except RecursionError:
        raise Unsupported("nests too deeply") from None


class _Lowerer:
    def __init__(self, text: str, line_base: int = 0, positions: dict | None = None,
                 default_indent: str = "    "):
        self.text = text
        self.line_base = line_base  # an f-string field parsed alone: its first line is this + 1
        self.positions = {} if positions is None else positions
        self.starts = _line_starts(text)
        self.ascii = text.isascii()
        # The lines (from 1) holding a character past ASCII, where ``ast``'s byte columns are not
        # character columns: a library file's few (a `’` in a docstring), so that its other
        # nodes skip the conversion (~80,000 of them in a Llama run's files).
        self.wide = frozenset() if self.ascii else frozenset(
            bisect.bisect_right(self.starts, match.start()) for match in _WIDE.finditer(text))
        self.default_indent = default_indent
        self._brackets: dict | None = None

    # ---- offsets and positions ------------------------------------------------------------
    def offset(self, line: int, byte_column: int) -> int:
        """Character offset in the text of ``ast``'s (line, UTF-8 byte column)."""
        start = self.starts[line - 1]
        if line not in self.wide:
            return start + byte_column
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        row = self.text[start:end]
        if row.isascii():
            return start + byte_column
        return start + len(row.encode("utf-8")[:byte_column].decode("utf-8", "replace"))

    def position(self, offset: int) -> tuple:
        line = bisect.bisect_right(self.starts, offset)
        return line + self.line_base, offset - self.starts[line - 1]

    def start(self, node) -> int:
        line = node.lineno
        if line not in self.wide:  # most lines: byte columns are character columns
            return self.starts[line - 1] + node.col_offset
        return self.offset(line, node.col_offset)

    def end(self, node) -> int:
        line = node.end_lineno
        if line not in self.wide:
            return self.starts[line - 1] + node.end_col_offset
        return self.offset(line, node.end_col_offset)

    def skip(self, offset: int) -> int:
        """The next offset past whitespace, line continuations and comments."""
        if self.text[offset:offset + 1] not in _BLANK_STARTS:  # most calls: nothing to skip, no regex
            return offset
        return _BLANK.match(self.text, offset).end()

    @property
    def brackets(self) -> dict:
        """Offset of each bracket -> offset of its partner (strings and comments skipped)."""
        if self._brackets is None:
            pairs, stack = {}, []
            for match in _TOKENS.finditer(self.text):
                char = match.group()
                if char in ("(", "[", "{"):
                    stack.append(match.start())
                elif char in (")", "]", "}") and stack:
                    opened = stack.pop()
                    pairs[opened], pairs[match.start()] = match.start(), opened
            self._brackets = pairs
        return self._brackets

    def outer(self, node) -> tuple:
        """(start, end) of an expression with the parentheses that group it alone."""
        start, end = self.start(node), self.end(node)
        text, brackets = self.text, None
        while True:
            after = self.skip(end)
            if after >= len(text) or text[after] != ")":
                return start, end
            opened = self._opening_before(start)
            if opened is _ELSEWHERE:  # past a line end, where a comment may hold a bracket: the table
                brackets = brackets or self.brackets
                opened = brackets.get(after)
                if opened is not None and self.skip(opened + 1) != start:
                    opened = None
            if opened is None or opened in self.syntactic:
                return start, end
            start, end = opened, after + 1

    def _opening_before(self, start: int):
        """The ``(`` that only blanks separate from ``start``, else None when another character
        does (no parenthesis can group what starts there), else ``_ELSEWHERE`` when a line passed
        on the way back may end in a comment (which would hide the character before).  Such a
        ``(`` is code (a string would have to end between), and what lies between it and a ``)``
        past the expression, only blanks, is balanced: they are partners, found without the
        file's bracket table (~1 ms per 1,000 lines)."""
        text = self.text
        at = start - 1
        crossed = False
        while at >= 0:
            char = text[at]
            if char in " \t\f":
                at -= 1
            elif char in "\r\n":
                crossed = True
                at -= 1
                if at >= 0 and text[at] == "\\":  # a line continuation
                    at -= 1
            else:
                break
        if at < 0:
            return None
        if crossed and "#" in text[max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1:at]:
            return _ELSEWHERE
        return at if text[at] == "(" else None

    def _in_own_parentheses(self, node: ast.Tuple, start: int) -> bool:
        """Whether a tuple starting at ``start`` is written in parentheses of its own (``(a, b)``,
        not ``(a), b``): then its first element starts past the ``(``, even with the
        parentheses that group that element alone."""
        return self.text[start] == "(" and (not node.elts or self.outer(node.elts[0])[0] > start)

    name = ""  # the file's, for messages
    syntactic: set = frozenset()  # parentheses a call or definition owns (set per file)
    lazy_bodies = True  # indented blocks and signature annotations lowered on first read (not in ``block_body``)

    # ---- the parse limits, proven without the tokenizer ----------------------------------
    def within_limits(self, tree: ast.Module, max_tokens: int, max_depth: int) -> bool:
        """Whether ``parse_guard`` would surely pass this text, from two upper bounds that C
        regular expressions count (the guard walks Python's tokenizer in Python: ~0.9 s for
        the 100 files a Llama analysis reads).  Tokens: every token but INDENT/DEDENT/NEWLINE
        spans a name, number, string, comment or operator character, each counted here as
        one; three more per line cover those; an f-string's fields add at most twice their
        characters and six each.  Depth: the guard's depth grows by at most one per character
        (two for a call's or subscript's bracket, after a name of one or more) and starts again
        at each logical line, so a logical line (a statement, a compound statement's header, a
        decorator) shorter than half the limit cannot pass it; a longer one has its nesting
        tokens counted, each bracket twice.  False: the guard decides."""
        text = self.text
        # the f-strings' fields add at most 2 per character and 6 per brace of the whole text:
        # when that bound passes, the strings need no scan (most files: the scan cost ~1 ms per 25 kB)
        fields = 2 * len(text) + 6 * text.count("{")
        if len(text) + 3 * len(self.starts) + fields + 2 > max_tokens:
            fields = self._field_bound()
        per_line = 3 * len(self.starts) + fields + 2
        if len(text) + per_line > max_tokens and _COUNTED.subn("", text)[1] + per_line > max_tokens:
            return False  # (a counted token has a character at least: most files need no count)
        budget = max_depth - 1
        try:
            for start, end in self._long_logical_lines(tree.body, budget // 2):
                if _one_docstring(text, start, end):  # most long lines: nests 1 deep
                    continue
                if _nesting(text[start:end]) >= budget:
                    return False
        except (AttributeError, IndexError):  # `match` and the like: the guard decides
            return False
        return True

    def _field_bound(self) -> int:
        """What the f-strings' fields add to the guard's token count, at most."""
        fields = 0
        for match in _STRINGS.finditer(self.text):
            literal = match.group()
            if literal[0] != "#" and "f" in literal[:literal.index(literal[-1])].lower():
                fields += 2 * len(literal) + 6 * literal.count("{")  # a field's f-string is walked again
        return fields

    def _long_logical_lines(self, body: list, minimum: int) -> list:
        """(start, end) of the logical lines of ``body`` (statements, compound statements'
        headers, decorators) at least ``minimum`` characters long, blocks inside included.
        A loop over a stack of blocks: a generator per block cost a resumption per level for
        each of a file's ~1,000 statements."""
        start, end = self.start, self.end
        found, blocks = [], [body]
        while blocks:
            for statement in blocks.pop():
                if not isinstance(statement, _COMPOUND):
                    # on one line, ending before column `minimum` (UTF-8 bytes, at least as many as
                    # characters): shorter (most statements: no offsets needed)
                    if statement.end_lineno == statement.lineno and statement.end_col_offset < minimum:
                        continue
                    if end(statement) - start(statement) >= minimum:
                        found.append((start(statement), end(statement)))
                    continue
                decorators = getattr(statement, "decorator_list", ())
                if end(statement) - (start(decorators[0]) - 1 if decorators else start(statement)) < minimum:
                    continue  # the whole statement is shorter: each line it holds too
                spans = [(start(decorator) - 1, end(decorator)) for decorator in getattr(statement, "decorator_list", ())]
                spans.append((start(statement), start(statement.body[0])))
                for handler in getattr(statement, "handlers", ()):
                    spans.append((start(handler), start(handler.body[0])))
                    blocks.append(handler.body)
                found.extend(span for span in spans if span[1] - span[0] >= minimum)
                blocks.extend((statement.body, getattr(statement, "orelse", ()), getattr(statement, "finalbody", ())))
        return found

    def make(self, name: str, at, *values):
        """A node of libcst's class ``name`` starting at ``at`` (an offset, or (line, column))."""
        cls = _CLASSES[name]
        node = cls.__new__(cls)
        node.__dict__.update(zip(cls._fields, values))
        if type(at) is int:
            line = bisect.bisect_right(self.starts, at)
            at = (line + self.line_base, at - self.starts[line - 1])
        self.positions[node] = at
        return node

    def lazy(self, name: str, at, fill, *arguments):
        """A node whose fields are made on first read (``FROM_TEXT``: the parsed-module cache
        stores one never read as a stub, lowered from the text again when a later run reads it)."""
        cls = _CLASSES[name]
        node = cls.__new__(cls)
        position = self.positions[node] = at if type(at) is tuple else self.position(at)

        def lower(target, _):
            try:
                values = fill(*arguments)
            except Unsupported:  # a `match` in a body: libcst's parse gives the same node
                from staticflops.frontend.libcst_route import fields_from_libcst

                values = fields_from_libcst(self.text, self.name, name, position, self.positions)
            target.__dict__.update(zip(cls._fields, values))

        node.__dict__["_pending"] = (lower, FROM_TEXT)
        return node

    # ---- the module and statements --------------------------------------------------------
    def module(self, tree: ast.Module):
        self.syntactic = set()
        text = self.text
        newline = _NEWLINE.search(text)
        self.default_indent = self._first_indent(tree.body, "") or "    "
        body = self.statements(tree.body, "")
        return self.make("Module", (1, 0), body, "utf-8", self.default_indent,
                         newline.group() if newline else "\n", text.endswith(("\n", "\r")))

    def _first_indent(self, statements: list, outer: str):
        """libcst's default indent: the first indented block's indentation past its header's."""
        for statement in statements:
            for block in _blocks(statement):
                if not block:
                    continue
                if self._suite(block):
                    continue
                indent = self.indentation(block[0])
                if indent.startswith(outer) and len(indent) > len(outer):
                    return indent[len(outer):]
                found = self._first_indent(block, indent)
                if found:
                    return found
        return None

    def indentation(self, statement) -> str:
        start = self.starts[statement.lineno - 1]
        return _INDENT.match(self.text, start).group()

    def _suite(self, body: list) -> bool:
        """Whether a compound statement's body shares its header's line (``if x: pass``)."""
        first = body[0]
        line_start = self.starts[first.lineno - 1]
        return self.text[line_start:self.start(first)].strip(" \t\f") != ""

    def statements(self, body: list, indent: str) -> tuple:
        out, line = [], []
        for statement in body:
            if isinstance(statement, _COMPOUND):
                if line:
                    out.append(self._line(line))
                    line = []
                out.append(self.compound(statement, indent))
                continue
            if line and not self._after_semicolon(line[-1], statement):
                out.append(self._line(line))
                line = []
            line.append(statement)
        if line:
            out.append(self._line(line))
        return tuple(out)

    def _after_semicolon(self, previous, statement) -> bool:
        at = self.skip_inline(self.end(previous))
        return self.text.startswith(";", at)

    def skip_inline(self, offset: int) -> int:
        """Past spaces and line continuations only (a comment ends the logical line)."""
        return _INLINE.match(self.text, offset).end()

    def _line(self, statements: list):
        small = tuple(self.small(statement) for statement in statements)
        return self.make("SimpleStatementLine", self.positions[small[0]], small)

    def block(self, body: list, indent: str):
        """A compound statement's block (``indent``: its header's line's); an indented one is
        lowered on first read with lazy bodies: the interpreter skips whole blocks (a function
        never called, a branch not taken)."""
        if self._suite(body):
            small = tuple(self.small(statement) for statement in body)
            return self.make("SimpleStatementSuite", self.positions[small[0]], small)
        inner = self.indentation(body[0])
        if not inner.startswith(indent) or len(inner) <= len(indent):
            raise Unsupported("indentation libcst would read otherwise")
        relative = inner[len(indent):]
        own = None if relative == self.default_indent else relative
        at = self.start(body[0])  # libcst: where its first statement starts (a `def`, not its decorators)
        if self.lazy_bodies:
            return self.lazy("IndentedBlock", at, lambda: (self.statements(body, inner), own))
        return self.make("IndentedBlock", at, self.statements(body, inner), own)

    def block_fields(self, body: list, header) -> tuple:
        """(statements, own indent) of the indented block ``body`` of the compound statement
        ``header``: its lazy block's fields."""
        indent = self.indentation(header)  # the block the header stands in (never a one-line suite)
        inner = self.indentation(body[0])
        if not inner.startswith(indent) or len(inner) <= len(indent):
            raise Unsupported("indentation libcst would read otherwise")
        relative = inner[len(indent):]
        return self.statements(body, inner), None if relative == self.default_indent else relative

    def compound(self, node, indent: str):
        kind = type(node)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            return self.function(node, indent)
        if kind is ast.ClassDef:
            return self.class_def(node, indent)
        if kind is ast.If:
            return self.if_statement(node, indent)
        if kind in (ast.For, ast.AsyncFor):
            start = self.start(node)
            return self.make("For", start, self.expression(node.target), self.expression(node.iter),
                             self.block(node.body, indent), self.else_block(node.body, node.orelse, indent),
                             self.asynchronous(node, start))
        if kind is ast.While:
            return self.make("While", self.start(node), self.expression(node.test), self.block(node.body, indent),
                             self.else_block(node.body, node.orelse, indent))
        if kind in (ast.With, ast.AsyncWith):
            return self.with_statement(node, indent)
        if kind is ast.Try:
            return self.try_statement(node, indent)
        raise Unsupported(kind.__name__)

    def asynchronous(self, node, start: int):
        return self.make("Asynchronous", start) if type(node).__name__.startswith("Async") else None

    def _decorator_at(self, decorator) -> int:
        at = self.outer(decorator)[0] - 1
        while self.text[at] in " \t\f":
            at -= 1
        if self.text[at] != "@":
            raise Unsupported("decorator")
        return at

    def decorators(self, node) -> tuple:
        return tuple(self.make("Decorator", self._decorator_at(decorator), self.expression(decorator))
                     for decorator in node.decorator_list)

    def _name_after(self, offset: int, keyword: str):
        """The identifier after ``keyword`` at ``offset`` (``def f``, ``class A``)."""
        if not self.text.startswith(keyword, offset):
            raise Unsupported(keyword)
        at = self.skip(offset + len(keyword))
        word = _IDENTIFIER.match(self.text, at)
        return word.end(), word

    def function(self, node, indent: str):
        if getattr(node, "type_params", None):
            raise Unsupported("type parameters")
        start = self.start(node)
        keyword = self.skip(start + 5) if isinstance(node, ast.AsyncFunctionDef) else start
        name_end, word = self._name_after(keyword, "def")
        name = self.make("Name", word.start(), node.name)
        opening = self.skip(name_end)
        if self.text[opening] != "(":
            raise Unsupported("def")
        self.syntactic.add(opening)
        params = self.parameters(node.args, opening + 1, self.skip(opening + 1))
        returns = None
        if node.returns is not None:
            returns = self.signature_annotation(node.returns)
        decorators = self.decorators(node)
        body = self.block(node.body, indent)
        return self.make("FunctionDef", start, name, params, body, decorators, returns,
                         self.asynchronous(node, start), None)

    def class_def(self, node, indent: str):
        if getattr(node, "type_params", None):
            raise Unsupported("type parameters")
        start = self.start(node)
        name_end, word = self._name_after(start, "class")
        name = self.make("Name", word.start(), node.name)
        opening = self.skip(name_end)
        if self.text[opening] == "(":
            self.syntactic.add(opening)
        arguments = self.arguments(node.bases, node.keywords)
        bases = tuple(argument for argument in arguments if argument.keyword is None and argument.star != "**")
        keywords = tuple(argument for argument in arguments if argument.keyword is not None or argument.star == "**")
        if arguments[:len(bases)] != bases:  # `class A(k=1, *b)`: libcst splits it otherwise
            raise Unsupported("class arguments out of order")
        return self.make("ClassDef", start, name, self.block(node.body, indent), bases, keywords,
                         self.decorators(node), None)

    def if_statement(self, node, indent: str, elif_: bool = False):
        start = self.start(node)
        test, body = self.expression(node.test), self.block(node.body, indent)
        orelse = None
        if node.orelse:
            first = node.orelse[0]
            if len(node.orelse) == 1 and isinstance(first, ast.If) and self.text.startswith("elif", self.start(first)):
                orelse = self.if_statement(first, indent, elif_=True)
            else:
                orelse = self.else_block(node.body, node.orelse, indent)
        return self.make("If", start, test, body, orelse)

    def _keyword_line(self, after, keyword: str, indent: str) -> int:
        """Offset of ``keyword`` (``else``, ``finally``) starting a line after the statement
        ``after`` ends, at the header's indentation."""
        line = after.end_lineno
        while line < len(self.starts):
            at = self.starts[line] + len(indent)
            if self.text.startswith(keyword, at) and not self.text[at + len(keyword):at + len(keyword) + 1].isidentifier() \
                    and self.text[self.starts[line]:at].strip(" \t\f") == "":
                return at
            line += 1
        raise Unsupported(keyword)

    def else_block(self, body: list, orelse: list, indent: str):
        if not orelse:
            return None
        at = self._keyword_line(body[-1], "else", indent)
        return self.make("Else", at, self.block(orelse, indent))

    def with_statement(self, node, indent: str):
        start = self.start(node)
        items = []
        for item in node.items:
            asname = None
            if item.optional_vars is not None:
                asname = self.make("AsName", self.outer(item.context_expr)[1], self.expression(item.optional_vars))
            items.append(self.make("WithItem", self.outer(item.context_expr)[0], self.expression(item.context_expr),
                                   asname))
        return self.make("With", start, tuple(items), self.block(node.body, indent), self.asynchronous(node, start))

    def try_statement(self, node, indent: str):
        handlers = []
        for handler in node.handlers:
            name = None
            if handler.name is not None:
                as_at = self.outer(handler.type)[1]
                word = _IDENTIFIER.match(self.text, self.skip(self.skip(as_at) + 2))
                name = self.make("AsName", as_at, self.make("Name", word.start(), handler.name))
            kind = None if handler.type is None else self.expression(handler.type)
            handlers.append(self.make("ExceptHandler", self.start(handler), self.block(handler.body, indent), kind, name))
        last = node.handlers[-1] if node.handlers else node.body[-1]
        last = last.body[-1] if isinstance(last, ast.ExceptHandler) else last
        orelse = self.else_block([last], node.orelse, indent)
        finalbody = None
        if node.finalbody:
            before = node.orelse[-1] if node.orelse else last
            finalbody = self.make("Finally", self._keyword_line(before, "finally", indent),
                                  self.block(node.finalbody, indent))
        return self.make("Try", self.start(node), self.block(node.body, indent), tuple(handlers), orelse, finalbody)

    def small(self, node):
        kind = type(node)
        start = self.start(node)
        if kind is ast.Expr:
            return self.make("Expr", start, self.expression(node.value))
        if kind is ast.Assign:
            targets = tuple(self.make("AssignTarget", self.outer(target)[0], self.expression(target))
                            for target in node.targets)
            return self.make("Assign", start, targets, self.expression(node.value))
        if kind is ast.Return:
            return self.make("Return", start, self.optional(node.value))
        if kind is ast.Pass:
            return self.make("Pass", start)
        if kind is ast.AugAssign:
            at = self.skip(self.outer(node.target)[1])
            operator = self.make(_OPERATORS[type(node.op)] + "Assign", at)
            return self.make("AugAssign", start, self.expression(node.target), operator, self.expression(node.value))
        if kind is ast.AnnAssign:
            annotation = self.make("Annotation", self.outer(node.annotation)[0], self.expression(node.annotation))
            return self.make("AnnAssign", start, self.expression(node.target), annotation, self.optional(node.value))
        if kind is ast.Raise:
            cause = None
            if node.cause is not None:
                cause = self.make("From", self.skip(self.outer(node.exc)[1]), self.expression(node.cause))
            return self.make("Raise", start, self.optional(node.exc), cause)
        if kind in (ast.Import, ast.ImportFrom):
            return self.import_statement(node, start)
        if kind is ast.Assert:
            return self.make("Assert", start, self.expression(node.test), self.optional(node.msg))
        if kind in (ast.Global, ast.Nonlocal):
            names, at = [], start + (6 if kind is ast.Global else 8)
            for name in node.names:
                word = _IDENTIFIER.match(self.text, self._past_comma(at))
                names.append(self.make("NameItem", word.start(), self.make("Name", word.start(), name)))
                at = word.end()
            return self.make(kind.__name__, start, tuple(names))
        if kind is ast.Delete:
            if len(node.targets) == 1:
                target = self.expression(node.targets[0])
            else:
                target = self.make("Tuple", self.outer(node.targets[0])[0], self.elements(node.targets))
            return self.make("Del", start, target)
        if kind is ast.Break:
            return self.make("Break", start)
        if kind is ast.Continue:
            return self.make("Continue", start)
        raise Unsupported(kind.__name__)

    def _past_comma(self, offset: int) -> int:
        at = self.skip(offset)
        return self.skip(at + 1) if self.text.startswith(",", at) else at

    def import_statement(self, node, start: int):
        text = self.text
        at = start + 6  # `import`
        module, relative = None, ()
        if isinstance(node, ast.ImportFrom):
            at = self.skip(start + 4)  # `from`
            dots = []
            while text.startswith(".", at):
                dots.append(self.make("Dot", at))
                at = self.skip(at + 1)
            relative = tuple(dots)
            if node.module:
                module, at = self.dotted(at, node.module)
            at = self.skip(at) + 6  # `import`
            if [alias.name for alias in node.names] == ["*"]:
                star = self.skip(at)
                return self.make("ImportFrom", start, module, self.make("ImportStar", star), relative)
        names = []
        for alias in node.names:
            at = self._past_comma(at)
            if text.startswith("(", at):
                at = self.skip(at + 1)
            alias_at = at
            name, at = self.dotted(at, alias.name)
            asname = None
            if alias.asname is not None:
                word = _IDENTIFIER.match(text, self.skip(self.skip(at) + 2))
                asname = self.make("AsName", at, self.make("Name", word.start(), alias.asname))
                at = word.end()
            names.append(self.make("ImportAlias", alias_at, name, asname))
        if isinstance(node, ast.ImportFrom):
            return self.make("ImportFrom", start, module, tuple(names), relative)
        return self.make("Import", start, tuple(names))

    def dotted(self, at: int, dotted: str) -> tuple:
        """(Name or Attribute, end offset) of a dotted module name written at ``at``."""
        node = None
        first = at
        for part in dotted.split("."):
            if node is not None:
                at = self.skip(self.skip(at) + 1)  # the dot
            word = _IDENTIFIER.match(self.text, at)
            if word is None:
                raise Unsupported("dotted name")
            name = self.make("Name", word.start(), part)
            node = name if node is None else self.make("Attribute", first, node, name)
            at = word.end()
        return node, at

    # ---- parameters and arguments ---------------------------------------------------------
    def parameters(self, arguments: ast.arguments, empty_at: int, cursor: int):
        """``empty_at``: where libcst places an empty parameter list."""
        positional = arguments.posonlyargs + arguments.args
        defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
        made = [self.param(arg, default) for arg, default in zip(positional, defaults)]
        posonly, params = tuple(made[:len(arguments.posonlyargs)]), tuple(made[len(arguments.posonlyargs):])
        slash = star_arg = star_kwarg = None
        if posonly:
            slash = self.make("ParamSlash", self._past_comma(self._param_end(positional[len(posonly) - 1],
                                                                         defaults[len(posonly) - 1])))
        kwonly = tuple(self.param(arg, default) for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults))
        if arguments.vararg is not None:
            star_arg = self.param(arguments.vararg, None, "*")
        elif kwonly:
            if positional:
                at = self._past_comma(self._param_end(positional[-1], defaults[-1]))
                if posonly and not params:
                    at = self._past_comma(self.positions_offset(slash) + 1)
            else:
                at = cursor
            if not self.text.startswith("*", at):
                raise Unsupported("bare star")
            star_arg = self.make("ParamStar", at)
        if arguments.kwarg is not None:
            star_kwarg = self.param(arguments.kwarg, None, "**")
        made = [item for item in (*posonly, *params, star_arg, *kwonly, star_kwarg) if item is not None]
        at = min((self.positions[item] for item in made), default=self.position(empty_at))
        return self.make("Parameters", at, params, star_arg, kwonly, star_kwarg, posonly, slash)

    def positions_offset(self, node) -> int:
        line, column = self.positions[node]
        return self.starts[line - self.line_base - 1] + column

    def _param_end(self, arg, default) -> int:
        if default is not None:
            return self.outer(default)[1]
        if arg.annotation is not None:
            return self.outer(arg.annotation)[1]
        return self.end(arg)

    def param(self, arg: ast.arg, default, star: str = ""):
        start = self.start(arg)
        name = self.make("Name", start, arg.arg)
        annotation = None
        if arg.annotation is not None:
            annotation = self.signature_annotation(arg.annotation)
        at = start
        if star:
            at = start - 1
            while self.text[at] != "*":
                at -= 1
            at -= len(star) - 1
        return self.make("Param", at, name, annotation, self.optional(default), star)

    def signature_annotation(self, expression):
        """A parameter's or a return's ``Annotation``; with lazy bodies, its expression is lowered
        on first read, like a body: the analysis reads few of them (a Llama run: ~90 of ~5,400),
        and an unread one is stored as a stub (``parsed_cache.py``), ~a quarter of the nodes."""
        at = self.outer(expression)[0]
        if self.lazy_bodies:
            return self.lazy("Annotation", at, lambda: (self.expression(expression),))
        return self.make("Annotation", at, self.expression(expression))

    def arguments(self, args: list, keywords: list) -> tuple:
        made = []
        for arg in args:
            if isinstance(arg, ast.Starred):
                made.append((self.start(arg), self.make("Arg", self.start(arg), self.expression(arg.value), None, "*")))
            else:
                start = self.outer(arg)[0]
                if isinstance(arg, ast.GeneratorExp) and start in self.syntactic:  # `f(x for x in y)`
                    start = self.outer(arg.elt)[0]
                made.append((start, self.make("Arg", start, self.expression(arg), None, "")))
        for keyword in keywords:
            start = self.start(keyword)
            if keyword.arg is None:
                made.append((start, self.make("Arg", start, self.expression(keyword.value), None, "**")))
            else:
                made.append((start, self.make("Arg", start, self.expression(keyword.value),
                                              self.make("Name", start, keyword.arg), "")))
        made.sort(key=lambda pair: pair[0])
        return tuple(arg for _, arg in made)

    # ---- expressions ----------------------------------------------------------------------
    def optional(self, node):
        return None if node is None else self.expression(node)

    def expression(self, node):
        method = _EXPRESSIONS.get(type(node))
        if method is None:
            method = _EXPRESSIONS[type(node)] = getattr(_Lowerer, "_" + type(node).__name__, None)
            if method is None:
                raise Unsupported(type(node).__name__)
        return method(self, node)

    def here(self, node) -> tuple:
        """(line, column) where ``node`` starts, as ``make`` takes it: most nodes need neither an
        offset nor the search back from one."""
        line = node.lineno
        if line in self.wide:
            return self.position(self.offset(line, node.col_offset))
        return line + self.line_base, node.col_offset

    def _Name(self, node):
        return self.make("Name", self.here(node), node.id)

    def _Attribute(self, node):
        end = at = self.end(node)
        text = self.text
        while text[at - 1].isidentifier() or text[at - 1].isdigit():  # back over the attribute's name
            at -= 1
        if at == end:
            raise Unsupported("attribute")
        return self.make("Attribute", self.here(node), self.expression(node.value), self.make("Name", at, node.attr))

    def _Call(self, node):
        func_end = self.outer(node.func)[1]
        opening = self.skip(func_end)
        self.syntactic.add(opening)
        return self.make("Call", self.here(node), self.expression(node.func), self.arguments(node.args, node.keywords))

    def _Constant(self, node):
        value, start = node.value, self.start(node)
        kind = type(value)
        if kind in (str, bytes):
            return self.string(node)
        if value is None or kind is bool:
            return self.make("Name", self.here(node), repr(value))
        if value is Ellipsis:
            return self.make("Ellipsis", start)
        raw = self.text[start:self.end(node)]
        if kind is int:
            return self.make("Integer", start, raw, value)
        if kind is float:
            return self.make("Float", start, raw, value)
        if kind is complex:
            return self.make("Imaginary", start, raw)
        raise Unsupported(kind.__name__)

    def _JoinedStr(self, node):
        return self.string(node)

    def string(self, node):
        start, end = self.start(node), self.end(node)
        pieces, at = [], start
        while at < end:
            piece = _PIECE.match(self.text, at)
            if piece is None:
                raise Unsupported("string")
            pieces.append(piece)
            at = self.skip(piece.end())
        if len(pieces) == 1 and not isinstance(node, ast.JoinedStr):
            return self.make("SimpleString", start, pieces[0].group(), node.value)
        made = [self.piece(piece) for piece in pieces]
        right = made[-1]
        value = made[-1].evaluated_value if "evaluated_value" in made[-1].__dict__ else None
        for piece, item in zip(reversed(made[:-1]), reversed(pieces[:-1])):
            left_value = piece.__dict__.get("evaluated_value")
            if value is not None and left_value is not None and type(value) is type(left_value):
                value = left_value + value
            else:
                value = None
            right = self.make("ConcatenatedString", item.start(), piece, right, _kept(value))
        return right

    def piece(self, piece):
        raw = piece.group()
        quote = raw.index(raw[-1])
        prefix = raw[:quote].lower()
        if "f" in prefix:
            return self.formatted(raw, piece.start(), quote)
        # one string-literal token: literal_eval only parses a literal, it runs nothing (libcst's
        # evaluated_value, the other route's source of this value, calls the same function)
        return self.make("SimpleString", piece.start(), raw, _kept(ast.literal_eval(raw)))

    def formatted(self, raw: str, start: int, quote: int):
        quotes = 3 if raw[quote:quote + 3] in ('"""', "'''") and len(raw) >= quote + 6 else 1
        opening, closing = raw[:quote + quotes], raw[len(raw) - quotes:]
        parts = self.format_parts(raw, start, quote + quotes, len(raw) - quotes, "r" in opening.lower())
        return self.make("FormattedString", start, tuple(parts), opening, closing)

    def format_parts(self, raw: str, base: int, at: int, stop: int, is_raw: bool) -> list:
        """The text and replacement fields of ``raw[at:stop]`` (``base``: ``raw``'s offset)."""
        parts, text_start = [], at
        while at < stop:
            char = raw[at]
            if char in "{}" and raw[at + 1:at + 2] == char:
                at += 2
                continue
            if char == "\\" and not is_raw:
                at += 2
                continue
            if char == "{":
                if at > text_start:
                    parts.append(self.make("FormattedStringText", base + text_start, raw[text_start:at]))
                field_end, part = self.field(raw, base, at, stop, is_raw)
                parts.append(part)
                at = text_start = field_end
                continue
            if char == "}":
                raise Unsupported("f-string")
            at += 1
        if stop > text_start:
            parts.append(self.make("FormattedStringText", base + text_start, raw[text_start:stop]))
        return parts

    def field(self, raw: str, base: int, at: int, stop: int, is_raw: bool) -> tuple:
        """(offset past the field's ``}``, FormattedStringExpression) for the field at ``raw[at] == "{"``."""
        index, depth = at + 1, 0
        expression_end = conversion = spec = None
        while index < stop:
            char = raw[index]
            if char in "'\"":
                close = raw.find(char, index + 1)
                if close < 0:
                    raise Unsupported("f-string")
                index = close + 1
                continue
            if char in "([{":
                depth += 1
            elif char in ")]" or (char == "}" and depth):
                depth -= 1
            elif depth == 0 and char in "!:=}":
                if char == "!" and raw[index + 1:index + 2] == "=":
                    index += 2
                    continue
                if char == "=" and (raw[index + 1:index + 2] == "=" or raw[index - 1] in "=!<>"):
                    index += 1
                    continue
                if expression_end is None:
                    expression_end = index
                if char == "=":
                    index += 1
                    continue
                if char == "!":
                    conversion = raw[index + 1]
                    index += 2
                    continue
                if char == ":":
                    spec_end = self._spec_end(raw, index + 1, stop)
                    spec = tuple(self.format_parts(raw, base, index + 1, spec_end, is_raw))
                    index = spec_end
                    continue
                break  # the closing brace
            index += 1
        if index >= stop or expression_end is None:
            raise Unsupported("f-string")
        expression = self.sub_expression(base + at + 1, base + expression_end)
        return index + 1, self.make("FormattedStringExpression", base + at, expression, conversion, spec)

    @staticmethod
    def _spec_end(raw: str, at: int, stop: int) -> int:
        depth = 0
        while at < stop:
            if raw[at] == "{":
                depth += 1
            elif raw[at] == "}":
                if depth == 0:
                    return at
                depth -= 1
            at += 1
        raise Unsupported("f-string")

    def sub_expression(self, start: int, end: int):
        """A replacement field's expression, parsed alone at its place in the file."""
        line, column = self.position(start)
        padded = "(" + " " * (column - 1) + self.text[start:end] + "\n)" if column else None
        if padded is None:
            raise Unsupported("f-string field at a line start")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = pyast.parse(padded, mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            raise Unsupported(str(error)) from None
        inner = _Lowerer(padded, line - 1, self.positions, self.default_indent)
        inner.syntactic = set()
        return inner.expression(tree.body)

    def _FormattedValue(self, node):
        raise Unsupported("f-string value outside its string")

    def _BinOp(self, node):
        left = self.expression(node.left)
        at = self.skip(self.outer(node.left)[1])
        operator = self.make(_OPERATORS[type(node.op)], at)
        return self.make("BinaryOperation", self.start(node), left, operator, self.expression(node.right))

    def _BoolOp(self, node):
        values = node.values
        name = "And" if isinstance(node.op, ast.And) else "Or"
        start = self.start(node)
        result = self.expression(values[0])
        for previous, value in zip(values, values[1:]):
            operator = self.make(name, self.skip(self.outer(previous)[1]))
            result = self.make("BooleanOperation", start, result, operator, self.expression(value))
        return result

    def _UnaryOp(self, node):
        start = self.start(node)
        return self.make("UnaryOperation", start, self.make(_UNARY[type(node.op)], start), self.expression(node.operand))

    def _Compare(self, node):
        targets, previous = [], node.left
        for operator, comparator in zip(node.ops, node.comparators):
            end = self.outer(previous)[1]
            made = self.make(_COMPARE[type(operator)], self.skip(end),
                             *(() if type(operator) is not ast.NotEq else (self.text[self.skip(end):self.skip(end) + 2],)))
            targets.append(self.make("ComparisonTarget", end, made, self.expression(comparator)))
            previous = comparator
        return self.make("Comparison", self.start(node), self.expression(node.left), tuple(targets))

    def _NamedExpr(self, node):
        return self.make("NamedExpr", self.start(node), self.expression(node.target), self.expression(node.value))

    def _Lambda(self, node):
        start = self.start(node)
        params = self.parameters(node.args, start + 6, self.skip(start + 6))
        return self.make("Lambda", start, params, self.expression(node.body))

    def _IfExp(self, node):
        return self.make("IfExp", self.start(node), self.expression(node.test), self.expression(node.body),
                         self.expression(node.orelse))

    def _Await(self, node):
        return self.make("Await", self.start(node), self.expression(node.value))

    def _Yield(self, node):
        return self.make("Yield", self.start(node), self.optional(node.value))

    def _YieldFrom(self, node):
        start = self.start(node)
        at = self.skip(start + 5)
        return self.make("Yield", start, self.make("From", at, self.expression(node.value)))

    def elements(self, items: list) -> tuple:
        made = []
        for item in items:
            if isinstance(item, ast.Starred):
                made.append(self.make("StarredElement", self.start(item), self.expression(item.value)))
            else:
                made.append(self.make("Element", self.outer(item)[0], self.expression(item)))
        return tuple(made)

    def _Starred(self, node):
        return self.make("StarredElement", self.start(node), self.expression(node.value))

    def _List(self, node):
        return self.make("List", self.start(node), self.elements(node.elts))

    def _Set(self, node):
        return self.make("Set", self.start(node), self.elements(node.elts))

    def _Tuple(self, node):
        start = self.start(node)
        if self._in_own_parentheses(node, start):
            start = self.skip(start + 1)  # libcst starts inside them
        return self.make("Tuple", start, self.elements(node.elts))

    def _Dict(self, node):
        elements = []
        for key, value in zip(node.keys, node.values):
            if key is None:
                at = self.outer(value)[0] - 1
                while self.text[at] in " \t\f\r\n":
                    at -= 1
                if self.text[at - 1:at + 1] != "**":
                    raise Unsupported("dict unpacking")
                elements.append(self.make("StarredDictElement", at - 1, self.expression(value)))
            else:
                elements.append(self.make("DictElement", self.outer(key)[0], self.expression(key), self.expression(value)))
        return self.make("Dict", self.start(node), tuple(elements))

    def comprehension(self, generators: list, previous) -> object:
        made = None
        for generator in reversed(generators):
            made = (generator, made)
        return self._comp_for(made, previous)

    def _comp_for(self, chain, previous):
        generator, rest = chain
        start = self.outer(previous)[1]
        target, iterable = self.expression(generator.target), self.expression(generator.iter)
        ifs, last = [], generator.iter
        for test in generator.ifs:
            ifs.append(self.make("CompIf", self.outer(last)[1], self.expression(test)))
            last = test
        inner = None if rest is None else self._comp_for(rest, last)
        asynchronous = self.make("Asynchronous", self.skip(start)) if generator.is_async else None
        return self.make("CompFor", start, target, iterable, tuple(ifs), inner, asynchronous)

    def _ListComp(self, node):
        return self.make("ListComp", self.start(node), self.expression(node.elt),
                         self.comprehension(node.generators, node.elt))

    def _SetComp(self, node):
        return self.make("SetComp", self.start(node), self.expression(node.elt),
                         self.comprehension(node.generators, node.elt))

    def _GeneratorExp(self, node):
        return self.make("GeneratorExp", self.outer(node.elt)[0], self.expression(node.elt),
                         self.comprehension(node.generators, node.elt))

    def _DictComp(self, node):
        return self.make("DictComp", self.start(node), self.expression(node.key), self.expression(node.value),
                         self.comprehension(node.generators, node.value))

    def _Subscript(self, node):
        index = node.slice
        if isinstance(index, ast.Tuple) and not self._in_own_parentheses(index, self.start(index)):
            items = index.elts
        else:
            items = [index]
        elements = []
        for item in items:
            if isinstance(item, ast.Slice):
                made = self.make("Slice", self.start(item), self.optional(item.lower), self.optional(item.upper),
                                 self.optional(item.step))
                at = self.start(item)
            elif isinstance(item, ast.Starred):
                at = self.start(item)
                made = self.make("Index", at, self.expression(item.value), "*")
            else:
                at = self.outer(item)[0]
                made = self.make("Index", at, self.expression(item), None)
            elements.append(self.make("SubscriptElement", at, made))
        return self.make("Subscript", self.start(node), self.expression(node.value), tuple(elements))


# ast class -> the _Lowerer method lowering its expressions (filled on first use)
_EXPRESSIONS: dict = {}


def _line_starts(text: str) -> list:
    """The offset of each line's start.  Without a carriage return, from the lengths of the
    text's pieces between line feeds (C loops: a regex match object per line cost ~4x)."""
    if "\r" in text:
        return [0] + [match.end() for match in _NEWLINE.finditer(text)]
    return list(accumulate(map((1).__add__, map(len, text.split("\n")[:-1])), initial=0))


_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
             ast.With, ast.AsyncWith, ast.Try, getattr(ast, "Match", ast.Try), getattr(ast, "TryStar", ast.Try))


class _Reparsed:
    """A file's text parsed again to lower what the parsed-module cache stored as stubs: its
    indented blocks by where their first statement starts, and (found on first need) the
    annotations of its signatures by where each starts."""

    def __init__(self, text: str):
        tree = _parse(text)
        _classes()
        lowerer = self.lowerer = _Lowerer(text)
        lowerer.syntactic = set()
        lowerer.lazy_bodies = False  # a block read is lowered whole: the blocks inside it too
        lowerer.default_indent = lowerer._first_indent(tree.body, "") or "    "
        self.blocks, self.functions = {}, []
        for node in ast.walk(tree):
            if isinstance(node, _COMPOUND):
                for block in _blocks(node):  # (an `elif`'s list is found too: no block starts there)
                    self.blocks[lowerer.position(lowerer.start(block[0]))] = block, node
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.functions.append(node)
        self._annotations: dict | None = None

    @property
    def annotations(self) -> dict:
        if self._annotations is None:
            where = self.lowerer
            found = self._annotations = {}
            for function in self.functions:
                arguments = function.args
                for arg in (*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs,
                            arguments.kwarg):
                    if arg is not None and arg.annotation is not None:
                        found[where.position(where.outer(arg.annotation)[0])] = arg.annotation
                if function.returns is not None:
                    found[where.position(where.outer(function.returns)[0])] = function.returns
        return self._annotations


# The last files whose stubs were lowered again from their text: text -> _Reparsed.
# Few: an ast tree is large.
_REPARSED: dict = {}
_REPARSED_FILES = 4
_REPARSING = threading.Lock()


def _reparsed(text: str) -> _Reparsed:
    found = _REPARSED.pop(text, None)
    if found is None:
        found = _Reparsed(text)
        while len(_REPARSED) >= _REPARSED_FILES:
            _REPARSED.pop(next(iter(_REPARSED)))
    _REPARSED[text] = found  # most recent last
    return found


def block_body(text: str, at: tuple, positions: dict) -> tuple:
    """(statements, own indent) of the indented block whose first statement starts at ``at``
    (line, column) in ``text``: what the lazy block of ``_Lowerer.block`` would hold, with its
    nodes' positions added to ``positions``.  For a block the parsed-module cache stored as a
    stub (``parsed_cache.py``): a text it was lowered from before, so it parses; ``Unsupported``
    when no block starts there."""
    with _REPARSING:
        reparsed = _reparsed(text)
        found = reparsed.blocks.get(tuple(at))
        if found is None:
            raise Unsupported("no block there")
        reparsed.lowerer.positions = positions
        try:
            return reparsed.lowerer.block_fields(*found)
        except RecursionError:
            raise Unsupported("nests too deeply") from None


def signature_annotation(text: str, at: tuple, positions: dict) -> tuple:
    """(expression,): the fields of the lazy ``Annotation`` of a parameter or a return starting
    at ``at`` in ``text`` (``_Lowerer.signature_annotation``), its nodes' positions added to
    ``positions``; ``Unsupported`` when no such annotation starts there."""
    with _REPARSING:
        reparsed = _reparsed(text)
        expression = reparsed.annotations.get(tuple(at))
        if expression is None:
            raise Unsupported("no annotation there")
        reparsed.lowerer.positions = positions
        try:
            return (reparsed.lowerer.expression(expression),)
        except RecursionError:
            raise Unsupported("nests too deeply") from None


def _blocks(statement) -> list:
    """The statement lists inside a compound statement, in text order."""
    found = []
    for name in ("body", "handlers", "orelse", "finalbody"):
        value = getattr(statement, name, None)
        if not isinstance(value, list) or not value:
            continue
        if isinstance(value[0], ast.ExceptHandler):
            found.extend(handler.body for handler in value)
        elif isinstance(value[0], ast.stmt):
            found.append(value)
    return found


def _one_docstring(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is one triple-quoted string literal, not an f-string (no
    other triple quote inside: `\"""` or a concatenation says no), whose ``_nesting`` is 1.
    Found with C searches: ``_nesting``'s scan of a long docstring costs ~0.1 ms."""
    quote = start
    while quote < end and quote - start < 3 and text[quote] not in "'\"":
        quote += 1
    if quote - start > 2 or "f" in text[start:quote].lower():
        return False
    for mark in ('"""', "'''"):
        if text.startswith(mark, quote):
            return end - quote >= 6 and text.startswith(mark, end - 3) and text.find(mark, quote + 3, end - 3) < 0
    return False


def _nesting(text: str) -> int:
    """An upper bound of the nesting tokens in ``text``: brackets, operators, nesting words,
    strings (a concatenation nests) and each f-string field with what it holds."""
    count = 0
    for match in _NESTING.finditer(text):
        kind, found = match.lastgroup, match.group()
        if kind == "c":
            continue
        if kind == "s":
            formatted = "f" in found[:found.index(found[-1])].lower()
            count += 1 + (2 * found.count("{") + len(found) if formatted else 0)
        else:
            count += 2 if found in "([" else 1
    return count


def _kept(value):
    """The literal values the lowered tree keeps (``lowering._evaluated``)."""
    return value if isinstance(value, (str, bytes, int, float)) else None
