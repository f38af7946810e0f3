"""Record PyTorch ground truth for *training*: forward + backward FLOPs per model.

For every sample and case that tools/record_torch.py records, this builds the model in
train mode, runs forward and ``loss.backward()`` with loss = the sum of every float output,
under FlopCounterMode, on CPU with the exact kernels (SDPA MATH backend, oneDNN disabled, as
in record_torch.py).  Inputs do not require grad; all parameters are trainable unless the
model's own source freezes them.  Writes tests/fixtures/torch_training_ground_truth.json:

* ``forward_flops``: FlopCounterMode total of the forward pass (train mode)
* ``backward_flops``: total of ``loss.backward()``
* ``backward_by_op``: backward FLOPs per aten op
* ``torch_version``, ``mode``

Run (torch 2.13.0 CPU; never plain ``torch``, which pulls CUDA):

    /tmp/tvenv/bin/python tools/record_torch_training.py [--only SUBSTRING]

Known FlopCounterMode quirk kept as measured: its weight-gradient formula for convolutions
ignores ``groups``, so grouped/depthwise convolutions' backward is overcounted ~groups-fold.
"""
import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_torch as rt  # noqa: E402  (shares the input table and loaders)

import torch  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

OUT = os.path.join(rt.REPO, "tests", "fixtures", "torch_training_ground_truth.json")

# Published in the training issue, measured with FlopCounterMode (torch 2.13 CPU, train mode, loss = sum).
EXPECTED = {
    "samples/lenet5.py": {"forward_flops": 833_040, "backward_flops": 1_430_880},
    "samples/mlp.py": {"forward_flops": 9_064_448, "backward_flops": 11_706_368},
    "samples/resnet50.py": {"forward_flops": 8_178_368_512, "backward_flops": 16_120_709_120},
}


def record(relpath, class_name, input_specs):
    module = rt.load_module(relpath)
    torch.manual_seed(0)
    model = getattr(module, class_name)()
    model.train()
    inputs = rt.make_inputs(input_specs)
    with contextlib.ExitStack() as stack:
        stack.enter_context(sdpa_kernel(SDPBackend.MATH))
        stack.enter_context(torch.backends.mkldnn.flags(enabled=False))
        forward_counter = FlopCounterMode(display=False)
        with forward_counter:
            outputs = model(*inputs)
        loss = sum(t.float().sum() for t in rt.flatten_tensors(outputs) if t.is_floating_point() and t.requires_grad)
        backward_counter = FlopCounterMode(display=False)
        with backward_counter:
            if isinstance(loss, torch.Tensor):
                loss.backward()
    by_op = {str(op): int(n) for op, n in backward_counter.get_flop_counts().get("Global", {}).items()}
    return {
        "class": class_name,
        "inputs": [{"shape": s["shape"], "dtype": s["dtype"]} for s in input_specs],
        "forward_flops": int(forward_counter.get_total_flops()),
        "backward_flops": int(backward_counter.get_total_flops()),
        "backward_by_op": by_op,
        "torch_version": torch.__version__,
        "mode": "cpu, train mode, sdpa MATH + mkldnn disabled, loss = sum of float outputs, inputs without grad",
    }


def main():
    rt.record_all(record, OUT, EXPECTED,
                  lambda e: f"forward={e['forward_flops']:,} backward={e['backward_flops']:,}",
                  __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
