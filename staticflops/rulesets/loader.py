"""Find, read, validate and merge rule files into a compiled :class:`RuleSet`.

Rule files are read through ``staticflops.files``: regular files only, bounded.  The file
named (``--rules PATH``, or a config's ``rules``, which the config confines to the project)
is read where it is; a file it ``extends`` must lie in the named file's project root
(``files.project_root``), as an analysed file's imports must, and a built-in name must name
a file of the built-in folder.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from staticflops.diagnostics import AnalysisError, Location
from staticflops.files import RefusedRead, check_regular, exists, project_root, read_file
from staticflops.rulesets import prebuilt
from staticflops.rulesets.compiled import (  # noqa: F401  (re-exported: the loader's API)
    DATA_FILES, DEFAULT_OPTIONS, MAX_RULE_FILE_BYTES, CompiledRule, RuleSet, builtin_names, builtin_rules_dir,
)
from staticflops.rulesets.formula import Formula, FormulaError

# PyYAML and the rule-file schema are imported only when YAML is read: the wheel's compiled
# copy of a built-in rule set (rulesets/prebuilt.py) spares a run both.

_FIELDS = ("macs", "flops", "params")


def load_ruleset(name_or_path: str) -> RuleSet:
    """The compiled rule set; loaded once per process while its files stay unchanged (a
    folder run prices hundreds of models with it).  Shared: treat it as read-only."""
    path = _resolve(name_or_path, None)
    key = str(path.resolve())
    cached = _LOADED.get(key)
    if cached is not None and cached[0] == _signature(cached[1].files):
        return cached[1]
    ruleset = prebuilt.read(path)
    if ruleset is None:  # not built-in, or no fresh compiled copy (an editable install): the YAML
        ruleset = _load(path, chain=(), named=path)
    _LOADED[key] = (_signature(ruleset.files), ruleset)
    return ruleset


_LOADED: dict = {}  # resolved path -> (signature of its files, RuleSet)


def _signature(files: list) -> tuple:
    """Size and modification time of each file: an edited rule file is read again."""
    try:
        return tuple((f, os.stat(f).st_size, os.stat(f).st_mtime_ns) for f in files)
    except OSError:
        return ()


def _resolve(name_or_path: str, relative_to: Path | None, roots: tuple | None = None) -> Path:
    """The rule file a name or path means; a path must lie inside ``roots`` (None: anywhere)."""
    candidate = Path(name_or_path)
    if candidate.suffix in (".yaml", ".yml"):
        if not candidate.is_absolute() and relative_to is not None and exists(relative_to / candidate):
            candidate = relative_to / candidate
        try:
            check_regular(candidate, roots)
        except RefusedRead as refused:
            raise AnalysisError(f"rule file {name_or_path} {refused.reason}", code="SF200") from None
        except OSError:
            raise AnalysisError(f"rule file {name_or_path} not found", code="SF200") from None
        return candidate
    builtin = builtin_rules_dir() / f"{name_or_path}.yaml"
    try:  # a "name" such as ../../x must not reach outside the built-in folder
        check_regular(builtin, (builtin_rules_dir(),))
    except OSError:
        raise AnalysisError(
            f"no rule set named {name_or_path!r}; built-in ones: {', '.join(builtin_names())}", code="SF200") from None
    return builtin


def _load(path: Path, chain: tuple, named: Path) -> RuleSet:
    """``named``: the rule file the user or config named, whose project root confines ``extends``."""
    if path.resolve() in chain:
        raise AnalysisError(f"rule set {path} extends itself through {' -> '.join(str(p) for p in chain)}", code="SF201")
    from pydantic import ValidationError

    from staticflops.rulesets.schema import Rule, RuleFile

    node, data = _read_yaml(path)
    try:
        spec = RuleFile.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = yaml_position(path, node, first["loc"])
        dotted = ".".join(str(p) for p in first["loc"])
        raise AnalysisError(f"rule file: `{dotted}`: {first['msg']}", where, code="SF202") from None
    base = _load(_extended(spec.extends, path, node, named), chain + (path.resolve(),), named) if spec.extends else None
    ruleset = RuleSet(spec.name, spec.description or (base.description if base else ""),
                      spec.convention or (base.convention if base else ""),
                      spec.headline or (base.headline if base else "flops"))
    if base is not None:
        ruleset.rules.update(base.rules)
        ruleset.files.extend(base.files)
        ruleset.options.update(base.options)
        ruleset.classes.update(base.classes)
    ruleset.options.update({k: v for k, v in spec.options.model_dump().items() if v is not None})
    ruleset.files.append(str(path))
    for name, rule in spec.classes.items():
        ruleset.classes[name] = _compile(name, rule, ruleset.classes.get(name), path, node, ("classes", name))
    zero = Rule(macs=0, flops=0, note="costs nothing under this convention")
    for kind in spec.zero_cost:
        compiled = _compile(kind, zero, None, path, node, ("zero_cost",))
        inherited = ruleset.rules.get(kind)
        if inherited is not None and inherited.params is not None:  # costs nothing, still holds parameters
            compiled = replace(compiled, params=inherited.params)
        ruleset.rules[kind] = compiled
    for kind, rule in spec.rules.items():
        inherited = ruleset.rules.get(kind) if base is not None else None
        ruleset.rules[kind] = _compile(kind, rule, inherited, path, node, ("rules", kind))
    return ruleset


def _compile(kind, rule: Rule, inherited: CompiledRule | None, path, node, loc) -> CompiledRule:
    """Fields a rule leaves out are taken from the rule it overrides (field-level merge)."""
    def formula(name, text, fallback):
        if text is None:
            return fallback
        try:
            return Formula(text)
        except FormulaError as error:
            where = _formula_position(path, node, loc + (name,), error.offset)
            raise AnalysisError(f"rule `{kind}`, `{name}`: {error}", where, code="SF203") from None

    backward = rule.backward
    macs = formula("macs", rule.macs, inherited.macs if inherited else Formula("0"))
    explicit_macs = rule.macs is not None
    default_flops = Formula("2 * macs") if (explicit_macs or not inherited) else inherited.flops
    return CompiledRule(
        kind=kind,
        macs=macs,
        flops=formula("flops", rule.flops, default_flops),
        params=formula("params", rule.params, inherited.params if inherited else None),
        input_grad=formula("input_grad", backward.input_grad if backward else None,
                           inherited.input_grad if inherited else None),
        weight_grad=formula("weight_grad", backward.weight_grad if backward else None,
                            inherited.weight_grad if inherited else None),
        state_grad=formula("state_grad", backward.state_grad if backward else None,
                           inherited.state_grad if inherited else None),
        # A rule that changes the formulas does not keep the old rule's explanation.
        note=rule.note if rule.note is not None else (
            inherited.note if inherited and rule.macs is None and rule.flops is None else None),
        origin=yaml_position(path, node, loc),
        mem_read=formula("mem_read", rule.mem_read, inherited.mem_read if inherited else None),
        mem_write=formula("mem_write", rule.mem_write, inherited.mem_write if inherited else None),
        saved=formula("saved", rule.saved, inherited.saved if inherited else None),
    )


def _extended(extends: str, path: Path, node, named: Path) -> Path:
    """The file ``extends`` names, confined to the named file's project; errors at the key."""
    try:
        roots = (project_root(named),) if Path(extends).suffix in (".yaml", ".yml") else None
        return _resolve(extends, path.parent, roots)
    except (AnalysisError, RefusedRead) as error:
        message = error.message if isinstance(error, AnalysisError) else f"{error.filename} {error.reason}"
        raise AnalysisError(message, yaml_position(path, node, ("extends",)), code="SF200") from None


def _read_yaml(path: Path):
    try:
        raw = read_file(path, None, MAX_RULE_FILE_BYTES)  # regular and bounded; where it may lie is _resolve's
    except RefusedRead as refused:
        raise AnalysisError(f"rule file {path} {refused.reason}", Location(str(path), 1, 1), code="SF204") from None
    except OSError as error:
        raise AnalysisError(f"cannot read rule file {path}: {error.strerror or error}", code="SF204") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise AnalysisError(f"rule file {path} is not UTF-8 text", code="SF204") from None
    return read_yaml_text(path, text)


def read_yaml_text(path: Path, text: str) -> tuple:
    """(root node, data) of a rule or config file, every failure a located AnalysisError.
    Composed first (the safe loader: no tag runs anything), bounded, then built from the
    checked nodes without a second parse."""
    import yaml

    try:
        node = yaml.compose(text, Loader=_yaml_loader())
    except RecursionError:  # PyYAML without libyaml composes recursively
        raise AnalysisError("collections nest too deeply", match_location(path, text, DEEP_NESTING),
                            code="SF204") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = Location(str(path), mark.line + 1, mark.column + 1) if mark else Location(str(path), 1, 1)
        raise AnalysisError(f"not valid YAML: {getattr(error, 'problem', None) or error}", where, code="SF204") from None
    if node is None:
        raise AnalysisError("the file is empty", Location(str(path), 1, 1), code="SF204")
    _bound_expansion(path, node)
    return node, _construct_checked(path, node, _yaml_loader())


DEEP_NESTING = r"[\[{](?:\s*[\[{]){99}"  # 100 brackets opened in a row


def match_location(path: Path, text: str, pattern: str) -> Location:
    """Where ``pattern`` first matches in ``text`` (the file's start if nowhere)."""
    found = re.search(pattern, text)
    if found is None:
        return Location(str(path), 1, 1)
    start = found.start()
    return Location(str(path), text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start))


def _yaml_loader():
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML was built with it


MAX_EXPANDED_NODES = 200_000


def _construct_checked(path: Path, root, loader):
    """The data of checked YAML nodes (no second parse).  The safe loader refuses tags that
    would build objects (``!!python/object``), and Python refuses an integer of over 4,300
    digits: both are errors at their place, not crashes."""
    import yaml

    _refuse_duplicate_keys(path, root)
    try:
        return loader("").construct_document(root)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        where = Location(str(path), mark.line + 1, mark.column + 1) if mark else Location(str(path), 1, 1)
        raise AnalysisError(f"not plain YAML data: {getattr(error, 'problem', None) or error}", where,
                            code="SF204") from None
    except ValueError:
        node = next((n for n in _nodes(root) if isinstance(n, yaml.ScalarNode) and len(n.value) > 4000
                     and n.tag.endswith(":int")), root)
        raise AnalysisError(f"a number of {len(node.value):,} digits is over Python's limit of 4,300",
                            Location(str(path), node.start_mark.line + 1, node.start_mark.column + 1),
                            code="SF204") from None


def _refuse_duplicate_keys(path: Path, root) -> None:
    """YAML keeps the last of two equal keys without a word: a rule or setting would vanish."""
    import yaml

    for node in _nodes(root):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key, _ in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        raise AnalysisError(f"key `{key.value}` is given twice (first on line {seen[key.value]})",
                                            Location(str(path), key.start_mark.line + 1, key.start_mark.column + 1),
                                            code="SF204")
                    seen[key.value] = key.start_mark.line + 1


def _nodes(root):
    """Every node in document order, an alias's target each time it is used."""
    import yaml

    pending = [root]
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, yaml.MappingNode):
            pending.extend(part for pair in reversed(node.value) for part in reversed(pair))
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(reversed(node.value))


def _bound_expansion(path: Path, root) -> None:
    """Aliases may share small pieces; refuse a file whose expansion would be huge (a
    "billion laughs" file: a few lines that expand to 10**9 items)."""
    for visited, node in enumerate(_nodes(root), 1):
        if visited > MAX_EXPANDED_NODES:
            mark = node.start_mark
            raise AnalysisError(f"rule file expands to over {MAX_EXPANDED_NODES:,} YAML nodes (aliases?)",
                                Location(str(path), mark.line + 1, mark.column + 1), code="SF204")


def yaml_position(path: Path, root, loc) -> Location:
    """The YAML position of a pydantic error location (the closest node that exists)."""
    mark = _node_at(root, loc).start_mark
    return Location(str(path), mark.line + 1, mark.column + 1)


def _formula_position(path: Path, root, loc, offset: int) -> Location:
    """Where column ``offset`` of a formula is in the file: a quoted scalar starts one column
    after its quote.  (Block and multi-line scalars fold their lines: this stays on the first.)"""
    node = _node_at(root, loc)
    quote = 1 if getattr(node, "style", None) in ('"', "'") else 0
    return Location(str(path), node.start_mark.line + 1, node.start_mark.column + 1 + quote + offset)


def _node_at(root, loc):
    """The YAML node at a pydantic error location, or the closest one above it that exists."""
    import yaml

    node = root
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    child = value
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node = child
    return node


def compile_builtin(target: Path) -> list[Path]:
    """Compile every built-in rule set into ``target`` (the wheel's build hook): exactly what
    ``load_ruleset(name)`` compiles, as ``prebuilt.read`` will read it back; the files written."""
    import json

    folder = builtin_rules_dir()
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in builtin_names():
        path = folder / f"{name}.yaml"
        written.append(target / f"{name}.json")
        written[-1].write_text(json.dumps(prebuilt.entry(_load(path, chain=(), named=path), folder), sort_keys=True))
    return written
