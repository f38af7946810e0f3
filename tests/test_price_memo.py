"""Pricing reuses an op's result for an equal op traced again (repeated blocks), and only then:
any difference in what the formulas read prices the op on its own."""

import pytest

from staticflops.cost import price
from staticflops.diagnostics import Location
from staticflops.ir import LayerNode, ModelIR, OpCall
from staticflops.rulesets.loader import load_ruleset

# Each thing a formula can read moves the count by its own amount, so a wrongly reused
# result shows as a wrong number.
RULES = """name: memo-probe
extends: standard
rules:
  probe:
    macs: "scale * 1000 + extra * 100 + numel(x) * 10 + numel(y) + len(inputs) * 100000 + (7 if called_as == 'module' else 0) + (50000 if label == 'B' else 0) + trainable_inputs * 200000 + (0 if flag is True else 3000000)"
    flops: macs
    backward: {input_grad: "forward * 2", weight_grad: "forward * 3"}
    saved: "numel(x) * 5"
    mem_read: "x[0]"
  probe2:
    macs: "scale"
"""


def op(line=1, kind="probe", label="A", attrs=None, facts=None, inputs=((2, 3),), outputs=((2, 4),),
       layer_call=False, trainable=0, needs_grad=(True,), module=""):
    return OpCall(kind=kind, label=label, attrs={"scale": 2, "flag": True} if attrs is None else attrs,
                  facts={"extra": 3} if facts is None else facts, inputs=list(inputs), outputs=list(outputs),
                  module=module, is_layer_call=layer_call, location=Location("m.py", line, 1),
                  needs_grad=list(needs_grad), trainable_inputs=trainable)


def priced(ops, tmp_path, training=False, root=None):
    rules = tmp_path / "probe.yaml"
    rules.write_text(RULES)
    root = root or LayerNode(name="", type="M", location=Location("m.py", 1, 1))
    ir = ModelIR(name="M", framework="pytorch", file="m.py", root=root, ops=ops, inputs=[], outputs=[], unknowns=[])
    return price(ir, load_ruleset(str(rules)), training=training)


# The base op: scale 2 -> 2000, extra 3 -> 300, x 2x3 -> 60, y 2x4 -> 8, one input -> 100000.
BASE = 2000 + 300 + 60 + 8 + 100000


@pytest.mark.parametrize("changed, expected", [
    ({}, BASE),
    ({"attrs": {"scale": 5, "flag": True}}, BASE + 3000),
    ({"attrs": {"scale": 2, "flag": 1}}, BASE + 3000000),  # 1 == True, but `is True` tells them apart
    ({"facts": {"extra": 4}}, BASE + 100),
    ({"inputs": ((2, 5),)}, BASE + 40),
    ({"inputs": ((2, 3), (1,))}, BASE + 100000),
    ({"outputs": ((3, 4),)}, BASE + 4),
    ({"label": "B"}, BASE + 50000),
    ({"layer_call": True}, BASE + 7),
    ({"trainable": 1}, BASE + 200000),
    ({"kind": "probe2"}, 2),
])
def test_an_op_differing_in_anything_a_formula_reads_is_priced_on_its_own(tmp_path, changed, expected):
    result = priced([op(1), op(2, **changed), op(3)], tmp_path)
    assert [cost.macs for cost in result.ops] == [BASE, expected, BASE]
    assert result.macs == 2 * BASE + expected
    assert [cost.op.location.line for cost in result.ops] == [1, 2, 3]  # each cost keeps its own op


def test_backward_reuse_follows_which_inputs_need_a_gradient(tmp_path):
    result = priced([op(1), op(2, needs_grad=(False,)), op(3)], tmp_path, training=True)
    # needs_grad: input gradient 2 x forward counted; otherwise skipped.  No trainable weights:
    # the weight gradient (3 x forward) is skipped.  Saved: 5 x 6 input elements when any gradient is needed.
    assert [cost.input_grad for cost in result.ops] == [2 * BASE, 0, 2 * BASE]
    assert [cost.skipped_input_grad for cost in result.ops] == [0, 2 * BASE, 0]
    assert [cost.skipped_weight_grad for cost in result.ops] == [3 * BASE] * 3
    assert [cost.saved for cost in result.ops] == [30, 0, 30]


def test_ops_that_cannot_be_priced_each_report_their_own_location(tmp_path):
    result = priced([op(1, kind="nosuch"), op(2, kind="nosuch"), op(3, attrs={"flag": True})], tmp_path)
    assert [cost.known for cost in result.ops] == [False, False, False]
    assert [str(where) for where, _ in result.unknowns] == ["m.py:1:1", "m.py:2:1", "m.py:3:1"]


def test_a_float_or_bool_dimension_is_not_mistaken_for_an_equal_int(tmp_path):
    # 2.0 == 2 and True == 1 as dict keys; the memory formula `x[0]` returns the dimension itself.
    result = priced([op(1, inputs=((2, 3),)), op(2, inputs=((2.0, 3),)), op(3, inputs=((1, 3),)),
                     op(4, inputs=((True, 3),))], tmp_path)
    assert [(cost.mem_read, type(cost.mem_read)) for cost in result.ops] == [(2, int), (2.0, float), (1, int),
                                                                            (True, bool)]


def test_float_amounts_are_summed_in_op_order_in_every_layer(tmp_path):
    # A user formula giving floats (probe2: macs = scale).  Float addition is not associative:
    # (0.1 + 0.1) + 0.6 == 0.8, but 0.1 + (0.1 + 0.6) == 0.7999999999999999.  Layers sum their
    # ops in trace order, as always, not their children's subtotals.
    where = Location("m.py", 1, 1)
    inner = LayerNode(name="a.b", type="B", location=where)
    root = LayerNode(name="", type="M", location=where,
                     children=[LayerNode(name="a", type="A", location=where, children=[inner])])
    ops = [op(1, kind="probe2", attrs={"scale": 0.1}, module="a.b"), op(2, kind="probe2", attrs={"scale": 0.1}, module="a"),
           op(3, kind="probe2", attrs={"scale": 0.6}, module="a.b")]
    result = priced(ops, tmp_path, root=root)
    assert [(layer.node.name, layer.macs) for layer in result.layers] == [("", 0.8), ("a", 0.8), ("a.b", 0.7)]
    assert [len(layer.ops) for layer in result.layers] == [0, 1, 2]
