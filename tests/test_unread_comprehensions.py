"""A comprehension given to a call of an unknown (numpy arrays are not modelled) is run for its
effects alone: once its first element shows it has none, the rest is not run.  transformers'
sinusoidal position tables (Marian, Pegasus: ``np.array([[pos / np.power(10000, 2 * (j // 2) /
dim) for j in range(dim)] for pos in range(n_pos)])``) otherwise ran past the loop budget."""

import textwrap

import staticflops


def analyse(tmp_path, source, inputs=("1x4",)):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(source))
    return staticflops.analyze(path, inputs=list(inputs))


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
