"""Values nobody reads: a comprehension given to a call of an unknown (numpy arrays are not
modelled) is run for its effects alone (once its first element shows it has none, the rest is
not run), and numpy's unknowns are reported where the model needs them.  transformers'
sinusoidal position tables (Marian, Pegasus: ``np.array([[pos / np.power(10000, 2 * (j // 2) /
dim) for j in range(dim)] for pos in range(n_pos)])``, copied into a weight) ran past the loop
budget, then left three unresolved reads of numpy that changed no count."""

from snippet_helpers import analyse as snippet


def analyse(tmp_path, source, inputs=("1x4",)):
    return snippet(tmp_path, source, inputs)


def test_a_sinusoidal_table_of_two_million_entries_is_not_run(tmp_path):
    # 2,048 x 1,024 = 2,097,152 elements: twice the default loop budget (1,000,000), were they run
    report = analyse(tmp_path, """
        import numpy as np
        import torch.nn as nn

        def table(n_pos, dim):
            return np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.table = table(2048, 1024)
                self.proj = nn.Linear(4, 4)

            def forward(self, x):
                return self.proj(x)
    """)
    assert report.stopped is None and not report.partial
    # Linear(4, 4) on 1x4: 4*4 = 16 MACs = 32 FLOPs; 16 + 4 = 20 params
    assert report.totals.forward_flops == 32 and report.totals.params == 20


def test_elements_with_effects_are_all_run(tmp_path):
    # the first element appends (list.append is not pure) and the second comprehension's element
    # runs a statement of the analysed code: both are run in full, 100 + 100 = 200 items
    report = analyse(tmp_path, """
        import numpy as np
        import torch.nn as nn

        seen = []

        def note(i):
            seen.append(i)
            return i

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                np.array([seen.append(i) for i in range(100)])
                np.array([note(i) for i in range(100)])
                self.proj = nn.Linear(4, len(seen))

            def forward(self, x):
                return self.proj(x)
    """)
    # Linear(4, 200) on 1x4: 4*200 = 800 MACs = 1,600 FLOPs; 800 + 200 = 1,000 params
    assert report.totals.forward_flops == 1_600 and report.totals.params == 1_000


def test_a_known_call_reads_its_comprehension(tmp_path):
    # sum() is modelled: its argument's values are read, every element: 0 + 1 + ... + 99 = 4,950
    report = analyse(tmp_path, """
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, sum(i for i in range(100)) // 50)

            def forward(self, x):
                return self.proj(x)
    """)
    # 4,950 // 50 = 99 outputs: Linear(4, 99) on 1x4: 396 MACs = 792 FLOPs; 396 + 99 = 495 params
    assert report.totals.forward_flops == 792 and report.totals.params == 495


def test_numpy_values_the_model_never_reads_leave_it_complete(tmp_path):
    # numpy arrays are not modelled, and numpy is never part of the model's cost: a sinusoidal
    # table copied into a weight (Marian's create_weight) is an unknown nobody reads, not an
    # unresolved count; Linear(4, 4) on 1x4: 32 FLOPs, 20 params
    report = analyse(tmp_path, """
        import numpy as np
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 4)
                table = np.array([[p / np.power(10000, j / 4) for j in range(4)] for p in range(4)])
                with torch.no_grad():
                    self.proj.weight[:, 0:2] = torch.FloatTensor(np.sin(table[:, 0::2]))

            def forward(self, x):
                return self.proj(x)
    """)
    assert report.totals.complete and not report.unknown
    assert report.totals.forward_flops == 32 and report.totals.params == 20


def test_a_numpy_value_the_model_needs_is_reported_with_its_cause(tmp_path):
    # an unknown of numpy read as a layer's size: the report names numpy.random where it was read
    report = analyse(tmp_path, """
        import numpy as np
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, int(np.random.randint(8, 9)))

            def forward(self, x):
                return self.proj(x)
    """)
    assert not report.totals.complete
    assert any("numpy.random" in u.what for u in report.unknown), [u.what for u in report.unknown]
