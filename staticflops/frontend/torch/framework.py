"""The PyTorch framework model: what ``torch``, ``torch.nn`` and tensors mean to the interpreter."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from staticflops.diagnostics import AnalysisError, BudgetExceeded, reason
from staticflops.frontend import pybuiltins, pyclasses
from staticflops.frontend.einops import einops_namespaces
from staticflops.frontend.scope import MISSING
from staticflops.frontend.stub_source import run_stub
from staticflops.frontend.tracer import Tracer
from staticflops.frontend.values import (
    BoundMethod, Builtin, CannotKnow, Class, Instance, MethodWrapper, ModuleState, Namespace, NoOpMembers, Parameter, Record, Tensor,
    Unknown,
    stable_order,
)
from staticflops.frontend.torch.checkpointing import Regions
from staticflops.frontend.torch import accelerators, call_memo, constants, draws, modules, numpy_scalars, routing, vmap
from staticflops.frontend.torch.tensor_attribute_names import NAMES as TENSOR_ATTRIBUTE_NAMES
from staticflops.frontend.torch.tensor_table import TORCH_ONLY, build_table
from staticflops.frontend.torch.functional_table import build_functional
from staticflops.frontend.torch.fourier import build_fourier
from staticflops.frontend.torch.layers import NOT_MODELLED
from staticflops.frontend.torch.numeric_limits import limits_functions
from staticflops.frontend.torch.parametrize import utils_members
from staticflops.frontend.torch.functions import DTypeName, TorchOps, build_constructors, build_functions, dtype_objects
from staticflops.shapes import tensor_ops as ops
from staticflops.shapes.expr import Expr
from staticflops.shapes.shape import numel
from staticflops.shapes.growth import GROWING_METHODS
from staticflops.shapes.tensor_ops import IndexArray, ShapeError

_OPERATORS = {"Add": "add", "Subtract": "sub", "Multiply": "mul", "Divide": "div", "FloorDivide": "div",
              "Modulo": "div", "Power": "pow", "Compare": "compare", "BitAnd": "compare", "BitOr": "compare",
              "BitXor": "compare"}
# `a == b` on tensors: the interpreter names the comparison ("Compare" when it does not)
_COMPARISONS = {"Equal": "eq", "NotEqual": "ne", "LessThan": "lt", "LessThanEqual": "le", "GreaterThan": "gt",
                "GreaterThanEqual": "ge"}
_OPERATORS.update(dict.fromkeys(_COMPARISONS, "compare"))
# Operators priced as another kind but computed otherwise when the values are known
_VALUED_AS = {"FloorDivide": "floordiv", "Modulo": "mod"}
_PYTHON_METHODS = {
    list: {"append", "extend", "insert", "pop", "index", "count", "copy", "reverse", "remove", "clear", "sort"},
    tuple: {"index", "count"},
    dict: {"get", "items", "keys", "values", "pop", "setdefault", "update", "copy", "clear", "popitem"},
    str: {"format", "join", "split", "lower", "upper", "startswith", "endswith", "replace", "strip",
          "rstrip", "lstrip", "isdigit", "rsplit", "partition", "title",
          # none of these builds a longer string (no budget check needed)
          "find", "rfind", "index", "rindex", "count", "rpartition", "splitlines", "casefold", "capitalize",
          "swapcase", "removeprefix", "removesuffix", "isalpha", "isalnum", "isspace", "isupper", "islower",
          "isidentifier", "isnumeric", "isdecimal",
          # padded to a width: a growing method (GROWING_METHODS), checked against --max-container
          "zfill", "ljust", "rjust", "center"},
    set: {"add", "update", "union", "intersection", "difference", "copy", "issubset", "issuperset", "isdisjoint",
          "discard", "symmetric_difference", "remove", "clear", "difference_update", "intersection_update",
          "symmetric_difference_update"},  # (not pop: which item it gives depends on string hashing)
    # packaging.version: `_SIMPLE_VERSION_INDICATORS.issuperset(version)`
    frozenset: {"union", "intersection", "difference", "copy", "issubset", "issuperset", "isdisjoint",
                "symmetric_difference"},
}


@dataclass
class CallCache:
    """Module calls already analysed, for replaying repeated blocks (see replay.py)."""

    calls: dict = field(default_factory=dict)
    structures: dict = field(default_factory=dict)  # id(module) -> its subtree's description number
    descriptions: dict = field(default_factory=dict)  # description tuple -> number (replay.structure)
    # once a forward hook exists, calls are no longer replayed: a replay would skip the hooks
    # (and their side effects, such as transformers' output capturing) of the modules inside
    hooked: bool = False


# The PyTorch release whose behaviour (shapes, FlopCounterMode counts) the model follows: what
# `torch.__version__` and `importlib.metadata.version("torch")` give the analysed code.
TORCH_VERSION = "2.13.0"


_PLAIN_SCALARS = (int, float, str, bool, type(None))


def _plain_data(value, depth: int = 0) -> bool:
    """Numbers, strings, None and lists/tuples/dicts/sets of them (exact types): values whose
    attributes lead only to Python's built-in types, never to staticflops' own objects."""
    if type(value) in _PLAIN_SCALARS:
        return True
    if depth > 50 or type(value) not in (list, tuple, dict, set, frozenset):
        return False
    items = [*value.keys(), *value.values()] if type(value) is dict else value
    return all(_plain_data(item, depth + 1) for item in items)


def _replaced(key, item, by):
    """``key`` (an index or a tuple of them) with ``item`` (found by identity) replaced."""
    if isinstance(key, tuple):
        return tuple(by if part is item else part for part in key)
    return by if key is item else key


def _slice_bound(interp, bound, node):
    """A slice bound as torch reads it: a one-element integer tensor by its value (``x[:n]`` with
    ``n = lengths.max()``); one whose value is not known, or an unknown, is not known."""
    if isinstance(bound, Tensor):
        if bound.dtype.startswith(("int", "uint")) and bound.shape in ((), (1,)) and bound.values is not None \
                and len(bound.values) == 1 and type(bound.values[0]) is int:
            return bound.values[0]
        return interp.unknown("a slice bound held in a tensor whose value is not known while the model is built", node)
    return bound


class TorchFramework:
    name = "pytorch"

    def __init__(self):
        self.tracer = Tracer()
        self.checkpoints = Regions(self)  # torch.utils.checkpoint regions being traced
        self.tracer.regions = self.checkpoints
        self.call_cache = CallCache()
        self.dtypes = dtype_objects()  # torch.float32, torch.half, ...: one object per dtype
        self.object_class = Class("object", (), {
            "__init__": Builtin("object.__init__", lambda i, a, k, n: None),
            # reached through super().__getattribute__/__setattr__ from a class that overrides them
            "__getattribute__": Builtin("object.__getattribute__", lambda i, a, k, n: i.object_getattribute(a[0], a[1], n)),
            "__setattr__": Builtin("object.__setattr__", _object_setattr)})
        self.module_class = modules.make_module_class()
        self.module_class.bases = (self.object_class,)
        self.ops = TorchOps(self)
        functions = build_functions(self.ops)
        functions.update(build_table(self.ops, functions))  # tensor_table.py: the table-driven ops
        routing.track(functions)  # mixture-of-experts masks: the eager per-expert loop
        self.functions = {name: self._with_grad(name, fn) for name, fn in functions.items()}
        # torch.linalg's norms: in their own namespace, not torch.* nor a tensor method
        self.linalg_norm = self.functions.pop("linalg_norm")
        self.fourier = {name: self._with_grad(name, fn) for name, fn in build_fourier(self.ops).items()}
        # torch.nn.functional only (F.unfold is not Tensor.unfold): the table of functional_table.py
        self.functional_only = {name: self._with_grad(name, fn) for name, fn in build_functional(self.ops).items()}

    def _with_grad(self, name: str, fn):
        """Run a tensor function with its tensor arguments known to ``record`` and let
        ``requires_grad`` flow from them to its results, as autograd would.  ``axis=`` is
        torch's alias of ``dim=`` (numpy's name: ``torch.cat(xs, axis=1)``, ``x.sum(axis=-1)``)."""
        if name in _NO_GRAD_FLOW:
            def aliased(interp, args, kwargs, node):
                if "axis" in kwargs and "dim" not in kwargs:
                    kwargs = {("dim" if k == "axis" else k): v for k, v in kwargs.items()}
                return fn(interp, args, kwargs, node)
            return aliased

        def wrapped(interp, args, kwargs, node):
            if "axis" in kwargs and "dim" not in kwargs:
                kwargs = {("dim" if k == "axis" else k): v for k, v in kwargs.items()}
            tensors = _tensors_in([*args, *kwargs.values()])
            with self.ops.arguments(tensors):
                result = fn(interp, args, kwargs, node)
            if any(t.requires_grad for t in tensors):
                _mark_requires_grad(result)
            return result
        return wrapped

    def install(self, interp) -> None:
        """Create the namespaces; needs the interpreter to evaluate layer signatures."""
        interp.builtins = pybuiltins.build_builtins(self.object_class)
        # torch.device: (type, index), equal when both are; every tensor of the analysis is on the CPU
        self.device_class = pyclasses.make_record_class("device", ["type", "index"], {}, (self.object_class,))
        self.cpu = Record.make(self.device_class, ("type", "index"), ("cpu", None))
        stdlib = pybuiltins.build_stdlib(interp.builtins, interp)
        layers = modules.LayerFactory(interp, self.module_class).classes
        containers = modules.make_container_classes(self.module_class)
        constructors = build_constructors(self.ops)
        functional_names = {k: Builtin(f"F.{k}", v, bind_self=False)
                            for k, v in {**self.functions, **self.functional_only}.items()}
        tensor_type = Builtin("Tensor", constructors["Tensor"], bind_self=False)
        tensor_type.is_tensor_type = True
        tensor_type.python_repr = "<class 'torch.Tensor'>"  # str(type(x)): transformers' framework sniffing
        parameter_type = Builtin("nn.Parameter", constructors["Parameter"], bind_self=False)
        parameter_type.instance_check = lambda value: isinstance(value, Parameter)
        parameter_type.python_repr = "<class 'torch.nn.parameter.Parameter'>"
        self.tensor_types = (tensor_type, parameter_type)
        noop = Builtin("noop", lambda i, a, k, n: a[0] if a else None, bind_self=False)
        context = Builtin("context", lambda i, a, k, n: None, bind_self=False)
        second = Builtin("annotate", lambda i, a, k, n: a[1] if len(a) > 1 else None, bind_self=False)
        checkpoint = self.checkpoints.namespace()  # fn(*args), whose ops backward runs again
        init = Namespace("torch.nn.init", _init_members())
        functional = Namespace("torch.nn.functional", dict(functional_names))
        nn = Namespace("torch.nn", {
            "Module": self.module_class, **containers, **layers, "functional": functional, "init": init,
            "Parameter": parameter_type,
            "parameter": Namespace("torch.nn.parameter", {"Parameter": parameter_type}),  # (torchvision maxvit)
            "modules": Namespace("torch.nn.modules", {}), "utils": Namespace("torch.nn.utils", utils_members()),
            # nn.Buffer(t) marks a tensor as a buffer when assigned to a module: the tensor itself here
            "Buffer": Builtin("nn.Buffer", lambda i, a, k, n: a[0] if a else k.get("data"), bind_self=False),
        })
        torch = Namespace("torch", {
            **{k: Builtin(f"torch.{k}", v, bind_self=False) for k, v in self.functions.items()},
            **{k: Builtin(f"torch.{k}", v, bind_self=False) for k, v in constructors.items() if k != "Parameter"},
            "nn": nn, "Tensor": tensor_type, "Size": interp.builtins["tuple"],
            **LAYOUTS,
            "vmap": Builtin("torch.vmap", vmap.vmap, bind_self=False),
            # torch.compile(model) runs the same maths (fused kernels, the same FLOPs): the model
            # itself; `@torch.compile` and `@torch.compile(mode=...)` on a function likewise
            "compile": Builtin("torch.compile", _compiled, bind_self=False),
            # the forward is analysed as run for inference, under no_grad (FlopCounterMode's ground truth)
            "is_grad_enabled": Builtin("torch.is_grad_enabled", lambda i, a, k, n: False, bind_self=False),
            "__version__": TORCH_VERSION,
            "device": Builtin("torch.device", self._device, bind_self=False),
            "is_tensor": Builtin("torch.is_tensor", lambda i, a, k, n: isinstance(a[0], Tensor) if a else False,
                                 bind_self=False),
            "jit": Namespace("torch.jit", {"ignore": noop, "unused": noop, "export": noop, "annotate": second,
                                                           "is_scripting": Builtin("f", lambda i, a, k, n: False, bind_self=False),
                                                           "is_tracing": Builtin("f", lambda i, a, k, n: False, bind_self=False)}),
            "_assert": noop,
            # The model runs eagerly: not compiled, traced or exported; `@torch.compiler.disable` is a no-op
            "compiler": Namespace("torch.compiler", {
                **{name: Builtin(f"torch.compiler.{name}", lambda i, a, k, n: False, bind_self=False)
                   for name in ("is_compiling", "is_dynamo_compiling", "is_exporting")},
                "disable": Builtin("torch.compiler.disable", lambda i, a, k, n: a[0] if a else noop, bind_self=False)}),
            "utils": Namespace("torch.utils", {"checkpoint": checkpoint}),
            "_C": Namespace("torch._C", _passive()),  # _log_api_usage_once and friends
            "onnx": Namespace("torch.onnx", _passive()),  # exporter registration, never cost
            "linalg": Namespace("torch.linalg", {**{name: Builtin(f"torch.linalg.{name}", self.linalg_norm,
                                                                 bind_self=False) for name in ("norm", "vector_norm")},
                                                 "solve_triangular": Builtin("torch.linalg.solve_triangular",
                                                                             self._solve_triangular, bind_self=False)}),
            "fft": Namespace("torch.fft", {name: Builtin(f"torch.fft.{name}", fn, bind_self=False)
                                           for name, fn in self.fourier.items()}),
            **self.dtypes,
            **limits_functions(self.object_class),
            # torch's float constants (torch 2.13.0: inf, nan, pi, e as Python floats)
            "inf": math.inf, "nan": math.nan, "pi": math.pi, "e": math.e,
            **self._memory_formats(),
        })
        # device probes (torch.cuda, torch.backends, ...) answered as torch's CPU build does
        probes = accelerators.namespaces(self.object_class, lambda name: Builtin(
            name, lambda i, a, k, n: i.unknown(f"`{name}` is not modelled", n), bind_self=False))
        torch.members.update(accelerators.checks())
        for dotted, namespace in probes.items():
            parent, _, leaf = dotted.rpartition(".")
            if parent in ("torch", "torch.nn"):
                (torch if parent == "torch" else nn).members[leaf] = namespace
        autograd, autograd_function = self._autograd_namespaces(interp, torch)
        torch.members["autograd"] = autograd
        distributions = self._distributions_namespaces(interp, torch)
        torch.members["distributions"] = distributions["torch.distributions"]
        self.blocks = accelerators.Blocks(self.cpu, self.device_class, self.object_class, torch.members["float32"])
        torch.members.update(self.blocks.builtins())  # default device and dtype, is_autocast_enabled, autocast
        self._stub_context = (nn, functional, stdlib["copy"])
        self.namespaces = {
            "torch": torch, "torch.nn": nn, "torch.nn.functional": functional, "torch.nn.init": init,
            "torch.nn.modules": nn.members["modules"], "torch.nn.utils": nn.members["utils"],
            "torch.nn.utils.parametrizations": nn.members["utils"].members["parametrizations"],
            "torch.utils.checkpoint": checkpoint, "torch.utils": torch.members["utils"],
            "torch.jit": torch.members["jit"], "torch._C": torch.members["_C"], "torch.onnx": torch.members["onnx"],
            "torch.linalg": torch.members["linalg"], "torch.fft": torch.members["fft"], **probes, **stdlib,
            "torch.autograd": autograd, "torch.autograd.function": autograd_function, **distributions,
            "numpy": Namespace("numpy", {"linspace": Builtin("numpy.linspace", _numpy_linspace, bind_self=False),
                                         "array": Builtin("numpy.array", _numpy_array, bind_self=False, pure=True),
                                         # arrays are tensors here (linspace, array): none is an ndarray
                                         "ndarray": Class("ndarray", (self.object_class,), {}),
                                         **numpy_scalars.members()}),
        }
        self.tensor_methods = {k: Builtin(f"Tensor.{k}", _writing_back(v) if _in_place(k) else v)
                               for k, v in self.functions.items() if k not in TORCH_ONLY}
        layer_bindings = {"Module": self.module_class, "Parameter": nn.members["Parameter"],
                          "zeros": torch.members["zeros"]}
        self.namespaces.update(einops_namespaces(self, interp, layer_bindings, "torch_layers.pyi",
                                                 ("einops.layers.torch",)))

    def _autograd_namespaces(self, interp, torch: Namespace) -> tuple:
        """``torch.autograd`` and ``torch.autograd.function``: ``Function`` (custom autograd
        functions: ``X.apply(...)`` runs ``X.forward``), from stubs/autograd.pyi on first use."""
        autograd, function = Namespace("torch.autograd", {}), Namespace("torch.autograd.function", {
            "once_differentiable": Builtin("once_differentiable", lambda i, a, k, n: a[0] if a else None,
                                           bind_self=False)})
        autograd.members["function"] = function

        def loader(namespace):
            def load(member):
                if "Function" not in autograd.members:
                    classes = run_stub(interp, Path(__file__).parent / "stubs" / "autograd.pyi", "<torch.autograd>",
                                       {"is_tensor": torch.members["is_tensor"]})
                    autograd.members.update(classes)
                    function.members.update(classes)
                return namespace.members.get(member, MISSING)
            return load

        autograd.loader, function.loader = loader(autograd), loader(function)
        return autograd, function

    def _distributions_namespaces(self, interp, torch: Namespace) -> dict:
        """``torch.distributions`` and ``torch.distributions.normal``: ``Normal`` from
        stubs/distributions.pyi on first use (other distributions are not modelled)."""
        top, normal = Namespace("torch.distributions", {}), Namespace("torch.distributions.normal", {})
        top.members["normal"] = normal

        def loader(namespace):
            def load(member):
                if "Normal" not in normal.members:
                    classes = run_stub(interp, Path(__file__).parent / "stubs" / "distributions.pyi",
                                       "<torch.distributions>", {"torch": torch})
                    top.members.update(classes)
                    normal.members.update(classes)
                return namespace.members.get(member, MISSING)
            return load

        top.loader, normal.loader = loader(top), loader(normal)
        return {"torch.distributions": top, "torch.distributions.normal": normal}

    def _solve_triangular(self, interp, args, kwargs, node):
        """``torch.linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False)``: X of B's
        shape with A X = B, the op torch.triangular_solve(B, A) computes (without A's copy)."""
        bound = {"left": True, "unitriangular": False, **dict(zip(("A", "B"), args)), **kwargs}
        if bound["left"] is not True or "upper" not in bound or "A" not in bound or "B" not in bound:
            raise CannotKnow("torch.linalg.solve_triangular with left=False or without upper=")
        result = self.functions["triangular_solve"](interp, [bound["B"], bound["A"]],
                                                    {"upper": bound["upper"], "unitriangular": bound["unitriangular"]},
                                                    node)
        return result[0] if isinstance(result, tuple) else result

    def _memory_formats(self) -> dict:
        """``torch.contiguous_format`` and friends: objects of class ``torch.memory_format``,
        passed to ``.contiguous()``/``.to()``, which change the layout, never a size or a count."""
        cls = Class("memory_format", (self.object_class,), {})
        names = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d", "legacy_contiguous_format")
        return {"memory_format": cls, **{name: Instance(cls) for name in names}}

    def _device(self, interp, args, kwargs, node):
        """``torch.device("cuda:0")``, ``torch.device("cuda", 1)``, ``torch.device(other_device)``."""
        spec = args[0] if args else kwargs.get("type")
        if isinstance(spec, Record) and spec.cls is self.device_class:
            return spec
        if not isinstance(spec, str):
            return spec  # unknown stays unknown
        kind, _, index = spec.partition(":")
        index = int(index) if index.isdigit() else args[1] if len(args) > 1 else kwargs.get("index")
        return Record.make(self.device_class, ("type", "index"), (kind, index))

    # ---- imports ------------------------------------------------------------------------
    def known_module(self, dotted: str):
        """The namespace we model for ``torch``, ``torch.nn``, ``math``, ... or None."""
        return self.namespaces.get(dotted)

    # Top-level packages we model (in part): never read from site-packages, even the parts we
    # do not model (those stay unknown).  A library modelled later (einops) joins by having its
    # top-level name in ``namespaces`` or here.
    modelled_packages = frozenset({"torch"})

    def models_package(self, top: str) -> bool:
        return top in self.modelled_packages or top in self.namespaces

    def import_module(self, interp, dotted: str, node):
        """A module that is neither modelled nor a file of the analysed project."""
        if dotted in self.namespaces:
            return self.namespaces[dotted]
        top = dotted.split(".")[0]
        if top == "torch":
            return interp.unknown(f"`{dotted}` is not modelled", node)
        if dotted.startswith("."):
            why = "no such file in the analysed project"
        else:
            why = "not a file of the analysed project (third-party?), not followed"
        return interp.unknown(f"import of `{dotted}`: {why}", node)  # reported once per import statement

    def namespace_missing(self, interp, namespace: Namespace, name: str, node):
        if isinstance(namespace.members, NoOpMembers):
            return namespace.members.anything
        if namespace.name == "torch.nn" and name in STUB_CLASSES:
            # Loaded on first use: most models never name a transformer module.
            namespace.members.update(_load_stubs(interp, *self._stub_context))
            return namespace.members[name]
        if namespace.name == "torch.nn.functional" and name in FUNCTIONAL_STUBS:
            # loaded on first use, as the transformer modules above
            namespace.members.update(run_stub(interp, Path(__file__).parent / "stubs" / "functional.pyi",
                                              "<torch.nn.functional>", {"torch": self.namespaces["torch"],
                                                                         "F": namespace}))
            return namespace.members[name]
        if namespace.name == "torch.nn" and name in NOT_MODELLED:
            return interp.unknown(f"`torch.nn.{name}` is not modelled: {NOT_MODELLED[name]}", node)
        if namespace.name == "numpy":  # host-side values, never part of the model's cost: an
            # unknown reported where the model needs it (a size, a branch), not where it is
            # made (Marian copies a numpy sinusoidal table into a weight nobody reads)
            return Unknown(f"`numpy.{name}` is not modelled", interp.location(node))
        return interp.unknown(f"`{namespace.name}.{name}` is not modelled", node)

    # ---- objects ------------------------------------------------------------------------
    # Repeated nn.Module constructions with plain arguments are built once and copied
    # (frontend/construction_memo.py, which argues why that is sound).
    memoises_constructions = True

    def instantiate(self, interp, cls: Class, args, kwargs, node):
        memo = interp.construction_memo
        key = memo.key(interp, cls, args, kwargs, node) if self.memoises_constructions else None
        if key is not None:
            return memo.construct(interp, key, lambda a=args, k=kwargs: self._instantiate(interp, cls, a, k, node), node,
                                  args, kwargs)
        return self._instantiate(interp, cls, args, kwargs, node)

    def _instantiate(self, interp, cls: Class, args, kwargs, node):
        instance = Instance(cls, location=interp.location(node))
        if interp.construction_memo.recorders:  # its own state, for the construction(s) being recorded
            interp.construction_memo.created(instance)
        if self.is_module_class(cls):
            interp.budget.module(interp, node)
            instance.module = ModuleState()
        try:
            init, owner = cls.lookup_owner("__init__")
        except KeyError:
            return instance
        try:
            interp.call(BoundMethod(instance, init, owner), list(args), dict(kwargs), node)
        except BudgetExceeded as error:
            if instance.module is not None:
                error.building = instance  # set again by each enclosing constructor: ends as the outermost
            raise
        self.after_init(instance)
        return instance

    def module_call(self, interp, function, args: list, kwargs: dict, node, run):
        """``function(module, ...)`` (a function or bound method of the analysed code) while the
        model is built: ``run()``, or answered from the memo of such calls (call_memo.py)."""
        return call_memo.module_call(interp, function, args, kwargs, node, run)

    def is_module_class(self, cls: Class) -> bool:
        return cls.is_subclass_of(self.module_class)

    def after_init(self, instance: Instance) -> None:
        """A hook for frameworks whose base-class constructor may be skipped (Keras)."""

    def instance_missing_attribute(self, interp, instance: Instance, name: str, node):
        if instance.module is not None:
            if name in instance.module.children:
                return instance.module.children[name]
            if name == "training":
                return False
            if name in ("_modules", "_parameters"):  # PyTorch's own registries (the live dicts)
                return instance.module.children if name == "_modules" else instance.module.parameters
            if name == "_buffers":  # name -> tensor, read from the instance (register_buffer writes both)
                return {key: instance.attrs.get(key) for key in instance.module.buffers}
        return interp.unknown(f"{instance.cls.name} has no attribute `{name}`", node)

    def instance_getitem(self, interp, instance: Instance, key, node):
        if instance.module is not None:
            return modules.container_getitem(interp, instance, key, node)
        return interp.unknown(f"indexing a {instance.cls.name}", node)

    def instance_iter(self, interp, instance: Instance, node):
        if instance.module is not None:
            if any(c.name in ("ModuleDict", "ParameterDict") for c in instance.cls.mro()):  # a dict: its keys
                return list((instance.module.children or instance.module.parameters).keys())
            return [c for c in instance.module.children.values() if c is not None] or list(instance.module.parameters.values())
        raise AnalysisError(f"cannot iterate over a {instance.cls.name}", interp.location(node), "SF112")

    def instance_truth(self, interp, instance: Instance, node):
        if instance.module is not None and instance.module.kind is None and instance.cls.name in ("ModuleList", "ModuleDict", "Sequential"):
            return bool(instance.module.children)
        return True

    def instance_binary(self, interp, op: str, left, right, node):
        return interp.unknown(f"operator `{op}` on {left!r} and {right!r} is not modelled", node)

    def module_set_item(self, interp, module: Instance, key, value, node):
        modules._setattr(interp, [module, str(key), value], {}, node)

    def python_attribute(self, interp, value, name: str, node):
        allowed = _PYTHON_METHODS.get(type(value))
        if allowed and name in allowed:
            return Builtin(name, lambda interp, args, kwargs, node: self.call_python_method(interp, value, name, args,
                                                                                           kwargs, node), bind_self=False)
        if type(value) is tuple and name == "numel":
            # a torch.Size is modelled as the tuple of its sizes: its numel() is their product
            # (Idefics3's `pixel_values.shape[1:].numel()`)
            return Builtin("Size.numel", lambda interp, args, kwargs, node: _size_numel(interp, value, args, kwargs, node),
                           bind_self=False)
        if (value is None or type(value) in (bool, int, float, complex, str)) and not hasattr(value, name):
            # Python's AttributeError (a config field left None: `None.to(...)`, `False.unsqueeze`)
            raise interp.fail(f"'{type(value).__name__}' object has no attribute '{name}'", node, "SF115",
                              python="AttributeError")
        if isinstance(value, complex) or value is None:
            return interp.unknown(f"`None` has no attribute `{name}`", node)
        if isinstance(value, DTypeName) and (known := value.attribute(name)) is not MISSING:
            return known
        return interp.unknown(f"attribute `{name}` of {type(value).__name__} is not modelled", node)

    # The str methods above that build nothing the budget measures: ``s.endswith("x")`` with
    # string arguments is called straight from the call expression (``Expressions._eval_Call``),
    # as the Builtin above would call it, without making the Builtin (a loop over a 96-block
    # GPT's 1,160 parameter names made one per name).
    direct_str_methods = _PYTHON_METHODS[str] - GROWING_METHODS

    def call_python_method(self, interp, value, name: str, args: list, kwargs: dict, node):
        """``value.name(*args, **kwargs)`` for a method ``python_attribute`` allows."""
        # An unknown stored in a list stays there as an item (it is opaque, not absent): a later
        # `frames[0]` reads the unknown with its first cause instead of failing on a short list.
        stored = args[1:] if type(value) is list and name == "insert" else \
            args[:1] if type(value) is list and name == "append" else ()
        for argument in args:
            if isinstance(argument, Unknown) and not any(argument is item for item in stored):
                return argument
        if name in GROWING_METHODS:  # the others build nothing the budget measures
            interp.budget.check_method(interp, value, name, args, kwargs, node)
        if name == "format" and not _plain_data([args, kwargs]):
            # Python's str.format walks `{0.attr[key]}` fields on the objects it is given:
            # on the analyser's own values that reaches staticflops' module globals (and
            # from there os.environ) — a secret a pull request could print as a layer name
            return interp.unknown("`.format()` of a value that is not plain data (numbers, strings, "
                                  "containers of them) is not evaluated", node)
        if name == "sort" and type(value) is list and not args:  # as sorted() orders, key= called in the analysis
            ordered = interp.call(interp.builtins["sorted"], [value], kwargs, node)
            if isinstance(ordered, Unknown):
                return ordered
            value[:] = ordered
            return None
        if name in ("join", "extend"):  # they iterate a set argument: in a stable order
            args = [stable_order(a) if isinstance(a, (set, frozenset)) else a for a in args]
        try:
            result = getattr(value, name)(*args, **kwargs)
        except (TypeError, ValueError, KeyError, IndexError) as error:
            return interp.unknown(f"`.{name}()` failed: {reason(error)}", node)
        return list(result) if type(result).__name__ in ("dict_items", "dict_keys", "dict_values") else result

    # ---- tensors --------------------------------------------------------------------------
    def tensor_attribute(self, interp, tensor: Tensor, name: str, node):
        if name in self.tensor_methods:
            return BoundMethod(tensor, self.tensor_methods[name])
        if tensor.shape is None and name in ("shape", "ndim", "T", "mT"):
            return interp.unknown("shape of this tensor is unknown", node)
        if name == "shape":
            return tuple(tensor.shape)
        if name == "ndim":
            return len(tensor.shape)
        if name in ("T", "mT"):
            shape = tuple(reversed(tensor.shape)) if name == "T" else tensor.shape[:-2] + tensor.shape[-2:][::-1]
            return Tensor(shape, tensor.dtype, requires_grad=tensor.requires_grad)  # a view: in the graph as it is
        if name in ("real", "imag"):  # a complex tensor's parts (complex results keep the float dtype here)
            return Tensor(tensor.shape, tensor.dtype, requires_grad=tensor.requires_grad)
        if name == "dtype":  # torch's dtype object of the tensor's class (`x.dtype is torch.float32`)
            return self.dtypes.get(tensor.dtype, tensor.dtype)
        if name in ("is_xpu", "is_mps"):  # like is_cuda: the analysis models a CPU tensor
            return False
        if name == "layout":  # every tensor the analysis models is dense (torch.strided)
            return LAYOUTS["strided"]
        if name == "device":
            return self.cpu
        if name in ("is_cuda", "grad", "data"):
            return tensor if name == "data" else None if name == "grad" else False
        if name == "requires_grad":
            return getattr(tensor, "trainable", False)
        if name == "__class__":  # as type(tensor)
            return self.tensor_type(tensor)
        if name == "is_leaf":  # made by the user (a parameter) or outside autograd (no gradient)
            return isinstance(tensor, Parameter) or not getattr(tensor, "trainable", False)
        if tensor.python_attrs is not None and name in tensor.python_attrs:
            return tensor.python_attrs[name]
        if self.tensor_has_attribute(tensor, name) is False:
            if interp.missing_attributes_raise:  # getattr(t, name, default), hasattr: AttributeError
                raise interp.fail(f"'Tensor' object has no attribute '{name}'", node, "SF115", python="AttributeError")
            return interp.unknown(f"a tensor has no attribute `{name}`", node)
        return interp.unknown(f"tensor attribute `{name}` is not modelled", node)

    # The names a real tensor has (tools/record_tensor_attributes.py): any other name, unless the
    # code set it on the tensor, is missing.  None (Keras): not known, every other name unknown.
    tensor_attribute_names = TENSOR_ATTRIBUTE_NAMES
    # `t += y` writes into t (Tensor.__iadd__), unlike TensorFlow's immutable tensors
    augmented_assignment_in_place = True

    def tensor_has_attribute(self, tensor: Tensor, name: str) -> bool | None:
        """``hasattr(tensor, name)`` when it is decided without reading the attribute: True for
        a name the code set on it, False for one neither set nor torch's; None otherwise."""
        if tensor.python_attrs is not None and name in tensor.python_attrs:
            return True
        if self.tensor_attribute_names is not None and name not in self.tensor_attribute_names:
            return False
        return None

    def tensor_type(self, tensor: Tensor):
        """``type(tensor)``: ``torch.Tensor`` or ``nn.Parameter`` (None: not known)."""
        return self.tensor_types[1] if isinstance(tensor, Parameter) else self.tensor_types[0]

    def with_block(self, manager):
        """Around the body of ``with manager:``: ``torch.device(d)`` makes d the default device,
        ``torch.autocast(...)`` turns autocast on (accelerators.Blocks)."""
        return self.blocks.entered(manager)

    def tensor_set_attribute(self, interp, tensor, name, value, node):
        if name == "requires_grad" and isinstance(value, bool):
            tensor.requires_grad = value
            if isinstance(tensor, Parameter):
                tensor.trainable = value
        elif self.tensor_attribute_names is not None and name not in self.tensor_attribute_names:
            # a mark of the code's own (transformers' `_is_hf_initialized`), read back later;
            # torch's own attributes (`data`, `grad`) are not modelled as values here
            tensor.python_attrs = {**(tensor.python_attrs or {}), name: value}

    def tensor_unary(self, interp, op: str, tensor: Tensor, node):
        if tensor.shape is None:
            return interp.unknown("shape of this tensor is unknown", node)
        kind = "neg" if op == "minus" else "identity"
        with self.ops.arguments([tensor]):
            result = self.ops.record(interp, kind, "-" if op == "minus" else op, {}, [tensor.shape], node)
        if isinstance(result, Tensor) and op in ("minus", "plus") and tensor.values is not None:
            result.dtype = tensor.dtype  # -t of an integer tensor is an integer tensor, its values negated
            result.values = constants.known(tuple(tensor.shape), [-v if op == "minus" else v for v in tensor.values]
                                            if tensor.dtype != "bool" else None)
        if isinstance(result, Tensor) and op == "bitinvert" and tensor.values is not None \
                and tensor.dtype in ("bool", "int64"):
            # ~mask of a known mask (a padding mask built from zeros): not, or the integers' ~
            result.dtype = tensor.dtype
            result.values = constants.known(tuple(tensor.shape), [(not v) if tensor.dtype == "bool" else ~int(v)
                                                                  for v in tensor.values])
        return result

    def binary_with_unknown(self, interp, op_name: str, left, right, node):
        """An operator with an unknown operand: None (the result is that unknown)."""
        return None

    def tensor_binary(self, interp, op_name: str, left, right, node):
        if op_name == "MatrixMultiply":
            return self.call_function(interp, "__matmul__", [left, right], node, label="@")
        kind = _OPERATORS.get(op_name)
        if kind is None:
            return interp.unknown(f"operator `{op_name}` on tensors is not modelled", node)
        if left is None or right is None:
            return _with_none(interp, op_name, left, right, node)
        return self.binary(interp, kind, left, right, node, comparison=_COMPARISONS.get(op_name),
                           valued_as=_VALUED_AS.get(op_name))

    def binary(self, interp, kind: str, left, right, node, label: str | None = None, comparison: str | None = None,
               valued_as: str | None = None):
        try:
            shapes = [self.ops.shape_of(interp, v, node) for v in (left, right)]
        except CannotKnow as why:
            return interp.unknown(f"operand of `{kind}` is unknown ({why})", node)
        try:
            out = ops.broadcast(*shapes)
        except ShapeError as error:
            raise AnalysisError(f"{kind}: {error}", interp.location(node), "SF301") from None
        dtype = constants.binary_dtype(valued_as or kind, left, right)
        label = label or {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"}.get(kind, kind)
        with self.ops.arguments(_tensors_in([left, right])):
            result = self.ops.record(interp, kind, label, {}, shapes, node, outputs=[out], dtype=dtype)
        if kind == "compare":
            compared = Tensor(result.shape, "bool", requires_grad=False,
                              values=constants.known(out, constants.compare_values(comparison or label, left, right, out)))
            if compared.values is None:
                constants.settle(compared, constants.compare_progression(comparison or label, left, right))
            compared = draws.compared(compared, left, right, comparison or label)
            return routing.compared(compared, left, right, comparison or label)
        result.values = constants.known(out, constants.binary_values(valued_as or kind, left, right, dtype, out))
        if result.values is None:
            constants.settle(result, constants.binary_progression(kind, left, right, dtype, out))
        return routing.multiplied(result, left, right) if kind == "mul" else result

    def call_function(self, interp, name: str, args, node, label=None):
        try:
            return self.functions[name](interp, list(args), {}, node)
        except CannotKnow as why:
            return interp.unknown(f"`{label or name}` on {why}", node)

    def tensor_getitem(self, interp, tensor: Tensor, key, node):
        if tensor.shape is None:
            return interp.unknown("indexing a tensor of unknown shape", node)
        if (routed := routing.getitem(tensor, key)) is not None:
            return routed
        items = key if isinstance(key, tuple) else (key,)
        converted = []
        for item in items:
            if isinstance(item, Unknown):
                return item
            if isinstance(item, Tensor):
                if item.dtype == "bool" or item.shape is None:
                    return interp.unknown("boolean-mask indexing: the result's size depends on the data", node)
                converted.append(IndexArray(item.shape))
            elif isinstance(item, list):
                converted.append(IndexArray((len(item),)))
            elif isinstance(item, slice):
                bounds = [_slice_bound(interp, b, node) for b in (item.start, item.stop, item.step)]
                if unknown := next((b for b in bounds if isinstance(b, Unknown)), None):
                    return unknown  # `x[:, :n]` with an unresolved n: the length is unknown, and says why
                converted.append(slice(*bounds))
                if item.start is not bounds[0] or item.stop is not bounds[1] or item.step is not bounds[2]:
                    key = _replaced(key, item, converted[-1])
            else:
                converted.append(item)
        try:
            shape = ops.index(tensor.shape, tuple(converted) if isinstance(key, tuple) else converted[0])
        except ShapeError as error:
            raise AnalysisError(f"indexing: {error}", interp.location(node), "SF301") from None
        values = constants.known(shape, constants.indexed(tensor.values, tensor.shape, key))
        result = Tensor(shape, tensor.dtype, requires_grad=tensor.requires_grad, values=values)
        return result if values is not None else constants.settle(result, constants.indexed_progression(tensor, key))

    def tensor_setitem(self, interp, tensor: Tensor, key, value, node) -> None:
        """``tensor[key] = value`` keeps the shape; the known values follow the write when it is
        one ``indexed`` follows, else they are no longer known (never stale)."""
        tensor.progression = None  # (a symbolic-length tensor's: not followed through a write)
        if tensor.values is None:
            return
        if isinstance(key, Unknown) or isinstance(value, Unknown) or tensor.shape is None:
            tensor.values = None
            return
        tensor.values = constants.assigned(tensor.values, tuple(tensor.shape), key, value, tensor.dtype)

    def tensor_iter(self, interp, tensor: Tensor, node):
        if tensor.shape is None or not tensor.shape or not isinstance(tensor.shape[0], int):
            raise AnalysisError("cannot iterate over a tensor whose first dimension is not a known number",
                                interp.location(node), "SF112")
        rows = tensor.shape[0]
        values = tensor.values if tensor.values is not None and rows else None
        size = len(values) // rows if values is not None else 0
        return [Tensor(tensor.shape[1:], tensor.dtype, requires_grad=tensor.requires_grad,
                       values=values[i * size:(i + 1) * size] if values is not None else None)
                for i in range(rows)]


def _compiled(interp, args, kwargs, node):
    if args:
        return args[0]
    return Builtin("torch.compile", lambda i, a, k, n: a[0] if a else None, bind_self=False)


# Results that never carry a gradient whatever their inputs.
_NO_GRAD_FLOW = {"detach", "size", "dim", "ndimension", "numel", "nelement", "argmax", "argmin", "long", "int", "bool"}


def _in_place(name: str) -> bool:
    """torch's naming: a method ending in one underscore changes its tensor (``cumsum_``)."""
    return name.endswith("_") and not name.endswith("__") and name != "requires_grad_"


def _writing_back(fn):
    """An in-place method: the tensor holds the result afterwards, so what is known of its
    values is the result's (none, if the result is not a tensor), never what it held before."""
    def method(interp, args, kwargs, node):
        result = fn(interp, args, kwargs, node)
        target = args[0] if args else None
        if isinstance(target, Tensor) and result is not target:
            known = isinstance(result, Tensor) and result.shape == target.shape
            target.values = result.values if known else None
            target.progression = result.progression if known else None
        return result
    return method


def _with_none(interp, op_name: str, left, right, node):
    """A tensor and None: torch's operators return NotImplemented for None, so Python falls back
    to identity for `==`/`!=` (`input_ids == config.image_token_id` with the id unset is the bool
    False, not a mask) and raises TypeError for the others."""
    if op_name in ("Equal", "NotEqual"):
        return op_name == "NotEqual"
    first, second = ("NoneType" if side is None else "Tensor" for side in (left, right))
    if op_name in _ORDERINGS:
        message = f"'{_ORDERINGS[op_name]}' not supported between instances of '{first}' and '{second}'"
    else:
        message = f"unsupported operand type(s) for {_SYMBOLS.get(op_name, op_name)}: '{first}' and '{second}'"
    raise interp.fail(message, node, python="TypeError")


_ORDERINGS = {"LessThan": "<", "LessThanEqual": "<=", "GreaterThan": ">", "GreaterThanEqual": ">="}
_SYMBOLS = {"Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/", "FloorDivide": "//", "Modulo": "%",
            "Power": "** or pow()", "BitAnd": "&", "BitOr": "|", "BitXor": "^"}


def _tensors_in(values) -> list:
    found = []
    for value in values:
        if isinstance(value, Tensor):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(_tensors_in(value))
    return found


def _mark_requires_grad(result) -> None:
    if isinstance(result, Tensor) and result.dtype not in ("int64", "bool"):
        result.requires_grad = True
    elif isinstance(result, (list, tuple)):
        for item in result:
            _mark_requires_grad(item)


def _object_setattr(interp, args, kwargs, node):
    """``object.__setattr__(obj, name, value)``: the instance dict (a property's setter first)."""
    receiver, name, value = args[0], args[1], args[2]
    if not isinstance(receiver, Instance):
        return interp.set_attribute(receiver, name, value, node)
    member = next((c.namespace[name] for c in receiver.cls.mro() if name in c.namespace), None)
    if isinstance(member, MethodWrapper) and member.kind == "property" and member.setter is not None:
        interp.call(member.setter, [receiver, value], {}, node)
    elif receiver.module is not None:
        modules._setattr(interp, [receiver, name, value], {}, node)
    else:
        receiver.attrs[name] = value
    return None


def _passive() -> NoOpMembers:
    """``nn.init.*`` only fills weights, ``torch._C`` logs: members that return their argument."""
    return NoOpMembers(Builtin("no-op", lambda i, a, k, n: a[0] if a else None, bind_self=False))


def _init_members() -> NoOpMembers:
    """``nn.init``: the fill functions return their tensor; the two that compute a number do."""
    members = _passive()
    members["_calculate_fan_in_and_fan_out"] = Builtin("torch.nn.init._calculate_fan_in_and_fan_out", _fans,
                                                       bind_self=False)
    members["calculate_gain"] = Builtin("torch.nn.init.calculate_gain", _gain, bind_self=False)
    return members


def _fans(interp, args, kwargs, node):
    """(fan_in, fan_out) = (size(1), size(0)) times the product of the other sizes, as torch's
    ``_calculate_fan_in_and_fan_out`` (transformers' variance-scaling initialisers use it)."""
    tensor = args[0] if args else kwargs.get("tensor")
    if not isinstance(tensor, Tensor) or tensor.shape is None:
        raise CannotKnow("fan in/out of a tensor of unknown shape")
    if len(tensor.shape) < 2:
        raise AnalysisError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
                            interp.location(node), "SF301")
    receptive = 1
    for size in tensor.shape[2:]:
        receptive *= size
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


_GAINS = {"linear": 1, "identity": 1, "sigmoid": 1, "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4,
          "conv1d": 1, "conv2d": 1, "conv3d": 1, "conv_transpose1d": 1, "conv_transpose2d": 1, "conv_transpose3d": 1}


def _gain(interp, args, kwargs, node):
    """``calculate_gain(nonlinearity, param=None)`` as torch's table gives it."""
    name = args[0] if args else kwargs.get("nonlinearity")
    param = args[1] if len(args) > 1 else kwargs.get("param")
    if name == "leaky_relu":
        slope = 0.01 if param is None else param
        if not isinstance(slope, (int, float)) or isinstance(slope, bool):
            raise CannotKnow("calculate_gain of leaky_relu with an unknown slope")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if name not in _GAINS:
        raise CannotKnow(f"calculate_gain({name!r})")
    return _GAINS[name]


_STUBS = ("transformer.pyi",)
STUB_CLASSES = {"TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder",
                "Transformer"}


# torch's layouts, compared by name (`x.layout == torch.strided`)
LAYOUTS = {name: f"torch.{name}" for name in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
                                              "sparse_bsc", "_mkldnn", "jagged")}

# torch.nn.functional functions written as stub source (stubs/functional.pyi)
FUNCTIONAL_STUBS = {"multi_head_attention_forward"}


def _load_stubs(interp, nn: Namespace, functional: Namespace, copy_module: Namespace) -> dict:
    """Classes of torch.nn that are compositions of modelled layers, written as stub source
    and evaluated by our interpreter (parsed once per process)."""
    classes: dict = {}
    for name in _STUBS:
        bindings = {**nn.members, "F": functional, "deepcopy": copy_module.members["deepcopy"]}
        classes.update(run_stub(interp, Path(__file__).parent / "stubs" / name, f"<torch.nn:{name}>", bindings))
    return classes


def _size_numel(interp, sizes: tuple, args, kwargs, node):
    """``torch.Size.numel()``: the product of the sizes (1 for an empty Size)."""
    if args or kwargs:
        return interp.unknown("Size.numel() takes no arguments", node)
    if not all(isinstance(d, (int, Expr)) and not isinstance(d, bool) for d in sizes):
        return interp.unknown(f"numel() of a tuple that is not a shape: {sizes!r}", node)
    return numel(sizes)


def _numpy_array(interp, args, kwargs, node):
    """``numpy.array(rows)`` of a rectangular nested list of known numbers (a sinusoidal position
    table built in a comprehension, RoFormer's): an int64 or float64 array of that shape, with its
    values when small enough; ``numpy.array(array)`` a copy.  Anything else is not known."""
    if len(args) != 1 or kwargs:
        return interp.unknown("numpy.array with options or of no data", node)
    data = args[0]
    if isinstance(data, Tensor):
        return Tensor(data.shape, data.dtype, values=data.values)
    dims, level = [], data
    while isinstance(level, (list, tuple)):
        dims.append(len(level))
        level = level[0] if level else None
    items: list = []

    def rectangular(value, depth) -> bool:
        if depth == len(dims):
            if type(value) not in (int, float):
                return False
            items.append(value)
            return True
        return isinstance(value, (list, tuple)) and len(value) == dims[depth] and \
            all(rectangular(v, depth + 1) for v in value)
    if not dims or not rectangular(data, 0):
        return interp.unknown("numpy.array of something other than a rectangular list of numbers", node)
    dtype = "float64" if any(type(v) is float for v in items) else "int64"
    values = [float(v) if dtype == "float64" else v for v in items] if len(items) <= constants.MAX_VALUES else None
    return Tensor(tuple(dims), dtype, values=values)


def _numpy_linspace(interp, args, kwargs, node):
    """``numpy.linspace(start, stop, num)``: per-block drop rates (torchvision's maxvit takes
    ``.tolist()`` of it).  An array of known float64 values, computed as numpy does:
    ``start + i * step``, the last one exactly ``stop``."""
    bound = dict(zip(("start", "stop", "num"), args), **kwargs)
    start, stop, num = bound.get("start"), bound.get("stop"), bound.get("num", 50)
    if not all(type(v) in (int, float) for v in (start, stop)) or type(num) is not int or num < 0:
        return interp.unknown("numpy.linspace of unknown or unsupported bounds", node)
    if num > constants.MAX_VALUES:
        return Tensor((num,), "float64")
    step = (stop - start) / (num - 1) if num > 1 else 0.0
    values = [float(start + i * step) for i in range(num)]
    if num > 1:
        values[-1] = float(stop)
    return Tensor((num,), "float64", values=values)
