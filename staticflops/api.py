"""The Python API: ``analyze`` returns the report the CLI prints (pure: no printing, no exit)."""

from __future__ import annotations

import functools
import gc
import json
import math
import sys
import threading
from pathlib import Path
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from staticflops.cost import price
from staticflops.diagnostics import AnalysisError, UsageError
from staticflops.frontend.budget import make_budget
from staticflops.frontend.detect import uses_keras
from staticflops.frontend.libraries import LibraryFiles, library_roots, recording_reads  # noqa: F401  (project mode's cache)
from staticflops.frontend.hf_config import cache_root_of, config_model, is_model_config, stand_in_reader
from staticflops.frontend.pytorch import analyse_torch
from staticflops.frontend.parsed_cache import store_pending
from staticflops.frontend.prefetch import reap_stopped, start as start_prefetch
from staticflops.frontend.source import FileReader, load_source
from staticflops.ir.sizes import check_sizes
from staticflops.report import Report, build_report
from staticflops.report.build import count
from staticflops.rulesets import builtin_names, load_ruleset
from staticflops.shapes import InputSpec, assume_ranges, parse_input_spec, parse_keyword_input
from staticflops.shapes.precision import precision as number_format

if TYPE_CHECKING:  # comparison, training and hardware modules load only when asked for (start-up time)
    from staticflops.report.compare import Comparison
    from staticflops.report.schema import Training


class _WhileAnalysing:
    """A process-wide setting an analysis needs, applied while any analysis runs and put back
    when the last concurrent one ends (analyses in threads would otherwise restore each other's
    values and leave the process changed).  ``change()`` applies it and returns what it replaced;
    ``restore(saved)`` puts that back."""

    def __init__(self, change, restore):
        self._change, self._restore = change, restore
        self._lock = threading.Lock()
        self._active = 0
        self._saved = None

    def __enter__(self):
        with self._lock:
            if self._active == 0:
                self._saved = self._change()
            self._active += 1

    def __exit__(self, *error):
        with self._lock:
            self._active -= 1
            if self._active == 0:
                self._restore(self._saved)


def _skip_full_collections():
    """An analysis only grows its heap (syntax trees, interpreter values, the IR) until it
    returns, and each full collection rescans all of it: a 10,000-layer file spent 2.9 s of
    8.5 s in 9 of them, which found nothing to free.  Short-lived cycles still die young.
    The youngest generation is collected after 10,000 new objects instead of 700: most of an
    analysis's short-lived containers are freed by reference counting before a collection
    would look at them (a 96-block GPT: 125 collections, 12 ms of 0.37 s, became 7, 4.5 ms);
    at most that many objects of unreachable cycles wait a little longer to be freed."""
    saved = gc.get_threshold()
    young, middle, full = saved
    gc.set_threshold(max(young, _YOUNG_AFTER), middle, max(full, _FULL_AFTER))
    return saved


_FULL_AFTER = 1_000  # young (generation-1) collections per full one; Python's default is 10
_YOUNG_AFTER = 10_000  # new objects per collection of the youngest generation; Python's default is 700
_HEAP = _WhileAnalysing(_skip_full_collections, lambda saved: gc.set_threshold(*saved))


# Library trees parsed by an analysis are stored in the parsed-module cache when the last
# running analysis ends, with the function bodies it lowered (parsed_cache.store_later); on the
# big stack, as encoding a deep tree recurses.
_TREES = _WhileAnalysing(lambda: None, lambda _: _with_deep_stack(store_pending))


def _few_full_collections(function):
    @functools.wraps(function)
    def run(*args, **kwargs):
        try:
            with _HEAP, _TREES:
                return function(*args, **kwargs)
        finally:  # the process that parsed ahead (frontend/prefetch.py) never outlives the call
            reap_stopped()
    return run


@_few_full_collections
def analyze(
    path: str | Path,
    model: str | None = None,
    inputs: Iterable[str | InputSpec] = (),
    kwargs: dict | str | None = None,
    rules: str = "standard",
    training: bool = False,
    freeze: Iterable[str] = (),
    steps: int | None = None,
    hardware: str | None = None,
    precision: str = "bf16",
    mfu: float | None = None,
    reader: FileReader | None = None,
    batch: int | None = None,
    dtype: str = "float32",
    limits: dict | None = None,
    python: str | Path | None = None,
    source_path: Iterable[str | Path] = (),
    environment_inside: str | Path | None = None,
    env: dict | Iterable[str] | None = None,
    peak_tflops: float | None = None,
    assume: Iterable[str] = (),
    keyword_inputs: Iterable[str] | dict = (),
    gradient_checkpointing: bool = False,
    past_tokens: int | str | None = None,
) -> Report:
    """Analyse the model defined in ``path`` without importing or running it.

    ``inputs``: one shape per ``forward`` argument, as ``"1x3x224x224"``, ``"B,3,224,224"``
    or ``"Bx1024:int64"``.  ``kwargs``: constructor arguments (a dict or a JSON object).
    ``training``: add backward FLOPs (input- and weight-gradient) and training FLOPs per step;
    ``freeze``: module-path globs whose weights get no gradient; ``steps``, ``hardware``,
    ``precision``, ``mfu``: turn training FLOPs into a run total and GPU-hours;
    ``peak_tflops``: the device's peak in TFLOP/s instead of ``hardware`` (for one not in
    ``rules/hardware.yaml``).  ``precision`` and ``dtype`` take the same names (bf16,
    bfloat16, fp16, half...: ``staticflops.shapes.precision``).
    ``reader``: reads the analysed files' bytes by path (default: the filesystem), e.g. from
    a git revision; every location still names ``path`` as given.
    ``batch``: Keras models only: the size of a batch dimension the source leaves open
    (``Input(shape=...)``); without it that dimension is the symbol ``B``.
    ``dtype``: element type for the memory figures (float32, bfloat16, float16, int8).
    ``limits``: overrides of the interpreter's bounds (``staticflops.limits.DEFAULT_LIMITS``,
    e.g. ``{"max_steps": 10_000_000}``).
    ``python``: the interpreter of the environment whose site-packages third-party imports
    are read from (never run: found from ``pyvenv.cfg`` and the folder layout); default: the
    environment staticflops runs in.  ``source_path``: folders searched for third-party
    packages before it.  Library source is read, never imported.  ``environment_inside``: a
    folder (the project root) that every ``python``/``source_path`` folder must lie in, for
    settings taken from a project's config.
    ``env``: the analysed program's ``os.environ`` (a dict, or ``"KEY=VALUE"`` strings); empty
    by default, as on a clean CI machine — staticflops' own environment is never read.
    ``assume``: ranges of sizes named in ``inputs`` (``"T>=2"``, ``"2<=T<=4096"``): the code's
    comparisons of them that a range decides are decided, and the report says the counts hold
    in that range (``Report.assumed``).
    ``keyword_inputs``: tensors given to ``forward`` by keyword (PyTorch models), as
    ``"NAME=SHAPE"`` strings or a dict NAME -> shape: ``decoder_input_ids=1x8:int64``; a dotted
    NAME is a key of a dict argument (``added_cond_kwargs.time_ids=1x6``).
    ``gradient_checkpointing``: switch it on with the model's library method
    (``gradient_checkpointing_enable()``, timm's ``set_grad_checkpointing()``) before the
    forward; implies ``training``.  With or without it, ``torch.utils.checkpoint`` calls in the
    code mark regions whose forward backward runs again: ``totals.recompute_flops``, included in
    ``training_flops``.  A training step's forward runs in train mode (``model.train()``).
    Hitting a bound does not raise: the analysis stops there and the returned Report has
    ``partial=True`` and ``stopped`` (the budget's message and ``path:line:col``, also in
    ``diagnostics``); it prices the layers built and the ops traced until then, so every
    count is a lower bound (``totals.complete`` is False).  Stopped inside the model's
    constructor: the layers constructed so far, no forward pass.  Stopped before the model's
    constructor ran (module level, an import): ``AnalysisError``, as nothing of it exists.
    Raises ``AnalysisError`` (with a location) when the model cannot be analysed and
    ``UsageError`` for malformed arguments.
    """
    specs, keywords, past = _input_specs(inputs, keyword_inputs, assume, past_tokens)
    freeze = tuple(freeze)
    training = training or bool(freeze) or steps is not None or hardware is not None or peak_tflops is not None \
        or gradient_checkpointing
    if past is not None and training:
        raise UsageError("--past-tokens prices an inference step: it takes no --training options")
    if hardware is not None and peak_tflops is not None:
        raise UsageError("--hardware and --peak-tflops both give the peak throughput: use one")
    for flag, given in (("--hardware", hardware), ("--peak-tflops", peak_tflops)):
        if given is not None and mfu is None:
            raise UsageError(f"{flag} needs --mfu: the fraction of peak throughput you expect (e.g. 0.4)")
    if peak_tflops is not None and (isinstance(peak_tflops, bool) or not isinstance(peak_tflops, (int, float))
                                    or not 0 < peak_tflops < math.inf):
        raise UsageError(f"--peak-tflops must be a positive number of TFLOP/s, got {peak_tflops!r}")
    if mfu is not None and not 0 < mfu <= 1:
        raise UsageError(f"--mfu must be in (0, 1], got {mfu}")
    dtype = number_format(dtype, "--dtype").dtype  # bf16 -> bfloat16; a usage error before any work
    number_format(precision, "--precision")
    budget = make_budget(limits)
    libraries = LibraryFiles(library_roots(python and str(python), [str(p) for p in source_path],
                                           environment_inside and str(environment_inside)), budget.max_file_bytes)
    environment = parse_env(env)
    ruleset = load_ruleset(rules)
    read = _ModelSource(path, reader, budget, libraries, model)
    try:
        source, model, reader = read.source(), read.model, read.reader
        if batch is not None and (not isinstance(batch, int) or batch < 1):
            raise UsageError("--batch must be a positive integer")
        ir = _with_deep_stack(lambda: front_end(source).trace(source, model, _kwargs(kwargs), specs, freeze=freeze,
                                                              batch=batch, reader=reader, budget=budget,
                                                              libraries=libraries, env=environment,
                                                              keyword_inputs=keywords, training=training,
                                                              checkpointing=gradient_checkpointing, past=past))
    finally:
        read.stop()
    if read.shown:
        ir.name = read.shown
    check_sizes(ir)
    cost = price(ir, ruleset, training=training)
    summary = _training_summary(ir, cost, freeze, steps, hardware, precision, mfu, peak_tflops) if training else None
    return build_report(ir, cost, ruleset, summary, dtype=dtype)


def _input_specs(inputs, keyword_inputs, assume, past_tokens=None) -> tuple[list, dict, object]:
    """The positional input specs, the keyword ones (name -> spec) and the ``past_tokens`` size
    (None, an int or a symbol), the ranges ``assume`` gives applied to the sizes any of them names."""
    specs = [s if isinstance(s, InputSpec) else parse_input_spec(s) for s in inputs]
    items = keyword_inputs.items() if isinstance(keyword_inputs, dict) else map(parse_keyword_input, keyword_inputs)
    keywords = {name: spec if isinstance(spec, InputSpec) else parse_input_spec(spec) for name, spec in items}
    extra = [] if past_tokens is None else [_past_spec(past_tokens)]
    ranged = assume_ranges(specs + list(keywords.values()) + extra, assume)
    past = ranged[-1].shape[0] if extra else None
    return ranged[:len(specs)], dict(zip(keywords, ranged[len(specs):len(specs) + len(keywords)])), past


def _past_spec(past_tokens) -> InputSpec:
    """``--past-tokens``: a positive count or a size name, read as a one-size shape."""
    text = str(past_tokens) if not isinstance(past_tokens, bool) else ""
    try:
        spec = parse_input_spec(text)
    except UsageError:
        spec = None
    if spec is None or len(spec.shape) != 1 or spec.dtype != "float32" or spec.fill is not None \
            or (type(spec.shape[0]) is int and spec.shape[0] < 1):
        raise UsageError(f"--past-tokens expects a number of cached tokens (2047) or a size name (P), "
                         f"got {str(past_tokens)[:40]!r}")
    return spec


class _ModelSource:
    """The parsed file a command analyses: the file itself, or for a Hugging Face config.json
    a stand-in module building its architecture from the installed transformers (``model``
    then names that class), its library files parsed on the other core meanwhile
    (frontend/prefetch.py) until ``stop()``."""

    def __init__(self, path, reader, budget, libraries, model):
        self.path, self.reader, self.budget, self.model = path, reader, budget, model
        self.cache_root, self.generated, self.ahead, self.shown = None, False, None, None
        if is_model_config(path):
            stand_in, self.model = config_model(path, reader, budget.max_file_bytes, model, libraries)
            self.shown = self.model.split("(", 1)[0].split(".", 1)[0]  # the class, not our generated expression
            self.cache_root = cache_root_of(path, reader)
            self.reader = stand_in_reader(path, stand_in, reader)
            self.generated = True  # our stand-in module, not a file of the project: read by Python's parser
            self.ahead = start_prefetch(stand_in, libraries, budget.parse_limits, budget.max_file_bytes,
                                        self.cache_root)

    def source(self):
        # deep nesting (a 500-level expression) recurses in libcst too: parse on the big stack
        return _with_deep_stack(lambda: load_source(self.path, reader=self.reader, max_bytes=self.budget.max_file_bytes,
                                                    parse_limits=self.budget.parse_limits, cache_root=self.cache_root,
                                                    library=self.generated))

    def stop(self) -> None:
        if self.ahead is not None:
            self.ahead.stop()


@dataclass(frozen=True)
class FrontEnd:
    """One framework's reader: ``claims`` a parsed file by its imports, ``trace`` builds the
    model's IR.  Every command (analyze, compare, check, diff, folder mode) picks from the
    same table, so none of them hard-codes a framework."""
    name: str
    claims: Callable
    trace: Callable


def _trace_torch(source, model, kwargs, specs, *, freeze=(), batch=None, **context):
    return analyse_torch(source, model, kwargs, specs, freeze=freeze, **context)  # batch: a Keras notion


def _trace_keras(source, model, kwargs, specs, *, freeze=(), batch=None, keyword_inputs=None, training=False,
                 checkpointing=False, past=None, **context):
    from staticflops.frontend.keras_model import analyse_keras  # only Keras files pay for its import

    if keyword_inputs:
        raise UsageError("--keyword-input is for PyTorch models (a Keras model is called with its inputs in order)")
    if checkpointing:
        raise UsageError("--gradient-checkpointing is for PyTorch models (torch.utils.checkpoint)")
    if past is not None:
        raise UsageError("--past-tokens is for PyTorch models (forward's past_key_values)")
    return analyse_keras(source, model, kwargs, specs, batch, freeze=freeze, **context)


# Tried in order; the last claims every file (a file that imports neither framework is read
# as PyTorch, whose messages then say what is missing).
FRONT_ENDS = (FrontEnd("keras", uses_keras, _trace_keras), FrontEnd("torch", lambda source: True, _trace_torch))


def front_end(source) -> FrontEnd:
    return next(end for end in FRONT_ENDS if end.claims(source))


def parse_env(env) -> dict:
    """``--env KEY=VALUE`` options (or a dict) as the analysed program's environment."""
    if env is None:
        return {}
    if isinstance(env, dict):
        items = list(env.items())
    else:
        items = []
        for entry in env:
            if not isinstance(entry, str) or "=" not in entry or entry.startswith("="):
                raise UsageError(f"--env expects KEY=VALUE, got {entry!r}")
            items.append(tuple(entry.split("=", 1)))
    for key, value in items:
        if not isinstance(key, str) or not isinstance(value, str):
            raise UsageError(f"--env: names and values are strings, got {key!r}={value!r}")
    return dict(items)


def _training_summary(ir, cost, freeze, steps, hardware, precision, mfu, peak_tflops=None) -> Training:
    from staticflops.cost.training import run_budget, training_facts
    from staticflops.report.schema import Training, TrainingBudget
    from staticflops.rulesets.hardware import load_device

    facts = training_facts(ir, cost)
    summary = Training(backward_forward_ratio=facts.ratio, notes=facts.notes, frozen=list(freeze),
                       tokens_per_step=count(facts.tokens) if facts.tokens is not None else None,
                       flops_per_token_vs_6n=facts.versus_6n,
                       flops_6nt=count(facts.six_n_t) if facts.six_n_t is not None else None)
    if steps is not None or hardware is not None or peak_tflops is not None:
        device, peak = load_device(hardware, precision) if hardware else (None, None)
        if peak_tflops is not None:  # the user's own device: no name, no precision to look up
            peak = float(peak_tflops) * 1e12
        budget = run_budget(cost.flops + cost.backward + cost.recompute, steps or 1, peak, mfu, cost.recompute)
        hours = budget.get("gpu_hours")
        summary.budget = TrainingBudget(
            steps=budget["steps"], total_flops=count(budget["total_flops"]), formula=budget["formula"],
            hardware=device.name if device else None,
            precision=number_format(precision, "--precision").short if device else None,
            peak_flops_per_second=peak, mfu=mfu,
            gpu_hours=(hours if isinstance(hours, str) else float(hours)) if hours is not None else None)
    return summary


_STACK_BYTES = 512 * 1024 * 1024
_RECURSION_LIMIT = 20_000


def _deepen():
    saved = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(max(saved[0], _RECURSION_LIMIT))
    threading.stack_size(_STACK_BYTES)
    return saved


def _undeepen(saved):
    sys.setrecursionlimit(saved[0])
    threading.stack_size(saved[1])


_DEEP_STACK = _WhileAnalysing(_deepen, _undeepen)


def _in_reserved_frames(work):
    """``work()``, called from a frame that reserves room for the frames it nests.

    CPython 3.11 keeps a thread's Python frames in 16 KiB chunks it maps and unmaps as the
    depth crosses a chunk's end: the interpreter's recursion goes up and down across those
    ends ~10,000 times in a warm Llama run, an mmap, a page fault and an munmap each (~15 % of
    its time, all of it system time).  A call whose code declares a large value stack makes
    CPython map one big chunk for its frame; the frames ``work`` nests go in the rest of that
    chunk, whose pages are touched once and kept until the call returns.  Only the declared
    stack size changes (a bound CPython checks against, never one it relies on being tight)."""
    return work()


# 2 MiB of value-stack slots: CPython rounds the chunk up to 4 MiB (a power of two above the
# frame and its 1000-slot margin), leaving ~2 MiB, some 5,000 frames, for the nested calls.
# Virtual memory: only the pages the frames reach are ever touched.  Python 3.10 keeps frames
# as separate objects and clears a frame's whole stack when making it: there, nothing to gain.
if sys.version_info >= (3, 11) and sys.implementation.name == "cpython":
    _in_reserved_frames.__code__ = _in_reserved_frames.__code__.replace(co_stacksize=(2 * 1024 * 1024) // 8)


def _with_deep_stack(work):
    """Each interpreted call nests ~20 Python frames, so the interpreter's own depth budget
    (a clear message at 150 nested calls) needs more than Python's default limit and C stack.
    The work runs in a thread with a large stack; nothing else changes."""
    outcome: dict = {}

    def run():
        try:
            outcome["value"] = _in_reserved_frames(work)
        except BaseException as error:  # re-raised in the caller's thread below
            outcome["error"] = error

    with _DEEP_STACK:
        worker = threading.Thread(target=run, name="staticflops-analysis")
        worker.start()
        worker.join()
    if "error" in outcome:
        error = outcome["error"]
        if isinstance(error, RecursionError):
            raise AnalysisError("the model's code nests too deeply to analyse (recursion?)", code="SF120") from None
        if isinstance(error, MemoryError):  # outside any statement (the interpreter's own place it)
            raise AnalysisError("out of memory (--max-value-bytes, --max-tokens and --max-modules bound what an "
                                "analysis builds)", code="SF120") from None
        raise error
    return outcome["value"]


def analyze_text(text: str, path: str | Path, **options) -> Report:
    """Analyse source ``text`` as if it were the file ``path`` (which need not exist);
    ``options`` are those of :func:`analyze`."""
    wanted = str(path)

    def reader(name: str) -> bytes:
        if name != wanted:
            raise FileNotFoundError(2, "only the given text can be read", name)
        return text.encode("utf-8")

    return analyze(path, reader=reader, **options)


# The built-in conventions `compare` shows, in this order (others found on disk follow).
COMPARE_ORDER = ("standard", "full", "torch", "fvcore", "thop", "ptflops", "torchinfo", "torchstat", "tf-profiler")


@_few_full_collections
def compare(
    path: str | Path,
    model: str | None = None,
    inputs: Iterable[str | InputSpec] = (),
    kwargs: dict | str | None = None,
    rules: Iterable[str] | None = None,
    top: int = 5,
    limits: dict | None = None,
    python: str | Path | None = None,
    source_path: Iterable[str | Path] = (),
    batch: int | None = None,
    env: dict | Iterable[str] | None = None,
    assume: Iterable[str] = (),
    keyword_inputs: Iterable[str] | dict = (),
) -> Comparison:
    """Analyse once, price under several rule sets (default: every built-in one), and list
    the ``top`` layers where they disagree most.  A budget hit (``limits``) raises
    ``AnalysisError``: a comparison is never made from a partial analysis.  ``path`` may be a
    Hugging Face config.json, ``python`` and ``source_path``: where third-party source is read
    from, ``batch`` (Keras), ``env``, ``assume`` and ``keyword_inputs`` as for :func:`analyze`; the same front ends
    read the file (:data:`FRONT_ENDS`)."""
    from staticflops.cost.compare import price_all
    from staticflops.report.compare import build_comparison

    names = list(rules) if rules else _builtin_order()
    rulesets = [load_ruleset(name) for name in names]
    specs, keywords, _ = _input_specs(inputs, keyword_inputs, assume)
    budget = make_budget(limits)
    libraries = LibraryFiles(library_roots(python and str(python), [str(p) for p in source_path]), budget.max_file_bytes)
    if batch is not None and (not isinstance(batch, int) or batch < 1):
        raise UsageError("--batch must be a positive integer")
    read = _ModelSource(path, None, budget, libraries, model)
    try:
        source = read.source()
        ir = _with_deep_stack(lambda: front_end(source).trace(source, read.model, _kwargs(kwargs), specs, batch=batch,
                                                              reader=read.reader, budget=budget, libraries=libraries,
                                                              env=parse_env(env), keyword_inputs=keywords))
    finally:
        read.stop()
    if read.shown:
        ir.name = read.shown
    if ir.stopped is not None:  # conventions compared on a partial trace would mislead: an error
        raise AnalysisError(ir.stopped.message, ir.stopped.location, ir.stopped.code)
    check_sizes(ir)
    return build_comparison(ir, price_all(ir, rulesets), top)


def _builtin_order() -> list[str]:
    available = builtin_names()
    return [n for n in COMPARE_ORDER if n in available] + sorted(set(available) - set(COMPARE_ORDER))


def _kwargs(kwargs: dict | str | None) -> dict:
    if kwargs is None:
        return {}
    if isinstance(kwargs, str):
        try:
            kwargs = json.loads(kwargs)
        except json.JSONDecodeError as error:
            raise UsageError(f"--kwargs is not valid JSON: {error.msg} at column {error.colno}") from None
        except RecursionError:
            raise UsageError("--kwargs nests too deeply") from None
        except ValueError:  # Python reads no integer of over 4,300 digits
            raise UsageError("--kwargs holds an integer of over 4,300 digits") from None
    if not isinstance(kwargs, dict):
        raise UsageError("--kwargs must be a JSON object, e.g. '{\"num_classes\": 10}'")
    return kwargs


def load_rules(name_or_path: str):
    """A compiled rule set (built-in name or YAML path); raises AnalysisError with file:line:col."""
    return load_ruleset(name_or_path)


def rule_sets() -> list:
    return [load_ruleset(name) for name in _builtin_order()]


def describe_rules(name_or_path: str) -> str:
    """A readable listing of a rule set: header, options, then each rule's formulas and note."""
    ruleset = load_ruleset(name_or_path)
    lines = [f"# {ruleset.name}: headline {ruleset.headline}", f"# {ruleset.convention}",
             *("# " + line for line in _wrap(" ".join(ruleset.description.split()))),
             f"# files: {', '.join(ruleset.files)}",
             f"# options: {', '.join(f'{k}={v}' for k, v in sorted(ruleset.options.items()))}", ""]
    for title, table in (("rules", ruleset.rules), ("classes", ruleset.classes)):
        if not table:
            continue
        lines.append(f"{title}:")
        for kind in sorted(table):
            rule = table[kind]
            lines.append(f"  {kind}:")
            for field in ("macs", "flops", "params", "mem_read", "mem_write", "saved", "input_grad", "weight_grad"):
                formula = getattr(rule, field)
                if formula is not None:
                    lines.append(f"    {field}: {' '.join(formula.text.split())}")
            if rule.note:
                lines.append(f"    note: {rule.note}")
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int = 96) -> list:
    import textwrap
    return textwrap.wrap(text, width) or [""]
