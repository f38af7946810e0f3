"""Every code staticflops reports, one entry each: its meaning and the template of its message.

Codes are stable: a code keeps its meaning once published, so scripts, ``check`` output and
``# staticflops: ignore[CODE]`` comments can name it.  A new kind of report gets a new code.
The places that raise or report use the code as a string literal (``code="SF301"``);
``tests/test_incomplete.py`` keeps every literal in the package and this table in step.

Families: SF0xx reading and parsing the file; SF1xx running the model's code (a model that
cannot be built, a budget reached, a statement skipped); SF2xx rule and hardware files;
SF3xx shapes and sizes; SF4xx unknowns, the things left unresolved (the totals are then lower
bounds).  Messages fill the template's ``{fields}``; the text after a colon is the detail.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    code: str
    summary: str  # what it means, in a few words
    template: str  # the message's shape; {fields} are filled by the place that reports it


CATALOGUE: dict[str, Code] = {entry.code: entry for entry in (
    # reading and parsing
    Code("SF001", "the file cannot be read", "cannot read {path}: {reason}"),
    Code("SF002", "the file is too large", "{path} is {size} bytes, over the {limit}-byte limit (--max-file-bytes)"),
    Code("SF003", "the file is not UTF-8 text", "not UTF-8 text: {reason}"),
    Code("SF004", "syntax error", "syntax error: {detail}"),
    Code("SF005", "the file nests too deeply or costs too much to parse", "{detail} (--max-expr-depth, --max-tokens)"),
    # running the model's code
    Code("SF100", "the model cannot be analysed", "{detail}"),
    Code("SF101", "the selected object is not a model", "`{name}` did not produce an nn.Module ({what})"),
    Code("SF102", "no input shape given", "no --input given: pass one shape per argument of {name}"),
    Code("SF103", "--model names nothing usable", "`{model}` could not be defined: {reason}"),
    Code("SF104", "no model found in the file",
         "no model class or builder function in {path}: choose one with --model"),
    Code("SF105", "several models in the file", "several models in {path}: choose one with --model"),
    Code("SF110", "the model's code fails here", "{detail}"),
    Code("SF111", "the model raises an error here", "the model raises an error here: {exception}"),
    Code("SF112", "iteration over something not iterable", "cannot iterate over {what}"),
    Code("SF113", "a missing key, index or attribute", "{container} has no member {key}"),
    Code("SF114", "a call with the wrong arguments", "{function}() {problem}"),
    Code("SF115", "an operation the object does not support", "{what} cannot be {done}"),
    Code("SF116", "a module that does not exist", "No module named '{module}'"),
    Code("SF120", "a budget stopped the analysis (or the model's graph is unknown)",
         "{what} over {limit} (--max-{budget}); the report is partial"),
    Code("SF121", "a Keras model called with the wrong number of inputs",
         "{model} expects {expected} input tensor(s), got {given}"),
    Code("SF122", "a Keras container given something that is not a layer", "{container} expects a layer"),
    Code("SF130", "a statement was skipped (warning)",
         "statement skipped, the names it binds left unknown: {cause}"),
    Code("SF131", "a condition could not be decided (a warning, and an unknown with this code)",
         "condition could not be decided ({reason}); assumed {branch}"),
    # rule and hardware files
    Code("SF200", "a rule set that cannot be found", "no rule set named {name}; built-in ones: {names}"),
    Code("SF201", "a rule set that extends itself", "rule set {path} extends itself through {chain}"),
    Code("SF202", "a rule file that fails validation", "rule file: `{field}`: {problem}"),
    Code("SF203", "a rule formula that does not compile", "rule `{kind}`, `{name}`: {problem}"),
    Code("SF204", "a rule file that cannot be read as YAML", "rule file {path}: {problem}"),
    Code("SF205", "a hardware table that fails validation", "{path}: {problem}"),
    # shapes and sizes
    Code("SF301", "shapes that do not fit the operation", "{operation}: {problem}"),
    Code("SF302", "a size past the frameworks' limit",
         "{what} is over the limit (2**63 - 1) of PyTorch and TensorFlow"),
    # unknowns: the counts are lower bounds
    Code("SF400", "a value the model's code uses could not be resolved", "{what}"),
    Code("SF401", "no rule (or no backward formula) prices this operation or layer",
         "no rule for `{kind}` ({label}) in rule set `{rules}`"),
    Code("SF402", "a rule could not be evaluated for this call",
         "rule `{kind}` ({origin}) could not be evaluated: {reason}"),
    Code("SF403", "a layer's parameters could not be counted", "parameters of {type} could not be evaluated: {reason}"),
    Code("SF404", "a memory figure could not be evaluated", "{what} of `{kind}` could not be evaluated: {reason}"),
)}
