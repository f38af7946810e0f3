"""Keras's object model over our values: ``Layer`` (weights made by ``build`` on the first
call), ``Model`` (subclassed, or Functional when given inputs/outputs), ``Sequential``,
``Input``/``InputLayer``, and one class per built-in layer whose ``call`` runs shape
inference and records an op.  Layer calls on tensors also become graph nodes (graph.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


from staticflops.diagnostics import AnalysisError, reason
from staticflops.frontend.keras.attention import attention_classes, grouped_query_attention_class
from staticflops.frontend.keras.einsum_dense import einsum_dense_class
from staticflops.frontend.keras.graph import KerasTensor, adopt, graph_nodes, keep_in_graph, replay, tensors_in
from staticflops.frontend.keras.layers import LAYERS, KerasLayerSpec, activation_kind, configure
from staticflops.frontend.tracer import TracedOp
from staticflops.frontend.values import Builtin, Class, Function, Instance, ModuleState, Parameter, Tensor, Unknown
from staticflops.shapes import symbol
from staticflops.shapes.layers import infer
from staticflops.shapes.tensor_ops import ShapeError

_OUTPUT_ACTIVATION = {"linear", "conv", "conv_transpose", "separable_conv"}  # layers with activation=
_MERGE = {"add", "sub", "mul", "average", "maximum", "minimum", "concat", "dot"}
_BASE_KWARGS = {"name", "trainable", "dtype", "input_shape", "batch_input_shape", "batch_size", "input_dim",
                "autocast", "activity_regularizer", "weights", "seed"}


@dataclass(eq=False)
class KerasState:
    """What Keras keeps on a layer besides its children and weights."""

    name: str
    built: bool = False
    declared_input: list | None = None  # input shapes a Sequential / InputLayer / input_shape= names
    graph: tuple | None = None  # Functional: (input tensors, outputs, nodes)
    spec: KerasLayerSpec | None = None  # built-in layers
    extra: dict = field(default_factory=dict)
    site: tuple | None = None  # (source, syntax node) of the expression that built the layer


def snake_case(name: str) -> str:
    """Keras's default layer names: Conv2DTranspose -> conv2d_transpose."""
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def keras_state(value) -> KerasState | None:
    return getattr(value, "keras", None) if isinstance(value, Instance) else None


def is_layer(value) -> bool:
    return keras_state(value) is not None


class KerasEngine:
    def __init__(self, framework, interp):
        self.framework = framework
        self.interp = interp
        self._names: dict = {}
        self.layer_class = Class("Layer", (framework.object_class,), self._methods("Layer", {
            "__init__": self._layer_init, "__setattr__": self._setattr, "__call__": self._call,
            "call": self._missing_call, "build": _none, "add_weight": self._add_weight,
            "add_variable": self._add_weight, "get_config": _empty_dict, "compute_output_shape": self._unknown_method,
            "count_params": self._unknown_method, "get_weights": _empty_list, "set_weights": _none,
            "add_loss": _none, "add_metric": _none, "build_from_config": _none,
        }))
        self.model_class = Class("Model", (self.layer_class,), self._methods("Model", {
            "__init__": self._model_init, "call": self._model_call, "build": self._model_build,
            "summary": _none, "compile": _none, "fit": _none, "evaluate": _none, "predict": _none,
            "save": _none, "save_weights": _none, "load_weights": _none, "get_layer": self._get_layer,
        }))
        self.sequential_class = Class("Sequential", (self.model_class,), self._methods("Sequential", {
            "__init__": self._sequential_init, "add": self._sequential_add, "pop": self._sequential_pop,
            "call": self._sequential_call,
        }))
        self.functional_class = Class("Functional", (self.model_class,), {})
        self.input_layer_class = Class("InputLayer", (self.layer_class,), self._methods("InputLayer", {
            "__init__": self._input_layer_init, "call": self._identity_call}))
        self.layers = {name: self._builtin_class(name, spec) for name, spec in LAYERS.items()}
        self.layers.update(attention_classes(self), EinsumDense=einsum_dense_class(self))
        self.layers["GroupQueryAttention"] = grouped_query_attention_class(self)  # GroupedQueryAttention in Keras
        self.layers.update(self._recurrent_cells())
        self._unmodelled: dict = {}
        self.layers.update({
            "Layer": self.layer_class, "InputLayer": self.input_layer_class,
            "Lambda": Class("Lambda", (self.layer_class,), self._methods("Lambda", {
                "__init__": self._lambda_init, "call": self._lambda_call})),
            "Bidirectional": Class("Bidirectional", (self.layer_class,), self._methods("Bidirectional", {
                "__init__": self._bidirectional_init, "call": self._bidirectional_call})),
            "TimeDistributed": Class("TimeDistributed", (self.layer_class,), self._methods("TimeDistributed", {
                "__init__": self._wrapper_init, "call": self._time_distributed_call})),
            "SpectralNormalization": Class("SpectralNormalization", (self.layer_class,), self._methods(
                "SpectralNormalization", {"__init__": self._spectral_init, "call": self._spectral_call})),
        })

    def _methods(self, owner: str, methods: dict) -> dict:
        return {name: Builtin(f"{owner}.{name}", fn) for name, fn in methods.items()}

    # ---- names and batch --------------------------------------------------------------
    def unique_name(self, base: str) -> str:
        number = self._names.get(base, 0)
        self._names[base] = number + 1
        return base if number == 0 else f"{base}_{number}"

    def batch_dim(self):
        batch = self.framework.batch
        return symbol("B") if batch is None else batch

    def declared_shape(self, shape=None, batch_shape=None, batch_size=None):
        """Input(shape=...) / batch_shape=...: unknown batch -> B (or --batch); other None -> D<i>."""
        if batch_shape is not None:
            dims = list(batch_shape)
        elif shape is not None:
            dims = [batch_size] + list(shape if isinstance(shape, (tuple, list)) else (shape,))
        else:
            return None
        return tuple(self.batch_dim() if i == 0 and d is None else symbol(f"D{i}") if d is None else d
                     for i, d in enumerate(dims))

    # ---- Layer ------------------------------------------------------------------------
    def _layer_init(self, interp, args, kwargs, node):
        self._base_init(args[0], kwargs)

    def _base_init(self, layer: Instance, kwargs: dict) -> None:
        if layer.module is None:
            layer.module = ModuleState()
        existing = keras_state(layer)
        name = kwargs.get("name")
        if existing is not None:
            if isinstance(name, str):
                existing.name = name
            return
        if not isinstance(name, str):
            name = self.unique_name(snake_case(layer.cls.name))
        layer.keras = KerasState(name)
        layer.attrs["name"] = name
        if kwargs.get("trainable") is False:
            layer.module.frozen = True
        shape = kwargs.get("batch_input_shape")
        declared = self.declared_shape(batch_shape=shape) if shape is not None else self.declared_shape(
            shape=kwargs.get("input_shape") if kwargs.get("input_dim") is None else (kwargs["input_dim"],),
            batch_size=kwargs.get("batch_size"))
        if declared is not None:
            layer.keras.declared_input = [declared]

    def _setattr(self, interp, args, kwargs, node):
        layer, name, value = args
        state = layer.module
        if state is None:
            layer.attrs[name] = value
            return
        if name == "trainable" and isinstance(value, bool):
            state.frozen = not value
        elif is_layer(value):
            state.children[name] = value
        elif isinstance(value, (list, tuple)) and any(is_layer(v) for v in value):
            for index, item in enumerate(value):  # Keras tracks layers inside lists
                if is_layer(item):
                    state.children[f"{name}.{index}"] = item
        elif isinstance(value, dict) and any(is_layer(v) for v in value.values()):
            for key, item in value.items():
                if is_layer(item):
                    state.children[f"{name}.{key}"] = item
        elif isinstance(value, Parameter) and value.owner is layer:
            for key, param in list(state.parameters.items()):
                if param is value and key.startswith("variable"):
                    del state.parameters[key]
                    state.parameters[name] = value
        layer.attrs[name] = value

    def _add_weight(self, interp, args, kwargs, node):
        layer, rest = args[0], list(args[1:])
        name = kwargs.get("name")
        if rest and isinstance(rest[0], str):  # tf.keras 2: add_weight(name, shape, ...)
            name = rest.pop(0)
        shape = kwargs.get("shape", rest[0] if rest else None)
        if isinstance(shape, Unknown):
            interp.unknown(f"shape of weight `{name}` is unknown ({shape.reason})", node)
            shape = None
        shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,) if isinstance(shape, int) else shape
        trainable = kwargs.get("trainable", True) is not False
        param = Parameter(shape, trainable=trainable, owner=layer)
        key = name if isinstance(name, str) else f"variable_{len(layer.module.parameters)}"
        layer.module.parameters[key] = param
        return param

    def _missing_call(self, interp, args, kwargs, node):
        return interp.unknown(f"{args[0].cls.name} defines no call()", node)

    def _identity_call(self, interp, args, kwargs, node):
        return args[1]

    def _unknown_method(self, interp, args, kwargs, node):
        return interp.unknown(f"`{args[0].cls.name}` method is not modelled", node)

    def _call(self, interp, args, kwargs, node):
        layer, inputs = args[0], list(args[1:])
        if not inputs and "inputs" in kwargs:
            inputs = [kwargs.pop("inputs")]
        unknown = next((v for v in inputs if isinstance(v, Unknown)), None)
        if unknown is not None:
            return unknown
        tracer = self.framework.tracer
        if any(value.shape is None for value in tensors_in(inputs)) and not self._runs_on_unknown_shapes(layer):
            result = self._unknown_input(layer, node)
        else:
            self._maybe_build(layer, inputs, node)
            tracer.stack.append(layer)
            try:
                call = interp.get_attribute(layer, "call", node)
                result = interp.call(call, inputs, self._call_kwargs(call, kwargs), node)
            finally:
                tracer.stack.pop()
        result = keep_in_graph(interp, result, inputs)
        tracer.module_outputs[id(layer)] = result
        tracer.module_calls[id(layer)] = tracer.module_calls.get(id(layer), 0) + 1
        return adopt(result, layer, inputs, kwargs, node)

    # ---- partial models: a layer or op we do not model, and what comes after it ----------------
    def unmodelled_layer(self, qualified: str) -> Class:
        """A stand-in for a Keras layer class we do not model (``keras.layers.RandomFlip``): it
        is built like any layer and, when called, reports itself at the call and outputs a
        tensor of unknown shape, so the rest of the model is still analysed (as in PyTorch)."""
        if qualified not in self._unmodelled:
            engine = self

            def init(interp, args, kwargs, node):
                engine._base_init(args[0], {k: v for k, v in kwargs.items() if k in _BASE_KWARGS})
                args[0].keras.extra["unmodelled"] = qualified

            def call(interp, args, kwargs, node):
                interp.unknown(f"`{qualified}` is not modelled: its output shape, parameters and cost are unknown", node)
                return Tensor(None)
            name = qualified.rsplit(".", 1)[-1]
            self._unmodelled[qualified] = Class(name, (self.layer_class,), {
                "__init__": Builtin(f"{name}.__init__", init), "call": Builtin(f"{name}.call", call)})
        return self._unmodelled[qualified]

    def _runs_on_unknown_shapes(self, layer: Instance) -> bool:
        """Layers that handle an input of unknown shape themselves: the unmodelled stand-ins
        (they report themselves) and models made of layers (each layer decides)."""
        state = keras_state(layer)
        return state is not None and ("unmodelled" in state.extra or state.graph is not None
                                      or layer.cls.is_subclass_of(self.sequential_class))

    def _unknown_input(self, layer: Instance, node):
        """A layer reached by a tensor of unknown shape (after an unmodelled layer or op): its
        output shape is unknown too.  That op is reported already and makes the totals lower
        bounds; this layer is reported as well when its weights depend on the input's size
        (Dense, Conv2D, norms ...), since its parameters are then unknown; a layer whose
        weights do not (pooling, activations, Embedding) adds nothing to say."""
        state = keras_state(layer)
        spec = state.spec
        if spec is not None and layer.module.kind is not None and ("built_from" in state.extra or spec.build is _NO_BUILD):
            return Tensor(None)
        what = "parameters and cost" if spec is not None else "output, parameters and cost"
        self.interp.unknown(f"{layer.cls.name}: its input shape is unknown (an unresolved layer or op before it), "
                            f"so its {what} are unknown", node)
        state.extra["input_unknown"] = True
        return Tensor(None)

    def _call_kwargs(self, call, kwargs: dict) -> dict:
        """Keras passes training=/mask= only to a call() that declares them."""
        function = getattr(call, "function", call)
        if not isinstance(function, Function):
            return kwargs
        params = function.node.params
        names = {p.name.value for p in [*params.params, *params.kwonly_params, *params.posonly_params]}
        if params.star_kwarg is not None:
            return kwargs
        return {k: v for k, v in kwargs.items() if k in names or k not in ("training", "mask")}

    def _maybe_build(self, layer: Instance, inputs: list, node) -> None:
        state = keras_state(layer)
        if state is None or state.built:
            return
        state.built = True
        if state.spec is not None or state.graph is not None:
            return
        try:
            build, owner = layer.cls.lookup_owner("build")
        except KeyError:
            return
        if isinstance(build, Function):
            first = inputs[0] if inputs else None
            shapes = [tuple(t.shape) for t in tensors_in(first)]
            shape = shapes[0] if isinstance(first, Tensor) else shapes
            self.interp.call(self.interp._bind(layer, build, owner, node), [shape], {}, node)

    # ---- Model ----------------------------------------------------------------------------
    def _model_init(self, interp, args, kwargs, node):
        model, rest = args[0], list(args[1:])
        inputs = kwargs.pop("inputs", rest[0] if rest else None)
        outputs = kwargs.pop("outputs", rest[1] if len(rest) > 1 else None)
        self._base_init(model, kwargs)
        if inputs is not None and outputs is not None:
            self.make_functional(model, inputs, outputs, node)

    def make_functional(self, model: Instance, inputs, outputs, node) -> None:
        if isinstance(inputs, Unknown) or isinstance(outputs, Unknown):
            raise AnalysisError("the model's inputs or outputs are unknown: "
                                + (inputs.reason if isinstance(inputs, Unknown) else outputs.reason),
                                self.interp.location(node), "SF120")
        flat_inputs = tensors_in(inputs)
        nodes = graph_nodes(flat_inputs, outputs)
        model.keras.graph = (flat_inputs, inputs, outputs, nodes)
        model.keras.declared_input = [t.shape for t in flat_inputs]
        model.keras.built = True
        for graph_node in nodes:
            layer = graph_node.fn
            if is_layer(layer) and layer is not model:
                name = layer.keras.name
                if model.module.children.get(name) not in (None, layer):
                    name = f"{name}#{graph_node.index}"
                model.module.children.setdefault(name, layer)

    def _model_call(self, interp, args, kwargs, node):
        model = args[0]
        graph = model.keras.graph
        if graph is None:
            return interp.unknown(f"{model.cls.name} defines no call() and was not built from inputs/outputs", node)
        flat_inputs, structure, outputs, nodes = graph
        values = tensors_in(args[1]) if len(args) > 1 else []
        if len(values) != len(flat_inputs):
            raise AnalysisError(f"{model.cls.name} expects {len(flat_inputs)} input tensor(s), got {len(values)}",
                                interp.location(node), "SF121")
        return replay(interp, nodes, flat_inputs, values, outputs)

    def _model_build(self, interp, args, kwargs, node):
        model = args[0]
        shape = args[1] if len(args) > 1 else kwargs.get("input_shape")
        if isinstance(shape, (tuple, list)) and shape and all(isinstance(s, (tuple, list)) for s in shape):
            model.keras.declared_input = [self.declared_shape(batch_shape=s) for s in shape]
        elif isinstance(shape, (tuple, list)):
            model.keras.declared_input = [self.declared_shape(batch_shape=shape)]
        return None

    def _get_layer(self, interp, args, kwargs, node):
        model = args[0]
        name = kwargs.get("name", args[1] if len(args) > 1 else None)
        for child in model.module.children.values():
            if keras_state(child) and child.keras.name == name:
                return child
        index = kwargs.get("index")
        if isinstance(index, int):
            return list(model.module.children.values())[index]
        return interp.unknown(f"layer {name!r} not found", node)

    # ---- Sequential ----------------------------------------------------------------------
    def _sequential_init(self, interp, args, kwargs, node):
        model = args[0]
        items = args[1] if len(args) > 1 else kwargs.pop("layers", None)
        self._base_init(model, {k: v for k, v in kwargs.items() if k in _BASE_KWARGS})
        for item in interp.iterate(items, node) if items is not None else ():
            self._sequential_add(interp, [model, item], {}, node)

    def _sequential_add(self, interp, args, kwargs, node):
        model, layer = args[0], args[1]
        state = model.keras
        if isinstance(layer, KerasTensor) and layer.input_name is not None:
            state.declared_input = [layer.shape]
            return None
        if not is_layer(layer):
            raise AnalysisError("Sequential.add() expects a layer", interp.location(node), "SF122")
        if layer.cls is self.input_layer_class or layer.cls.is_subclass_of(self.input_layer_class):
            state.declared_input = layer.keras.declared_input
            return None
        if not model.module.children and state.declared_input is None and layer.keras.declared_input:
            state.declared_input = layer.keras.declared_input
        name = layer.keras.name
        if name in model.module.children:
            name = f"{name}_{len(model.module.children)}"
        model.module.children[name] = layer
        return None

    def _sequential_pop(self, interp, args, kwargs, node):
        children = args[0].module.children
        if children:
            children.pop(list(children)[-1])

    def _sequential_call(self, interp, args, kwargs, node):
        """Each layer runs at its own place in the source (``layers.Conv2D(...)`` inside
        ``Sequential([...])``), so its ops and unknowns are located there, not at the model."""
        model, value = args[0], args[1]
        for layer in list(model.module.children.values()):
            site = layer.keras.site
            if site is None or site[0] is None or site[0].internal:
                value = interp.call(layer, [value], {}, node)
                continue
            previous, interp.source = interp.source, site[0]
            try:
                value = interp.call(layer, [value], {}, site[1])
            finally:
                interp.source = previous
        return value

    # ---- Input ---------------------------------------------------------------------------
    def make_input(self, interp, args, kwargs, node):
        """keras.Input(shape=None, batch_size=None, name=None, dtype=None, ..., batch_shape=None)."""
        shape = kwargs.get("shape", args[0] if args else None)
        batch_shape = kwargs.get("batch_shape", kwargs.get("batch_input_shape"))
        declared = self.declared_shape(shape, batch_shape, kwargs.get("batch_size"))
        if declared is None:
            return interp.unknown("keras.Input() without shape= or batch_shape=", node)
        if any(isinstance(d, Unknown) for d in declared):
            return interp.unknown("keras.Input() shape is unknown", node)
        dtype = kwargs.get("dtype")
        dtype = "int64" if isinstance(dtype, str) and "int" in dtype else "float32"
        name = kwargs.get("name") if isinstance(kwargs.get("name"), str) else self.unique_name("input_layer")
        return KerasTensor(declared, dtype, input_name=name)

    def _input_layer_init(self, interp, args, kwargs, node):
        layer = args[0]
        shape = kwargs.get("shape", kwargs.get("input_shape", args[1] if len(args) > 1 else None))
        self._base_init(layer, {"name": kwargs.get("name")})
        declared = self.declared_shape(shape, kwargs.get("batch_shape", kwargs.get("batch_input_shape")),
                                       kwargs.get("batch_size"))
        layer.keras.declared_input = [declared] if declared is not None else None

    # ---- Lambda and wrappers -----------------------------------------------------------------
    def _lambda_init(self, interp, args, kwargs, node):
        layer = args[0]
        self._base_init(layer, kwargs)
        layer.keras.extra["function"] = kwargs.get("function", args[1] if len(args) > 1 else None)
        layer.keras.extra["arguments"] = kwargs.get("arguments") or {}

    def _lambda_call(self, interp, args, kwargs, node):
        layer = args[0]
        return interp.call(layer.keras.extra["function"], [args[1]], dict(layer.keras.extra["arguments"]), node)

    def _wrapper_init(self, interp, args, kwargs, node):
        wrapper = args[0]
        inner = kwargs.pop("layer", args[1] if len(args) > 1 else None)
        self._base_init(wrapper, {k: v for k, v in kwargs.items() if k in _BASE_KWARGS})
        if not is_layer(inner):
            raise AnalysisError(f"{wrapper.cls.name} expects a layer", interp.location(node), "SF122")
        wrapper.module.children[inner.keras.name] = inner
        wrapper.keras.extra["layer"] = inner
        return inner

    def _time_distributed_call(self, interp, args, kwargs, node):
        wrapper, x = args[0], args[1]
        inner = wrapper.keras.extra["layer"]
        shape = x.shape
        # The inner layer sees batch x time as one batch: the same cost as T calls.
        merged = interp.call(inner, [Tensor((shape[0] * shape[1],) + tuple(shape[2:]), x.dtype)], {}, node)
        if not isinstance(merged, Tensor):
            return merged
        return Tensor((shape[0], shape[1]) + tuple(merged.shape[1:]), merged.dtype)

    def _spectral_init(self, interp, args, kwargs, node):
        return self._wrapper_init(interp, args[:2], {k: v for k, v in kwargs.items() if k != "power_iterations"}, node)

    def _spectral_call(self, interp, args, kwargs, node):
        """SpectralNormalization(layer): at inference the wrapped layer's own call (the power
        iteration that rescales the kernel runs only in training); it adds one non-trainable
        weight, vector_u of (1, the kernel's last size) (keras/src/layers/normalization/
        spectral_normalization.py, keras 3.15.1)."""
        wrapper, x = args[0], args[1]
        inner = wrapper.keras.extra["layer"]
        out = interp.call(inner, [x], {}, node)
        # the kernel's last size: Dense units, Conv filters (their output channels), Embedding's output_dim
        attrs = inner.module.attrs
        size = next((attrs[k] for k in ("out_features", "out_channels", "embedding_dim") if k in attrs), None)
        if isinstance(size, bool) or not isinstance(size, int):
            return interp.unknown(f"SpectralNormalization of a {inner.cls.name} is not modelled", node)
        wrapper.module.parameters.setdefault("vector_u", Parameter((1, size), trainable=False, owner=wrapper))
        return out

    def _bidirectional_init(self, interp, args, kwargs, node):
        wrapper = args[0]
        inner = self._wrapper_init(interp, [wrapper, kwargs.pop("layer", args[1] if len(args) > 1 else None)],
                                   {k: v for k, v in kwargs.items() if k in _BASE_KWARGS}, node)
        wrapper.module.children.clear()
        forward = inner
        backward = kwargs.get("backward_layer") or self.clone(inner, "backward_" + inner.keras.name)
        forward.keras.name = "forward_" + inner.keras.name
        wrapper.module.children[forward.keras.name] = forward
        wrapper.module.children[backward.keras.name] = backward
        wrapper.keras.extra.update(forward=forward, backward=backward,
                                   merge_mode=kwargs.get("merge_mode", args[2] if len(args) > 2 else "concat"))

    def clone(self, layer: Instance, name: str) -> Instance:
        copy = Instance(layer.cls, attrs=dict(layer.attrs), location=layer.location,
                        module=ModuleState(kind=layer.module.kind, attrs=dict(layer.module.attrs)))
        copy.keras = KerasState(name, spec=layer.keras.spec)
        copy.attrs["name"] = name
        return copy

    def _bidirectional_call(self, interp, args, kwargs, node):
        wrapper, x = args[0], args[1]
        extra = wrapper.keras.extra
        out_f = interp.call(extra["forward"], [x], {}, node)
        out_b = interp.call(extra["backward"], [x], {}, node)
        states = []
        if isinstance(out_f, list):  # return_state=True: [output, *states]
            states = out_f[1:] + out_b[1:]
            out_f, out_b = out_f[0], out_b[0]
        mode = extra["merge_mode"]
        if mode is None:
            return [out_f, out_b, *states]
        kind = {"concat": "concat", "sum": "add", "mul": "mul", "ave": "average"}.get(mode)
        if kind is None or not isinstance(out_f, Tensor) or not isinstance(out_b, Tensor):
            return interp.unknown(f"Bidirectional merge_mode={mode!r} is not modelled", node)
        merged = self.record(wrapper, kind, f"Bidirectional(merge_mode={mode!r})", {"axis": -1},
                             [out_f.shape, out_b.shape], node, is_layer_call=False, tensors=[out_f, out_b])[0]
        return [merged, *states] if states else merged

    # ---- RNN(cell) ------------------------------------------------------------------------
    def _recurrent_cells(self) -> dict:
        """``layers.RNN(SimpleRNNCell(u) | GRUCell(u) | LSTMCell(u), ...)`` is the SimpleRNN / GRU /
        LSTM layer of that cell (Keras builds those layers so): the cell keeps its arguments,
        RNN becomes the matching built-in layer with its own (return_sequences=, ...)."""
        engine = self
        cells = {"SimpleRNNCell": "SimpleRNN", "GRUCell": "GRU", "LSTMCell": "LSTM"}

        def cell_class(name, target):
            def init(interp, args, kwargs, node):
                cell = args[0]
                engine._base_init(cell, {k: v for k, v in kwargs.items() if k in _BASE_KWARGS})
                options = {k: v for k, v in kwargs.items() if k not in _BASE_KWARGS}
                if len(args) > 1:
                    options["units"] = args[1]
                cell.keras.extra["cell"] = (target, options)

            def call(interp, args, kwargs, node):
                return interp.unknown(f"a {name} called on its own (outside layers.RNN) is not modelled", node)
            return Class(name, (engine.layer_class,), self._methods(name, {"__init__": init, "call": call}))

        def rnn_init(interp, args, kwargs, node):
            layer, rest = args[0], list(args[1:])
            cell = kwargs.pop("cell", rest.pop(0) if rest else None)
            names = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")
            options = dict(zip(names, rest), **kwargs)
            target = keras_state(cell).extra.get("cell") if is_layer(cell) else None
            if target is None:
                engine._base_init(layer, {k: v for k, v in options.items() if k in _BASE_KWARGS})
                interp.unknown("layers.RNN of this cell is not modelled (SimpleRNNCell, GRUCell and LSTMCell are)", node)
                return None
            name, cell_options = target
            init = engine.layers[name].namespace["__init__"]
            return interp.call(init, [layer], {**cell_options, **options}, node)

        def rnn_call(interp, args, kwargs, node):
            return engine.run_builtin(args[0], list(args[1:]), kwargs, node)

        classes = {name: cell_class(name, target) for name, target in cells.items()}
        classes["RNN"] = Class("RNN", (self.layer_class,), self._methods("RNN", {"__init__": rnn_init, "call": rnn_call}))
        return classes

    # ---- built-in layers -----------------------------------------------------------------
    def _builtin_class(self, name: str, spec: KerasLayerSpec) -> Class:
        engine = self

        def init(interp, args, kwargs, node):
            layer = args[0]
            bound = interp.bind_signature(f"self, {spec.signature}", name, args, kwargs, node)
            del bound["self"]
            options = bound.get("kwargs", {})
            engine._base_init(layer, options)
            layer.keras.spec = spec
            layer.attrs.update({k: v for k, v in bound.items() if k != "kwargs"})
            unknown = [k for k, v in {**bound, **options}.items() if isinstance(v, Unknown) and k not in _BASE_KWARGS]
            if unknown:
                value = bound.get(unknown[0], options.get(unknown[0]))
                interp.unknown(f"{name} argument `{unknown[0]}` is unknown ({value.reason})", node)
                return None
            try:
                attrs = configure(name, spec, bound)
                if spec.kind == "activation":
                    attrs["kind"] = engine._activation(interp, name, bound["activation"], node) or "identity"
                    attrs.update(_activation_attrs(attrs["kind"]))
                elif "activation" in bound and spec.kind in _OUTPUT_ACTIVATION:
                    attrs["activation"] = engine._activation(interp, name, bound["activation"], node)
            except (TypeError, ValueError, KeyError, ShapeError) as error:
                interp.unknown(f"{name} arguments could not be interpreted ({reason(error)})", node)
                return None
            layer.module.kind = attrs["kind"]
            layer.module.attrs = attrs
            return None

        def call(interp, args, kwargs, node):
            return engine.run_builtin(args[0], list(args[1:]), kwargs, node)

        namespace = {"__init__": Builtin(f"{name}.__init__", init), "call": Builtin(f"{name}.call", call)}
        return Class(name, (self.layer_class,), namespace, module_kind=spec.kind)

    def _activation(self, interp, name: str, value, node):
        """The op kind of an activation= argument; an unmodelled one is reported (its cost is
        unknown) and the layer keeps its shape."""
        try:
            return activation_kind(value)
        except KeyError:
            interp.unknown(f"{name}: activation {value!r} is not modelled; its cost is unknown", node)
            return None

    def run_builtin(self, layer: Instance, inputs: list, kwargs: dict, node):
        interp = self.interp
        state = layer.module
        if state.kind is None:
            return interp.unknown(f"{layer.cls.name} could not be built, so its output is unknown", node)
        kind = state.kind
        if kind in _MERGE or kind == "lookup" and inputs and isinstance(inputs[0], (list, tuple)):
            # merges, and HashedCrossing on its (tuple of) crossed inputs
            tensors = list(inputs[0]) if isinstance(inputs[0], (list, tuple)) else inputs
        elif kind == "multi_head_attention":
            names = ("query", "value", "key")
            tensors = [inputs[i] if i < len(inputs) else kwargs.get(n) for i, n in enumerate(names)]
            tensors = [t for t in tensors if t is not None]
        else:
            tensors = inputs[:1]
        for value in tensors:
            if isinstance(value, Unknown):
                return value
            if not isinstance(value, Tensor) or value.shape is None:
                return interp.unknown(f"input of {layer.cls.name} is not a tensor of known shape", node)
        shapes = [t.shape for t in tensors]
        if not layer.keras.built or "built_from" not in layer.keras.extra:
            self._build_builtin(layer, shapes, node)
        outputs = self.record(layer, kind, layer.cls.name, state.attrs, shapes, node, is_layer_call=True,
                              tensors=tensors)
        activation = state.attrs.get("activation")
        if activation:
            outputs[0] = self.record(layer, activation, f"{layer.cls.name}(activation)", _activation_attrs(activation),
                                     [outputs[0].shape], node, is_layer_call=False, tensors=outputs[:1])[0]
        if kind in ("rnn", "gru", "lstm", "conv_lstm"):  # with return_state: (output, h[, c])
            return list(outputs) if len(outputs) > 1 else outputs[0]
        if kind == "multi_head_attention":
            return (outputs[0], outputs[1]) if kwargs.get("return_attention_scores") else outputs[0]
        return outputs[0]

    def _build_builtin(self, layer: Instance, shapes: list, node) -> None:
        spec = layer.keras.spec
        layer.keras.built = True
        layer.keras.extra["built_from"] = shapes
        try:
            layer.module.attrs.update(spec.build(layer.module.attrs, shapes))
            weights = spec.weights(layer.module.attrs)
        except ShapeError as error:
            raise AnalysisError(f"{layer.cls.name}: {error}", self.interp.location(node), "SF301") from None
        for name, shape, trainable in weights:
            layer.module.parameters[name] = Parameter(shape, trainable=trainable, owner=layer)

    def record(self, layer, kind: str, label: str, attrs: dict, shapes: list, node, is_layer_call: bool,
               tensors: list = ()) -> list:
        """Record one op of ``layer`` on inputs of ``shapes``; ``tensors`` (the input values, when
        known) say which inputs carry gradients, so the backward rules see what training computes."""
        attrs = dict(attrs, kind=kind)
        try:
            outputs, facts = infer(kind, attrs, shapes)
        except ShapeError as error:
            raise AnalysisError(f"{label}: {error}", self.interp.location(node), "SF301") from None
        except KeyError:
            raise AnalysisError(f"{label}: no shape function for `{kind}`", self.interp.location(node), "SF301") from None
        needs_grad = [isinstance(t, Tensor) and t.requires_grad for t in tensors]
        trainable = is_layer_call and self._has_trainable_weights(layer)
        self.framework.tracer.record(TracedOp(
            kind=kind, label=label, attrs=attrs, facts=facts, inputs=list(shapes), outputs=list(outputs),
            module=layer, is_layer_call=is_layer_call, location=self.interp.location(node),
            needs_grad=needs_grad, trainable_inputs=int(trainable)))
        grad = any(needs_grad) or trainable
        return [None if s is None else Tensor(s, requires_grad=grad) for s in outputs]

    def _has_trainable_weights(self, layer) -> bool:
        """Keras trains every weight of a layer unless the layer, or a model it runs inside, was
        set ``trainable=False`` (freezing a base model freezes every layer in it).  A built-in
        layer's weights are implicit (its rule counts them): the pricing stage drops the weight
        gradient of a layer whose rule counts no parameters."""
        owners = [*self.framework.tracer.stack, layer]
        if any(owner.module is not None and owner.module.frozen for owner in owners):
            return False
        declared = layer.module.parameters
        return any(p.trainable for p in declared.values()) if declared else True


_NO_BUILD = KerasLayerSpec.__dataclass_fields__["build"].default


def _activation_attrs(kind: str) -> dict:
    """Keras's activations.gelu is the exact (erf) form, approximate=False: the rules read it."""
    return {"approximate": "none"} if kind == "gelu" else {}


def _none(interp, args, kwargs, node):
    return None


def _empty_dict(interp, args, kwargs, node):
    return {}


def _empty_list(interp, args, kwargs, node):
    return []
