"""``tenferro.scipy.linalg``: scipy.linalg's functions with scipy's names and signatures,
differentiable to every order, as ``jax.scipy.linalg`` offers them.

Three kinds (docs/scipy-linalg.md has the table): the ``linalg`` plugin's ops
(``solve_triangular`` is ``triangular_solve``; ``sqrtm``, ``solve_sylvester`` and ``lu``
are ops with SciPy's kernels); functions composed from ops (``expm`` by Padé scaling and
squaring as jax's, ``expm_frechet``, ``cho_factor``/``cho_solve``, ``lu_factor``/
``lu_solve``, the triangle-reading ``cholesky`` and ``eigh``); and ``tnp.linalg``'s
functions with scipy's signatures (``inv``, ``det``, ``solve``, ``svd``, ``qr``, ``norm``,
...). Every function takes stacks (..., M, N) where scipy's takes one matrix.

scipy's ``overwrite_*`` and ``check_finite`` arguments are accepted and change nothing
(values are immutable; a nan or inf matrix is refused where LAPACK would fail). Errors
name ``tenferro.scipy.linalg.<function>`` and the argument (its ``argument`` field too).

The functions live in three modules, one kind each: :mod:`._linalg_solves` (solves and
factorisations), :mod:`._matrix_functions` (expm, expm_frechet, sqrtm) and
:mod:`._linalg_tnp` (decompositions, inv, det, norms); :mod:`._linalg_checks` holds the
argument checks they share.
"""

from __future__ import annotations

from ..plugins.linalg.batching import NotPositiveDefinite, SingularMatrix
from ._linalg_solves import (
    cho_factor,
    cho_solve,
    cholesky,
    lu,
    lu_factor,
    lu_solve,
    solve,
    solve_sylvester,
    solve_triangular,
)
from ._linalg_tnp import det, eigh, eigvalsh, inv, norm, pinv, qr, svd, svdvals
from ._matrix_functions import expm, expm_frechet, sqrtm

__all__ = [
    "NotPositiveDefinite",
    "SingularMatrix",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "det",
    "eigh",
    "eigvalsh",
    "expm",
    "expm_frechet",
    "inv",
    "lu",
    "lu_factor",
    "lu_solve",
    "norm",
    "pinv",
    "qr",
    "solve",
    "solve_sylvester",
    "solve_triangular",
    "sqrtm",
    "svd",
    "svdvals",
]
