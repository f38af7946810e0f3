"""Class-making features of Python's standard library, over our own values:
``@dataclass``, ``Enum``, ``NamedTuple`` / ``collections.namedtuple``.

Model code uses them for configs (``@dataclass class GPTConfig``), block settings
(``class MBConvConfig``) and weight catalogues (``class ResNet50_Weights(WeightsEnum)``).
"""

from __future__ import annotations

from staticflops.frontend import syntax as cst

from staticflops.frontend.scope import MISSING
from staticflops.frontend.values import Builtin, Class, Instance, LazyValue, Record, StrMember


class FieldSpec:
    """What ``dataclasses.field(...)`` returns: a default or a factory for it, and the field's
    ``metadata`` (huggingface_hub's validated fields keep their validators there, peft its
    LoRA-variant marks)."""

    def __init__(self, default=MISSING, factory=None, metadata=None):
        self.default, self.factory, self.metadata = default, factory, metadata


def _field(interp, args, kwargs, node):
    return FieldSpec(kwargs.get("default", MISSING), kwargs.get("default_factory"), kwargs.get("metadata"))


class FutureFeature:
    """What ``from __future__ import annotations`` binds: the mark that the module's annotations
    are kept as their source text (PEP 563), so that ``Field.type`` is a string there."""

    def __repr__(self) -> str:
        return "_Feature((3, 7, 0, 'beta', 1), None, 16777216)"


FUTURE_ANNOTATIONS = FutureFeature()


# ---- dataclasses -------------------------------------------------------------------------

def dataclass_fields(cls: Class) -> list:
    """(name, default) of every field, base classes first, as ``dataclasses`` orders them."""
    fields: dict = {}
    for klass in reversed(cls.mro()):
        if "__dataclass_fields__" not in klass.namespace:
            continue
        for name, annotation in klass.namespace.get("__annotations__", {}).items():
            if _is_class_var(annotation):  # `x: ClassVar[...] = v` is a class attribute, not a field
                continue
            fields[name] = klass.namespace.get(name, MISSING) if klass is cls or name not in fields else fields[name]
    return list(fields.items())


def is_dataclass_type(cls) -> bool:
    """CPython's test: the class has ``__dataclass_fields__``, its own or inherited, so a plain
    subclass of a dataclass (transformers' ``class XOutput(BaseModelOutput): pass``) is one,
    with its base's fields."""
    return isinstance(cls, Class) and any("__dataclass_fields__" in klass.namespace for klass in cls.mro())


def _is_class_var(annotation) -> bool:
    """``ClassVar`` / ``ClassVar[...]`` / ``typing.ClassVar[...]`` written as the annotation."""
    node = getattr(annotation, "annotation", annotation)  # a cst.Annotation holds the expression
    if isinstance(node, cst.Subscript):
        node = node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value == "ClassVar"
    return isinstance(node, cst.Name) and node.value == "ClassVar"


def make_dataclass(interp, cls: Class, node, eq: bool = True) -> Class:
    fields = [name for name, _ in dataclass_fields(cls)]
    cls.namespace["__dataclass_fields__"] = fields
    if eq and "__eq__" not in cls.namespace:
        cls.namespace["__eq__"] = Builtin(f"{cls.name}.__eq__", _fields_equal)
    if "__init__" in cls.namespace:
        return cls

    def init(interp, args, kwargs, call_node):
        self, given, kwargs = args[0], list(args[1:]), dict(kwargs)
        for index, (name, default) in enumerate(dataclass_fields(cls)):
            if index < len(given):
                value = given[index]
            elif name in kwargs:
                value = kwargs.pop(name)
            elif isinstance(default, FieldSpec):
                value = interp.call(default.factory, [], {}, call_node) if default.factory is not None else default.default
            elif default is not MISSING:
                value = default
            else:
                raise interp.fail(f"{cls.name}() missing required argument '{name}'", call_node, "SF114")
            if value is MISSING:
                raise interp.fail(f"{cls.name}() missing required argument '{name}'", call_node, "SF114")
            # the generated __init__ writes `self.name = value`: a __setattr__ of the class runs
            # (transformers' ModelOutput stores each non-None field as a dict key there)
            interp.set_attribute(self, name, value, call_node)
        if kwargs:
            raise interp.fail(f"{cls.name}() got an unexpected keyword argument '{next(iter(kwargs))}'", call_node, "SF114")
        try:
            post_init, owner = cls.lookup_owner("__post_init__")
        except KeyError:
            return None
        interp.call(interp._bind(self, post_init, owner, call_node), [], {}, call_node)
        return None

    cls.namespace["__init__"] = Builtin(f"{cls.name}.__init__", init)
    cls.namespace["__init__"].dataclass = cls  # inspect.signature lists its fields
    return cls


def _fields_equal(interp, args, kwargs, node):
    """The ``__eq__`` a dataclass gets: another instance of exactly its class with equal fields,
    compared in order as tuples are; anything else NotImplemented (None here), so ``==`` falls
    back to identity, as in CPython."""
    this, other = args[0], args[1]
    if not isinstance(other, Instance) or other.cls is not this.cls:
        return None
    for name, _ in dataclass_fields(this.cls):
        same = interp.compare(cst.Equal, this.attrs.get(name), other.attrs.get(name), node)
        if not isinstance(same, bool):
            same = interp.truth(same, node)
        if same is not True:
            return same
    return True


def _dataclass(interp, args, kwargs, node):
    if args and isinstance(args[0], Class):
        return make_dataclass(interp, args[0], node)
    eq = kwargs.get("eq", True) is not False  # @dataclass(eq=False): identity, as object's
    return Builtin("dataclass", lambda i, a, k, n: make_dataclass(i, a[0], n, eq), bind_self=False)  # @dataclass(...)


def _replace(interp, args, kwargs, node):
    original = args[0]
    if not isinstance(original, Instance):
        return interp.unknown("dataclasses.replace() of a value that is not a dataclass", node)
    return Instance(original.cls, attrs={**original.attrs, **kwargs}, location=original.location)


def _asdict(interp, args, kwargs, node):
    value = args[0]
    if isinstance(value, Record):
        return dict(zip(value.fields, value))
    if not isinstance(value, Instance) or not is_dataclass_type(value.cls):
        return interp.unknown("asdict() of a value that is not a dataclass instance", node)
    return _as_plain(value)


def _as_plain(value):
    """CPython's asdict: the fields only (not attributes set in __post_init__), recursing into
    dataclasses, lists, tuples and dicts."""
    if isinstance(value, Instance) and is_dataclass_type(value.cls):
        return {name: _as_plain(value.attrs.get(name)) for name, _ in dataclass_fields(value.cls)}
    if isinstance(value, (list, tuple)) and not isinstance(value, Record):
        return type(value)(_as_plain(item) for item in value)
    if isinstance(value, dict):
        return {key: _as_plain(item) for key, item in value.items()}
    return value


_FIELD_NAMES = ("name", "type", "default", "default_factory", "metadata")


def _fields_builtin(object_class) -> tuple:
    """``dataclasses.fields(cls_or_instance)``: Field records (name, type, default,
    default_factory, metadata) in definition order, and the ``MISSING`` marker for an absent
    default (both CPython's)."""
    field_class = make_record_class("Field", list(_FIELD_NAMES), {}, (object_class,))
    missing = Class("_MISSING_TYPE", (object_class,), {})

    def fields(interp, args, kwargs, node):
        target = args[0]
        cls = target.cls if isinstance(target, Instance) else target
        if not is_dataclass_type(cls):
            raise interp.fail("fields() needs a dataclass or an instance of one", node, "SF114")
        records = []
        types = field_types(interp, cls)
        for name, default in dataclass_fields(cls):
            metadata = {}
            if isinstance(default, FieldSpec):
                plain = missing if default.default is MISSING else default.default
                factory = missing if default.factory is None else default.factory
                metadata = dict(default.metadata) if isinstance(default.metadata, dict) else metadata
            else:
                plain, factory = (missing if default is MISSING else default), missing
            records.append(Record.make(field_class, _FIELD_NAMES, [name, types.get(name), plain, factory, metadata]))
        return tuple(records)
    return Builtin("fields", fields, bind_self=False), missing


def field_types(interp, cls: Class) -> dict:
    """Each field's ``Field.type``: its annotation evaluated where the class body wrote it, or the
    annotation's text in a module with ``from __future__ import annotations`` (as CPython keeps
    it).  Worked out once per class (``fields()`` is called on every construction of a strict
    config): a class's annotations are fixed when its body has run."""
    known = getattr(cls, "_field_types", None)
    if known is not None and known[0] is cls.bases:
        return known[1]
    types: dict = {}
    for klass in reversed(cls.mro()):
        written = klass.namespace.get("__annotations__", {})
        scope = klass.namespace.get("__annotation_scope__")
        if not written or scope is None:
            continue
        postponed = _postponed(scope.module)
        for name, annotation in written.items():
            node = getattr(annotation, "annotation", annotation)
            if postponed:
                types[name] = annotation_text(node)
            else:
                types[name], _held = interp.quietly(lambda node=node: interp.evaluate_node(node, scope))
    cls._field_types = (cls.bases, types)
    return types


def _postponed(module) -> bool:
    """The module ran ``from __future__ import annotations`` (bound lazily, as every import)."""
    feature = module.vars.get("annotations") if module is not None else None
    if isinstance(feature, LazyValue):
        feature = feature.force()
    return feature is FUTURE_ANNOTATIONS


def annotation_text(node) -> str:
    """An annotation's source text, as PEP 563 keeps it (``int | None``, ``list[str]``)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{annotation_text(node.value)}.{node.attr.value}"
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float)):
        return node.value
    if isinstance(node, cst.Ellipsis):
        return "..."
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return f"{annotation_text(node.left)} | {annotation_text(node.right)}"
    if isinstance(node, cst.Subscript):
        keys = [annotation_text(getattr(element.slice, "value", element.slice)) for element in node.slice]
        return f"{annotation_text(node.value)}[{', '.join(keys)}]"
    if isinstance(node, (cst.List, cst.Tuple)):
        inner = ", ".join(annotation_text(element.value) for element in node.elements)
        return f"[{inner}]" if isinstance(node, cst.List) else f"({inner})"
    return "..."


def dataclasses_members(object_class) -> dict:
    fields, missing = _fields_builtin(object_class)
    return {"dataclass": Builtin("dataclass", _dataclass, bind_self=False),
            "fields": fields, "MISSING": missing,
            "is_dataclass": Builtin("is_dataclass", lambda i, a, k, n: is_dataclass_type(
                a[0].cls if isinstance(a[0], Instance) else a[0]), bind_self=False),
            "field": Builtin("field", _field, bind_self=False),
            "replace": Builtin("replace", _replace, bind_self=False),
            "asdict": Builtin("asdict", _asdict, bind_self=False)}


# ---- Enum ----------------------------------------------------------------------------------

def is_enum(cls: Class) -> bool:
    return any("__enum__" in klass.namespace for klass in cls.mro())


def exec_enum_body(interp, cls: Class, body, scope) -> None:
    """Members become instances of the class; their values are evaluated only when read
    (weight catalogues hold URLs, transforms and metadata that never matter for cost)."""
    members: dict = {}
    literals: dict = {}  # (type, value) of members given as literals, to find aliases by value
    counter = [0]
    strings = any("__str_mixin__" in klass.namespace for klass in cls.mro())
    for statement in body:
        assign = _simple_assignment(statement)
        if assign is None:
            interp.exec_statement(statement, scope)
            continue
        name, value_node = assign
        literal = _literal(value_node)
        if isinstance(value_node, cst.Name) and value_node.value in members:
            member = members[value_node.value]  # an alias: DEFAULT = IMAGENET1K_V2
        elif literal is not MISSING and literal in literals:
            member = literals[literal]  # an alias by value, as CPython makes it: DEFAULT = "relu"
        elif strings and literal is not MISSING and literal[0] == "str":  # the string itself, as CPython makes it
            member = StrMember(literal[1], cls, attrs={"name": name, "_name_": name, "value": literal[1],
                                                       "_value_": literal[1]})
            members[name] = literals[literal] = member
        else:
            member = Instance(cls, attrs={"name": name, "_name_": name})
            if _is_auto(value_node):
                counter[0] += 1
                value = counter[0]
            else:
                value = interp.deferred(lambda node=value_node: interp.evaluate_node(node, scope))
            member.attrs["value"] = member.attrs["_value_"] = value
            members[name] = member
            if literal is not MISSING:
                literals[literal] = member
        scope.vars[name] = member
    cls.namespace["__members__"] = members


def _literal(node):
    """The value of a plain string or number literal (evaluated at once: cheap and never a
    weight catalogue's metadata), keyed with its type; MISSING for anything else."""
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float)):
        value = node.evaluated_value
        return (type(value).__name__, value)
    return MISSING


def _simple_assignment(statement):
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            name = small.targets[0].target.value
            if not (name.startswith("__") and name.endswith("__")):
                return name, small.value
    return None


def _is_auto(node) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)) and (
        (node.func.value if isinstance(node.func, cst.Name) else node.func.attr.value) == "auto")


def str_mixin(object_class: Class) -> Class:
    """The base ``str`` stands for in a class statement's bases: a mark (looked up by name, so
    any one will do) that an enum's members are strings."""
    return Class("str", (object_class,), {"__str_mixin__": True, "__eq__": _STR_EQ, "__ne__": _STR_NE})


# str's comparison, before object's identity in the MRO (``PeftType.LORA == "LORA"``)
_STR_EQ = Builtin("str.__eq__", lambda i, a, k, n: str.__eq__(a[0], a[1]) if isinstance(a[1], str) else a[0] is a[1])
_STR_NE = Builtin("str.__ne__", lambda i, a, k, n: not (str.__eq__(a[0], a[1]) if isinstance(a[1], str) else a[0] is a[1]))


def enum_members(cls: Class) -> dict:
    for klass in cls.mro():
        if "__members__" in klass.namespace:
            return klass.namespace["__members__"]
    return {}


def enum_lookup(interp, cls: Class, value, node):
    """``Color(1)``: the member with that value."""
    for member in enum_members(cls).values():
        known = member.attrs["value"]
        known = known.force() if isinstance(known, LazyValue) else known
        if known == value or member is value:
            return member
    return interp.unknown(f"{cls.name} has no member with value {value!r}", node)


def enum_members_for(interp, object_class: Class) -> dict:
    enum = Class("Enum", (object_class,), {"__enum__": True})
    int_enum = Class("IntEnum", (enum,), {})
    str_enum = Class("StrEnum", (str_mixin(object_class), enum), {})
    auto = Builtin("auto", lambda i, a, k, n: None, bind_self=False)
    identity = Builtin("unique", lambda i, a, k, n: a[0] if a else None, bind_self=False)
    return {"Enum": enum, "IntEnum": int_enum, "StrEnum": str_enum, "Flag": enum, "IntFlag": int_enum,
            "auto": auto, "unique": identity}


# ---- NamedTuple --------------------------------------------------------------------------

def make_record_class(name: str, fields: list, defaults: dict, bases: tuple, namespace: dict | None = None) -> Class:
    namespace = namespace if namespace is not None else {}
    cls = Class(name, bases, namespace)
    namespace["_fields"] = tuple(fields)

    def new(interp, args, kwargs, node):
        given, kwargs = list(args), dict(kwargs)
        items = []
        for index, field in enumerate(fields):
            if index < len(given):
                items.append(given[index])
            elif field in kwargs:
                items.append(kwargs.pop(field))
            elif field in defaults:
                items.append(defaults[field])
            else:
                raise interp.fail(f"{name}() missing required argument '{field}'", node, "SF114")
        return Record.make(cls, fields, items)

    namespace["__new__"] = Builtin(f"{name}.__new__", new, bind_self=False)
    return cls


def _namedtuple(interp, args, kwargs, node):
    name = args[0]
    fields = args[1] if len(args) > 1 else kwargs.get("field_names")
    if isinstance(fields, str):
        fields = fields.replace(",", " ").split()
    if not isinstance(name, str) or not isinstance(fields, (list, tuple)):
        return interp.unknown("namedtuple() with arguments that are not known strings", node)
    defaults = list(kwargs.get("defaults") or [])
    default_map = dict(zip(fields[len(fields) - len(defaults):], defaults)) if defaults else {}
    return make_record_class(name, list(fields), default_map, (interp.builtins["object"],))


def record_attribute(interp, record: Record, name: str, node):
    if name in record.fields:
        return record[record.fields.index(name)]
    if name == "_asdict":
        return Builtin("_asdict", lambda i, a, k, n: dict(zip(record.fields, record)), bind_self=False)
    if name == "_replace":
        def replace(i, a, k, n):
            items = [k.get(f, v) for f, v in zip(record.fields, record)]
            return Record.make(record.cls, record.fields, items)
        return Builtin("_replace", replace, bind_self=False)
    try:
        member, owner = record.cls.lookup_owner(name)
    except KeyError:
        return interp.unknown(f"{record.cls.name} has no attribute `{name}`", node)
    return interp._bind(record, member, owner, node)


def namedtuple_builtin() -> Builtin:
    return Builtin("namedtuple", _namedtuple, bind_self=False)


def typing_namedtuple(object_class: Class) -> Class:
    return Class("NamedTuple", (object_class,), {"__namedtuple__": True})

