"""What torch's device probes answer in the process the analysis models: torch 2.13.0's CPU
build on a machine without accelerators (each answer below was read from that build:
``torch.cuda.is_available()`` is False, ``torch.backends.mkldnn.is_available()`` True, ...).

Library code asks these at import time and in ``forward`` (transformers: which attention
kernel, whether a CUDA graph is being captured, the default device to initialise weights on).
Answered, they decide the ``if`` instead of leaving an assumption; the tensors of the analysis
are CPU tensors already (``tensor.is_cuda`` is False, ``tensor.device`` is ``cpu``).

The classes of torch's tracing and masking machinery (``torch.fx.Proxy``, ``FakeTensor``,
flex attention's ``BlockMask``) are here so that ``isinstance(x, torch.fx.Proxy)`` is decided:
no value of the analysis is one of them.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace

from staticflops.frontend.pyclasses import make_record_class
from staticflops.frontend.values import Builtin, Class, Function, Instance, Namespace


def _answer(name: str, value) -> Builtin:
    return Builtin(name, lambda interp, args, kwargs, node: value, bind_self=False)


def _raises(name: str, message: str) -> Builtin:
    """A probe the CPU build answers with RuntimeError (code catches it: ``try: ... except``)."""
    def call(interp, args, kwargs, node):
        raise interp.fail(f"{name}: {message}", node, python="RuntimeError")
    return Builtin(name, call, bind_self=False)


def _no_process_group(name: str) -> Builtin:
    """A query of the default process group, which a process that never called
    ``init_process_group`` does not have: ValueError in torch 2.13.0 (code catches it)."""
    def call(interp, args, kwargs, node):
        raise interp.fail(f"{name}: Default process group has not been initialized, please make sure to call "
                          "init_process_group.", node, python="ValueError")
    return Builtin(name, call, bind_self=False)


def _absent_device(name: str) -> Namespace:
    """``torch.cuda``/``torch.xpu``/``torch.mps`` with no such device."""
    return Namespace(f"torch.{name}", {
        "is_available": _answer(f"torch.{name}.is_available", False),
        "device_count": _answer(f"torch.{name}.device_count", 0),
        "is_initialized": _answer(f"torch.{name}.is_initialized", False),
        "is_bf16_supported": _answer(f"torch.{name}.is_bf16_supported", False),
        "is_current_stream_capturing": _raises(f"torch.{name}.is_current_stream_capturing",
                                               f"no {name} device in torch's CPU build"),
    })


def checks() -> dict:
    """``torch._check(cond, message)`` and its family: a condition that is a known False raises
    (RuntimeError); anything else (a tensor, an unknown, True) passes, as ``torch._assert``
    does here."""
    def check(position, python="RuntimeError"):
        def call(interp, args, kwargs, node):
            condition = args[position] if len(args) > position else kwargs.get("cond")
            if condition is False:
                raise interp.fail("a torch._check failed", node, python=python)
            return None
        return call
    found = {name: Builtin(f"torch.{name}", check(0), bind_self=False)
             for name in ("_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented",
                          "_check_tensor_all", "_check_is_size")}
    for name in ("_check_with", "_check_tensor_all_with"):
        found[name] = Builtin(f"torch.{name}", check(1), bind_self=False)
    return found


def _kernel_choice(backend: str) -> Builtin:
    """``backend.flags(...)``: a context manager that chooses kernels, nothing the cost sees."""
    return Builtin(f"{backend}.flags", lambda i, a, k, n: None, bind_self=False)


def namespaces(object_class: Class, unknown_call) -> dict:
    """Dotted name -> namespace, for ``torch``'s members and for imports.  ``unknown_call(name)``:
    a builtin whose call is an unknown."""
    def never_instantiated(qualified: str) -> Class:
        return Class(qualified.rsplit(".", 1)[1], (object_class,), {})

    backends = Namespace("torch.backends", {
        "mps": Namespace("torch.backends.mps", {"is_available": _answer("torch.backends.mps.is_available", False),
                                                "is_built": _answer("torch.backends.mps.is_built", False)}),
        "cuda": Namespace("torch.backends.cuda", {"is_built": _answer("torch.backends.cuda.is_built", False)}),
        # `with cudnn.flags(enabled=False):` picks kernels, as sdpa_kernel does: the same maths
        "cudnn": Namespace("torch.backends.cudnn", {"is_available": _answer("torch.backends.cudnn.is_available", False),
                                                    "enabled": True, "flags": _kernel_choice("torch.backends.cudnn")}),
        "mkldnn": Namespace("torch.backends.mkldnn", {"is_available": _answer("torch.backends.mkldnn.is_available",
                                                                              True),
                                                      "flags": _kernel_choice("torch.backends.mkldnn")}),
    })
    flex = Namespace("torch.nn.attention.flex_attention", {
        "BlockMask": never_instantiated("torch.nn.attention.flex_attention.BlockMask"),
        "create_block_mask": unknown_call("torch.nn.attention.flex_attention.create_block_mask"),
        "flex_attention": unknown_call("torch.nn.attention.flex_attention.flex_attention"),
    })
    subclasses = Namespace("torch._subclasses", {"FakeTensor": never_instantiated("torch._subclasses.FakeTensor")})
    identity = Builtin("identity", lambda i, a, k, n: a[0] if a else None, bind_self=False)
    nothing = Builtin("no-op", lambda i, a, k, n: None, bind_self=False)

    def disable(interp, args, kwargs, node):  # @disable, disable(fn), disable(recursive=False)(fn)
        return args[0] if args else identity
    dynamo = Namespace("torch._dynamo", {
        **{name: nothing for name in ("mark_static_address", "mark_dynamic", "mark_static", "maybe_mark_dynamic",
                                      "reset")},
        "allow_in_graph": identity, "disable": Builtin("torch._dynamo.disable", disable, bind_self=False),
        "is_compiling": _answer("torch._dynamo.is_compiling", False)})
    # torch.distributed: built in (is_available() True on Linux), never initialised in the
    # analysed process (one process, no init_process_group): no tensor is a DTensor, no module
    # is wrapped by FSDP
    fsdp = Namespace("torch.distributed.fsdp", {
        "FullyShardedDataParallel": never_instantiated("torch.distributed.fsdp.FullyShardedDataParallel")})
    dtensor = Namespace("torch.distributed.tensor", {"DTensor": never_instantiated("torch.distributed.tensor.DTensor")})
    mesh = Namespace("torch.distributed.device_mesh", {
        "DeviceMesh": never_instantiated("torch.distributed.device_mesh.DeviceMesh")})
    distributed = Namespace("torch.distributed", {
        "is_available": _answer("torch.distributed.is_available", True),
        "is_initialized": _answer("torch.distributed.is_initialized", False),
        "is_torchelastic_launched": _answer("torch.distributed.is_torchelastic_launched", False),
        "get_rank": _no_process_group("torch.distributed.get_rank"),
        "get_world_size": _no_process_group("torch.distributed.get_world_size"),
        "DeviceMesh": mesh.members["DeviceMesh"],
        "ProcessGroup": never_instantiated("torch.distributed.ProcessGroup"),
        "fsdp": fsdp, "tensor": dtensor, "device_mesh": mesh})
    found = {
        # the model runs eagerly, never compiled: dynamo's marks and hints do nothing
        "torch._dynamo": dynamo,
        "torch.distributed": distributed, "torch.distributed.fsdp": fsdp, "torch.distributed.tensor": dtensor,
        "torch.distributed.device_mesh": mesh,
        # the model runs eagerly, never symbolically traced: no value is an fx Proxy
        "torch.fx": Namespace("torch.fx", {"wrap": Builtin("torch.fx.wrap", lambda i, a, k, n: a[0] if a else None,
                                                           bind_self=False),
                                           "Proxy": never_instantiated("torch.fx.Proxy")}),
        "torch.cuda": _absent_device("cuda"), "torch.xpu": _absent_device("xpu"), "torch.mps": _absent_device("mps"),
        # torch's device-generic API (2.6+): no accelerator in the CPU build (current_accelerator() is None)
        "torch.accelerator": Namespace("torch.accelerator", {
            "is_available": _answer("torch.accelerator.is_available", False),
            "device_count": _answer("torch.accelerator.device_count", 0),
            "current_accelerator": _answer("torch.accelerator.current_accelerator", None)}),
        "torch.backends": backends, "torch._subclasses": subclasses,
        # a context manager letting vmap index with 0-d tensors (transformers' mask building): no cost
        "torch._dynamo._trace_wrapped_higher_order_op": Namespace("torch._dynamo._trace_wrapped_higher_order_op", {
            "TransformGetItemToIndex": Builtin("TransformGetItemToIndex", lambda i, a, k, n: None, bind_self=False)}),
        # `with sdpa_kernel(SDPBackend.MATH):` picks a kernel: every kernel computes the same maths
        "torch.nn.attention": Namespace("torch.nn.attention", {
            "flex_attention": flex,
            "sdpa_kernel": Builtin("torch.nn.attention.sdpa_kernel", lambda i, a, k, n: None, bind_self=False),
            "SDPBackend": Namespace("torch.nn.attention.SDPBackend", {
                name: f"SDPBackend.{name}" for name in ("ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION",
                                                        "CUDNN_ATTENTION", "OVERRIDEABLE")})}),
        "torch.nn.attention.flex_attention": flex,
    }
    for name, member in backends.members.items():
        found[f"torch.backends.{name}"] = member
    # torch's prototype scan (Mamba's alternative to its recurrent loop, taken only while
    # compiling): importable, as in torch >= 2.9; a call of it is an unknown
    scan = Namespace("torch._higher_order_ops.associative_scan", {
        "associative_scan": unknown_call("torch._higher_order_ops.associative_scan.associative_scan")})
    found["torch._higher_order_ops"] = Namespace("torch._higher_order_ops", {"associative_scan": scan})
    found["torch._higher_order_ops.associative_scan"] = scan
    return found


class Blocks:
    """Process state torch reports, and the ``with`` blocks that change it: ``with torch.device(d):`` makes d the
    default device (``torch.get_default_device()``, the CPU outside; transformers skips weight
    initialisation on ``meta``), ``with torch.autocast(...):`` turns autocast on
    (``torch.is_autocast_enabled()``, False outside).  Neither changes what is counted: the
    analysis builds the same model on any device and prices ops in the model's dtype."""

    def __init__(self, cpu, device_class: Class, object_class: Class, float32):
        self.cpu, self.device_class = cpu, device_class
        self.dtype = float32  # torch.get_default_dtype(), until torch.set_default_dtype(...)
        self.autocast_class = make_record_class("autocast", ["device_type", "dtype", "enabled", "cache_enabled"],
                                                {"dtype": None, "enabled": True, "cache_enabled": None},
                                                (object_class,))
        self.devices: list = []
        self.autocasts: list = []
        # torch.no_grad() / inference_mode() / enable_grad() / set_grad_enabled(mode): a block (or
        # a function they decorate) in which ops record a graph for backward or not
        self.grad_class = Class("_grad_mode", (object_class,), {"__call__": Builtin("grad_mode.__call__", self._decorate)})
        self.grad_modes: list = []  # True: gradients recorded in the innermost such block

    def builtins(self) -> dict:
        def state_read(interp):
            if interp.construction_memo.recorders:  # state no memo key holds: not reused elsewhere
                interp.construction_memo.refuse("asks torch's default device or autocast state")

        def default_device(interp, args, kwargs, node):
            state_read(interp)
            return self.devices[-1] if self.devices else self.cpu

        def autocast_enabled(interp, args, kwargs, node):
            state_read(interp)
            wanted = args[0] if args else kwargs.get("device_type")
            return any(block[2] is True and wanted in (None, block[0]) for block in self.autocasts)  # enabled, device_type

        def default_dtype(interp, args, kwargs, node):
            return self.dtype

        def set_default_dtype(interp, args, kwargs, node):
            # process state: memoised constructions recorded before may have read the old one
            interp.construction_memo.refuse("sets torch's default dtype")
            interp.construction_memo.definition_written()
            self.dtype = args[0] if args else kwargs.get("d")

        def grad_mode(enabled):
            return lambda interp, args, kwargs, node: Instance(self.grad_class, attrs={"enabled": enabled(args, kwargs)})

        return {"no_grad": Builtin("torch.no_grad", grad_mode(lambda a, k: False), bind_self=False),
                "enable_grad": Builtin("torch.enable_grad", grad_mode(lambda a, k: True), bind_self=False),
                "inference_mode": Builtin("torch.inference_mode",
                                          grad_mode(lambda a, k: (a[0] if a else k.get("mode", True)) is False),
                                          bind_self=False),
                "set_grad_enabled": Builtin("torch.set_grad_enabled",
                                            grad_mode(lambda a, k: (a[0] if a else k.get("mode")) is not False),
                                            bind_self=False),
                "get_default_device": Builtin("torch.get_default_device", default_device, bind_self=False),
                "get_default_dtype": Builtin("torch.get_default_dtype", default_dtype, bind_self=False),
                "set_default_dtype": Builtin("torch.set_default_dtype", set_default_dtype, bind_self=False),
                "is_autocast_enabled": Builtin("torch.is_autocast_enabled", autocast_enabled, bind_self=False),
                "autocast": self.autocast_class}

    def entered(self, manager):
        """A context manager for the body of ``with manager:`` (nothing for other managers)."""
        kind = getattr(manager, "cls", None)
        if kind is self.device_class:
            return _Pushed(self.devices, manager)
        if kind is self.autocast_class:
            return _Pushed(self.autocasts, manager)
        if kind is self.grad_class:
            return _Pushed(self.grad_modes, manager.attrs["enabled"])
        return nullcontext()

    def recording_grad(self) -> bool:
        """Whether ops now record what backward needs (False inside ``torch.no_grad()``)."""
        return self.grad_modes[-1] if self.grad_modes else True

    def _decorate(self, interp, args, kwargs, node):
        """``@torch.no_grad()`` on a function: it runs in that mode."""
        manager, function = args[0], args[1] if len(args) > 1 else None
        if function is None:
            return interp.unknown("a torch grad-mode object called without a function", node)
        enabled = manager.attrs["enabled"]
        if isinstance(function, Function):  # a copy that runs in the mode: still a method (super(), self)
            return replace(function, attrs={**function.attrs, "__wrapped__": function},
                           around=lambda: _Pushed(self.grad_modes, enabled))

        def run(interp, call_args, call_kwargs, call_node):
            with _Pushed(self.grad_modes, enabled):
                return interp.call(function, call_args, call_kwargs, call_node)
        return Builtin(getattr(function, "name", "decorated"), run)


class _Pushed:
    def __init__(self, stack: list, item):
        self.stack, self.item = stack, item

    def __enter__(self):
        self.stack.append(self.item)

    def __exit__(self, *exc):
        self.stack.pop()
