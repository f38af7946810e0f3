"""A replayed block's IR ops share their attrs, facts, shape and grad lists with the first
block's (``frontend/pytorch.py``), and pricing finds their keys by the identity of those
containers: the prices must be what pricing every op from its own values gives, and an op that
shares the containers but differs in a scalar field must still be priced on its own.  The JSON
rows, dumped and trimmed in one pass, must be what pydantic's dump and ``contract_dict`` give."""

import json

import staticflops
from staticflops.cost import price
from staticflops.diagnostics import Location
from staticflops.frontend.pytorch import analyse_torch
from staticflops.frontend.source import load_source
from staticflops.ir import LayerNode, ModelIR, OpCall
from staticflops.report.schema import contract_dict
from staticflops.rulesets.loader import load_ruleset
from staticflops.shapes import parse_input_spec

from test_price_memo import BASE, RULES


def _gpt_ir(layers: int) -> ModelIR:
    return analyse_torch(load_source("samples/transformer.py"), None, {"n_layer": layers},
                         [parse_input_spec("1x64:int64")])


def _unshared(ir: ModelIR) -> ModelIR:
    """The same IR with every op holding containers of its own (what pricing saw before)."""
    ops = [op.model_copy(update={"attrs": dict(op.attrs), "facts": dict(op.facts), "inputs": list(op.inputs),
                                 "outputs": list(op.outputs), "needs_grad": list(op.needs_grad)})
           for op in ir.ops]
    return ir.model_copy(update={"ops": ops})


def _amounts(result) -> list:
    fields = ("flops", "macs", "mem_read", "mem_write", "activation", "input_grad", "weight_grad",
              "skipped_input_grad", "skipped_weight_grad", "saved", "known")
    return ([tuple(getattr(cost, f) for f in fields) for cost in result.ops]
            + [(layer.node.name, layer.flops, layer.macs, layer.params, layer.backward, layer.mem_read,
                layer.mem_write, layer.activation, layer.saved) for layer in result.layers])


def test_a_replayed_gpt_prices_as_if_every_op_held_its_own_values():
    ir = _gpt_ir(6)
    # 6 blocks: from the third on each is a replay of the second (construction and call
    # memos), so its ops hold the second block's containers
    assert len({id(op.attrs) for op in ir.ops}) < len(ir.ops)
    rules = load_ruleset("standard")
    for training in (False, True):
        assert _amounts(price(ir, rules, training=training)) == _amounts(price(_unshared(ir), rules, training=training))


def test_an_op_sharing_the_containers_but_not_a_scalar_field_is_priced_on_its_own(tmp_path):
    path = tmp_path / "probe.yaml"
    path.write_text(RULES)
    attrs, facts, inputs, outputs = {"scale": 2, "flag": True}, {"extra": 3}, [(2, 3)], [(2, 4)]

    def op(line, **changed):
        fields = dict(kind="probe", label="A", attrs=attrs, facts=facts, inputs=inputs, outputs=outputs, module="",
                      is_layer_call=False, location=Location("m.py", line, 1), needs_grad=[True], trainable_inputs=0)
        fields.update(changed)
        return OpCall.model_construct(**fields)  # the very same container objects in every op

    ops = [op(1), op(2, label="B"), op(3, is_layer_call=True), op(4, trainable_inputs=1), op(5, kind="probe2"), op(6)]
    ir = ModelIR(name="M", framework="pytorch", file="m.py", root=LayerNode(name="", type="M", location=Location("m.py", 1, 1)),
                 ops=ops, inputs=[], outputs=[], unknowns=[])
    result = price(ir, load_ruleset(str(path)))
    # test_price_memo.RULES: label B adds 50000, a module call 7, a trainable input 200000; probe2's macs = scale
    assert [cost.macs for cost in result.ops] == [BASE, BASE + 50000, BASE + 7, BASE + 200000, 2, BASE]


def test_json_rows_are_pydantics_dump_under_the_contract():
    reports = [
        staticflops.analyze("samples/transformer.py", inputs=["1x64:int64"], kwargs={"n_layer": 4}, training=True),
        staticflops.analyze("samples/resnet50.py", inputs=["1x3x224x224"], limits={"max_ops": 10}),  # partial
        staticflops.analyze("samples/lenet5.py", inputs=["Bx1x28x28"], rules="fvcore"),  # symbolic, unknown counts
        staticflops.analyze("samples/keras_seed.py"),
    ]
    assert reports[1].partial and any(isinstance(row.forward_flops, str) for row in reports[2].layers)
    for report in reports:
        assert report.to_json() == json.dumps(contract_dict(report.model_dump(mode="json")), indent=2)


ROTARY_BLOCKS = '''
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width, bias=False)

    def forward(self, x, position_embeddings):
        cos, sin, doubled = position_embeddings
        y = self.fc(x * cos + x * sin)
        return self.fc(y) if doubled else y


class Net(nn.Module):
    def __init__(self, width=8, depth=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def forward(self, x):
        for index, block in enumerate(self.blocks):
            x = block(x, position_embeddings=(x, x, index == 3))
        return x
'''


def test_blocks_given_a_tuple_of_tensors_are_replayed_keyed_by_its_items(tmp_path):
    """Rotary position embeddings reach every decoder layer as a ``(cos, sin)`` tuple: equal
    shapes and plain values replay the block's first call; a different plain value in the
    tuple (the last block's True) is a call of its own.  By hand, 1x8 tokens of width 8: a
    linear 2*8*8 = 128 FLOPs, once in blocks 0-2 and twice in block 3: 5 * 128 = 640."""
    path = tmp_path / "rotary.py"
    path.write_text(ROTARY_BLOCKS)
    ir = analyse_torch(load_source(str(path)), "Net", {}, [parse_input_spec("1x8")])
    linear_ops = [op for op in ir.ops if op.label == "Linear"]
    assert len(linear_ops) == 5
    assert len({id(op.attrs) for op in linear_ops}) < len(linear_ops)  # block 2 replays block 1's call
    report = staticflops.analyze(path, model="Net", inputs=["1x8"])
    assert report.totals.complete and report.totals.forward_flops == 5 * 128


INDEXED_BLOCKS = '''
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx  # read by {reader}
        self.fc = nn.Linear(width, width, bias=False)

    def forward(self, x):
        {body}


class Net(nn.Module):
    def __init__(self, width=8, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, i) for i in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
'''


def _indexed(tmp_path, reader: str, body: str):
    path = tmp_path / "indexed.py"
    path.write_text(INDEXED_BLOCKS.replace("{reader}", reader).replace("{body}", body))
    ir = analyse_torch(load_source(str(path)), "Net", {}, [parse_input_spec("1x8")])
    report = staticflops.analyze(path, model="Net", inputs=["1x8"])
    linears = [op for op in ir.ops if op.label == "Linear"]
    return report, len(linears), len({id(op.attrs) for op in linears})


def test_a_layer_index_the_forward_never_reads_does_not_split_the_replay(tmp_path):
    """Six blocks that differ only by ``layer_idx`` (transformers' decoder layers: read only to
    index a cache): from the third call on each replays the second.  By hand, 1x8 tokens of
    width 8: a linear 2*8*8 = 128 FLOPs a block, 6 * 128 = 768."""
    report, calls, distinct = _indexed(tmp_path, "nothing", "return self.fc(x)")
    assert report.totals.complete and report.totals.forward_flops == 6 * 128
    assert calls == 6 and distinct < 6


def test_an_index_the_forward_reads_is_compared_before_a_replay(tmp_path):
    """Odd blocks apply their linear twice: the blocks read ``layer_idx``, so a block replays
    only an earlier call that read the same value.  By hand: 3 even blocks * 128 + 3 odd * 256
    = 1,152 FLOPs (keyed by name alone, every block would replay block 0: 768)."""
    report, calls, _ = _indexed(tmp_path, "forward", """y = self.fc(x)
        return self.fc(y) if self.layer_idx % 2 else y""")
    assert report.totals.complete and report.totals.forward_flops == 3 * 128 + 3 * 256
    assert calls == 9


def test_a_forward_that_reads_its_whole_namespace_compares_every_integer(tmp_path):
    """``vars(self)`` hands the code every attribute: the layer index is read that way, not by
    name, and must still tell the blocks apart (the same counts as above: 1,152 FLOPs)."""
    report, calls, _ = _indexed(tmp_path, "vars()", """y = self.fc(x)
        return self.fc(y) if vars(self)["layer_idx"] % 2 else y""")
    assert report.totals.complete and report.totals.forward_flops == 3 * 128 + 3 * 256
    assert calls == 9
