"""Forward mode of the linalg family: every op's ``jvp`` rule, through ``tf.jvp``, against
central differences (and PyTorch's forward mode, and JAX's where installed), at fixed
well-conditioned points; the refusals at degenerate points; and that no linalg or fft op
falls back to the transposed VJP. The rule-against-VJP check is the conformance suite's
``jvp`` (tests/test_conformance.py -k linalg::)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import needs_torch, torch

import tenferro as tf
import tenferro.numpy as tnp
from tenferro.core.errors import NotDifferentiable

RNG = np.random.default_rng(1313)


def _session():
    return tf.default_runtime().current_session()


def _matrix(m, n, complex_=False, batch=()):
    x = RNG.standard_normal((*batch, m, n))
    if complex_:
        x = x + 1j * RNG.standard_normal((*batch, m, n))
    return x


def _spd(n, complex_=False):
    b = _matrix(n, n, complex_)
    return b @ np.conj(b.T) + n * np.eye(n)


def _separated_symmetric(n, complex_=False):
    """A Hermitian matrix with eigenvalues 1, 2, ..., n (well separated)."""
    q, _ = np.linalg.qr(_matrix(n, n, complex_))
    return (q * np.arange(1.0, n + 1)) @ np.conj(q.T)


def _separated_svd(m, n, complex_=False):
    """An m×n matrix with singular values 1, 2, ..., min(m, n)."""
    k = min(m, n)
    u, _ = np.linalg.qr(_matrix(m, k, complex_))
    v, _ = np.linalg.qr(_matrix(n, k, complex_))
    return (u * np.arange(1.0, k + 1)) @ np.conj(v.T)


def _general_eig(n, complex_=False):
    """A non-normal matrix with eigenvalues 1, ..., n (real, well separated)."""
    p = _matrix(n, n, complex_) + n * np.eye(n)
    return p @ np.diag(np.arange(1.0, n + 1)) @ np.linalg.inv(p)


def _call(op, **params):
    """f(*tensors) = the op through the session, its results as a tuple."""

    def f(*args):
        out = getattr(_session(), op)(*args, **params)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    return f


def _constant(x):
    return tf.default_runtime().constant_from(np.asarray(x))


def _central(f, primals, tangents, h=1e-6):
    """(f(x + h·v) - f(x - h·v)) / 2h per result: J·v, for real and complex x (a real-linear
    directional derivative, so non-holomorphic maps are covered too)."""
    plus = f(*(_constant(x + h * v) for x, v in zip(primals, tangents)))
    minus = f(*(_constant(x - h * v) for x, v in zip(primals, tangents)))
    return [(np.asarray(p) - np.asarray(m)) / (2 * h) for p, m in zip(plus, minus)]


def _tangent_like(x):
    v = RNG.standard_normal(np.shape(x))
    if np.iscomplexobj(x):
        v = v + 1j * RNG.standard_normal(np.shape(x))
    return v


# (op, params, primals): one well-conditioned point per case; complex ones too
CASES = [
    ("solve", {}, lambda c: (_matrix(4, 4, c) + 4 * np.eye(4), _matrix(4, 2, c))),
    ("solve", {}, lambda c: (_matrix(3, 3, c, (2,)) + 3 * np.eye(3), _matrix(3, 1, c)[:, 0])),  # vector b, batched a
    ("solve", {}, lambda c: (_matrix(3, 3, c) + 3 * np.eye(3), _matrix(3, 2, c, (2,)))),  # batched b
    ("solve_transposed", {}, lambda c: (_matrix(4, 4, c) + 4 * np.eye(4), _matrix(4, 2, c))),
    ("triangular_solve", {}, lambda c: (_matrix(4, 4, c) + 4 * np.eye(4), _matrix(4, 2, c))),
    (
        "triangular_solve",
        {"lower": False, "trans": 1, "unit_diagonal": True},
        lambda c: (_matrix(4, 4, c), _matrix(4, 1, c)[:, 0]),
    ),
    ("triangular_solve", {"trans": "C"}, lambda c: (_matrix(3, 3, c, (2,)) + 3 * np.eye(3), _matrix(3, 2, c))),
    ("inv", {}, lambda c: (_matrix(4, 4, c, (2,)) + 4 * np.eye(4),)),
    ("det", {}, lambda c: (_matrix(4, 4, c, (2,)),)),
    ("slogdet", {}, lambda c: (_matrix(4, 4, c),)),
    ("matrix_power", {"n": 5}, lambda c: (_matrix(3, 3, c) / 2,)),
    ("matrix_power", {"n": -2}, lambda c: (_matrix(3, 3, c) + 3 * np.eye(3),)),
    ("lstsq", {}, lambda c: (_matrix(5, 3, c), _matrix(5, 2, c))),
    ("lstsq", {}, lambda c: (_matrix(3, 5, c), _matrix(3, 1, c)[:, 0])),  # wide: the least-norm solution
    ("pinv", {}, lambda c: (_matrix(5, 3, c),)),
    ("pinv", {}, lambda c: (_matrix(2, 4, c, (2,)),)),
    ("cholesky", {}, lambda c: (_spd(4, c),)),
    ("cholesky", {"upper": True}, lambda c: (_spd(4, c) + 0.3 * _matrix(4, 4, c),)),  # reads the Hermitian part
    ("qr", {}, lambda c: (_matrix(5, 3, c),)),
    ("qr", {}, lambda c: (_matrix(4, 4, c),)),
    ("qr", {}, lambda c: (_matrix(3, 5, c),)),  # wide: R = [U | V]
    ("eigh", {}, lambda c: (_separated_symmetric(4, c) + np.triu(_matrix(4, 4, c), 1),)),  # the upper part unread
    ("eigh", {"UPLO": "U"}, lambda c: (_separated_symmetric(4, c),)),
    ("eigvalsh", {}, lambda c: (_separated_symmetric(4, c),)),
    ("eig", {}, lambda c: (_general_eig(4, c),)),
    ("eigvals", {}, lambda c: (_general_eig(4, c),)),
    ("svd", {}, lambda c: (_separated_svd(5, 3, c),)),
    ("svd", {}, lambda c: (_separated_svd(3, 5, c),)),
    ("svd", {"full_matrices": True}, lambda c: (_separated_svd(4, 4, c),)),
    ("svdvals", {}, lambda c: (_separated_svd(4, 3, c),)),
    ("matrix_norm", {}, lambda c: (_matrix(3, 4, c),)),
    ("matrix_norm", {"ord": "nuc", "keepdims": True}, lambda c: (_separated_svd(3, 4, c),)),
    ("matrix_norm", {"ord": 1}, lambda c: (_matrix(3, 4, c),)),
    ("vector_norm", {"axis": 1, "ord": 3}, lambda c: (_matrix(3, 4, c),)),
    ("vector_norm", {"ord": np.inf}, lambda c: (_matrix(3, 4, c),)),
    ("decomp_triu_inv", {}, lambda c: (_matrix(4, 4, c) + 4 * np.eye(4),)),
]


def _case_id(case):
    op, params, _ = case
    return op + "".join(f"-{k}={v}" for k, v in params.items())


@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_jvp_matches_central_differences(case, complex_):
    op, params, make = case
    primals = make(complex_)
    tangents = tuple(_tangent_like(x) for x in primals)
    f = _call(op, **params)
    out, got = tf.jvp(f, primals, tangents)
    expected = _central(f, primals, tangents)
    for o, t, e in zip(out, got, expected):
        assert np.shape(t) == np.shape(o) and np.asarray(t).dtype == np.asarray(o).dtype
        np.testing.assert_allclose(np.asarray(t), e, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(e).max()))


@pytest.mark.parametrize("which", [0, 1], ids=["a", "b"])
def test_solve_jvp_along_one_operand(which):
    """A zero tangent on one operand (None inside the rule) gives that operand's part alone."""
    a, b = _matrix(4, 4) + 4 * np.eye(4), _matrix(4, 2)
    v = [np.zeros_like(a), np.zeros_like(b)]
    v[which] = _tangent_like((a, b)[which])
    f = _call("solve")
    other = _constant((a, b)[1 - which])
    _, (got,) = tf.jvp(lambda x: f(*((x, other) if which == 0 else (other, x))), ((a, b)[which],), (v[which],))
    (expected,) = _central(f, (a, b), v)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6, atol=1e-8)


def test_real_matrix_complex_rhs_solve_has_a_complex_tangent():
    a, b = _matrix(3, 3) + 3 * np.eye(3), _matrix(3, 2, True)
    _, (got,) = tf.jvp(_call("solve"), (a, b), (_tangent_like(a), np.zeros_like(b)))
    assert np.asarray(got).dtype == np.complex128


def test_jacfwd_of_a_linalg_composite_equals_jacrev():
    """A composite through solve, inv, cholesky and eigh: forward mode (the rules) and reverse
    mode (the VJPs) give one Jacobian."""
    a = _spd(4)

    def f(x):
        s = _session()
        w, v = s.eigh(x)
        return s.add(s.add(s.solve(x, s.inv(x)), s.cholesky(x)), s.mul(v, s.expand_dims(w, -2)))

    np.testing.assert_allclose(np.asarray(tf.jacfwd(f)(a)), np.asarray(tf.jacrev(f)(a)), rtol=1e-9, atol=1e-12)


def test_second_order_forward_over_reverse_through_a_rule():
    """The rules compute with session ops, so a Hessian (forward over reverse) works: of
    log det at an spd a, H[v] = -a⁻¹ v a⁻¹ (ᵀ) against differences of the gradient."""
    a, v = _spd(3), _matrix(3, 3)

    def logdet(x):
        return _session().slogdet(x)[1]

    _, got = tf.jvp(tf.grad(logdet), (a,), (v,))
    expected = -np.linalg.inv(a) @ v.T @ np.linalg.inv(a)  # d(a⁻ᵀ) = -a⁻ᵀ vᵀ a⁻ᵀ, a symmetric
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-9, atol=1e-12)


def test_forward_over_forward_hessian_equals_reverse_over_reverse():
    """The rules compute with session ops, so they differentiate again: the Hessian of a sum
    of scalars through most of the family, by jacfwd(jacfwd) and by jacrev(jacrev)."""
    a = _spd(3) + 0.1 * _matrix(3, 3)

    def f(x):
        s = _session()
        u, sv, _ = s.svd(x)
        _, r = s.qr(x)
        w, v = s.eigh(x)
        ew, _ = s.eig(x)
        parts = [
            s.cholesky(x),
            s.mul(u, u),
            sv,
            s.mul(r, r),
            s.mul(v, v),
            w,
            s.real(ew),
            s.slogdet(x)[1],
            s.det(x),
            s.pinv(x),
            s.lstsq(x, s.moveaxis(x, -1, -2)),
            s.solve(x, s.inv(x)),
            s.triangular_solve(x, s.matrix_power(x, 3), lower=False),
            s.matrix_norm(x, "nuc"),
            s.vector_norm(x, ord=3),
        ]
        total = s.reduce_sum(parts[0])
        for part in parts[1:]:
            total = s.add(total, s.reduce_sum(part))
        return total

    forward = np.asarray(tf.jacfwd(tf.jacfwd(f))(a))
    np.testing.assert_allclose(forward, np.asarray(tf.jacrev(tf.jacrev(f))(a)), rtol=1e-8, atol=1e-10)


# -- refusals at degenerate points: the VJP's ---------------------------------------------------
@pytest.mark.parametrize(
    ("op", "params", "a", "message"),
    [
        ("eigh", {}, np.diag([1.0, 1.0, 2.0]), "eigh: eigenvalues 0 and 1"),
        ("eig", {}, np.diag([1.0, 1.0, 2.0]), "eig: eigenvalues 0 and 1"),
        ("svd", {}, np.diag([2.0, 2.0, 1.0]), "svd: singular values 0 and 1"),
        ("svd", {"full_matrices": True}, _separated_svd(3, 2), "full_matrices=True"),
        ("svd", {}, np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), "(nearly) zero singular value"),
        ("qr", {}, np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), "rank deficient"),
    ],
)
def test_jvp_refuses_where_the_vjp_does(op, params, a, message):
    with pytest.raises(NotDifferentiable, match=message.replace("(", r"\(").replace(")", r"\)")):
        tf.jvp(_call(op, **params), (a,), (np.ones_like(a),))


# -- degenerate spectra whose vectors are not read: forward mode answers as reverse mode does --------
def _values_only(op):
    if op == "eigh":
        return lambda x: tnp.sum(tnp.linalg.eigh(x).eigenvalues)
    if op == "svd":
        return lambda x: tnp.sum(tnp.linalg.svd(x, full_matrices=False).S)
    return lambda x: tnp.sum(tnp.real(tnp.linalg.eig(x).eigenvalues))


DEGENERATE = [
    ("eigh", np.eye(3)),
    ("svd", np.eye(3)),
    ("eig", np.eye(3)),
    ("svd", np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])),  # rank 1, non-square: a zero singular value
    ("svd", np.diag([2.0, 2.0, 1.0])[:, :2]),
]


@pytest.mark.parametrize(("op", "a"), DEGENERATE, ids=["eigh-I", "svd-I", "eig-I", "svd-rank1", "svd-tall-repeated"])
def test_forward_mode_differentiates_the_values_of_a_degenerate_spectrum_when_the_vectors_are_unread(op, a):
    """tf.jvp, tf.jacfwd and tf.linearize of a function of the eigenvalues (singular values)
    alone agree with tf.grad at a repeated (or zero) value: forward mode skips the vectors'
    tangent nobody reads, where it refused (NotDifferentiable) whatever was read."""
    f = _values_only(op)
    e = np.arange(a.size, dtype=float).reshape(a.shape) / 4 - 1
    gradient = np.asarray(tf.grad(f)(a))
    _, tangent = tf.jvp(f, (a,), (e,))
    assert float(np.asarray(tangent)) == pytest.approx(np.sum(gradient * e), abs=1e-12)
    np.testing.assert_allclose(np.asarray(tf.jacfwd(f)(a)), gradient, atol=1e-12)
    if op != "svd" or a.shape == (3, 3):  # at I: the trace (eigh, eig), the nuclear norm's tr(E) (svd)
        assert float(np.asarray(tangent)) == pytest.approx(np.trace(e), abs=1e-12)


def test_forward_mode_still_refuses_where_the_vectors_tangent_is_read():
    """A vector that reaches the output needs the 1/(w[j] - w[i]) the spectrum makes infinite."""
    with pytest.raises(NotDifferentiable, match=r"eigh: eigenvalues 0 and 1 are \(nearly\) equal"):
        tf.jvp(lambda x: tnp.sum(tnp.linalg.eigh(x).eigenvectors[:, 0]), (np.eye(3),), (np.ones((3, 3)),))


@pytest.mark.parametrize("op", ["eigh", "eigvalsh"])
def test_second_order_of_the_eigenvalue_sum_at_a_repeated_eigenvalue_is_zero_in_both_modes(op):
    """The gradient V diag(g) Vᴴ is the op eigh_weighted, whose derivative (divided
    differences) is 0 inside a cluster of equal weights: the Hessian of the trace is 0 at
    a = I, forward over reverse and reverse over reverse (both were NotDifferentiable)."""
    f = _values_only("eigh") if op == "eigh" else (lambda x: tnp.sum(tnp.linalg.eigvalsh(x)))
    e = np.arange(9.0).reshape(3, 3)
    assert np.all(np.asarray(tf.hvp(f, (np.eye(3),), (e,))) == 0)
    assert np.all(np.asarray(tf.hessian(f)(np.eye(3))) == 0)
    assert np.all(np.asarray(tf.jacobian(tf.grad(f))(np.eye(3))) == 0)


def test_hessian_of_a_separated_eigenvalue_beside_a_repeated_pair_matches_finite_differences():
    """λ_max of diag(1, 1, 3) is smooth; its gradient's derivative needs the vectors of the
    repeated pair only through equal weights (0 and 0): defined, and checked."""
    a = np.diag([1.0, 1.0, 3.0])
    e = np.array([[0.5, 1.0, 2.0], [1.0, -1.0, 0.3], [2.0, 0.3, 0.2]])
    top = lambda x: tnp.linalg.eigvalsh(x)[2]  # noqa: E731
    gradient = lambda x: np.asarray(tf.grad(top)(x))  # noqa: E731
    fd = (gradient(a + 1e-5 * e) - gradient(a - 1e-5 * e)) / 2e-5
    np.testing.assert_allclose(np.asarray(tf.hvp(top, (a,), (e,))), fd, atol=1e-8)
    reverse = np.asarray(tf.jacobian(tf.grad(top))(a)).reshape(9, 9) @ e.ravel()
    np.testing.assert_allclose(reverse, fd.ravel(), atol=1e-8)


@pytest.mark.parametrize(
    ("f", "message"),
    [
        (lambda x: tnp.sum(tnp.linalg.eigvalsh(x) ** 2), "no derivative in the weights g"),
        (lambda x: tnp.linalg.eigvalsh(x)[0], "the weights on them differ"),
    ],
    ids=["sum-of-squares", "smallest"],
)
def test_second_order_of_other_spectral_functions_at_a_repeated_eigenvalue_is_refused_by_name(f, message):
    """Σ w² needs its weights' divided differences there, which the graph does not hold; the
    smallest of a repeated pair has a kink: NotDifferentiable in both modes, never a number."""
    a = np.diag([1.0, 1.0, 3.0])
    for call in (lambda: tf.hvp(f, (a,), (np.ones((3, 3)),)), lambda: tf.jacobian(tf.grad(f))(a)):
        with pytest.raises(NotDifferentiable, match=f"eigh: eigenvalues 0 and 1 are .*{message}"):
            call()


def _orthonormal(p, k, complex_, rng):
    x = rng.standard_normal((p, p)) + (1j * rng.standard_normal((p, p)) if complex_ else 0)
    return np.linalg.qr(x)[0][:, :k]


def test_nuclear_norm_hessian_at_the_identity_is_the_skew_part():
    """‖A‖_* = Σ s: its Hessian at I along E is (E - Eᵀ)/2 (the polar factor's derivative),
    through svd_weighted's divided differences (D⁺ = (g_i + g_j)/(s_i + s_j) = 1); it was
    NotDifferentiable (1/(s_j² - s_i²) of the vectors)."""
    e = np.arange(9.0).reshape(3, 3)
    np.testing.assert_allclose(np.asarray(tf.hvp(_values_only("svd"), (np.eye(3),), (e,))), (e - e.T) / 2, atol=1e-14)
    forward = np.asarray(tf.hessian(_values_only("svd"))(np.eye(3))).reshape(9, 9)
    reverse = np.asarray(tf.jacobian(tf.grad(_values_only("svd")))(np.eye(3))).reshape(9, 9)
    np.testing.assert_allclose(forward @ e.ravel(), ((e - e.T) / 2).ravel(), atol=1e-14)
    np.testing.assert_allclose(reverse, forward, atol=1e-14)


@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize(
    ("shape", "values"), [((3, 3), [2.0, 2.0, 1.0]), ((4, 2), [1.5, 1.5]), ((2, 4), [1.0, 1.0]), ((4, 3), [3, 1, 1])]
)
def test_nuclear_norm_hessian_at_repeated_singular_values_matches_finite_differences(shape, values, complex_):
    """Square, tall and wide, real and complex: the non-square terms (I - UUᴴ)·, ·(I - VVᴴ)
    and the complex diagonal i·Im(diag P)·g/s of svd_weighted's rule, against central
    differences of the gradient."""
    rng = np.random.default_rng(3)
    m, n = shape
    k = min(shape)
    a = (_orthonormal(m, k, complex_, rng) * np.array(values, float)) @ np.conj(_orthonormal(n, k, complex_, rng)).T
    e = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if complex_ else 0)
    f = lambda x: tnp.sum(tnp.linalg.svdvals(x))  # noqa: E731
    gradient = lambda x: np.asarray(tf.grad(f)(x))  # noqa: E731
    fd = (gradient(a + 1e-5 * e) - gradient(a - 1e-5 * e)) / 2e-5
    np.testing.assert_allclose(np.asarray(tf.hvp(f, (a,), (e,))), fd, atol=1e-8)


def test_second_order_of_the_squared_singular_values_at_a_repeated_one_is_refused_by_name():
    with pytest.raises(NotDifferentiable, match="svd: singular values 0 and 1 .*no derivative in the weights g"):
        tf.hvp(lambda x: tnp.sum(tnp.linalg.svdvals(x) ** 2), (np.eye(3),), (np.ones((3, 3)),))


def test_eigvalsh_jvp_is_defined_at_repeated_eigenvalues():
    """Eigenvalues alone: dw = diag(Vᴴ dA V), for a dA that keeps the eigenspace, exact."""
    a = np.diag([1.0, 1.0, 2.0])
    v = np.diag([0.5, 0.5, -1.0])
    _, (got,) = tf.jvp(_call("eigvalsh"), (a,), (v,))
    np.testing.assert_allclose(np.asarray(got), [0.5, 0.5, -1.0], atol=1e-12)


def test_every_linalg_and_fft_op_has_a_forward_rule():
    """No op of these families falls back to the transposed VJP (several times slower)."""
    missing = [
        (spec.plugin, spec.name)
        for spec in tf.default_runtime().registry
        if spec.has_rules and spec.jvp is None and spec.plugin in ("linalg", "fft")
    ]
    assert missing == []


# -- against other libraries' forward mode ------------------------------------------------------
TORCH_CASES = [
    ("solve", lambda t, a, b: t.linalg.solve(a, b), lambda c: (_matrix(4, 4, c) + 4 * np.eye(4), _matrix(4, 2, c))),
    ("inv", lambda t, a: t.linalg.inv(a), lambda c: (_matrix(4, 4, c) + 4 * np.eye(4),)),
    ("det", lambda t, a: t.linalg.det(a), lambda c: (_matrix(4, 4, c),)),
    ("cholesky", lambda t, a: t.linalg.cholesky(a), lambda c: (_spd(4, c),)),
    ("eigvalsh", lambda t, a: t.linalg.eigvalsh(a), lambda c: (_separated_symmetric(4, c),)),
    ("svdvals", lambda t, a: t.linalg.svdvals(a), lambda c: (_separated_svd(5, 3, c),)),
    ("pinv", lambda t, a: t.linalg.pinv(a), lambda c: (_matrix(5, 3, c),)),
    ("qr", lambda t, a: t.linalg.qr(a), lambda c: (_matrix(5, 3, c),)),  # same gauge for real a: diag R > 0
]


# PyTorch's complex QR does not make R's diagonal real (another gauge): qr is compared real only
TORCH_PARAMS = [(case, c) for case in TORCH_CASES for c in (False, True) if not (case[0] == "qr" and c)]


@needs_torch
@pytest.mark.parametrize(
    ("case", "complex_"), TORCH_PARAMS, ids=[f"{c[0]}-{'complex' if z else 'real'}" for c, z in TORCH_PARAMS]
)
def test_jvp_matches_torch_forward_mode(case, complex_):
    op, torch_f, make = case
    primals = make(complex_)
    if op in ("cholesky", "eigvalsh"):  # PyTorch's rules take the tangent as Hermitian; give one
        v = _tangent_like(primals[0])
        tangents = ((v + np.conj(v.T)) / 2,)
    else:
        tangents = tuple(_tangent_like(x) for x in primals)
    _, got = tf.jvp(_call(op), primals, tangents)
    _, expected = torch.func.jvp(
        lambda *xs: torch_f(torch, *xs),
        tuple(torch.from_numpy(np.asarray(x)) for x in primals),
        tuple(torch.from_numpy(np.asarray(v)) for v in tangents),
    )
    expected = expected if isinstance(expected, tuple) else (expected,)
    if op == "qr":  # PyTorch's R may have negative diagonal entries: compare in tenferro's gauge
        signs = np.sign(np.diag(np.asarray(torch.linalg.qr(torch.from_numpy(primals[0]))[1])))
        expected = (expected[0].numpy() * signs, expected[1].numpy() * signs[:, None])
    for t, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(t), np.asarray(e), rtol=1e-8, atol=1e-10)


def test_jvp_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    a, b, c = _matrix(4, 4) + 4 * np.eye(4), _spd(4), _matrix(5, 3)
    va, vb, vc = _tangent_like(a), _tangent_like(b), _tangent_like(c)
    vb = (vb + vb.T) / 2  # JAX's eigh and cholesky read a symmetric matrix

    def ours(x, y, z):
        s = _session()
        return (
            s.solve(x, s.inv(y)),
            s.eigvalsh(y),
            s.slogdet(x)[1],
            s.det(x),
            s.cholesky(y),
            s.pinv(z),
            s.svdvals(z),
            s.matrix_power(x, 3),
            s.triangular_solve(x, y, lower=False, trans=1),
        )

    def theirs(x, y, z):
        return (
            jnp.linalg.solve(x, jnp.linalg.inv(y)),
            jnp.linalg.eigvalsh(y),
            jnp.linalg.slogdet(x)[1],
            jnp.linalg.det(x),
            jnp.linalg.cholesky(y),
            jnp.linalg.pinv(z),
            jnp.linalg.svd(z, compute_uv=False),
            jnp.linalg.matrix_power(x, 3),
            jsl.solve_triangular(x, y, lower=False, trans=1),
        )

    _, got = tf.jvp(ours, (a, b, c), (va, vb, vc))
    _, expected = jax.jvp(theirs, (a, b, c), (va, vb, vc))
    for t, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(t), np.asarray(e), rtol=1e-9, atol=1e-12)
