"""The process environment as a clean CI machine has it: ``os``, ``sys``, ``platform``,
``importlib``, ``warnings``, ``logging`` and ``threading``.

Values a library probes are documented constants (below) or unknowns, never the machine
staticflops happens to run on, so an analysis gives the same answer everywhere:

- ``os.environ`` / ``os.getenv``: empty, plus what the user passes with ``--env KEY=VALUE``
  (``analyze(..., env={...})``); writes by the analysed code stay inside the analysis.
- ``sys.version_info`` is ``PYTHON_VERSION``, ``sys.implementation.name`` ``"cpython"``,
  ``sys.platform`` ``"linux"``,
  ``platform.system()`` ``"Linux"``, ``platform.machine()`` ``"x86_64"``, ``os.name``
  ``"posix"``.
- ``importlib.util.find_spec(name)``: a spec for a module we model or can find as source,
  else None; ``importlib.metadata.version(name)``: for torch/einops the release we model, else an
  unknown (no package metadata is read).
- ``logging``: the stand-in ``stubs/logging.pyi`` (loggers that accept every call, no handlers).
- ``contextlib``: the stand-in ``stubs/contextlib.pyi`` (``suppress``, ``nullcontext``, ...);
  ``contextvars``: ``stubs/contextvars.pyi`` (``ContextVar`` get/set/reset); ``abc``:
  ``stubs/abc.pyi`` (``ABC``, ``ABCMeta``, ``abstractmethod`` as a mark); ``uuid``:
  ``stubs/uuid.pyi`` (``uuid4()`` a fixed value: one run of the program, one value it could draw).
- ``os.path.exists``/``isfile``/``isdir``: answered inside the analysed folders only
  (``pathqueries.py``).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from staticflops.frontend import pathqueries, pyclasses
from staticflops.frontend.stdlib.contextmanager import contextmanager_builtin
from staticflops.frontend.scope import MISSING, Scope
from staticflops.frontend.values import Builtin, Class, Namespace, NoOpMembers, Record, Unknown

# the CPython the ground truths were recorded with (tools/); 3.11.5+ also tells packaging that
# possessive quantifiers work, so its version pattern is one the regex bounds let run
PYTHON_VERSION = (3, 11, 7, "final", 0)
PLATFORM = {"sys.platform": "linux", "platform.system": "Linux", "platform.machine": "x86_64", "os.name": "posix"}


def _builtin(name, fn):
    return Builtin(name, fn, bind_self=False)


def _known_strings(interp, args, node):
    for value in args:
        if isinstance(value, Unknown):
            return value
        if not isinstance(value, str):
            return interp.unknown(f"a path that is not a known string ({type(value).__name__})", node)
    return None


def _path_function(name):
    """Pure string functions of ``os.path`` (they never touch the file system)."""
    python_fn = getattr(posixpath, name)

    def fn(interp, args, kwargs, node):
        problem = _known_strings(interp, args, node)
        return problem if problem is not None else python_fn(*args)
    return _builtin(f"os.path.{name}", fn)


_VARIABLE = re.compile(r"\$(\w+|\{[^}]*\})", re.ASCII)  # posixpath.expandvars' pattern


def _environment_paths(environ: dict) -> dict:
    """``os.path.expandvars``, ``expanduser`` and ``abspath`` over the analysed program's
    environment (``--env``) and the project root (the folder it runs from, as path probes
    take it), as posixpath computes them; what needs the machine (a user's home without
    ``HOME``, a symlink) stays an unknown."""
    def expandvars(interp, args, kwargs, node):
        problem = _known_strings(interp, args[:1], node)
        if problem is not None or not args:
            return problem if problem is not None else interp.unknown("os.path.expandvars() of no path", node)
        # as CPython: each $name or ${name} the environment holds is replaced, the others kept
        def value(found):
            name = found.group(1)
            name = name[1:-1] if name.startswith("{") and name.endswith("}") else name
            return environ[name] if isinstance(environ.get(name), str) else found.group(0)
        return _VARIABLE.sub(value, args[0])

    def expanduser(interp, args, kwargs, node):
        problem = _known_strings(interp, args[:1], node)
        if problem is not None or not args:
            return problem if problem is not None else interp.unknown("os.path.expanduser() of no path", node)
        expanded = pathqueries.expand_user(args[0], environ)
        if expanded is None:
            return interp.unknown(f"`os.path.expanduser({args[0]!r})` asks the machine for a home folder "
                                  "(--env HOME=... gives one)", node)
        return expanded

    def abspath(interp, args, kwargs, node):
        problem = _known_strings(interp, args[:1], node)
        if problem is not None or not args:
            return problem if problem is not None else interp.unknown("os.path.abspath() of no path", node)
        if posixpath.isabs(args[0]):
            return posixpath.normpath(args[0])
        if interp.project is None:
            return interp.unknown(f"`os.path.abspath({args[0]!r})`: no project folder to run from", node)
        return posixpath.normpath(str(interp.project.absolute(Path(args[0]))))

    return {"expandvars": _builtin("os.path.expandvars", expandvars),
            "expanduser": _builtin("os.path.expanduser", expanduser), "abspath": _builtin("os.path.abspath", abspath)}


def _file_system(name):
    return _builtin(name, lambda i, a, k, n: i.unknown(f"`{name}` asks the file system, which is not read", n))


class QuietMembers(NoOpMembers):
    """Members of an object that accepts every call: the entries given, else the no-op."""

    def __init__(self, anything, entries: dict):
        super().__init__(anything)
        dict.update(self, entries)

    def __getitem__(self, key):
        return dict.get(self, key, self.anything)

    def get(self, key, default=None):
        return self[key]


def quiet_namespace(name: str, entries: dict | None = None) -> Namespace:
    return Namespace(name, QuietMembers(_builtin("no-op", lambda i, a, k, n: None), entries or {}))


def _stub_namespace(interp, name: str, stub: str, builtins: dict | None = None) -> Namespace:
    """A module whose members come from a stand-in source, run on first use; ``builtins``:
    members made in Python instead (name -> a function making the member)."""
    namespace = Namespace(name, {})

    def load(member):
        if "__name__" not in namespace.members:
            from staticflops.frontend.stdlib.stub_modules import run_stub
            scope = Scope()
            scope.vars = namespace.members
            scope.vars["__name__"] = name
            run_stub(interp, stub, scope)
            for key, make in (builtins or {}).items():
                namespace.members[key] = make()
        return namespace.members.get(member, MISSING)

    namespace.loader = load
    return namespace


def _module_table(interp):
    """``sys.modules``: the modules loaded so far, by name (the analysed file is ``__analysed__``).
    One dict for the whole analysis, so what the analysed code stores in it stays: a package's
    ``sys.modules[__name__] = _LazyModule(...)`` replaces the package for its importers."""
    table = interp.sys_modules
    loaded = dict(interp.framework.namespaces) if hasattr(interp.framework, "namespaces") else {}
    if interp.project is not None:
        loaded.update({module.name: module for module in interp.project.modules.values()})
    for name, module in loaded.items():
        table.setdefault(name, module)
    return table


def _metadata_version(interp, args, kwargs, node):
    """``importlib.metadata.version(name)``: for a package we model (torch, einops) the release
    our model follows (its ``__version__``); for another, the version its ``.dist-info`` folder
    names in the installed packages' folders; else an unknown (not raising
    PackageNotFoundError: a ``--source-path`` folder may hold a package without its metadata)."""
    name = args[0] if args else kwargs.get("distribution_name")
    modelled = interp.framework.known_module(name) if isinstance(name, str) else None
    if isinstance(modelled, Namespace) and type(modelled.members) is dict:
        version = modelled.members.get("__version__")
        if isinstance(version, str):
            return version
    libraries = interp.project.libraries if interp.project is not None else None
    if isinstance(name, str) and libraries is not None:
        version = libraries.distribution_version(name)
        if version is not None:
            return version
    return interp.unknown(f"the installed version of {name!r} (no metadata found in the installed packages' folders)",
                          node)


def _import_module(interp, args, kwargs, node):
    """The analysed code's call of importlib's ``import_module(name, package=None)``, modelled: a
    relative name (``".sub"``) is resolved against ``package`` as Python does, then the module is
    found by the same rules as an ``import`` statement (read as source, never run)."""
    name = args[0] if args else kwargs.get("name")
    package = args[1] if len(args) > 1 else kwargs.get("package")
    if not isinstance(name, str):
        return interp.unknown("import of a name that is not known", node)
    level = len(name) - len(name.lstrip("."))
    if level:
        if not isinstance(package, str) or not package:
            return interp.unknown(f"importlib.import_module({name!r}) needs a known `package`", node)
        base = package.split(".")
        if level > len(base):
            raise interp.fail(f"attempted relative import beyond top-level package ({name!r} from {package!r})",
                              node, "SF116", python="ImportError")
        base = base[:len(base) - (level - 1)]
        name = ".".join(base + ([name[level:]] if name[level:] else []))
    return interp.import_module(name, node)


def modules(interp, builtins: dict) -> dict:
    object_class = builtins["object"]
    environ = interp.environment

    def getenv(interp, args, kwargs, node):
        key = args[0] if args else kwargs.get("key")
        default = args[1] if len(args) > 1 else kwargs.get("default")
        if isinstance(key, Unknown):
            return key
        return environ.get(key, default)

    path = Namespace("os.path", {
        **{name: _path_function(name) for name in ("join", "basename", "dirname", "splitext", "split", "normpath")},
        "sep": "/",
        **{name: pathqueries.probe(f"os.path.{name}", kinds) for name, kinds in pathqueries.PROBES.items()},
        **{name: _file_system(f"os.path.{name}") for name in ("getsize", "realpath")},
        **_environment_paths(environ),
    })
    os_module = Namespace("os", {
        "environ": environ, "getenv": _builtin("os.getenv", getenv), "path": path, "name": PLATFORM["os.name"],
        "sep": "/", "linesep": "\n", "PathLike": _builtin("os.PathLike", lambda i, a, k, n: None),
        **{name: _file_system(f"os.{name}") for name in ("getcwd", "cpu_count", "makedirs", "walk",
                                                          "scandir", "stat", "remove", "mkdir", "getpid")},
        "listdir": pathqueries.LISTDIR,
    })
    os_module.members["PathLike"].pytype = ()

    version_class = pyclasses.make_record_class("version_info", ["major", "minor", "micro", "releaselevel", "serial"],
                                                {}, (object_class,))
    version_info = Record.make(version_class, version_class.namespace["_fields"], PYTHON_VERSION)

    sys_module = Namespace("sys", {
        "version_info": version_info, "version": "%d.%d.%d" % PYTHON_VERSION[:3], "platform": PLATFORM["sys.platform"],
        "maxsize": 2**63 - 1, "byteorder": "little", "stdout": quiet_namespace("sys.stdout"),
        "stderr": quiet_namespace("sys.stderr"), "flags": quiet_namespace("sys.flags"),
        # as platform.python_implementation() says (packaging's version.py asks at import)
        "implementation": Namespace("sys.implementation", {"name": "cpython", "cache_tag": "cpython-311"}),
    })
    # sys.modules is computed when read, so it lists modules imported later too
    sys_module.loader = lambda name: _module_table(interp) if name == "modules" else MISSING
    platform = Namespace("platform", {
        "system": _builtin("platform.system", lambda i, a, k, n: PLATFORM["platform.system"]),
        "machine": _builtin("platform.machine", lambda i, a, k, n: PLATFORM["platform.machine"]),
        "python_version": _builtin("platform.python_version", lambda i, a, k, n: sys_module.members["version"]),
        "python_implementation": _builtin("platform.python_implementation", lambda i, a, k, n: "CPython"),
    })

    def find_spec(interp, args, kwargs, node):
        name = args[0] if args else kwargs.get("name")
        if not isinstance(name, str):
            return interp.unknown("importlib.util.find_spec of a name that is not a known string", node)
        found, _held = interp.quietly(lambda: interp.import_module(name, node))
        if isinstance(found, Unknown):
            return None  # not installed in the clean environment we analyse in
        return Record.make(spec_class, ("name", "origin"), [name, None])

    spec_class = pyclasses.make_record_class("ModuleSpec", ["name", "origin"], {}, (object_class,))
    not_found = Class("PackageNotFoundError", (builtins["ModuleNotFoundError"],), {})
    metadata = Namespace("importlib.metadata", {
        "version": _builtin("importlib.metadata.version", _metadata_version),
        "PackageNotFoundError": not_found,
    })
    util = Namespace("importlib.util", {"find_spec": _builtin("importlib.util.find_spec", find_spec)})
    importlib = Namespace("importlib", {
        "import_module": _builtin("importlib.import_module", _import_module),
        "metadata": metadata, "util": util,
    })
    warn = _builtin("warnings.warn", lambda i, a, k, n: None)
    warnings = quiet_namespace("warnings", {"warn": warn, "catch_warnings": _builtin(
        "warnings.catch_warnings", lambda i, a, k, n: None)})
    threading = quiet_namespace("threading")
    return {
        "os": os_module, "os.path": path, "sys": sys_module, "platform": platform, "importlib": importlib,
        "importlib.metadata": metadata, "importlib.util": util, "warnings": warnings, "threading": threading,
        "logging": _stub_namespace(interp, "logging", "logging.pyi"),
        "contextlib": _stub_namespace(interp, "contextlib", "contextlib.pyi",
                                      {"contextmanager": lambda: contextmanager_builtin(interp)}),
        "contextvars": _stub_namespace(interp, "contextvars", "contextvars.pyi"),
        "abc": _stub_namespace(interp, "abc", "abc.pyi"),
        "uuid": _stub_namespace(interp, "uuid", "uuid.pyi"),
        "subprocess": _stub_namespace(interp, "subprocess", "subprocess.pyi"),
    }
