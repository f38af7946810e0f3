"""Small model sources for probing one construct: the shared header (five lines, so a model's
first line is line 6) and a one-layer model whose layer is built on line 9 (column 18) and
called on line 12 (column 16)."""

import pytest

from staticflops import AnalysisError
from staticflops.api import analyze_text

HEADER = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n\n\n"

LAYER_MODEL = """class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = {layer}

    def forward(self, x):
        return {call}
"""


def analyze_source(source: str, **options):
    """``source`` after HEADER, analysed as the file ``m.py``."""
    return analyze_text(HEADER + source, "m.py", **options)


def error_of(source: str, **options) -> str:
    """The located message ``source`` (after HEADER) is refused with."""
    with pytest.raises(AnalysisError) as caught:
        analyze_source(source, **options)
    return str(caught.value)
