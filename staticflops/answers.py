"""The results cache of ``staticflops analyze FILE`` (a ``.py`` model file, a Hugging Face
``config.json`` or hub snapshot), in two kinds of signed record, each with everything its
content depends on:

* ``analyze-<hash>.json``, what a command printed (stdout, stderr, exit status), filed under
  the command line exactly as given and the output setting (verdicts.output_setting: terminal
  or not, its size, encoding and the variables rich reads): the console script prints it
  again without importing the analyser (libcst), pydantic, rich or typer (cli/entry.py), as
  ``check``'s fast path (verdicts.py) does for ``check``;
* ``report-<hash>.json``, an analysis' report (its JSON data), filed under the analysis'
  options (everything but how it is printed): the full command with other output options
  (``--format``, ``--depth``, ``--output``...) prints it without analysing.

Both names also hash the working folder (paths are printed relative to it and relative
arguments are read from it), the environment's prefixes and site folders (where third-party
imports are read from by default), the home folder (``~`` in a path) and this staticflops
build (``engine_fingerprint``: its code and rule files).  A record holds up to
ANSWERS_PER_COMMAND answers (the working tree and a few branches), each with what the
analysis found on disk (files.ReadLog): every read and regular-file check with its outcome
(the bytes' SHA-256, "a file", or why it failed: a path probed and found missing is a
dependency too), the kind of every path the analysed code asked about (``os.path.exists``),
and the listing of every folder third-party imports looked in (a module installed there
changes what an import finds).  Single-file ``analyze`` reads the disk directly (its
parsed-module cache and project root depend on that), so its reads are logged where every
read happens, in ``files.py``, rather than through a recording reader as folder mode's and
``check``'s entries (project/cache.py) are.

An answer is used only when every logged call, done again, has the same outcome (hashing,
never parsing; a file whose stamp is unchanged since a settled read is not even hashed).
Nothing is kept after an analysis error, an internal error or a partial report (a budget
stopped it), nor with ``--no-cache`` (a fresh analysis), ``--python`` (that environment's
folders are found with a glob, which the log does not replay) or an analysis whose code
called ``glob``; a printed answer not with ``--output`` (a file is written).

Trust: the records live in the analysed project's cache folder (``<project root>/
.staticflops_cache``, where the parsed-module cache keeps its trees: ``files.project_root``
of the analysed path), which a pull request controls; so they are signed with this user's
secret (their own domain), reached with ``O_NOFOLLOW`` and read regular and bounded
(cachefolder.py), and must name the very subject, kind and working folder they are filed under.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from staticflops.cachefolder import (
    SUPPORTED, LinkInTheWay, engine_fingerprint, folder_listing, open_folder, read_entry, sign, signed_payload,
    user_secret, write_entry,
)
from staticflops.files import kind as _kind, outcome_now, project_root, stamp
from staticflops.verdicts import output_setting

FORMAT = 1
DOMAIN = b"analyze-answer\n"  # a results entry, a check record or a parsed tree never passes for one
MAX_RECORD_BYTES = 64 * 1024 * 1024  # a report of a few thousand layers is a few MB in any format
ANSWER, REPORT = "analyze", "report"  # the two kinds of record: what a command printed; a report
ANSWERS_PER_COMMAND = 4  # e.g. the working tree and a few other branches of the same model
CACHE_FOLDER = (".staticflops_cache",)  # as folder mode's results and the parsed-module cache
# analyze's options that take a value, and its flags; --output and --no-cache are the full
# command's (a file to write, a fresh analysis), as is --python (the other environment's site
# folders are found by globbing its lib/ folder, which the log does not replay) and anything
# else (--help, -fjson...).
_VALUED = frozenset({"--model", "-m", "--kwargs", "--input", "-i", "--rules", "-r", "--format", "-f", "--depth",
                     "--freeze", "--steps", "--hardware", "--precision", "--mfu", "--peak-tflops", "--batch", "--dtype",
                     "--jobs", "-j", "--source-path", "--env", "--keyword-input"})
_FLAGS = frozenset({"--training", "--exact", "--by-type", "--expand", "--strict", "--debug"})


def analysed_path(argv: list) -> str | None:
    """The one PATH of ``analyze ARGV`` when every option is one the fast path knows, else None."""
    paths = []
    items = list(argv)
    while items:
        item = items.pop(0)
        if item == "--":
            paths.extend(items)
            break
        name, equals, _ = item.partition("=")
        if item in _VALUED or item.startswith("--max-"):  # its value follows
            if not items:
                return None
            items.pop(0)
        elif equals and name.startswith("--") and (name in _VALUED or name.startswith("--max-")):
            continue  # --name=value
        elif item in _FLAGS:
            continue
        elif item.startswith("-") and item != "-":
            return None
        else:
            paths.append(item)
    return paths[0] if len(paths) == 1 else None


def record_name(kind: str, subject) -> str:
    """The file of the records of ``subject`` (a command line, or an analysis' options) here:
    in this working folder, environment and build; a printed answer also in this output setting."""
    identity = {"kind": kind, "subject": subject, "cwd": os.getcwd(), "python": _environment(),
                "home": os.path.expanduser("~"), "setting": _setting() if kind == ANSWER else None}
    text = json.dumps(identity, sort_keys=True)
    return f"{kind}-" + hashlib.sha256(f"{FORMAT}\0{engine_fingerprint()}\0{text}".encode()).hexdigest()[:32] + ".json"


def _environment() -> list:
    """What decides the default folders third-party imports are read from
    (libraries._own_site_packages): this environment's prefixes and site folders."""
    import site

    user = site.USER_SITE if site.ENABLE_USER_SITE else None
    folders = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    return [sys.prefix, sys.exec_prefix, sys.base_prefix, list(sys.version_info[:2]), user,
            bool(user) and os.path.isdir(user), folders]


def _setting() -> dict:
    setting = output_setting("", False)
    try:
        setting["stderr_tty"] = sys.stderr.isatty()
    except (AttributeError, ValueError, OSError):
        setting["stderr_tty"] = False
    return setting


# --- written by the full command ----------------------------------------------------------------

def dependencies(log, folders) -> dict | None:
    """What an analysis' result depends on, from its files.ReadLog and the folders its
    third-party imports searched (libraries.LibraryReads.folders); None: not to be kept."""
    if log.unrecordable:
        return None
    reads = [[name, None if roots is None else list(roots), limit, outcome]
             for (name, roots, limit), outcome in log.outcomes.items()]
    listings = {folder: folder_listing(folder) for folder in sorted(str(f) for f in folders)}
    return {"reads": reads, "stamps": dict(log.stamps), "paths": dict(log.paths), "listings": listings}


def write_answer(argv: list, path: str, depends: dict, stdout: str, stderr: str, status: int) -> None:
    """Keep what ``analyze ARGV`` printed (``path``: its PATH)."""
    _store(path, ANSWER, list(argv), {**depends, "stdout": stdout, "stderr": stderr, "status": status})


def keep_report(path: str, request: dict, depends: dict, report: dict) -> None:
    """Keep the report (as JSON data) of an analysis of ``path`` with the options ``request``."""
    _store(path, REPORT, request, {**depends, "report": report})


def cached_report(path: str, request: dict) -> tuple[dict, dict] | None:
    """(report as JSON data, what it depends on) of an analysis with the options ``request``
    when nothing it depends on changed, else None."""
    try:
        for answer in _answers(path, REPORT, request):
            if _unchanged(answer):
                return answer["report"], {field: answer[field] for field in _DEPENDS}
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError):
        pass
    return None


def _store(path: str, kind: str, subject, answer: dict) -> None:
    """Add ``answer`` to the record of ``subject`` (those with other dependencies are kept, the
    newest first, up to ANSWERS_PER_COMMAND)."""
    if not SUPPORTED or user_secret() is None:
        return
    answers = [answer] + [a for a in _answers(path, kind, subject)
                          if [a[f] for f in _DEPENDS] != [answer[f] for f in _DEPENDS]]
    name = record_name(kind, subject)
    payload = json.dumps({"format": FORMAT, "kind": kind, "subject": _digest(subject), "cwd": os.getcwd(),
                          "answers": answers[:ANSWERS_PER_COMMAND]}).encode()
    if len(payload) > MAX_RECORD_BYTES:
        return
    try:
        folder = open_folder(project_root(path), CACHE_FOLDER, create=True)
    except (LinkInTheWay, OSError):
        return  # a link in the way: no record (the parsed-module cache is off there too)
    if folder is not None:
        write_entry(folder, name, sign(DOMAIN, name, payload) + b"\n" + payload, "results cache")


# --- read by the fast path ----------------------------------------------------------------------

def fast_analyze(argv: list) -> tuple[str, str, int] | None:
    """(stdout, stderr, exit status) of ``staticflops analyze ARGV`` when its record shows that
    nothing it depends on changed; None: run the full command."""
    path = analysed_path(argv)
    if path is None or not SUPPORTED:
        return None
    try:
        for answer in _answers(path, ANSWER, list(argv)):
            if _unchanged(answer):
                return answer["stdout"], answer["stderr"], answer["status"]
        return None
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError):
        return None  # anything unexpected: the full command decides (and reports)


def _answers(path: str, kind: str, subject) -> list:
    """The well-formed answers of the record of ``subject``, when it is signed by this user and
    names this very subject, kind and working folder; else none."""
    name = record_name(kind, subject)
    try:
        folder = open_folder(project_root(path), CACHE_FOLDER, create=False)
    except LinkInTheWay:
        return []
    if folder is None:
        return []
    payload = signed_payload(DOMAIN, name, read_entry(folder, name, MAX_RECORD_BYTES))  # read_entry closes it
    if payload is None:
        return []
    try:
        record = json.loads(payload)
    except (ValueError, RecursionError):
        return []
    if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("kind") != kind \
            or record.get("subject") != _digest(subject) or record.get("cwd") != os.getcwd() \
            or not isinstance(record.get("answers"), list):
        return []
    return [a for a in record["answers"] if _well_formed(a, kind)]


def _digest(subject) -> str:
    """The subject as the record names it: hashed, as the command line may hold a secret
    (``--env TOKEN=...``) and the cache folder may be uploaded with a CI cache."""
    return hashlib.sha256(json.dumps(subject, sort_keys=True).encode()).hexdigest()


_DEPENDS = ("reads", "stamps", "paths", "listings")
_FIELDS = {ANSWER: (("stdout", str), ("stderr", str), ("status", int)), REPORT: (("report", dict),)}


def _well_formed(answer, kind: str) -> bool:
    """Every field there with its type (a record is signed, so only a bug of ours breaks this)."""
    return isinstance(answer, dict) and all(type(answer.get(field)) is kind_ for field, kind_ in _FIELDS[kind]) \
        and all(isinstance(answer.get(field), kind_) for field, kind_ in
                (("reads", list), ("stamps", dict), ("paths", dict), ("listings", dict)))


def _unchanged(answer: dict) -> bool:
    """Whether every logged read, check, path question and folder listing has its outcome."""
    stamps = answer["stamps"]
    for name, roots, limit, outcome in answer["reads"]:
        if limit is not None and name in stamps and stamp(name) == stamps[name]:
            continue  # not written since it was read (settled): its bytes are the ones hashed
        if outcome_now(name, roots, limit) != outcome:
            return False
    for absolute, (real, kind) in answer["paths"].items():
        if os.path.realpath(absolute) != real:
            return False
        if not (isinstance(kind, str) and kind.startswith("refused")) and _kind(absolute) != kind:
            return False  # (a FIFO the analysed code saw as nothing is "other" now: analysed again)
    return all(folder_listing(folder) == digest for folder, digest in answer["listings"].items())
