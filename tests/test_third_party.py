"""Third-party packages read as source from an environment (never imported, never run), and
the data files a model's code reads (only inside the project or an installed package's folder).

Every environment here is planted in tmp_path: ``pyvenv.cfg`` + ``lib/python3.X/site-packages``.
Numbers are derived by hand in the comments (Linear(i, o): i*o + o params, 2*i*o FLOPs per row
under the standard convention; ReLU and bias adds cost 0)."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import staticflops
from staticflops import api
from staticflops.diagnostics import UsageError
from staticflops.frontend.libraries import library_roots

VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"

PLANTED_INIT = '''
from .blocks import Block
open({marker!r} + ".init", "w").write("ran")
__import__("os").system("touch " + {marker!r} + ".system")
'''

BLOCKS = '''
import torch
from torch import nn

open({marker!r} + ".blocks", "w").write("ran")


class Block(nn.Module):
    def __init__(self, width_in, width_out):
        super().__init__()
        self.fc = nn.Linear(width_in, width_out)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))
'''

CONFIGURED = '''
from pathlib import Path

import yaml
from torch import nn

HERE = Path(__file__).parent


class FromConfig(nn.Module):
    def __init__(self):
        super().__init__()
        with open(HERE / "cfg" / "widths.yaml") as f:
            widths = yaml.safe_load(f)["widths"]
        layers = []
        for a, b in zip(widths, widths[1:]):
            layers.append(nn.Linear(a, b))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


class EscapingConfig(nn.Module):
    def __init__(self):
        super().__init__()
        widths = yaml.safe_load((HERE / "cfg" / "link.yaml").read_text())["widths"]
        self.fc = nn.Linear(widths[0], widths[1])

    def forward(self, x):
        return self.fc(x)
'''

USER = '''
import torch
from torch import nn
from planted import Block
from planted import blocks


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block(8, 16)
        self.b = blocks.Block(16, 4)

    def forward(self, x):
        return self.b(self.a(x))
'''
# a: Linear(8, 16): 8*16 + 16 = 144 params, 2*2*8*16 = 512 FLOPs at 2x8
# b: Linear(16, 4): 16*4 + 4 = 68 params, 2*2*16*4 = 256 FLOPs
NET_PARAMS, NET_FLOPS = 144 + 68, 512 + 256


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def env(tmp_path):
    """A planted virtual environment whose every file would leave a marker if it ran."""
    markers = tmp_path / "markers"
    markers.mkdir()
    marker = str(markers / "m")
    root = tmp_path / "venv"
    write(root / "pyvenv.cfg", "home = /nonexistent/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n")
    interpreter = write(root / "bin" / "python", f"#!/bin/sh\ntouch {marker}.interpreter\n")
    interpreter.chmod(0o755)
    site = root / "lib" / VERSION / "site-packages"
    write(site / "planted" / "__init__.py", PLANTED_INIT.format(marker=marker))
    write(site / "planted" / "blocks.py", BLOCKS.format(marker=marker))
    write(site / "planted" / "configured.py", CONFIGURED)
    write(site / "planted" / "cfg" / "widths.yaml", "widths: [8, 32, 10]\n")
    # a torch of the attacker's: never read, torch stays ours
    write(site / "torch" / "__init__.py", f"open({marker!r} + '.torch', 'w').write('ran')\nnn = None\n")
    write(site / "planted-1.0.pth", f"import os; os.system('touch {marker}.pth')\n")
    project = tmp_path / "project"
    write(project / "model.py", USER)
    return {"python": interpreter, "site": site, "project": project, "markers": markers, "tmp": tmp_path}


def nothing_ran(env) -> bool:
    return list(env["markers"].iterdir()) == []


def test_planted_package_via_python(env):
    report = staticflops.analyze(env["project"] / "model.py", inputs=["2x8"], python=env["python"])
    assert report.totals.params == NET_PARAMS
    assert report.totals.forward_flops == NET_FLOPS
    assert nothing_ran(env), "library code, the .pth file or the interpreter ran"


def test_planted_package_via_source_path(env, tmp_path):
    # an environment that has nothing: the package comes from the source path alone
    empty = tmp_path / "empty"
    (empty / "lib" / VERSION / "site-packages").mkdir(parents=True)
    report = staticflops.analyze(env["project"] / "model.py", inputs=["2x8"], python=empty,
                                 source_path=[env["site"]])
    assert (report.totals.params, report.totals.forward_flops) == (NET_PARAMS, NET_FLOPS)
    assert nothing_ran(env)


def test_cli_flags(env):
    result = subprocess.run([sys.executable, "-m", "staticflops", "analyze", str(env["project"] / "model.py"),
                             "-i", "2x8", "--python", str(env["python"]), "--format", "json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    totals = json.loads(result.stdout)["totals"]
    assert (totals["params"], totals["forward_flops"]) == (NET_PARAMS, NET_FLOPS)
    result = subprocess.run([sys.executable, "-m", "staticflops", "analyze", str(env["project"] / "model.py"),
                             "-i", "2x8", "--python", str(env["tmp"] / "empty-nowhere"),
                             "--source-path", str(env["site"]), "--format", "json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "--python" in result.stderr and "no such file" in result.stderr
    assert nothing_ran(env)


def test_compare_reads_the_same_environment(env):
    comparison = api.compare(env["project"] / "model.py", inputs=["2x8"], rules=["standard"],
                                     python=env["python"])
    assert comparison.model_dump()["conventions"][0]["params"] == NET_PARAMS
    assert nothing_ran(env)


def test_missing_package_is_a_located_unknown(env):
    model = write(env["project"] / "partial.py", '''
        from torch import nn
        import nowhere_to_be_found


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 4)
                self.helper = nowhere_to_be_found.make()

            def forward(self, x):
                return self.fc(x)
    ''')
    result = subprocess.run([sys.executable, "-m", "staticflops", "analyze", str(model), "-i", "2x8",
                             "--python", str(env["python"]), "--format", "json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["totals"]["forward_flops"] == 2 * 2 * 8 * 4  # Linear(8, 4) at 2x8
    assert any(u["location"].endswith("partial.py:3:1") and "nowhere_to_be_found" in u["what"]
               for u in report["unknown"]), report["unknown"]


def test_modelled_packages_win_over_site_packages(env):
    # the planted torch/__init__.py sets nn = None: read, the model could not be built; a torch
    # submodule we do not model stays unknown rather than being read from the planted copy
    write(env["site"] / "torch" / "distributed.py", f"open({str(env['markers'] / 'm')!r} + '.dist', 'w')\nWORLD = 64\n")
    write(env["site"] / "yaml" / "__init__.py", "def safe_load(stream):\n    return {'widths': [8, 1000, 10]}\n")
    model = write(env["project"] / "distributed.py", USER + textwrap.dedent('''
        import torch.distributed as dist


        class Wide(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, dist.WORLD)

            def forward(self, x):
                return self.fc(x)
    '''))
    report = staticflops.analyze(model, model="Net", inputs=["2x8"], python=env["python"])
    assert report.totals.params == NET_PARAMS
    report = staticflops.analyze(model, model="Wide", inputs=["1x2"], python=env["python"])
    assert any("torch.distributed" in u.what for u in report.unknown), report.unknown
    assert report.totals.params == 0  # Linear(2, unknown) is not built
    configured = write(env["project"] / "configured_model.py", "from planted.configured import FromConfig\n")
    report = staticflops.analyze(configured, model="FromConfig", inputs=["1x8"], python=env["python"])
    assert report.totals.params == 288 + 330  # our YAML loader read the real widths [8, 32, 10], not the planted yaml
    assert nothing_ran(env)


def test_from_package_import_submodule_in_the_project(tmp_path):
    write(tmp_path / "lib" / "__init__.py", "")
    write(tmp_path / "lib" / "layers.py", '''
        from torch import nn

        def head(width):
            return nn.Linear(width, 3)
    ''')
    model = write(tmp_path / "model.py", '''
        from torch import nn
        from lib import layers


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = layers.head(5)

            def forward(self, x):
                return self.head(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x5"])
    assert (report.totals.params, report.totals.forward_flops) == (5 * 3 + 3, 2 * 5 * 3)


def test_namespace_package_spread_over_two_folders(env, tmp_path):
    write(env["site"] / "spread" / "layers.py", BLOCKS.format(marker=str(env["markers"] / "m")))
    extra = tmp_path / "extra"
    write(extra / "spread" / "sizes.py", "IN, OUT = 6, 7\n")
    model = write(env["project"] / "spread_model.py", '''
        from torch import nn
        from spread.layers import Block
        from spread import sizes


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block(sizes.IN, sizes.OUT)

            def forward(self, x):
                return self.block(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x6"], python=env["python"], source_path=[extra])
    assert (report.totals.params, report.totals.forward_flops) == (6 * 7 + 7, 2 * 6 * 7)
    assert nothing_ran(env)


def test_yaml_config_inside_the_package_sets_the_widths(env):
    model = write(env["project"] / "configured_model.py", "from planted.configured import FromConfig\n")
    report = staticflops.analyze(model, model="FromConfig", inputs=["1x8"], python=env["python"])
    # widths [8, 32, 10]: Linear(8, 32) 8*32 + 32 = 288, Linear(32, 10) 32*10 + 10 = 330 params;
    # FLOPs 2*(8*32 + 32*10) = 1152 at 1x8
    assert (report.totals.params, report.totals.forward_flops) == (288 + 330, 1152)
    assert report.unknown == []


def test_text_lines_and_path_parts(tmp_path):
    write(tmp_path / "data" / "sizes.txt", "3\n5\n")
    model = write(tmp_path / "model.py", '''
        from pathlib import Path
        from torch import nn

        DATA = Path(__file__).resolve().parent.joinpath("data", "sizes.txt")


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                sizes = [int(line) for line in open(DATA)]
                checks = [DATA.suffix == ".txt", DATA.stem == "sizes", DATA.parent.name == "data",
                          DATA.parents[1] == Path(__file__).resolve().parent]
                self.fc = nn.Linear(sizes[0] + sum(int(c) for c in checks), sizes[1])

            def forward(self, x):
                return self.fc(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x7"])
    # sizes [3, 5] and four true checks: Linear(3 + 4, 5)
    assert (report.totals.params, report.totals.forward_flops) == (7 * 5 + 5, 2 * 7 * 5)
    assert report.unknown == []


def test_hostile_yaml_is_an_unknown(tmp_path, monkeypatch):
    # 9 levels of 10 aliases each expand to 10**9 values: refused after 200,000
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join(['*a%d' % (i - 1)] * 10)}]" for i in range(1, 9)]
    write(tmp_path / "bomb.yaml", "\n".join(lines) + "\n")
    write(tmp_path / "tagged.yaml", f"!!python/object/apply:os.system ['touch {tmp_path / 'ran'}']\n")
    write(tmp_path / "plain.yaml", "width: 4\n")
    model = write(tmp_path / "model.py", '''
        import yaml
        from pathlib import Path
        from torch import nn

        HERE = Path(__file__).parent


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.bomb = yaml.safe_load((HERE / "bomb.yaml").read_text())
                self.tagged = yaml.safe_load((HERE / "tagged.yaml").read_text())
                self.unsafe = yaml.load((HERE / "plain.yaml").read_text(), Loader=yaml.FullLoader)
                self.safe = yaml.load((HERE / "plain.yaml").read_text(), Loader=yaml.SafeLoader)["width"]
                self.fc = nn.Linear(self.safe, 2)

            def forward(self, x):
                return self.fc(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x4"])
    assert report.totals.params == 4 * 2 + 2
    assert refused(report, "over 200,000 values")
    assert refused(report, "not valid YAML")
    assert refused(report, "only the safe loader")
    assert not (tmp_path / "ran").exists()


def test_json_config_in_the_project(tmp_path):
    write(tmp_path / "config.json", '{"hidden": 12}')
    model = write(tmp_path / "model.py", '''
        import json
        from pathlib import Path
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                hidden = json.load(open(Path(__file__).parent / "config.json"))["hidden"]
                self.fc = nn.Linear(3, hidden)

            def forward(self, x):
                return self.fc(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x3"])
    assert (report.totals.params, report.totals.forward_flops) == (3 * 12 + 12, 2 * 3 * 12)


SECRET = 987654321


def refused(report, fragment: str) -> bool:
    return any(fragment in u.what and u.location for u in report.unknown)


def test_read_outside_the_roots_is_refused(tmp_path):
    model = write(tmp_path / "model.py", '''
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                text = open("/etc/passwd").read()
                self.fc = nn.Linear(len(text), 2)

            def forward(self, x):
                return self.fc(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x4"])
    assert refused(report, "cannot read `/etc/passwd`: outside the analysed project")
    assert any(u.location.endswith("model.py:8:16") for u in report.unknown)
    assert "root:" not in report.to_json()


def test_symlink_escaping_the_project_is_refused(tmp_path):
    outside = write(tmp_path / "outside" / "secret.yaml", f"widths: [{SECRET}, 2]\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "config.yaml").symlink_to(outside)
    model = write(project / "model.py", '''
        from pathlib import Path

        import yaml
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                widths = yaml.safe_load(open(Path(__file__).parent / "config.yaml"))["widths"]
                self.fc = nn.Linear(widths[0], widths[1])

            def forward(self, x):
                return self.fc(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x4"])
    assert refused(report, "outside the analysed project")
    assert str(SECRET) not in report.to_json()


def test_symlink_escaping_an_installed_package_is_refused(env):
    outside = write(env["tmp"] / "outside" / "secret.yaml", f"widths: [{SECRET}, 2]\n")
    (env["site"] / "planted" / "cfg" / "link.yaml").symlink_to(outside)
    model = write(env["project"] / "escaping_model.py", "from planted.configured import EscapingConfig\n")
    report = staticflops.analyze(model, model="EscapingConfig", inputs=["1x4"], python=env["python"])
    assert refused(report, "outside the analysed project and the installed packages' folders")
    assert str(SECRET) not in report.to_json()


def test_special_files_and_writes_are_refused(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    model = write(tmp_path / "model.py", '''
        import yaml
        from pathlib import Path
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                here = Path(__file__).parent
                open(here / "written.txt", "w").write("ran")
                widths = yaml.safe_load((here / "pipe.yaml").read_text())
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x4"])  # a FIFO read would hang here
    assert refused(report, "not a regular file")
    assert refused(report, "only reading text is modelled")
    assert not (tmp_path / "written.txt").exists()


def test_environment_layouts(tmp_path):
    # pyvenv.cfg one level above bin/python; a Windows layout; the base's site-packages when
    # include-system-site-packages is true (found from `home`, never by running anything)
    base = tmp_path / "base"
    (base / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    venv = tmp_path / "venv"
    (venv / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (venv / "lib" / "python3.10" / "site-packages").mkdir(parents=True)  # another version: not ours
    write(venv / "pyvenv.cfg", f"home = {base / 'bin'}\ninclude-system-site-packages = true\nversion = 3.11.2\n")
    write(venv / "bin" / "python", "")
    assert library_roots(str(venv / "bin" / "python")) == (venv / "lib" / "python3.11" / "site-packages",
                                                           base / "lib" / "python3.11" / "site-packages")
    windows = tmp_path / "win"
    (windows / "Lib" / "site-packages").mkdir(parents=True)
    write(windows / "Scripts" / "python.exe", "")
    write(windows / "pyvenv.cfg", "version = 3.12.0\n")
    assert library_roots(str(windows / "Scripts" / "python.exe")) == (windows / "Lib" / "site-packages",)
    assert library_roots(str(base)) == (base / "lib" / "python3.11" / "site-packages",)  # the folder itself
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="no site-packages"):
        library_roots(str(tmp_path / "empty"))
    with pytest.raises(UsageError, match="not a folder"):
        library_roots(source_path=[str(tmp_path / "missing")])


def test_default_environment_is_our_own():
    import libcst

    assert Path(libcst.__file__).resolve().parent.parent in [Path(os.path.realpath(r)) for r in library_roots()]


def test_config_names_the_environment(env):
    # `python` (relative to the project root) supplies `planted`; `source_path` supplies `sizes`;
    # both inside the project, as a config may only name folders there
    project = env["project"]
    shutil.copytree(env["tmp"] / "venv", project / ".venv", symlinks=True)
    write(project / "vendor" / "vendored_sizes.py", "WIDTH = 5\n")
    write(project / "vendored.py", '''
        from torch import nn
        from planted import Block
        from vendored_sizes import WIDTH


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block(WIDTH, 3)

            def forward(self, x):
                return self.block(x)
    ''')
    params = 5 * 3 + 3  # Linear(5, 3)
    config = textwrap.dedent(f'''
        python: .venv/bin/python
        source_path: [vendor]
        allow_unknown: true  # the planted files' own writes are unknowns (refused)
        models:
          - name: net
            path: vendored.py
            inputs: 1x5
            budget:
              params: BUDGET
    ''')
    for budget, expected in ((params, 0), (params - 1, 1)):
        write(project / "staticflops.yaml", config.replace("BUDGET", str(budget)))
        result = subprocess.run([sys.executable, "-m", "staticflops", "check", "--no-cache"], cwd=project,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == expected, result.stdout + result.stderr
        assert f"{params} params" in result.stdout
    assert nothing_ran(env)


def test_library_modules_have_their_python_names(env):
    # `__name__` of a module reached by a relative import is its full dotted name, as in Python
    write(env["site"] / "planted" / "inner.py", "NAME = __name__\n")
    write(env["site"] / "planted" / "naming.py", "from .inner import NAME\nNAMES = [__name__, NAME]\n")
    model = write(env["project"] / "naming_model.py", '''
        from torch import nn
        from planted.naming import NAMES


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(len(NAMES[0]), len(NAMES[1]))  # "planted.naming": 14, "planted.inner": 13

            def forward(self, x):
                return self.fc(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x14"], python=env["python"])
    assert report.totals.params == 14 * 13 + 13


def test_numpy_stays_opaque(env):
    # a planted numpy whose prod() would give 7 and cumprod() 6: not followed.  numpy's scalar
    # maths is modelled (np.prod([2, 3]) = 6, numpy's answer, not the planted 7): Linear(6, 4) =
    # 28 params; the unmodelled np.cumprod stays unknown, so its Linear counts nothing
    write(env["site"] / "numpy" / "__init__.py", "def prod(items):\n    return 7\n\n\ndef cumprod(items):\n    return 6\n")
    model = write(env["project"] / "np_model.py", '''
        import numpy as np
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(np.prod([2, 3]), 4)
                self.other = nn.Linear(np.cumprod([2, 3]), 4)

            def forward(self, x):
                return self.fc(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x6"], python=env["python"])
    assert report.totals.params == 28
    # numpy is partly modelled (linspace, scalar maths): the unknown is the unmodelled `np.cumprod`
    assert any("np_model.py:" in u.location and "numpy" in u.what for u in report.unknown), report.unknown


@pytest.mark.parametrize("setting", ["source_path: [{outside}]", "source_path: [linked]", "python: {python}"])
def test_config_environment_must_be_inside_the_project(env, setting):
    # a pull request controls the config: it may not point the analysis at folders elsewhere
    project = env["project"]
    (project / "linked").symlink_to(env["site"])
    write(project / "staticflops.yaml", f'''
        {setting.format(outside=env["site"], python=env["python"])}
        allow_unknown: true
        models:
          - name: net
            path: model.py
            inputs: 2x8
            budget:
              params: 1000000
    ''')
    result = subprocess.run([sys.executable, "-m", "staticflops", "check", "--no-cache"], cwd=project,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "outside the project" in result.stdout + result.stderr
    assert nothing_ran(env)


def test_a_folder_without_init_imported_from_the_project_root(tmp_path):
    # `models/` has no __init__.py (a namespace package, as `python -m` or pytest from the
    # repository's root finds it); the git work tree is the project root.
    (tmp_path / ".git").mkdir()
    write(tmp_path / "models" / "helper.py", '''
        from torch import nn

        def block(width):
            return nn.Linear(8, width)
    ''')
    model = write(tmp_path / "models" / "mlp.py", '''
        from torch import nn
        from models.helper import block


        class MLP(nn.Module):
            def __init__(self, width=16):
                super().__init__()
                self.body = nn.Sequential(block(width), nn.ReLU(), nn.Linear(width, 4))

            def forward(self, x):
                return self.body(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x8"])
    # Linear(8, 16): 8*16 + 16 = 144 params, 8*16 = 128 MACs; Linear(16, 4): 16*4 + 4 = 68, 64 MACs.
    assert (report.totals.params, report.totals.macs) == (144 + 68, 128 + 64)
    assert report.totals.complete


def test_an_unresolved_item_of_a_sequential_is_not_skipped(tmp_path):
    # Was: the unresolved `block(16)` left out of the chain, so Linear(16, 4) met the 8 input
    # features and the analysis failed there, naming a symptom instead of the first cause.
    model = write(tmp_path / "mlp.py", '''
        from torch import nn
        from nowhere_to_be_found import block


        class MLP(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(block(16), nn.ReLU(), nn.Linear(16, 4))

            def forward(self, x):
                return self.body(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x8"])
    assert not report.totals.complete
    assert report.unknown[0].location.endswith("mlp.py:3:1"), report.unknown
    assert report.totals.params == 16 * 4 + 4  # the Linear it could build


REGEX_USER = '''
from torch import nn
try:
    import regex
    FOUND = 1
except ImportError:
    FOUND = 0


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.found = nn.Linear(1, 1 + FOUND)
        if FOUND:
            digits = regex.compile(r"\\d+", regex.MULTILINE)
            self.count = nn.Linear(1, len(digits.findall("a12 b345\\nc6")))
            self.fuzzy = nn.Linear(1, len(regex.findall(r"(?:abc){e<=1}", "abd abc")))
            self.braces = nn.Linear(1, len(regex.findall(r"{(.*?)}", "a {x} b {yy} {z}")))

    def forward(self, x):
        return x
'''


def test_installed_regex_is_modelled_as_re(env):
    # `regex` is a C extension: its Python files cannot match.  Installed, it is our `re` model
    # (its planted files never read); not installed, `import regex` fails as in Python.
    model = write(env["project"] / "uses_regex.py", REGEX_USER)
    report = staticflops.analyze(model, model="Net", inputs=["1x1"], python=env["python"])
    assert report.totals.params == 1 * 1 + 1  # only `found`, Linear(1, 1 + 0): FOUND = 0, 1 weight + 1 bias
    write(env["site"] / "regex" / "__init__.py", f"open({str(env['markers'] / 'm')!r} + '.regex', 'w')\n"
                                                 "def compile(*a):\n    return None\n")
    report = staticflops.analyze(model, model="Net", inputs=["1x1"], python=env["python"])
    widths = {row.name: row.params // 2 for row in report.layers if row.type == "Linear"}
    # found: Linear(1, 2); count: findall of \d+ in "a12 b345\nc6" = ["12", "345", "6"], 3;
    # fuzzy: `{e<=1}` is a fuzzy match in `regex` and literal text in `re`: refused, an unknown
    # width (no parameters counted, reported); braces: `{` opening no constraint is literal in
    # both, the placeholders x, yy, z: 3.
    assert widths == {"found": 2, "count": 3, "fuzzy": 0, "braces": 3}, widths
    assert any("fuzzy" in u.what for u in report.unknown), report.unknown
    assert nothing_ran(env)


def test_installed_distribution_versions_come_from_dist_info_folders(tmp_path):
    """``importlib.metadata.version`` answers from the ``<name>-<version>.dist-info`` folder of
    the installed packages' folders, names compared as PEP 503 normalises them (``Fancy_Pkg``
    and ``fancy-pkg`` are one distribution); a distribution with no such folder stays unknown
    (the analysis still finishes).  Widths: 3 from the version test, 2 more from the
    normalised name: Linear(4, 5) has 4*5 + 5 = 25 params (a version not read: the conditions
    undecided, assumed true, width 2: 10 params)."""
    site = tmp_path / "site"
    (site / "Fancy_Pkg-2.1.0.dist-info").mkdir(parents=True)
    (site / "fancy_pkg").mkdir()
    (site / "fancy_pkg" / "__init__.py").write_text("")
    project = tmp_path / "project"
    project.mkdir()
    model = write(project / "versions_model.py", '''
        from importlib.metadata import version
        from torch import nn

        WIDTH = 1 if version("fancy_pkg") != "2.1.0" else 3
        WIDTH += 1 if version("FANCY.pkg") != "2.1.0" else 2
        ABSENT = version("not-installed-anywhere")


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, WIDTH)

            def forward(self, x):
                return self.fc(x)
    ''')
    report = staticflops.analyze(model, inputs=["1x4"], source_path=[site])
    assert report.totals.params == 4 * 5 + 5
    assert not [d for d in report.diagnostics if d.code == "SF131"]  # nothing assumed


REGISTRY_PACKAGE = {
    "reg/__init__.py": "from .small import Small\nfrom .wide import Wide\nfrom .build import build\n",
    "reg/registry.py": "WIDTHS = {}\n\n\ndef register(name, width):\n    WIDTHS[name] = width\n",
    "reg/small.py": "from .registry import register\n\nregister('small', 3)\n\n\nclass Small:\n    pass\n",
    "reg/wide.py": "from .registry import register\n\nregister('wide', 7)\n\n\nclass Wide:\n    pass\n",
    "reg/build.py": "import torch.nn as nn\nfrom .registry import WIDTHS\n\n\n"
                    "def build(name):\n    return nn.Linear(4, WIDTHS[name])\n",
}


def test_a_registry_filled_at_import_is_complete(tmp_path):
    # CPython runs reg/__init__.py whole at `from reg import ...`: small.py and wide.py both
    # register, so build("wide") finds 7 though only Small is named: Linear(4, 7) = 35 params.
    # (peft's PEFT_TYPE_TO_CONFIG_MAPPING["LORA"] with only IA3Config imported is this shape.)
    site = tmp_path / "site"
    for name, text in REGISTRY_PACKAGE.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    model = tmp_path / "model.py"
    model.write_text("from reg import Small, build\n\nmodel = build('wide')\n")
    report = staticflops.analyze(model, inputs=["1x4"], source_path=[site])
    assert report.totals.params == 4 * 7 + 7
    # inside a `try` too: CPython finds "wide" and never runs the handler (35, not Linear(4, 3))
    model.write_text("from reg import Small, build\n\ntry:\n    model = build('wide')\n"
                     "except KeyError:\n    model = build('small')\n")
    report = staticflops.analyze(model, inputs=["1x4"], source_path=[site])
    assert report.totals.params == 4 * 7 + 7
    # a name no module registers is still a KeyError: Linear(4, 3) from the handler = 15
    model.write_text("from reg import Small, build\n\ntry:\n    model = build('huge')\n"
                     "except KeyError:\n    model = build('small')\n")
    report = staticflops.analyze(model, inputs=["1x4"], source_path=[site])
    assert report.totals.params == 4 * 3 + 3


def test_a_registry_completion_that_spends_the_budget_stops_there(tmp_path):
    # an unused module of the package loops at import: Python would never finish importing it;
    # completing the registry runs it, and the loop budget ends the analysis with its message
    site = tmp_path / "site"
    for name, text in {**REGISTRY_PACKAGE, "reg/__init__.py": REGISTRY_PACKAGE["reg/__init__.py"] + "from .spin import x\n",
                       "reg/spin.py": "x = 0\nwhile True:\n    x += 1\n"}.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    model = tmp_path / "model.py"
    model.write_text("from reg import Small, build\n\nmodel = build('wide')\n")
    with pytest.raises(staticflops.AnalysisError, match="loop iteration budget of 1,000 exhausted"):
        staticflops.analyze(model, inputs=["1x4"], source_path=[site], limits={"max_loop_iterations": 1000})
