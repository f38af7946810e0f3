"""Random draws whose comparisons are decided anyway: ``torch.rand`` lies in [0, 1).

Code run in train mode tests a draw against a probability: peft's LoKr keeps its adapter
``if torch.rand(1) > module_dropout``, transformers' LayerDrop skips a layer
``if torch.rand([]) < self.layerdrop``.  With the probability at 0 (the defaults) or at 1, the
test has one outcome: ``rand < 0``, ``rand >= 1`` never hold, ``rand >= 0``, ``rand < 1``
always do, and ``rand > 0`` holds unless the draw is exactly 0, which torch's float32
``rand`` gives with probability 2**-24 per element: taken as holding.  Any other
probability leaves the test undecided, as before (the data decides).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from staticflops.frontend.torch import constants
from staticflops.frontend.values import Tensor


@dataclass(eq=False)
class UnitDraw(Tensor):
    """``torch.rand(...)`` / ``rand_like``: every element uniform in [0, 1)."""


# comparison -> (the draw on the left, a number on the right): holds for every draw in [0, 1)?
_ALWAYS = {"gt": lambda r: r <= 0, "ge": lambda r: r <= 0, "lt": lambda r: r >= 1, "le": lambda r: r >= 1,
           "ne": lambda r: r < 0 or r >= 1}
_NEVER = {"gt": lambda r: r >= 1, "ge": lambda r: r >= 1, "lt": lambda r: r <= 0, "le": lambda r: r < 0,
          "eq": lambda r: r < 0 or r >= 1}
_MIRRORED = {"gt": "lt", "ge": "le", "lt": "gt", "le": "ge", "eq": "eq", "ne": "ne"}


def compared(result: Tensor, left, right, comparison: str) -> Tensor:
    """``result`` with its values known when a draw compared with a number has one outcome."""
    if isinstance(right, UnitDraw) and not isinstance(left, Tensor):
        left, right, comparison = right, left, _MIRRORED.get(comparison, comparison)
    if not isinstance(left, UnitDraw) or isinstance(right, bool) or not isinstance(right, (int, float)) \
            or result.shape is None or not all(type(d) is int for d in result.shape):
        return result
    outcome = True if _ALWAYS.get(comparison, _none)(right) else False if _NEVER.get(comparison, _none)(right) else None
    count = math.prod(result.shape)
    if outcome is None or count > constants.MAX_VALUES:
        return result
    result.values = constants.repeated(outcome, count, "bool")
    return result


def _none(_) -> bool:
    return False
