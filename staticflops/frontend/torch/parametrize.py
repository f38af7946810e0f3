"""``nn.utils.parametrizations.weight_norm`` and the older ``nn.utils.weight_norm``.

Weight normalisation splits a layer's weight W into a direction v (W's shape) and a magnitude g
(W's size along ``dim``, 1 elsewhere; one number when ``dim`` is None or -1, as
``torch.norm_except_dim`` treats -1).  The layer computes as before with W = g * v / |v|, so its
FLOPs are unchanged (the recomputation of W is a per-call parameter transform FlopCounterMode
sees as elementwise, counted 0), but it now holds v and g: g's elements are the extra
parameters (wav2vec2-style convolutional position embeddings).
"""

from __future__ import annotations

from staticflops.frontend.values import Builtin, Instance, Namespace, Parameter, Tensor


def _magnitude_shape(shape: tuple, dim) -> tuple:
    if dim is None or dim == -1:
        return ()
    axis = dim % len(shape)
    return tuple(size if i == axis else 1 for i, size in enumerate(shape))


def _weight_norm(style: str):
    def apply(interp, args, kwargs, node):
        module = args[0] if args else kwargs.get("module")
        name = args[1] if len(args) > 1 else kwargs.get("name", "weight")
        dim = args[2] if len(args) > 2 else kwargs.get("dim", 0)
        if not (isinstance(module, Instance) and module.module is not None):
            return interp.unknown("weight_norm of a value that is not a module", node)
        weight = module.attrs.get(name)
        if not isinstance(weight, Tensor) or weight.shape is None or not isinstance(name, str) or (
                dim is not None and not isinstance(dim, int)):
            return interp.unknown(f"weight_norm of `{name}`, whose shape is not known", node)
        magnitude = Parameter(_magnitude_shape(weight.shape, dim), weight.dtype, True)
        if style == "parametrizations":
            key = f"parametrizations.{name}.original0"
            module.attrs["parametrizations"] = Namespace("parametrizations", {
                name: Namespace(f"parametrizations.{name}", {"original0": magnitude, "original1": weight})})
        else:  # nn.utils.weight_norm: weight_g and weight_v
            key = f"{name}_g"
            module.attrs[key], module.attrs[f"{name}_v"] = magnitude, weight
        module.module.parameters[key] = magnitude
        return module
    return apply


def utils_members() -> dict:
    """Members of ``torch.nn.utils`` for weight normalisation."""
    parametrizations = Namespace("torch.nn.utils.parametrizations", {
        "weight_norm": Builtin("weight_norm", _weight_norm("parametrizations"), bind_self=False)})
    return {"parametrizations": parametrizations,
            "weight_norm": Builtin("weight_norm", _weight_norm("legacy"), bind_self=False)}
