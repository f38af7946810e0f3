"""What the recording scripts in tools/ measure for one model and one float input: executed with
torch (eval mode, no_grad, SDPA MATH backend, oneDNN off — the conventions of
../shared/research/ground-truth-notes.md) under FlopCounterMode.  Imported by the scripts
beside it (run as `python tools/record_X.py`); tests never import torch."""

import torch
import torch.library
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode


def allow_cuda_torchvision():
    """Let ``import torchvision`` succeed beside the CPU torch.  torchvision 0.28.0's wheel on
    PyPI is a CUDA build: its C++ operators (nms, roi_align, ...) do not exist here, and the
    import fails while registering their meta kernels.  Skip those registrations only: the model
    code the scripts run (maxvit_t; transformers, which calflops imports, probes torchvision)
    uses none of the operators.  Call it before anything imports torchvision."""
    register = torch.library.Library.impl

    def register_if_present(self, *args, **kwargs):
        try:
            return register(self, *args, **kwargs)
        except RuntimeError as error:
            if "does not exist" not in str(error):
                raise

    torch.library.Library.impl = register_if_present


def measure(model, shape):
    torch.manual_seed(0)
    model.eval()
    x = torch.randn(*shape)
    with torch.no_grad(), sdpa_kernel(SDPBackend.MATH), torch.backends.mkldnn.flags(enabled=False):
        counter = FlopCounterMode(display=False)
        with counter:
            out = model(x)
    return {
        "inputs": [{"shape": list(shape), "dtype": "float32"}],
        "output_shapes": [list(out.shape)],
        "forward_flops": counter.get_total_flops(),
        "flops_by_op": {str(k): v for k, v in sorted(counter.get_flop_counts()["Global"].items(), key=str)},
        "params": sum(p.numel() for p in model.parameters()),
        "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad),
    }


def _shapes(value) -> list:
    """A tensor's shape, or a tuple/list output's tensors' shapes depth-first (others skipped)."""
    if isinstance(value, torch.Tensor):
        return [list(value.shape)]
    if isinstance(value, (tuple, list)):
        return [shape for item in value for shape in _shapes(item)]
    return []


def measure_call(model, tensors):
    """As ``measure``, for a model called on several given tensors (tools/record_coverage.py)."""
    model.eval()
    with torch.no_grad(), sdpa_kernel(SDPBackend.MATH), torch.backends.mkldnn.flags(enabled=False):
        counter = FlopCounterMode(display=False)
        with counter:
            out = model(*tensors)
    return {
        "output_shapes": _shapes(out),
        "forward_flops": counter.get_total_flops(),
        "params": sum(p.numel() for p in model.parameters()),
    }
