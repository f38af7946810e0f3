"""Wheel build hook: compile the built-in rule sets (rules/*.yaml) into the wheel, so that an
installed staticflops neither reads their YAML at start-up nor writes a compiled copy anywhere
(staticflops/rulesets/prebuilt.py).  It runs the package's own rule-file loader from this
source tree, which needs only PyYAML and pydantic (build-system.requires).  An editable
install gets no copy: its rule files may change, so they are read as YAML."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CompiledRules(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        self._folder = Path(tempfile.mkdtemp(prefix="staticflops-rules-"))
        sys.path.insert(0, self.root)
        try:
            from staticflops.rulesets.loader import compile_builtin
            from staticflops.rulesets.prebuilt import FOLDER

            for path in compile_builtin(self._folder):
                build_data["force_include"][str(path)] = f"staticflops/rules_data/{FOLDER}/{path.name}"
        finally:
            sys.path.remove(self.root)

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        folder = getattr(self, "_folder", None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
