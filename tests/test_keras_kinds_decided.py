"""The op kinds the Keras front end added for issue 20 each have an explicit decision in every
built-in rule set's own file (a rule, or a place in `zero_cost`), not one inherited silently
from `standard`.  `torch-cpu` is `torch` on CPU kernels and takes its decisions from it."""

from pathlib import Path

import pytest
import yaml

RULES = Path(__file__).resolve().parent.parent / "rules"
# Issue 20's new kinds, and the Keras preprocessing kinds it asks to decide per rule set.
KERAS_KINDS = ["augment", "crop_to", "repeat", "take", "rescale", "resize", "normalization", "pointwise", "lookup", "fft"]
RULE_SETS = ["standard", "full", "tf-profiler", "torch", "fvcore", "thop", "ptflops", "torchinfo", "torchstat", "calflops"]


@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_every_keras_kind_is_decided(rule_set):
    data = yaml.safe_load((RULES / f"{rule_set}.yaml").read_text())
    decided = set(data.get("zero_cost") or ()) | set(data.get("rules") or {})
    assert [k for k in KERAS_KINDS if k not in decided] == []


def test_full_says_how_it_counts_them():
    rules = yaml.safe_load((RULES / "full.yaml").read_text())
    assert {"augment", "crop_to"} <= set(rules["rules"])
    assert all(rules["rules"][k].get("note") for k in ("augment", "crop_to"))
    assert {"repeat", "take"} <= set(rules["zero_cost"])  # copies: no arithmetic (commented in the file)


def test_full_counts_keras_pointwise_math_and_says_how():
    rules = yaml.safe_load((RULES / "full.yaml").read_text())
    assert rules["rules"]["pointwise"]["flops"] == "numel(y)" and rules["rules"]["pointwise"].get("note")
