"""One model, several conventions: price the same IR under each rule set and find the
layers where the conventions disagree most."""

from __future__ import annotations

from dataclasses import dataclass, field

from staticflops.cost.evaluate import CostResult, price
from staticflops.ir import ModelIR
from staticflops.rulesets import RuleSet


@dataclass
class Priced:
    rules: RuleSet
    cost: CostResult
    layers: dict = field(default_factory=dict)  # module path -> LayerCost

    @property
    def headline(self):
        """The number the convention's tool prints: FLOPs or MACs."""
        return self.cost.flops if self.rules.headline == "flops" else self.cost.macs

    def layer_headline(self, path: str):
        layer = self.layers.get(path)
        if layer is None:
            return None
        return layer.flops if self.rules.headline == "flops" else layer.macs


@dataclass
class Disagreement:
    path: str
    type: str
    values: dict  # rule set name -> its headline number for this layer
    spread: int  # max - min, in MAC-equivalents (FLOP headlines halved)


def price_all(ir: ModelIR, rulesets: list) -> list:
    priced = []
    for rules in rulesets:
        cost = price(ir, rules)
        priced.append(Priced(rules, cost, {layer.node.name: layer for layer in cost.layers}))
    return priced


def disagreements(priced: list, top: int = 5) -> list:
    """Leaf layers (no children) ranked by how far apart the conventions put them."""
    if not priced:
        return []
    found = []
    for layer in priced[0].cost.layers:
        node = layer.node
        if not node.name or node.children:
            continue
        values = {p.rules.name: p.layer_headline(node.name) for p in priced}
        comparable = [_mac_equivalent(v, p.rules.headline) for p, v in zip(priced, values.values())]
        numbers = [v for v in comparable if isinstance(v, (int, float))]
        if len(numbers) < 2:
            continue
        spread = max(numbers) - min(numbers)
        if spread:
            found.append(Disagreement(node.name, node.type, values, int(spread)))
    found.sort(key=lambda d: (-d.spread, d.path))
    return found[:top]


def _mac_equivalent(value, headline: str):
    if not isinstance(value, int):
        return None  # symbolic (depends on B): not ranked
    return value / 2 if headline == "flops" else value
