"""Record which attribute names a torch tensor has (torch 2.13.0 CPU), for the interpreter's
``hasattr(tensor, name)`` / ``getattr(tensor, name, default)``.

Library code probes tensors for attributes that only some tensors carry: transformers'
``getattr(param, "_is_hf_initialized", False)`` (set by its weight loading), its
``hasattr(x, "jax")`` (a torchax tensor).  On a real tensor a name that neither
``torch.Tensor`` nor ``torch.nn.Parameter`` defines, and that no code set on that tensor, is
missing: AttributeError.  The interpreter needs the list of names torch does define, to
answer "missing" for the others instead of an unknown.

    /work/gt/torch/bin/python tools/record_tensor_attributes.py

writes ``staticflops/frontend/torch/tensor_attribute_names.py`` (a data module: no torch is
imported by the package).  The names are ``dir()`` of a tensor, of a parameter and of both
classes, so properties, methods and dunder names are all in.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import torch

OUT = Path(__file__).resolve().parent.parent / "staticflops" / "frontend" / "torch" / "tensor_attribute_names.py"


def main() -> None:
    tensor, parameter = torch.zeros(1), torch.nn.Parameter(torch.zeros(1))
    names = sorted(set(dir(tensor)) | set(dir(parameter)) | set(dir(torch.Tensor)) | set(dir(torch.nn.Parameter)))
    body = textwrap.fill(" ".join(names), width=100, break_long_words=False, break_on_hyphens=False)
    OUT.write_text(
        f'"""The attribute names of a torch {torch.__version__} tensor and parameter (``dir()`` of both and of\n'
        'their classes), written by tools/record_tensor_attributes.py: a name outside this set, never\n'
        'set on the tensor by the analysed code, is missing (AttributeError), as on a real tensor."""\n\n'
        f'TORCH_VERSION = "{torch.__version__}"\n\n'
        f'NAMES = frozenset("""\n{body}\n""".split())\n')
    print(f"{len(names)} names -> {OUT}")


if __name__ == "__main__":
    main()
