"""PyTorch front end: a model file -> layer IR (module tree + traced ops with shapes)."""

from __future__ import annotations

import libcst as cst

from staticflops.diagnostics import AnalysisError, Location
from staticflops.frontend.interpreter import Interpreter
from staticflops.frontend.source import SourceFile
from staticflops.frontend.torch.framework import TorchFramework
from staticflops.frontend.torch.modules import is_module, layer_parameters, named_modules
from staticflops.frontend.values import Class, Function, Instance, Tensor, Unknown
from staticflops.ir import LayerNode, ModelIR, OpCall, ParamDecl
from staticflops.shapes import InputSpec


def analyse_torch(source: SourceFile, model: str | None, kwargs: dict, inputs: list[InputSpec]) -> ModelIR:
    framework = TorchFramework()
    interp = Interpreter(framework)
    framework.install(interp)
    scope = interp.run_module(source)
    target, name = _select_model(interp, source, scope, framework, model)
    anchor = _definition_node(source, name)
    interp.source = source
    if isinstance(target, Class):
        root = framework.instantiate(interp, target, [], dict(kwargs), anchor)
    else:
        root = interp.call(target, [], dict(kwargs), anchor)
    if not is_module(root):
        raise AnalysisError(f"`{name}` did not produce an nn.Module", source.location(anchor), "SF101")
    if not inputs:
        raise AnalysisError(f"no --input given: pass one shape per argument of {name}.forward, e.g. --input 1x3x224x224",
                            code="SF102")
    tensors = [Tensor(spec.shape, spec.dtype) for spec in inputs]
    result = interp.call(root, tensors, {}, anchor)
    paths = {id(m): path for path, m in named_modules(root)}
    return ModelIR(
        name=name, framework="pytorch", file=source.path,
        root=_layer_tree(root, "", paths, framework.tracer),
        ops=[_op(op, paths) for op in framework.tracer.ops],
        inputs=list(inputs), outputs=_output_shapes(result),
        unknowns=interp.unknowns,
    )


def _select_model(interp, source, scope, framework, model: str | None):
    if model is not None:
        value = scope.vars.get(model)
        if value is None:
            raise AnalysisError(f"no class or function named `{model}` at the top level of {source.path}", code="SF103")
        if not isinstance(value, (Class, Function)):
            raise AnalysisError(f"`{model}` is not a class or a function", code="SF103")
        return value, model
    module_classes = {name: v for name, v in scope.vars.items()
                      if isinstance(v, Class) and v.is_subclass_of(framework.module_class) and v.location
                      and v.location.path == source.path}
    if not module_classes:
        raise AnalysisError(f"{source.path} defines no nn.Module class; name one with --model", code="SF104")
    referenced = _names_used_outside_own_class(source.module)
    candidates = [n for n in module_classes if not _used_elsewhere(n, referenced)]
    buildable = [n for n in candidates if _needs_no_arguments(module_classes[n])]
    for group in (buildable, candidates):
        if len(group) == 1:
            return module_classes[group[0]], group[0]
    listed = ", ".join(sorted(candidates or module_classes))
    raise AnalysisError(f"{source.path} has several model classes ({listed}); choose one with --model", code="SF105")


def _names_used_outside_own_class(module: cst.Module) -> dict:
    """Map: name -> set of top-level definitions (other than itself) that mention it."""
    used: dict = {}

    class Collector(cst.CSTVisitor):
        def __init__(self, owner):
            self.owner = owner

        def visit_Name(self, node):
            used.setdefault(node.value, set()).add(self.owner)

    for statement in module.body:
        owner = statement.name.value if isinstance(statement, (cst.ClassDef, cst.FunctionDef)) else "<module>"
        statement.visit(Collector(owner))
    return used


def _used_elsewhere(name: str, used: dict) -> bool:
    return bool(used.get(name, set()) - {name})


def _needs_no_arguments(cls: Class) -> bool:
    try:
        init = cls.lookup("__init__")
    except KeyError:
        return True
    if not isinstance(init, Function):
        return True
    params = init.node.params
    required = [p for p in [*params.posonly_params, *params.params][1:] if p.name.value not in init.defaults]
    required += [p for p in params.kwonly_params if p.name.value not in init.defaults]
    return not required


def _definition_node(source: SourceFile, name: str):
    for statement in source.module.body:
        if isinstance(statement, (cst.ClassDef, cst.FunctionDef)) and statement.name.value == name:
            return statement.name
    return None


def _layer_tree(module: Instance, path: str, paths: dict, tracer) -> LayerNode:
    state = module.module
    children = [
        _layer_tree(child, f"{path}.{name}" if path else name, paths, tracer)
        for name, child in state.children.items()
        if child is not None and paths.get(id(child)) == (f"{path}.{name}" if path else name)
    ]
    params = [ParamDecl(name=name, shape=p.shape, trainable=p.trainable and not state.frozen)
              for name, p in state.parameters.items()]
    frozen = state.frozen
    if state.kind is not None:
        flags = [p.trainable for p in layer_parameters(module).values()]
        frozen = frozen or (bool(flags) and not any(flags))
    location = module.location or Location("<unknown>", 1, 1)
    outputs = _output_shapes(tracer.module_outputs[id(module)]) if id(module) in tracer.module_outputs else []
    calls = [{"inputs": _output_shapes(list(args)), "outputs": _output_shapes(result)}
             for args, result in tracer.module_call_inputs.get(id(module), [])]
    return LayerNode(name=path, type=module.cls.name, kind=state.kind, attrs=state.attrs, location=location,
                     children=children, params=params, frozen=frozen, output_shapes=outputs,
                     calls=tracer.module_calls.get(id(module), 0), call_shapes=calls,
                     scalars=_scalars(module) if state.kind is None else {},
                     qualified_type=_qualified(module.cls))


def _qualified(cls: Class) -> str | None:
    if cls.location is None:
        return None
    stem = cls.location.path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".py")
    return f"{stem}.{cls.name}"


def _scalars(module: Instance) -> dict:
    """Plain attribute values of a user module (``self.num_heads = 4``) for class rules."""
    def plain(value):
        if isinstance(value, (tuple, list)):
            return all(plain(v) for v in value)
        return isinstance(value, (int, float, str, bool)) or value is None
    return {name: value for name, value in module.attrs.items() if not name.startswith("_") and plain(value)}


def _op(traced, paths: dict) -> OpCall:
    owner = paths.get(id(traced.module), "") if traced.module is not None else ""
    return OpCall(kind=traced.kind, label=traced.label, attrs=traced.attrs, facts=traced.facts,
                  inputs=traced.inputs, outputs=traced.outputs, module=owner,
                  is_layer_call=traced.is_layer_call, location=traced.location)


def _output_shapes(result) -> list:
    if isinstance(result, Tensor):
        return [result.shape]
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
