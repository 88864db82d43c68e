"""``solve_sylvester`` (x with a x + x b = q) and ``sqrtm`` (the principal square root),
batched over leading axes: SciPy's kernels, whose derivative rules are Sylvester solves.

The kernels are SciPy's Bartels-Stewart (two Schur decompositions and LAPACK's ``trsyl``,
called as ``scipy.linalg.solve_sylvester`` calls them, so values are its own, bitwise) and
``scipy.linalg.sqrtm`` (Higham's Schur method). NumPy has no Schur decomposition, so the
kernels take NumPy arrays only: another engine's array is converted where the engine allows
it, else refused by the engine (DaskEngine's EngineError; ``engine_neutral`` is an expected
failure in this family's ``tenferro-xfail.txt``).

Rules (the Sylvester operator L(x) = a x + x b and its adjoint L*(y) = aᴴ y + y bᴴ):
``solve_sylvester``: gq = L*⁻¹ g, ga = -gq xᴴ, gb = -xᴴ gq; dx = L⁻¹(dq - da x - x db).
``sqrtm``: x² = a, so x dx + dx x = da: dx = solve_sylvester(x, x, da), ga =
solve_sylvester(xᴴ, xᴴ, g). Both are written with ``solve_sylvester`` and ``matmul``, so
every order differentiates. A singular equation (a and -b share an eigenvalue; sqrtm of a
singular matrix) is a SingularMatrix naming the op and the batch index, in its text and in
its fields (``argument``, and ``batch_index``: the first matrix at fault, None unbatched).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tenferro.extend import (
    ArgumentError,
    DTypeError,
    ErrorInput,
    NotDifferentiable,
    OpSpec,
    ShapeMismatch,
    TenferroError,
    broadcastable,
    tangent_sum,
)
from tenferro.extend import batching as vmap_rules
from tenferro.extend import unbroadcast as _unbroadcast

from .batching import SingularMatrix, batch_where, batched_reference, check_matrix, explain_nonfinite, lazy, mH


def _refused(cls: type[TenferroError], op: str, bad: np.ndarray, batch: tuple[int, ...], what: str) -> TenferroError:
    """``cls`` saying ``what`` of a (at the first batch index ``bad`` marks), that index in
    its ``batch_index`` field (None for one matrix), so a caller reads it, not the text."""
    error = cls(f"{batch_where(op, 'a', bad, batch)} {what}", argument="a")
    error.batch_index = tuple(int(i) for i in np.argwhere(bad)[0]) if batch else None
    return error


# -- solve_sylvester -----------------------------------------------------------------------------
def _sylvester_shapes(a: Any, b: Any, q: Any) -> tuple[int, ...]:
    """The broadcast batch of a (..., M, M), b (..., N, N) and q (..., M, N)."""
    m, _ = check_matrix("solve_sylvester", "a", a, square=True)
    n, _ = check_matrix("solve_sylvester", "b", b, square=True)
    check_matrix("solve_sylvester", "q", q)
    shapes = [list(np.shape(x)) for x in (a, b, q)]
    if tuple(shapes[2][-2:]) != (m, n):
        raise ShapeMismatch(
            f"solve_sylvester: a has shape {shapes[0]}, b has shape {shapes[1]} and q has shape {shapes[2]}; "
            f"q must be (..., {m}, {n}) (a's rows, b's columns)"
        )
    batches = [tuple(s[:-2]) for s in shapes]
    if not broadcastable(batches):
        raise ShapeMismatch(
            f"solve_sylvester: a has shape {shapes[0]}, b has shape {shapes[1]} and q has shape {shapes[2]}; "
            f"their batch axes do not broadcast"
        )
    return np.broadcast_shapes(*batches)


def _sylvester_one(a: np.ndarray, b: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, int]:
    """scipy.linalg.solve_sylvester's own calls, keeping trsyl's ``info`` (1: a and -b
    have common or very close eigenvalues, and trsyl perturbed them: the equation is singular)."""
    import scipy.linalg
    from scipy.linalg import get_lapack_funcs

    if a.size == 0 or b.size == 0:
        return np.zeros(q.shape, q.dtype), 0
    r, u = scipy.linalg.schur(a, output="real")
    s, v = scipy.linalg.schur(b.conj().transpose(), output="real")
    f = np.dot(np.dot(u.conj().transpose(), q), v)
    (trsyl,) = get_lapack_funcs(("trsyl",), (r, s, f))
    y, scale, info = trsyl(r, s, f, tranb="C")
    return np.dot(np.dot(u, scale * y), v.conj().transpose()), info


def _solve_sylvester(a: Any, b: Any, q: Any) -> Any:
    batch = _sylvester_shapes(a, b, q)
    # one dtype for all three (a complex q beside a real a: both Schur forms complex, which
    # trsyl's complex routine needs: it reads them as triangular)
    dtype = np.result_type(a, b, q, np.float32)
    a, b, q = (np.asarray(x, dtype) for x in (a, b, q))
    parts = [np.broadcast_to(x, batch + x.shape[-2:]) for x in (a, b, q)]
    out = np.empty(batch + q.shape[-2:], dtype)
    singular = np.zeros(batch, bool)
    for index in np.ndindex(batch):
        out[index], info = _sylvester_one(*(p[index] for p in parts))
        singular[index] = info == 1
    if np.any(singular):
        what = "and -b have a common (or nearly common) eigenvalue: the equation a x + x b = q is singular"
        raise _refused(SingularMatrix, "solve_sylvester", singular, batch, what)
    return out


def _solve_sylvester_vjp(s: Any, g: Any, inputs: tuple[Any, Any, Any], out: Any) -> tuple[Any, Any, Any]:
    a, b, q = inputs
    gq = s.solve_sylvester(mH(s, a), mH(s, b), g)  # L*⁻¹ g
    ga = _unbroadcast(s, s.neg(s.matmul(gq, mH(s, out))), a) if s.needs_grad(a) else None
    gb = _unbroadcast(s, s.neg(s.matmul(mH(s, out), gq)), b) if s.needs_grad(b) else None
    return ga, gb, _unbroadcast(s, gq, q) if s.needs_grad(q) else None


def _solve_sylvester_jvp(s: Any, tangents: Any, inputs: tuple[Any, Any, Any], out: Any) -> Any:
    (da, db, dq), (a, b, _) = tangents, inputs
    terms = [t for t in (dq, None if da is None else s.neg(s.matmul(da, out))) if t is not None]
    if db is not None:
        terms.append(s.neg(s.matmul(out, db)))
    rhs = tangent_sum(s, terms, out)
    return None if rhs is None else s.solve_sylvester(a, b, rhs)


def _sylvester_reference(a: Any, b: Any, q: Any) -> np.ndarray:
    """The Kronecker form (I ⊗ a + bᵀ ⊗ I) vec(x) = vec(q), column-major vec: another method."""

    def one(a: np.ndarray, b: np.ndarray, q: np.ndarray) -> np.ndarray:
        m, n = q.shape
        kron = np.kron(np.eye(n), a) + np.kron(b.T, np.eye(m))
        return np.linalg.solve(kron, q.reshape(-1, order="F")).reshape((m, n), order="F")

    return batched_reference(one, a, b, q)


SOLVE_SYLVESTER = OpSpec(
    name="solve_sylvester",
    inputs=("a", "b", "q"),
    forward=_solve_sylvester,
    batch=vmap_rules.matrices,
    vjp=_solve_sylvester_vjp,
    jvp=_solve_sylvester_jvp,
    residuals=("a", "b", "out"),
    accepts="fc",
    explain=explain_nonfinite("solve_sylvester"),
    sample=lazy("sylvester"),
    complex_sample=lazy("sylvester", complex_=True),
    reference=_sylvester_reference,
    error_inputs=lambda: [
        ErrorInput((np.eye(2), np.eye(3), np.ones((2, 2))), {}, ShapeMismatch, "q must be (..., 2, 3)"),
        ErrorInput((np.zeros((2, 3)), np.eye(3), np.ones((2, 3))), {}, ShapeMismatch, "must be square"),
        ErrorInput((np.eye(2), -np.eye(2), np.ones((2, 2))), {}, SingularMatrix, "solve_sylvester: a and -b have"),
        ErrorInput(
            (np.stack([np.eye(2), np.eye(2)]), np.stack([np.eye(2), -np.eye(2)]), np.ones((2, 2))),
            {},
            SingularMatrix,
            "a at batch index 1 and -b",
        ),
        ErrorInput((np.eye(2, dtype=int), np.eye(2), np.ones((2, 2))), {}, DTypeError, "argument 'a' has dtype i64"),
    ],
    doc="x with a x + x b = q: a (..., M, M), b (..., N, N), q (..., M, N), batches broadcasting; SciPy's "
    "Bartels-Stewart (Schur forms and LAPACK's trsyl, scipy.linalg.solve_sylvester's values). VJP: gq = "
    "solve_sylvester(aᴴ, bᴴ, g), ga = -gq xᴴ, gb = -xᴴ gq. a and -b sharing an eigenvalue: SingularMatrix.",
)


# -- sqrtm -----------------------------------------------------------------------------------------
def _sqrtm(a: Any) -> Any:
    import scipy.linalg

    check_matrix("sqrtm", "a", a, square=True)
    a = np.asarray(a)
    nonfinite = explain_nonfinite("sqrtm")(a)  # scipy's Schur method would call it singular
    if nonfinite is not None:
        raise nonfinite
    if a.shape[-1] == 0:
        return np.zeros(a.shape, a.dtype)
    with warnings.catch_warnings():  # a singular a: scipy warns and may give inf; refused below
        warnings.simplefilter("ignore")
        x = scipy.linalg.sqrtm(a)
    batch = a.shape[:-2]
    if np.iscomplexobj(x) and not np.iscomplexobj(a):
        bad = np.any(x.imag != 0, axis=(-2, -1))
        if np.any(bad):
            what = "has a negative real eigenvalue, so its principal square root is complex; pass a complex matrix "
            raise _refused(DTypeError, "sqrtm", bad, batch, what + "(a.astype(complex)) for it")
        x = x.real
    bad = ~np.all(np.isfinite(x), axis=(-2, -1))
    if np.any(bad):
        what = "is a singular matrix with no square root (SciPy's Schur method meets a zero eigenvalue it cannot "
        raise _refused(SingularMatrix, "sqrtm", bad, batch, what + "take the root of)")
    return np.asarray(x, a.dtype)


def _sqrtm_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    """x dx + dx x = da, so ga = L*⁻¹ g with L(y) = x y + y x: solve_sylvester(xᴴ, xᴴ, g)."""
    h = mH(s, out)
    return _differentiated(lambda: s.solve_sylvester(h, h, g))


def _sqrtm_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any) -> Any:
    return _differentiated(lambda: s.solve_sylvester(out, out, tangents[0]))


def _differentiated(solve: Any) -> Any:
    """The Sylvester solve of a rule of sqrtm; a singular one (x has an eigenvalue 0, or two
    of opposite sign on the imaginary axis) as sqrtm's NotDifferentiable."""
    try:
        return solve()
    except SingularMatrix as exc:
        index = exc.batch_index
        at = "" if index is None else f" at batch index {index if len(index) > 1 else index[0]}"
        raise NotDifferentiable(
            f"sqrtm: a's root{at} has eigenvalues that sum to zero (a is singular): the square root has no "
            f"derivative there",
            argument="a",
        ) from None


def _sqrtm_reference(a: Any) -> np.ndarray:
    """V diag(√λ) V⁻¹ from the eigendecomposition (another method; the samples are diagonalisable)."""

    def one(m: np.ndarray) -> np.ndarray:
        w, v = np.linalg.eig(m)
        x = (v * np.sqrt(w.astype(complex))) @ np.linalg.inv(v)
        return x if np.iscomplexobj(m) else x.real

    return batched_reference(one, a)


SQRTM = OpSpec(
    name="sqrtm",
    inputs=("a",),
    forward=_sqrtm,
    batch=vmap_rules.leading,
    vjps=(_sqrtm_rule,),
    jvp=_sqrtm_jvp,
    residuals=("out",),
    accepts="fc",
    explain=explain_nonfinite("sqrtm"),
    sample=lazy("sqrtm"),
    complex_sample=lazy("sqrtm", complex_=True),
    reference=_sqrtm_reference,
    error_inputs=lambda: [
        ErrorInput((np.diag([-1.0, 4.0]),), {}, DTypeError, "sqrtm: a has a negative real eigenvalue"),
        ErrorInput((np.array([[0.0, 1.0], [0.0, 0.0]]),), {}, SingularMatrix, "sqrtm: a is a singular matrix"),
        ErrorInput((np.zeros((2, 3)),), {}, ShapeMismatch, "must be square"),
        ErrorInput((np.array([[1.0, np.nan], [0.0, 1.0]]),), {}, ArgumentError, "sqrtm: a has nan or inf entries"),
    ],
    doc="The principal square root x of each matrix of a (..., M, M), x @ x = a, its eigenvalues in the right "
    "half-plane: scipy.linalg.sqrtm (Higham's Schur method). A real a with a negative real eigenvalue has a "
    "complex root: DTypeError (pass a complex a). VJP: solve_sylvester(xᴴ, xᴴ, g); a singular a "
    "(no root, or a root the Sylvester equation cannot differentiate) is a SingularMatrix.",
)

SPECS = [SOLVE_SYLVESTER, SQRTM]
