"""The eager mixture-of-experts loop (staticflops/frontend/torch/routing.py): each token passes
through exactly top-k experts, so the loop over the experts the tokens reach costs the same
whatever the routing.  The snippets are the loop as transformers writes it (Mixtral, DBRX,
NLLB-MoE), a few lines each; every number is worked out by hand in the comments ("standard"
counts 2 FLOPs per multiply-add of a matmul and nothing for elementwise ops, as FlopCounterMode).
The recorded Mixtral is in tests/test_transformers.py."""

import textwrap

import staticflops

# S tokens of width 8; 4 experts of 8 -> 16 -> 8; a router Linear(8, 4) picks the top 2.
LOOP = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Experts(nn.Module):
    def __init__(self, experts=4, width=8, hidden=16, top_k=2):
        super().__init__()
        self.num_experts = experts
        self.top_k = top_k
        self.router = nn.Linear(width, experts, bias=False)
        self.up = nn.Parameter(torch.empty(experts, hidden, width))
        self.down = nn.Parameter(torch.empty(experts, width, hidden))

    def forward(self, x):
        weights, index = torch.topk(self.router(x).softmax(dim=-1), self.top_k, dim=-1)
        out = torch.zeros_like(x)
        mask = F.one_hot(index, num_classes=self.num_experts + EXTRA).permute(2, 1, 0)
        hit = torch.greater(mask.sum(dim=(-1, -2)), 0).nonzero()
        for expert in hit:
            expert = expert[0]
            BODY
            position, token = torch.where(mask[expert])
            h = F.relu(F.linear(x[token], self.up[expert]))
            h = F.linear(h, self.down[expert]) * weights[token, position, None]
            out.index_add_(0, token, h)
        return out
"""


def analyse(tmp_path, body="", extra=0, inputs=("10x8",)):
    path = tmp_path / "moe.py"
    source = LOOP.replace("EXTRA", str(extra)).replace("BODY", body or "pass")
    path.write_text(textwrap.dedent(source))
    return staticflops.analyze(path, inputs=list(inputs))


def test_the_loop_costs_tokens_times_k_rows_through_one_expert(tmp_path):
    report = analyse(tmp_path)
    # router: 10 tokens x 8 x 4 MACs = 320 -> 640 FLOPs; the 4 experts together see 10 x 2 = 20
    # rows (the one-hot mask holds one 1 per (token, choice)), each 8 x 16 + 16 x 8 = 256 MACs:
    # 5,120 MACs -> 10,240 FLOPs; total 10,880 whatever the routing
    assert report.totals.forward_flops == 10_880
    assert report.unknown == [], report.unknown
    assert report.outputs == [[10, 8]]


def test_symbolic_tokens_give_a_formula(tmp_path):
    report = analyse(tmp_path, inputs=("Tx8",))
    # router 2 x 8 x 4 = 64 per token; experts 2 x 2 choices x 256 = 1,024 per token
    assert report.totals.forward_flops == "1088*T"


def test_a_masking_class_that_no_index_reaches_is_skipped(tmp_path):
    # Mixtral: one_hot(..., num_classes=E + 1) and `if expert == E: continue`; topk's indices
    # are below 4, so class 4 holds no 1.  The compare on the expert index runs once per expert
    # reached, which the routing decides: counted once and reported; the FLOPs are as above.
    report = analyse(tmp_path, body="if expert == self.num_experts:\n                continue", extra=1)
    assert report.totals.forward_flops == 10_880
    assert [u.what for u in report.unknown] == [
        "`compare` runs once per expert the tokens reach (a number the routing decides): counted once"]


def test_an_expert_that_computes_otherwise_leaves_the_loop_unknown(tmp_path):
    # a "zero-compute" expert (LongCat-Flash's identity experts): the cost depends on how many
    # rows reach experts 2 and 3, which the routing decides -- the loop's ops are not counted
    # (only the router's 640 FLOPs) and a located unknown says why
    report = analyse(tmp_path, body="if expert >= 2:\n                continue")
    assert report.totals.forward_flops == 640
    whats = [u.what for u in report.unknown]
    assert "the per-expert loop's cost depends on the routing (expert 2 computes otherwise than expert 0)" in whats


def test_where_of_a_mask_outside_the_loop_is_data_dependent(tmp_path):
    path = tmp_path / "where.py"
    path.write_text(textwrap.dedent("""
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def forward(self, x):
                rows, cols = torch.where(x > 0)   # as many positions as positive values
                return x[rows]
        """))
    report = staticflops.analyze(path, inputs=["4x4"])
    assert any("data-dependent" in u.what for u in report.unknown)
