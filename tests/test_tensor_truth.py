"""`if tensor:` as torch decides it: a one-element tensor by its value (known while the model is
built, or an unknown the report names: the data decides), any other size a RuntimeError the code
may catch; and the values of small tensors followed through the view, index, diff, cumsum and
all/any steps that transformers' packed-sequence check takes (masking_utils), so that check is
decided when the positions are known (arange) and reported when they are not.
Each width below is derived by hand from what torch computes."""

import pytest

from staticflops.api import analyze_text
from staticflops.diagnostics import AnalysisError

HEADER = "import torch\nfrom torch import nn\n\n"


def _analyse(tmp_path, source: str, inputs=("1x4",)):
    return analyze_text(HEADER + source, tmp_path / "model.py", inputs=list(inputs))


PACKED = '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        position_ids = torch.arange(x.shape[1]).unsqueeze(0)
        first = position_ids[:, :1] - 1
        diff = torch.diff(position_ids, prepend=first, dim=-1)
        packed = (diff != 1).cumsum(-1)
        if (packed[:, -1] == 0).all():
            return self.fc(x)
        return x
'''


def test_packed_sequence_check_is_decided_from_known_positions(tmp_path):
    """positions 0..7: prepend -1, first differences all 1, `!= 1` all False, running sums 0,
    the last 0: `.all()` is True and fc runs on 8 tokens: 8 * 4*4 = 128 MACs = 256 FLOPs."""
    report = _analyse(tmp_path, PACKED, inputs=("1x8x4",))
    assert report.totals.forward_flops == 256
    assert report.totals.complete


def test_packed_sequence_check_is_decided_for_a_symbolic_length(tmp_path):
    """With T symbolic, arange(T) is known as start 0, step 1: `[:, :1] - 1` is [[-1]], the
    differences with it prepended all 1 (0 - (-1) = 1, then the step), `!= 1` all False, their
    running sums all 0, the last one 0: the check is decided and fc counted on T tokens,
    2*T*4*4 = 32*T FLOPs, complete."""
    report = _analyse(tmp_path, PACKED, inputs=("1xTx4",))
    assert report.totals.forward_flops == "32*T"
    assert report.totals.complete, report.unknown


def test_a_tensor_of_unknown_value_in_an_if_is_reported(tmp_path):
    """Positions given as an input have values the analysis cannot know: the `if` is an
    assumption the report names (taken as true: fc counted, 32*T FLOPs), a lower bound."""
    source = PACKED.replace("def forward(self, x):", "def forward(self, x, positions):").replace(
        "position_ids = torch.arange(x.shape[1]).unsqueeze(0)", "position_ids = positions")
    report = _analyse(tmp_path, source, inputs=("1xTx4", "1xT:int64"))
    assert report.totals.forward_flops == "32*T"
    assert not report.totals.complete
    assert any("one-element tensor whose value is not known" in u.what for u in report.unknown)


PROGRESSIONS = '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 8)

    def forward(self, x):
        pos = (torch.arange(x.shape[1]) * 2 + 1).unsqueeze(0)
        if CONDITION:
            return self.a(x)
        return self.b(x)
'''


@pytest.mark.parametrize("condition, picks_a", [
    # 2j + 1 at j = 3 is 7
    ("(pos[..., 3] == 7).all()", True),
    ("(pos[:, 3] == 9).all()", False),
    # [:, 2:] starts at 2*2 + 1 = 5 and steps by 2: its element 1 is 7
    ("(pos[:, 2:][0, 1] == 7).all()", True),
    # [:, ::3] steps by 6 from 1: element 2 is 13
    ("(pos[:, ::3][:, 2] == 13).all()", True),
    # first differences of 1, 3, 5, ... all 2; their running sums 2, 4, 6, ... end at 2*(T-1)
    ("(torch.diff(pos, dim=-1) == 2).all()", True),
    ("(torch.diff(pos, dim=-1).cumsum(-1)[:, 0] == 2).all()", True),
    # pos - pos is 0 everywhere; pos * 0 + 5 is 5 everywhere; long/bool casts keep them
    ("((pos - pos) == 0).all()", True),
    ("((pos * 0 + 5).long() == 5).all()", True),
    ("(pos - pos).bool().any()", False),
])
def test_values_of_a_symbolic_length_arange_follow_its_progression(tmp_path, condition, picks_a):
    """pos = 2*arange(T) + 1 = [1, 3, 5, ...] with T >= 4 (--assume): each condition is derived by
    hand from that; a picks Linear(4, 4), 2*T*16 = 32*T FLOPs, b Linear(4, 8), 64*T."""
    report = analyze_text(HEADER + PROGRESSIONS.replace("CONDITION", condition), tmp_path / "model.py",
                          inputs=["1xTx4"], assume=["T>=4"])
    assert report.totals.forward_flops == ("32*T" if picks_a else "64*T")
    assert report.totals.complete, report.unknown


@pytest.mark.parametrize("condition", [
    "(pos == 1).all()",  # 1 only at j = 0: true for T = 1, false after, so not decided
    # a new last dimension, and a reshape that changes the last size: the steps now run along
    # another dimension, so element [2, 0] is 5 (read as the progression's first, it would be 1)
    "(pos[..., None][:, 2, 0] == 1).all()",
    "(pos.view(-1, 1)[2, 0] == 1).all()",
    "(pos[:, None] + torch.arange(3)[:, None, None] == 1).all()",  # broadcast with other values
    "(pos.float() == 1.0).all()",  # floats are not followed
    "(torch.diff(pos, dim=-1).cumsum(-1) == 2).all()",  # 2, 4, 6, ...: not one value
])
def test_what_a_progression_cannot_tell_stays_open(tmp_path, condition):
    report = analyze_text(HEADER + PROGRESSIONS.replace("CONDITION", condition), tmp_path / "model.py",
                          inputs=["1xTx4"], assume=["T>=4"])
    assert not report.totals.complete
    assert any("not known" in u.what for u in report.unknown), report.unknown


def test_truth_of_a_tensor_with_more_than_one_element_raises(tmp_path):
    """torch raises RuntimeError ("Boolean value of Tensor with more than one value is
    ambiguous"): caught here, so fc is built with 8 outputs, 4*8 + 8 = 40 params; uncaught, the
    analysis stops at that line."""
    caught = '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        try:
            width = 4 if torch.zeros(2, 3) else 6
        except RuntimeError:
            width = 8
        self.fc = nn.Linear(4, width)

    def forward(self, x):
        return self.fc(x)
'''
    assert _analyse(tmp_path, caught).totals.params == 40
    with pytest.raises(AnalysisError, match="more than one value is ambiguous"):
        _analyse(tmp_path, caught.replace("try:\n            width", "if True:\n            width").replace(
            "        except RuntimeError:\n            width = 8\n", ""))


def test_in_place_ops_change_or_forget_known_values(tmp_path):
    """`z.add_(2)` on arange(3) makes z [2, 3, 4]: a is Linear(4, 4), 4*4 + 4 = 20 params (with
    z's stale [0, 1, 2] it would be Linear(4, 2)).  `w.zero_()` makes w [0, 0, 0] (not the
    [0, 1, 2] it no longer holds): the `if` is true, so b is Linear(4, 100), 4*100 + 100 = 500
    params.  `v.uniform_()` leaves v unknown (random values, not the stale [0, 1, 2]): its `if` is
    an assumption, taken as true as every undecided condition, so c is Linear(4, 1000),
    4*1000 + 1000 = 5,000 params: 5,520 in all, incomplete."""
    report = _analyse(tmp_path, '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        z = torch.arange(3)
        z.add_(2)
        w = torch.arange(3)
        w.zero_()
        v = torch.arange(3.0)
        v.uniform_()
        self.a = nn.Linear(4, z.tolist()[2])
        if w.tolist() != [0, 1, 2]:
            self.b = nn.Linear(4, 100)
        if v.tolist() != [0.0, 1.0, 2.0]:
            self.c = nn.Linear(4, 1000)

    def forward(self, x):
        return self.a(x)
''')
    assert report.totals.params == 5520
    assert not report.totals.complete
    assert {u.location.split(":")[1] for u in report.unknown if "not known" in u.what} == {"17"}  # the `if` on v


def test_values_through_repeat_expand_and_basic_indexing(tmp_path):
    """arange(3).unsqueeze(0).repeat(2, 2) is [[0,1,2,0,1,2],[0,1,2,0,1,2]]: [1, 4] is 1;
    arange(2).view(2, 1).expand(2, 3) is [[0,0,0],[1,1,1]]: [..., -1] is [0, 1], its sum... taken
    as the list's last, 1; arange(6).view(2, 3)[:, 1:] is [[1,2],[4,5]]: [-1, 0] is 4.  Width
    1 + 1 + 4 = 6: Linear(4, 6) has 4*6 + 6 = 30 params."""
    report = _analyse(tmp_path, '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        a = torch.arange(3).unsqueeze(0).repeat(2, 2)[1, 4].item()
        b = torch.arange(2).view(2, 1).expand(2, 3)[..., -1].tolist()[-1]
        c = torch.arange(6).view(2, 3)[:, 1:][-1, 0].item()
        self.fc = nn.Linear(4, a + b + c)

    def forward(self, x):
        return self.fc(x)
''')
    assert report.totals.params == 30
    assert report.totals.complete


def test_broadcast_comparison_values(tmp_path):
    """arange(3)[:, None] == arange(3)[None, :] is the 3x3 identity (values broadcast, not zipped
    pairwise): not all True, its trace (diagonal sum via the flat list) 3, the first row
    [True, False, False].  So `.all()` is False (6 is not added) and the width is 3 + 1 = 4:
    Linear(4, 4) has 4*4 + 4 = 20 params."""
    report = _analyse(tmp_path, '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        a = torch.arange(3)
        eye = a[:, None] == a[None, :]
        rows = eye.tolist()
        width = rows[0][0] + rows[1][1] + rows[2][2] + (rows[0] == [True, False, False])
        if eye.all():
            width = width + 6
        self.fc = nn.Linear(4, width)

    def forward(self, x):
        return self.fc(x)
''')
    assert report.totals.params == 20
    assert report.totals.complete


def test_values_of_fills_full_reductions_and_an_index_list(tmp_path):
    """torch.ones(1, 4, dtype=bool): `.sum() == .numel()` (transformers' fast_all) is 4 == 4, True
    (+1); torch.full((2,), 3) summed is 6 (+6); zeros_like of it summed 0 (+0); arange(6).view(2, 3)
    indexed [:, tensor([2, 0])] is [[2, 0], [5, 3]], its last 3 (+3).  Width 1 + 6 + 0 + 3 = 10:
    Linear(4, 10) has 4*10 + 10 = 50 params."""
    report = _analyse(tmp_path, '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        mask = torch.ones(1, 4, dtype=torch.bool)
        full = torch.full((2,), 3)
        picked = torch.arange(6).view(2, 3)[:, torch.tensor([2, 0])]
        width = int((mask.sum() == mask.numel()).item()) + full.sum().item() \\
            + torch.zeros_like(full).sum().item() + picked.tolist()[1][1]
        self.fc = nn.Linear(4, width)

    def forward(self, x):
        return self.fc(x)
''')
    assert report.totals.params == 50
    assert report.totals.complete


def test_item_assignment_rewrites_known_values_or_forgets_them(tmp_path):
    """`mask[2] = 1.0` on zeros(4) makes [0, 0, 1, 0] (sum 1) and `grid[:, 0] = 3` on
    zeros(2, 2) makes [[3, 0], [3, 0]] (sum 6): fc is Linear(4, 4 + 1 + 6) = Linear(4, 11),
    4*11 + 11 = 55 params (with the stale zeros, Linear(4, 4): 20).  A write at an index the
    analysis cannot know forgets the values: the width is then an unknown the report names,
    never the stale 4."""
    source = '''
class M(nn.Module):
    def __init__(self, where=None):
        super().__init__()
        mask = torch.zeros(4)
        mask[2 if where is None else where] = 1.0
        grid = torch.zeros(2, 2)
        grid[:, 0] = 3
        self.fc = nn.Linear(4, 4 + int(mask.sum().item()) + int(grid.sum().item()))

    def forward(self, x):
        return self.fc(x)
'''
    assert _analyse(tmp_path, source).totals.params == 55
    # a boolean mask as the key (torch: every element is 0, so all become 1, sum 4) is not
    # followed: the sum is then not known, and the report says so where it is read (line 12
    # of the file with its 3-line header: `mask.sum().item()`)
    masked = _analyse(tmp_path, source.replace("2 if where is None else where", "mask == 0"))
    assert not masked.totals.complete
    assert any(u.location.endswith(":12:40") and "not known" in u.what for u in masked.unknown), masked.unknown


def test_a_view_keeps_the_dtype(tmp_path):
    """torch: a view or reshape is the same elements, so arange(6).view(2, 3) is int64 (it was
    made float32 here): fc is Linear(4, 6), 4*6 + 6 = 30 params (Linear(4, 3) would be 15)."""
    report = _analyse(tmp_path, '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        grid = torch.arange(6).view(2, 3)
        self.fc = nn.Linear(4, 6 if grid.reshape(3, 2).dtype == torch.int64 else 3)

    def forward(self, x):
        return self.fc(x)
''')
    assert report.totals.params == 30


def test_every_in_place_method_leaves_its_result_in_the_tensor(tmp_path):
    """`a.cumsum_(0)` on arange(4) makes a [0, 1, 3, 6] (the values kept before were the stale
    [0, 1, 2, 3]): fc is Linear(4, 6), 4*6 + 6 = 30 params (Linear(4, 3) would be 15)."""
    report = _analyse(tmp_path, '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        a = torch.arange(4)
        a.cumsum_(0)
        self.fc = nn.Linear(4, a.tolist()[3])

    def forward(self, x):
        return self.fc(x)
''')
    assert report.totals.params == 30


def test_copy_fill_and_zero_write_known_values(tmp_path):
    """`t.copy_(src)` holds src's values (broadcast, cast to t's dtype), `fill_(v)` v everywhere
    (a one-element tensor's value too), `zero_()` zeros: transformers' `init.copy_` writes a
    conv's stride into its buffer this way (EnCodec's padding).  t = [1, 2, 3] after copy_:
    sum 6; u = 7 after fill_: Linear(6, 7) = 6*7 + 7 = 49 params; w zeroed, so `w.sum() == 0`
    is true and g = Linear(1, 1) is built: 2 more, 51.  (Had copy_ forgotten the values, the
    sizes would be unknown.)"""
    report = _analyse(tmp_path, '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        t = torch.zeros(3, dtype=torch.int64)
        t.copy_(torch.tensor([1.0, 2.0, 3.0]))
        u = torch.empty((), dtype=torch.int64)
        u.fill_(torch.tensor(7))
        w = torch.ones(2, 2)
        w.zero_()
        self.fc = nn.Linear(int(t.sum()), int(u))
        if w.sum() == 0:
            self.g = nn.Linear(1, 1)

    def forward(self, x):
        return self.fc(x)
''', inputs=("1x6",))
    assert report.totals.params == 51 and report.unknown == []


def test_augmented_assignment_writes_into_the_tensor(tmp_path):
    """torch: `a += 2` is Tensor.__iadd__, in place, so b (the same tensor) is [2, 3, 4, 5] too:
    fc is Linear(4, 5), 4*5 + 5 = 25 params (with b stale at [0, 1, 2, 3], Linear(4, 3): 15)."""
    report = _analyse(tmp_path, '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        a = torch.arange(4)
        b = a
        a += 2
        self.fc = nn.Linear(4, b.tolist()[3])

    def forward(self, x):
        return self.fc(x)
''')
    assert report.totals.params == 25


def test_floor_division_remainder_and_rounding_modes_compute_their_values(tmp_path):
    """torch 2.13 (checked in tools' ground-truth env): (arange(4) % 3).sum() is 0+1+2+0 = 3;
    (arange(4) // 2).sum() is 0+0+1+1 = 2; (arange(-3, 1) % 3) is [0, 1, 2, 0]: 3; arange(-3, 1)
    // 2 is [-2, -1, -1, 0]: -4, so 10 + that = 6; div(-7, 2, rounding_mode="trunc") is -3 and
    "floor" -4: 10 + (-3) + (-4) = 3.  Width 3 + 2 + 3 + 6 + 3 = 17: Linear(4, 17), 4*17 + 17 = 85
    params (all were true divisions before: 0.0+0.33+...)."""
    report = _analyse(tmp_path, '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        a = int((torch.arange(4) % 3).sum().item())
        b = int((torch.arange(4) // 2).sum().item())
        c = int((torch.arange(-3, 1) % 3).sum().item())
        d = 10 + int((torch.arange(-3, 1) // 2).sum().item())
        seven = torch.tensor([-7])
        e = 10 + int(seven.div(2, rounding_mode="trunc").item()) + int(seven.div(2, rounding_mode="floor").item())
        self.fc = nn.Linear(4, a + b + c + d + e)

    def forward(self, x):
        return self.fc(x)
''')
    assert report.totals.params == 85, report.unknown


def test_a_like_function_of_none_raises_torchs_type_error(tmp_path):
    """torch.ones_like(None) raises TypeError (transformers' EnCodec forward without inputs dies
    there in torch too); code may catch it.  Caught here, the model takes the other head:
    Linear(4, 8) on 1x4 is 32 MACs = 64 FLOPs (a made-up tensor would take Linear(4, 4): 32)."""
    report = _analyse(tmp_path, '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.small = nn.Linear(4, 4)
        self.wide = nn.Linear(4, 8)

    def forward(self, x, mask=None):
        try:
            torch.ones_like(mask)
        except TypeError:
            return self.wide(x)
        return self.small(x)
''')
    assert report.totals.forward_flops == 64 and report.unknown == []
