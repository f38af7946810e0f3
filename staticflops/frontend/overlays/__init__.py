"""Library methods the analysis models itself, written as Python source run by our interpreter:
only where what the method does cannot change a cost and cannot be done here.

``from_pretrained`` builds a model from its config, then fills its parameters with the
checkpoint's weights, downloaded or read from disk.  The weights are data: they change no shape,
parameter count or FLOP, and are never read.  So a model's ``from_pretrained`` is modelled as
what it does before loading them: the config read as the library reads it (from a folder of the
project, by the library's own code), the model built from it, then put in eval mode as
``from_pretrained`` returns it.  And the analysed process has no network: a hub id that is not a
folder of the project is an OSError at once (hub_guard.pyi), in the model's and the config
loaders' ``from_pretrained`` alike, instead of an unknown deep in the download code.  Everything
else of the libraries runs as written.

timm's ``load_pretrained`` likewise only fills a built model's parameters: it does nothing here.
transformers' ``auto_docstring`` only writes docstrings, which no cost depends on: it returns the
class or method it decorates (transformers_auto_docstring.pyi).

Each overlay is applied when its module has run (imports.py): the class the module defined gets
the method (a classmethod, as the original), or the module the function.
"""

from __future__ import annotations

from pathlib import Path

from staticflops.frontend.values import Class, Function, MethodWrapper, Namespace

_HERE = Path(__file__).parent
_GUARD = "hub_guard.pyi"

# module -> [(class, method, the stub that replaces it, or None: the original after the hub check)]
OVERLAYS = {
    "transformers.modeling_utils": [("PreTrainedModel", "from_pretrained", "transformers_from_pretrained.pyi")],
    "transformers.configuration_utils": [("PreTrainedConfig", "from_pretrained", None)],
    "transformers.models.auto.configuration_auto": [("AutoConfig", "from_pretrained", None)],
    "transformers.models.auto.auto_factory": [("_BaseAutoModelClass", "from_pretrained", None)],
    "diffusers.models.modeling_utils": [("ModelMixin", "from_pretrained", "diffusers_from_pretrained.pyi")],
    "diffusers.configuration_utils": [("ConfigMixin", "load_config", None)],
    # a module's function (no class): timm's weight loading after create_model built the model
    "timm.models._builder": [(None, "load_pretrained", "timm_load_pretrained.pyi")],
    "transformers.utils.auto_docstring": [(None, "auto_docstring", "transformers_auto_docstring.pyi")],
}


def apply(interp, namespace: Namespace) -> None:
    """Model the overlaid methods of the classes ``namespace`` (a library module that just ran)
    defines; nothing for any other module, or a class shaped otherwise (another release)."""
    for class_name, method, stub in OVERLAYS.get(namespace.name, ()):
        if class_name is None:  # a function of the module
            if isinstance(namespace.members.get(method), Function):
                function = _run(interp, stub, {})[method]
                function.qualname = method
                namespace.members[method] = function
            continue
        cls = namespace.members.get(class_name)
        original = cls.namespace.get(method) if isinstance(cls, Class) else None
        if not (isinstance(original, MethodWrapper) and original.kind == "classmethod"):
            continue
        guard = _run(interp, _GUARD, {})
        if stub is None:
            function = interp.call(guard["guarded"], [original.function], {}, None)
        else:  # the stub reads the module's config class (transformers') and the hub lookup
            bindings = {"local_path": guard["local_path"], "PreTrainedConfig": namespace.members.get("PreTrainedConfig")}
            function = _run(interp, stub, bindings)[method]
        if isinstance(function, Function):
            function.qualname = f"{class_name}.{method}"
            cls.namespace[method] = MethodWrapper("classmethod", function)


def _run(interp, stub: str, bindings: dict) -> dict:
    from staticflops.frontend.stub_source import run_stub

    return run_stub(interp, _HERE / stub, f"<staticflops: {stub}>", bindings)
