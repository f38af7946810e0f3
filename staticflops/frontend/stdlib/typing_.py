"""``typing``'s subscripted types as values, and ``typing.get_origin``/``get_args`` over them.

Library infrastructure reads types at run time: huggingface_hub's ``@strict`` dataclasses (every
transformers config) validate each field written against ``dataclasses.fields(cls)[i].type``
with ``get_origin``/``get_args`` (``int | None``, ``list[int]``, ``Literal["a", "b"]``), and
keys its validators by origin (``Union``, ``Literal``, ``list``, ``collections.abc.Sequence``).
So ``Union``, ``Literal``, ``List``... are distinct forms here, and subscripting a form or a class
gives a ``GenericAlias`` (values.py) whose origin and arguments are CPython's.  ``Union[A, B]``
and ``Optional[A]`` are the union ``A | B`` makes (``TypeUnion``), as ``isinstance`` accepts
them.  typing's names of the ``collections.abc`` classes are those classes (``typing.Mapping``
is ``collections.abc.Mapping`` for ``isinstance``; CPython's aliases differ only in ``repr``).
"""

from __future__ import annotations

from staticflops.frontend.values import Builtin, Class, GenericAlias, TypeUnion, Unknown

# typing's special forms subscripted into an alias whose origin is the form itself
_FORMS = ("Literal", "ClassVar", "Final", "Annotated", "Required", "NotRequired", "Unpack", "TypeGuard",
          "Concatenate", "Union", "Optional")
# typing's aliases of builtin collections: typing.List[int] has origin list; typing.List()
# raises TypeError (use list())
_COLLECTIONS = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset",
                "Type": "type"}
# typing's names for collections.abc's classes (collections.abc is read on first use)
ABC_NAMES = ("Hashable", "Iterable", "Iterator", "Sized", "Container", "Callable", "Collection", "Mapping",
             "MutableMapping", "Sequence", "MutableSequence")


def _not_instantiable(name: str):
    def refuse(interp, args, kwargs, node):
        raise interp.fail(f"Cannot instantiate typing.{name}", node, python="TypeError")
    return refuse


def _form(name: str) -> Builtin:
    form = Builtin(name, _not_instantiable(name), bind_self=False)
    form.typing_form = name
    return form


# the forms hold nothing of an analysis: one set for all
_SPECIAL = {name: _form(name) for name in _FORMS}
# type(None): `X | None` holds None for it (isinstance(None, int | None) is True)
NONE_TYPE = Builtin("NoneType", lambda interp, args, kwargs, node: None, bind_self=False)
NONE_TYPE.pytype = type(None)
# types.UnionType: what get_origin(int | None) gives
UNION_TYPE = Builtin("UnionType", _not_instantiable("UnionType"), bind_self=False)


def forms(builtins: dict) -> dict:
    """The typing members that are subscriptable forms (name -> value)."""
    members = dict(_SPECIAL)
    for name, builtin in _COLLECTIONS.items():
        form = Builtin(name, _not_instantiable(name), bind_self=False)
        form.typing_form = name
        form.alias_origin = builtins[builtin]
        form.pytype = getattr(builtins[builtin], "pytype", None)  # isinstance(x, typing.List) is list's test
        members[name] = form
    return members


def subscript(interp, container, key, node):
    """``container[key]`` for a typing form, a class or a builtin type; None for anything else."""
    args = key if isinstance(key, tuple) else (key,)
    form = getattr(container, "typing_form", None)
    if form == "Union":
        return _union(args)
    if form == "Optional":
        return _union((args[0], None))
    if form is not None:
        origin = getattr(container, "alias_origin", container)
        return GenericAlias(origin, args, f"typing.{form}", callable=False)
    if isinstance(container, Class):
        getitem = container.namespace.get("__class_getitem__")
        if getitem is not None:  # the class answers (CPython calls it as a classmethod)
            function = getattr(getitem, "function", getitem)
            return interp.call(function, [container, key], {}, node)
        return GenericAlias(container, args, container.name)
    if isinstance(container, Builtin) and isinstance(getattr(container, "pytype", None), type):
        return GenericAlias(container, args, container.name)  # list[int], dict[str, int], type[X]
    return None


def _union(args: tuple):
    options: list = []
    for arg in args:
        for option in (arg.options if isinstance(arg, TypeUnion) else (arg,)):
            option = None if getattr(option, "name", None) == "NoneType" and isinstance(option, Builtin) else option
            if not any(option is seen or option == seen for seen in options):
                options.append(option)
    return options[0] if len(options) == 1 else TypeUnion(tuple(options), typing_form=True)


def alias_attribute(interp, alias, name: str, node):
    """An attribute of a GenericAlias or a union: its parts, else the origin's (CPython forwards)."""
    if isinstance(alias, TypeUnion):
        if name == "__args__":
            return get_args_of(interp, alias)
        if name == "__origin__" and alias.typing_form:
            return _SPECIAL["Union"]
        return interp.unknown(f"attribute `{name}` of a type union is not modelled", node)
    annotated = isinstance(alias.origin, Builtin) and getattr(alias.origin, "typing_form", None) == "Annotated"
    if name == "__origin__":
        return alias.args[0] if annotated else alias.origin
    if name == "__args__":
        return alias.args[:1] if annotated else alias.args
    if name == "__metadata__" and annotated:
        return alias.args[1:]
    if name == "__parameters__":
        return ()
    return interp.get_attribute(alias.origin, name, node)


def call_alias(interp, alias: GenericAlias, args, kwargs, node):
    if not alias.callable:
        raise interp.fail(f"Type {alias.name.removeprefix('typing.')} cannot be instantiated", node, python="TypeError")
    return interp.call(alias.origin, args, kwargs, node)


def get_args_of(interp, value):
    if isinstance(value, TypeUnion):
        return tuple(NONE_TYPE if option is None else option for option in value.options)
    if isinstance(value, GenericAlias):
        return value.args
    return ()


def members() -> dict:
    """``get_origin`` and ``get_args``."""
    def get_origin(interp, args, kwargs, node):
        value = args[0] if args else kwargs.get("tp")
        if isinstance(value, Unknown):
            return value
        if isinstance(value, GenericAlias):
            return value.origin
        if isinstance(value, TypeUnion):
            return _SPECIAL["Union"] if value.typing_form else UNION_TYPE
        if isinstance(value, Builtin) and getattr(value, "alias_origin", None) is not None:
            return value.alias_origin  # get_origin(typing.List) is list
        return None

    def get_args(interp, args, kwargs, node):
        value = args[0] if args else kwargs.get("tp")
        if isinstance(value, Unknown):
            return value
        return get_args_of(interp, value)

    return {"get_origin": Builtin("get_origin", get_origin, bind_self=False),
            "get_args": Builtin("get_args", get_args, bind_self=False)}


def refuses_instance_checks(kinds) -> bool:
    """A subscripted generic among isinstance's second argument: CPython raises TypeError."""
    if isinstance(kinds, GenericAlias):
        return True
    if isinstance(kinds, TypeUnion):
        return any(isinstance(option, GenericAlias) for option in kinds.options)
    if isinstance(kinds, tuple):
        return any(refuses_instance_checks(kind) for kind in kinds)
    return False


def class_base(alias: GenericAlias):
    """What ``class A(List[int])`` / ``class A(Foo[T])`` derives from (``__mro_entries__``)."""
    return alias.origin if isinstance(alias.origin, (Class, Builtin)) else None



def types_members() -> dict:
    """``types.UnionType`` and ``types.GenericAlias`` (``list[int]``, not ``typing.List[int]``)."""
    generic = Builtin("GenericAlias", lambda i, a, k, n: GenericAlias(a[0], tuple(a[1]) if isinstance(a[1], tuple)
                                                                     else (a[1],), getattr(a[0], "name", "?")),
                      bind_self=False)
    generic.instance_check = lambda value: isinstance(value, GenericAlias) and value.callable
    UNION_TYPE.instance_check = lambda value: isinstance(value, TypeUnion) and not value.typing_form
    return {"UnionType": UNION_TYPE, "GenericAlias": generic}
