"""What library code asks torch about its process, answered as torch 2.13.0's CPU build does
(frontend/torch/accelerators.py, tensor_attribute_names.py), so that the `if` it decides is
decided and the report stays complete.  transformers asks every one of these while building a
model (test_transformers.py checks its reports are complete).

Each model below adds a layer only when every probe gave the real CPU build's answer, so a
wrong answer changes the count; the FLOPs are derived by hand in each docstring.
"""

import textwrap

import staticflops
from staticflops.api import analyze_text


def _analyse(tmp_path, source: str, inputs=("1x4",)):
    return analyze_text(source, tmp_path / "model.py", inputs=list(inputs))


HEADER = "import torch\nfrom torch import nn\n\n"


def test_tensor_attributes_torch_lacks_are_missing_and_set_ones_read_back(tmp_path):
    """transformers' `getattr(param, "_is_hf_initialized", False)` and `hasattr(x, "jax")`: a name
    torch's tensors do not have (tools/record_tensor_attributes.py lists theirs) is missing until
    the code sets it.  Both checks pass: fc 4->4 and extra 4->8, 2*(4*4 + 4*8) = 96 FLOPs."""
    source = HEADER + '''
def initialised(tensor):
    return getattr(tensor, "_is_hf_initialized", False)

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        before = initialised(self.fc.bias)
        self.fc.bias._is_hf_initialized = True
        if not before and initialised(self.fc.bias) and not initialised(self.fc.weight) \\
                and not hasattr(self.fc.weight, "jax") and hasattr(self.fc.bias, "_is_hf_initialized"):
            self.extra = nn.Linear(4, 8)
        else:
            self.extra = nn.Identity()

    def forward(self, x):
        return self.extra(self.fc(x))
'''
    report = _analyse(tmp_path, source)
    assert report.totals.forward_flops == 96
    assert report.totals.complete


def test_a_torch_tensor_attribute_not_modelled_stays_unknown(tmp_path):
    """`is_sparse` is a real tensor attribute we do not model: `hasattr` cannot say False for it
    (it is True on a real tensor), so the `if` is an assumption, reported, and the total is a
    lower bound; the names torch lacks are the only ones answered "missing"."""
    source = HEADER + '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        if getattr(x, "is_sparse", None) is None:
            return self.fc(x)
        return x
'''
    report = _analyse(tmp_path, source)
    assert not report.totals.complete
    assert any("is_sparse" in u.what for u in report.unknown)


def test_device_probes_answer_as_the_cpu_build(tmp_path):
    """No CUDA/XPU/MPS device, mkldnn present, the default device the CPU (and `meta` inside
    `with torch.device("meta")`), stream capture raising RuntimeError (transformers catches it),
    fx proxies and fake tensors never met.  Each right answer adds one 4->4 Linear: five of
    them, 5 * 2*4*4 = 160 FLOPs."""
    source = HEADER + '''
def capturing():
    try:
        return torch.cuda.is_current_stream_capturing()
    except RuntimeError:
        return False

class M(nn.Module):
    def __init__(self):
        super().__init__()
        layers = []
        if not torch.cuda.is_available() and torch.cuda.device_count() == 0 and not torch.xpu.is_available():
            layers.append(nn.Linear(4, 4))
        if not (torch.backends.mps.is_available() and torch.backends.mps.is_built()) \\
                and torch.backends.mkldnn.is_available():
            layers.append(nn.Linear(4, 4))
        if torch.get_default_device() == torch.device("cpu"):
            layers.append(nn.Linear(4, 4))
        with torch.device("meta"):
            if torch.get_default_device() == torch.device("meta"):
                layers.append(nn.Linear(4, 4))
        if not capturing():
            layers.append(nn.Linear(4, 4))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        if isinstance(x, torch.fx.Proxy) or isinstance(x, torch._subclasses.FakeTensor):
            return x
        return self.layers(x)
'''
    report = _analyse(tmp_path, source)
    assert report.totals.forward_flops == 160
    assert report.totals.complete


def test_distributed_probes_answer_as_a_single_uninitialised_process(tmp_path):
    """torch.distributed is built in (`is_available()` True on Linux) but no process group was
    initialised: `is_initialized()` False, `get_rank()`/`get_world_size()` raise ValueError, and
    no tensor is a DTensor nor any module an FSDP wrapper (the answers of torch 2.13.0 CPU,
    read from that build).  transformers' `is_fsdp_managed_module` and tensor-parallel checks ask
    these.  Each right answer adds one 4->4 Linear: four of them, 4 * 2*4*4 = 128 FLOPs."""
    source = HEADER + '''
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel
from torch.distributed.tensor import DTensor

def rank():
    try:
        return dist.get_rank()
    except ValueError:
        return -1

class M(nn.Module):
    def __init__(self):
        super().__init__()
        layers = []
        if dist.is_available():
            layers.append(nn.Linear(4, 4))
        if not dist.is_initialized():
            layers.append(nn.Linear(4, 4))
        if rank() == -1:
            layers.append(nn.Linear(4, 4))
        if not isinstance(self, FullyShardedDataParallel) and not isinstance(torch.zeros(2), DTensor):
            layers.append(nn.Linear(4, 4))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)
'''
    report = _analyse(tmp_path, source)
    assert report.totals.forward_flops == 128
    assert report.totals.complete


def test_float_constants_and_memory_formats(tmp_path):
    """torch.inf/nan/pi/e are Python floats (torch 2.13.0); torch.contiguous_format and the other
    layouts are `torch.memory_format` objects that `.to()`/`.contiguous()` take and that change
    no size.  Each right answer adds one 4->4 Linear: three of them, 3 * 2*4*4 = 96 FLOPs."""
    source = HEADER + '''
import math

class M(nn.Module):
    def __init__(self):
        super().__init__()
        layers = []
        if torch.inf == math.inf and torch.nan != torch.nan and (torch.pi, torch.e) == (math.pi, math.e):
            layers.append(nn.Linear(4, 4))
        if isinstance(torch.channels_last, torch.memory_format) and torch.contiguous_format is not torch.preserve_format:
            layers.append(nn.Linear(4, 4))
        if torch.contiguous_format == torch.contiguous_format:
            layers.append(nn.Linear(4, 4))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        x = x.to(torch.float32, memory_format=torch.contiguous_format).contiguous(memory_format=torch.contiguous_format)
        return self.layers(x)
'''
    report = _analyse(tmp_path, source)
    assert report.totals.forward_flops == 96
    assert report.totals.complete


def test_state_dict_hooks_are_registered_and_change_nothing(tmp_path):
    """Hooks of state_dict()/load_state_dict() (Mamba registers one in __init__) run only when
    weights are saved or loaded: registering them changes nothing counted.  One 4->4 Linear:
    2*4*4 = 32 FLOPs, 20 parameters."""
    source = HEADER + '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self._register_load_state_dict_pre_hook(self.load_hook)
        self.register_state_dict_post_hook(lambda module, state_dict, prefix, local_metadata: None)

    def load_hook(self, state_dict, prefix, *args):
        state_dict.pop(prefix + "unused", None)

    def forward(self, x):
        return self.fc(x)
'''
    report = _analyse(tmp_path, source)
    assert (report.totals.forward_flops, report.totals.params) == (32, 20)
    assert report.totals.complete


def test_type_of_a_tensor_is_the_torch_class(tmp_path):
    """`type(x) is torch.Tensor`, `type(p) is nn.Parameter`, and `str(type(x))` as Python prints it
    (transformers tells frameworks apart by `str(type(x)).startswith("<class 'torch.")`): all
    true, so fc runs: 2*4*4 = 32 FLOPs."""
    source = HEADER + '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        if type(x) is torch.Tensor and type(self.fc.weight) is nn.Parameter \\
                and str(type(x)).startswith("<class 'torch.") and isinstance(self.fc.weight, type(self.fc.bias)):
            return self.fc(x)
        return x
'''
    report = _analyse(tmp_path, source)
    assert report.totals.forward_flops == 32
    assert report.totals.complete


def test_getsource_of_a_module_and_delattr(tmp_path):
    """`inspect.getsource(module)` is the file's text (transformers looks for a decorator's name in
    a model's module); `delattr` removes an attribute.  Both as Python: widths 8 then 16, one
    Linear 4->16 = 2*4*16 = 128 FLOPs."""
    (tmp_path / "blocks.py").write_text("# uses @fancy_decorator\nWIDTH = 8\n")
    (tmp_path / "model.py").write_text(HEADER + '''import inspect
import blocks

class Config:
    def __init__(self):
        self.width = blocks.WIDTH
        self.old = 1

class M(nn.Module):
    def __init__(self):
        super().__init__()
        config = Config()
        if "@fancy_decorator" in inspect.getsource(blocks):
            config.width = 2 * config.width
        delattr(config, "old")
        if not hasattr(config, "old"):
            self.fc = nn.Linear(4, config.width)

    def forward(self, x):
        return self.fc(x)
''')
    report = staticflops.analyze(tmp_path / "model.py", inputs=["1x4"])
    assert report.totals.forward_flops == 128
    assert report.totals.complete


def test_sdpa_kernel_context_changes_nothing_counted(tmp_path):
    """`with sdpa_kernel(SDPBackend.MATH):` picks a kernel; all compute the same maths.  Linear
    8->8 on 4 tokens: 4*8*8 = 256 MACs; attention over 2 heads of 4x4: Q.K^T 2*4*4*4 = 128 and
    A.V 128 MACs; 512 MACs = 1,024 FLOPs."""
    source = HEADER + '''import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)

    def forward(self, x):
        q = self.q(x).view(1, 2, 4, 4)
        with sdpa_kernel(SDPBackend.MATH):
            return F.scaled_dot_product_attention(q, q, q)
'''
    report = _analyse(tmp_path, source, inputs=("1x4x8",))
    assert report.totals.forward_flops == 1024
    assert report.totals.complete


def test_exit_stack_and_autocast_blocks(tmp_path):
    """`contextlib.ExitStack` enters a manager (its `__enter__` value, 3) and leaves it on exit
    (the log holds "in" and "out": 2); `torch.is_autocast_enabled()` is False outside an
    autocast block (5 counted) and True inside `with torch.autocast("cpu")`, for that device
    only (7 counted).  fc is Linear(4, 3 + 2 + 5 + 7 = 17): 4*17 = 68 MACs = 136 FLOPs."""
    source = HEADER + '''from contextlib import ExitStack

class Ctx:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("in")
        return 3

    def __exit__(self, *exc):
        self.log.append("out")

class M(nn.Module):
    def __init__(self):
        super().__init__()
        log = []
        with ExitStack() as stack:
            n = stack.enter_context(Ctx(log))
            stack.enter_context(torch.no_grad())
        widths = [n, len(log)]
        if not torch.is_autocast_enabled():
            widths.append(5)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            if torch.is_autocast_enabled("cpu") and not torch.is_autocast_enabled("cuda"):
                widths.append(7)
        self.fc = nn.Linear(4, sum(widths))

    def forward(self, x):
        return self.fc(x)
'''
    report = _analyse(tmp_path, source)
    assert report.totals.forward_flops == 136
    assert report.totals.complete


def test_custom_autograd_function_runs_its_forward(tmp_path):
    """`torch.autograd.Function` subclasses (DeBERTa's XSoftmax, SEW-D): `apply` runs `forward`
    with a context (old style) or without one and then `setup_context` (new style).  Each
    forward is x @ w, 2x4 by 4x8: 2*4*8 = 64 MACs; two of them, 128 MACs = 256 FLOPs.  The
    backward is not read (the rules price each op's backward under --training)."""
    source = HEADER + '''from torch.autograd import Function

class OldStyle(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        ctx.scale = 1 if ctx.needs_input_grad == (False, True) else 0
        return (x @ w) * ctx.scale

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return grad @ w.t(), x.t() @ grad

class NewStyle(Function):
    @staticmethod
    def forward(x, w):
        return x @ w

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(4, 8))

    def forward(self, x):
        return OldStyle.apply(x, self.w) + NewStyle.apply(x, self.w)
'''
    report = _analyse(tmp_path, source, inputs=("2x4",))
    assert report.totals.macs == 128
    assert report.totals.complete


def test_compile_hints_checks_default_dtype_and_ndarray(tmp_path):
    """The eager model ignores dynamo's marks; `torch._check` of a true condition passes (a known
    False raises: second model); `torch.get_default_dtype()` is float32; nothing modelled is a
    numpy array.  fc 4->8 runs: 2*4*8 = 64 FLOPs."""
    source = HEADER + '''import numpy as np

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)
        torch._dynamo.mark_static_address(self.fc.weight)
        torch._check(True, lambda: "never")
        self.ok = torch.get_default_dtype() == torch.float32

    @torch._dynamo.disable
    def forward(self, x):
        torch._check_with(ValueError, x.shape[0] == 1, lambda: "batch")
        if isinstance(x, np.ndarray) or not self.ok:
            return x
        return self.fc(x)
'''
    report = _analyse(tmp_path, source)
    assert report.totals.forward_flops == 64
    assert report.totals.complete
    failing = source.replace("x.shape[0] == 1", "x.shape[0] == 2")
    try:
        _analyse(tmp_path, failing)
    except staticflops.AnalysisError as error:
        assert "torch._check failed" in str(error)
    else:
        raise AssertionError("a known-false torch._check must raise")


def test_axis_is_an_alias_of_dim(tmp_path):
    """torch takes numpy's `axis=` for `dim=` (Funnel: `torch.cat([...], axis=axis)`): the cat of two
    2x4 along 1 is 2x8; fc 8->4 on 2 rows is 2*8*4 = 64 MACs = 128 FLOPs; `.sum(axis=-1)` leaves
    shape (2,)."""
    source = HEADER + '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(torch.cat([x, x], axis=1)).sum(axis=-1)
'''
    report = _analyse(tmp_path, source, inputs=("2x4",))
    assert report.totals.forward_flops == 128
    assert report.outputs == [[2]]


def test_dtypes_compare_as_torch_does(tmp_path):
    """``torch.float16 == torch.half``, ``torch.float is torch.float32``, float16 != float32,
    int32 != int64, bfloat16 != float16 (5 checks in __init__); a float input's dtype is float32
    (the dtype the recordings run in), an int64 tensor's is torch.long, finfo(x.dtype) has 32
    bits, a float input is none of the int dtypes, an int16 tensor is no float (6 checks in
    forward).  Each check adds 1 when torch's answer is given, 100 otherwise: Linear(4, 5) has
    4*5 + 5 = 25 params, and the output keeps m - 2 = 4 of its 5 columns (any wrong answer: 5).  (Before,
    every float dtype compared equal: ``x.dtype == torch.float16`` was True.)"""
    path = tmp_path / "dtypes.py"
    path.write_text(textwrap.dedent('''
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                n = 0
                n += 1 if torch.float16 == torch.half else 100
                n += 1 if torch.float is torch.float32 else 100
                n += 1 if torch.float16 != torch.float32 else 100
                n += 1 if torch.int32 != torch.int64 else 100
                n += 1 if torch.bfloat16 != torch.float16 else 100
                self.fc = nn.Linear(4, n)

            def forward(self, x):
                ids = torch.zeros(1, 4, dtype=torch.long)
                m = 0
                m += 1 if x.dtype == torch.float32 and x.dtype is torch.float32 else 100
                m += 1 if x.dtype != torch.float16 and x.dtype not in (torch.float16, torch.bfloat16) else 100
                m += 1 if ids.dtype == torch.int64 and ids.dtype is torch.long else 100
                m += 1 if torch.finfo(x.dtype).bits == 32 else 100
                m += 1 if x.dtype not in [torch.int8, torch.int16, torch.short, torch.int32, torch.int64] else 100
                m += 1 if not torch.zeros(2, dtype=torch.short).is_floating_point() else 100
                return self.fc(x)[:, :m - 2]
    '''))
    report = staticflops.analyze(path, inputs=["1x4"])
    assert report.totals.params == 25
    assert report.outputs == [[1, 4]]


def test_torch_accelerator_answers_as_the_cpu_build(tmp_path):
    """torch's device-generic probe (diffusers' `_detect_device_type`): torch 2.13.0's CPU build
    answers `torch.accelerator.is_available()` False, `device_count()` 0 and
    `current_accelerator()` None.  All three as the CPU build: fc 4->8, 2*4*8 = 64 FLOPs, and
    no assumption is noted."""
    source = HEADER + '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        cpu = not torch.accelerator.is_available() and torch.accelerator.device_count() == 0
        self.fc = nn.Linear(4, 8 if cpu and torch.accelerator.current_accelerator() is None else 2)

    def forward(self, x):
        return self.fc(x)
'''
    report = _analyse(tmp_path, source)
    assert report.totals.forward_flops == 64
    assert report.totals.complete and report.diagnostics == []
