"""Analyse the configured models: from the cache when nothing they read has changed,
otherwise in this process or, when there are more than a few, in parallel processes."""

from __future__ import annotations

import inspect
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from staticflops.diagnostics import AnalysisError, UsageError
from staticflops.files import read_file
from staticflops.project.budget import TRAINING_METRICS
from staticflops.cachefolder import folder_listing
from staticflops.project.cache import LISTINGS, STAMPS, ResultCache
from staticflops.project.config import ModelConfig, ProjectConfig
from staticflops.project.sources import RecordingReader, content_hash
from staticflops.report import Report

PARALLEL_FROM = 4  # "more than a few": below this, process start-up costs more than it saves


@dataclass
class Outcome:
    name: str
    report: Report | None = None
    error: str | None = None  # `path:line:col: error: message` when the model could not be analysed
    files: list = field(default_factory=list)  # what the analysis read or probed (paths as configured)
    cached: bool = False
    # what the report depends on, as its results-cache entry records it ("sources", "disk",
    # "listings"); None when it is not in the cache (an error, the cache off)
    depends: dict | None = None


def supports_training() -> bool:
    """Training FLOPs come from ``analyze(..., training=True)`` where this build has it."""
    from staticflops import api  # not at import time: a cached ``check`` never needs the analyser

    return "training" in inspect.signature(api.analyze).parameters


def request_for(config: ProjectConfig, model: ModelConfig) -> dict:
    """What the analysis depends on besides file contents (the cache key's request part)."""
    request = {"path": model.path, "model": model.model, "inputs": list(model.inputs), "kwargs": model.kwargs,
               "rules": config.rules_for(model)}
    if model.keyword_inputs:  # only when set: the cache keys of models without them stay as they were
        request["keyword_inputs"] = dict(model.keyword_inputs)
    if any(metric in model.budget for metric in TRAINING_METRICS):
        request["training"] = True  # passed on only when supported; an upgrade changes the cache key anyway
    if model.gradient_checkpointing:  # only when set, as keyword_inputs
        request["gradient_checkpointing"] = True
    if model.past_tokens is not None:  # likewise
        request["past_tokens"] = model.past_tokens
    if config.limits:  # only when set: the cache keys of configs without limits stay as they were
        request["limits"] = dict(config.limits)
    request.update(config.library_options())  # only when set, as limits
    return request


def known_files(config: ProjectConfig, models: list[ModelConfig]) -> dict[str, set]:
    """The files each model's cached analyses read (its imports included), without analysing."""
    cache = ResultCache(config.root, config.cache_dir)
    return {model.name: cache.recorded_sources(cache.key(request_for(config, model)), model.path) for model in models}


def analyse_models(config: ProjectConfig, models: list[ModelConfig], reader, use_cache: bool = True,
                   jobs: int | None = None) -> dict[str, Outcome]:
    cache = ResultCache(config.root if use_cache else None, config.cache_dir)
    outcomes: dict[str, Outcome] = {}
    missing = []
    for model in models:
        request = request_for(config, model)
        key = cache.key(request)
        entry = cache.lookup(key, reader, model.path)
        report = _cached_report(entry)
        if report is not None:
            outcomes[model.name] = Outcome(model.name, report, files=list(entry["sources"]), cached=True,
                                           depends=_depends(entry["sources"], entry["disk"], entry.get("listings", {}),
                                                            entry.get("stamps", {})))
        else:
            missing.append((model.name, key, request))
    workers = min(jobs or config.jobs or os.cpu_count() or 1, len(missing))
    if len(missing) >= PARALLEL_FROM and workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_analyse_one, [r for _, _, r in missing], [reader] * len(missing)))
    else:
        results = [_analyse_one(request, reader) for _, _, request in missing]
    for (name, key, request), (report, error, sources, disk, _code) in zip(missing, results):
        depends = None
        if report is not None and error is None:
            cache.store(key, request["path"], sources, disk, report)
            if cache.root is not None:
                files = {path: digest for path, digest in disk.items() if path not in (LISTINGS, STAMPS)}
                depends = _depends(sources, files, disk.get(LISTINGS, {}), disk.get(STAMPS, {}))
        # A partial report (a budget stopped the analysis) never passes: it counts as an error.
        usable = report is not None and error is None
        outcomes[name] = Outcome(name, Report.model_validate(report) if usable else None, error, list(sources),
                                 depends=depends)
    return {model.name: outcomes[model.name] for model in models}


def _depends(sources: dict, disk: dict, listings: dict, stamps: dict) -> dict:
    return {"sources": dict(sources), "disk": dict(disk), "listings": dict(listings), "stamps": dict(stamps)}


def verdict_dependencies(config: ProjectConfig, outcomes: dict) -> dict:
    """What a check's printed verdict depends on, for the fast path's record (verdicts.py):
    each model's files as ``select_models`` sees them and, for each model analysed or found
    in the cache, what its report depends on; the stamp of each model's results-cache entry
    file.  Empty when the results cache is off."""
    from staticflops.verdicts import entry_stamp

    cache = ResultCache(config.root, config.cache_dir)
    if cache.root is None:
        return {}
    models, entries = {}, {}
    for model in config.models:
        key = cache.key(request_for(config, model))
        entries[f"{key}.json"] = entry_stamp(config.root, tuple(cache.parts), f"{key}.json")
        known = sorted(cache.recorded_sources(key, model.path))
        item = {"files": [str(config.model_file(model))] + [str(config.root / path) for path in known]}
        outcome = outcomes.get(model.name)
        if outcome is not None and outcome.depends is not None and entries[f"{key}.json"] is not None:
            item.update(outcome.depends)
        models[model.name] = item
    return {"root": str(config.root), "cache_parts": list(cache.parts), "cache_dir": config.cache_dir,
            "entries": entries, "models": models}


def _cached_report(entry: dict | None) -> Report | None:
    """The report of a cache entry; a report this build cannot read is a miss, not an error."""
    if entry is None:
        return None
    try:
        return Report.model_validate(entry["report"])
    except ValueError:  # pydantic's ValidationError
        return None


def _analyse_one(request: dict, reader) -> tuple:
    """(report as a dict, error message, source hashes, rule-file hashes, the error's code);
    runs in a worker.  A partial report (a budget was hit) comes with the budget's message as
    the error."""
    from staticflops import api

    recording = RecordingReader(reader)
    options = {key: value for key, value in request.items() if key != "path"}
    if options.get("training") and not supports_training():
        del options["training"]
    try:
        with api.recording_reads() as library:
            report = api.analyze(request["path"], reader=recording, **options)
    except AnalysisError as error:
        where = f"{error.location}: " if error.location else f"{request['path']}: "
        return None, f"{where}error: {error.message}", recording.hashes, {}, error.code
    except UsageError as error:
        return None, f"{request['path']}: error: {error}", recording.hashes, {}, None
    error = None
    if report.partial:
        stop = report.stopped
        error = f"{stop.location or request['path']}: error: {stop.message} (partial result: a lower bound)"
    # Outside the project: rule files and third-party modules by content; the folders imports
    # searched by their listing, and the library files' stamps (under the reserved keys LISTINGS
    # and STAMPS: ResultCache.store files them apart).
    disk = {**library.files, **_rule_files(request["rules"])}
    listings = {folder: folder_listing(folder) for folder in sorted(library.folders)}
    disk[LISTINGS] = {folder: digest for folder, digest in listings.items() if digest is not None}
    disk[STAMPS] = dict(library.stamps)
    return report.model_dump(mode="json"), error, recording.hashes, disk, None


def _rule_files(rules: str) -> dict:
    from staticflops.rulesets import load_ruleset  # already loaded by the analysis: cheap
    from staticflops.rulesets.loader import MAX_RULE_FILE_BYTES

    hashes = {}
    for path in load_ruleset(rules).files:
        try:
            hashes[str(Path(path).resolve())] = content_hash(read_file(path, max_bytes=MAX_RULE_FILE_BYTES))
        except OSError:
            pass
    return hashes
