"""Shared by the construction-memo and apply-memo tests: analyse a source defining ``Net``, and
force the memo to reuse what it would normally refuse (to show that a wrong reuse is caught)."""

import staticflops
from staticflops.frontend.construction_memo import ConstructionMemo


def analyse(tmp_path, text, shape="1x4"):
    path = tmp_path / "model.py"
    path.write_text(text)
    return staticflops.analyze(path, model="Net", inputs=[shape])


def force_reuse(monkeypatch):
    monkeypatch.setattr(ConstructionMemo, "force", True)
