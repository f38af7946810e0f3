import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GROUND_TRUTH = ROOT / "tests" / "fixtures" / "torch_ground_truth.json"


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    # The caches' signing secret (cachefolder.user_secret) goes to a directory of this test
    # run, not the user's ~/.cache; subprocesses inherit the variable.
    import os

    os.environ["STATICFLOPS_CACHE_DIR"] = str(tmp_path_factory.mktemp("staticflops-cache"))


@pytest.fixture(autouse=True, scope="session")
def _no_terminal_size_in_the_environment():
    # GNU readline (imported by pytest through pdb) exports COLUMNS=80 and LINES into the C
    # environment, which os.environ does not show but every subprocess inherits: the CLI would
    # fit its tables to 80 columns instead of the 160 it uses when piped without COLUMNS.
    # Setting then deleting through os.environ unsets them at the C level as well.
    import os

    for name in ("COLUMNS", "LINES"):
        os.environ[name] = ""
        del os.environ[name]


@pytest.fixture(autouse=True)
def _run_from_repo_root(monkeypatch):
    # Sample and fixture paths in the recorded ground truth are relative to the repo root.
    monkeypatch.chdir(ROOT)


def load_ground_truth() -> dict:
    """Numbers recorded by tools/record_torch.py executing torch 2.13.0 (CPU) FlopCounterMode."""
    return json.loads(GROUND_TRUTH.read_text())


def input_args(entry: dict) -> list[str]:
    return ["x".join(str(d) for d in spec["shape"]) + (":int64" if spec["dtype"] == "int64" else "")
            for spec in entry["inputs"]]


@pytest.fixture
def memo(monkeypatch):
    """The construction memo (which holds the apply memo: ``hits``, ``apply_hits``) of the
    analysis run in the test; tests/test_construction_memo.py and tests/test_apply_memo.py."""
    from staticflops.frontend import pytorch

    made = []

    class Recording(pytorch.Interpreter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self.construction_memo)

    monkeypatch.setattr(pytorch, "Interpreter", Recording)
    return lambda: made[-1]
