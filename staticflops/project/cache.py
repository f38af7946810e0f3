"""On-disk results, valid while every file the analysis read, or looked for and did not
find, is as it was.

An entry is keyed by the request (file, model, inputs, kwargs, rules, options) and this
staticflops build; it records the hash of each file read and, as None, each path an import
probed and found missing (a file appearing there changes the result); outside the project,
the hash of each rule file and third-party module read, and the listing of each folder
third-party imports searched (a package installed or removed there changes the result).  A lookup re-reads
those paths (hashing, never parsing), so a repeated ``check`` with nothing changed parses
nothing.

A pull request controls the checkout, the cache folder included, so nothing in that folder
is trusted by where it is:

* Each file is signed (HMAC-SHA256) with a secret of this user on this machine, kept outside
  the project in staticflops' user cache folder (``STATICFLOPS_CACHE_DIR``, default
  ``~/.cache/staticflops``): a committed or restored entry cannot carry a valid signature,
  whatever its key.  Unlike "refuse cache folders with tracked files" this also holds for
  checkouts that are not git clones and for caches restored by CI from another run.  No
  secret (that folder unusable) means no results cache: slower, never wrong.
* Each entry must validate on its own: every field present with the right type and the
  analysed file itself among its sources; anything else is a miss.
* The folder must be a real folder under the project root: every component is opened with
  ``O_NOFOLLOW``, files are created with ``O_EXCL``, and a cache folder that is (or lies
  under) a symbolic link is not used at all, with a warning: the cache only saves time, so
  switching it off costs a pull request nothing it could want, and a user who linked it
  somewhere on purpose learns why runs got slower.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path, PurePosixPath

from staticflops.cachefolder import (
    DIGEST as _DIGEST, SUPPORTED, LinkInTheWay, engine_fingerprint, file_stamp, folder_listing, open_folder,
    read_entry, sign, signed_payload, user_secret, write_entry,
)
from staticflops.files import read_file
from staticflops.report.escape import visible
from staticflops.project.sources import content_hash

ENTRIES_PER_KEY = 4  # e.g. the working tree and a few base revisions of the same model
MAX_CACHE_FILE_BYTES = 64 * 1024 * 1024  # reports of a few thousand layers are ~1 MB each
# A file outside the project an entry depends on (a rule file, a library module: the paths come
# from our own signed entry) is hashed up to this size; a bigger one is a miss.
MAX_DEPENDENCY_BYTES = 64 * 1024 * 1024
LISTINGS = "<folders searched>"  # the key of an analysis' folder listings among its disk files (never a path)
STAMPS = "<library stamps>"  # ... and of its library files' stamps (cachefolder.file_stamp)


def cache_folder_problem(relative: str) -> str | None:
    """Why ``relative`` cannot be a cache folder under the project root, or None: it must name
    a folder strictly inside the root (not absolute, no ``..``, not the root itself)."""
    if "\0" in relative:
        return "must not contain a NUL character"
    path = PurePosixPath(relative.replace("\\", "/"))
    if path.is_absolute() or re.match(r"^[A-Za-z]:", relative):
        return f"must be a folder inside the project root, not an absolute path ({relative!r})"
    if ".." in path.parts:
        return f"must stay inside the project root: {relative!r} climbs out with '..'"
    if not [part for part in path.parts if part != "."]:
        return "must name a folder inside the project root, not the root itself (it would git-ignore everything)"
    return None


class ResultCache:
    def __init__(self, root: Path | None, relative: str = ".staticflops_cache"):
        """The cache folder ``root/relative``; ``root`` None: caching off."""
        self.root = root
        self.parts = [p for p in PurePosixPath(relative.replace("\\", "/")).parts if p != "."]
        if root is not None and (not SUPPORTED or cache_folder_problem(relative) or user_secret() is None):
            self.root = None

    @property
    def directory(self) -> Path | None:
        return None if self.root is None else self.root.joinpath(*self.parts)

    def key(self, request: dict) -> str:
        text = json.dumps({"request": request, "engine": engine_fingerprint()}, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def lookup(self, key: str, reader, analysed: str) -> dict | None:
        """A valid entry for ``key`` whose recorded files (``analysed`` among them) are unchanged."""
        for entry in self._entries(key, analysed):
            if self._still_valid(entry, reader):
                return entry
        return None

    def recorded_sources(self, key: str, analysed: str) -> set:
        """Every path an earlier analysis under ``key`` read or probed (no content check):
        which files a model depends on, a missing import included."""
        return {path for entry in self._entries(key, analysed) for path in entry["sources"]}

    def store(self, key: str, analysed: str, sources: dict, disk_files: dict, report: dict) -> None:
        """``disk_files``: files outside the project (rule files, library source) by absolute
        path, and under the key LISTINGS the folders imports searched (folder_listing)."""
        disk_files = dict(disk_files)
        listings, stamps = disk_files.pop(LISTINGS, None), disk_files.pop(STAMPS, None)
        entry = {"sources": sources, "disk": disk_files, "report": report}
        if listings:
            entry["listings"] = listings
        if stamps:
            entry["stamps"] = stamps
        if self.root is None or not _well_formed(entry, analysed):
            return
        entries = [entry] + [e for e in self._entries(key, analysed)
                             if (e["sources"], e["disk"], e.get("listings")) != (sources, disk_files, listings or None)]
        payload = json.dumps(entries[:ENTRIES_PER_KEY]).encode()
        folder = self._open_folder(create=True)
        if folder is not None:
            write_entry(folder, f"{key}.json", _sign(key, payload) + b"\n" + payload, "results cache")

    def _entries(self, key: str, analysed: str) -> list:
        """The well-formed entries of a correctly signed file for ``key``."""
        folder = self._open_folder(create=False)
        payload = signed_payload(b"", key, None if folder is None else read_entry(folder, f"{key}.json",
                                                                                  MAX_CACHE_FILE_BYTES))
        if payload is None:
            return []
        try:
            entries = json.loads(payload)
        except (ValueError, RecursionError):
            return []
        return [e for e in entries if _well_formed(e, analysed)] if isinstance(entries, list) else []

    def _open_folder(self, create: bool) -> int | None:
        """The cache folder's descriptor (cachefolder.open_folder); a link on the way turns
        the cache off with a warning."""
        if self.root is None:
            return None
        try:
            return open_folder(self.root, tuple(self.parts), create)
        except LinkInTheWay as link:
            self._refuse(link.path)
            return None

    def _refuse(self, path: Path) -> None:
        _warn_once(f"staticflops: warning: {visible(path)} is a symbolic link or not a folder: the results cache is off "
                   "(a cache folder is never followed out of the project)")
        self.root = None

    @staticmethod
    def _still_valid(entry: dict, reader) -> bool:
        try:
            for path, digest in entry["sources"].items():
                try:
                    found = content_hash(reader(path))
                except OSError:
                    found = None  # looked for and missing then: still valid only while still missing
                if found != digest:
                    return False
            stamps = entry.get("stamps", {})
            for path, digest in entry["disk"].items():
                if path in stamps and file_stamp(path) == stamps[path]:
                    continue  # a library file not written since its bytes were hashed
                if content_hash(read_file(path, max_bytes=MAX_DEPENDENCY_BYTES)) != digest:  # regular, bounded
                    return False
            for folder, digest in entry.get("listings", {}).items():
                if folder_listing(folder) != digest:
                    return False
        except OSError:
            return False
        return True


def _well_formed(entry, analysed: str) -> bool:
    """Self-validating: every field there with its type, and the analysed file among the
    sources with its content hash (an entry without sources would be valid for any content)."""
    if not isinstance(entry, dict) or set(entry) - {"listings", "stamps"} != {"sources", "disk", "report"}:
        return False
    stamps = entry.get("stamps", {})
    if not isinstance(stamps, dict) or not all(
            isinstance(p, str) and isinstance(v, list) and len(v) == 4 and all(type(n) is int for n in v)
            for p, v in stamps.items()):
        return False
    listings = entry.get("listings", {})
    if not isinstance(listings, dict) or not all(isinstance(p, str) and isinstance(d, str) and _DIGEST.fullmatch(d)
                                                 for p, d in listings.items()):
        return False
    sources, disk = entry["sources"], entry["disk"]
    if not isinstance(sources, dict) or not isinstance(disk, dict) or not isinstance(entry["report"], dict):
        return False
    if not all(isinstance(p, str) and (d is None or isinstance(d, str) and _DIGEST.fullmatch(d))
               for p, d in sources.items()):
        return False
    if not all(isinstance(p, str) and isinstance(d, str) and _DIGEST.fullmatch(d) for p, d in disk.items()):
        return False
    return isinstance(sources.get(analysed), str)


def _sign(key: str, payload: bytes) -> bytes:
    return sign(b"", key, payload)


_WARNED: set = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        print(message, file=sys.stderr)
