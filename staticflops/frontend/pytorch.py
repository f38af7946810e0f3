"""PyTorch front end: a model file -> layer IR (module tree + traced ops with shapes)."""

from __future__ import annotations

from difflib import get_close_matches
from fnmatch import fnmatch

from staticflops.diagnostics import AnalysisError, BudgetExceeded, Diagnostic, Location, UsageError
from staticflops.frontend.interpreter import Interpreter
from staticflops.frontend.source import SourceFile
from staticflops.frontend.torch import constants, generation
from staticflops.frontend.torch.example_input import example_inputs, input_hint
from staticflops.frontend.torch.framework import TorchFramework
from staticflops.frontend.torch.modules import is_module, layer_parameters, set_training
from staticflops.frontend.imports import start_main_file
from staticflops.frontend.select import build_model
from staticflops.frontend.values import Class, Instance, Parameter, Tensor, Unknown, describe, named_modules
from staticflops.ir import LayerNode, ModelIR, OpCall, ParamDecl
from staticflops.ir.construct import construct
from staticflops.shapes import InputSpec


def enable_checkpointing(interp, root, anchor) -> None:
    """``--gradient-checkpointing``: the switch the model's library gives, run as written:
    transformers' ``gradient_checkpointing_enable()`` (``activation_checkpointing_enable()`` in
    5.x), timm's ``set_grad_checkpointing(True)``.  A model without one is a usage error: its
    regions are the ``torch.utils.checkpoint`` calls of its own code."""
    for name, args in (("activation_checkpointing_enable", []), ("gradient_checkpointing_enable", []),
                       ("set_grad_checkpointing", [True])):
        try:
            method = interp.get_attribute(root, name, anchor)
        except AnalysisError:
            continue
        if isinstance(method, Unknown):
            continue
        interp.call(method, args, {}, anchor)
        return
    where = f" ({root.cls.location})" if root.cls.location is not None else ""
    raise UsageError(f"--gradient-checkpointing: {root.cls.name}{where} has no gradient_checkpointing_enable() "
                     "(transformers) or set_grad_checkpointing() (timm); a model of your own checkpoints where "
                     "its forward calls torch.utils.checkpoint.checkpoint, with or without this option")


def analyse_torch(source: SourceFile, model: str | None, kwargs: dict, inputs: list[InputSpec],
                  freeze: tuple = (), reader=None, budget=None, libraries=None,
                  env: dict | None = None, keyword_inputs: dict | None = None, training: bool = False,
                  checkpointing: bool = False, past=None) -> ModelIR:
    """``training``: the forward runs in train mode (``model.train()``), as a training step does;
    ``checkpointing``: gradient checkpointing switched on first, by the model's own method;
    ``past``: a size (int or symbol): the traced forward is one generation step over a key/value
    cache of that many earlier tokens (torch/generation.py)."""
    keyword_inputs = keyword_inputs or {}
    framework = TorchFramework()
    interp = Interpreter(framework, budget)
    interp.environment.update(env or {})  # os.environ of the analysed program (--env)
    framework.tracer.max_ops = interp.budget.max_ops
    framework.install(interp)
    interp.demand_driven = True  # the model is built after the module level, from --model
    scope = start_main_file(interp, source, reader, libraries)
    stopped = None
    try:
        root, name, anchor = build_model(interp, source, scope, framework, model, kwargs)
    except BudgetExceeded as error:
        if error.building is None:  # stopped outside the model's constructor: nothing of it exists
            raise
        # Stopped inside the constructor: the layers built so far, no forward pass (a half-built
        # model would run into attributes that do not exist yet).
        root, name, anchor, stopped = error.building, model or error.building.cls.name, None, error
    if stopped is None and not is_module(root):
        where = interp.location(anchor) if anchor is not None else None
        raise AnalysisError(f"`{name}` did not produce an nn.Module ({_why(root)})", where, "SF101")
    if not inputs and not keyword_inputs:  # Lightning's `self.example_input_array`, as the constructor left it
        inputs = example_inputs(root)
    if not inputs and not keyword_inputs:
        built = root.cls.name if isinstance(root, Instance) else name  # the class, not the --model expression
        raise AnalysisError(f"no --input given: pass one shape per argument of {built}{input_hint(root)} "
                            "(or set self.example_input_array in __init__)", code="SF102")
    _freeze(root, freeze, complete=stopped is None)
    result = cache = None
    if stopped is None:
        # inference in eval mode (`model.eval()`), a training step in train mode (dropout, stochastic
        # depth, a checkpointed layer's `self.training` test), as PyTorch runs them
        set_training(root, training)
        if checkpointing:
            enable_checkpointing(interp, root, anchor)
        tensors = [_input_tensor(spec) for spec in inputs]  # model inputs do not require grad
        keywords = _keyword_tensors(keyword_inputs)
        if past is not None:  # the prompt's forward fills the cache, untraced
            prompt, prompt_keywords = generation.prompt_inputs(inputs, keyword_inputs, past)
            try:
                cache, encoded = generation.filled_cache(interp, root, [_input_tensor(spec) for spec in prompt],
                                                         _keyword_tensors(prompt_keywords), anchor, past)
            except BudgetExceeded as error:  # the step never ran: a partial report without ops
                stopped = error
            else:
                keywords.update(generation.step_keywords(cache, encoded))
        if stopped is None:
            framework.tracer.active = True
            try:
                result = interp.call(root, tensors, keywords, anchor)
            except BudgetExceeded as error:  # the ops traced so far are kept; the result is partial
                stopped = error
            finally:
                framework.tracer.active = False
    paths = {id(m): path for path, m in named_modules(root)}
    converted: dict = {}  # a replayed op's IR containers (see _op)
    regions = _Regions()
    return construct(ModelIR, {
        "name": name, "framework": "pytorch", "file": source.path,
        "root": _layer_tree(root, "", paths, framework.tracer),
        "ops": [_op(op, paths, converted, regions) for op in framework.tracer.ops],
        "inputs": list(inputs), "outputs": _output_shapes(result),
        "unknowns": list(interp.unknowns), "diagnostics": list(interp.diagnostics), "stopped": stopped_diagnostic(stopped),
        "ignores": interp.ignores, "keyword_inputs": dict(keyword_inputs), "checkpoints": regions.table,
        "generation": None if past is None else {
            "past_tokens": past,
            "kv_cache": [] if cache is None else generation.cache_shapes(generation.cache_after(interp, result, cache,
                                                                                              anchor))},
    }, _GIVEN_IR)


class _Regions:
    """Checkpoint regions (torch/checkpointing.py) numbered in the order their ops come."""

    def __init__(self):
        self.table: list = []
        self.numbers: dict = {}  # id(Region) -> its index

    def number(self, region) -> int | None:
        if region is None:
            return None
        found = self.numbers.get(id(region))
        if found is None:
            parent = self.number(region.parent)
            found = self.numbers[id(region)] = len(self.table)
            self.table.append({"whole": region.whole, "parent": parent,
                               "inputs": [_shape(shape) for shape in region.inputs]})
        return found


def _why(value) -> str:
    """What the model expression gave; for an unknown, its first cause (``path:line:col: reason``),
    the place a user has to look at (a library's module-level probe, a call we do not model)."""
    if isinstance(value, Unknown):
        where = f"{value.location}: " if value.location is not None else ""
        return f"an unknown value: {where}{value.reason}"
    return describe(value)


_GIVEN_IR = frozenset({"name", "framework", "file", "root", "ops", "inputs", "outputs", "unknowns", "diagnostics", "stopped",
                       "ignores", "keyword_inputs", "checkpoints", "generation"})


def _keyword_tensors(specs: dict) -> dict:
    """forward's keyword arguments: ``name`` -> its tensor; ``name.key`` -> a dict argument
    holding the tensor under ``key`` (diffusers' ``added_cond_kwargs={"text_embeds": ...}``)."""
    keywords: dict = {}
    for name, spec in specs.items():
        *outer, last = name.split(".")
        holder = keywords
        for part in outer:
            holder = holder.setdefault(part, {})
            if not isinstance(holder, dict):
                raise UsageError(f"--keyword-input {name}: {part} is given a tensor and keys both")
        if last in holder:
            raise UsageError(f"--keyword-input {name}: given twice, or as a tensor and keys both")
        holder[last] = _input_tensor(spec)
    return keywords


def stopped_diagnostic(error: BudgetExceeded | None) -> Diagnostic | None:
    """The budget that ended the analysis early, as the report's error diagnostic."""
    return None if error is None else Diagnostic("error", error.code, error.location, error.message)


def _freeze(root: Instance, patterns: tuple, complete: bool = True) -> None:
    """``--freeze GLOB``: a module whose dotted path matches, and everything inside it, gets no
    weight gradients (as ``requires_grad_(False)`` would do).  A pattern that matches no module
    of a completely built model is a usage error naming the closest module paths."""
    if not patterns:
        return
    modules = list(named_modules(root))
    matched = set()
    for path, module in modules:
        hits = [p for p in patterns if fnmatch(path, p) or fnmatch(path, p.rstrip(".*"))]
        matched.update(hits)
        if hits:
            for _, inner in named_modules(module):
                inner.module.frozen = True
                for param in [*inner.module.parameters.values(), *layer_parameters(inner).values()]:
                    param.trainable = param.requires_grad = False
    for pattern in patterns:
        if complete and pattern not in matched:  # a typo would silently freeze nothing and train everything
            raise UsageError(f"--freeze {pattern!r} matches no module"
                             + _close_matches(pattern, [path for path, _ in modules]))


def _close_matches(pattern: str, paths: list) -> str:
    # `encoder.*` is compared as `encoder`: the module the user meant, not its numbered children
    close = get_close_matches(pattern.rstrip(".*") or pattern, [p for p in paths if p], n=3)
    if close:
        return "; did you mean " + ", ".join(repr(c) for c in close) + "?"
    tops = sorted({p.split(".")[0] for p in paths if p})[:8]
    return f"; the top-level modules are {', '.join(tops)}" if tops else "; the model has no submodules"


def _layer_tree(module: Instance, path: str, paths: dict, tracer, seen: set | None = None,
                names: dict | None = None) -> LayerNode:
    state = module.module
    seen = set() if seen is None else seen
    names = {} if names is None else names  # id(class) -> (its qualified name,), while the tree is built
    # (Each part is skipped when there is nothing to build: most nodes are leaf layers.)
    children = []
    if state.children:
        for name, child in state.children.items():
            if child is not None and paths.get(id(child)) == (child_path := f"{path}.{name}" if path else name):
                children.append(_layer_tree(child, child_path, paths, tracer, seen, names))
    params = []
    for name, p in state.parameters.items():
        if id(p) not in seen:  # a Parameter shared by two modules is counted once
            seen.add(id(p))
            params.append(construct(ParamDecl, {"name": name, "shape": _shape(p.shape),
                                                "trainable": p.trainable and not state.frozen}))
    replaced = [construct(ParamDecl, {"name": name, "shape": _shape(p.shape), "trainable": True}, _NAME_AND_SHAPE)
                for name, p in state.replaced.items()] if state.replaced else []
    frozen, partly = state.frozen, []
    if state.kind is not None and not frozen:  # every weight of the layer frozen (layer_parameters, inline)
        has_weights = trainable = False
        attrs = module.attrs
        for name in ("weight", "bias"):
            p = attrs.get(name)
            if isinstance(p, Parameter) and p.owner is module:
                has_weights = True
                trainable = trainable or p.trainable
                if not p.trainable:
                    partly.append(construct(ParamDecl, {"name": name, "shape": _shape(p.shape), "trainable": False}))
        frozen = has_weights and not trainable
        partly = [] if frozen else partly
    location = module.location or Location("<unknown>", 1, 1)
    key = id(module)
    output = tracer.module_outputs.get(key, _NOT_CALLED)
    outputs = _output_shapes(output) if output is not _NOT_CALLED else []
    recorded = tracer.module_call_inputs.get(key)
    calls = [{"inputs": _output_shapes(args), "outputs": _output_shapes(result)}
             for args, result in recorded] if recorded else []
    cls = module.cls
    qualified = names.get(id(cls))  # (a repeated block's modules share their classes)
    if qualified is None:
        qualified = names[id(cls)] = (_qualified(cls),)
    # Built from the interpreter's own values, which already have the IR's types: constructed
    # without validation (~15 us a node, a third of building a 96-block GPT's tree).
    return construct(LayerNode, {
        "name": path, "type": cls.name, "kind": state.kind, "attrs": dict(state.attrs), "location": location,
        "children": children, "params": params, "replaced_params": replaced, "frozen": frozen,
        "frozen_params": partly, "output_shapes": outputs, "calls": tracer.module_calls.get(key, 0), "call_shapes": calls,
        "scalars": _scalars(module) if state.kind is None else {}, "qualified_type": qualified[0]})



_NAME_AND_SHAPE = frozenset({"name", "shape"})  # a tied-away weight: `trainable` left at its default
_NOT_CALLED = object()


def _qualified(cls: Class) -> str | None:
    if cls.location is None:
        return None
    stem = cls.location.path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".py")
    return f"{stem}.{cls.name}"


def _scalars(module: Instance) -> dict:
    """Plain attribute values of a user module (``self.num_heads = 4``) for class rules."""
    return {name: value for name, value in module.attrs.items() if not name.startswith("_") and _plain(value)}


def _plain(value) -> bool:
    if type(value) in _PLAIN_SCALARS:  # most attributes: no isinstance chain
        return True
    if isinstance(value, (tuple, list)):
        return all(_plain(v) for v in value)
    return isinstance(value, (int, float, str, bool)) or value is None


_PLAIN_SCALARS = frozenset({int, float, str, bool, type(None)})


def _op(traced, paths: dict, converted: dict | None = None, regions: "_Regions | None" = None) -> OpCall:
    owner = paths.get(id(traced.module), "") if traced.module is not None else ""
    # A replayed op (torch/replay.py) holds the very attrs, facts, shape and grad lists of the op it
    # copies: their IR forms are made once and shared by every copy (nothing downstream
    # changes an IR op's containers), so pricing and the size check see the same objects
    # again and can tell by identity that a repeated block's op is one they have seen.
    # ``converted`` is keyed by id() of the tracer's containers, alive until the IR is built.
    key = (id(traced.attrs), id(traced.facts), id(traced.inputs), id(traced.outputs), id(traced.needs_grad))
    shared = converted.get(key) if converted is not None else None
    if shared is None:
        shared = (dict(traced.attrs), dict(traced.facts), [_shape(s) for s in traced.inputs],
                  [_shape(s) for s in traced.outputs], list(traced.needs_grad))
        if converted is not None:
            converted[key] = shared
    attrs, facts, inputs, outputs, needs_grad = shared
    return construct(OpCall, {
        "kind": traced.kind, "label": traced.label, "attrs": attrs, "facts": facts,
        "inputs": inputs, "outputs": outputs,
        "module": owner, "is_layer_call": traced.is_layer_call, "location": traced.location,
        "needs_grad": needs_grad, "trainable_inputs": traced.trainable_inputs,
        "checkpoint": regions.number(traced.checkpoint) if regions is not None else None})


def _shape(shape) -> tuple | None:
    """A shape as the IR types it (what validation would turn a list into)."""
    return shape if shape is None or type(shape) is tuple else tuple(shape)


def _output_shapes(result) -> list:
    if type(result) is Tensor:  # most results: no isinstance chain
        return [_shape(result.shape)]
    if isinstance(result, Tensor):
        return [_shape(result.shape)]
    if isinstance(result, (tuple, list)):
        shapes = []
        for item in result:
            shapes.extend(_output_shapes(item))
        return shapes
    if isinstance(result, dict):
        return [s for v in result.values() for s in _output_shapes(v)]
    if isinstance(result, Unknown):
        return [None]
    return []


def _input_tensor(spec: InputSpec) -> Tensor:
    """A model input: its shape and dtype, and with ``=V`` (``1x32:int64=1``) its values, every
    element V, when it is small enough to hold them (constants.MAX_VALUES)."""
    values = None
    if spec.fill is not None and all(type(d) is int for d in spec.shape):
        count = 1
        for d in spec.shape:
            count *= d
        values = constants.known(spec.shape, [spec.fill] * count) if count <= constants.MAX_VALUES else None
    return Tensor(spec.shape, spec.dtype, values=values)
