"""Imports flow one way through the stages; third-party packages stay in their stage."""

import ast
from pathlib import Path

import staticflops

PACKAGE = Path(staticflops.__file__).resolve().parent

# stage -> the internal stages it may import (besides itself)
ALLOWED = {
    "diagnostics": set(),
    "version": set(),  # the package's version: read by the caches' keys and the report
    "pyast": set(),  # Python's ast.parse, one at a time in a process (CPython 3.11's AST constructor)
    "codes": set(),  # the catalogue of codes: data only; the stages use the codes as literals
    "limits": {"diagnostics"},  # the budgets' names and defaults, shared by the interpreter, config and flags
    "files": {"limits"},  # reading a file of the project safely (confined, regular, bounded): every stage's reads
    "cachefolder": {"version", "files"},  # the caches' signed, confined entries (results and parsed modules)
    "verdicts": {"files", "cachefolder"},  # check's no-op fast path: a record of the last verdict, no heavy imports
    "answers": {"files", "cachefolder", "verdicts"},  # analyze FILE's fast path: the record of the last run, no heavy imports
    "shapes": {"diagnostics"},
    "ir": {"diagnostics", "shapes"},
    "kinds": {"diagnostics", "shapes"},  # the op-kind catalogue: framework-neutral, above the dimension algebra
    "frontend": {"diagnostics", "limits", "files", "cachefolder", "shapes", "ir", "kinds", "pyast"},
    "rulesets": {"diagnostics", "version", "files", "cachefolder", "shapes", "pyast"},
    "cost": {"diagnostics", "shapes", "ir", "rulesets"},
    "report": {"diagnostics", "version", "shapes", "ir", "rulesets", "cost", "pyast"},
    "api": {"diagnostics", "shapes", "ir", "frontend", "rulesets", "cost", "report"},
    "project": {"diagnostics", "limits", "files", "cachefolder", "verdicts", "rulesets", "report", "api"},
    "cli": {"diagnostics", "version", "limits", "files", "api", "report", "project", "verdicts", "answers"},
    "__init__": {"diagnostics", "version", "api", "report"},
    "__main__": {"cli"},
}
THIRD_PARTY = {"libcst": {"frontend"}, "yaml": {"rulesets", "project", "frontend"}, "typer": {"cli"}, "rich": {"report", "cli"},
               "pydantic": {"ir", "rulesets", "report", "project"}, "tomli": {"project"}}


def _stage(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def test_imports_respect_stages():
    problems = []
    for source in PACKAGE.rglob("*.py"):
        stage = _stage(source)
        for node in ast.walk(ast.parse(source.read_text())):
            modules = []
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            for module in modules:
                parts = module.split(".")
                if parts[0] == "staticflops" and len(parts) > 1:
                    target = parts[1]
                    if target != stage and target not in ALLOWED[stage]:
                        problems.append(f"{source.relative_to(PACKAGE)}:{node.lineno} {stage} imports {target}")
                elif parts[0] in THIRD_PARTY and stage not in THIRD_PARTY[parts[0]]:
                    problems.append(f"{source.relative_to(PACKAGE)}:{node.lineno} {stage} imports {parts[0]}")
    assert problems == []


# ---- inside a stage: no cycles, and never the root package ----------------------------------

def _module_name(path: Path) -> str:
    parts = ("staticflops",) + path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(tree: ast.AST) -> set:
    """Import nodes under ``if TYPE_CHECKING:``: annotations, never run."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            skipped.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return skipped


def _import_graph() -> dict:
    """module -> the package modules it imports (at import time or inside a function alike)."""
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        skipped = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("staticflops"):
                targets = [f"{node.module}.{alias.name}" for alias in node.names
                           if f"{node.module}.{alias.name}" in modules] or [node.module]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names if alias.name.startswith("staticflops")]
            else:
                continue
            graph[name].update(target for target in targets if target != name)
    return graph


def _cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict = {}
    low: dict = {}
    stack, on_stack, found = [], set(), []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles_and_no_root_package_imports_inside_the_package():
    graph = _import_graph()
    root_importers = sorted(name for name, targets in graph.items() if "staticflops" in targets
                            and name not in ("staticflops", "staticflops.__main__"))
    assert root_importers == [], "import staticflops.version (or the submodule) instead of the root package"
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    # the check above would pass vacuously if the finder never found anything
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
