"""The multivariate distributions: ``multivariate_normal`` (logpdf and pdf, through a
Cholesky factor, or the eigendecomposition with ``allow_singular=True``) and ``dirichlet``
(logpdf and pdf), with scipy's argument conventions and errors, differentiable in every
argument through tenferro's linalg ops and tenferro.scipy.special.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ... import numpy as tnp
from ...core.eager import EagerTensor, held
from ...core.errors import ArgumentError, ShapeMismatch, TenferroError
from ...core.tensor import read
from ...numpy._dispatch import renamed
from .. import special as tsp
from ._family import PREFIX, arguments, bind

F = TypeVar("F", bound=Callable[..., Any])

_LOG_2PI = math.log(2 * math.pi)


def _signed(name: str) -> Callable[[F], F]:
    """The public function ``name`` of this module, its arguments bound to its signature
    before it runs (a missing or unknown one an ArgumentError, as the univariate ones')."""

    def wrap(function: F) -> F:
        full = inspect.signature(function)  # shown without its annotations, as scipy's are
        signature = full.replace(parameters=[p.replace(annotation=p.empty) for p in full.parameters.values()])
        signature = signature.replace(return_annotation=inspect.Signature.empty)

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            bound = bind(PREFIX + name, signature, args, kwargs)
            return function(*bound.args, **bound.kwargs)

        return checked  # type: ignore[return-value]

    return wrap


def _flag(function: str, value: Any) -> bool:
    """allow_singular as a bool: a Python or NumPy bool or integer (0-d), else an
    ArgumentError (scipy takes any object's truth, an array's raising NumPy's ValueError)."""
    if isinstance(value, (bool, int, np.bool_, np.integer)) or (
        type(value) is np.ndarray and value.ndim == 0 and value.dtype.kind in "biu"
    ):
        return bool(value)
    raise ArgumentError(
        f"{function}: argument 'allow_singular' must be a bool, got {type(value).__name__}"
        + (f" of shape {list(value.shape)}" if hasattr(value, "shape") else ""),
        argument="allow_singular",
    )


def _squeezed(out: EagerTensor) -> EagerTensor:
    """scipy's ``_squeeze_output``: size-1 axes dropped."""
    return tnp.squeeze(out) if any(n == 1 for n in out.shape) else out


def _mvn_parameters(function: str, x: Any, mean: Any, cov: Any) -> tuple[EagerTensor, EagerTensor, EagerTensor, int]:
    """x as (..., d), mean as (d,), cov as (d, d), as scipy's ``_process_parameters`` and
    ``_process_quantiles`` make them (mean None: zeros; a scalar or 1-D cov: a diagonal)."""
    names, values = ["x", "cov"], [x, cov]
    if mean is not None:
        names.insert(1, "mean")
        values.insert(1, mean)
    lifted = _lifted(function, names, values)
    x, cov = lifted[0], lifted[-1]
    mean = lifted[1] if mean is not None else None
    if mean is not None and mean.ndim > 1:
        raise ShapeMismatch(f"{function}: argument 'mean' must be 1-D, got shape {list(mean.shape)}", argument="mean")
    dim = mean.shape[0] if mean is not None and mean.ndim == 1 else (cov.shape[0] if cov.ndim >= 1 else 1)
    if mean is None or mean.ndim == 0:
        mean = tnp.broadcast_to(tnp.zeros((), dtype=x.dtype) if mean is None else mean, (dim,))
    if cov.ndim == 0:
        cov = cov * tnp.eye(dim, dtype=x.dtype)
    elif cov.ndim == 1:
        cov = tnp.diag(cov)
    if cov.ndim != 2 or cov.shape != (dim, dim):
        raise ShapeMismatch(
            f"{function}: argument 'cov' must be a ({dim}, {dim}) matrix (mean has {dim} entries), got shape "
            f"{list(cov.shape)}",
            argument="cov",
        )
    _check_symmetric(function, cov)
    if x.ndim == 0:
        x = tnp.reshape(x, (1,))
    if x.ndim == 1 and dim == 1:
        x = x[:, None]
    if x.shape[-1] != dim:
        raise ShapeMismatch(
            f"{function}: argument 'x' must have {dim} entries in its last axis (the dimension of mean and cov), "
            f"got shape {list(x.shape)}",
            argument="x",
        )
    return x, mean, cov, dim


def _check_symmetric(function: str, cov: EagerTensor) -> None:
    """An ArgumentError for a cov that is not symmetric beyond rounding (1e3·eps·max|cov|):
    scipy reads its lower triangle, tenferro's cholesky and eigh (cov + covᵀ)/2 (JAX's
    convention, whose symmetric gradient the density keeps), so their values would differ."""
    values = read(held(cov))
    asymmetry = np.max(np.abs(values - values.T), initial=0.0)
    if asymmetry > 1e3 * np.finfo(values.dtype).eps * np.max(np.abs(values), initial=0.0):
        raise ArgumentError(
            f"{function}: argument 'cov' is not symmetric (max |cov - covᵀ| = {asymmetry:.3g}); scipy would read "
            f"its lower triangle only: pass np.tril(cov) + np.tril(cov, -1).T for scipy's value, or (cov + cov.T)/2",
            argument="cov",
        )


def _lifted(function: str, names: list[str], values: list[Any]) -> list[EagerTensor]:
    """The arguments as EagerTensors of one float dtype (broadcasting is not theirs to
    check: each has its own shape)."""
    out = []
    for name, value in zip(names, values):
        out.append(arguments(function, (name,), (value,))[0])
    floats = np.result_type(*(t.dtype for t in out))
    return [t if t.dtype == floats else tnp.astype(t, floats) for t in out]


def _mvn_logpdf(function: str, x: Any, mean: Any, cov: Any, allow_singular: bool) -> EagerTensor:
    x, mean, cov, dim = _mvn_parameters(function, x, mean, cov)
    dev = x - mean
    lead = dev.shape[:-1]
    flat = tnp.reshape(dev, (-1, dim))
    if not allow_singular:
        try:
            factor = tnp.linalg.cholesky(cov)
        except TenferroError as exc:
            raise renamed(exc, function, {"x": "cov", "a": "cov"}) from None
        s = factor.runtime.current_session()
        whitened = s.triangular_solve(factor, tnp.matrix_transpose(flat), lower=True)  # (d, n)
        maha = tnp.sum(whitened * whitened, axis=0)
        log_det = 2.0 * tnp.sum(tnp.log(tnp.diagonal(factor)))
        out = -0.5 * (dim * _LOG_2PI + log_det + maha)
    else:
        out = _singular_logpdf(flat, cov)
    return _squeezed(tnp.reshape(out, lead))


def _singular_logpdf(flat: EagerTensor, cov: EagerTensor) -> EagerTensor:
    """scipy's pseudo-inverse form: the eigenvalues above 1e6·eps·max|λ| (scipy's cutoff)
    count, log of their product is the pseudo-determinant, and a point off the range of
    cov (a residual in the null space above that cutoff) has logpdf -inf."""
    values, vectors = tnp.linalg.eigh(cov)
    spectrum = read(held(values))
    eps = 1e6 * np.finfo(spectrum.dtype).eps * np.max(np.abs(spectrum), initial=0.0)
    keep = spectrum > eps
    rank = int(np.sum(keep))
    kept = tnp.where(keep, values, 1.0)
    whitened = (flat @ vectors) * tnp.where(keep, 1.0 / tnp.sqrt(kept), 0.0)
    maha = tnp.sum(whitened * whitened, axis=-1)
    out = -0.5 * (rank * _LOG_2PI + tnp.sum(tnp.log(kept)) + maha)
    if rank == spectrum.shape[0]:
        return out
    residual = tnp.linalg.vector_norm((flat @ vectors) * tnp.where(keep, 0.0, 1.0), axis=-1)
    return tnp.where(residual < eps, out, -math.inf)


@_signed("multivariate_normal.logpdf")
def mvn_logpdf(x: Any, mean: Any = None, cov: Any = 1, allow_singular: bool = False) -> EagerTensor:
    """The log density of the multivariate normal N(mean, cov) at x (..., d), as
    scipy.stats.multivariate_normal.logpdf: through the Cholesky factor of cov (a
    NotPositiveDefinite error if it has none), or with ``allow_singular=True`` its
    eigendecomposition (pseudo-determinant, -inf off the support); differentiable in x,
    mean and cov."""
    function = PREFIX + "multivariate_normal.logpdf"
    return _mvn_logpdf(function, x, mean, cov, _flag(function, allow_singular))


@_signed("multivariate_normal.pdf")
def mvn_pdf(x: Any, mean: Any = None, cov: Any = 1, allow_singular: bool = False) -> EagerTensor:
    """exp(multivariate_normal.logpdf), as scipy.stats.multivariate_normal.pdf."""
    function = PREFIX + "multivariate_normal.pdf"
    return tnp.exp(_mvn_logpdf(function, x, mean, cov, _flag(function, allow_singular)))


def _dirichlet_logpdf(function: str, x: Any, alpha: Any) -> EagerTensor:
    """scipy's checks (``_dirichlet_check_parameters`` and ``_check_input``, as
    ArgumentErrors naming the argument), then -ln B(alpha) + Σ xlogy(alpha - 1, x) over
    the components, the first axis of x (scipy's convention)."""
    x, alpha = _lifted(function, ["x", "alpha"], [x, alpha])
    if alpha.ndim != 1:
        raise ShapeMismatch(
            f"{function}: argument 'alpha' must be one dimensional, got shape {list(alpha.shape)}", argument="alpha"
        )
    values = read(held(alpha))
    if np.min(values) <= 0:
        raise ArgumentError(f"{function}: every entry of 'alpha' must be > 0 (scipy's check)", argument="alpha")
    if x.ndim == 0 or x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ShapeMismatch(
            f"{function}: argument 'x' must have {alpha.shape[0]} or {alpha.shape[0] - 1} entries along its first "
            f"axis (the components, as alpha's), got shape {list(x.shape)}",
            argument="x",
        )
    if x.shape[0] != alpha.shape[0]:  # the last component is 1 - the sum of the others
        x = tnp.concatenate([x, (1.0 - tnp.sum(x, axis=0))[None]], axis=0)
    points = read(held(x))
    if np.min(points) < 0 or np.max(points) > 1:
        raise ArgumentError(f"{function}: every entry of 'x' must lie in [0, 1] (scipy's check)", argument="x")
    zeros = (points == 0) & (values < 1).reshape((-1,) + (1,) * (points.ndim - 1))
    if np.any(zeros):
        raise ArgumentError(f"{function}: an entry of 'x' is 0 where its alpha is < 1 (scipy's check)", argument="x")
    if np.any(np.abs(np.sum(points, axis=0) - 1.0) > 10e-10):
        raise ArgumentError(
            f"{function}: argument 'x' must lie on the simplex (its components summing to 1), but they sum to "
            f"{np.sum(points, axis=0)}",
            argument="x",
        )
    log_b = tnp.sum(tsp.gammaln(alpha)) - tsp.gammaln(tnp.sum(alpha))
    shaped = tnp.reshape(alpha, (-1,) + (1,) * (x.ndim - 1))
    return _squeezed(tnp.reshape(-log_b + tnp.sum(tsp.xlogy(shaped - 1, x), axis=0), x.shape[1:]))


@_signed("dirichlet.logpdf")
def dirichlet_logpdf(x: Any, alpha: Any) -> EagerTensor:
    """The log density of the Dirichlet distribution at x, its components along the first
    axis (K or K - 1 of them), as scipy.stats.dirichlet.logpdf; differentiable in x and
    alpha (alpha - 1)/x and ψ(Σα) - ψ(α) + log x."""
    return _dirichlet_logpdf(PREFIX + "dirichlet.logpdf", x, alpha)


@_signed("dirichlet.pdf")
def dirichlet_pdf(x: Any, alpha: Any) -> EagerTensor:
    """exp(dirichlet.logpdf), as scipy.stats.dirichlet.pdf."""
    return tnp.exp(_dirichlet_logpdf(PREFIX + "dirichlet.pdf", x, alpha))
