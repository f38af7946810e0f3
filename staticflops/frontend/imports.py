"""Imports between the files of the analysed project, followed by our own interpreter.

Model code is spread over files (``from ..ops.misc import Conv2dNormActivation``).  A
project file is found like Python would find it — relative to the importing file, or from
the analysed file's folder or the folder above its outermost package (found by walking up
``__init__.py`` folders) — then parsed and its module level run by our interpreter, once.
Nothing is ever imported or executed by Python.

Names bound by imports are lazy (:class:`LazyValue`): a file is read only when one of its
names is used, and a package's ``__init__.py`` runs only when a name is taken from the
package itself.  So the model's files are followed while unrelated ones (data loading,
image I/O, third-party packages) cost nothing and make no noise.
"""

from __future__ import annotations

from pathlib import Path

from staticflops.diagnostics import AnalysisError
from staticflops.frontend.scope import MISSING, Scope
from staticflops.frontend.source import load_source
from staticflops.frontend.values import Namespace


class ProjectFiles:
    """The analysed project's files: the filesystem, or a reader (e.g. a git revision) whose
    keys are the paths as given; existence is asked of the same source as contents."""

    def __init__(self, reader=None):
        self.reader = reader
        self._seen: dict = {}

    def is_file(self, path: Path) -> bool:
        if self.reader is None:
            return path.is_file()
        if path not in self._seen:
            try:
                self.reader(str(path))
                self._seen[path] = True
            except OSError:
                self._seen[path] = False
        return self._seen[path]


class ProjectImports:
    def __init__(self, interp, main_file: Path | None, files: ProjectFiles | None = None):
        self.interp = interp
        self.files = files or ProjectFiles()
        self.roots: list[Path] = []
        if main_file is not None:
            folder = main_file.parent
            self.roots.append(folder)
            top = folder
            while self.files.is_file(top / "__init__.py") and top.parent != top:
                top = top.parent
            if top != folder:
                self.roots.append(top)
        self.modules: dict[Path, Namespace] = {}
        self.files_read = 0
        self.depth = 0  # files being run, one importing the next

    # ---- finding files ----------------------------------------------------------------
    def find(self, dotted: str, importer: Path | None, node=None) -> Namespace | None:
        """The project module that ``dotted`` names from the file ``importer``, or None."""
        level = len(dotted) - len(dotted.lstrip("."))
        parts = [p for p in dotted[level:].split(".") if p]
        if level:
            if importer is None:
                return None
            base = importer.parent
            for _ in range(level - 1):
                base = base.parent
            bases = [base]
        else:
            bases = self.roots
        for base in bases:
            path = _module_file(base, parts, self.files)
            if path is not None:
                return self.load(path, dotted.lstrip(".") or base.name, node)
        return None

    # ---- loading -------------------------------------------------------------------------
    def register(self, path: Path, name: str, scope: Scope) -> None:
        """The analysed file itself: a sibling importing it gets the same module."""
        self.modules[path] = Namespace(name, scope.vars, loader=_no_loader)

    def load(self, path: Path, name: str, node=None) -> Namespace:
        if path in self.modules:
            return self.modules[path]
        if path.name == "__init__.py":
            namespace = Namespace(name, {})
            namespace.loader = _PackageLoader(self, path, namespace)
            self.modules[path] = namespace
            return namespace
        namespace = Namespace(name, {}, loader=_no_loader)
        self.modules[path] = namespace  # before running: circular imports see a partial module
        self.run(path, namespace, node)
        return namespace

    def run(self, path: Path, namespace: Namespace, node=None) -> None:
        interp = self.interp
        if self.depth >= interp.budget.max_import_depth:
            interp.budget.refuse(interp, f"imports nest over {interp.budget.max_import_depth} files deep (--max-import-depth)", node)
        source = load_source(path, _display(path), reader=self.files.reader, max_bytes=interp.budget.max_file_bytes,
                                 parse_limits=interp.budget.parse_limits)
        self.files_read += 1
        scope = Scope()
        scope.vars = namespace.members
        scope.vars["__name__"] = namespace.name
        previous = interp.source
        interp.source = source
        self.depth += 1
        try:
            interp.exec_block(source.module.body, scope)
        except AnalysisError:
            raise
        finally:
            self.depth -= 1
            interp.source = previous


class _PackageLoader:
    """Members of a package: its ``__init__.py`` (run on first need), then its submodules."""

    def __init__(self, imports: ProjectImports, init_file: Path, namespace: Namespace):
        self.imports, self.init_file, self.namespace = imports, init_file, namespace
        self.ran = False

    def run_init(self) -> None:
        if not self.ran:
            self.ran = True
            self.imports.run(self.init_file, self.namespace)

    def __call__(self, name: str):
        self.run_init()
        if name in self.namespace.members:
            return self.namespace.members[name]
        path = _module_file(self.init_file.parent, [name])
        if path is None:
            return MISSING
        module = self.imports.load(path, f"{self.namespace.name}.{name}")
        self.namespace.members[name] = module
        return module


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


def _module_file(base: Path, parts: list[str], files: ProjectFiles) -> Path | None:
    target = base.joinpath(*parts) if parts else base
    if parts and files.is_file(target.parent / f"{parts[-1]}.py"):
        return target.parent / f"{parts[-1]}.py"
    if files.is_file(target / "__init__.py"):
        return target / "__init__.py"
    return None


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def start_main_file(interp, source, reader=None) -> Scope:
    """Run the analysed file's module level with its project's imports available; a sibling
    that imports the analysed file gets this very module."""
    interp.project = ProjectImports(interp, source.origin, ProjectFiles(reader))
    scope = Scope()
    if source.origin is not None:
        interp.project.register(source.origin, "__analysed__", scope)
    interp.run_module(source, scope)
    return scope
