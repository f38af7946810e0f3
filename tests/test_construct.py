"""IR nodes and report rows are built without pydantic's model_construct (hot loops on deep
models, ``staticflops/ir/construct.py``): each must be exactly what model_construct builds
from the same values."""

import staticflops
from staticflops.frontend.pytorch import analyse_torch
from staticflops.frontend.source import load_source
from staticflops.ir import LayerNode, ModelIR, OpCall, ParamDecl
from staticflops.report.schema import Layer
from staticflops.shapes import parse_input_spec


def _same_as_model_construct(model) -> None:
    given = {name: model.__dict__[name] for name in model.model_fields_set}
    expected = type(model).model_construct(**given)
    assert list(model.__dict__.items()) == list(expected.__dict__.items())  # same values, same order
    assert model.model_fields_set == expected.model_fields_set
    assert model.__pydantic_extra__ == expected.__pydantic_extra__
    assert model.__pydantic_private__ == expected.__pydantic_private__


def test_report_rows_equal_what_model_construct_builds():
    report = staticflops.analyze("samples/transformer.py", inputs=["1x64:int64"], training=True)
    assert {row.kind for row in report.layers} == {"module", "op"}  # both kinds of row (the attention core is an op)
    # the report and its totals too, with and without the training-only totals
    plain = staticflops.analyze("samples/transformer.py", inputs=["1x64:int64"])
    for whole in (report, report.totals, plain, plain.totals):
        _same_as_model_construct(whole)
    assert report.totals.backward_flops is not None and "backward_flops" in report.totals.model_fields_set
    assert plain.totals.backward_flops is None and "backward_flops" not in plain.totals.model_fields_set
    for row in report.layers:
        assert isinstance(row, Layer)
        _same_as_model_construct(row)
        # an op row leaves `calls` (its default, 1) and `lower_bound` (a module's) unset; a module row sets every field
        assert row.model_fields_set == (set(Layer.model_fields) - {"calls", "lower_bound"} if row.kind == "op"
                                        else set(Layer.model_fields))


TIED = """
import torch
from torch import nn

class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.emb.weight
        self.scale = nn.Parameter(torch.ones(4))

    def forward(self, x):
        return self.head(self.emb(x) * self.scale)
"""


def test_ir_nodes_equal_what_model_construct_builds(tmp_path):
    path = tmp_path / "tied.py"
    path.write_text(TIED)
    ir = analyse_torch(load_source(str(path)), None, {}, [parse_input_spec("2x3:int64")])
    _same_as_model_construct(ir)
    nodes = list(ir.root.walk())
    declared = [p for node in nodes for p in node.params]
    replaced = [p for node in nodes for p in node.replaced_params]
    assert declared and replaced and ir.ops  # every kind is checked: declared and tied-away weights, ops
    for model in [*nodes, *declared, *replaced, *ir.ops]:
        assert isinstance(model, (LayerNode, ParamDecl, OpCall, ModelIR))
        _same_as_model_construct(model)
    assert all(p.model_fields_set == {"name", "shape"} for p in replaced)  # `trainable` left at its default
    # shapes are tuples, as validation would have made them
    assert all(type(s) is tuple for op in ir.ops for s in [*op.inputs, *op.outputs] if s is not None)
