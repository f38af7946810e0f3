"""On-disk results, valid while every file the analysis read still has the same content.

An entry is keyed by the request (file, model, inputs, kwargs, rules, options) and this
staticflops build; it records the hash of each file read.  A lookup re-hashes those files
(reading, never parsing), so a repeated ``check`` with nothing changed parses nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

from staticflops.files import read_file
from staticflops.project.sources import content_hash
from staticflops.rulesets.loader import MAX_RULE_FILE_BYTES

ENTRIES_PER_KEY = 4  # e.g. the working tree and a few base revisions of the same model
MAX_ENTRY_BYTES = 256_000_000  # ~400 bytes per traced layer: four reports of 100,000 ops (--max-ops) ~160 MB


class ResultCache:
    def __init__(self, directory: Path | None):
        self.directory = directory  # None: caching off

    def key(self, request: dict) -> str:
        text = json.dumps({"request": request, "engine": engine_fingerprint()}, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def lookup(self, key: str, reader) -> dict | None:
        for entry in self._entries(key):
            if self._still_valid(entry, reader):
                return entry
        return None

    def recorded_sources(self, key: str) -> set:
        """Every file an earlier analysis under ``key`` read (no validation): which files a model imports."""
        return {path for entry in self._entries(key) if isinstance(entry, dict) for path in entry.get("sources", {})}

    def store(self, key: str, sources: dict, disk_files: dict, report: dict) -> None:
        if self.directory is None:
            return
        entry = {"sources": sources, "disk": disk_files, "report": report}
        entries = [entry] + [e for e in self._entries(key) if (e["sources"], e["disk"]) != (sources, disk_files)]
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by staticflops: results cache, safe to delete\n*\n")
            temporary = self.directory / f"{key}.{os.getpid()}.tmp"
            temporary.write_text(json.dumps(entries[:ENTRIES_PER_KEY]))
            temporary.replace(self.directory / f"{key}.json")  # atomic: parallel runs never see half a file
        except OSError:
            pass  # a read-only checkout still works, only slower

    def _entries(self, key: str) -> list:
        if self.directory is None:
            return []
        try:
            entries = json.loads(read_file(self.directory / f"{key}.json", max_bytes=MAX_ENTRY_BYTES))  # regular, bounded
        except (OSError, ValueError):
            return []
        return entries if isinstance(entries, list) else []

    @staticmethod
    def _still_valid(entry: dict, reader) -> bool:
        try:
            for path, digest in entry["sources"].items():
                if content_hash(reader(path)) != digest:
                    return False
            for path, digest in entry["disk"].items():
                if content_hash(read_file(path, max_bytes=MAX_RULE_FILE_BYTES)) != digest:  # regular, bounded
                    return False
        except (OSError, KeyError, TypeError, AttributeError):
            return False
        return "report" in entry


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """Our version plus the size and mtime of every module of the package: an upgrade or an
    edited checkout invalidates every entry."""
    import staticflops

    package = Path(staticflops.__file__).resolve().parent
    stats = []
    for path in sorted(p for p in package.rglob("*") if p.suffix in (".py", ".pyi", ".yaml")):
        status = path.stat()
        stats.append(f"{path.relative_to(package)}:{status.st_size}:{status.st_mtime_ns}")
    return hashlib.sha256("\n".join([staticflops.__version__, *stats]).encode()).hexdigest()[:16]
