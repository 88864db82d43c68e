"""The matrix exponential by Padé scaling and squaring (Higham 2005, as jax.scipy.linalg.expm
computes it), composed from session ops (matmul, mul, add, solve), so every derivative
order is the derivative of the approximant, with no op and no rule of its own.

The degree and the number of squarings are read from the values (the largest 1-norm of
the batch: one choice for every matrix of it, so a stack is one program); they are
piecewise constant in A, so they carry no derivative. The derivative of the approximant
approximates the Fréchet derivative to the same accuracy as the approximant approximates
exp (Al-Mohy & Higham 2009).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: The Padé coefficients b_j of degree m (Higham 2005, table 2.3).
PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0, 1.0),
    13: (
        64764752532480000.0,
        32382376266240000.0,
        7771770303897600.0,
        1187353796428800.0,
        129060195264000.0,
        10559470521600.0,
        670442572800.0,
        33522128640.0,
        1323241920.0,
        40840800.0,
        960960.0,
        16380.0,
        182.0,
        1.0,
    ),
}
#: (θ_m, m): the largest 1-norm each degree approximates to unit roundoff (Higham 2005,
#: table 2.3; jax's thresholds for single precision), the last one scaled down to.
THETAS = {
    8: ((1.495585217958292e-2, 3), (2.539398330063230e-1, 5), (9.504178996162932e-1, 7), (2.097847961257068, 9),
        (5.371920351148152, 13)),
    4: ((4.258730016922831e-1, 3), (1.880152677804762, 5), (3.925724783138660, 7)),
}  # fmt: skip


def degree_and_squarings(values: np.ndarray) -> tuple[int, int]:
    """The Padé degree and the number of squarings for a batch of matrices (..., n, n):
    the smallest degree whose θ bounds the largest 1-norm, else the largest degree after
    s = ceil(log2(norm/θ)) halvings."""
    norm = float(np.max(np.sum(np.abs(values), axis=-2), initial=0.0))
    thetas = THETAS[8 if values.dtype in (np.float64, np.complex128) else 4]
    for theta, m in thetas:
        if norm <= theta:
            return m, 0
    theta, m = thetas[-1]
    return m, max(0, math.ceil(math.log2(norm / theta)))


def expm(s: Any, a: Any, values: np.ndarray) -> Any:
    """exp(a) for an EagerTensor a (..., n, n) whose values are ``values``."""
    m, squarings = degree_and_squarings(values)
    if squarings:
        a = s.mul(a, 2.0**-squarings)  # exact: a power of two
    n = a.shape[-1]
    eye = s.runtime.constant_from(np.eye(n, dtype=a.dtype))
    b = PADE[m]
    a2 = s.matmul(a, a)
    if m == 13:
        a4 = s.matmul(a2, a2)
        a6 = s.matmul(a4, a2)
        u = s.matmul(a6, _sum(s, [(b[13], a6), (b[11], a4), (b[9], a2)]))
        u = s.matmul(a, s.add(u, _sum(s, [(b[7], a6), (b[5], a4), (b[3], a2), (b[1], eye)])))
        v = s.matmul(a6, _sum(s, [(b[12], a6), (b[10], a4), (b[8], a2)]))
        v = s.add(v, _sum(s, [(b[6], a6), (b[4], a4), (b[2], a2), (b[0], eye)]))
    else:
        powers = [eye, a2]
        while len(powers) <= m // 2:
            powers.append(s.matmul(powers[-1], a2))
        u = s.matmul(a, _sum(s, [(b[2 * j + 1], p) for j, p in enumerate(powers)]))
        v = _sum(s, [(b[2 * j], p) for j, p in enumerate(powers)])
    r = s.solve(s.sub(v, u), s.add(v, u))  # q(A)⁻¹ p(A), q(A) = V - U, p(A) = V + U
    for _ in range(squarings):
        r = s.matmul(r, r)
    return r


def _sum(s: Any, terms: list[tuple[float, Any]]) -> Any:
    """Σ c·x over (c, x) pairs."""
    total = s.mul(terms[0][1], terms[0][0])
    for c, x in terms[1:]:
        total = s.add(total, s.mul(x, c))
    return total
