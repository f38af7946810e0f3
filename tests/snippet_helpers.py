"""Analyse a few lines of model code written into a test's temporary folder (the snippets that
show one interpreter gap each: tests/test_hf_*coverage*.py and the like)."""

import textwrap

import staticflops


def analyse(tmp_path, source, inputs=("1x1",)):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(source))
    return staticflops.analyze(path, inputs=list(inputs))
