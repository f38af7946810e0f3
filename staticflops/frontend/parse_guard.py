"""A cheap look at an analysed file's tokens before libcst parses it.

libcst needs time and memory out of all proportion to how deeply one expression nests (5,000
chained `**` took 2.9 GB; 6,000 chained `a if b else` aborted the process) and ~2 KB per token
in all.  Brackets are not the only nesting: every operator, attribute, call, subscript,
conditional, lambda and comprehension clause wraps what it applies to in one more level of the
syntax tree.  This walk over Python's own tokenizer (it reads text, runs nothing) counts the
tokens and an upper bound of each expression's depth, and refuses the file at the first token
past ``--max-tokens`` or ``--max-expr-depth``.
"""

from __future__ import annotations

import io
import tokenize

from staticflops.diagnostics import AnalysisError, Location

# Operators and words that nest what they apply to one level deeper (comparisons are flat in
# libcst, but counting them only over-estimates).
_NESTING_OPS = frozenset("+ - * / // % @ ** << >> & | ^ ~ < > == != <= >= . := ...".split())
_NESTING_WORDS = frozenset({"and", "or", "not", "in", "is", "if", "else", "await", "yield", "lambda", "for"})
# A lambda's parameters and a `for` target hold commas that do not end the expression
# (`lambda a, b: lambda a, b: ...`, `for a, b in c for d, e in f`): their heads, to the word
# that closes each, are not separators.
_HEAD_ENDS = {"lambda": ":", "for": "in"}
# Between these, a bracket's content starts a new expression: a list of 10,000 sums is not deep.
_SEPARATORS = frozenset(", ; = -> += -= *= /= //= %= @= **= <<= >>= &= |= ^=".split())
_NESTING_CHARACTERS = tuple(".+-*/%@<>=&|^~([{")
_TRAILER_AFTER = frozenset({tokenize.NAME, tokenize.NUMBER, tokenize.STRING})
_SKIPPED = frozenset({tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT})


class _Frame:
    """One open bracket (or the statement): the depth it starts at, the operators seen since
    its last separator, and the lambda and `for` heads still open in it."""

    __slots__ = ("base", "ops", "heads")

    def __init__(self, base: int):
        self.base, self.ops, self.heads = base, 0, []

    def depth(self) -> int:
        return self.base + self.ops


class ParseGuard:
    def __init__(self, name: str, max_tokens: int, max_depth: int):
        self.name, self.max_tokens, self.max_depth = name, max_tokens, max_depth
        self.tokens = 0

    def check(self, text: str) -> None:
        try:
            self._walk(text, 0, None)
        except (tokenize.TokenError, SyntaxError):
            pass  # not Python: the parser reports the syntax error with its place

    def _walk(self, text: str, base: int, at: tuple | None) -> None:
        """``at``: where an f-string's replacement field sits (its tokens' own positions are
        relative to the field's text)."""
        stack = [_Frame(base)]
        previous = None  # the last significant token
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            self.tokens += 1
            if self.tokens > self.max_tokens:
                self._refuse(f"over {self.max_tokens:,} tokens in one file (--max-tokens)", at or token.start)
            kind, string = token.type, token.string
            if kind in _SKIPPED:
                continue
            frame = stack[-1]
            if kind == tokenize.OP:
                if string in "([{":
                    trailer = string != "{" and previous is not None and (
                        previous.type in _TRAILER_AFTER or previous.string in (")", "]", "}"))
                    frame.ops += trailer  # a call or subscript wraps what it follows
                    grouping = string == "(" and not trailer  # libcst keeps parentheses on the node inside
                    stack.append(_Frame(frame.depth() + (not grouping)))
                    self._limit(stack[-1].depth(), at or token.start)
                elif string in ")]}":
                    if len(stack) > 1:
                        stack.pop()
                elif string in _SEPARATORS:
                    if not frame.heads:
                        frame.ops = 0
                elif string == ":" and frame.heads and frame.heads[-1] == ":":
                    frame.heads.pop()
                elif string in _NESTING_OPS:
                    frame.ops += 1
                    self._limit(frame.depth(), at or token.start)
            elif kind == tokenize.NAME:
                if string in _NESTING_WORDS:
                    if frame.heads and frame.heads[-1] == string:  # `in` ends a `for` target
                        frame.heads.pop()
                    elif string in _HEAD_ENDS:
                        frame.heads.append(_HEAD_ENDS[string])
                    frame.ops += 1
                    self._limit(frame.depth(), at or token.start)
            elif kind == tokenize.STRING:
                if previous is not None and previous.type == tokenize.STRING:
                    frame.ops += 1  # "a" "b" "c": each concatenation nests the rest
                    self._limit(frame.depth(), at or token.start)
                if "f" in string[:string.find(string[-1])].lower():
                    for field in _fields(string):
                        try:
                            self._walk(field, frame.depth() + 1, at or token.start)
                        except (tokenize.TokenError, SyntaxError):  # unreadable here: count every
                            # character that could nest, an upper bound
                            self._limit(frame.depth() + 1 + sum(map(field.count, _NESTING_CHARACTERS)),
                                        at or token.start)
            elif kind == tokenize.NEWLINE:
                stack = [_Frame(base)]
            previous = token

    def _limit(self, depth: int, where: tuple) -> None:
        if depth > self.max_depth:
            self._refuse(f"expression nests over {self.max_depth:,} deep (operators, calls, attributes, "
                         f"conditionals; --max-expr-depth)", where)

    def _refuse(self, message: str, where: tuple) -> None:
        raise AnalysisError(message, Location(self.name, where[0], where[1] + 1), code="SF005")


def _fields(literal: str) -> list[str]:
    """The replacement fields' text of an f-string literal (`{a.b}` -> "a.b"): Python 3.11's
    tokenizer gives the whole f-string as one token, but libcst parses each field."""
    fields, depth, start = [], 0, 0
    index = 0
    while index < len(literal):
        char = literal[index]
        if char in "{}" and depth == 0 and literal[index + 1:index + 2] == char:
            index += 2  # `{{` and `}}` are literal braces
            continue
        if depth and char in "'\"":  # a string inside a field: its braces are text (`{'}'}`)
            end = literal.find(char, index + 1)
            index = len(literal) if end < 0 else end + 1
            continue
        if char == "{":
            depth += 1
            if depth == 1:
                start = index + 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                fields.append("(" + literal[start:index] + "\n)")
        index += 1
    return fields


def check_parse_cost(text: str, name: str, max_tokens: int, max_depth: int) -> None:
    """Refuse ``text`` at the first token over either bound, before the parser sees it."""
    ParseGuard(name, max_tokens, max_depth).check(text)
