"""``argparse`` as a run without command-line arguments sees it (a CI job, an analysis).

Training scripts build their model from ``opt = parser.parse_args()`` at module level
(pytorch/examples' dcgan reads ``nz``, ``ngf``, ``ndf`` so).  ``parse_args()`` with no
arguments gives every option its default, as CPython's argparse does: ``default`` (None when
absent), ``store_true`` -> False, ``store_false`` -> True, a string default converted by
``type``, and ``set_defaults`` winning over an argument's own default.  An argument that such a
run cannot have (``required=True``, a positional without ``nargs='?'``/``'*'``) is an unknown
naming it, since argparse would exit there.  Explicit argument lists are not parsed.
"""

from __future__ import annotations

from staticflops.frontend.values import Builtin, Class, Instance, Namespace

_NO_DEST = ("help", "version")  # actions that store nothing in the namespace


def argparse_namespace(object_class: Class) -> Namespace:
    namespace_class = Class("Namespace", (object_class,), {"__init__": Builtin("Namespace.__init__", _namespace_init)})

    def parse_args(interp, args, kwargs, node):
        given = args[1] if len(args) > 1 else kwargs.get("args")
        if given is not None:
            return interp.unknown("parse_args() with an explicit argument list is not modelled", node)
        parser = args[0]
        values = dict(parser.attrs["_arguments"])
        values.update(parser.attrs["_defaults"])
        return Instance(namespace_class, values, interp.location(node))

    def parse_known_args(interp, args, kwargs, node):
        return (parse_args(interp, args, kwargs, node), [])

    methods = {
        "__init__": _parser_init, "add_argument": _add_argument, "set_defaults": _set_defaults,
        "parse_args": parse_args, "parse_known_args": parse_known_args,
        # groups add their arguments to the parser itself
        "add_argument_group": _same_parser, "add_mutually_exclusive_group": _same_parser,
        "print_help": _nothing, "print_usage": _nothing, "format_help": _nothing,
    }
    parser_class = Class("ArgumentParser", (object_class,),
                         {name: Builtin(f"ArgumentParser.{name}", fn) for name, fn in methods.items()})
    return Namespace("argparse", {"ArgumentParser": parser_class, "Namespace": namespace_class,
                                  "SUPPRESS": "==SUPPRESS=="})


def _parser_init(interp, args, kwargs, node):
    args[0].attrs.update({"_arguments": {}, "_defaults": {}})


def _namespace_init(interp, args, kwargs, node):
    args[0].attrs.update(kwargs)


def _same_parser(interp, args, kwargs, node):
    return args[0]


def _nothing(interp, args, kwargs, node):
    return None


def _set_defaults(interp, args, kwargs, node):
    args[0].attrs["_defaults"].update(kwargs)


def _add_argument(interp, args, kwargs, node):
    parser, names = args[0], [n for n in args[1:] if isinstance(n, str)]
    if not names or len(names) != len(args) - 1:
        raise TypeError("add_argument() takes option strings")
    action = kwargs.get("action", "store")
    if action in _NO_DEST:
        return None
    optional = names[0].startswith("-")
    dest = (kwargs.get("dest") or _dest(names)) if optional else names[0]
    if kwargs.get("required") or (not optional and kwargs.get("nargs") not in ("?", "*")):
        value = interp.unknown(f"argument `{names[0]}` is required: a run without arguments has no value", node)
    elif action == "store_true":
        value = kwargs.get("default", False)
    elif action == "store_false":
        value = kwargs.get("default", True)
    else:
        value = kwargs.get("default", [] if kwargs.get("nargs") == "*" and not optional else None)
        if isinstance(value, str) and "type" in kwargs:  # argparse converts string defaults
            value = interp.call(kwargs["type"], [value], {}, node)
    if not isinstance(dest, str):
        raise TypeError("dest= is not a string")
    parser.attrs["_arguments"][dest] = value
    return None


def _dest(names: list[str]) -> str:
    """``--dry-run`` -> ``dry_run``: the first long option, else the first short one."""
    long = [n for n in names if n.startswith("--")]
    return (long[0][2:] if long else names[0][1:]).replace("-", "_")
