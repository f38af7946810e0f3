"""Parsing ahead in a second process (frontend/prefetch.py): a cold config.json analysis finds
trees the second process filed, reports exactly what it reports without it, and never leaves
that process running.  A small transformers-shaped package stands in for transformers (no
torch, no download)."""

import json
import os
from pathlib import Path

import pytest

import staticflops
from cache_helpers import entry_data, entry_stubs
from staticflops.frontend import parsed_cache, prefetch
from staticflops.frontend.budget import MAX_FILE_BYTES, PARSE_LIMITS
from staticflops.frontend.hf_config import config_model
from staticflops.frontend.libraries import LibraryFiles

FILES = {
    "transformers/__init__.py": "",
    "transformers/models/__init__.py": "",
    "transformers/models/tiny/__init__.py": "",
    "transformers/models/tiny/modeling_tiny.py": (
        "from torch import nn\n"
        "from ...layers import Block\n"
        "from ...typing_helpers import Unpack\n"
        "from .configuration_tiny import TinyConfig\n"
        "\n"
        "class TinyModel(nn.Module):\n"
        "    config_class = TinyConfig\n"
        "\n"
        "    def __init__(self, config, **kwargs: Unpack[dict]):\n"
        "        super().__init__()\n"
        "        self.block = Block(config.hidden)\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.block(x)\n"),
    "transformers/models/tiny/configuration_tiny.py": (
        "class TinyConfig:\n"
        "    def __init__(self, hidden=8, **kwargs):\n"
        "        self.hidden = hidden\n"),
    "transformers/layers.py": (
        "from torch import nn\n"
        "from .activations import relu_name\n"
        "\n"
        "class Block(nn.Module):\n"
        "    def __init__(self, width):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(width, width)\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.fc(x)\n"
        "\n"
        "def never_called():\n"
        "    return relu_name()\n"),
    "transformers/activations.py": "def relu_name():\n    return 'relu'\n",
    "transformers/typing_helpers.py": "Unpack = None\n",
}
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here: nothing is parsed ahead")

CONFIG = {"model_type": "tiny", "architectures": ["TinyModel"], "hidden": 8}
# Linear(8, 8) on 2x8: 2*8*8 = 128 MACs = 256 FLOPs; 8*8 + 8 = 72 params
INPUTS = ["2x8"]


@pytest.fixture()
def project(tmp_path, monkeypatch):
    """(config.json in a project folder, the library folder); a signing secret of its own."""
    monkeypatch.setenv("STATICFLOPS_CACHE_DIR", str(tmp_path / "user-cache"))
    monkeypatch.delenv(prefetch.ENVIRONMENT, raising=False)
    # a second process at the lowest priority could wait long on a busy test machine, and these
    # tests wait for it: normal priority here (the forked process inherits the patch)
    monkeypatch.setattr(prefetch, "_idle_priority", lambda: None)
    library = tmp_path / "site-packages"
    for name, text in FILES.items():
        (library / name).parent.mkdir(parents=True, exist_ok=True)
        (library / name).write_text(text)
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(CONFIG))
    return folder / "config.json", library


def _entry(folder: Path, library: Path, name: str) -> Path:
    key = parsed_cache.entry_key((library / name).read_text(), False, PARSE_LIMITS)
    return folder / ".staticflops_cache" / "parsed" / (key + parsed_cache.SUFFIX)


def _start(config: Path, library: Path):
    stand_in, _model = config_model(config, None, MAX_FILE_BYTES, None)
    return prefetch.start(stand_in, LibraryFiles((library,)), PARSE_LIMITS, MAX_FILE_BYTES, config.parent)


def test_predicts_the_files_defining_the_model_files_names(project):
    config, library = project
    stand_in, _model = config_model(config, None, MAX_FILE_BYTES, None)
    found = prefetch.predicted_files(stand_in, LibraryFiles((library,)))
    names = [path.relative_to(library).as_posix() for path in found]
    # torch is another package (the framework's); typing_helpers only serves a signature annotation;
    # modeling_tiny.py itself is the analysis's first read
    assert names == ["transformers/layers.py", "transformers/models/tiny/configuration_tiny.py"]


@needs_fork
def test_prefetched_entry_is_used_and_gives_the_same_report(project, tmp_path, monkeypatch):
    config, library = project
    ahead = _start(config, library)
    assert ahead is not None
    os.waitpid(ahead.pid, 0)  # let it finish its files (stop() would end it early)
    ahead.pid = os.getpid()  # reaped: nothing left for stop() to end
    ahead.stop = lambda: None
    layers = _entry(config.parent, library, "transformers/layers.py")
    written = layers.read_bytes()
    assert entry_stubs(written) == {}  # a whole tree: never_called's body lowered too
    assert _entry(config.parent, library, "transformers/activations.py").is_file()  # a module layers.py imports

    parsed = []
    from staticflops.frontend import source

    real_parse = source._parse
    monkeypatch.setattr(source, "_parse", lambda text, name, *rest, **options: (
        parsed.append(Path(name).name), real_parse(text, name, *rest, **options))[1])
    monkeypatch.setenv(prefetch.ENVIRONMENT, "0")
    report = staticflops.analyze(config, inputs=INPUTS, source_path=[library])
    assert (report.totals.forward_flops, report.totals.params) == (256, 72)
    assert "layers.py" not in parsed and "modeling_tiny.py" in parsed
    # stored again with only what the analysis read: never_called's body a stub again, so a later
    # run decodes no more than if the analysis had parsed the file itself
    trimmed = layers.read_bytes()
    assert entry_stubs(trimmed).get("IndentedBlock") and entry_data(written).get("whole") is True
    assert "whole" not in entry_data(trimmed)
    warm = staticflops.analyze(config, inputs=INPUTS, source_path=[library])
    assert warm.to_json() == report.to_json() and "layers.py" not in parsed

    # the same report from a folder where nothing was parsed ahead
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text(config.read_text())
    again = staticflops.analyze(other / "config.json", inputs=INPUTS, source_path=[library]).to_json()
    assert again.replace(str(other), str(config.parent)) == report.to_json()


@needs_fork
def test_second_process_ends_with_the_analysis(project, monkeypatch):
    config, library = project
    started = []
    real_start = prefetch.start

    def recording_start(*arguments):
        ahead = real_start(*arguments)
        started.append(ahead)
        return ahead

    import staticflops.api as api

    monkeypatch.setattr(api, "start_prefetch", recording_start)
    report = staticflops.analyze(config, inputs=INPUTS, source_path=[library])
    assert report.totals.forward_flops == 256
    assert len(started) == 1 and started[0] is not None  # a cold cache: it ran
    with pytest.raises(ChildProcessError):  # ended and reaped before analyze returned
        os.waitpid(started[0].pid, os.WNOHANG)
    # analysed before: every model file's tree is cached, nothing to parse ahead
    assert _start(config, library) is None


@needs_fork
def test_stop_ends_a_running_second_process(project, monkeypatch):
    config, library = project
    # one file that takes a while: the second process is still at it when stopped
    (library / "transformers" / "layers.py").write_text(FILES["transformers/layers.py"] + "X = [\n"
                                                        + "    1,\n" * 100_000 + "]\n")
    ahead = _start(config, library)
    assert ahead is not None
    ahead.stop()
    prefetch.reap_stopped()
    with pytest.raises(ChildProcessError):
        os.waitpid(ahead.pid, os.WNOHANG)
    leftovers = [p.name for p in (config.parent / ".staticflops_cache" / "parsed").glob("*")
                 if p.name.endswith(".tmp")] if (config.parent / ".staticflops_cache").exists() else []
    assert leftovers == []


def test_switched_off_or_threaded_nothing_is_forked(project, monkeypatch):
    config, library = project
    monkeypatch.setenv(prefetch.ENVIRONMENT, "0")
    assert _start(config, library) is None
    monkeypatch.delenv(prefetch.ENVIRONMENT)
    monkeypatch.setattr(prefetch.threading, "active_count", lambda: 2)  # forking a threaded process: never
    assert _start(config, library) is None
    monkeypatch.undo()


def test_report_is_the_same_with_and_without_parsing_ahead(project, tmp_path, monkeypatch):
    config, library = project
    on = staticflops.analyze(config, inputs=INPUTS, source_path=[library]).to_json()
    other = tmp_path / "off"
    other.mkdir()
    (other / "config.json").write_text(config.read_text())
    monkeypatch.setenv(prefetch.ENVIRONMENT, "0")
    off = staticflops.analyze(other / "config.json", inputs=INPUTS, source_path=[library]).to_json()
    assert off.replace(str(other), str(config.parent)) == on
    assert not (other / ".staticflops_cache" / "parsed" / _entry(other, library, "transformers/activations.py").name
                ).exists()  # never read by the analysis, and nothing parsed ahead
