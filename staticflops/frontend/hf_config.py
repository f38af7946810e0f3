"""A Hugging Face model config (``config.json``) as the model to analyse.

``staticflops analyze config.json --input 1x32:int64`` builds what ``from_config`` builds:
the class named by ``architectures[0]`` (or ``--model``) from the installed transformers'
modeling file of ``model_type``, given ``Arch.config_class(**config)``.  The config is data:
it is parsed with ``json`` and written back as Python literals into a two-line stand-in
module that our interpreter runs (never Python); transformers itself is read as source from
the environment or ``--source-path`` like any third-party package.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from staticflops.diagnostics import AnalysisError, Location
from staticflops.files import RefusedRead, project_root, read_file, read_limit

_MODEL_TYPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")
_CLASS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}")


_REVISION = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def is_model_config(path) -> bool:
    return str(path).endswith(".json") or hub_snapshot_config(path) is not None


def hub_snapshot_config(path) -> tuple[Path, Path] | None:
    """(config.json, the folder its reads are confined to) of a Hugging Face hub-cache folder:
    a snapshot ``models--org--name/snapshots/<rev>/``, or ``models--org--name/`` itself (the
    snapshot its ``refs/main`` names).  In the cache a snapshot's config.json is a symlink into
    ``models--org--name/blobs/``, so that folder is the root the read must stay inside.  None for
    any other path (a plain folder stays a folder of model files)."""
    folder = Path(path)
    if not folder.is_dir():
        return None
    if folder.name.startswith("models--") and (folder / "refs" / "main").is_file():
        try:
            with read_limit(128):
                revision = read_file(folder / "refs" / "main", (folder,)).decode("ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if not _REVISION.fullmatch(revision):
            return None
        folder = folder / "snapshots" / revision
    if folder.parent.name != "snapshots" or not folder.parent.parent.name.startswith("models--"):
        return None
    config = folder / "config.json"
    return (config, folder.parent.parent) if os.path.lexists(config) else None


def config_model(path, reader, max_bytes: int, model: str | None) -> tuple[str, str]:
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
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not _MODEL_TYPE.fullmatch(model_type):
        raise AnalysisError("the config has no `model_type` naming a transformers model (e.g. \"llama\")",
                            where, "SF101")
    architectures = config.get("architectures")
    arch = model or (architectures[0] if isinstance(architectures, list) and architectures else None)
    if not isinstance(arch, str) or not _CLASS_NAME.fullmatch(arch):
        raise AnalysisError("the config names no architecture: pass --model with a class of "
                            f"transformers.models.{_module(model_type)} (e.g. --model LlamaForCausalLM)",
                            where, "SF101")
    fields = dict(config, use_cache=False)
    module = _module(model_type)
    source = (f"from transformers.models.{module}.modeling_{module} import {arch}\n"
              f"CONFIG = {_literal(fields)}\n")
    return source, f"{arch}({arch}.config_class(**CONFIG))"


def _module(model_type: str) -> str:
    # transformers' folder for a model type: "gpt-neox" lives in models/gpt_neox
    return model_type.replace("-", "_")


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
