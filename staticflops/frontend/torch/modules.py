"""``nn.Module`` semantics: registration of children and parameters, containers, and the
framework layers as classes whose ``forward`` runs shape inference and records an op."""

from __future__ import annotations

import math

from staticflops.diagnostics import AnalysisError
from staticflops.frontend.torch import constants, replay
from staticflops.frontend.torch.apply_memo import apply_call
from staticflops.frontend.tracer import TracedOp
from staticflops.frontend.values import (
    Builtin, Class, Instance, ModuleState, Namespace, Parameter, Tensor, Unknown, modules_of, named_modules,
)
from staticflops.frontend.torch.functional_table import call_distance
from staticflops.frontend.torch.layers import (CALL_DEFAULTS, LAYERS, LayerSpec, argument_error, has_parameters,
                                              normalise, parameter_shapes)
from staticflops.shapes import format_shape
from staticflops.shapes.layers import infer
from staticflops.shapes.tensor_ops import ShapeError


def is_module(value) -> bool:
    return isinstance(value, Instance) and value.module is not None


def _method(name):
    def register(fn):
        fn.method_name = name
        return fn
    return register


# ---- nn.Module ------------------------------------------------------------------------

def _init(interp, args, kwargs, node):
    return None


def _setattr(interp, args, kwargs, node):
    self, name, value = args
    state = self.module
    if is_module(value):
        state.children[name] = value
        state.parameters.pop(name, None)
    elif isinstance(value, Parameter):
        old = self.attrs.get(name)
        own = state.replaced.get(name, old)  # the layer's own tensor, while another one is held instead
        if value is old and (name in state.parameters or own is not old):
            pass  # the tensor it holds already (tied again): nothing changes
        elif state.kind is not None and isinstance(own, Parameter) and own.owner is self:
            # `self.lm_head.weight = self.wte.weight`: PyTorch then holds one tensor, counted once
            # (by the layer that owns it; one of no layer is the holder's).  Tied again, as
            # transformers' post_init of an inner model then of the outer one does: the same.
            if value is own:  # its own tensor back
                state.replaced.pop(name, None)
                state.parameters.pop(name, None)
            else:
                state.replaced[name] = own
                if value.owner is None:
                    state.parameters[name] = value
                else:
                    state.parameters.pop(name, None)
        else:
            state.parameters[name] = value
    elif value is None and name in state.children:
        state.children[name] = None
    self.attrs[name] = value


def _call(interp, args, kwargs, node):
    self = args[0]
    tracer = interp.framework.tracer
    cache = interp.framework.call_cache
    # The model's own forward, the outermost traced call, is made once: no later call could
    # replay it, and capturing it walks every op and module of the model.
    outermost = tracer.active and not tracer.stack
    key = replay.call_key(self, list(args[1:]), kwargs, cache.structures,
                          cache.descriptions) if self.module.kind is None and not outermost and not cache.hooked else None
    if key is not None:  # ops record gradients or not by the grad mode: part of what a call did
        key = (key, interp.framework.blocks.recording_grad())
    state = self.module
    if state.pre_hooks:
        args, kwargs = _run_pre_hooks(interp, self, list(args), kwargs, node)
    entries = cache.calls.get(key) if key is not None else None
    subtree = {path: module for path, module in named_modules(self)} if entries else None
    found = replay.reused(entries, subtree) if entries else None
    if found is not None:
        result = replay.replay(found, self, tracer, subtree, interp.location(node), interp.int_reads)
    else:
        first_op, unknowns_before = len(tracer.ops), len(interp.unknowns)
        calls_before = dict(tracer.module_calls) if key is not None else {}
        log = replay.IntReads() if key is not None else None
        if log is not None:
            interp.int_reads.append(log)
        tracer.stack.append(self)
        try:
            forward = interp.get_attribute(self, "forward", node)
            result = interp.call(forward, list(args[1:]), kwargs, node)
        finally:
            tracer.stack.pop()
            if log is not None:
                interp.int_reads.remove(log)
        if key is not None and len(interp.unknowns) == unknowns_before:
            named = list(named_modules(self))
            cached = replay.capture(self, tracer, first_op, calls_before, result,
                                    {id(module): path for path, module in named})
            if cached is not None:
                cached.int_reads = replay.int_reads_of(log, named)
                cache.calls[key] = replay.kept(entries, cached)
    for hook, with_kwargs in list(state.hooks) if state.hooks else ():  # (most modules have none)
        inputs = tuple(args[1:])
        changed = interp.call(hook, [self, inputs, kwargs, result] if with_kwargs else [self, inputs, result], {}, node)
        if changed is not None:  # a hook returning a value replaces the output, as in PyTorch
            result = changed
    tracer.module_outputs[id(self)] = result
    if tracer.active:
        tracer.module_calls[id(self)] = tracer.module_calls.get(id(self), 0) + 1
        tracer.module_call_inputs.setdefault(id(self), []).append((list(args[1:]), result))
    return result


def _run_pre_hooks(interp, self, args: list, kwargs: dict, node):
    """Forward pre-hooks: a returned value replaces the positional inputs (a non-tuple is
    wrapped in one); with ``with_kwargs=True`` a returned (args, kwargs) pair replaces both."""
    for hook, with_kwargs in list(self.module.pre_hooks):
        inputs = tuple(args[1:])
        changed = interp.call(hook, [self, inputs, kwargs] if with_kwargs else [self, inputs], {}, node)
        if changed is None:
            continue
        if with_kwargs and isinstance(changed, tuple) and len(changed) == 2:
            changed, kwargs = changed
        args = [self, *(changed if isinstance(changed, tuple) else (changed,))]
    return args, kwargs


def _register_hook(which: str):
    """``register_forward_hook(hook, *, prepend=False, with_kwargs=False, always_call=False)``
    and the pre-hook twin; the handle's ``remove()`` takes the hook out again."""
    def register(interp, args, kwargs, node):
        module, hook = args[0], args[1] if len(args) > 1 else kwargs.get("hook")
        hooks = getattr(module.module, which)
        entry = (hook, kwargs.get("with_kwargs", False) is True)
        hooks.insert(0, entry) if kwargs.get("prepend", False) is True else hooks.append(entry)
        interp.framework.call_cache.hooked = True

        def remove(interp, a, k, n):
            if entry in hooks:
                hooks.remove(entry)
        return Namespace("RemovableHandle", {"remove": Builtin("RemovableHandle.remove", remove, bind_self=False)})
    return register


def _getattr_fallback(interp, module, name, node):
    if name == "training":
        return False
    return interp.unknown(f"{module.cls.name} has no attribute `{name}`", node)




def layer_parameters(module, tied: bool = False) -> dict:
    """weight/bias of a framework layer: counted by its rule, exposed so code can freeze them.
    ``tied``: also one another module owns (``decoder.weight = embeddings.weight``)."""
    return {n: p for n in ("weight", "bias")
            if isinstance(p := module.attrs.get(n), Parameter) and (tied or p.owner is module)}


def named_parameters(module, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> list:
    """(dotted name, Parameter) for the tree, as PyTorch lists them: each Parameter once, at
    its first place (``remove_duplicate=False``: a tied one at each of its places, which
    transformers' tie-weights check looks for).  A list (its callers take all of it: no
    generator frame per item)."""
    seen = set()
    found = []
    modules = named_modules(module, prefix, remove_duplicate) if recurse else [(prefix, module)]
    for path, sub in modules:
        state = sub.module
        params = state.parameters
        if state.kind is not None:  # a layer's weight/bias first (merged only when it has both kinds)
            own = layer_parameters(sub, tied=not remove_duplicate)
            params = {**own, **params} if own and params else own or params
        for name, param in params.items():
            if id(param) not in seen:
                if remove_duplicate:
                    seen.add(id(param))
                found.append(((f"{path}.{name}" if path else name), param))
    return found


def _member_options(args, kwargs) -> tuple:
    """(prefix, recurse, remove_duplicate) of ``named_parameters``/``named_buffers``, each its
    default unless given as a known value."""
    given = [args[i] if len(args) > i else kwargs.get(name, default)
             for i, (name, default) in enumerate((("prefix", ""), ("recurse", True), ("remove_duplicate", True)), 1)]
    prefix, recurse, remove_duplicate = given
    return (prefix if isinstance(prefix, str) else "", recurse if isinstance(recurse, bool) else True,
            remove_duplicate if isinstance(remove_duplicate, bool) else True)


def _modules(interp, args, kwargs, node):
    return modules_of(args[0])


def _named_modules(interp, args, kwargs, node):
    """``named_modules(memo=None, prefix="", remove_duplicate=True)``."""
    prefix = args[2] if len(args) > 2 else kwargs.get("prefix", "")
    remove_duplicate = args[3] if len(args) > 3 else kwargs.get("remove_duplicate", True)
    return list(named_modules(args[0], prefix if isinstance(prefix, str) else "",
                              remove_duplicate if isinstance(remove_duplicate, bool) else True))


def _children(interp, args, kwargs, node):
    return [c for c in args[0].module.children.values() if c is not None]


def _named_children(interp, args, kwargs, node):
    return [(n, c) for n, c in args[0].module.children.items() if c is not None]


def _parameters(interp, args, kwargs, node):
    if not kwargs.get("recurse", args[1] if len(args) > 1 else True):  # parameters(recurse=False): its own
        module = args[0]
        own = layer_parameters(module) if module.module.kind is not None else {}
        return list({**own, **module.module.parameters}.values())
    return [p for _, p in named_parameters(args[0])]


def _named_parameters(interp, args, kwargs, node):
    return named_parameters(args[0], *_member_options(args, kwargs))


def _named_buffers(interp, args, kwargs, node):
    """``named_buffers(prefix="", recurse=True, remove_duplicate=True)``: the tensors
    ``register_buffer`` stored, under their current value (a later ``self.name = tensor``
    replaces it), each once unless ``remove_duplicate=False``."""
    prefix, recurse, remove_duplicate = _member_options(args, kwargs)
    found, seen = [], set()
    for path, sub in (named_modules(args[0], prefix, remove_duplicate) if recurse else [(prefix, args[0])]):
        for name in sub.module.buffers:
            value = sub.attrs.get(name)
            if value is not None and id(value) not in seen:
                if remove_duplicate:
                    seen.add(id(value))
                found.append(((f"{path}.{name}" if path else name), value))
    return found


def _buffers(interp, args, kwargs, node):
    recurse = kwargs.get("recurse", args[1] if len(args) > 1 else True)
    return [b for _, b in _named_buffers(interp, [args[0]], {"recurse": recurse}, node)]


def _get_submodule(interp, args, kwargs, node):
    """``get_submodule("a.b.0")``: the module at that dotted path (``""`` is the module itself)."""
    module, target = args[0], args[1] if len(args) > 1 else kwargs.get("target")
    if not isinstance(target, str):
        return interp.unknown("get_submodule() of a path that is not a known string", node)
    for part in target.split(".") if target else []:
        child = module.module.children.get(part) if isinstance(module, Instance) and module.module else None
        if child is None:
            raise interp.fail(f"{module.cls.name} has no attribute `{part}`", node, python="AttributeError")
        module = child
    return module


def _get_tensor(kind):
    """``get_parameter``/``get_buffer("a.b.weight")``: the tensor at that dotted path, or an
    AttributeError as PyTorch raises when it is not one of that kind."""
    def fn(interp, args, kwargs, node):
        target = args[1] if len(args) > 1 else kwargs.get("target")
        if not isinstance(target, str):
            return interp.unknown(f"get_{kind}() of a path that is not a known string", node)
        path, _, name = target.rpartition(".")
        owner = _get_submodule(interp, [args[0], path], {}, node)
        if kind == "parameter":
            own = layer_parameters(owner) if owner.module.kind is not None else {}
            found = {**own, **owner.module.parameters}.get(name)
        else:
            found = owner.attrs.get(name) if name in owner.module.buffers else None
        if found is None:
            raise interp.fail(f"`{name}` is not a {kind}", node, python="AttributeError")
        return found
    return fn


def _apply(interp, args, kwargs, node):
    self, fn = args[0], args[1]
    checked: set = set()
    for module in reversed(_modules(interp, [self], {}, node)):
        apply_call(interp, fn, module, node, checked)  # skipped when an equal call changed nothing (apply_memo.py)
    return self


def _add_module(interp, args, kwargs, node):
    self, name, value = args[0], args[1], args[2] if len(args) > 2 else kwargs.get("module")
    if isinstance(name, str):
        _setattr(interp, [self, name, value], {}, node)


def _register_parameter(interp, args, kwargs, node):
    self, name, value = args[0], args[1], args[2] if len(args) > 2 else kwargs.get("param")
    if isinstance(name, str):
        _setattr(interp, [self, name, value], {}, node)


def _register_buffer(interp, args, kwargs, node):
    self, name = args[0], args[1]
    value = args[2] if len(args) > 2 else kwargs.get("tensor")
    if isinstance(name, str):
        self.attrs[name] = value
        self.module.buffers[name] = True


def _running_stats(layer: Instance, bound: dict, unknown: list) -> None:
    """The buffers ``_NormBase`` registers: ``running_mean``/``running_var`` (num_features,) and
    ``num_batches_tracked`` (a scalar int64) when ``track_running_stats``, else None.  Subclasses
    that copy BatchNorm's forward (timm's ``BatchNormAct2d``) read them.  Buffers, not parameters."""
    tracked = not unknown and bound.get("track_running_stats") is True
    features = (bound.get("num_features"),)
    layer.attrs["running_mean"] = Tensor(features, "float32") if tracked else None
    layer.attrs["running_var"] = Tensor(features, "float32") if tracked else None
    layer.attrs["num_batches_tracked"] = Tensor((), "int64", values=[0]) if tracked else None


def _attention_projections(layer: Instance, attrs: dict) -> None:
    """The tensors ``nn.MultiheadAttention.__init__`` registers, under PyTorch's names, for code
    that reads or initialises them (``init.xavier_uniform_(mha.in_proj_weight)``): one packed
    ``in_proj_weight`` (3E, E) when kdim == vdim == E, else separate q/k/v weights; ``in_proj_bias``
    (3E,) with ``bias``; ``bias_k``/``bias_v`` (1, 1, E) with ``add_bias_kv``.  The layer's rule
    counts the parameters; these only make the attributes exist."""
    embed, kdim, vdim = attrs["embed_dim"], attrs["kdim"], attrs["vdim"]
    packed = kdim == embed and vdim == embed

    def weight(shape):
        return Parameter(shape, requires_grad=True, owner=layer)

    layer.attrs.update({
        "_qkv_same_embed_dim": packed,
        "head_dim": embed // attrs["num_heads"] if isinstance(embed, int) and isinstance(attrs["num_heads"], int)
        and attrs["num_heads"] > 0 else None,
        "in_proj_weight": weight((3 * embed, embed)) if packed else None,
        "q_proj_weight": None if packed else weight((embed, embed)),
        "k_proj_weight": None if packed else weight((embed, kdim)),
        "v_proj_weight": None if packed else weight((embed, vdim)),
        "in_proj_bias": weight((3 * embed,)) if attrs["bias"] else None,
        "bias_k": weight((1, 1, embed)) if attrs.get("add_bias_kv") else None,
        "bias_v": weight((1, 1, embed)) if attrs.get("add_bias_kv") else None,
    })


def _cell_weights(layer: Instance, attrs: dict) -> None:
    """The tensors an RNNCell/GRUCell/LSTMCell registers, under PyTorch's names, for code that
    initialises them (``init.uniform_(cell.weight_ih, -std, std)``): ``weight_ih`` (G*H, I),
    ``weight_hh`` (G*H, H) and, with ``bias``, ``bias_ih``/``bias_hh`` (G*H,), G the gates (1, 3
    or 4).  The layer's rule counts the parameters; these only make the attributes exist."""
    rows = attrs["gates"] * attrs["hidden_size"]

    def weight(shape):
        return Parameter(shape, requires_grad=True, owner=layer)

    layer.attrs.update({
        "weight_ih": weight((rows, attrs["input_size"])),
        "weight_hh": weight((rows, attrs["hidden_size"])),
        "bias_ih": weight((rows,)) if attrs["bias"] else None,
        "bias_hh": weight((rows,)) if attrs["bias"] else None,
    })


def _returns_self(interp, args, kwargs, node):
    return args[0]


def set_training(module: Instance, mode) -> None:
    """What ``Module.train(mode)`` does: ``training = mode`` on the module and every submodule,
    overriding any earlier ``m.training = ...`` (PyTorch's ``eval()`` is ``train(False)``)."""
    for inner in modules_of(module):
        inner.attrs["training"] = mode


def _train(interp, args, kwargs, node):
    mode = args[1] if len(args) > 1 else kwargs.get("mode", True)
    if isinstance(mode, Unknown):
        mode = interp.unknown(f"train(mode) with an unknown mode ({mode.reason})", node)
    elif not isinstance(mode, bool):
        raise interp.fail("training mode is expected to be boolean", node, "SF114", python="ValueError")
    set_training(args[0], mode)
    return args[0]


def _eval(interp, args, kwargs, node):
    set_training(args[0], False)
    return args[0]


def _requires_grad(interp, args, kwargs, node):
    self = args[0]
    flag = args[1] if len(args) > 1 else kwargs.get("requires_grad", True)
    if flag is False:
        self.module.frozen = True
    return self


def _extra_repr(interp, args, kwargs, node):
    return ""


def _no_handle(interp, args, kwargs, node):
    return None


def _forward_unimplemented(interp, args, kwargs, node):
    """nn.Module's own ``forward``: a class that defines none raises NotImplementedError when
    called, as torch's does (transformers' BarkModel is a container of sub-models)."""
    name = args[0].cls.name if args and hasattr(args[0], "cls") else "Module"
    raise interp.fail(f'Module [{name}] is missing the required "forward" function', node,
                      python="NotImplementedError")


def _getattr(interp, args, kwargs, node):
    """nn.Module.__getattr__: a subclass's override ends in ``super().__getattr__(name)``; a
    name that is no submodule raises AttributeError there, as in PyTorch (``hasattr`` is False)."""
    module, name = args[0], args[1]
    if module.module is not None and (name in module.module.children or name == "training"):
        return interp.framework.instance_missing_attribute(interp, module, name, node)
    raise interp.fail(f"'{module.cls.name}' object has no attribute '{name}'", node, "SF115", python="AttributeError")


MODULE_METHODS = {
    "__getattr__": _getattr,
    "__init__": _init, "__setattr__": _setattr, "__call__": _call, "modules": _modules,
    "named_modules": _named_modules, "children": _children, "named_children": _named_children,
    "parameters": _parameters, "named_parameters": _named_parameters, "apply": _apply,
    "buffers": _buffers, "named_buffers": _named_buffers, "get_submodule": _get_submodule,
    "get_parameter": _get_tensor("parameter"), "get_buffer": _get_tensor("buffer"),
    "add_module": _add_module, "register_module": _add_module, "register_parameter": _register_parameter,
    "register_buffer": _register_buffer, "train": _train, "eval": _eval, "to": _returns_self,
    "cuda": _returns_self, "cpu": _returns_self, "float": _returns_self, "half": _returns_self,
    "double": _returns_self, "requires_grad_": _requires_grad, "extra_repr": _extra_repr,
    "register_forward_hook": _register_hook("hooks"), "register_forward_pre_hook": _register_hook("pre_hooks"),
    "zero_grad": _extra_repr, "reset_parameters": _extra_repr, "_reset_parameters": _extra_repr,
    "forward": _forward_unimplemented,
    # hooks of state_dict()/load_state_dict(): saving and loading weights, which nothing counted runs
    **{name: _no_handle for name in ("_register_load_state_dict_pre_hook", "register_load_state_dict_pre_hook",
                                     "register_load_state_dict_post_hook", "_register_state_dict_hook",
                                     "register_state_dict_pre_hook", "register_state_dict_post_hook")},
}


def make_module_class() -> Class:
    namespace = {name: Builtin(f"Module.{name}", fn) for name, fn in MODULE_METHODS.items()}
    return Class("Module", (), namespace)


# ---- containers ---------------------------------------------------------------------

def _sequential_init(interp, args, kwargs, node):
    self, items = args[0], args[1:]
    if len(items) == 1 and isinstance(items[0], dict):
        for name, module in items[0].items():
            _setattr(interp, [self, str(name), module], {}, node)
        return
    for index, module in enumerate(items):
        _setattr(interp, [self, str(index), module], {}, node)


def _sequential_forward(interp, args, kwargs, node):
    self, value = args[0], args[1]
    children = self.module.children
    # An item the analyser could not resolve (an import it did not follow, say) is no child
    # module, but it still stands in the chain: calling it passes its first cause on, where
    # skipping it would feed the next layer the wrong input.
    chain = [item for name, item in self.attrs.items() if name in children or isinstance(item, Unknown)]
    for child in chain:
        if child is not None:
            value = interp.call(child, [value], {}, node)
    return value


def _list_init(interp, args, kwargs, node):
    self = args[0]
    items = args[1] if len(args) > 1 else kwargs.get("modules", kwargs.get("parameters"))
    if items is None:
        return
    if isinstance(items, dict):
        for name, module in items.items():
            _setattr(interp, [self, str(name), module], {}, node)
    else:
        for index, module in enumerate(interp.iterate(items, node)):
            _setattr(interp, [self, str(index), module], {}, node)


def _entries(state) -> dict:
    """A container's entries by name: its modules, or a ParameterList's/ParameterDict's
    parameters (registered as parameters, not children)."""
    return state.children or state.parameters


def _append(interp, args, kwargs, node):
    self, module = args
    _setattr(interp, [self, str(len(_entries(self.module))), module], {}, node)
    return self


def _extend(interp, args, kwargs, node):
    self, items = args
    for module in interp.iterate(items, node):
        _append(interp, [self, module], {}, node)
    return self


def _concatenated(interp, args, kwargs, node):
    """``ModuleList + iterable`` / ``Sequential + Sequential``: a new container of the same
    class holding both sides' modules, renumbered from 0 (the modules themselves are shared)."""
    self, other = args
    combined = interp.call(self.cls, [], {}, node)
    for module in [*self.module.children.values(), *interp.iterate(other, node)]:
        _append(interp, [combined, module], {}, node)
    return combined


def _insert(interp, args, kwargs, node):
    self, index, module = args
    items = list(self.module.children.values())
    items.insert(index, module)
    self.module.children.clear()
    for i, item in enumerate(items):
        _setattr(interp, [self, str(i), item], {}, node)


def _len(interp, args, kwargs, node):
    return len(_entries(args[0].module))


def _keys(interp, args, kwargs, node):
    return list(_entries(args[0].module).keys())


def _values(interp, args, kwargs, node):
    return list(_entries(args[0].module).values())


def _items(interp, args, kwargs, node):
    return list(_entries(args[0].module).items())


def _dict_update(interp, args, kwargs, node):
    """``ModuleDict.update(modules)``: a mapping's items (a dict, or another ModuleDict: peft's
    ``self.lora_dropout.update(nn.ModuleDict({name: layer}))``), else (key, module) pairs."""
    self, items = args
    if isinstance(items, dict):
        pairs = items.items()
    elif isinstance(items, Instance) and items.module is not None and \
            any(c.name in ("ModuleDict", "ParameterDict") for c in items.cls.mro()):
        pairs = list(_entries(items.module).items())
    else:
        pairs = interp.iterate(items, node)
    for name, module in pairs:
        _setattr(interp, [self, str(name), module], {}, node)


def _container_forward(interp, args, kwargs, node):
    raise AnalysisError(f"{args[0].cls.name} is a container and cannot be called", interp.location(node), "SF115")


def make_container_classes(module_class: Class) -> dict:
    def cls(name, methods):
        namespace = {k: Builtin(f"{name}.{k}", v) for k, v in methods.items()}
        return Class(name, (module_class,), namespace)

    listlike = {"append": _append, "extend": _extend, "insert": _insert, "__len__": _len, "forward": _container_forward}
    return {
        "Sequential": cls("Sequential", {"__init__": _sequential_init, "forward": _sequential_forward,
                                         "append": _append, "extend": _extend, "insert": _insert, "__len__": _len,
                                         "__add__": _concatenated, "__iadd__": _extend}),
        "ModuleList": cls("ModuleList", {"__init__": _list_init, "__iadd__": _extend, "__add__": _concatenated,
                                         **listlike}),
        "ModuleDict": cls("ModuleDict", {"__init__": _list_init, "keys": _keys, "values": _values,
                                         "items": _items, "update": _dict_update, "__len__": _len,
                                         "forward": _container_forward}),
        "ParameterList": cls("ParameterList", {"__init__": _list_init, **listlike}),
        "ParameterDict": cls("ParameterDict", {"__init__": _list_init, "keys": _keys, "values": _values,
                                               "items": _items, "__len__": _len}),
    }


def container_getitem(interp, module: Instance, key, node):
    children = module.module.children
    params = module.module.parameters
    if isinstance(key, str):
        if key in children:
            return children[key]
        if key in params:
            return params[key]
        raise AnalysisError(f"{module.cls.name} has no entry {key!r}", interp.location(node), "SF113")
    items = list(children.values()) or list(params.values())
    if isinstance(key, slice):
        sub = Instance(module.cls, location=module.location, module=ModuleState())
        for index, child in enumerate(items[key]):
            _setattr(interp, [sub, str(index), child], {}, node)
        return sub
    if isinstance(key, int):
        try:
            return items[key]
        except IndexError:
            raise AnalysisError(f"index {key} is out of range for a {module.cls.name} of {len(items)} modules",
                                interp.location(node), "SF113") from None
    return interp.unknown(f"indexing a {module.cls.name} with {key!r}", node)


# ---- framework layers -----------------------------------------------------------------

def _with_indices(out):
    """Max pooling with ``return_indices=True`` returns ``(values, indices)``; indices are int64."""
    if len(out) == 1:
        return out[0]
    return out[0], Tensor(out[1].shape, "int64") if out[1] is not None else None


_RETURN_SHAPES = {
    "max_pool": _with_indices,
    "adaptive_max_pool": _with_indices,
    "fractional_max_pool": _with_indices,
    "rnn_cell": lambda out: out[0] if len(out) == 1 else (out[0], out[1]),  # LSTMCell: (h, c)
    "rnn": lambda out: (out[0], out[1]),
    "gru": lambda out: (out[0], out[1]),
    "lstm": lambda out: (out[0], (out[1], out[2])),
    "multihead_attention": lambda out: (out[0], out[1]),
}


class LayerFactory:
    """Builds one Class per ``torch.nn`` layer name, binding arguments with its signature."""

    def __init__(self, interp, module_class: Class):
        self.interp = interp
        self.module_class = module_class
        self.classes = {name: self._make(name, spec) for name, spec in LAYERS.items()}

    def _make(self, name: str, spec: LayerSpec) -> Class:
        factory = self

        def init(interp, args, kwargs, node):
            self = args[0]
            bound = interp.bind_signature(spec.signature, name, args[1:], kwargs, node)
            unknown = [k for k, v in bound.items() if isinstance(v, Unknown)]
            if unknown:
                reason = bound[unknown[0]].reason
                interp.unknown(f"{name} argument `{unknown[0]}` is unknown ({reason})", node)
            self.module.kind = spec.kind if not unknown else None
            self.module.attrs = normalise(name, spec, bound) if not unknown else {"kind": spec.kind, "type": name}
            if not unknown and (problem := argument_error(spec.kind, self.module.attrs)):
                raise interp.fail(f"{name}: {problem}", node, code="SF301")
            self.attrs.update({k: v for k, v in bound.items() if not k.startswith("_")})
            if spec.kind in ("conv", "conv_transpose") and not unknown:
                # ConvNd stores these as tuples: `conv.kernel_size[0]` is how model code reads them.
                self.attrs.update({k: self.module.attrs[k] for k in ("kernel_size", "stride", "padding", "dilation",
                                                                     "output_padding") if k in self.module.attrs})
            # a Lazy* module knows its weight shapes at its first call (``materialise``)
            weight_shape, bias_shape = (parameter_shapes(spec.kind, self.module.attrs) if not unknown and not spec.lazy
                                        else (None, None))
            for shape in (weight_shape, bias_shape):
                # torch makes the weights with torch.empty(shape): a size left None (`nn.Embedding(
                # config.vocab_size, d)` with vocab_size None) is its TypeError, here as there
                bad = [type(d).__name__ for d in shape or () if d is None]
                if bad:
                    raise interp.fail(f"{name}: torch.empty(): argument 'size' must be tuple of ints, but found element "
                                      f"of type {bad[0]}", node, python="TypeError")
            holds = unknown or has_parameters(spec.kind, self.module.attrs)
            self.attrs["weight"] = Parameter(weight_shape, requires_grad=True, owner=self) if holds else None
            has_bias = holds and bound.get("bias", True) is not False and (bias_shape is not None or weight_shape is None)
            self.attrs["bias"] = Parameter(bias_shape, requires_grad=True, owner=self) if has_bias else None
            if spec.kind in ("batch_norm", "instance_norm"):
                _running_stats(self, bound, unknown)
            if spec.kind == "multihead_attention" and not unknown:
                _attention_projections(self, self.module.attrs)
            if spec.kind == "rnn_cell" and not unknown:
                _cell_weights(self, self.module.attrs)
            return None

        def forward(interp, args, kwargs, node):
            inputs, kwargs = list(args[1:]), dict(kwargs)
            # inputs given by name (`attn(query=q, key=k, value=v)`), in forward's order
            for parameter in _FORWARD_INPUTS.get(spec.kind, ("input",))[len(inputs):]:
                if parameter not in kwargs:
                    break
                inputs.append(kwargs.pop(parameter))
            return factory.run_layer(args[0], inputs, kwargs, node)

        namespace = {"__init__": Builtin(f"{name}.__init__", init), "forward": Builtin(f"{name}.forward", forward)}
        return Class(name, (self.module_class,), namespace, module_kind=spec.kind)

    def run_layer(self, layer: Instance, inputs: list, kwargs: dict, node):
        interp = self.interp
        state = layer.module
        if state.kind is None:
            return interp.unknown(f"{layer.cls.name} could not be built, so its output is unknown", node)
        if state.kind == "identity" and len(inputs) == 1 and not kwargs and not isinstance(inputs[0], (Tensor, Unknown)):
            return inputs[0]  # nn.Identity returns whatever it is given (a tuple of feature maps)
        tensors = [v for v in inputs if isinstance(v, (Tensor, Unknown))]
        for value in tensors:
            if isinstance(value, Unknown):
                return value
        if state.kind == "multihead_attention":
            while len(tensors) < 3:
                tensors.append(tensors[0])
        shapes = [t.shape for t in tensors]
        if any(s is None for s in shapes):
            return interp.unknown(f"input shape of {layer.cls.name} is unknown", node)
        spec = LAYERS.get(state.attrs.get("type"))
        if spec is not None and spec.lazy and spec.lazy not in state.attrs and shapes[0]:
            _materialise(layer, spec, shapes[0])
        options = {k: v for k, v in kwargs.items() if isinstance(v, (bool, int, float, str, type(None)))}
        if state.kind in ("conv_transpose", "max_unpool"):
            # ConvTranspose*d.forward(input, output_size=None): a size chooses the output padding;
            # MaxUnpool*d.forward(input, indices, output_size=None) as well
            size = kwargs.get("output_size", next((v for v in inputs[1:] if isinstance(v, (list, tuple))), None))
            if size is not None:
                options["output_size"] = tuple(size)
        call_distance(interp, layer.attrs.get("distance_function"), tensors, state.attrs.get("swap"), node)
        attrs = {**CALL_DEFAULTS.get(state.kind, {}), **state.attrs, **options}
        if state.kind == "dropout":  # its mode: whether it keeps a mask for backward (cost/recompute.py)
            attrs["training"] = layer.attrs.get("training") is not False
        try:
            outputs, facts = infer(state.kind, attrs, shapes)
        except ShapeError as error:
            raise AnalysisError(_labelled(layer.cls.name, str(error)), interp.location(node), "SF301") from None
        dtype = tensors[0].dtype if state.kind not in ("embedding", "embedding_bag") else "float32"  # rows of a table
        recording = interp.framework.blocks.recording_grad()  # inside torch.no_grad(): no backward at all
        needs_grad = [t.requires_grad and recording for t in tensors]
        params = layer_parameters(layer, tied=True)  # a tied weight gets this use's gradient too
        learns = recording and not state.frozen and any(p.trainable for p in params.values())
        trainable = learns and _weight_trainable(params)
        results = [None if s is None else Tensor(s, dtype, requires_grad=any(needs_grad) or learns)
                   for s in outputs]
        interp.framework.tracer.record(TracedOp(
            kind=state.kind, label=layer.cls.name, attrs=attrs, facts=facts, inputs=shapes,
            outputs=list(outputs), module=layer, is_layer_call=True, location=interp.location(node),
            needs_grad=needs_grad, trainable_inputs=int(trainable),
        ))
        if state.kind in ("max_pool", "adaptive_max_pool") and results[0] is not None:
            _pooled_constant(tensors[0], results[0])
        package = _RETURN_SHAPES.get(state.kind)
        return package(results) if package else results[0]


def _weight_trainable(params: dict) -> bool:
    """Whether a layer's op has a weight gradient (of its weight/bias ``params``, tied ones
    included: ``lm_head.weight = embed.weight`` gets this use's gradient too, autograd sums
    both): its ``weight`` needs one; a bias alone (BitFit) has a gradient that is a sum, no
    product of the input (its output still needs a gradient); without a weight, any."""
    weight = params.get("weight")
    return weight.trainable if weight is not None else any(p.trainable for p in params.values())


# The leading tensor parameters of a layer's forward, by kind: torch names most `input`.
_FORWARD_INPUTS = {"multihead_attention": ("query", "key", "value")}


def _pooled_constant(x: Tensor, out: Tensor) -> None:
    """A max pool of a tensor whose elements are all one value c gives c everywhere (every
    window holds at least one element of the input: torch's padding is at most half a kernel):
    CANINE downsamples its all-ones character mask so."""
    values = x.values
    if values and all(v == values[0] for v in values) and out.shape is not None \
            and all(type(d) is int for d in out.shape) and math.prod(out.shape) <= constants.MAX_VALUES:
        out.values = constants.repeated(values[0], math.prod(out.shape), out.dtype)


def _materialise(layer: Instance, spec: LayerSpec, x: tuple) -> None:
    """What a Lazy* module does at its first call: read its input size (features last for
    LazyLinear, channels at dim 1, or 0 unbatched) and allocate weight and bias."""
    state = layer.module
    unbatched = spec.dims is not None and len(x) == spec.dims + 1 and spec.kind != "batch_norm"
    size = x[-1] if spec.kind == "linear" else x[0] if unbatched or len(x) < 2 else x[1]
    state.attrs[spec.lazy] = layer.attrs[spec.lazy] = size
    weight_shape, bias_shape = parameter_shapes(spec.kind, state.attrs)
    for name, shape in (("weight", weight_shape), ("bias", bias_shape)):
        if isinstance(layer.attrs.get(name), Parameter):
            layer.attrs[name].shape = shape
    if spec.kind in ("batch_norm", "instance_norm"):
        _running_stats(layer, state.attrs, [])


def _labelled(name: str, message: str) -> str:
    """Run-time errors name the layer as construction-time ones do: ``Conv2d: ...``."""
    return message if message.startswith(name + " ") or message.startswith(name + ":") else f"{name}: {message}"


def describe_shapes(shapes) -> str:
    return ", ".join(format_shape(s) for s in shapes)
