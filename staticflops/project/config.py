"""The project's configured models: ``[tool.staticflops]`` in pyproject.toml or staticflops.yaml.

Paths in the config are relative to the directory that holds it (the project root), and
must stay inside it: a pull request controls the config, so a model ``path`` or rule file
that resolves outside the root (``/etc/passwd``, ``../../x``, a symlink out) is an error at
its line, before anything is read.
"""

from __future__ import annotations

import difflib

import re
import sys
from pathlib import Path
from typing import Optional, Union

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from staticflops.diagnostics import AnalysisError, Location, UsageError
from staticflops.files import MAX_CONFIG_BYTES, RefusedRead, check_regular, config_in, read_file
from staticflops.rulesets.loader import DEEP_NESTING, match_location, read_yaml_text, yaml_position
from staticflops.limits import LIMIT_NAMES
from staticflops.project.budget import METRICS, BudgetError, parse_budget
from staticflops.project.cache import cache_folder_problem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class ConfigError(UsageError):
    """The config is missing or wrong; carries ``path:line:col`` when it can."""

    def __init__(self, message: str, location: Location | None = None):
        super().__init__(f"{location}: {message}" if location else message)
        self.location = location


class ModelConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    path: str  # the model's file, relative to the project root
    model: Optional[str] = None  # class or builder function; default: the file's single model class
    kwargs: dict = Field(default_factory=dict)
    inputs: list[str]
    # forward's keyword tensors, as --keyword-input: name (dotted: a key of a dict argument) -> shape
    keyword_inputs: dict[str, str] = Field(default_factory=dict)
    # as --gradient-checkpointing: its training FLOPs count the forward backward runs again
    gradient_checkpointing: bool = False
    # as --past-tokens: the forward priced is one generation step over a cache of this many tokens
    past_tokens: Optional[Union[int, str]] = None
    rules: Optional[str] = None  # default: the project's `rules`
    budget: dict[str, int] = Field(default_factory=dict)
    allow_unknown: Optional[bool] = None  # default: the project's `allow_unknown`
    baseline: Optional[str] = None  # git revision to compare an overrun with (default: when the budget was set)

    @field_validator("inputs", mode="before")
    @classmethod
    def _one_or_many(cls, value):
        return [value] if isinstance(value, str) else value

    @field_validator("budget", mode="before")
    @classmethod
    def _budget_values(cls, value):
        if not isinstance(value, dict):
            return value
        unknown = [key for key in value if key not in METRICS]
        if unknown:
            raise ValueError(f"unknown budget key {unknown[0]!r}; known: {', '.join(METRICS)}")
        try:
            return {key: parse_budget(amount) for key, amount in value.items()}
        except BudgetError as error:
            raise ValueError(str(error)) from None


class ProjectConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    models: list[ModelConfig]
    rules: str = "standard"
    allow_unknown: bool = False
    cache_dir: str = ".staticflops_cache"
    jobs: Optional[int] = Field(default=None, ge=1)  # parallel processes; default: the CPU count
    limits: dict[str, int] = Field(default_factory=dict)  # interpreter bounds, as the --max-* flags
    # third-party source: an environment's interpreter (never run) and folders searched first,
    # relative to the project root, as the --python and --source-path flags
    python: Optional[str] = None
    source_path: list[str] = Field(default_factory=list)

    @field_validator("cache_dir")
    @classmethod
    def _cache_inside_root(cls, value):
        problem = cache_folder_problem(value)  # the cache is written: never outside the project
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("limits")
    @classmethod
    def _limit_names(cls, value):
        for key in value:
            if key not in LIMIT_NAMES:
                close = difflib.get_close_matches(key, LIMIT_NAMES, 1)
                raise ValueError(f"unknown limit {key!r}" + (f"; did you mean {close[0]!r}?" if close else "")
                                 + f" known: {', '.join(LIMIT_NAMES)}")
        return value

    _root: Path = PrivateAttr(default=Path("."))  # the directory holding the config
    _file: Path = PrivateAttr(default=Path("."))
    _budget_lines: dict = PrivateAttr(default_factory=dict)  # (model name, metric) -> Location in the config

    @property
    def root(self) -> Path:
        return self._root

    @property
    def file(self) -> Path:
        return self._file

    @model_validator(mode="after")
    def _names_are_unique(self):
        seen = set()
        for model in self.models:
            if model.name in seen:
                raise ValueError(f"two models are named {model.name!r}")
            seen.add(model.name)
        return self

    def budget_line(self, model: ModelConfig, metric: str) -> int | None:
        place = self._budget_lines.get((model.name, metric))
        return place.line if place else None

    def budget_location(self, model: ModelConfig, metric: str) -> str | None:
        """``path:line:col`` of the budget's key in the config (where an annotation points)."""
        place = self._budget_lines.get((model.name, metric))
        return str(place) if place else None

    def rules_for(self, model: ModelConfig) -> str:
        """A rule file path is relative to the project root; a built-in name stays a name."""
        rules = model.rules or self.rules
        if rules.endswith((".yaml", ".yml")) and not Path(rules).is_absolute():
            return str(self.root / rules)
        return rules

    def allows_unknown(self, model: ModelConfig) -> bool:
        return self.allow_unknown if model.allow_unknown is None else model.allow_unknown

    def model_file(self, model: ModelConfig) -> Path:
        return self.root / model.path

    def library_options(self) -> dict:
        """``python``/``source_path`` for the analysis, resolved against the project root and
        confined to it: a pull request controls the config, so it may not point the analysis
        at folders elsewhere on the machine."""
        options = {}
        if self.python:
            options["python"] = str(self.root / self.python)
        if self.source_path:
            options["source_path"] = [str(self.root / folder) for folder in self.source_path]
        if options:
            options["environment_inside"] = str(self.root)
        return options


def find_config(start: Path) -> Path:
    """The nearest staticflops.yaml, or pyproject.toml with [tool.staticflops], at or above ``start``."""
    for directory in (start.resolve(), *start.resolve().parents):
        try:
            found = config_in(directory)
        except RefusedRead as refused:
            raise ConfigError(f"{refused.filename} {refused.reason}", Location(refused.filename, 1, 1)) from None
        except OSError as error:
            raise ConfigError(f"cannot read {error.filename}: {error.strerror or error}") from None
        if found is not None:
            return found
    raise ConfigError(f"no staticflops config found in {start.resolve()} or above: add [[tool.staticflops.models]] "
                      "to pyproject.toml or write staticflops.yaml (see README, 'Use in code review')")


def load_config(path: Path, named_by_user: bool = False) -> ProjectConfig:
    """``named_by_user`` (``--config``): read wherever it is; else, found by looking, it must
    lie in the folder it was found in (a committed symlink could lead elsewhere)."""
    roots = None if named_by_user else (path.parent,)
    path = display_path(path)
    text = _read(path, roots)
    if path.suffix == ".toml":
        data, locate = _from_toml(path, text)
    else:
        data, locate = _from_yaml(path, text)
    if not isinstance(data, dict):
        raise ConfigError("the staticflops config must be a table/mapping with a `models` list", Location(str(path), 1, 1))
    try:
        config = ProjectConfig.model_validate(data)
    except ValidationError as error:
        problems = error.errors()  # a typo'd key also leaves its field missing: name the typo
        first = next((e for e in problems if e["type"] == "extra_forbidden"), problems[0])
        loc = tuple(part for part in first["loc"] if part not in ("function-after",))
        dotted = ".".join(str(part) for part in loc) or "(top level)"
        message = first["msg"].removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message = _unknown_key_message(loc)
        raise ConfigError(f"`{dotted}`: {message}", locate(loc)) from None
    config._root = path.resolve().parent
    config._file = path.resolve()
    config._budget_lines = {(model.name, metric): locate(("models", index, "budget", metric))
                            for index, model in enumerate(config.models) for metric in model.budget}
    _refuse_paths_outside(config, locate)
    return config


def _refuse_paths_outside(config: ProjectConfig, locate) -> None:
    """Each model's file and rule file must resolve inside the project root and, when it
    exists, be a regular file: an error at its line, before anything is read."""
    named = [(("rules",), config.rules)]
    for index, model in enumerate(config.models):
        named += [(("models", index, "path"), model.path), (("models", index, "rules"), model.rules)]
    for loc, value in named:
        if value is None:
            continue
        if loc[-1] == "rules" and not value.endswith((".yaml", ".yml")):
            if "/" in value or "\\" in value:  # a built-in name is a plain word
                raise ConfigError(f"`{'.'.join(map(str, loc))}`: {value} is neither a built-in rule set's name "
                                  "nor a .yaml rule file", locate(loc))
            continue
        try:
            check_regular(config.root / value, (config.root,))
        except RefusedRead as refused:
            raise ConfigError(f"`{'.'.join(map(str, loc))}`: {value} {refused.reason}", locate(loc)) from None
        except OSError:
            pass  # absent: reading it later says so, for that model alone


def display_path(path: Path) -> Path:
    """Relative to the working directory when under it: what messages print."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def _unknown_key_message(loc: tuple) -> str:
    """A typo'd key: name it and the closest valid key of the table it is in."""
    table = ProjectConfig
    for part in loc[:-1]:
        if isinstance(part, str) and part in table.model_fields:
            annotation = table.model_fields[part].annotation
            inner = [a for a in getattr(annotation, "__args__", (annotation,)) if isinstance(a, type) and issubclass(a, BaseModel)]
            table = inner[0] if inner else table
    valid = list(table.model_fields)
    close = difflib.get_close_matches(str(loc[-1]), valid, n=1, cutoff=0.5)
    hint = f"did you mean `{close[0]}`?" if close else f"valid keys: {', '.join(valid)}"
    return f"unknown key `{loc[-1]}`; {hint}"


def _read(path: Path, roots: tuple | None) -> str:
    try:
        raw = read_file(path, roots, MAX_CONFIG_BYTES)
    except RefusedRead as refused:
        raise ConfigError(f"{path} {refused.reason}", Location(str(path), 1, 1)) from None
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text") from None


def _from_toml(path: Path, text: str):
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        where = Location(str(path), int(match.group(1)), int(match.group(2))) if match else Location(str(path), 1, 1)
        raise ConfigError(f"not valid TOML: {re.sub(r' [(]at line.*', '', str(error))}", where) from None
    except RecursionError:  # tomllib recurses once per nested array or table
        raise ConfigError("arrays or tables nest too deeply", match_location(path, text, DEEP_NESTING)) from None
    except ValueError:  # Python reads no integer of over 4,300 digits
        raise ConfigError("an integer of over 4,300 digits", match_location(path, text, r"\d{4301}")) from None
    data = document.get("tool", {}).get("staticflops")
    if data is None:
        raise ConfigError(f"{path} has no [tool.staticflops] table")
    return data, lambda loc: _toml_position(path, text, loc)


def _toml_position(path: Path, text: str, loc: tuple) -> Location:
    """TOML parsers give no positions: find the model's ``[[tool.staticflops.models]]`` block
    and the key's line in it by reading the lines; fall back to the block or table header."""
    lines = text.splitlines()
    header = re.compile(r"^\s*\[")
    start, end = _toml_table(lines, r"\[\s*tool\.staticflops\s*\]")
    if loc and loc[0] == "models" and len(loc) > 1 and isinstance(loc[1], int):
        blocks = [i for i, line in enumerate(lines) if re.match(r"^\s*\[\[\s*tool\.staticflops\.models\s*\]\]", line)]
        if loc[1] < len(blocks):
            start = blocks[loc[1]]
            end = next((i for i in range(start + 1, len(lines)) if header.match(lines[i])
                        and not re.match(r"^\s*\[\s*tool\.staticflops\.models\.", lines[i])), len(lines))
            loc = loc[2:]
    if start is None:
        return Location(str(path), 1, 1)
    for key in reversed(loc):  # the innermost key that names a line
        if isinstance(key, str):
            for i in range(start, end):
                found = re.match(rf"^(\s*(?:\[\s*tool\.staticflops\.models\.)?){re.escape(key)}\b", lines[i])
                inline = re.search(rf"[{{,]\s*({re.escape(key)})\s*=", lines[i])
                if found or inline:
                    column = (found.end(1) if found else inline.start(1)) + 1  # 1-based, at the key
                    return Location(str(path), i + 1, column)
    return Location(str(path), start + 1, 1)


def _toml_table(lines: list, pattern: str):
    for i, line in enumerate(lines):
        if re.match(rf"^\s*{pattern}", line) or re.match(r"^\s*\[\[\s*tool\.staticflops\.", line):
            return i, len(lines)
    return None, len(lines)


def _from_yaml(path: Path, text: str):
    try:  # aliases that expand into a huge structure (kwargs are copied and hashed: it would hang)
        node, data = read_yaml_text(path, text)
    except AnalysisError as error:
        raise ConfigError(error.message, error.location) from None
    return data, lambda loc: yaml_position(path, node, loc)


