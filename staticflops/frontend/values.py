"""The values our abstract interpreter computes with.

Known Python data (numbers, strings, tuples, lists, dicts, None) is represented by the
Python objects themselves; dimensions may also be symbolic :class:`Expr`.  Everything the
analysed program defines or that stands for a framework object gets a class here.  A
value we cannot know is an :class:`Unknown`, which remembers why and where.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from staticflops.frontend import syntax as cst

from staticflops.diagnostics import Location
from staticflops.shapes import Expr


class CannotKnow(Exception):
    """Raised inside a builtin when an argument's value cannot be known; becomes an Unknown."""


@dataclass(eq=False)
class Unknown:
    reason: str
    location: Location | None = None

    def __repr__(self) -> str:
        return f"<unknown: {self.reason}>"


@dataclass(eq=False)
class Tensor:
    """A symbolic tensor: its shape (None when not known) and dtype."""

    shape: tuple | None
    dtype: str = "float32"
    requires_grad: bool = False
    values: list | None = field(default=None, kw_only=True)  # contents, when known at build time
    # For an integer tensor whose last size is a symbol (arange(T)): (start, step), element
    # [..., j] being start + step * j whatever the leading indices (torch/constants.py).
    progression: tuple | None = field(default=None, kw_only=True)
    # Attributes the analysed code set on this tensor that torch's own tensors do not have
    # (transformers' ``param._is_hf_initialized = True``); None until the first is set.
    python_attrs: dict | None = field(default=None, kw_only=True, repr=False)

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)


@dataclass(eq=False)
class Parameter(Tensor):
    """An ``nn.Parameter``: requires grad while trainable."""

    trainable: bool = True
    owner: object = None  # the framework layer whose rule counts this tensor (weight/bias)


@dataclass(eq=False)
class Builtin:
    """A callable implemented in Python: ``fn(interp, args, kwargs, node)``."""

    name: str
    fn: Callable
    bind_self: bool = True  # becomes a bound method when found on a class
    # maths on the values given (math.*, numpy's scalar maths, abs, round): no effect, nothing
    # of the analysed code run (Expressions._comprehension_argument skips such work)
    pure: bool = False

    def __repr__(self) -> str:
        return f"<builtin {self.name}>"


@dataclass(eq=False)
class Function:
    """A ``def`` or ``lambda`` of the analysed source, with its closure."""

    name: str
    node: Any  # libcst FunctionDef or Lambda
    scope: Any  # the defining Scope (closure)
    source: Any  # SourceFile
    defaults: dict = field(default_factory=dict)  # parameter name -> evaluated default
    qualname: str = ""
    attrs: dict = field(default_factory=dict)  # function attributes: __wrapped__ (functools.wraps), registry marks
    cache: Any = None  # on the wrapper functools.lru_cache returns: its entries (stdlib/functools_.LruCache)
    # a context manager factory each call runs inside (the function `@torch.no_grad()` returns)
    around: Any = None
    # the class whose body defines it (CPython's ``__class__`` cell): zero-argument super() in it
    # starts after this class, whoever calls it (``Base.__init__(self, ...)`` from a subclass too)
    defining_class: Any = None

    def __repr__(self) -> str:
        # as Python prints a function (an f-string of a list of callbacks), never the syntax tree
        return f"<function {self.qualname or self.name}>"


def _depth_first(cls: "Class") -> tuple:
    """Bases depth-first, each once: the order when C3 finds none (Python would refuse the class)."""
    order: dict = {cls: None}  # a list's `in` made a 3,000-class chain take 42 s
    for base in cls.bases:
        for inner in base.mro():
            order.setdefault(inner)
    return tuple(order)


def _c3(cls: "Class") -> tuple | None:
    """CPython's method resolution order (C3 linearization): a class comes before its bases and
    bases keep their written order, so ``object`` is last and a mixin's ``super()`` reaches the
    next mixin (``class C(A, B)`` with ``A(object)`` and ``B(object)``: C, A, B, object)."""
    if len(cls.bases) <= 1:  # a single chain: the base's order after the class
        return (cls, *(cls.bases[0].mro() if cls.bases else ()))
    sequences = [list(base.mro()) for base in cls.bases] + [list(cls.bases)]
    result = [cls]
    while True:
        sequences = [seq for seq in sequences if seq]
        if not sequences:
            return tuple(result)
        for seq in sequences:
            head = seq[0]
            if not any(head in other[1:] for other in sequences):
                break
        else:
            return None
        result.append(head)
        for seq in sequences:
            if seq[0] is head:
                del seq[0]


@dataclass(eq=False)
class MethodWrapper:
    """What ``staticmethod``/``classmethod``/``property``/``functools.cached_property`` return:
    a function that binds in its own way when found on a class (Python's descriptors)."""

    kind: str  # "staticmethod", "classmethod", "property" or "cached_property"
    function: Any  # the wrapped callable (a property's getter)
    setter: Any = None  # a property's setter, added by ``@name.setter``

    @property
    def name(self) -> str:
        return getattr(self.function, "name", "?")


@dataclass(eq=False)
class Class:
    """A class: defined in the analysed source or provided by a framework model."""

    name: str
    bases: tuple
    namespace: dict
    location: Location | None = None
    module_kind: str | None = None  # for framework layers: the IR kind, e.g. "conv"
    _mro: tuple = field(default=(), repr=False)  # (the bases it was computed for, the order)

    def mro(self) -> tuple["Class", ...]:
        # Every attribute lookup walks the MRO (~20,000 lookups building a 96-block model), and
        # a class's bases are set once when it is defined: compute the order once per bases.
        if self._mro and self._mro[0] is self.bases:
            return self._mro[1]
        self._mro = (self.bases, _c3(self) or _depth_first(self))
        return self._mro[1]

    def lookup(self, name: str):
        return self.lookup_owner(name)[0]

    def lookup_owner(self, name: str) -> tuple:
        """The member and the class in the MRO that defines it (what ``super()`` starts after)."""
        for cls in self.mro():
            if name in cls.namespace:
                return cls.namespace[name], cls
        raise KeyError(name)

    def is_subclass_of(self, other: "Class") -> bool:
        return other in self.mro()

    def __repr__(self) -> str:
        return f"<class {self.name}>"


@dataclass(eq=False)
class ModuleState:
    """What makes an Instance an ``nn.Module``: its registered children and parameters."""

    children: dict = field(default_factory=dict)  # name -> Instance, in registration order
    parameters: dict = field(default_factory=dict)  # name -> Parameter
    buffers: dict = field(default_factory=dict)  # name -> tensor (register_buffer), never parameters
    kind: str | None = None  # IR kind for framework layers ("conv"); None for containers/user modules
    attrs: dict = field(default_factory=dict)  # normalised constructor arguments of a framework layer
    frozen: bool = False
    # weight/bias of a framework layer replaced by another tensor (weight tying): its rule
    # still counts them, but the layer no longer holds them.
    replaced: dict = field(default_factory=dict)
    # register_forward_pre_hook / register_forward_hook: (hook, with_kwargs), run around forward
    pre_hooks: list = field(default_factory=list)
    hooks: list = field(default_factory=list)


@dataclass(eq=False)
class Instance:
    cls: Class
    attrs: dict = field(default_factory=dict)
    location: Location | None = None
    module: ModuleState | None = None

    def __repr__(self) -> str:
        return f"<{self.cls.name} instance>"


class StrMember(Instance, str):
    """A member of an enum that mixes in ``str`` (``class PeftType(str, Enum)``, ``StrEnum``): it
    is its value as CPython makes it, equal to and hashed as that string (``"LORA" in
    registry``), with str's methods, and still the member (``is``, ``.name``, ``.value``)."""

    def __new__(cls, value: str, *args, **kwargs):
        return str.__new__(cls, value)

    def __init__(self, value: str, cls: Class, attrs: dict):
        Instance.__init__(self, cls, attrs)

    def shown(self, conversion) -> str:
        """``str()``/f-string text (CPython 3.11): ``Class.NAME`` for ``(str, Enum)``, the value for
        ``StrEnum``; ``repr()``: ``<Class.NAME: 'value'>``."""
        name, value = self.attrs.get("_name_"), str.__str__(self)
        if conversion in ("r", "a"):
            return f"<{self.cls.name}.{name}: {value!r}>"
        string_enum = any(klass.name == "StrEnum" and "__str_mixin__" not in klass.namespace for klass in self.cls.mro())
        return value if string_enum else f"{self.cls.name}.{name}"


@dataclass(eq=False)
class BoundMethod:
    receiver: Any
    function: Any  # Function or Builtin
    owner: Class | None = None  # class where lookup started (for super())


class Cycle(tuple):
    """``itertools.cycle(iterable)``: its items, repeated without end; ``zip`` takes as many as
    its other iterables have (transformers' tied-weights pairing) and ``next()`` one at a time
    (Zamba2's shared blocks), both from where the last left off; other iteration is refused."""

    position = 0  # items taken so far (an instance attribute once one is taken)

    def take(self, count: int) -> list:
        """The next ``count`` items, consumed."""
        if not len(self):
            return []
        items = [self[(self.position + i) % len(self)] for i in range(count)]
        self.position += count
        return items


@dataclass(eq=False)
class CodeObject:
    """``f.__code__`` of a function of the analysed code (frontend/function_objects.py)."""

    function: Any


@dataclass(eq=False)
class Namespace:
    """A module-like object: ``torch``, ``torch.nn``, ``math`` or an imported file."""

    name: str
    members: dict
    # For packages of the analysed project: name -> value (or None) for a name not yet in
    # ``members`` (runs ``__init__.py`` on first need, then looks for a submodule).
    loader: Any = None
    # What the module's code stored as ``sys.modules[__name__]`` while it ran (a lazy-import
    # object): importers then get their names from it, as Python's import returns that entry.
    replaced_by: Any = None
    source: Any = None  # the SourceFile a module of the analysed project ran from (inspect.getsource)

    def __repr__(self) -> str:
        return f"<namespace {self.name}>"


@dataclass(eq=False)
class LazyValue:
    """A name bound by an import, resolved on first use: imports of the analysed project are
    followed only as far as the model needs, and an unresolvable one is reported only if used."""

    load: Callable
    resolved: Any = None
    done: bool = False
    loading: bool = False  # its import is under way: the name is not bound yet, as in Python

    def force(self):
        if not self.done:
            self.loading = True
            try:
                self.resolved, self.done = self.load(), True
            finally:
                self.loading = False
            while isinstance(self.resolved, LazyValue):
                self.resolved = self.resolved.force()
        return self.resolved


class Record(tuple):
    """An instance of a ``NamedTuple`` / ``collections.namedtuple`` class: a tuple with names."""

    cls: Any = None
    fields: tuple = ()

    @classmethod
    def make(cls, record_class, fields, items) -> "Record":
        record = cls(items)
        record.cls, record.fields = record_class, tuple(fields)
        return record


class Generated(list):
    """What calling a generator function gives: its body runs at the call (not lazily), the
    yielded values are collected here; ``next()`` takes them from the front."""


def is_generator(node, source=None) -> bool:
    """Whether a ``def`` contains ``yield`` outside nested functions and classes (cached).
    With its ``source`` (a SourceFile), statements whose lines hold no ``yield`` text at all are
    not walked: a loaded tree builds a node's fields on first read, and walking every body in
    full built most of a library's function bodies for this question alone."""
    found = _GENERATORS.get(node)
    if found is None:
        lines = _yield_lines(source)
        body = node.body
        if lines is None or not isinstance(body, cst.IndentedBlock):
            found = _has_yield(body)
        else:
            found = _statements_yield(body.body, lines, source.positions)
        _GENERATORS[node] = found
    return found


_GENERATORS: dict = {}
_YIELD_LINES: dict = {}  # source text -> the sorted numbers of the lines where `yield` appears


def _yield_lines(source) -> list | None:
    """The lines of the source whose text contains ``yield`` (comments and strings too: a
    superset of where a Yield node can start), or None when lines cannot be counted this way
    (no text kept, or a carriage return, which the parser also counts as a line break)."""
    text = getattr(source, "text", "")
    if not text or "\r" in text:
        return None
    found = _YIELD_LINES.get(text)
    if found is None:
        found, line, counted = [], 1, 0
        at = text.find("yield")
        while at >= 0:
            line += text.count("\n", counted, at)
            counted = at
            found.append(line)
            at = text.find("yield", at + 5)
        _YIELD_LINES[text] = found
    return found


def _statements_yield(statements, lines: list, positions: dict) -> bool:
    """``_has_yield`` over a block's statements, skipping each statement whose lines (from its
    start to the next statement's start) hold no ``yield``; the last one is always walked."""
    for index, statement in enumerate(statements):
        start = positions.get(statement)
        end = positions.get(statements[index + 1]) if index + 1 < len(statements) else None
        if start is not None and end is not None:
            first = bisect_left(lines, start[0])
            if first == len(lines) or lines[first] > end[0]:
                continue  # no `yield` text from this statement's first line to the next one's
        if _has_yield(statement):
            return True
    return False


def has_yield(node) -> bool:
    """Whether a ``yield`` is in ``node`` (outside the functions and classes it defines)."""
    if isinstance(node, cst.Yield):
        return True
    if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        return False
    return any(has_yield(child) for child in node.children)


_has_yield = has_yield


class NoOpMembers(dict):
    """Members of a namespace that never matters for cost (``nn.init``, logging, ``torch._C``):
    every name is the same no-op builtin."""

    def __init__(self, anything: "Builtin"):
        super().__init__()
        self.anything = anything

    def get(self, key, default=None):
        return dict.get(self, key, self.anything)  # the few members that return a value are entries

    def __contains__(self, key):
        return True

    def __getitem__(self, key):
        return dict.get(self, key, self.anything)


@dataclass(eq=False)
class Partial:
    function: Any
    args: tuple
    kwargs: dict


@dataclass(eq=False)
class SuperProxy:
    receiver: Any
    start_after: Class


@dataclass(frozen=True)
class TypeUnion:
    """``A | B`` of classes (Python 3.10's ``types.UnionType``): what ``isinstance`` and
    ``issubclass`` accept as a tuple of its options.  ``None`` among them stands for NoneType;
    nested unions are flattened and repeats dropped, as CPython does."""

    options: tuple
    # written `Union[A, B]` / `Optional[A]` (typing.get_origin gives typing.Union, not
    # types.UnionType, before Python 3.14); equal to the `A | B` spelling all the same
    typing_form: bool = field(default=False, compare=False)

    @staticmethod
    def of(left, right, typing_form: bool = False) -> "TypeUnion":
        options: list = []
        for side in (left, right):
            for option in (side.options if isinstance(side, TypeUnion) else (side,)):
                if not any(option is seen for seen in options):
                    options.append(option)
        return TypeUnion(tuple(options), typing_form)

    def __repr__(self) -> str:
        if self.typing_form:
            return f"typing.Union[{', '.join(type_text(o) for o in self.options)}]"
        return " | ".join(type_text(o) for o in self.options)


@dataclass(eq=False)
class GenericAlias:
    """A subscripted type: ``list[int]`` (``types.GenericAlias``), ``typing.List[int]``,
    ``Literal["a", "b"]``, ``Annotated[float, meta]``, ``Callable[[int], str]``, ``Foo[T]``.
    ``origin`` is what ``typing.get_origin`` gives (``list``, the ``Literal`` form, the class),
    ``args`` what ``typing.get_args`` gives.  Calling it calls ``origin`` where CPython does."""

    origin: Any
    args: tuple
    name: str  # as it prints before the brackets: "list", "typing.List", "typing.Literal"
    callable: bool = True  # list[int]() and Foo[int]() build; typing.List[int]() raises TypeError

    def __eq__(self, other) -> bool:
        return isinstance(other, GenericAlias) and other.origin is self.origin and other.args == self.args

    def __hash__(self) -> int:
        try:
            return hash((id(self.origin), self.args))
        except TypeError:  # Callable[[int], str] holds a list, as in CPython its args do
            return id(self.origin)

    def __repr__(self) -> str:
        return f"{self.name}[{', '.join(type_text(a) for a in self.args)}]" if self.args else self.name


def type_text(value) -> str:
    """A type as ``repr`` prints it inside an alias or a union: int, None, typing.Any, 'a'."""
    if value is None:
        return "None"
    if isinstance(value, (str, int, float, bool)):
        return repr(value)
    if isinstance(value, list):
        return f"[{', '.join(type_text(v) for v in value)}]"
    if isinstance(value, (GenericAlias, TypeUnion)):
        return repr(value)
    if value is Ellipsis:
        return "..."
    return getattr(value, "name", "?")

def dotted_name(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted_name(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    return ""


def describe(value) -> str:
    if isinstance(value, Tensor):
        return "a tensor"
    if isinstance(value, Instance):
        return f"a {value.cls.name}"
    if isinstance(value, Class):
        return f"class {value.name}"
    if isinstance(value, (Function, Builtin)):
        return f"function {value.name}"
    if isinstance(value, Unknown):
        return "an unknown value"
    return f"{type(value).__name__} {show(value)}"


def show(value) -> str:
    text = repr(value) if not isinstance(value, Expr) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def stable_order(items: set | frozenset) -> list:
    """A set's items in an order that does not depend on ``PYTHONHASHSEED``.  Python orders a
    set by hash, and a string's hash changes with every process: iterating ``{"a", "b"}`` as
    Python does would list the layers a loop adds in a different order on each run, and
    ``staticflops diff`` would report changes nobody made.  Numbers come first, ascending (for
    small non-negative integers that is Python's own order), then strings, then tuples; a set
    holding anything else keeps the order it has (hashed by identity, not by the seed)."""
    try:
        return sorted(items, key=_stable_key)
    except TypeError:
        return list(items)


def _stable_key(value) -> tuple:
    if isinstance(value, (int, float, Fraction)):
        return 0, value
    if isinstance(value, str):
        return 1, value
    if isinstance(value, tuple):
        return 2, tuple(map(_stable_key, value))
    if value is None:
        return 3, 0
    raise TypeError("no stable order")


def modules_of(module: "Instance") -> list:
    """The modules of ``named_modules(module)``, in its order, without building their dotted
    paths (``train()``, ``apply()`` and ``modules()`` walk every module of the tree and read no path)."""
    seen = set()
    found = []
    stack = [module]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        found.append(current)
        children = current.module.children
        if children:  # (most modules are leaves: no loop to start)
            for child in reversed(children.values()):  # pushed last to first: taken first to last
                if child is not None:
                    stack.append(child)
    return found


_MAX_MODULE_DEPTH = 10_000  # remove_duplicate=False follows a cycle of modules as PyTorch does, but not forever


def named_modules(module: "Instance", prefix: str = "", remove_duplicate: bool = True):
    """(dotted path, module) for a module tree in pre-order, as PyTorch lists them: each module
    once, a shared one at its first path (``remove_duplicate=False``: at every path).  A stack,
    not recursive generators: each item of a recursive one passes up through every level above
    it (~1,000 modules walked several times while building a 96-block GPT)."""
    seen = set()
    stack = [(prefix, module)]
    while stack:
        path, current = stack.pop()
        if id(current) in seen:
            continue
        if remove_duplicate:
            seen.add(id(current))
        elif path.count(".") > _MAX_MODULE_DEPTH:
            continue
        yield path, current
        children = current.module.children
        if children:
            for name, child in reversed(children.items()):  # pushed last to first: taken first to last
                if child is not None:
                    stack.append((f"{path}.{name}" if path else name, child))


def reachable(value, created):
    """Each value reachable from ``value`` (itself first), once: through containers, the
    attributes of the instances whose ids are in ``created`` (an instance from elsewhere is
    given but not entered), bound methods' receivers and partials' parts.  Plain numbers,
    strings and None are not given.  What a memo's recording may hand on or hold
    (construction_memo._reaches_outside, opaque_ints' placeholders)."""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _PLAIN_DATA or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        if kind in _WALKED_CONTAINERS:
            stack.extend(item.items() if kind is dict else item)
        elif isinstance(item, Instance):
            if id(item) in created:
                stack.extend(item.attrs.values())
                if isinstance(item, dict):
                    stack.extend(dict.items(item))
        elif kind is BoundMethod:
            stack.append(item.receiver)
        elif kind is Partial:
            stack.extend((item.function, *item.args, *item.kwargs.values()))


_PLAIN_DATA = frozenset({int, float, str, bool, type(None), bytes})  # exact types: an int subclass is given
_WALKED_CONTAINERS = frozenset({tuple, list, dict, set, frozenset})
