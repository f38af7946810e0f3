"""An error inside a library's code (read from --source-path or site-packages) is also located in
the analysed project: the innermost call from the project's own files into the library is
printed under it, so a failure deep in transformers or diffusers names the user's line."""

import textwrap

from typer.testing import CliRunner

from staticflops.cli.app import app


def _project(tmp_path):
    lib = tmp_path / "vendor" / "blocks"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text(textwrap.dedent("""
        import torch.nn as nn


        def _width(config):
            return config["width"] * 2          # line 6: a missing key raises KeyError


        def make_block(config):
            return nn.Linear(4, _width(config))  # line 10
    """))
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import torch.nn as nn
        from blocks import make_block


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = make_block({"depth": 3})

            def forward(self, x):
                return self.block(x)
    """))
    return tmp_path


def test_library_error_names_the_projects_call(tmp_path):
    project = _project(tmp_path)
    result = CliRunner().invoke(app, ["analyze", str(project / "model.py"), "--input", "1x4", "--source-path",
                                      str(project / "vendor"), "--no-cache"])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert "blocks/__init__.py:6:" in lines[-2] and "error:" in lines[-2] and "width" in lines[-2]
    # the project's line that called into the library (not the library's own inner call, line 10)
    assert lines[-1].endswith("model.py:9:22: note: the library code above was called from here"), lines[-1]


def test_an_error_in_the_project_itself_has_no_note(tmp_path):
    (tmp_path / "model.py").write_text("import torch.nn as nn\n\nclass Net(nn.Module):\n"
                                       "    def __init__(self):\n        super().__init__()\n"
                                       "        self.fc = nn.Linear(4, {}['width'])\n\n"
                                       "    def forward(self, x):\n        return self.fc(x)\n")
    result = CliRunner().invoke(app, ["analyze", str(tmp_path / "model.py"), "--input", "1x4", "--no-cache"])
    assert result.exit_code == 1, result.output
    assert "note:" not in result.output
