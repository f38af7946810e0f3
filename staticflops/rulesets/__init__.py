"""Rules stage: rule files (YAML) -> a compiled, merged rule set of safe formulas."""

from staticflops.rulesets.formula import Formula, FormulaError
from staticflops.rulesets.loader import CompiledRule, RuleSet, builtin_names, builtin_rules_dir, load_ruleset

__all__ = ["CompiledRule", "Formula", "FormulaError", "RuleSet", "builtin_names", "builtin_rules_dir", "load_ruleset"]
