"""Binary search of values in sorted sequences (searchsorted, bucketize)."""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue
from staticflops.shapes.shape import numel


def _search(attrs, inputs):
    """inputs: (values, sorted sequence); one index per value.  ``comparisons``: a binary
    search of n sorted values takes ceil(log2(n + 1)) comparisons per value."""
    values, ordered = inputs
    n = ordered[-1] if ordered else 1
    depth = n.bit_length() if isinstance(n, int) else 1
    return [values], {"n": n, "comparisons": numel(values) * depth}


KINDS = catalogue(
    Kind("search", _search, True,
         "the insertion index of each value in a sorted sequence (searchsorted, bucketize): comparisons",
         (Example("torch.bucketize(x, y)", ("x:8", "y:8"), ((8,),), 0,
                  "one index per value of x; comparisons only: 0"),)),
)
