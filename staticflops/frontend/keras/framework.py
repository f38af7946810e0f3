"""The Keras framework model: what ``keras``, ``tf.keras``, ``keras.layers``, ``keras.ops`` and
KerasTensors mean to the interpreter.

Python-level behaviour (list/str methods, tensor indexing and arithmetic, stdlib) is the
PyTorch model's, which is framework-neutral there; everything Keras-specific is here and in
``engine.py``.
"""

from __future__ import annotations

from staticflops.frontend.einops import einops_namespaces
from staticflops.frontend.keras.engine import KerasEngine, is_layer, keras_state
from staticflops.frontend.keras.graph import KerasTensor, adopt, keep_in_graph, unknown_shape
from staticflops.frontend.keras.op_table import build_table_ops
from staticflops.frontend.keras.ops import activation_functions, build_ops, graph_op, identity_matrix, unmodelled_op
from staticflops.frontend.torch.framework import TorchFramework, _passive
from staticflops.frontend.values import Builtin, Instance, Namespace, NoOpMembers, Tensor, Unknown

_MERGE_FUNCTIONS = {"add": "Add", "subtract": "Subtract", "multiply": "Multiply", "average": "Average",
                    "maximum": "Maximum", "minimum": "Minimum", "concatenate": "Concatenate", "dot": "Dot"}
# Where a name we do not model is still a layer class or an op: it becomes a stand-in that
# reports itself where it is called and leaves the rest of the model analysable.
_LAYER_NAMESPACES = frozenset({"keras.layers"})
_OP_NAMESPACES = frozenset({"keras.ops", "keras.layers", "keras.activations", "tensorflow", "tensorflow.math",
                            "tensorflow.nn", "keras.src.ops"})
_NUMPY_ONLY = frozenset({"split", "cumsum", "cumprod", "one_hot", "arange", "dot", "full", "empty", "eye", "tril",
                         "triu", "zeros", "ones", "zeros_like", "ones_like", "full_like", "empty_like", "top_k",
                         "dot_product_attention", "layer_normalization", "conv"})
_ANYTHING = ("initializers", "regularizers", "constraints", "optimizers", "losses", "metrics", "callbacks",
             "mixed_precision", "saving")


class KerasFramework(TorchFramework):
    name = "keras"
    memoises_constructions = False  # Keras layers join a graph as they are built: no copies
    tensor_attribute_names = None  # torch's tensor attributes say nothing of a KerasTensor's

    def tensor_type(self, tensor):
        return None  # type() of a KerasTensor: not modelled

    def __init__(self, batch=None):
        super().__init__()
        self.batch = batch  # value of an undeclared batch dimension: None -> symbol B
        self.engine: KerasEngine | None = None

    def install(self, interp) -> None:
        super().install(interp)  # Python builtins, stdlib and the tensor-method table
        engine = self.engine = KerasEngine(self, interp)
        self.module_class = engine.layer_class
        functions = self.functions
        make_input = Builtin("keras.Input", engine.make_input, bind_self=False)
        layers = dict(engine.layers, Input=make_input)
        for function, class_name in _MERGE_FUNCTIONS.items():
            layers[function] = self._merge_function(engine.layers[class_name])
        ops = build_ops(functions, self)
        activations = activation_functions(functions)
        activations["get"] = Builtin("activations.get", lambda i, a, k, n: activations.get(a[0], a[0]) if a else None,
                                     bind_self=False)
        anything = {name: Namespace(f"keras.{name}", _passive()) for name in _ANYTHING}
        backend = Namespace("keras.backend", {
            "image_data_format": Builtin("image_data_format", lambda i, a, k, n: "channels_last", bind_self=False),
            "floatx": Builtin("floatx", lambda i, a, k, n: "float32", bind_self=False),
            "name_scope": Builtin("name_scope", lambda i, a, k, n: None, bind_self=False),
            "int_shape": ops["shape"], "shape": ops["shape"], "backend": Builtin("backend", lambda i, a, k, n: "tensorflow", bind_self=False),
            "is_keras_tensor": Builtin("is_keras_tensor", lambda i, a, k, n: isinstance(a[0], KerasTensor), bind_self=False),
            **{k: v for k, v in ops.items() if k in ("concatenate", "reshape", "mean", "sum", "expand_dims", "squeeze")},
        })
        models = Namespace("keras.models", {"Model": engine.model_class, "Sequential": engine.sequential_class,
                                            "Functional": engine.model_class})
        layers_ns = Namespace("keras.layers", layers)
        # TensorFlow 2.x spelled the preprocessing layers layers.experimental.preprocessing.*.
        experimental = Namespace("keras.layers.experimental", {"preprocessing": layers_ns})
        layers["experimental"] = experimental
        keras = Namespace("keras", {
            "layers": layers_ns, "models": models, "Model": engine.model_class, "Sequential": engine.sequential_class,
            "Input": make_input, "Layer": engine.layer_class, "ops": Namespace("keras.ops", {
                **ops, **{name: graph_op(name, fn) for name, fn in build_table_ops(self, functions).items()},
                "identity": graph_op("identity", identity_matrix)}),
            "activations": Namespace("keras.activations", activations), "backend": backend, **anything,
            "utils": Namespace("keras.utils", {"register_keras_serializable": _decorator_factory()}),
            "saving": Namespace("keras.saving", {"register_keras_serializable": _decorator_factory()}),
        })
        # keras.ops follows numpy; these TensorFlow namesakes do not (tf.split takes sizes, tf.cumsum
        # runs along axis 0, tf.one_hot's third argument is on_value), so under tf.* they are unmodelled.
        tf_ops = {k: v for k, v in ops.items() if k not in _NUMPY_ONLY}
        math = Namespace("tensorflow.math", dict(tf_ops))
        nn = Namespace("tensorflow.nn", {**activations, **{k: v for k, v in ops.items() if k in ("softmax",)}})
        tf = Namespace("tensorflow", {**tf_ops, "keras": keras, "math": math, "nn": nn, "float32": "float32",
                                      "int32": "int32", "int64": "int64", "float16": "float16",
                                      "TensorShape": interp.builtins["tuple"],
                                      "function": Builtin("tf.function", lambda i, a, k, n: a[0] if a else _decorator(),
                                                          bind_self=False)})
        self.namespaces.update(self._keras_src(keras, layers_ns, models, backend, interp))
        self.namespaces.pop("einops.layers.torch", None)  # the PyTorch model's; here einops' Keras layers
        self.namespaces.update(einops_namespaces(self, interp, {"Layer": engine.layer_class}, "keras_layers.pyi",
                                                 ("einops.layers.keras", "einops.layers.tensorflow"), wrap=graph_op))
        self.namespaces.update({
            "keras": keras, "keras.layers": layers_ns, "keras.models": models, "keras.ops": keras.members["ops"],
            "keras.activations": keras.members["activations"], "keras.backend": backend,
            "tensorflow": tf, "tensorflow.keras": keras, "tensorflow.keras.layers": layers_ns,
            **{f"{top}.layers.experimental": experimental for top in ("keras", "tensorflow.keras")},
            **{f"{top}.layers.experimental.preprocessing": layers_ns for top in ("keras", "tensorflow.keras")},
            "tensorflow.keras.models": models, "tensorflow.keras.activations": keras.members["activations"],
            "tensorflow.keras.backend": backend, "tensorflow.nn": nn, "tensorflow.math": math,
            "tf_keras": keras, "tf_keras.layers": layers_ns, "tf_keras.models": models,
            **{f"keras.{name}": ns for name, ns in anything.items()},
            **{f"tensorflow.keras.{name}": ns for name, ns in anything.items()},
        })

    def _keras_src(self, keras: Namespace, layers: Namespace, models: Namespace, backend: Namespace, interp) -> dict:
        """``keras.src.*``: the internal spellings Keras's own files (keras.applications) import,
        with the few helpers they call modelled by what they return."""
        def fixed(name, value):
            return Builtin(name, lambda i, a, k, n: value, bind_self=False)

        def first_argument(name):
            return Builtin(name, lambda i, a, k, n: a[0] if a else None, bind_self=False)

        def obtain_input_shape(interp, args, kwargs, node):
            names = ("input_shape", "default_size", "min_size", "data_format", "require_flatten", "weights")
            bound = dict(zip(names, args), **kwargs)
            shape, size = bound.get("input_shape"), bound.get("default_size")
            if shape is not None:
                return tuple(shape)
            if bound.get("data_format") == "channels_first":
                return (3, size, size)
            return (size, size, 3)

        def correct_pad(interp, args, kwargs, node):
            """Zero padding that makes a stride-2 'valid' conv behave like TF's 'same'."""
            inputs, kernel = args[0], kwargs.get("kernel_size", args[1] if len(args) > 1 else None)
            kernel = (kernel, kernel) if isinstance(kernel, int) else tuple(kernel)
            size = inputs.shape[1:3]  # channels_last
            adjust = tuple(1 - s % 2 if isinstance(s, int) else 1 for s in size)
            return tuple((k // 2 - a, k // 2) for k, a in zip(kernel, adjust))

        imagenet_utils = Namespace("keras.src.applications.imagenet_utils", {
            "correct_pad": Builtin("correct_pad", correct_pad, bind_self=False),
            "obtain_input_shape": Builtin("obtain_input_shape", obtain_input_shape, bind_self=False),
            "validate_activation": fixed("validate_activation", None),
            "preprocess_input": first_argument("preprocess_input"),
            "decode_predictions": fixed("decode_predictions", None),
            **{name: "" for name in ("PREPROCESS_INPUT_DOC", "PREPROCESS_INPUT_RET_DOC_CAFFE",
                                     "PREPROCESS_INPUT_RET_DOC_TF", "PREPROCESS_INPUT_RET_DOC_TORCH",
                                     "PREPROCESS_INPUT_ERROR_DOC", "PREPROCESS_INPUT_DEFAULT_ERROR_DOC")},
        })
        utils = Namespace("keras.src.utils", {"file_utils": Namespace("keras.src.utils.file_utils", {
            "exists": fixed("exists", False), "get_file": fixed("get_file", None)})})
        ops = Namespace("keras.src.ops", dict(keras.members["ops"].members, operation_utils=Namespace(
            "keras.src.ops.operation_utils", {"get_source_inputs": first_argument("get_source_inputs")})))
        uids: dict = {}

        def get_uid(interp, args, kwargs, node):
            prefix = args[0] if args else ""
            uids[prefix] = uids.get(prefix, 0) + 1
            return uids[prefix]
        backend.members["get_uid"] = Builtin("get_uid", get_uid, bind_self=False)
        layer_module = Namespace("keras.src.layers.layer", {"Layer": self.engine.layer_class})
        src = Namespace("keras.src", {
            "random": Namespace("keras.src.random", {}),
            "backend": backend, "layers": layers, "models": models, "ops": ops, "utils": utils,
            "activations": keras.members["activations"], "initializers": keras.members["initializers"],
            "applications": Namespace("keras.src.applications", {"imagenet_utils": imagenet_utils}),
            "api_export": Namespace("keras.src.api_export", {"keras_export": _decorator_factory()}),
        })
        return {"keras.src": src, "keras.src.backend": backend, "keras.src.layers": layers,
                "keras.src.models": models, "keras.src.ops": ops, "keras.src.utils": utils,
                "keras.src.applications": src.members["applications"],
                "keras.src.api_export": src.members["api_export"], "keras.src.layers.layer": layer_module,
                "keras.src.random": src.members["random"], "keras.src.initializers": keras.members["initializers"],
                "numpy": Namespace("numpy", {"linspace": Builtin("numpy.linspace", _linspace, bind_self=False)})}

    def _merge_function(self, cls):
        """``layers.add([a, b])`` == ``layers.Add()([a, b])``."""
        def call(interp, args, kwargs, node):
            inputs = kwargs.pop("inputs", args[0] if args else None)
            layer = interp.call(cls, [], kwargs, node)
            return interp.call(layer, [inputs], {}, node)
        return Builtin(f"layers.{cls.name.lower()}", call, bind_self=False)

    # ---- imports --------------------------------------------------------------------------
    modelled_packages = frozenset({"torch", "keras", "tensorflow", "tf_keras"})

    def import_module(self, interp, dotted: str, node):
        if dotted in self.namespaces:
            return self.namespaces[dotted]
        top = dotted.split(".")[0]
        if top in ("keras", "tensorflow", "tf_keras"):
            return interp.unknown(f"`{dotted}` is not modelled", node)
        return super().import_module(interp, dotted, node)

    def namespace_missing(self, interp, namespace: Namespace, name: str, node):
        if isinstance(namespace.members, NoOpMembers):
            return namespace.members.anything
        if namespace.name in _LAYER_NAMESPACES and name[:1].isupper():
            return self.engine.unmodelled_layer(f"keras.layers.{name}")
        if namespace.name in _OP_NAMESPACES and name[:1].islower() and not name.startswith("_"):
            return unmodelled_op(f"{namespace.name}.{name}")
        # A package we model may hold files of the analysed project too (keras.applications'
        # resnet_v2.py imports its sibling resnet.py as `from keras.src.applications import resnet`).
        if interp.project is not None:
            found = interp.project.find(f"{namespace.name}.{name}", interp.source.origin if interp.source else None)
            if found is not None:
                return found
        return interp.unknown(f"`{namespace.name}.{name}` is not modelled", node)

    # ---- objects ------------------------------------------------------------------------------
    def instantiate(self, interp, cls, args, kwargs, node):
        instance = super().instantiate(interp, cls, args, kwargs, node)
        state = keras_state(instance)
        if state is not None and state.site is None:
            state.site = (interp.source, node)  # where Sequential's forward pass locates the layer
        return instance

    def is_module_class(self, cls) -> bool:
        return cls.is_subclass_of(self.engine.layer_class)

    def after_init(self, instance) -> None:
        if instance.module is not None and keras_state(instance) is None:
            self.engine._base_init(instance, {})  # a subclass that never called super().__init__()

    def instance_missing_attribute(self, interp, instance: Instance, name: str, node):
        state = keras_state(instance)
        if state is not None:
            if name in instance.module.children:
                return instance.module.children[name]
            if name == "name":
                return state.name
            if name in ("layers", "submodules"):
                return [c for c in instance.module.children.values() if is_layer(c)]
            if name == "trainable":
                return not instance.module.frozen
            if name == "built":
                return state.built
            if name in ("weights", "trainable_weights", "variables", "trainable_variables"):
                return list(instance.module.parameters.values())
            if name in ("inputs", "input") and state.graph is not None:
                return state.graph[1]
            if name in ("outputs", "output") and state.graph is not None:
                return state.graph[2]
        return interp.unknown(f"{instance.cls.name} has no attribute `{name}`", node)

    def instance_iter(self, interp, instance: Instance, node):
        return super().instance_iter(interp, instance, node)

    def instance_truth(self, interp, instance: Instance, node):
        return True

    def python_attribute(self, interp, value, name: str, node):
        if name == "__doc__":  # docstrings are copied around at module level; never cost
            return ""
        return super().python_attribute(interp, value, name, node)

    # ---- tensors: results on KerasTensors are graph nodes -----------------------------------------
    def tensor_binary(self, interp, op_name: str, left, right, node):
        if unknown_shape(left) or unknown_shape(right):
            return adopt(Tensor(None), Builtin(f"operator {op_name}", lambda i, a, k, n: self.tensor_binary(
                i, op_name, a[0], a[1], n), bind_self=False), [left, right], {}, node)
        result = super().tensor_binary(interp, op_name, left, right, node)
        return self._adopt(f"operator {op_name}", lambda i, a, k, n: self.tensor_binary(i, op_name, a[0], a[1], n),
                           result, [left, right], node)

    def binary_with_unknown(self, interp, op_name: str, left, right, node):
        """`x + <unmodelled op>` on a KerasTensor: the unknown is reported where it arose and the
        result stays in the model's graph with an unknown shape (a partial report, not a lost model)."""
        if not any(isinstance(v, KerasTensor) for v in (left, right)):
            return None
        unknown = left if isinstance(left, Unknown) else right
        interp.unknown(unknown.reason, location=unknown.location)  # once per place and reason
        return adopt(Tensor(None), Builtin(f"operator {op_name}", lambda i, a, k, n: Tensor(None), bind_self=False),
                     [v for v in (left, right) if isinstance(v, Tensor)], {}, node)

    def tensor_unary(self, interp, op: str, tensor, node):
        if unknown_shape(tensor):
            return adopt(Tensor(None), Builtin(f"unary {op}", lambda i, a, k, n: self.tensor_unary(i, op, a[0], n),
                                               bind_self=False), [tensor], {}, node)
        result = super().tensor_unary(interp, op, tensor, node)
        return self._adopt(f"unary {op}", lambda i, a, k, n: self.tensor_unary(i, op, a[0], n), result, [tensor], node)

    def tensor_getitem(self, interp, tensor, key, node):
        if unknown_shape(tensor):
            return adopt(Tensor(None), Builtin("getitem", lambda i, a, k, n: self.tensor_getitem(i, a[0], key, n),
                                               bind_self=False), [tensor], {}, node)
        result = super().tensor_getitem(interp, tensor, key, node)
        return self._adopt("getitem", lambda i, a, k, n: self.tensor_getitem(i, a[0], key, n), result, [tensor], node)

    def _adopt(self, label, fn, result, args, node):
        result = keep_in_graph(self.engine.interp, result, args)
        if isinstance(result, Unknown) or not any(isinstance(a, KerasTensor) for a in args):
            return result
        return adopt(result, Builtin(label, fn, bind_self=False), args, {}, node)


def _decorator():
    return Builtin("decorator", lambda i, a, k, n: a[0] if a else None, bind_self=False)


def _decorator_factory():
    return Builtin("decorator_factory", lambda i, a, k, n: a[0] if a and not isinstance(a[0], str) and not k else _decorator(),
                   bind_self=False)


__all__ = ["KerasFramework", "graph_op"]


def _linspace(interp, args, kwargs, node):
    """numpy.linspace(start, stop, num): models use it for per-block rates (drop-path)."""
    names = ("start", "stop", "num")
    bound = dict(zip(names, args), **kwargs)
    start, stop, num = bound["start"], bound["stop"], bound.get("num", 50)
    if not all(isinstance(v, (int, float)) for v in (start, stop, num)):
        return interp.unknown("numpy.linspace of unknown bounds", node)
    if num == 1:
        return [float(start)]
    return [start + (stop - start) * i / (num - 1) for i in range(int(num))]
