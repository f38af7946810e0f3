"""The no-op fast path of ``staticflops check`` (and so of the pre-commit hook): a signed record
of what a check printed and of everything that output depended on, so that a later ``check``
with nothing changed prints it again without importing the analyser (libcst), pydantic, rich
or typer.

The full ``check`` writes the record into the results cache's folder, next to the entries it
used, as ``check-<key>.json``; the key is this staticflops build (``engine_fingerprint``) and
the config file's path.  A record holds:

* the config file's SHA-256 (its models, budgets, rules, limits, cache folder: all of it);
* each model's files for choosing the models a change affects (its own file and every file
  its cached analyses read: what ``check PATHS`` selects by), and what its verdict depends on:
  the SHA-256 of every project file its analysis read (None: looked for and missing), of every
  rule file and third-party module it read, and the listing of every folder its imports
  searched (a package installed there) — the fields of its results-cache entry;
* the stamp (inode, size, mtime_ns) of each model's results-cache entry file: the full path
  selects models by what those files say, and a rewrite replaces the file (a new inode);
* the printed text and exit status of a check, per output setting (format, ``--exact``, the
  working folder, whether stdout is a terminal and its size, the variables rich reads) and set
  of models checked.  The text is that of a run where every model came from the cache, which
  is what the full path prints once the results are stored.

The fast path re-hashes those files (never parses them) and prints the text only when every
one is as recorded; anything else, a missing or unreadable record, or any option it does not
know (``--no-cache``, ``--max-*``, ``--debug``...), falls back to the full ``check``.  A budget
overrun is never recorded: naming the layers that grew reads git history, which the record
does not cover; nor is an analysis error (the full path analyses those again every time).

Trust: the record lives in a folder the pull request controls, so it is signed like the
results cache's entries (HMAC-SHA256 with this user's secret, its own domain), reached
with ``O_NOFOLLOW`` from the project root and read regular and bounded (cachefolder.py).
The config is found and read as the full path does (files.config_in, confined, bounded).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path, PurePosixPath

from staticflops.cachefolder import (
    SUPPORTED, LinkInTheWay, engine_fingerprint, file_stamp, folder_listing, open_folder, read_entry, sign,
    signed_payload, user_secret, write_entry,
)
from staticflops.files import MAX_CONFIG_BYTES, config_in, read_file

FORMAT = 1
DOMAIN = b"check-verdict\n"  # a results entry or a parsed tree never passes for a record
MAX_RECORD_BYTES = 16 * 1024 * 1024
MAX_RENDERINGS = 8  # output settings x model selections kept per config
MAX_DEPENDENCY_BYTES = 64 * 1024 * 1024  # as project/cache.py
DEFAULT_CACHE_DIR = ".staticflops_cache"
NO_MODEL = "staticflops check: no configured model reads the given files\n"
# Environment variables rich and click read when they lay out and colour the table.
_OUTPUT_VARIABLES = ("COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE",
                     "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES", "CLICOLOR", "CLICOLOR_FORCE")
_FORMATS = ("table", "json", "markdown")
_LONG_WITH_VALUE = ("--format", "--config", "--jobs")  # --name=value (a short -fjson: the full path)


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record_name(config_file: Path) -> str:
    key = hashlib.sha256(f"{FORMAT}\0{engine_fingerprint()}\0{config_file}".encode()).hexdigest()[:32]
    return f"check-{key}.json"


def output_setting(output_format: str, exact: bool) -> dict:
    """Everything the printed text depends on besides the result."""
    stdout = sys.stdout
    try:
        tty = stdout.isatty()
    except (AttributeError, ValueError, OSError):
        tty = False
    size = None
    if tty:
        for descriptor in (0, 1, 2):  # where rich looks for the terminal's size
            try:
                size = list(os.get_terminal_size(descriptor))
                break
            except OSError:
                continue
    return {"format": output_format, "exact": bool(exact), "cwd": os.getcwd(), "tty": tty, "size": size,
            "encoding": str(getattr(stdout, "encoding", None)),
            "env": {name: os.environ.get(name) for name in _OUTPUT_VARIABLES}}


# --- written by the full check ---------------------------------------------------------------

def write_record(dependencies: dict, rendering: dict | None) -> None:
    """Store a check's record (``dependencies``: project.verdict_dependencies) with
    ``rendering`` ({"setting", "selected", "stdout", "status"}) added to the ones still valid."""
    root, parts = Path(dependencies["root"]), tuple(dependencies["cache_parts"])
    name = record_name(Path(dependencies["config"][0]))
    body = {key: dependencies[key] for key in ("config", "cache_dir", "entries", "models")}
    renderings = []
    old = _read_record(root, parts, name)
    if old is not None and {key: old.get(key) for key in body} == body:
        renderings = [r for r in old.get("renderings", [])
                      if rendering is None or (r.get("setting"), r.get("selected")) !=
                      (rendering["setting"], rendering["selected"])]
    if rendering is not None:
        renderings.insert(0, rendering)
    payload = json.dumps({"format": FORMAT, **body, "renderings": renderings[:MAX_RENDERINGS]}).encode()
    if len(payload) > MAX_RECORD_BYTES or not SUPPORTED or user_secret() is None:
        return
    try:
        folder = open_folder(root, parts, create=True)
    except LinkInTheWay:
        return
    if folder is not None:
        write_entry(folder, name, sign(DOMAIN, name, payload) + b"\n" + payload, "results cache")


def _existing_folder(root: Path, parts: tuple) -> int | None:
    """The cache folder's descriptor, None when it is missing or a link is in the way (then the
    full path decides, and says why)."""
    try:
        return open_folder(root, parts, create=False)
    except LinkInTheWay:
        return None


def _read_record(root: Path, parts: tuple, name: str) -> dict | None:
    folder = _existing_folder(root, parts)
    if folder is None:
        return None
    payload = signed_payload(DOMAIN, name, read_entry(folder, name, MAX_RECORD_BYTES))  # read_entry closes it
    if payload is None:
        return None
    try:
        record = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) and record.get("format") == FORMAT else None


# --- read by the fast path -------------------------------------------------------------------

def fast_check(argv: list) -> tuple[str, int] | None:
    """(text to print, exit status) of ``staticflops check ARGV`` when a record shows that
    nothing it depends on changed; None: run the full check."""
    options = _parse(argv)
    if options is None or not SUPPORTED:
        return None
    try:
        return _verdict(*options)
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError):
        return None  # anything unexpected: the full path decides (and reports)


def _parse(argv: list):
    """(format, exact, config, paths) from the options the fast path knows, else None."""
    output_format, exact, config, paths = "table", False, None, []
    items = list(argv)
    while items:
        item = items.pop(0)
        if item == "--":
            paths.extend(items)
            break
        name, equals, value = item.partition("=")
        if item in ("--format", "-f", "--config", "-c", "--jobs", "-j") or (equals and name in _LONG_WITH_VALUE):
            if not equals:
                if not items:
                    return None
                value = items.pop(0)
            if name in ("--format", "-f"):
                if value not in _FORMATS:
                    return None
                output_format = value
            elif name in ("--config", "-c"):
                config = value
            elif not (value.isascii() and value.isdigit() and int(value) >= 1):
                return None
        elif item == "--exact":
            exact = True
        elif item.startswith("-") and item != "-":
            return None  # --no-cache, --debug, --max-*, --help, a short option cluster: the full path
        else:
            paths.append(item)
    return output_format, exact, config, paths


def _verdict(output_format: str, exact: bool, config_arg: str | None, paths: list):
    if config_arg is not None:  # named by the user: read wherever it is (as load_config)
        config_file, roots = Path(config_arg), None
    else:
        config_file = _find_config(Path.cwd())
        if config_file is None:
            return None
        roots = (config_file.parent,)
    text = read_file(config_file, roots, MAX_CONFIG_BYTES)
    resolved = config_file.resolve()
    root, name, digest = resolved.parent, record_name(resolved), content_hash(text)
    for cache_dir in _cache_dirs(text):
        parts = tuple(p for p in PurePosixPath(cache_dir.replace("\\", "/")).parts if p != ".")
        record = _read_record(root, parts, name)
        if record is not None and record["config"] == [str(resolved), digest] and record["cache_dir"] == cache_dir:
            break
    else:
        return None
    if not _entries_unchanged(root, parts, record["entries"]):
        return None
    models = record["models"]
    selected = _selected(models, resolved, paths)
    if not selected:
        return NO_MODEL, 0
    setting, chosen = output_setting(output_format, exact), sorted(selected)
    rendering = next((r for r in record["renderings"] if r["setting"] == setting and r["selected"] == chosen), None)
    if rendering is None or not all(_unchanged(root, models[name]) for name in chosen):
        return None
    return rendering["stdout"], int(rendering["status"])


def _find_config(start: Path) -> Path | None:
    """As project.config.find_config (the nearest folder at or above ``start`` with one)."""
    start = start.resolve()
    for directory in (start, *start.parents):
        found = config_in(directory)
        if found is not None:
            return found
    return None


# ``cache_dir = "x"`` (TOML) or ``cache_dir: x`` (YAML) on a line of its own.
_CACHE_DIR_LINE = re.compile(r"^[ \t]*cache_dir[ \t]*[:=][ \t]*(['\"]?)([^'\"#\r\n]*?)\1[ \t]*(?:#.*)?$", re.MULTILINE)
MAX_GUESSES = 4


def _cache_dirs(text: bytes) -> list:
    """Where the config's ``cache_dir`` may be, guessed from its lines without a TOML or YAML
    parser (importing one would cost more than the whole fast path): each ``cache_dir`` line's
    value, then the default.  A wrong guess only looks in a wrong folder of the project: the
    record found there must name this config's hash and that very folder, which only a full
    check of this config (so with its real cache folder) writes."""
    guesses = [match.group(2) for match in _CACHE_DIR_LINE.finditer(text.decode("utf-8"))][:MAX_GUESSES]
    guesses.append(DEFAULT_CACHE_DIR)
    return [value for value in dict.fromkeys(guesses) if _inside_root(value)]


def _inside_root(value: str) -> bool:
    """As project.cache.cache_folder_problem: a folder strictly inside the root."""
    path = PurePosixPath(value.replace("\\", "/"))
    return bool(value) and "\0" not in value and not path.is_absolute() and not re.match(r"^[A-Za-z]:", value) \
        and ".." not in path.parts and any(part != "." for part in path.parts)


def _entries_unchanged(root: Path, parts: tuple, entries: dict) -> bool:
    folder = _existing_folder(root, parts)
    if folder is None:
        return False
    try:
        return all(_stamp(folder, name) == stamp for name, stamp in entries.items())
    finally:
        os.close(folder)


def entry_stamp(root: Path, parts: tuple, name: str) -> list | None:
    """(inode, size, mtime_ns) of a results-cache entry file, None when absent."""
    folder = _existing_folder(root, parts)
    if folder is None:
        return None
    try:
        return _stamp(folder, name)
    finally:
        os.close(folder)


def _stamp(folder: int, name: str) -> list | None:
    try:
        status = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return None
    return [status.st_ino, status.st_size, status.st_mtime_ns]


def _selected(models: dict, config_file: Path, paths: list) -> list:
    """As project.check.select_models: every model without paths or when the config is among
    them; else those whose own file or a file their analyses read is among them."""
    if not paths:
        return list(models)
    given = {Path(p).resolve() for p in paths}
    if config_file in given:
        return list(models)
    return [name for name, model in models.items() if {Path(f).resolve() for f in model["files"]} & given]


def _unchanged(root: Path, model: dict) -> bool:
    """Whether every file and folder the model's verdict depends on is as recorded."""
    if "sources" not in model:
        return False
    for path, digest in model["sources"].items():
        try:
            found = content_hash(read_file(root / path, (root,)))  # as DiskReader: confined, regular, bounded
        except OSError:
            found = None
        if found != digest:
            return False
    stamps = model.get("stamps", {})
    for path, digest in model["disk"].items():
        if path in stamps and file_stamp(path) == stamps[path]:
            continue  # a library file not written since its bytes were hashed (cachefolder.file_stamp)
        try:
            if content_hash(read_file(path, max_bytes=MAX_DEPENDENCY_BYTES)) != digest:
                return False
        except OSError:
            return False
    return all(folder_listing(folder) == digest for folder, digest in model["listings"].items())
