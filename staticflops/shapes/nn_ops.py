"""Output shapes of the ``torch.nn`` / ``torch.nn.functional`` kinds added for issue 20
(shrinkage activations, unfold/fold, unpooling, distances, grid sampling, ...).

Each function maps normalised attributes and input shapes to ``(outputs, facts)`` as in
``shapes/layers.py``, which merges ``NN_SHAPES`` into its table (this module imports no other
shape module of the package's layer tables, so the two do not import each other).
"""

from __future__ import annotations

from staticflops.shapes.expr import format_dim
from staticflops.shapes.shape import Shape, format_shape, numel
from staticflops.shapes.tensor_ops import ShapeError, broadcast, normalize_dim, reduce, same

NN_SHAPES: dict = {}


def _kinds(*kinds: str):
    def register(fn):
        for kind in kinds:
            NN_SHAPES[kind] = fn
        return fn
    return register


# (hardshrink, softshrink, tanhshrink, logsigmoid, rrelu, threshold, local_response_norm keep the
# input's shape, softmin and gumbel_softmax along a dim: shapes/layers.py's rules, by name there)


@_kinds("channel_shuffle")
def _channel_shuffle(attrs, inputs):
    x, groups = inputs[0], attrs["groups"]
    if len(x) < 3:
        raise ShapeError(f"channel_shuffle expects an input of rank at least 3, got {format_shape(x)}")
    if isinstance(groups, int) and (groups <= 0 or (isinstance(x[1], int) and x[1] % groups)):
        raise ShapeError(f"{format_dim(x[1])} channels cannot be shuffled in {groups} groups")
    return [x], {}


@_kinds("affine_grid")
def _affine_grid(attrs, inputs):
    """theta (N, 2, 3) with size (N, C, H, W) -> (N, H, W, 2); (N, 3, 4) with 5 sizes -> (N, D, H, W, 3)."""
    theta, size = inputs[0], tuple(attrs["size"])
    if len(size) not in (4, 5):
        raise ShapeError(f"affine_grid supports 4-D and 5-D sizes only, got {len(size)} sizes")
    spatial = len(size) - 2
    if len(theta) != 3 or not same(theta[1], spatial) or not same(theta[2], spatial + 1):
        raise ShapeError(f"affine_grid expects theta of shape (N, {spatial}, {spatial + 1}) for size "
                         f"{format_shape(size)}, got {format_shape(theta)}")
    return [(size[0],) + size[2:] + (spatial,)], {}


@_kinds("grid_sample")
def _grid_sample(attrs, inputs):
    """input (N, C, H, W), grid (N, Ho, Wo, 2) -> (N, C, Ho, Wo) (and the 5-D analogue)."""
    x, grid = inputs[0], inputs[1]
    if len(x) not in (4, 5) or len(grid) != len(x) or not same(grid[-1], len(x) - 2):
        raise ShapeError(f"grid_sample: grid {format_shape(grid)} does not fit input {format_shape(x)}")
    return [x[:2] + tuple(grid[1:-1])], {}


