"""Project mode: configured models, budgets (``check``) and revisions compared (``diff``).

The entry points the CLI calls; each finds the config (``[tool.staticflops]`` in
pyproject.toml or staticflops.yaml) at or above the working directory unless given one.
"""

from __future__ import annotations

from pathlib import Path

from staticflops.report.review import CheckResult, DiffResult


def run_check(paths: list[str] = (), config_path: str | None = None, use_cache: bool = True,
              jobs: int | None = None, limits: dict | None = None, trace: dict | None = None) -> CheckResult:
    """Check the configured models against their budgets; with ``paths``, only the models
    that read one of those files (what pre-commit passes).  ``limits``: interpreter bounds
    (as for ``analyze``) over the config's ``limits``; a budget hit fails the model.
    ``trace``: filled with what the verdict depends on (the fast path's record, verdicts.py),
    the config file's hash included; left empty if the config changed during the run."""
    from staticflops.project.check import check_project, select_models
    from staticflops.project.run import known_files

    config = _config(config_path, limits)
    before = _config_digest(config.file) if trace is not None else None
    models = select_models(config, list(paths), known_files(config, config.models) if paths else None)
    result = check_project(config, models, use_cache, jobs, trace)
    if trace:
        after = _config_digest(config.file)
        if before is None or after != before:
            trace.clear()
        else:
            trace["config"] = [str(config.file), after]
    return result


def _config_digest(path: Path) -> str | None:
    import hashlib

    from staticflops.files import MAX_CONFIG_BYTES, read_file

    try:
        return hashlib.sha256(read_file(path, None, MAX_CONFIG_BYTES)).hexdigest()
    except OSError:
        return None


def run_diff(base: str, paths: list[str] = (), config_path: str | None = None, use_cache: bool = True,
             jobs: int | None = None, limits: dict | None = None) -> DiffResult:
    """Each configured model at git revision ``base`` against the working tree (``limits``
    as for :func:`run_check`)."""
    from staticflops.project.check import select_models
    from staticflops.project.diff import diff_project
    from staticflops.project.run import known_files

    config = _config(config_path, limits)
    models = select_models(config, list(paths), known_files(config, config.models) if paths else None)
    return diff_project(config, models, base, use_cache, jobs)


def _config(config_path: str | None, limits: dict | None = None):
    from staticflops.limits import checked_limits
    from staticflops.project.config import find_config, load_config

    config = load_config(Path(config_path), named_by_user=True) if config_path else load_config(find_config(Path.cwd()))
    # flags over the config; a wrong name or value: one usage error before any analysis
    config.limits = checked_limits({**config.limits, **checked_limits(limits)})
    return config
