"""Plugin ``linalg``: linear algebra with derivatives, batched over leading axes as NumPy is.
One module per idea: the solves in :mod:`.solve` (solve, triangular_solve), the functions
of a square matrix in :mod:`.inverse` (inv, det, slogdet, matrix_power; with solve, on the
LU factorisation of :mod:`.solve_lu`), :mod:`.least_squares` (lstsq, pinv),
:mod:`.cholesky`; det's derivatives, defined at singular matrices, in :mod:`.cofactor`;
the decompositions :mod:`.qr`, :mod:`.eig` (eigh, eigvalsh; the gradient of their
eigenvalues in :mod:`.spectral`), :mod:`.svd` (svd, svdvals); :mod:`.norms` (matrix_norm,
vector_norm, cross); for tenferro.scipy.linalg, on SciPy's kernels, :mod:`.sylvester`
(solve_sylvester, sqrtm) and :mod:`.lu`. What they share is in :mod:`.batching`, what the
decompositions share in :mod:`.decomp_common`, the sample strategies in :mod:`.samples`.

The ops of :mod:`.sylvester` and :mod:`.lu` take NumPy arrays only (NumPy has no Schur
decomposition or LU): their ``engine_neutral`` checks are expected failures
(``tenferro-xfail.txt``).

Every op has a forward-mode ``jvp`` rule next to its VJP (JAX's and PyTorch's published
JVPs, written with session ops), so forward mode never falls back to the slower transposed
VJP; each rule is the exact transpose of its VJP (the conformance suite's ``jvp`` check)."""

from tenferro.extend import PluginRegistrar, hookimpl

from . import (
    cholesky,
    cofactor,
    decomp_common,
    eig,
    inverse,
    least_squares,
    lu,
    norms,
    qr,
    solve,
    spectral,
    svd,
    sylvester,
)

#: The modules whose SPECS are registered, in this order.
MODULES = (
    solve,
    inverse,
    cofactor,
    least_squares,
    cholesky,
    decomp_common,
    qr,
    eig,
    spectral,
    svd,
    norms,
    sylvester,
    lu,
)


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    # the VJPs: contract's matmul, elementwise's mul/add/..., reduce_sum, shape's moveaxis/tril/...
    registrar.requires("contract", "elementwise", "reduce", "shape")
    for module in MODULES:
        for spec in module.SPECS:
            registrar.add(spec)
