"""A Hugging Face model config (``config.json``) as the model to analyse.

``staticflops analyze config.json --input 1x32:int64`` builds what ``from_config`` builds:
the class named by ``architectures[0]`` (or ``--model``) from the installed transformers'
modeling file of ``model_type``, given ``Arch.config_class(**config)``.  A diffusers model's
config (a pipeline's ``unet/config.json``, ``vae/config.json``, ``transformer/config.json``:
``_class_name`` and no ``model_type``) builds ``Class.from_config(config)`` of the installed
diffusers, as its pipelines load a component.  The config is data: it is parsed with ``json``
and written back as Python literals into a two-line stand-in module that our interpreter runs
(never Python); the library itself is read as source from the environment or
``--source-path`` like any third-party package.
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

from staticflops import pyast
from staticflops.diagnostics import AnalysisError, Location
from staticflops.files import RefusedRead, project_root, read_file, read_limit

_MODEL_TYPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")
_CLASS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}")


_REVISION = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def is_model_config(path) -> bool:
    return str(path).endswith(".json") or hub_snapshot_config(path) is not None


def hub_snapshot_config(path) -> tuple[Path, Path] | None:
    """(config file, the folder its reads are confined to) of a path into the Hugging Face hub
    cache: ``models--org--name/`` (the snapshot its ``refs/main`` names), a snapshot
    ``models--org--name/snapshots/<rev>/``, a pipeline's component folder in one
    (``<rev>/unet/``), or a ``.json`` file in either.  In the cache those files are symlinks into
    ``models--org--name/blobs/``, so that folder is the root the read must stay inside.  A
    folder's config is its ``config.json``, else (a diffusers pipeline) its ``model_index.json``.
    None for any other path (a plain folder stays a folder of model files)."""
    given = Path(path)
    if given.is_dir():
        folder = given
        if folder.name.startswith("models--") and (folder / "refs" / "main").is_file():
            try:
                with read_limit(128):
                    revision = read_file(folder / "refs" / "main", (folder,)).decode("ascii").strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not _REVISION.fullmatch(revision):
                return None
            folder = folder / "snapshots" / revision
        config = next((folder / name for name in ("config.json", "model_index.json")
                       if os.path.lexists(folder / name)), None)
    elif given.suffix == ".json":
        folder, config = given.parent, given
    else:
        return None
    for snapshot in (folder, folder.parent):  # the snapshot itself, or one of its component folders
        if snapshot.parent.name == "snapshots" and snapshot.parent.parent.name.startswith("models--"):
            return (config, snapshot.parent.parent) if config is not None else None
    return None


def config_model(path, reader, max_bytes: int, model: str | None, libraries=None) -> tuple[str, str]:
    """(Python source of the stand-in module, the ``--model`` expression to build) for the
    config at ``path``.  ``use_cache`` is False: the forward is costed without a key/value cache,
    as one pass over the given tokens."""
    name = str(path)
    where = Location(name, 1, 1)
    snapshot = hub_snapshot_config(path)
    root = snapshot[1] if snapshot else None
    if snapshot:
        path = snapshot[0]
        name = str(path)
        where = Location(name, 1, 1)
    config = _read_json(path, reader, max_bytes, name, root)
    if not isinstance(config, dict):
        raise AnalysisError("a model config is a JSON object", where, "SF101")
    if "model_type" not in config and "_class_name" in config:
        return _diffusers_model(config, Path(path), model, libraries, where)
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not _MODEL_TYPE.fullmatch(model_type):
        raise AnalysisError("the config has no `model_type` naming a transformers model (e.g. \"llama\")",
                            where, "SF101")
    architectures = config.get("architectures")
    arch = model or (architectures[0] if isinstance(architectures, list) and architectures else None)
    if not isinstance(arch, str) or not _CLASS_NAME.fullmatch(arch):
        raise AnalysisError("the config names no architecture: pass --model with a class of "
                            f"transformers.models.{_module(model_type, libraries)} (e.g. --model LlamaForCausalLM)",
                            where, "SF101")
    fields = dict(config, use_cache=False)
    modeling = _modeling_module(model_type, arch, libraries)
    _check_installed(model_type, modeling, libraries, where)
    _check_class(arch, modeling, libraries, where)
    source = (f"from {modeling} import {arch}\n"
              f"CONFIG = {_literal(fields)}\n")
    # A class of another type's folder ("internlm3" builds LlamaForCausalLM) takes the model
    # type's own config class, as AutoConfig gives it: its defaults, not the class's config's.
    own_config = None if modeling.startswith(f"transformers.models.{_module(model_type, libraries)}.") \
        else _config_class(model_type, libraries)
    if own_config is None:
        return source, f"{arch}({arch}.config_class(**CONFIG))"
    return source + f"from {own_config[0]} import {own_config[1]}\n", f"{arch}({own_config[1]}(**CONFIG))"


def _diffusers_model(config: dict, path: Path, model: str | None, libraries, where: Location) -> tuple[str, str]:
    """The stand-in module and expression for a diffusers config: ``from_config`` of the class
    it names (``_class_name``, or ``--model``), which keeps the constructor's arguments and
    drops the rest (``_diffusers_version``, keys of other versions) as diffusers does."""
    if path.name == "model_index.json" or str(config["_class_name"]).endswith("Pipeline"):
        components = _pipeline_components(config)
        # the models among them: the components with a config.json beside the index, if any is
        components = [entry for entry in components if os.path.lexists(path.parent / entry[0] / "config.json")] \
            or components
        shown = ", ".join(f"{component}/config.json ({cls})" for component, cls in components)
        raise AnalysisError(f"this is a diffusers pipeline's model_index.json, not one model's config: analyse "
                            f"one of its models, {shown}", where, "SF101")
    cls = model or config.get("_class_name")
    if not isinstance(cls, str) or not _CLASS_NAME.fullmatch(cls):
        raise AnalysisError("the config's `_class_name` is not a class name: pass --model with a diffusers model "
                            "class (e.g. --model UNet2DConditionModel)", where, "SF101")
    if libraries is not None:
        package = libraries.locate("diffusers")
        if package is None:
            raise AnalysisError(
                "a diffusers config.json is built with the code of an installed diffusers, and none is found: "
                "install it beside staticflops without torch (`pip install --no-deps diffusers`), or name a folder "
                "holding `diffusers/` with --source-path, or an environment with --python", where, "SF101")
        exported = _text(libraries, package)
        if exported is not None and f'"{cls}"' not in exported:
            raise AnalysisError(f"diffusers at {Path(package).parent} exports no class {cls} (a class of another "
                                "diffusers version? pick one with --model)", where, "SF101")
    return f"from diffusers import {cls}\nCONFIG = {_literal(config)}\n", f"{cls}.from_config(CONFIG)"


def _pipeline_components(config: dict) -> list[tuple[str, str]]:
    """(folder, class) of each model of a diffusers pipeline's ``model_index.json``: its
    ``"unet": ["diffusers", "UNet2DConditionModel"]`` entries (those whose names are a folder's
    and a class's: the file is the pull request's, and is printed).  Empty for a model's config."""
    return [(key, value[1]) for key, value in config.items()
            if _MODEL_TYPE.fullmatch(key) and not key.startswith("_") and isinstance(value, list) and len(value) == 2
            and isinstance(value[0], str) and isinstance(value[1], str) and _CLASS_NAME.fullmatch(value[1])]


def _text(libraries, path) -> str | None:
    """A library file's text, read through the environment's confined reader (None: unreadable)."""
    try:
        return libraries.reader(str(path)).decode("utf-8", "replace") if isinstance(path, Path) else None
    except OSError:
        return None


def _modeling_module(model_type: str, arch: str, libraries) -> str:
    """The dotted name of the modeling file that defines ``arch``, found as transformers' auto
    classes find it: in the model type's folder (``modeling_<folder>.py``, or for a type that
    shares a folder, ``modeling_<type>.py``: "data2vec-text" in data2vec/modeling_data2vec_text.py),
    else in the folder of another model type whose auto mapping names the same class ("gpt-sw3"
    builds GPT2LMHeadModel, which models/gpt2 defines).  The first candidate when none defines it
    (the checks then say what is missing)."""
    module = _module(model_type, libraries)
    candidates = [f"transformers.models.{module}.modeling_{module}"]
    own = model_type.replace("-", "_")
    if own != module:
        candidates.append(f"transformers.models.{module}.modeling_{own}")
    if libraries is None:
        return candidates[0]
    definition = re.compile(rf"^class {re.escape(arch)}\(", re.MULTILINE)

    def defines(dotted: str) -> bool:
        text = _text(libraries, libraries.locate(dotted))
        return text is not None and definition.search(text) is not None

    found = next(filter(defines, candidates), None)
    if found is None:  # the auto mapping is read only for a class the type's own folder lacks
        others = [f"transformers.models.{folder}.modeling_{name}" for other in _types_naming(arch, libraries)
                  for folder in [_module(other, libraries)] for name in dict.fromkeys([folder, other.replace("-", "_")])]
        found = next(filter(defines, dict.fromkeys(others)), None)
    return found or candidates[0]


def _config_class(model_type: str, libraries) -> tuple[str, str] | None:
    """(dotted module, class) of the config class transformers' ``CONFIG_MAPPING_NAMES`` gives the
    model type (read as text from ``auto_mappings.py`` and ``configuration_auto.py``), in the
    type's folder or in that of a type mapped to the same class; None when not found."""
    texts = [_text(libraries, libraries.locate(f"transformers.models.auto.{name}"))
             for name in ("auto_mappings", "configuration_auto")]
    pairs = [pair for text in texts if text is not None
             for pair in re.findall(r'"([\w-]+)"\s*[,:]\s*"(\w+Config)"', text)]
    named = next((cls for kind, cls in pairs if kind == model_type), None)
    if named is None:
        return None
    definition = re.compile(rf"^class {re.escape(named)}\(", re.MULTILINE)
    for kind in dict.fromkeys([model_type, *(kind for kind, cls in pairs if cls == named)]):
        folder = _module(kind, libraries)
        for name in dict.fromkeys([folder, kind.replace("-", "_")]):
            dotted = f"transformers.models.{folder}.configuration_{name}"
            text = _text(libraries, libraries.locate(dotted))
            if text is not None and definition.search(text):
                return dotted, named
    return None


def _types_naming(arch: str, libraries) -> list[str]:
    """The model types whose entries in the installed ``modeling_auto.py`` name the class
    ``arch`` (its mapping tables read as text, never run)."""
    text = _text(libraries, libraries.locate("transformers.models.auto.modeling_auto"))
    if text is None:
        return []
    return list(dict.fromkeys(re.findall(rf'\(\s*"([\w-]+)"\s*,\s*"{re.escape(arch)}"\s*\)', text)))


def _check_installed(model_type: str, modeling: str, libraries, where: Location) -> None:
    """A clear error when the transformers the config needs is not where libraries are read, or
    has no modeling file for its ``model_type`` (a type from another version), instead of an
    unknown import deep in the analysis."""
    if libraries is None:
        return
    if libraries.locate("transformers") is None:
        raise AnalysisError(
            "a config.json is built with the modeling code of an installed transformers, and none is found: "
            "install it beside staticflops without torch (`pip install --no-deps transformers huggingface_hub`), "
            "or name a folder holding `transformers/` with --source-path, or an environment with --python",
            where, "SF101")
    if libraries.locate(modeling) is None:
        package = libraries.locate("transformers")
        raise AnalysisError(
            f"the transformers at {Path(package).parent if isinstance(package, Path) else package} has no modeling "
            f"file for model_type {model_type!r} ({modeling.replace('.', '/')}.py): a model type "
            "of another transformers version?", where, "SF101")


def _check_class(arch: str, modeling: str, libraries, where: Location) -> None:
    """A class the modeling file never names (a typo, another head's name) is an error listing
    the model classes the file defines, instead of an unknown attribute deep in the analysis.
    Only a name absent from the file's text is refused: one it imports or defines passes."""
    if libraries is None:
        return
    text = _text(libraries, libraries.locate(modeling))
    if text is None or "import *" in text or re.search(rf"\b{re.escape(arch)}\b", text):
        return
    heads = [name for name in re.findall(r"^class (\w+)\(", text, re.MULTILINE)
             if ("For" in name or name.endswith("Model")) and not name.endswith("PreTrainedModel")]
    shown = ", ".join(heads[:12]) + (", ..." if len(heads) > 12 else "")
    raise AnalysisError(f"{modeling} has no class {arch}"
                        + (f"; its model classes: {shown} (pick one with --model)" if heads else ""), where, "SF101")


def _module(model_type: str, libraries=None) -> str:
    """transformers' folder for a model type, as its ``model_type_to_module_name`` finds it:
    "gpt-neox" lives in models/gpt_neox; a type with no folder of its own ("gemma3_text",
    "mimi_encoder") is looked up in the installed transformers' ``SPECIAL_MODEL_TYPE_TO_MODULE_NAME``
    table (read as data from ``auto_mappings.py``, not run)."""
    module = model_type.replace("-", "_")
    if libraries is None or libraries.locate(f"transformers.models.{module}.modeling_{module}") is not None:
        return module
    return _special_modules(libraries).get(model_type, module)


_SPECIAL_TABLE = "SPECIAL_MODEL_TYPE_TO_MODULE_NAME"


def _special_modules(libraries) -> dict:
    """The installed transformers' ``SPECIAL_MODEL_TYPE_TO_MODULE_NAME``: the pairs of its
    ``OrderedDict([("type", "module"), ...])`` in ``auto_mappings.py``, then those its
    ``.update({...})`` in ``configuration_auto.py`` adds; what is not such a literal is skipped."""
    table: dict = {}
    for module in ("transformers.models.auto.auto_mappings", "transformers.models.auto.configuration_auto"):
        where = libraries.locate(module)
        if not isinstance(where, Path):
            continue
        try:
            tree = pyast.parse(libraries.reader(str(where)))
        except (OSError, SyntaxError, ValueError, RecursionError):
            continue
        for statement in tree.body:
            table.update(_pairs(statement))
    return table


def _pairs(statement) -> dict:
    value = statement.value if isinstance(statement, (ast.Assign, ast.Expr)) else None
    if not isinstance(value, ast.Call) or len(value.args) != 1:
        return {}
    if isinstance(statement, ast.Assign):  # SPECIAL_... = OrderedDict([(k, v), ...])
        target = statement.targets[0] if len(statement.targets) == 1 else None
        if isinstance(target, ast.Name) and target.id == _SPECIAL_TABLE and isinstance(value.args[0], (ast.List, ast.Tuple)):
            return dict(pair for pair in map(_string_pair, value.args[0].elts) if pair)
        return {}
    method = value.func  # SPECIAL_....update({k: v, ...})
    if (isinstance(method, ast.Attribute) and method.attr == "update" and isinstance(method.value, ast.Name)
            and method.value.id == _SPECIAL_TABLE and isinstance(value.args[0], ast.Dict)):
        pairs = zip(value.args[0].keys, value.args[0].values)
        return dict(pair for pair in (_string_pair(ast.Tuple(elts=[k, v])) for k, v in pairs if k is not None) if pair)
    return {}


def _string_pair(node) -> tuple | None:
    if (isinstance(node, ast.Tuple) and len(node.elts) == 2
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)):
        return node.elts[0].value, node.elts[1].value
    return None


def _literal(value) -> str:
    """JSON data as a Python literal (``repr`` of str/int/float/bool/None, lists and dicts)."""
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return f"float({str(value)!r})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


def _read_json(path, reader, max_bytes: int, name: str, root: Path | None = None):
    try:
        with read_limit(max_bytes):
            raw = read_file(path, (root or project_root(path),)) if reader is None else reader(name)
    except RefusedRead as refused:
        raise AnalysisError(f"{name} {refused.reason}", Location(name, 1, 1), code="SF001") from None
    except OSError as error:
        raise AnalysisError(f"cannot read {name}: {error.strerror or error}", code="SF001") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise AnalysisError(f"not UTF-8 text: {error.reason}", Location(name, 1, 1), code="SF003") from None
    except json.JSONDecodeError as error:
        raise AnalysisError(f"not valid JSON: {error.msg}", Location(name, error.lineno, error.colno),
                            code="SF004") from None
    except RecursionError:
        raise AnalysisError("the JSON nests too deeply", Location(name, 1, 1), code="SF004") from None


def cache_root_of(path, reader) -> Path | None:
    """The project whose parsed-module cache keeps the trees of the library files the config
    reaches: the config's own project when it is read from disk (no ``reader``: a git revision
    keeps no cache).  The stand-in module is read through a reader, which alone means none."""
    return project_root(path) if reader is None else None


def stand_in_reader(path, source: str, reader):
    """A reader that gives the stand-in module for ``path`` and defers every other file."""
    wanted = str(path)
    roots: list = []  # the config's project root, found once: every import probes files through here

    def read(name: str) -> bytes:
        if name == wanted:
            return source.encode("utf-8")
        if reader is not None:
            return reader(name)
        if not roots:
            roots.append(project_root(wanted))
        return read_file(Path(name), (roots[0],))
    return read
