"""Imports flow one way through the stages; third-party packages stay in their stage."""

import ast
from pathlib import Path

import staticflops

PACKAGE = Path(staticflops.__file__).resolve().parent

# stage -> the internal stages it may import (besides itself)
ALLOWED = {
    "diagnostics": set(),
    "codes": set(),  # the catalogue of codes: data only; the stages use the codes as literals
    "limits": {"diagnostics"},  # the budgets' names and defaults, shared by the interpreter, config and flags
    "files": {"limits"},  # reading a file of the project safely (confined, regular, bounded): every stage's reads
    "cachefolder": set(),  # the caches' signed, confined entries (results and parsed modules)
    "verdicts": {"files", "cachefolder"},  # check's no-op fast path: a record of the last verdict, no heavy imports
    "shapes": {"diagnostics"},
    "ir": {"diagnostics", "shapes"},
    "kinds": {"diagnostics", "shapes"},  # the op-kind catalogue: framework-neutral, above the dimension algebra
    "frontend": {"diagnostics", "limits", "files", "cachefolder", "shapes", "ir", "kinds"},
    "rulesets": {"diagnostics", "files", "cachefolder", "shapes"},
    "cost": {"diagnostics", "shapes", "ir", "rulesets"},
    "report": {"diagnostics", "shapes", "ir", "rulesets", "cost"},
    "api": {"diagnostics", "shapes", "ir", "frontend", "rulesets", "cost", "report"},
    "project": {"diagnostics", "limits", "files", "cachefolder", "verdicts", "rulesets", "report", "api"},
    "cli": {"diagnostics", "limits", "api", "report", "project", "verdicts"},
    "__init__": {"diagnostics", "api", "report"},
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
