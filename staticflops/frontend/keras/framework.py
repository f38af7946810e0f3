"""The Keras framework model: what ``keras``, ``tf.keras``, ``keras.layers``, ``keras.ops`` and
KerasTensors mean to the interpreter.

Python-level behaviour (list/str methods, tensor indexing and arithmetic, stdlib) is the
PyTorch model's, which is framework-neutral there; everything Keras-specific is here and in
``engine.py``.
"""

from __future__ import annotations

from staticflops.frontend import pybuiltins
from staticflops.frontend.keras.engine import KerasEngine, is_layer, keras_state
from staticflops.frontend.keras.graph import KerasTensor, adopt
from staticflops.frontend.keras.ops import activation_functions, build_ops, graph_op
from staticflops.frontend.torch.framework import TorchFramework, _InitNamespace
from staticflops.frontend.values import Builtin, Instance, ModuleState, Namespace, Unknown

_MERGE_FUNCTIONS = {"add": "Add", "subtract": "Subtract", "multiply": "Multiply", "average": "Average",
                    "maximum": "Maximum", "minimum": "Minimum", "concatenate": "Concatenate", "dot": "Dot"}
_ANYTHING = ("initializers", "regularizers", "constraints", "optimizers", "losses", "metrics", "callbacks",
             "mixed_precision", "saving")


class KerasFramework(TorchFramework):
    name = "keras"

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
        anything = {name: Namespace(f"keras.{name}", _InitNamespace()) for name in _ANYTHING}
        backend = Namespace("keras.backend", {
            "image_data_format": Builtin("image_data_format", lambda i, a, k, n: "channels_last", bind_self=False),
            "floatx": Builtin("floatx", lambda i, a, k, n: "float32", bind_self=False),
            "int_shape": ops["shape"], "shape": ops["shape"], "backend": Builtin("backend", lambda i, a, k, n: "tensorflow", bind_self=False),
            "is_keras_tensor": Builtin("is_keras_tensor", lambda i, a, k, n: isinstance(a[0], KerasTensor), bind_self=False),
            **{k: v for k, v in ops.items() if k in ("concatenate", "reshape", "mean", "sum", "expand_dims", "squeeze")},
        })
        models = Namespace("keras.models", {"Model": engine.model_class, "Sequential": engine.sequential_class,
                                            "Functional": engine.functional_class})
        layers_ns = Namespace("keras.layers", layers)
        keras = Namespace("keras", {
            "layers": layers_ns, "models": models, "Model": engine.model_class, "Sequential": engine.sequential_class,
            "Input": make_input, "Layer": engine.layer_class, "ops": Namespace("keras.ops", ops),
            "activations": Namespace("keras.activations", activations), "backend": backend, **anything,
            "utils": Namespace("keras.utils", {"register_keras_serializable": _decorator_factory()}),
            "saving": Namespace("keras.saving", {"register_keras_serializable": _decorator_factory()}),
        })
        math = Namespace("tensorflow.math", {k: v for k, v in ops.items()})
        nn = Namespace("tensorflow.nn", {**activations, **{k: v for k, v in ops.items() if k in ("softmax",)}})
        tf = Namespace("tensorflow", {**ops, "keras": keras, "math": math, "nn": nn, "float32": "float32",
                                      "int32": "int32", "int64": "int64", "float16": "float16",
                                      "TensorShape": interp.builtins["tuple"],
                                      "function": Builtin("tf.function", lambda i, a, k, n: a[0] if a else _decorator(),
                                                          bind_self=False)})
        self.namespaces.update({
            "keras": keras, "keras.layers": layers_ns, "keras.models": models, "keras.ops": keras.members["ops"],
            "keras.activations": keras.members["activations"], "keras.backend": backend,
            "tensorflow": tf, "tensorflow.keras": keras, "tensorflow.keras.layers": layers_ns,
            "tensorflow.keras.models": models, "tensorflow.keras.activations": keras.members["activations"],
            "tensorflow.keras.backend": backend, "tensorflow.nn": nn, "tensorflow.math": math,
            "tf_keras": keras, "tf_keras.layers": layers_ns, "tf_keras.models": models,
            **{f"keras.{name}": ns for name, ns in anything.items()},
            **{f"tensorflow.keras.{name}": ns for name, ns in anything.items()},
        })

    def _merge_function(self, cls):
        """``layers.add([a, b])`` == ``layers.Add()([a, b])``."""
        def call(interp, args, kwargs, node):
            inputs = kwargs.pop("inputs", args[0] if args else None)
            layer = interp.call(cls, [], kwargs, node)
            return interp.call(layer, [inputs], {}, node)
        return Builtin(f"layers.{cls.name.lower()}", call, bind_self=False)

    # ---- imports --------------------------------------------------------------------------
    def import_module(self, interp, dotted: str, node):
        if dotted in self.namespaces:
            return self.namespaces[dotted]
        top = dotted.split(".")[0]
        if top in ("keras", "tensorflow", "tf_keras"):
            return interp.unknown(f"`{dotted}` is not modelled", node)
        return super().import_module(interp, dotted, node)

    def namespace_missing(self, interp, namespace: Namespace, name: str, node):
        if isinstance(namespace.members, _InitNamespace):
            return namespace.members.anything
        return interp.unknown(f"`{namespace.name}.{name}` is not modelled", node)

    # ---- objects ------------------------------------------------------------------------------
    def instantiate(self, interp, cls, args, kwargs, node):
        instance = Instance(cls, location=interp.location(node))
        if cls.is_subclass_of(self.engine.layer_class):
            instance.module = ModuleState()
        try:
            init, owner = cls.lookup_owner("__init__")
        except KeyError:
            return instance
        from staticflops.frontend.values import BoundMethod
        interp.call(BoundMethod(instance, init, owner), list(args), dict(kwargs), node)
        if instance.module is not None and keras_state(instance) is None:
            self.engine._base_init(instance, {})  # a subclass that never called super().__init__()
        return instance

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

    # ---- tensors: results on KerasTensors are graph nodes -----------------------------------------
    def tensor_binary(self, interp, op_name: str, left, right, node):
        result = super().tensor_binary(interp, op_name, left, right, node)
        return self._adopt(f"operator {op_name}", lambda i, a, k, n: self.tensor_binary(i, op_name, a[0], a[1], n),
                           result, [left, right], node)

    def tensor_unary(self, interp, op: str, tensor, node):
        result = super().tensor_unary(interp, op, tensor, node)
        return self._adopt(f"unary {op}", lambda i, a, k, n: self.tensor_unary(i, op, a[0], n), result, [tensor], node)

    def tensor_getitem(self, interp, tensor, key, node):
        result = super().tensor_getitem(interp, tensor, key, node)
        return self._adopt("getitem", lambda i, a, k, n: self.tensor_getitem(i, a[0], key, n), result, [tensor], node)

    def _adopt(self, label, fn, result, args, node):
        if isinstance(result, Unknown) or not any(isinstance(a, KerasTensor) for a in args):
            return result
        return adopt(result, Builtin(label, fn, bind_self=False), args, {}, node)


def _decorator():
    return Builtin("decorator", lambda i, a, k, n: a[0] if a else None, bind_self=False)


def _decorator_factory():
    return Builtin("decorator_factory", lambda i, a, k, n: a[0] if a and not isinstance(a[0], str) and not k else _decorator(),
                   bind_self=False)


__all__ = ["KerasFramework", "graph_op"]
