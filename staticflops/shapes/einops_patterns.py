"""einops patterns on symbolic shapes: ``b c (h p1) (w p2) -> b (h w) (p1 p2 c)``.

A pattern names the elementary axes of a tensor on the left, how they are grouped, and what
the result is made of on the right.  Given an input shape (ints or symbolic Exprs) and the
lengths passed as keywords, every elementary axis gets a length; a group of several axes with
one unknown length is solved by exact division.  The semantics follow einops 0.8 (identifiers,
anonymous axes, ``1`` and ``()``, one ``...``, no nested brackets); this module decides shapes
only, the frontend records what computes.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field

from staticflops.shapes.expr import Dim, Expr, format_dim
from staticflops.shapes.shape import Shape, format_shape
from staticflops.shapes.tensor_ops import ShapeError, concatenate, same

REDUCTIONS = ("min", "max", "sum", "mean", "prod", "any", "all")
_ELLIPSIS = "…"  # one character, so a tokenizer treats "..." as one identifier


class PatternError(ShapeError):
    """The pattern is malformed or the tensor does not fit it."""


class PatternUndecided(Exception):
    """A fit that depends on the value of a symbolic dimension (e.g. ``H`` against 224)."""


class Anonymous:
    """A number standing for an axis (``(b 2)``): two of them are never the same axis."""

    def __init__(self, length: int):
        self.length = length

    def __repr__(self) -> str:
        return str(self.length)


@dataclass
class Side:
    """One side of a pattern: groups of axes; the ellipsis is the group ``_ELLIPSIS`` or a member."""

    groups: list = field(default_factory=list)
    identifiers: set = field(default_factory=set)
    has_ellipsis: bool = False
    ellipsis_grouped: bool = False

    def named(self) -> set:
        return {a for a in self.identifiers if isinstance(a, str) and a != _ELLIPSIS}


def _check_name(name: str, allow_underscore: bool) -> None:
    if not name.isidentifier():
        raise PatternError(f"invalid axis name `{name}`")
    if (name.startswith("_") or name.endswith("_")) and not (allow_underscore and name == "_"):
        raise PatternError(f"axis name `{name}` should not start or end with an underscore")


def parse_side(text: str, allow_underscore: bool = False, allow_duplicates: bool = False) -> Side:
    side = Side()
    if "." in text:
        if text.count("...") != 1 or text.count(".") != 3:
            raise PatternError("dots are only allowed as one ellipsis (...)")
        text = text.replace("...", _ELLIPSIS)
        side.has_ellipsis = True
    group: list | None = None

    def add(token: str) -> None:
        if token in side.identifiers and not allow_duplicates and not (allow_underscore and token == "_"):
            raise PatternError(f"duplicate axis `{token}`")
        if token == _ELLIPSIS:
            side.identifiers.add(token)
            side.ellipsis_grouped = group is not None
            (group if group is not None else side.groups).append(token)
            return
        if token.isdecimal():
            length = int(token)
            if length == 1:  # an axis of length 1: nothing inside a group, an empty group alone
                if group is None:
                    side.groups.append([])
                return
            if length == 0:
                raise PatternError("an anonymous axis must have a positive length, not 0")
            axis: object = Anonymous(length)
        else:
            _check_name(token, allow_underscore)
            axis = token
        side.identifiers.add(axis)
        (group if group is not None else side.groups).append(axis if group is not None else [axis])

    token = ""
    for char in text:
        if char in "() ":
            if token:
                add(token)
            token = ""
            if char == "(":
                if group is not None:
                    raise PatternError("brackets inside brackets are not allowed")
                group = []
            elif char == ")":
                if group is None:
                    raise PatternError("unbalanced brackets")
                side.groups.append(group)
                group = None
        elif char.isalnum() or char in ("_", _ELLIPSIS):
            token += char
        else:
            raise PatternError(f"unknown character {char!r}")
    if group is not None:
        raise PatternError("unbalanced brackets")
    if token:
        add(token)
    return side


def _split(pattern: str) -> tuple[str, str]:
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise PatternError("a pattern needs exactly one `->`")
    left, _, right = pattern.partition("->")
    return left, right


def _product(dims) -> Dim:
    total: Dim = 1
    for d in dims:
        total = total * d
    return total


def _divide(length: Dim, known: Dim, axis: str) -> Dim:
    """``length / known`` for the one unknown axis of a group; exact or an error."""
    if isinstance(length, int) and isinstance(known, int):
        if known == 0 or length % known:
            raise PatternError(f"axis of length {length} does not divide into chunks of {known} (for `{axis}`)")
        return length // known
    try:
        quotient = length / known
    except TypeError:
        raise PatternUndecided(f"the length of `{axis}` is {format_dim(length)} / {format_dim(known)}") from None
    if not isinstance(quotient, (int, Expr)) and getattr(quotient, "denominator", 1) != 1:
        raise PatternUndecided(f"the length of `{axis}` is {format_dim(length)} / {format_dim(known)}")
    return int(quotient) if not isinstance(quotient, Expr) else quotient


def _check_equal(length: Dim, expected: Dim, group: list) -> None:
    if same(length, expected):
        return
    if isinstance(length, int) and isinstance(expected, int):
        names = " ".join(str(a) for a in group) or "1"
        raise PatternError(f"axis ({names}) should have length {expected}, the tensor has {length}")
    raise PatternUndecided(f"whether {format_dim(length)} equals {format_dim(expected)}")


@dataclass
class Transform:
    """What rearrange/reduce/repeat do: reshape to ``elementary``, reduce ``reduced`` axes of it,
    then permute, add repeated axes and group into ``output``."""

    elementary: Shape
    reduced: list
    output: Shape
    lengths: dict


def _expand_ellipsis(left: Side, right: Side, rank: int) -> tuple[list, list]:
    if not left.has_ellipsis:
        if rank != len(left.groups):
            raise PatternError(f"expected {len(left.groups)} dimensions, the tensor has {rank}")
        return left.groups, right.groups
    others = len(left.groups) - 1
    if rank < others:
        raise PatternError(f"expected at least {others} dimensions, the tensor has {rank}")
    axes = [f"{_ELLIPSIS}{i}" for i in range(rank - others)]
    left_groups = [g for group in left.groups for g in ([[a] for a in axes] if group == _ELLIPSIS else [group])]
    right_groups = []
    for group in right.groups:
        if group == _ELLIPSIS:
            right_groups.extend([a] for a in axes)
        else:
            right_groups.append([b for a in group for b in (axes if a == _ELLIPSIS else [a])])
    left.identifiers.discard(_ELLIPSIS)
    left.identifiers.update(axes)
    if right.has_ellipsis:
        right.identifiers.discard(_ELLIPSIS)
        right.identifiers.update(axes)
    return left_groups, right_groups


def transform(shape: Shape, pattern: str, operation: str, axes_lengths: dict) -> Transform:
    left_text, right_text = _split(pattern)
    left, right = parse_side(left_text), parse_side(right_text)
    if right.has_ellipsis and not left.has_ellipsis:
        raise PatternError("an ellipsis on the right needs one on the left")
    if left.has_ellipsis and left.ellipsis_grouped:
        raise PatternError("an ellipsis inside brackets is not allowed on the left")
    if operation == "rearrange":
        if any(isinstance(a, Anonymous) for a in left.identifiers | right.identifiers):
            raise PatternError("rearrange allows no numbered axes other than 1")
        if difference := left.identifiers ^ right.identifiers:
            raise PatternError(f"axes {_names(difference)} appear on one side only")
    elif operation == "repeat":
        if difference := left.identifiers - right.identifiers:
            raise PatternError(f"repeat cannot drop axes {_names(difference)}")
        if missing := right.named() - left.named() - set(axes_lengths):
            raise PatternError(f"give the length of the new axes {_names(missing)}")
    elif operation in REDUCTIONS:
        if difference := right.identifiers - left.identifiers:
            raise PatternError(f"reduce cannot create axes {_names(difference)}")
    else:
        raise PatternError(f"unknown reduction {operation!r}, expected one of {', '.join(REDUCTIONS)}")
    left_groups, right_groups = _expand_ellipsis(left, right, len(shape))
    for name in axes_lengths:
        if name not in left.identifiers and name not in right.identifiers:
            raise PatternError(f"axis `{name}` is not used in the pattern")
    lengths: dict = {}
    for group, length in zip(left_groups, shape):
        for axis in group:
            if isinstance(axis, Anonymous):
                lengths[axis] = axis.length
            elif axis in axes_lengths:
                lengths[axis] = axes_lengths[axis]
        unknown = [a for a in group if a not in lengths]
        known = _product(lengths[a] for a in group if a in lengths)
        if len(unknown) > 1:
            raise PatternError(f"cannot infer the lengths of {_names(unknown)}: give all but one")
        if unknown:
            lengths[unknown[0]] = _divide(length, known, unknown[0])
        else:
            _check_equal(length, known, group)
    for axis in right.identifiers - left.identifiers:  # repeat's new axes
        lengths[axis] = axis.length if isinstance(axis, Anonymous) else axes_lengths[axis]
    flat = [a for group in left_groups for a in group]
    reduced = [i for i, a in enumerate(flat) if a not in right.identifiers]
    output = tuple(_product(lengths[a] for a in group) for group in right_groups)
    return Transform(tuple(lengths[a] for a in flat), reduced, output, lengths)


def _names(axes) -> str:
    return ", ".join(sorted(f"`{a}`" for a in axes))


# ---- einsum -----------------------------------------------------------------------------

def einsum_equation(pattern: str, shapes: list) -> str:
    """einops' named-axis einsum as a letter equation without ``...`` (expanded from the ranks);
    an axis named twice must have one length (or 1, which broadcasts)."""
    left_text, right_text = _split(pattern)
    terms = [parse_side(t, allow_underscore=True, allow_duplicates=True) for t in left_text.split(",")]
    right = parse_side(right_text, allow_underscore=True)
    if len(terms) != len(shapes):
        raise PatternError(f"the pattern names {len(terms)} tensors, {len(shapes)} were given")
    letters = iter(string.ascii_letters)
    mapping: dict = {}
    spans = [len(shape) - (len(term.groups) - 1) if term.has_ellipsis else 0 for term, shape in zip(terms, shapes)]
    ellipsis_rank = max(spans, default=0)

    def letter(group) -> str:
        if len(group) != 1 or isinstance(group[0], Anonymous):
            raise PatternError("einsum takes single named axes only (no groups, numbers or ())")
        if group[0] not in mapping:
            mapping[group[0]] = next(letters, None)
            if mapping[group[0]] is None:
                raise PatternError("too many axes for einsum")
        return mapping[group[0]]

    written, lengths = [], {}
    for term, shape, span in zip(terms, shapes, spans):
        if span < 0 or (not term.has_ellipsis and len(shape) != len(term.groups)):
            raise PatternError(f"term `{' '.join(_group_text(g) for g in term.groups)}` does not fit a "
                               f"{len(shape)}-dimensional tensor")
        written.append(["ELL" if g == _ELLIPSIS else letter(g) for g in term.groups])
        dims = iter(shape)
        for group in term.groups:
            if group == _ELLIPSIS:
                for _ in range(span):
                    next(dims)
                continue
            length = next(dims)
            seen = lengths.setdefault(group[0], length)
            if not same(seen, length) and not same(length, 1) and not same(seen, 1):
                raise PatternError(f"axis `{group[0]}` is {format_dim(seen)} in one tensor, {format_dim(length)} in another")
    extra = [next(letters, "") for _ in range(ellipsis_rank)]
    if "" in extra:
        raise PatternError("too many axes for einsum")
    for group in right.groups:
        if group != _ELLIPSIS and (len(group) != 1 or group[0] not in mapping):
            raise PatternError(f"axis `{_group_text(group)}` on the right is not on the left")
    out = ["".join(extra) if g == _ELLIPSIS else mapping[g[0]] for g in right.groups]
    lhs = ["".join("".join(extra[ellipsis_rank - span:]) if c == "ELL" else c for c in term)
           for term, span in zip(written, spans)]
    return ",".join(lhs) + "->" + "".join(out)


def _group_text(group) -> str:
    if group == _ELLIPSIS:
        return "..."
    return " ".join(str(a) for a in group) if len(group) == 1 else f"({' '.join(str(a) for a in group)})"


# ---- parse_shape, pack, unpack -----------------------------------------------------------

def parse_shape(shape: Shape, pattern: str) -> dict:
    side = parse_side(pattern, allow_underscore=True)
    if any(g != _ELLIPSIS and len(g) > 1 for g in side.groups):
        raise PatternError("parse_shape takes no grouped axes")
    groups = side.groups
    if side.has_ellipsis:
        if len(shape) < len(groups) - 1:
            raise PatternError(f"expected at least {len(groups) - 1} dimensions, the tensor has {len(shape)}")
        at = groups.index(_ELLIPSIS)
        groups = groups[:at] + [["_"]] * (len(shape) - len(groups) + 1) + groups[at + 1:]
    elif len(shape) != len(groups):
        raise PatternError(f"expected {len(groups)} dimensions, the tensor has {len(shape)}")
    result = {}
    for group, length in zip(groups, shape):
        if not group:
            _check_equal(length, 1, group)
        elif isinstance(group[0], str) and group[0] != "_":
            result[group[0]] = length
    return result


def _packing(pattern: str) -> tuple[int, int]:
    axes = pattern.split() if isinstance(pattern, str) else None
    if axes is None or axes.count("*") != 1:
        raise PatternError("a packing pattern needs exactly one `*`")
    if len(set(axes)) != len(axes):
        raise PatternError("duplicate axis names")
    for axis in axes:
        if axis != "*":
            _check_name(axis, False)
    before = axes.index("*")
    return before, len(axes) - before - 1


def pack(shapes: list, pattern: str) -> tuple[Shape, list]:
    before, after = _packing(pattern)
    if not shapes:
        raise PatternError("nothing to pack")
    flat, packed = [], []
    for i, shape in enumerate(shapes):
        if len(shape) < before + after:
            raise PatternError(f"tensor #{i} of shape {format_shape(shape)} has fewer than {before + after} dimensions")
        end = len(shape) - after
        packed.append(tuple(shape[before:end]))
        flat.append((*shape[:before], _product(shape[before:end]), *shape[end:]))
    return concatenate(flat, before), packed


def unpack(shape: Shape, packed_shapes: list, pattern: str) -> list:
    before, after = _packing(pattern)
    if len(shape) != before + 1 + after:
        raise PatternError(f"expected {before + 1 + after} dimensions, the tensor has {len(shape)}")
    sizes = [None if any(same(d, -1) for d in ps) else _product(ps) for ps in packed_shapes]
    if sizes.count(None) > 1:
        raise PatternError("more than one packed shape holds -1")
    total = shape[before]
    if None in sizes:
        inferred = total - sum(s for s in sizes if s is not None)
        at = sizes.index(None)
        known = _product(d for d in packed_shapes[at] if not same(d, -1))
        shapes = list(packed_shapes)
        shapes[at] = tuple(_divide(inferred, known, "*") if same(d, -1) else d for d in packed_shapes[at])
        packed_shapes = shapes
    else:
        _check_equal(total, sum(sizes), ["*"])
    return [(*shape[:before], *ps, *shape[before + 1:]) for ps in packed_shapes]


# ---- EinMix -----------------------------------------------------------------------------

@dataclass
class Mix:
    """An EinMix layer: its weight and bias shapes and the einsum between rearranges."""

    weight: tuple
    bias: tuple | None
    equation: str  # an einops.einsum pattern: input, weight -> output
    pre: str | None  # rearrange flattening the input's groups, or None
    pre_lengths: dict
    post: str | None  # rearrange grouping the output, or None


def einmix(pattern: str, weight_shape: str, bias_shape, axes_lengths: dict) -> Mix:
    left_text, right_text = _split(pattern)
    left, right = parse_side(left_text), parse_side(right_text)
    if not isinstance(weight_shape, str):
        raise PatternError("weight_shape must be a string of axis names")
    if "(" in weight_shape or ")" in weight_shape:
        raise PatternError("weight_shape takes no brackets")
    weight = parse_side(weight_shape)
    if unknown := right.named() - left.named() - weight.named():
        raise PatternError(f"axes {_names(unknown)} on the right are in neither the input nor the weight")
    if weight.has_ellipsis:
        raise PatternError("weight_shape takes no ellipsis")
    if left.has_ellipsis != right.has_ellipsis:
        raise PatternError("an ellipsis must be on both sides")
    if left.ellipsis_grouped:
        raise PatternError("an ellipsis inside brackets is not allowed on the left")
    if any(isinstance(a, Anonymous) for s in (left, right, weight) for a in s.identifiers):
        raise PatternError("EinMix allows no numbered axes")

    def flat(side: Side) -> list:
        return ["..." if a == _ELLIPSIS else a for g in side.groups for a in ([g] if g == _ELLIPSIS else g)]

    pre = post = None
    pre_lengths: dict = {}
    if any(len(g) != 1 for g in left.groups if g != _ELLIPSIS):
        names = flat(left)
        pre = f"{left_text}-> {' '.join(names)}"
        pre_lengths = {k: v for k, v in axes_lengths.items() if k in names}
    if any(g != _ELLIPSIS and len(g) != 1 for g in right.groups) or right.ellipsis_grouped:
        post = f"{' '.join(flat(right))} ->{right_text}"
    for axis in weight.named():
        if axis not in axes_lengths:
            raise PatternError(f"give the length of weight axis `{axis}`")
    if unused := set(axes_lengths) - left.named() - weight.named():
        raise PatternError(f"axes {_names(unused)} are not used in the pattern")
    if redundant := weight.named() - left.named() - right.named():
        raise PatternError(f"weight axes {_names(redundant)} are in neither the input nor the output")
    weight_dims = tuple(axes_lengths[g[0]] for g in weight.groups)
    bias = None
    if bias_shape is not None:
        if not isinstance(bias_shape, str):
            raise PatternError("bias_shape must be a string of axis names")
        bias_axes = parse_side(bias_shape).named()
        if missing := bias_axes - right.named():
            raise PatternError(f"bias axes {_names(missing)} are not in the output")
        if missing := bias_axes - set(axes_lengths):
            raise PatternError(f"give the length of bias axes {_names(missing)}")
        dims, seen_sized = [], False
        for group in right.groups:
            for axis in ([group] if group == _ELLIPSIS else group):
                if axis == _ELLIPSIS:
                    if seen_sized:
                        raise PatternError("bias axes must come after the ellipsis in the output")
                elif axis in bias_axes:
                    dims.append(axes_lengths[axis])
                    seen_sized = True
                else:
                    dims.append(1)
        bias = tuple(dims)
    equation = f"{' '.join(flat(left))}, {' '.join(flat(weight))} -> {' '.join(flat(right))}"
    return Mix(weight_dims, bias, equation, pre, pre_lengths, post)
