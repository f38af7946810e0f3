"""The data files a model's code reads: ``open``, ``pathlib.Path``, ``json`` and ``yaml``.

Libraries build models from files shipped next to their code (ultralytics' ``yolov8n.yaml``)
and projects keep layer widths in a config.  A read returns the file's contents only when the
file is inside the analysed project or inside the folder of an installed package the analysis
has read (``ProjectImports.read_data``: regular files, size-bounded, symlinks resolved before
the check); anything else — ``/etc/passwd``, a symlink leaving those folders, a device, a
write — is a located unknown.  Paths are computed as plain strings (``Path(__file__).parent /
"cfg.yaml"`` touches nothing); YAML is parsed by PyYAML's safe loader only, JSON by the
standard library, and both become plain values (dicts, lists, strings, numbers) within a bound.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePath

from staticflops.frontend import pathqueries
from staticflops.frontend.libraries import Refused
from staticflops.frontend.values import Builtin, Namespace, Unknown

_PURE = type(PurePath())  # PurePosixPath or PureWindowsPath: the host's path syntax, no file access
MAX_DATA_VALUES = 200_000  # values built from one data file (YAML aliases repeat a subtree: counted each time)


class DataPath(_PURE):
    """A path the analysed code computes (``pathlib.Path``): text only, until it is read."""


class DataFile:
    """What ``open(path)`` returns: the file's text, read when opened."""

    def __init__(self, path: str, text: str):
        self.path, self.text = path, text

    def __repr__(self) -> str:
        return f"<file {self.path}>"


DATA_VALUES = (DataPath, DataFile)


def _builtin(name, fn):
    return Builtin(name, fn, bind_self=False)


def _unknown_argument(args, kwargs):
    return next((v for v in [*args, *kwargs.values()] if isinstance(v, Unknown)), None)


def read_text(interp, path, node):
    """The text of the data file at ``path`` (str or DataPath), or a located unknown."""
    if isinstance(path, Unknown):
        return path
    if not isinstance(path, (str, PurePath)) or interp.project is None:
        return interp.unknown(f"reading {path!r}: not a file path", node)
    try:
        data = interp.project.read_data(Path(os.fspath(path)))
    except Refused as why:
        return interp.unknown(f"cannot read `{path}`: {why}", node)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return interp.unknown(f"reading `{path}`: not UTF-8 text", node)


def _open(interp, args, kwargs, node):
    unknown = _unknown_argument(args, kwargs)
    if unknown is not None:
        return unknown
    path = args[0] if args else kwargs.get("file")
    mode = args[1] if len(args) > 1 else kwargs.get("mode", "r")
    if not isinstance(mode, str) or set(mode) - set("rt"):
        return interp.unknown(f"open(..., {mode!r}): only reading text is modelled (nothing is ever written)", node)
    text = read_text(interp, path, node)
    return text if isinstance(text, Unknown) else DataFile(str(path), text)


def _path(interp, args, kwargs, node):
    unknown = _unknown_argument(args, kwargs)
    if unknown is not None:
        return unknown
    if not all(isinstance(a, (str, PurePath)) for a in args):
        return interp.unknown("Path() of a value that is not a path", node)
    return DataPath(*args)


def _plain_data(interp, value, source: str, node):
    """A loaded document as interpreter values: dicts, lists, strings, numbers, booleans,
    None; at most MAX_DATA_VALUES of them (aliases are expanded, so each use counts)."""
    count = 0

    def convert(item):
        nonlocal count
        count += 1
        if count > MAX_DATA_VALUES:
            raise Refused(f"over {MAX_DATA_VALUES:,} values")
        if isinstance(item, dict):
            return {convert(k): convert(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [convert(v) for v in item]
        if item is None or isinstance(item, (str, bool, int, float)):
            return item
        raise Refused(f"holds a {type(item).__name__}, which is not modelled")

    try:
        return convert(value)
    except RecursionError:
        return interp.unknown(f"{source}: nests too deeply", node)
    except Refused as why:
        return interp.unknown(f"{source}: {why}", node)


def _document_text(interp, args, kwargs, node, name):
    unknown = _unknown_argument(args, kwargs)
    if unknown is not None:
        return unknown
    stream = args[0] if args else kwargs.get("stream", kwargs.get("fp", kwargs.get("s")))
    if isinstance(stream, DataFile):
        return stream.text
    if isinstance(stream, str):
        return stream
    return interp.unknown(f"{name}() of a value that is not text or an opened file", node)


def _yaml_load(name):
    def load(interp, args, kwargs, node):
        import yaml

        if name == "yaml.load" and kwargs.get("Loader") is not _SAFE_LOADER:
            return interp.unknown("yaml.load() without Loader=yaml.SafeLoader is not modelled (only the safe loader is)", node)
        text = _document_text(interp, args[:1], {k: v for k, v in kwargs.items() if k != "Loader"}, node, name)
        if isinstance(text, Unknown):
            return text
        try:
            value = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except RecursionError:
            return interp.unknown(f"{name}(): the document nests too deeply", node)
        except (yaml.YAMLError, ValueError) as error:
            return interp.unknown(f"{name}(): not valid YAML ({str(error).splitlines()[0]})", node)
        return _plain_data(interp, value, f"{name}()", node)
    return _builtin(name, load)


def _json_load(name):
    def load(interp, args, kwargs, node):
        text = _document_text(interp, args[:1], {}, node, name)
        if isinstance(text, Unknown):
            return text
        try:
            value = json.loads(text)
        except RecursionError:
            return interp.unknown(f"{name}(): the document nests too deeply", node)
        except ValueError as error:
            return interp.unknown(f"{name}(): not valid JSON ({error})", node)
        return _plain_data(interp, value, f"{name}()", node)
    return _builtin(name, load)


_SAFE_LOADER = _builtin("yaml.SafeLoader", lambda i, a, k, n: i.unknown("a YAML loader object is not modelled", n))


def namespaces() -> dict:
    """The modules this file models (so a copy in site-packages is never read instead)."""
    path_class = _builtin("Path", _path)
    path_class.pytype = DataPath
    return {
        "pathlib": Namespace("pathlib", {"Path": path_class, "PurePath": path_class, "PosixPath": path_class,
                                         "PurePosixPath": path_class}),
        "json": Namespace("json", {"load": _json_load("json.load"), "loads": _json_load("json.loads")}),
        "yaml": Namespace("yaml", {"safe_load": _yaml_load("yaml.safe_load"), "load": _yaml_load("yaml.load"),
                                   "SafeLoader": _SAFE_LOADER, "CSafeLoader": _SAFE_LOADER}),
    }


def builtins() -> dict:
    return {"open": _builtin("open", _open)}


# ---- attributes ---------------------------------------------------------------------------
_PATH_PROPERTIES = {
    "name": lambda p: p.name, "stem": lambda p: p.stem, "suffix": lambda p: p.suffix,
    "suffixes": lambda p: list(p.suffixes), "parts": lambda p: p.parts,
    "parent": lambda p: DataPath(p.parent), "parents": lambda p: tuple(DataPath(q) for q in p.parents),
}
_PATH_METHODS = {
    "joinpath": lambda p, *parts: DataPath(p.joinpath(*parts)),
    "with_suffix": lambda p, suffix: DataPath(p.with_suffix(suffix)),
    "with_name": lambda p, name: DataPath(p.with_name(name)),
    "with_stem": lambda p, stem: DataPath(p.with_stem(stem)),
    "is_absolute": lambda p: p.is_absolute(),
    "as_posix": lambda p: p.as_posix(),
    # lexical only: where the file really is (symlinks) is checked when it is read
    "resolve": lambda p, strict=False: DataPath(os.path.normpath(os.path.abspath(p))),
    "absolute": lambda p: DataPath(os.path.abspath(p)),
}


def data_attribute(interp, receiver, name: str, node):
    """An attribute of a DataPath or DataFile (the analysed code's ``p.parent``, ``f.read()``)."""
    if isinstance(receiver, DataFile):
        if name == "read":
            return _builtin("read", lambda i, a, k, n: receiver.text)
        if name == "readlines":
            return _builtin("readlines", lambda i, a, k, n: receiver.text.splitlines(keepends=True))
        if name in ("close", "__enter__"):
            return _builtin(name, lambda i, a, k, n: None if name == "close" else receiver)
        if name == "name":
            return receiver.path
        return interp.unknown(f"file attribute `{name}` is not modelled", node)
    if name in _PATH_PROPERTIES:
        return _PATH_PROPERTIES[name](receiver)
    if name == "expanduser":  # the analysed program's HOME (--env), as os.path.expanduser
        def expanduser(interp, args, kwargs, node):
            expanded = pathqueries.expand_user(str(receiver), interp.environment)
            if expanded is None:
                return interp.unknown(f"`Path({str(receiver)!r}).expanduser()` asks the machine for a home folder "
                                      "(--env HOME=... gives one)", node)
            return DataPath(expanded)
        return _builtin("Path.expanduser", expanduser)
    if name in _PATH_METHODS:
        method = _PATH_METHODS[name]

        def call(interp, args, kwargs, node):
            unknown = _unknown_argument(args, kwargs)
            if unknown is not None:
                return unknown
            try:
                return method(receiver, *args, **kwargs)
            except (TypeError, ValueError) as error:
                return interp.unknown(f"Path.{name}() failed: {error}", node)
        return _builtin(f"Path.{name}", call)
    if name in ("read_text", "open"):
        def read(interp, args, kwargs, node):
            if name == "open":
                return _open(interp, [receiver, *args], kwargs, node)
            text = read_text(interp, receiver, node)
            return text
        return _builtin(f"Path.{name}", read)
    if name in pathqueries.PATH_PROBES:  # answered only inside the folders the analysis looks in
        check = pathqueries.probe(f"Path.{name}", pathqueries.PATH_PROBES[name])
        return _builtin(f"Path.{name}", lambda i, a, k, n: check.fn(i, [receiver], {}, n))
    return interp.unknown(f"Path attribute `{name}` is not modelled", node)
