"""Budget values as people write them: ``8.5G``, ``26M``, ``8.5e9``, ``8_500_000_000``."""

from __future__ import annotations

import math
import re
from decimal import Decimal, DecimalException

# Every metric a budget may cap: the report's ``totals`` field of the same name.
METRICS = ("forward_flops", "macs", "params", "trainable_params", "backward_flops", "training_flops")
# Computed only by ``analyze(..., training=True)`` on a staticflops that supports it.
TRAINING_METRICS = ("backward_flops", "training_flops")

_SUFFIXES = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "B": 10**9, "T": 10**12, "P": 10**15}
# Past any real model (the largest published training runs are ~1e26 FLOPs), and a bound on
# the integer built: "1e999999" would otherwise be a million-digit number, minutes to make.
MAX_BUDGET = 10**30
_PATTERN = re.compile(r"([0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?)\s*([KMGBTP]?)", re.IGNORECASE)


class BudgetError(ValueError):
    pass


def parse_budget(value: object) -> int:
    """A non-negative whole count; a decimal suffix is SI (K=1e3, M=1e6, G=B=1e9, T=1e12)."""
    if isinstance(value, bool):
        raise BudgetError(f"budget must be a number like 8.5G, 26M or 8_500_000_000, not {value!r}")
    if isinstance(value, int):
        number = Decimal(value)
    elif isinstance(value, float):
        if not math.isfinite(value):  # TOML `inf`, `nan`, and `1e400` (a float past the largest)
            raise BudgetError(f"budget {value!r} is not a finite number (TOML and YAML read one past 1.8e308 as inf)")
        number = Decimal(repr(value))
    elif isinstance(value, str):
        match = _PATTERN.fullmatch(value.strip())
        if not match:
            raise BudgetError(f"budget {value!r} is not a number like 8.5G, 26M, 8.5e9 or 8_500_000_000")
        try:
            number = Decimal(match.group(1).replace("_", "")) * _SUFFIXES[match.group(2).upper()]
        except DecimalException:  # an exponent past Decimal's range: "1e99999999"
            raise BudgetError(f"budget {value!r} is not a number we can hold") from None
    else:
        raise BudgetError(f"budget must be a number like 8.5G, 26M or 8_500_000_000, not {value!r}")
    if number < 0:
        raise BudgetError(f"budget {value!r} is negative")
    if number > MAX_BUDGET:
        raise BudgetError(f"budget {value!r} is over 10**30, more than any model counts")
    if number != number.to_integral_value():
        raise BudgetError(f"budget {value!r} is not a whole count")
    return int(number)
