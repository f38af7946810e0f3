"""Property-based fuzzing (hypothesis).

1. Mutated samples (statements deleted, duplicated, swapped; integer literals changed;
   indentation broken): the analysis returns a report or raises AnalysisError/UsageError, never
   anything else; it ends within tight budgets; every location it names is inside the file.
2. Random stacks of Conv2d/ReLU/MaxPool2d/Flatten/Linear with valid shapes: the totals equal
   the sum of the per-layer formulas (standard rules) worked out here, independently.
"""

import re
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from staticflops import AnalysisError, UsageError
from staticflops.api import analyze_text

SAMPLES = {  # path -> (model, inputs), as recorded in tests/fixtures/torch_ground_truth.json
    "samples/lenet5.py": ("LeNet5", ["1x1x28x28"]),
    "samples/seed_conv_gru.py": ("SeedModel", ["1x1x100x256"]),
    "samples/gpt_minimal.py": ("gpt_small", ["1x32:int64"]),
}
TEXTS = {path: Path(path).read_text() for path in SAMPLES}
# Tight bounds so each example is quick; the property is that these bounds are honoured.
LIMITS = {"max_steps": 100_000, "max_loop_iterations": 20_000, "max_depth": 60, "max_container": 100_000}
SECONDS = 20  # generous wall-clock ceiling per example (a hang would blow far past it)
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
INTEGER = re.compile(r"(?<![\w.])\d+(?![\w.])")


def mutate(text: str, data) -> str:
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        kind = data.draw(st.sampled_from(["delete", "duplicate", "swap", "integer", "indent"]))
        i = data.draw(st.integers(0, len(lines) - 1))
        j = data.draw(st.integers(0, len(lines) - 1))
        if kind == "delete" and len(lines) > 1:
            del lines[i]
        elif kind == "duplicate":
            lines.insert(j, lines[i])
        elif kind == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "indent":
            lines[i] = data.draw(st.sampled_from(["", " ", "\t", "        "])) + lines[i].lstrip(" ")
        else:
            numbers = [m for n, line in enumerate(lines) for m in [(n, x) for x in INTEGER.finditer(line)]]
            if numbers:
                n, match = numbers[data.draw(st.integers(0, len(numbers) - 1))]
                value = data.draw(st.sampled_from([0, 1, -1, 2, 3, 7, 1000, 10**6, 10**12]))
                lines[n] = lines[n][:match.start()] + str(value) + lines[n][match.end():]
    return "\n".join(lines)


def assert_located_inside(location, path, line_count):
    if location is None:
        return
    text = str(location)
    if not text.startswith(path + ":"):
        return  # another file of the project or a model-argument expression
    line, col = (int(part) for part in text[len(path) + 1:].split(":")[:2])
    assert 1 <= line <= line_count + 1 and col >= 1, text


@SETTINGS
@given(path=st.sampled_from(sorted(SAMPLES)), data=st.data())
def test_mutated_samples_end_cleanly_with_located_messages(path, data):
    text = mutate(TEXTS[path], data)
    model, inputs = SAMPLES[path]
    line_count = text.count("\n") + 1
    started = time.monotonic()
    try:
        report = analyze_text(text, path, model=model, inputs=inputs, limits=LIMITS)
    except UsageError:
        pass
    except AnalysisError as error:
        assert_located_inside(error.location, path, line_count)
        assert "\n" not in error.message.strip() or error.message.startswith("syntax")
    else:
        for unknown in report.unknown:
            assert_located_inside(unknown.location, path, line_count)
        for layer in report.layers:
            assert_located_inside(layer.location, path, line_count)
    assert time.monotonic() - started < SECONDS


# ---- random valid stacks -------------------------------------------------------------------

STACK = '''\
import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
{layers}
        )

    def forward(self, x):
        return self.body(x)
'''


@st.composite
def stack_models(draw):
    channels, height, batch = draw(st.integers(1, 8)), draw(st.integers(4, 32)), draw(st.integers(1, 4))
    shape = f"{batch}x{channels}x{height}x{height}"
    layers, macs, params = [], 0, 0
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["conv", "relu", "pool"]))
        if kind == "conv":
            out, kernel = draw(st.integers(1, 16)), draw(st.integers(1, 3))
            stride, padding, bias = draw(st.integers(1, 2)), draw(st.integers(0, 1)), draw(st.booleans())
            size = (height + 2 * padding - kernel) // stride + 1  # PyTorch's Conv2d output size
            layers.append(f"nn.Conv2d({channels}, {out}, {kernel}, stride={stride}, padding={padding}, bias={bias})")
            macs += batch * out * size * size * channels * kernel * kernel  # per output element: C_in*k*k MACs
            params += out * channels * kernel * kernel + (out if bias else 0)
            channels, height = out, size
        elif kind == "relu":
            layers.append("nn.ReLU()")
        elif height >= 2:
            layers.append("nn.MaxPool2d(2)")
            height //= 2  # floor, stride = kernel = 2
    layers.append("nn.Flatten()")
    features = channels * height * height
    for _ in range(draw(st.integers(1, 3))):
        out, bias = draw(st.integers(1, 64)), draw(st.booleans())
        layers.append(f"nn.Linear({features}, {out}, bias={bias})")
        macs += batch * out * features  # per output element: in_features MACs
        params += features * out + (out if bias else 0)
        features = out
        if draw(st.booleans()):
            layers.append("nn.ReLU()")
    source = STACK.format(layers="\n".join(f"            {layer}," for layer in layers))
    return source, shape, macs, params, (batch, features)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(stack_models())
def test_random_stacks_total_the_per_layer_formulas(case):
    source, shape, macs, params, output = case
    report = analyze_text(source, "stack.py", inputs=[shape])
    assert report.unknown == []
    assert report.totals.macs == macs
    assert report.totals.forward_flops == 2 * macs  # standard: 2 FLOPs per MAC, ReLU/pool/flatten 0
    assert report.totals.params == params
    assert report.outputs == [list(output)]  # (batch, last Linear out_features)
