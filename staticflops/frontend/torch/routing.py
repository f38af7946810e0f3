"""Mixture-of-experts routing masks: the eager per-expert loop, counted exactly.

A router picks, for each of S tokens, k experts (``topk`` over E scores: indices in [0, E)).
The eager loop builds ``mask = one_hot(indices, C).permute(...)``, visits every expert whose
count ``mask.sum(...) > 0`` (``.nonzero()``), and in each turn takes the positions of its ones
(``torch.where(mask[e])``): n_e rows.  Which expert gets how many rows is data dependent, but a
one-hot mask has exactly one 1 per (token, choice) slot, so the n_e partition the S*k slots:
sum over e of n_e = S*k, n_e >= 0, and an expert that is not visited has n_e = 0.

Soundness argument (what ``RoutedClasses.run_for`` checks before it prices anything):
every class e that can be hit (e < min(C, bound of the indices)) is run once, in ascending
order as ``nonzero`` gives them, with its row count a fresh symbol n_e.  If
  (1) every op the turn records has n_e in some operand or result, each tensor's size of
      degree <= 1 in n_e (so the op's cost is c * n_e: products of sizes, linear), and
  (2) every turn records the same ops on the same shapes once n_e is renamed (one c for all e),
then the loop costs sum_{e hit} c * n_e = c * S*k whatever the routing, and any split of the
S*k rows with that sum prices it exactly: the rows are shared out evenly (the first classes get
one more when S*k does not divide) -- the per-expert rows of the report are that even split, the
totals are exact.  Ops with no n_e (a scalar compare on the expert index) run once per visited
expert, a number the routing decides: they are kept once (at least one expert is visited) and
reported as a located unknown.  Otherwise (an expert that computes nothing, such as an identity
"zero-compute" expert, a ``break``, a quadratic op), the loop is data dependent: its ops are
dropped and a located unknown says why.  Tensors whose size is some n_e cannot leave the loop:
names still bound to one afterwards become unknown.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from staticflops.frontend.values import Tensor, Unknown
from staticflops.shapes import Expr, numel
from staticflops.shapes.expr import Symbol, evaluate, symbol

_NAMES = itertools.count()
_PLACEHOLDER = symbol("n")


@dataclass(eq=False)
class IndexBound(Tensor):
    """Integer positions along a dim of size ``bound`` (``topk``/``sort`` indices): every value < bound."""

    bound: object = field(default=None, kw_only=True)


@dataclass(eq=False)
class OneHotMask(Tensor):
    """``one_hot(indices, C)``, possibly permuted: exactly one 1 along ``axis`` per slot."""

    axis: int = field(default=-1, kw_only=True)
    classes: int = field(default=0, kw_only=True)
    reachable: int = field(default=0, kw_only=True)  # classes that can hold a 1 (the indices' bound)
    slots: object = field(default=0, kw_only=True)  # number of ones: the indices' element count
    rows: dict = field(default_factory=dict, kw_only=True)  # class -> its row-count symbol, while a loop runs


@dataclass(eq=False)
class Running(Tensor):
    """``mask.cumsum(dim)`` along an axis of size ``high`` that is not the class axis: each value
    counts ones of one class up to a position, so it lies in [0, high] (Switch Transformers'
    token priority, compared with the expert capacity)."""

    high: object = field(default=None, kw_only=True)


@dataclass(eq=False)
class AllTrue(Tensor):
    """A compare every element of which holds (``priority <= capacity`` when capacity >= high)."""


@dataclass(eq=False)
class ClassCounts(Tensor):
    """``mask.sum(dim=<every axis but the class axis>)``: per class, its number of ones."""

    mask: OneHotMask = field(default=None, kw_only=True)


@dataclass(eq=False)
class ClassesHit(Tensor):
    """``counts > 0``: the classes holding at least one 1."""

    mask: OneHotMask = field(default=None, kw_only=True)


@dataclass(eq=False)
class ClassIndex(Tensor):
    """A row of ``nonzero(counts > 0)``: one visited class, ``values == [cls]``."""

    cls: int = field(default=0, kw_only=True)


@dataclass(eq=False)
class Cell(Tensor):
    """``mask[e]`` (the class axis first): the ones of class e."""

    mask: OneHotMask = field(default=None, kw_only=True)
    cls: int = field(default=0, kw_only=True)


# ---- how the ops carry the facts ---------------------------------------------------------------

def one_hot(result, indices, classes):
    if not isinstance(result, Tensor) or not isinstance(classes, int) or result.shape is None:
        return result
    bound = indices.bound if isinstance(indices, IndexBound) else None
    reachable = min(classes, bound) if isinstance(bound, int) else classes
    return OneHotMask(result.shape, result.dtype, axis=len(result.shape) - 1, classes=classes,
                      reachable=reachable, slots=numel(result.shape[:-1]))


def permuted(result, mask, order):
    if not isinstance(mask, OneHotMask) or not isinstance(result, Tensor):
        return result
    rank = len(mask.shape)
    order = [d % rank for d in order] if all(isinstance(d, int) for d in order) else None
    if order is None or sorted(order) != list(range(rank)):
        return result
    return _mask_like(result, mask, order.index(mask.axis))


def _mask_like(result, mask, axis):
    return OneHotMask(result.shape, result.dtype, axis=axis, classes=mask.classes, reachable=mask.reachable,
                      slots=mask.slots)


def summed(result, mask, dims, keepdim):
    """Summing every axis but the class axis gives the per-class counts."""
    if not isinstance(mask, OneHotMask) or not isinstance(result, Tensor) or keepdim:
        return result
    rank = len(mask.shape)
    dims = (dims,) if isinstance(dims, int) else dims
    if not isinstance(dims, (tuple, list)) or not all(isinstance(d, int) for d in dims):
        return result
    if sorted(d % rank for d in dims) != [d for d in range(rank) if d != mask.axis]:
        return result
    return ClassCounts(result.shape, "int64", mask=mask)


def running(result, mask, dim):
    """``mask.cumsum(dim)`` of a one-hot mask, along an axis that is not the class axis."""
    if not isinstance(mask, OneHotMask) or not isinstance(result, Tensor) or not isinstance(dim, int):
        return result
    rank = len(mask.shape)
    if not -rank <= dim < rank or dim % rank == mask.axis or not isinstance(mask.shape[dim], int):
        return result
    return Running(result.shape, result.dtype, high=mask.shape[dim])


def multiplied(result, left, right):
    """A one-hot mask times a compare that always holds is the same mask (a capacity that drops
    no token)."""
    for mask, other in ((left, right), (right, left)):
        if isinstance(mask, OneHotMask) and isinstance(other, AllTrue) and isinstance(result, Tensor) \
                and result.shape == mask.shape:
            return _mask_like(result, mask, mask.axis)
    return result


def reshaped(result, mask):
    """``mask.view(-1, 1, C)``: the class axis last and kept, the slots merged or split: still one 1
    per slot along the last axis."""
    if not isinstance(mask, OneHotMask) or not isinstance(result, Tensor) or result.shape is None:
        return result
    if mask.axis != len(mask.shape) - 1 or not result.shape or result.shape[-1] != mask.shape[-1]:
        return result
    return _mask_like(result, mask, len(result.shape) - 1)


def compared(result, left, right, comparison):
    """``counts > 0`` marks the classes hit; ``running <= c`` with c at least its bound always
    holds; a compare of known values is known."""
    if isinstance(left, Running) and isinstance(right, (int, float)) and not isinstance(right, bool) \
            and isinstance(left.high, int):
        holds = {"le": left.high <= right, "LessThanEqual": left.high <= right,
                 "lt": left.high < right, "LessThan": left.high < right}.get(comparison, False)
        if holds:
            return AllTrue(result.shape, "bool", requires_grad=False, values=result.values)
    if isinstance(left, ClassCounts) and comparison in ("gt", "greater", "GreaterThan") and right == 0:
        return ClassesHit(result.shape, "bool", mask=left.mask)
    if isinstance(left, ClassCounts) and comparison in ("ne", "not_equal", "NotEqual") and right == 0:
        return ClassesHit(result.shape, "bool", mask=left.mask)
    return result


def nonzero(value, as_tuple):
    if isinstance(value, ClassesHit) and not as_tuple:
        return RoutedClasses(None, "int64", mask=value.mask)
    return None


def getitem(tensor, key):
    """``classes[0]`` keeps the class; ``mask[e]`` on the class axis (first) is class e's cell."""
    if isinstance(tensor, ClassIndex) and tensor.shape == (1,) and key == 0:
        return ClassIndex((), "int64", values=[tensor.cls], cls=tensor.cls)
    if isinstance(tensor, OneHotMask) and tensor.axis == 0:
        cls = _class_of(key)
        if cls is None or not 0 <= cls < tensor.classes:
            return None
        lead = (1,) if isinstance(key, Tensor) and key.shape == (1,) else ()
        return Cell(lead + tuple(tensor.shape[1:]), tensor.dtype, mask=tensor, cls=cls)
    return None


def _class_of(key):
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key
    if isinstance(key, Tensor) and key.values is not None and len(key.values) == 1 and \
            key.dtype in ("int64", "int32") and key.shape in ((), (1,)):
        return int(key.values[0])
    return None


def squeezed(result, cell):
    """``cell.squeeze(0)``: the same ones, without the leading 1 (or unchanged when there is none)."""
    if isinstance(cell, Cell) and isinstance(result, Tensor) and \
            (result.shape == cell.shape or (result.shape == cell.shape[1:] and cell.shape[:1] == (1,))):
        return Cell(result.shape, result.dtype, mask=cell.mask, cls=cell.cls)
    return result


def positions(cell):
    """``torch.where(mask[e])``: one index tensor per dim, each n_e long (n_e: the running loop's
    symbol for class e), or None outside such a loop (data dependent)."""
    if not isinstance(cell, Cell) or cell.cls not in cell.mask.rows:
        return None
    rows = cell.mask.rows[cell.cls]
    return tuple(Tensor((rows,), "int64") for _ in cell.shape)


# ---- the loop ---------------------------------------------------------------------------------

@dataclass(eq=False)
class RoutedClasses(Tensor):
    """``nonzero(counts > 0)``: the visited classes, a data-dependent subset; a ``for`` over it
    runs as the module docstring says."""

    mask: OneHotMask = field(default=None, kw_only=True)

    def run_for(self, interp, node, scope) -> None:
        _Loop(interp, node, scope, self.mask).run()


class _Loop:
    def __init__(self, interp, node, scope, mask):
        self.interp, self.node, self.scope, self.mask = interp, node, scope, mask
        self.tracer = interp.framework.tracer
        self.where = interp.location(node)

    def run(self) -> None:
        ops = self.tracer.ops
        start = len(ops)
        turns = []  # (class, symbol name, first op, end op)
        try:
            for cls in range(self.mask.reachable):
                name = f"n{next(_NAMES)}"
                self.mask.rows[cls] = symbol(name)
                first = len(ops)
                item = ClassIndex((1,), "int64", values=[cls], cls=cls)
                broke = self.interp.loop_turn(self.node, item, self.scope)
                turns.append((cls, name, first, len(ops)))
                if broke:
                    return self._data_dependent(start, turns, "the loop breaks on a condition")
        except BaseException:
            del ops[start:]  # never priced with a row symbol left in
            raise
        finally:
            self.mask.rows.clear()
        problem = self._check(turns)
        if problem:
            return self._data_dependent(start, turns, problem)
        self._share(start, turns)
        if self.node.orelse is not None:
            self.interp.exec_statement(self.node.orelse.body, self.scope)

    def _check(self, turns) -> str | None:
        shapes = None
        for cls, name, first, end in turns:
            signature = []
            for op in self.tracer.ops[first:end]:
                tensors = [s for s in (*op.inputs, *op.outputs) if s is not None]
                degrees = [_degree(numel(s), name) for s in tensors]
                if any(d > 1 for d in degrees):
                    return f"{op.label} at {op.location} grows faster than the rows an expert gets"
                signature.append((op.kind, op.label, any(degrees),
                                  tuple(_renamed(s, name) for s in op.inputs),
                                  tuple(_renamed(s, name) for s in op.outputs)))
            if shapes is None:
                shapes = signature
            elif signature != shapes:
                return f"expert {cls} computes otherwise than expert {turns[0][0]}"
        return None

    def _share(self, start, turns) -> None:
        ops = self.tracer.ops
        total, count = self.mask.slots, len(turns)
        if isinstance(total, int):
            shares = [total // count + (1 if i < total % count else 0) for i in range(count)]
        else:
            shares = [total] + [0] * (count - 1)
        bindings = {name: share for (_, name, _, _), share in zip(turns, shares)}
        kept, once = [], []
        for index, (cls, name, first, end) in enumerate(turns):
            for op in ops[first:end]:
                if any(_degree(numel(s), name) for s in (*op.inputs, *op.outputs) if s is not None):
                    _substitute_op(op, bindings)
                    kept.append(op)
                elif index == 0:
                    once.append(op)
                    kept.append(op)
        ops[start:] = kept
        for op in once:
            self.interp.unknown(f"`{op.label}` runs once per expert the tokens reach (a number the routing "
                                "decides): counted once", location=op.location)
        _substitute_modules(self.tracer, bindings)
        _forget_rows(self.scope, bindings)

    def _data_dependent(self, start, turns, why) -> None:
        del self.tracer.ops[start:]
        names = {name: None for _, name, _, _ in turns}
        _substitute_modules(self.tracer, names)
        _forget_rows(self.scope, names)
        self.interp.unknown(f"the per-expert loop's cost depends on the routing ({why})", self.node)


def _degree(value, name) -> int:
    if not isinstance(value, Expr):
        return 0
    return max((power for monomial in value.terms for atom, power in monomial
                if isinstance(atom, Symbol) and atom.name == name), default=0)


def _mentions(value, names) -> bool:
    return isinstance(value, Expr) and bool(value.symbols() & set(names))


def _renamed(shape, name):
    if shape is None:
        return None
    return tuple(str(evaluate(d, {name: _PLACEHOLDER})) for d in shape)


def _subst(value, bindings):
    if isinstance(value, Expr):
        return evaluate(value, bindings)
    if isinstance(value, tuple):
        return tuple(_subst(v, bindings) for v in value)
    if isinstance(value, list):
        return [_subst(v, bindings) for v in value]
    return value


def _substitute_op(op, bindings) -> None:
    op.inputs = [_subst(s, bindings) for s in op.inputs]
    op.outputs = [_subst(s, bindings) for s in op.outputs]
    op.attrs = {k: _subst(v, bindings) for k, v in op.attrs.items()}
    op.facts = {k: _subst(v, bindings) for k, v in op.facts.items()}


def _tensor_rows(value, bindings):
    """A copy of a recorded module argument/result with the rows substituted (None: unknown)."""
    if isinstance(value, Tensor) and value.shape is not None and any(_mentions(d, bindings) for d in value.shape):
        if any(v is None for v in bindings.values()):
            return Unknown("rows routed to one expert: data dependent")
        return Tensor(tuple(_subst(d, bindings) for d in value.shape), value.dtype)
    if isinstance(value, (tuple, list)):
        return type(value)(_tensor_rows(v, bindings) for v in value)
    return value


def _substitute_modules(tracer, bindings) -> None:
    """The layers called in the loop keep their calls' shapes for the report: substituted too."""
    for key, value in tracer.module_outputs.items():
        tracer.module_outputs[key] = _tensor_rows(value, bindings)
    for key, calls in tracer.module_call_inputs.items():
        tracer.module_call_inputs[key] = [(_tensor_rows(args, bindings), _tensor_rows(result, bindings))
                                          for args, result in calls]


def _forget_rows(scope, names) -> None:
    """Names bound to a tensor of one expert's rows cannot be used after the loop: unknown."""
    for key, value in scope.vars.items():
        if _holds_rows(value, names):
            scope.vars[key] = Unknown("rows routed to one expert of a loop that has ended: data dependent")


def _holds_rows(value, names) -> bool:
    if isinstance(value, Tensor):
        return value.shape is not None and any(_mentions(d, names) for d in value.shape)
    if isinstance(value, (tuple, list)):
        return any(_holds_rows(v, names) for v in value)
    if isinstance(value, dict):
        return any(_holds_rows(v, names) for v in value.values())
    return False


# ---- bindings: the torch functions that carry the facts -----------------------------------------

def track(functions: dict) -> None:
    """Wrap the functions (and so the tensor methods) that create or keep the routing facts."""
    def after(name, fn):
        original = functions[name]

        def call(interp, args, kwargs, node):
            return fn(original(interp, args, kwargs, node), args, kwargs)
        functions[name] = call

    def arg(args, kwargs, index, name, default=None):
        return args[index] if len(args) > index else kwargs.get(name, default)

    after("one_hot", lambda r, a, k: one_hot(r, a[0], arg(a, k, 1, "num_classes", -1)))
    after("permute", lambda r, a, k: permuted(r, a[0], (list(a[1]) if len(a) == 2 and isinstance(a[1], (tuple, list))
                                                         else list(a[1:])) or list(k.get("dims", ()))))
    after("sum", lambda r, a, k: summed(r, a[0], arg(a, k, 1, "dim"), arg(a, k, 2, "keepdim", False)))
    after("squeeze", lambda r, a, k: squeezed(r, a[0]))
    after("cumsum", lambda r, a, k: running(r, a[0], arg(a, k, 1, "dim")))
    for name in ("view", "reshape"):
        after(name, lambda r, a, k: reshaped(r, a[0]))
    for name in ("nonzero", "argwhere"):
        original = functions[name]

        def hit(interp, args, kwargs, node, original=original, name=name):
            as_tuple = name == "nonzero" and arg(args, kwargs, 1, "as_tuple", False)
            found = nonzero(args[0], as_tuple) if args else None
            return found if found is not None else original(interp, args, kwargs, node)
        functions[name] = hit
    where = functions["where"]

    def where_positions(interp, args, kwargs, node):
        if len(args) == 1 and not kwargs:  # torch.where(cond): nonzero(cond, as_tuple=True)
            found = positions(args[0])
            if found is not None:
                return found
            return interp.unknown("`torch.where(condition)`: the positions' count depends on the tensor's values "
                                  "(data-dependent)", node)
        return where(interp, args, kwargs, node)
    functions["where"] = where_positions
