"""The kind catalogue is the one home of every kind's shape rule (issue 20, "one entry per op
kind"; "shapes/ becomes pure algebra"):

* every kind the registry knows is a catalogue record (the Keras-only kinds too);
* no module of shapes/ registers a shape rule or names a framework in its code (its comments
  may cite one as the source of a rule);
* every kind that computes records an op of its own kind in its worked example, a torch or a
  Keras source (so the example tests the record it stands under; the figures themselves are
  checked in tests/test_tensor_ops_table.py), and the nn layer examples state their params.
"""

import ast
import re
from pathlib import Path

import pytest

import staticflops.api as api
from staticflops.kinds.catalogue import KINDS, NN_FAMILIES
from staticflops.shapes.layers import SHAPE_FUNCTIONS
from test_tensor_ops_table import run

SHAPES = Path(api.__file__).resolve().parent / "shapes"


def test_every_registered_kind_is_a_catalogue_record():
    outside = {name: fn.__module__ for name, fn in SHAPE_FUNCTIONS.items()
               if not fn.__module__.startswith("staticflops.kinds.")}
    assert outside == {}
    assert set(SHAPE_FUNCTIONS) <= set(KINDS)  # one name, one kind
    for name, kind in KINDS.items():
        if kind.computes:
            assert SHAPE_FUNCTIONS[name] is kind.shape, name


def test_the_catalogue_refuses_a_kind_with_two_shape_rules():
    from staticflops.kinds.record import Kind, catalogue
    with pytest.raises(ValueError, match="catalogued twice"):
        catalogue(KINDS["conv"], Kind("conv", lambda attrs, inputs: ([inputs[0]], {}), True, "a second conv"))


def _code_words(tree: ast.AST) -> set:
    """Names, attributes, imported modules and string constants, docstrings excepted."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    words = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
        elif isinstance(node, ast.alias):
            words.add(node.name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", node.value))
    return words


FRAMEWORK_WORDS = re.compile(r"^(torch|keras|tensorflow|tf|jax|nn|Conv\w*|Linear|\w*Norm\w*|\w*Pool\w*|LSTM|GRU|RNN)$")


def test_shapes_is_algebra_only():
    registering, naming = [], []
    for path in sorted(SHAPES.glob("*.py")):
        source = path.read_text()
        tree = ast.parse(source)
        if "SHAPE_FUNCTIONS[" in source or "@shape_function(" in source:
            registering.append(path.name)
        naming += [f"{path.name}: {word}" for word in sorted(_code_words(tree)) if FRAMEWORK_WORDS.match(word)]
    assert registering == []
    assert naming == []


def test_the_framework_check_sees_a_framework_word():
    # the check above would pass vacuously if the word finder missed code
    tree = ast.parse('"""torch in a docstring is fine"""\nimport torch\nx = "Conv2d expects"\n')
    assert {"torch", "Conv2d"} <= _code_words(tree) and "docstring" not in _code_words(tree)
    assert FRAMEWORK_WORDS.match("Conv2d") and FRAMEWORK_WORDS.match("BatchNorm") and not FRAMEWORK_WORDS.match("kernel")


@pytest.fixture
def recorded_kinds(monkeypatch):
    """The kinds of the ops the last analysis recorded (its model IR), torch or Keras."""
    from staticflops.frontend import keras_model
    seen = []

    def spy(trace):
        def traced(*args, **kwargs):
            ir = trace(*args, **kwargs)
            seen.append([op.kind for op in ir.ops])
            return ir
        return traced

    monkeypatch.setattr(api, "analyse_torch", spy(api.analyse_torch))
    monkeypatch.setattr(keras_model, "analyse_keras", spy(keras_model.analyse_keras))
    return seen


@pytest.mark.parametrize("name", sorted(name for name, kind in KINDS.items() if kind.computes))
def test_each_example_records_its_own_kind(name, recorded_kinds):
    for example in KINDS[name].examples:
        run(example.call, example.inputs, init=example.init, framework=example.framework)
        assert name in recorded_kinds[-1], example.call


@pytest.mark.parametrize("family", NN_FAMILIES, ids=lambda family: family.__name__.rpartition(".")[2])
def test_every_nn_layer_example_states_its_params(family):
    for name, kind in family.KINDS.items():
        assert kind.examples, name
        for example in kind.examples:
            assert not example.init or example.params is not None, (name, example.call)


# (constructor, weight shape, bias shape) in PyTorch's layout, from its documentation of each
# module's attributes: out before in; a grouped conv holds in_channels / groups per output, a
# transposed one out_channels / groups per input.
WEIGHTS = [
    ("nn.Linear(8, 4)", (4, 8), (4,)),
    ("nn.Bilinear(3, 4, 2)", (2, 3, 4), (2,)),
    ("nn.Conv2d(6, 4, 3, groups=2)", (4, 3, 3, 3), (4,)),
    ("nn.ConvTranspose2d(4, 6, (3, 2), groups=2)", (4, 3, 3, 2), (6,)),
    ("nn.Embedding(10, 4)", (10, 4), None),
    ("nn.LayerNorm((5, 8))", (5, 8), (5, 8)),
    ("nn.BatchNorm2d(3)", (3,), (3,)),
    ("nn.GroupNorm(2, 4)", (4,), (4,)),
    ("nn.PReLU(3)", (3,), None),
]


@pytest.mark.parametrize("layer, weight, bias", WEIGHTS, ids=[case[0] for case in WEIGHTS])
def test_layer_weights_are_the_shapes_model_code_reads(layer, weight, bias):
    returned = "self.m.weight * 1" + (", self.m.bias * 1" if bias else "")
    report = run(f"({returned},)", ("x:2x8",), init=f"self.m = {layer}")
    assert report.outputs == [list(weight)] + ([list(bias)] if bias else [])


# What model code counts itself (a width sized by the parameter count, as some code does):
# torch.nn.RMSNorm(8) holds a weight of 8 and no bias; LayerNorm(8, bias=False) a weight of 8;
# LayerNorm(8) a weight and a bias of 8 = 16.
@pytest.mark.parametrize("layer, count", [("nn.RMSNorm(8)", 8), ("nn.LayerNorm(8, bias=False)", 8),
                                          ("nn.LayerNorm(8)", 16)])
def test_parameters_model_code_counts(layer, count):
    report = run("torch.zeros(sum(p.numel() for p in self.m.parameters()))", ("x:2x8",), init=f"self.m = {layer}")
    assert report.outputs == [[count]]
