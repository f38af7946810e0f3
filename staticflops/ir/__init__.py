"""The layer IR: the module tree built by ``__init__`` and the ops traced through ``forward``.

Framework-neutral and free of syntax-tree nodes: front ends produce it, the cost stage
reads it.  A dimension is an ``int`` or a symbolic ``Expr``.
"""

from staticflops.ir.model import LayerNode, ModelIR, OpCall, ParamDecl

__all__ = ["LayerNode", "ModelIR", "OpCall", "ParamDecl"]
