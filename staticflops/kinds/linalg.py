"""Dense linear algebra on the last two dimensions: factorizations, solves, products.

LAPACK-backed ops (det, inverse, qr, svd, ...) have no FlopCounterMode formula (`standard` 0);
the products that run as aten.mm (cov, corrcoef, inner) are `matmul`-class and counted.
"""

from __future__ import annotations

from staticflops.kinds.record import Example, Kind, catalogue, expect, smaller
from staticflops.shapes.shape import numel
from staticflops.shapes.tensor_ops import ShapeError, broadcast, same


def _square(x, op):
    expect(len(x) >= 2, f"{op} expects a matrix or a batch of matrices, got rank {len(x)}")
    return x[:-2], x[-2], x[-1]


# op -> its outputs from (batch, rows, columns): the shapes torch gives (reduced QR/SVD
# are torch.qr/svd's defaults: some=True).
def _outputs(op, batch, m, n, other):
    k = smaller(m, n) if op in ("lu", "geqrf", "qr", "svd") else n
    if op in ("det", "logdet", "nuclear_norm"):
        return [batch]
    if op == "slogdet":
        return [batch, batch]
    if op in ("inverse", "matrix_exp", "cholesky_inverse", "cholesky", "orgqr"):
        return [batch + (m, n)]
    if op == "pinverse":
        return [batch + (n, m)]
    if op in ("lu", "geqrf"):  # (LU or QR factors, pivots or tau)
        return [batch + (m, n), batch + (k,)]
    if op == "qr":
        return [batch + (m, k), batch + (k, n)]
    if op == "svd":
        return [batch + (m, k), batch + (k,), batch + (n, k)]
    if op in ("cholesky_solve", "triangular_solve", "solve"):  # solve A X = B: B's shape (and A's copy)
        b_batch, a_batch = other[:-2], batch
        joint = broadcast(b_batch, a_batch)
        solution = joint + other[-2:]
        return [solution] if op in ("cholesky_solve", "solve") else [solution, joint + (m, n)]
    if op == "ormqr":  # Q (from geqrf's reflectors) times ``other``: other's shape
        return [other]
    raise ShapeError(f"{op} is not a known linear-algebra op")


def _linalg(attrs, inputs):
    op = attrs["op"]
    # cholesky_solve(B, L) / triangular_solve(B, A) / solve (keras.ops.solve(A, B), given as
    # (B, A)): the matrix A comes second
    a = inputs[1] if op in ("cholesky_solve", "triangular_solve", "solve") else inputs[0]
    batch, m, n = _square(a, op)
    if op not in ("pinverse", "qr", "svd", "lu", "geqrf", "nuclear_norm", "orgqr", "ormqr"):
        expect(same(m, n), f"{op} expects square matrices, got {m}x{n}")
    other = inputs[0] if op in ("cholesky_solve", "triangular_solve", "solve") else inputs[2] if op == "ormqr" else None
    rhs = other[-1] if other else 0  # right-hand sides of a solve
    return _outputs(op, batch, m, n, other), {"n": n, "rhs": rhs, "matrices": numel(batch)}


def _covariance(attrs, inputs):
    """cov / corrcoef of (variables, observations): the (variables, variables) matrix; one
    variable (1-D input) gives a scalar.  ``inner`` = observations (the product's depth)."""
    x = inputs[0]
    expect(len(x) in (1, 2), f"{attrs.get('op', 'cov')} expects a 1-D or 2-D input, got rank {len(x)}")
    if len(x) == 1:
        return [()], {"variables": 1, "inner": x[0]}
    return [(x[0], x[0])], {"variables": x[0], "inner": x[1]}


def _distance(attrs, inputs):
    """cdist(x1 [..., P, M], x2 [..., R, M]): the (..., P, R) distances over M features."""
    a, b = inputs
    expect(len(a) >= 2 and len(b) >= 2, "cdist expects inputs of rank at least 2")
    expect(same(a[-1], b[-1]), f"cdist: feature sizes {a[-1]} and {b[-1]} differ")
    return [broadcast(a[:-2], b[:-2]) + (a[-2], b[-2])], {"features": a[-1]}


KINDS = catalogue(
    Kind("linalg", _linalg, True,
         "a factorization, inverse or solve of matrices in the last two dimensions (LAPACK kernels)",
         (Example("torch.det(x)", ("x:2x3x8x8",), ((2, 3),), 0,
                  "one determinant per 8x8 matrix of the (2, 3) batch; no FlopCounterMode formula: 0"),)),
    Kind("covariance", _covariance, True,
         "cov / corrcoef: centred observations times their transpose (an aten.mm)",
         (Example("torch.cov(x)", ("x:2x8",), ((2, 2),), 64,
                  "(2, 8) @ (8, 2): 2*2 outputs x 8 = 32 MACs = 64 FLOPs"),)),
    Kind("distance", _distance, True,
         "cdist: p-norm distance between every pair of rows",
         (Example("torch.cdist(x, y)", ("x:2x8", "y:2x8"), ((2, 2),), 0,
                  "2x2 pairs; aten._cdist_forward has no FlopCounterMode formula: 0"),)),
)
