"""Published wheels the library tests read (timm, diffusers, ultralytics, vit-pytorch,
transformers): not ours to commit, so each is downloaded once with ``pip download --no-deps``
into pytest's cache folder (a temporary one when the cache plugin is off) and unpacked there.
Without network the test is skipped, saying which download failed and why."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest


def cache_folder(request, tmp_path_factory, name: str) -> Path:
    cache = getattr(request.config, "cache", None)
    return Path(cache.mkdir(name)) if cache is not None else tmp_path_factory.mktemp(name)


def wheel(folder: Path, project: str, version: str) -> Path:
    """``project==version``'s wheel in ``folder``, downloaded unless it is already there."""
    stem = project.replace("-", "_")  # wheel file names spell the project with underscores
    wheels = sorted(folder.glob(f"{stem}-{version}-*.whl"))
    if not wheels:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"{project}=={version}",
                               "-d", str(folder)], capture_output=True, text=True)
        wheels = sorted(folder.glob(f"{stem}-{version}-*.whl"))
        if done.returncode != 0 or not wheels:
            pytest.skip(f"cannot download {project}=={version} from PyPI: {done.stderr.strip()[-200:]}")
    return wheels[0]


def unpack(archive_path: Path, target: Path, prefix: str = "", suffix: str = "") -> None:
    """The wheel's members whose name starts with ``prefix`` (a package folder ``pkg/`` or one
    file) and ends with ``suffix`` (``.py``: not the compiled extensions), extracted under ``target``."""
    with zipfile.ZipFile(archive_path) as archive:
        archive.extractall(target, [name for name in archive.namelist()
                                    if name.startswith(prefix) and name.endswith(suffix)])


def unpacked(request, tmp_path_factory, project: str, version: str, prefix: str, *,
             folder: str | None = None, under: str = "", suffix: str = "") -> Path:
    """The folder (``<cache>/<folder>/<under>``) holding ``prefix`` of ``project==version``'s wheel:
    downloaded and unpacked on first use, reused afterwards."""
    root = cache_folder(request, tmp_path_factory, folder or f"{project}-{version}")
    target = root / under if under else root
    if not (target / prefix).exists():
        unpack(wheel(root, project, version), target, prefix, suffix)
    return target


def unpacked_side_by_side(request, tmp_path_factory, prefix: str, packages: dict) -> Path:
    """One folder holding the package folder of each ``name: version`` (as a site-packages
    would), named ``prefix-name1version1-...``: downloaded and unpacked on first use."""
    name = prefix + "-" + "-".join(f"{package}{version}" for package, version in packages.items())
    folder = None
    for package, version in packages.items():
        folder = unpacked(request, tmp_path_factory, package, version, f"{package}/", folder=name)
    return folder
