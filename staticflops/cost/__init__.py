"""Cost stage: the IR's ops and layers, priced by a rule set."""

from staticflops.cost.evaluate import CostResult, LayerCost, OpCost, price

__all__ = ["CostResult", "LayerCost", "OpCost", "price"]
