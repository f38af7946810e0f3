"""Imports between the files of the analysed project, followed by our own interpreter.

Model code is spread over files (``from ..ops.misc import Conv2dNormActivation``).  A
project file is found like Python would find it — relative to the importing file, or from
the analysed file's folder or the folder above its outermost package (found by walking up
``__init__.py`` folders) — then parsed and its module level run by our interpreter, once.
Nothing is ever imported or executed by Python.  Every file is read through
``staticflops.files``: one that resolves outside the project root (a symlink, a relative
import climbing above the root) or is not a regular file is not read, and importing it
gives an unknown at the import, not an error.

Names bound by imports are lazy (:class:`LazyValue`): a file is read only when one of its
names is used, and a package's ``__init__.py`` runs only when a name is taken from the
package itself.  So the model's files are followed while unrelated ones (data loading,
image I/O) cost nothing and make no noise.

Third-party packages are found the same way in the folders of a Python environment
(libraries.py), read through that environment's confined reader; packages the framework
models (torch, keras, ...) never are (see ``Interpreter.import_module``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from staticflops.diagnostics import AnalysisError, BudgetExceeded
from staticflops.files import RefusedRead, check_regular, read_limit
from staticflops.frontend.budget import MAX_FILE_BYTES
from staticflops.frontend import overlays
from staticflops.frontend.libraries import LibraryFiles, Refused, read_regular_file
from staticflops.frontend.scope import MISSING, Scope
from staticflops.frontend.source import load_source
from staticflops.frontend.type_checking_exports import type_checking_export
from staticflops.frontend.values import LazyValue, Namespace


class ProjectFiles:
    """The analysed project's files: the filesystem inside ``roots``, or a reader (e.g. a git
    revision) whose keys are the paths as given; existence is asked of the same source as
    contents.  A file that exists but may not be read is no file, and ``refused`` says why."""

    def __init__(self, reader=None, roots: tuple = (), max_bytes: int = MAX_FILE_BYTES):
        self.reader, self.roots, self.max_bytes = reader, roots, max_bytes
        self._seen: dict = {}
        self.refused: dict[Path, str] = {}  # path -> why it is not read (files.RefusedRead.reason)

    def is_file(self, path: Path) -> bool:
        if path not in self._seen:
            try:
                if self.reader is None:
                    check_regular(path, self.roots)
                else:
                    with read_limit(self.max_bytes):
                        self.reader(str(path))
                self._seen[path] = True
            except RefusedRead as refused:
                self.refused[path] = refused.reason
                self._seen[path] = False
            except OSError:
                self._seen[path] = False
        return self._seen[path]


class ProjectImports:
    def __init__(self, interp, main_file: Path | None, files: ProjectFiles | None = None,
                 libraries: LibraryFiles | None = None):
        self.interp = interp
        self.files = files or ProjectFiles()
        self.libraries = libraries  # third-party source folders (None: not followed)
        self.package_folders: list[Path] = []  # installed packages read so far: their data files may be read
        self.roots: list[Path] = []
        if main_file is not None:
            folder = main_file.parent
            self.roots.append(folder)
            top = folder
            while self.files.is_file(top / "__init__.py") and top.parent != top:
                top = top.parent
            if top != folder:
                self.roots.append(top)
        # Last, the project's root (its config's or git work tree's folder): the folder a repository's
        # scripts, `python -m` and pytest run from, so `from models.helper import block` finds
        # `models/helper.py` there even when `models/` has no `__init__.py` (a namespace package).
        for root in self.files.roots:
            if Path(root) not in self.roots:
                self.roots.append(Path(root))
        # The Hugging Face hub cache the caller named in the analysed program's environment
        # (--env HF_HUB_CACHE=... or HF_HOME=...: the command line's or the API caller's, never a
        # project's config): read as a cached model is read offline (overlays/hub_guard.pyi)
        self.granted: list[Path] = _hub_caches(interp.environment, self.absolute)
        self.modules: dict[Path, Namespace] = {}
        self._completed: set = set()  # library packages whose lazy imports complete_package ran
        self.files_read = 0
        self.depth = 0  # files being run, one importing the next
        self.type_checking_names: dict = {}  # (package __init__.py, name) -> what type_checking_export found

    # ---- finding files ----------------------------------------------------------------
    def find(self, dotted: str, importer: Path | None, node=None) -> Namespace | None:
        """The project module that ``dotted`` names from the file ``importer``, or None."""
        level = len(dotted) - len(dotted.lstrip("."))
        parts = [p for p in dotted[level:].split(".") if p]
        if level:
            if importer is None:
                return None
            # `..` kept, not clamped: a climb above the root must lead outside it and be refused
            bases = [Path(os.path.normpath(importer.parent.joinpath(*[".."] * (level - 1))))]
        else:
            bases = self.roots
        # a library's relative imports stay in the library's folders and reader
        files = self.libraries if level and self.libraries is not None and self.libraries.holds(importer) else self.files
        for base in bases:
            path = _module_file(base, parts, files)
            if path is not None:
                return self.load(path, dotted.lstrip(".") or base.name, node, files)
        for base in bases:  # found, but not to be read: say why where it is imported
            for path in _candidates(base, parts):
                if path in self.files.refused:
                    return self.interp.unknown(f"import of `{dotted}`: the file {self.files.refused[path]}; not read",
                                               node)
        return None

    def find_library(self, dotted: str, node=None) -> Namespace | None:
        """The third-party module ``dotted`` from the environment's folders, or None."""
        if self.libraries is None:
            return None
        found = self.libraries.locate(dotted)
        if found is None:
            return None
        if isinstance(found, list):
            return self.namespace_package(dotted, found)
        folder = self.libraries.package_folder(found)
        if folder is not None and folder not in self.package_folders:
            self.package_folders.append(folder)
        return self.load(found, dotted, node, self.libraries)

    def namespace_package(self, name: str, portions: list[Path]) -> Namespace:
        """A package without ``__init__.py`` (its folders' submodules), made once."""
        key = tuple(portions)
        if key not in self.modules:
            namespace = Namespace(name, {})
            namespace.loader = _NamespacePackageLoader(self, portions, namespace)
            self.modules[key] = namespace
        return self.modules[key]

    # ---- data files ------------------------------------------------------------------------
    def read_data(self, path: Path) -> bytes:
        """A data file the analysed code opens, if it lies inside the analysed project (its
        import roots, read through the project's reader) or inside the folder of an installed
        package the analysis has read; else Refused with the reason."""
        limit = self.interp.budget.max_file_bytes
        if self.files.reader is not None:  # a git revision or given text: paths are the reader's keys
            lexical = Path(os.path.normpath(path))
            if ".." not in lexical.parts and any(_lexically_inside(lexical, root) for root in self.roots):
                try:
                    data = self.files.reader(str(lexical))
                except OSError as error:
                    raise Refused(error.strerror or str(error)) from None
                if len(data) > limit:
                    raise Refused(f"over the {limit:,}-byte limit (--max-file-bytes)")
                return data
        project = self.roots if self.files.reader is None else []  # a revision's files are not the working tree's
        roots = [Path(os.path.realpath(r)) for r in [*project, *self.package_folders, *self.granted]]
        return read_regular_file(self.absolute(path), roots, limit)

    def absolute(self, path: Path) -> Path:
        """``path`` taken from the project root (the folder above the outermost package) when
        relative: the analysed program runs from there, wherever staticflops was started."""
        if path.is_absolute() or not self.roots:
            return Path(os.path.abspath(path))
        return Path(os.path.normpath(self.roots[-1] / path))

    def may_look(self, path: Path) -> bool:
        """Whether the analysed code may learn if ``path`` exists: it lies (symlinks resolved)
        in the project, an installed package's folder the analysis read, or a folder imports
        are resolved in (which import resolution lists anyway)."""
        try:
            real = Path(os.path.realpath(path))
        except (OSError, ValueError):  # a NUL byte, a loop: nothing to answer
            return False
        project = self.roots if self.files.reader is None else []
        folders = [Path(os.path.realpath(r)) for r in [*project, *self.package_folders, *self.granted]]
        return any(real == f or f in real.parents for f in folders) or (
            self.libraries is not None and self.libraries.holds(real))

    def path_kind(self, path: Path) -> str | None:
        """``"file"``, ``"dir"`` or None (absent) for ``path``; Refused outside ``may_look``.
        Answers ``os.path.exists``/``isfile``/``isdir``, ``Path.exists`` and ``glob``."""
        path = self.absolute(path)
        if not self.may_look(path):
            raise Refused("outside the analysed project and the installed packages' folders")
        try:
            mode = os.stat(path).st_mode
        except (OSError, ValueError):
            return None
        return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else None

    # ---- loading -------------------------------------------------------------------------
    def register(self, path: Path, name: str, scope: Scope, source=None) -> None:
        """The analysed file itself: a sibling importing it gets the same module."""
        self.modules[path] = Namespace(name, scope.vars, loader=_no_loader, source=source)

    def load(self, path: Path, name: str, node=None, files=None) -> Namespace:
        files = files or self.files
        if path in self.modules:
            return self.modules[path]
        if files is self.libraries:
            name = self.libraries.module_name(path) or name  # `timm.layers`, also when reached as `.layers`
        if path.name == "__init__.py":
            namespace = Namespace(name, {})
            namespace.loader = _PackageLoader(self, path, namespace, files)
            self.modules[path] = namespace
            return namespace
        if self.interp.construction_memo.recorders:
            self.interp.construction_memo.module_run()  # (a speculative construction stops here)
        namespace = Namespace(name, {}, loader=_no_loader)
        self.modules[path] = namespace  # before running: circular imports see a partial module
        self.run(path, namespace, node, files)
        return namespace

    def complete_package(self, package: str) -> bool:
        """Run the imports the loaded modules of library ``package`` bound lazily and nobody used
        yet (and theirs, transitively), as Python would have run them at import; True when one
        ran.  Asked when a lookup in a dict misses: a registry that modules
        fill as they are imported (peft's ``PEFT_TYPE_TO_CONFIG_MAPPING["LORA"]``, filled by
        ``peft/tuners/lora/__init__.py``) is complete in Python, not only for the names used.
        A failing import stays unknown, as it would have been unused."""
        if package in self._completed:
            return False
        self._completed.add(package)
        attempted: dict = {}
        ran = False
        pending = True
        while pending:
            pending = False
            for namespace in list(self.modules.values()):
                name = namespace.name or ""
                if name != package and not name.startswith(package + "."):
                    continue
                for value in list(namespace.members.values()):
                    if isinstance(value, LazyValue) and getattr(value, "imported", False) and not value.done \
                            and id(value) not in attempted:
                        attempted[id(value)] = value  # (kept: an id is not reused while it lives)
                        self.interp.quietly(lambda value=value: _force_quietly(value))
                        ran = pending = True
        return ran

    def run(self, path: Path, namespace: Namespace, node=None, files=None) -> None:
        interp = self.interp
        files = files or self.files
        if self.depth >= interp.budget.max_import_depth:
            interp.budget.refuse(interp, f"imports nest over {interp.budget.max_import_depth} files deep (--max-import-depth)", node)
        source = load_source(path, _display(path), reader=files.reader, max_bytes=interp.budget.max_file_bytes,
                             roots=files.roots, parse_limits=interp.budget.parse_limits,
                             library=files is self.libraries)
        self.files_read += 1
        namespace.source = source
        interp.note_ignores(source)
        scope = Scope()
        scope.vars = namespace.members
        scope.vars["__name__"] = namespace.name
        scope.vars["__file__"] = str(path)  # Path(__file__).parent / "cfg.yaml": data files next to the code
        scope.vars.setdefault("__spec__", None)  # no import machinery here; code only passes it along
        previous = interp.source, interp.import_guards
        # A module's own imports are eager only inside its own `try` blocks: one imported from
        # inside a `try` elsewhere binds its imports lazily, as any module does.  Its top level
        # skips a statement that fails (an import of a missing module included, its names left
        # unknown; only a syntax error goes on), so nothing else of it could reach the importer's
        # `except` anyway; eagerly, every module such an import reached was run, transitively
        # (transformers: half its files).
        interp.source, interp.import_guards = source, 0
        self.depth += 1
        try:
            interp.exec_module_body(source.module.body, scope)
        except AnalysisError:
            raise
        finally:
            self.depth -= 1
            interp.source, interp.import_guards = previous
        if files is self.libraries:  # a library method the analysis models itself (from_pretrained)
            overlays.apply(interp, namespace)
        # `sys.modules[__name__] = _LazyModule(...)`: Python's import returns that entry, not the module
        stored = interp.sys_modules.get(namespace.name)
        if stored is not None and stored is not namespace:
            namespace.replaced_by = stored


def _force_quietly(value: LazyValue):
    try:
        return value.force()
    except BudgetExceeded:  # a spent budget ends the analysis, wherever it was spent
        raise
    except AnalysisError:  # a read of the name later fails the same way, where it matters
        return None


def _hub_caches(environment: dict, absolute) -> list[Path]:
    """The hub cache folders ``HF_HUB_CACHE`` and ``HF_HOME``/hub of the analysed program's
    environment, as huggingface_hub derives them (relative ones from the project root)."""
    named = [environment.get("HF_HUB_CACHE")]
    if isinstance(environment.get("HF_HOME"), str) and environment["HF_HOME"]:
        named.append(os.path.join(environment["HF_HOME"], "hub"))
    return [absolute(Path(folder)) for folder in named if isinstance(folder, str) and folder]


class _PackageLoader:
    """Members of a package: its ``__init__.py`` (run on first need), then its submodules."""

    def __init__(self, imports: ProjectImports, init_file: Path, namespace: Namespace, files):
        self.imports, self.init_file, self.namespace, self.files = imports, init_file, namespace, files
        self.ran = False

    def run_init(self) -> None:
        if not self.ran:
            if self.imports.interp.construction_memo.recorders:
                self.imports.interp.construction_memo.module_run()  # (a speculative construction stops here)
            self.ran = True
            self.imports.run(self.init_file, self.namespace, files=self.files)

    def __call__(self, name: str):
        self.run_init()
        member = self.namespace.members.get(name, MISSING)
        if member is not MISSING and not (isinstance(member, LazyValue) and member.loading):
            return member  # a name bound by a `from pkg import name` under way is not bound yet
        found = _submodule(self.imports, self.namespace, [self.init_file.parent], name, self.files)
        return self.declared(name) if found is MISSING else found

    def declared(self, name: str):
        """``name`` as the package's ``if TYPE_CHECKING:`` imports give it (a lazy package whose
        own code could not make its table: type_checking_exports.py), else MISSING."""
        if name.startswith("__"):
            return MISSING
        self.run_init()
        key = (self.init_file, name)
        if key not in self.imports.type_checking_names:  # a missing name reads hundreds of files once
            self.imports.type_checking_names[key] = MISSING  # asked again while looking: not found
            self.imports.type_checking_names[key] = type_checking_export(self.imports, self.init_file, name,
                                                                         self.files)
        return self.imports.type_checking_names[key]


class _NamespacePackageLoader:
    """Members of a namespace package (folders without ``__init__.py``): its submodules."""

    def __init__(self, imports: ProjectImports, portions: list[Path], namespace: Namespace):
        self.imports, self.portions, self.namespace = imports, portions, namespace

    def __call__(self, name: str):
        return _submodule(self.imports, self.namespace, self.portions, name, self.imports.libraries)


def _submodule(imports: ProjectImports, package: Namespace, folders: list[Path], name: str, files):
    """``package.name`` when it is a submodule file (``from pkg import sub``), else MISSING."""
    for folder in folders:
        path = _module_file(folder, [name], files)
        if path is not None:
            module = imports.load(path, f"{package.name}.{name}", files=files)
            package.members[name] = module
            return module
    if files is imports.libraries and files is not None:  # a namespace sub-package (a folder, no __init__.py)
        portions = [f / name for f in folders if files.holds(f / name) and (f / name).is_dir()]
        if portions:
            package.members[name] = imports.namespace_package(f"{package.name}.{name}", portions)
            return package.members[name]
    return MISSING


def _lexically_inside(path: Path, root: Path) -> bool:
    root = Path(os.path.normpath(root))
    return root == Path(".") and not path.is_absolute() or path == root or root in path.parents


def _no_loader(name: str):
    return MISSING


def all_members(namespace: Namespace) -> dict:
    """What ``from module import *`` binds: ``__all__`` if given, else the public names."""
    if isinstance(namespace.loader, _PackageLoader):
        namespace.loader.run_init()
    members = namespace.members
    exported = members.get("__all__")
    if isinstance(exported, (list, tuple)) and all(isinstance(n, str) for n in exported):
        found = {n: members[n] if n in members else namespace.loader(n) if namespace.loader else MISSING
                 for n in exported}
        return {n: v for n, v in found.items() if v is not MISSING}
    return {n: v for n, v in members.items() if not n.startswith("_")}


def _candidates(base: Path, parts: list[str]) -> list[Path]:
    """The files a module's name may mean, in Python's order: ``a/b.py``, then ``a/b/__init__.py``."""
    target = base.joinpath(*parts) if parts else base
    return ([target.parent / f"{parts[-1]}.py"] if parts else []) + [target / "__init__.py"]


def _module_file(base: Path, parts: list[str], files: ProjectFiles) -> Path | None:
    return next((path for path in _candidates(base, parts) if files.is_file(path)), None)


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def start_main_file(interp, source, reader=None, libraries: LibraryFiles | None = None) -> Scope:
    """Run the analysed file's module level with its project's imports available; a sibling
    that imports the analysed file gets this very module."""
    roots = source.roots  # load_source's: the analysed file's project root
    if not roots and reader is None and source.origin is not None:  # built some other way: its own folder only
        roots = (source.origin.parent,)
    files = ProjectFiles(reader, roots, interp.budget.max_file_bytes)
    interp.project = ProjectImports(interp, source.origin, files, libraries)
    scope = Scope()
    if source.origin is not None:
        interp.project.register(source.origin, "__analysed__", scope, source)
        scope.vars["__file__"] = str(source.origin)
    interp.run_module(source, scope)
    return scope
