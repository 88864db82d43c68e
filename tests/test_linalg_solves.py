"""The linalg family's solves: values against NumPy/SciPy, gradients against torch.linalg,
the LU path's bits and its factorisation cache, least squares via solve, a Gaussian-process
log-likelihood via cholesky (against finite differences), and the errors (a singular matrix
names the op and its batch index; a shape mismatch names both operands)."""

import numpy as np
import pytest
import scipy.linalg

from tenferro import CpuEngine, EagerRuntime, ShapeMismatch
from tenferro.plugins.linalg import solve_lu
from tenferro.plugins.linalg.batching import NotPositiveDefinite, SingularMatrix

RNG = np.random.default_rng(7)


def well_conditioned(*shape, spd=False):
    """A stack of n×n matrices Q diag(d) Rᵀ with |d| in [1, 3] (Q diag(d) Qᵀ, d > 0, with spd)."""
    q = np.linalg.qr(RNG.standard_normal(shape)).Q
    r = q if spd else np.linalg.qr(RNG.standard_normal(shape)).Q
    d = RNG.uniform(1.0, 3.0, shape[:-1]) * (1 if spd else RNG.choice([-1.0, 1.0], shape[:-1]))
    a = np.einsum("...ik,...k,...jk->...ij", q, d, r)
    return (a + np.swapaxes(a, -1, -2)) / 2 if spd else a


A3 = well_conditioned(3, 3)
AB = well_conditioned(2, 3, 3)
SPD = well_conditioned(2, 3, 3, spd=True)
TALL = RNG.standard_normal((5, 3))
WIDE = RNG.standard_normal((2, 4))
B3 = RNG.standard_normal(3)
B32 = RNG.standard_normal((3, 2))


def call(rt, op, *args, **params):
    return np.asarray(rt.with_eager_session(lambda s: getattr(s, op)(*map(rt.constant_from, args), **params)))


#: (op, args, params, what NumPy/SciPy give)
VALUES = [
    ("solve", (A3, B3), {}, np.linalg.solve(A3, B3)),
    ("solve", (A3, B32), {}, np.linalg.solve(A3, B32)),
    ("solve", (AB, B3), {}, np.stack([np.linalg.solve(m, B3) for m in AB])),  # NumPy 2: 1-D b is a vector
    ("solve", (AB, B32), {}, np.stack([np.linalg.solve(m, B32) for m in AB])),  # batch broadcasts
    ("triangular_solve", (A3, B32), {}, scipy.linalg.solve_triangular(A3, B32, lower=True)),
    ("triangular_solve", (A3, B3), {"lower": False, "trans": "T"}, scipy.linalg.solve_triangular(A3, B3, trans=1)),
    (
        "triangular_solve",
        (A3, B32),
        {"unit_diagonal": True, "trans": 1},
        scipy.linalg.solve_triangular(A3, B32, lower=True, trans=1, unit_diagonal=True),
    ),
    ("inv", (AB,), {}, np.stack([scipy.linalg.inv(m) for m in AB])),
    ("det", (AB,), {}, np.array([scipy.linalg.det(m) for m in AB])),
    ("lstsq", (TALL, RNG.standard_normal(5)), {}, None),
    ("lstsq", (WIDE, RNG.standard_normal((2, 3))), {}, None),
    ("pinv", (TALL,), {}, scipy.linalg.pinv(TALL)),
    ("matrix_power", (A3,), {"n": 3}, A3 @ A3 @ A3),
    ("matrix_power", (A3,), {"n": -2}, np.linalg.inv(A3 @ A3)),
    ("matrix_power", (AB,), {"n": 0}, np.broadcast_to(np.eye(3), AB.shape)),
    ("cholesky", (SPD,), {}, np.stack([scipy.linalg.cholesky(m, lower=True) for m in SPD])),
    ("cholesky", (SPD,), {"upper": True}, np.stack([scipy.linalg.cholesky(m) for m in SPD])),
]


@pytest.mark.parametrize("op, args, params, expected", VALUES, ids=[f"{v[0]}-{i}" for i, v in enumerate(VALUES)])
def test_values_match_numpy_and_scipy(rt, op, args, params, expected):
    if expected is None:  # lstsq: NumPy's least-squares (least-norm when wide) solution
        expected = np.linalg.lstsq(*args, rcond=None)[0]
    np.testing.assert_allclose(call(rt, op, *args, **params), expected, rtol=1e-12, atol=1e-12)


def test_slogdet_returns_sign_and_logabsdet_and_singular_gives_numpys_zero_and_minus_inf(rt):
    sign, logabsdet = rt.with_eager_session(lambda s: s.slogdet(rt.constant_from(AB)))
    want = np.linalg.slogdet(AB)
    np.testing.assert_array_equal(np.asarray(sign), want.sign)
    np.testing.assert_allclose(np.asarray(logabsdet), want.logabsdet, rtol=1e-13)
    for matrix in (np.zeros((2, 2)), np.zeros((20, 20))):  # the np.linalg and the LAPACK paths
        sign, logabsdet = rt.with_eager_session(lambda s, m=matrix: s.slogdet(rt.constant_from(m)))
        assert (float(np.asarray(sign)), float(np.asarray(logabsdet))) == (0.0, -np.inf)


def test_cholesky_factors_the_symmetric_part_as_jax_does(rt):
    lower_only = np.tril(SPD[0]) + np.triu(RNG.standard_normal((3, 3)), 1)
    symmetric = (lower_only + lower_only.T) / 2
    np.testing.assert_allclose(call(rt, "cholesky", lower_only), np.linalg.cholesky(symmetric), rtol=1e-13)


# -- the LAPACK path: np.linalg's results to rounding, and one factorisation ----------------------
N_BIG = solve_lu.FAST_SIZE + 2
BIG = well_conditioned(N_BIG, N_BIG)


@pytest.mark.parametrize("op", ["solve", "solve_transposed", "inv", "det", "slogdet"])
def test_the_lapack_path_agrees_with_np_linalg_to_rounding(rt, op):
    """A single matrix of FAST_SIZE or more takes getrf/getrs directly: the LAPACK calls
    np.linalg makes, but in SciPy's OpenBLAS, a build of its own, so the bits may differ
    (they did at most sizes, 16 and 64 among them, also before FAST_SIZE was raised)."""
    assert BIG.shape[0] >= solve_lu.FAST_SIZE
    args = (BIG, RNG.standard_normal((N_BIG, 3))) if op.startswith("solve") else (BIG,)
    frozen = [np.array(a) for a in args]
    for a in frozen:
        a.setflags(write=False)
    got = getattr(solve_lu, op.replace("solve_transposed", "solve"))(*frozen, *((True,) if "transposed" in op else ()))
    want = {
        "solve": lambda: np.linalg.solve(*args),
        "solve_transposed": lambda: np.linalg.solve(BIG.T, args[1]),
        "inv": lambda: np.linalg.inv(BIG),
        "det": lambda: np.linalg.det(BIG),
        "slogdet": lambda: tuple(np.linalg.slogdet(BIG)),
    }[op]()
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=1e-12, atol=1e-12)


def test_solve_and_slogdet_of_one_matrix_factorise_it_once_with_their_vjps(rt, monkeypatch):
    """The issue's "solve reuses its factorisation in the VJP": slogdet(a), solve(a, b) and
    both VJPs (inv(a) and a solve with aᵀ) make one getrf call between them."""
    from scipy.linalg import lapack

    calls = []
    real = lapack.dgetrf
    monkeypatch.setattr(lapack, "dgetrf", lambda a: calls.append(a.shape) or real(a))
    a, b = rt.variable_from(BIG), rt.variable_from(RNG.standard_normal(N_BIG))
    loss = rt.with_eager_session(lambda s: s.add(s.slogdet(a)[1], s.reduce_sum(s.solve(a, b), None)))
    ga, gb = rt.grad(loss, [a, b])
    assert calls == [(N_BIG, N_BIG)]
    np.testing.assert_allclose(np.asarray(ga), np.linalg.inv(BIG).T - np.outer(gb, np.linalg.solve(BIG, b.value())))
    np.testing.assert_allclose(np.asarray(gb), np.linalg.solve(BIG.T, np.ones(N_BIG)), rtol=1e-12)


def test_a_small_matrix_stays_in_numpys_blas(rt, monkeypatch):
    """Issue 23 item 7: a 20×20 slogdet + solve gradient went through SciPy's own OpenBLAS,
    whose threads spun beside NumPy's and made it 9-16× autograd's time on busy cores
    (bench/linalg.py --small). Below FAST_SIZE no SciPy LAPACK call is made."""
    from scipy.linalg import lapack

    def refuse(*args, **kwargs):
        raise AssertionError("SciPy's LAPACK called for a small matrix")

    for name in ("dgetrf", "dgetrs"):
        monkeypatch.setattr(lapack, name, refuse)
    small = well_conditioned(20, 20)
    a, b = rt.variable_from(small), rt.variable_from(RNG.standard_normal(20))
    loss = rt.with_eager_session(lambda s: s.add(s.slogdet(a)[1], s.reduce_sum(s.solve(a, b), None)))
    ga, gb = rt.grad(loss, [a, b])
    np.testing.assert_allclose(np.asarray(gb), np.linalg.solve(small.T, np.ones(20)), rtol=1e-12)
    assert 20 < solve_lu.FAST_SIZE


def test_a_writable_array_is_never_cached():
    a = np.array(BIG)
    solve_lu.inv(a)
    a[0, 0] += 1.0
    np.testing.assert_allclose(solve_lu.inv(a), np.linalg.inv(a), rtol=1e-12, atol=1e-13)


# -- gradients against torch.linalg ---------------------------------------------------------------
GRADIENTS = [
    ("solve", (AB, B3), {}, lambda t, a, b: t.linalg.solve(a, b)),
    ("solve", (A3, RNG.standard_normal((2, 3, 2))), {}, lambda t, a, b: t.linalg.solve(a, b)),
    (
        "triangular_solve",
        (A3, B32),
        {"lower": False, "trans": 1},
        lambda t, a, b: t.linalg.solve_triangular(t.triu(a).mT, b, upper=False),
    ),
    ("inv", (AB,), {}, lambda t, a: t.linalg.inv(a)),
    ("det", (AB,), {}, lambda t, a: t.linalg.det(a)),
    ("slogdet", (AB,), {}, lambda t, a: t.linalg.slogdet(a)[1]),
    ("lstsq", (TALL, RNG.standard_normal((5, 2))), {}, lambda t, a, b: t.linalg.lstsq(a, b).solution),
    ("pinv", (WIDE,), {}, lambda t, a: t.linalg.pinv(a)),
    ("matrix_power", (A3,), {"n": 3}, lambda t, a: t.linalg.matrix_power(a, 3)),
    ("matrix_power", (AB,), {"n": -2}, lambda t, a: t.linalg.matrix_power(a, -2)),
    ("cholesky", (SPD,), {}, lambda t, a: t.linalg.cholesky(a)),
    ("cholesky", (SPD,), {"upper": True}, lambda t, a: t.linalg.cholesky(a, upper=True)),
]


@pytest.mark.parametrize("op, args, params, torch_fn", GRADIENTS, ids=[f"{g[0]}-{i}" for i, g in enumerate(GRADIENTS)])
def test_gradients_match_torch_linalg(rt, op, args, params, torch_fn):
    torch = pytest.importorskip("torch")
    variables = [rt.variable_from(a) for a in args]

    def body(s):
        out = getattr(s, op)(*variables, **params)
        out = out[1] if op == "slogdet" else out
        w = rt.constant_from(np.cos(np.arange(np.prod(out.shape)).reshape(out.shape)))
        return s.reduce_sum(s.mul(out, w), None)

    ours = rt.grad(rt.with_eager_session(body), variables)
    tensors = [torch.tensor(a, requires_grad=True) for a in args]
    out = torch_fn(torch, *tensors)
    w = torch.cos(torch.arange(out.numel(), dtype=torch.float64).reshape(out.shape))
    theirs = torch.autograd.grad((out * w).sum(), tensors)
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-9, atol=1e-11)


# -- programs --------------------------------------------------------------------------------------
def central_differences(f, x, h=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        grad[i] = (f(x + e) - f(x - e)) / (2 * h)
    return grad


def test_least_squares_via_solve_of_the_normal_equations(rt):
    """min ||a x - y||² by solve(aᵀa, aᵀy) (written with the family's matmul and moveaxis):
    the same x as lstsq, and the gradient of ||x||² in a and y matches finite differences."""
    a0, y0 = RNG.standard_normal((6, 3)), RNG.standard_normal(6)

    def objective(s, a, y):
        at = s.moveaxis(a, -1, -2)
        x = s.solve(s.matmul(at, a), s.squeeze(s.matmul(at, s.expand_dims(y, -1)), -1))
        return x, s.reduce_sum(s.square(x), None)

    a, y = rt.variable_from(a0), rt.variable_from(y0)
    x, loss = rt.with_eager_session(lambda s: objective(s, a, y))
    np.testing.assert_allclose(np.asarray(x), np.linalg.lstsq(a0, y0, rcond=None)[0], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(x), call(rt, "lstsq", a0, y0), rtol=1e-12)
    ga, gy = rt.grad(loss, [a, y])

    def value(a_value, y_value):
        with rt.no_grad():
            return float(
                np.asarray(rt.with_eager_session(lambda s: objective(s, *map(rt.constant_from, (a_value, y_value)))[1]))
            )

    np.testing.assert_allclose(np.asarray(ga), central_differences(lambda v: value(v, y0), a0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.asarray(gy), central_differences(lambda v: value(a0, v), y0), rtol=1e-6, atol=1e-8)


def test_gaussian_process_log_likelihood_via_cholesky(rt):
    """log p(y | X, ℓ, σ) = -½ yᵀK⁻¹y - Σ log Lᵢᵢ - n/2 log 2π with K = exp(-d²/2ℓ²) + σ²I = LLᵀ,
    K⁻¹y by two triangular solves: the value is SciPy's, and the gradient in (ℓ, σ) and in
    the targets y matches finite differences."""
    points = np.linspace(0.0, 3.0, 8)
    d2 = np.subtract.outer(points, points) ** 2
    y0 = np.sin(points) + 0.1 * RNG.standard_normal(8)

    def log_likelihood(s, ell, sigma, y):
        k = s.add(
            s.exp(s.mul(rt.constant_from(d2), s.div(-0.5, s.square(ell)))),
            s.mul(s.square(sigma), rt.constant_from(np.eye(8))),
        )
        chol = s.cholesky(k)
        alpha = s.triangular_solve(chol, s.triangular_solve(chol, y), trans="T")  # K⁻¹y
        fit = s.mul(s.reduce_sum(s.mul(y, alpha), None), -0.5)
        log_det = s.reduce_sum(s.log(s.diagonal(chol, 0, -2, -1)), None)
        return s.sub(s.sub(fit, log_det), 4 * np.log(2 * np.pi))

    def value(ell, sigma, y):
        with rt.no_grad():
            args = map(rt.constant_from, (ell, sigma, y))
            return float(np.asarray(rt.with_eager_session(lambda s: log_likelihood(s, *args))))

    theta = [np.array(0.7), np.array(0.3), y0]
    variables = [rt.variable_from(v) for v in theta]
    loss = rt.with_eager_session(lambda s: log_likelihood(s, *variables))
    k = np.exp(-d2 / (2 * 0.7**2)) + 0.09 * np.eye(8)
    want = -0.5 * y0 @ scipy.linalg.solve(k, y0) - 0.5 * np.linalg.slogdet(k)[1] - 4 * np.log(2 * np.pi)
    np.testing.assert_allclose(float(np.asarray(loss)), want, rtol=1e-12)
    grads = rt.grad(loss, variables)
    for i, (grad, v) in enumerate(zip(grads, theta)):
        fd = central_differences(lambda u, i=i: value(*theta[:i], u, *theta[i + 1 :]), v)
        np.testing.assert_allclose(np.asarray(grad), fd, rtol=1e-6, atol=1e-7)


# -- errors ----------------------------------------------------------------------------------------
SINGULAR_BATCH = np.stack([np.eye(2), np.eye(2), np.ones((2, 2))]).reshape(3, 1, 2, 2)


@pytest.mark.parametrize(
    "op, args, params, error, message",
    [
        (
            "solve",
            (SINGULAR_BATCH, np.ones(2)),
            {},
            SingularMatrix,
            "solve: a at batch index (2, 0) is a singular matrix",
        ),
        ("inv", (SINGULAR_BATCH,), {}, SingularMatrix, "inv: a at batch index (2, 0) is a singular matrix"),
        ("inv", (np.zeros((20, 20)),), {}, SingularMatrix, "inv: a is a singular matrix"),
        ("solve", (np.zeros((20, 20)), np.ones(20)), {}, SingularMatrix, "solve: a is a singular matrix"),
        ("matrix_power", (SINGULAR_BATCH,), {"n": -1}, SingularMatrix, "matrix_power: a at batch index (2, 0)"),
        ("lstsq", (np.ones((3, 2)), np.ones(3)), {}, SingularMatrix, "rank deficient"),
        ("triangular_solve", (np.diag([1.0, 0.0]), np.ones(2)), {}, SingularMatrix, "a zero on its diagonal"),
        (
            "cholesky",
            (np.stack([np.eye(2), np.diag([1.0, -1.0])]),),
            {},
            NotPositiveDefinite,
            "cholesky: a at batch index 1 is not positive definite",
        ),
        ("solve", (np.eye(3), np.ones((2, 1))), {}, ShapeMismatch, "a has shape [3, 3] and b has shape [2, 1]"),
        ("solve", (np.eye(3), np.ones(4)), {}, ShapeMismatch, "a has shape [3, 3] and b has shape [4]"),
        ("lstsq", (np.ones((3, 2)), np.ones(2)), {}, ShapeMismatch, "a has shape [3, 2] and b has shape [2]"),
        ("inv", (np.ones((2, 3)),), {}, ShapeMismatch, "inv: a has shape [2, 3]; its last two axes must be square"),
    ],
)
def test_errors_name_the_op_the_batch_index_and_both_operands(rt, op, args, params, error, message):
    with pytest.raises(error, match=__import__("re").escape(message)):
        call(rt, op, *args, **params)


def test_a_singular_matrix_is_a_tenferro_argument_error_and_numpys_linalg_error(rt):
    """A TenferroError naming the op (never NumPy's raw error), which NumPy's own
    ``except np.linalg.LinAlgError`` catches too."""
    from tenferro.extend import ArgumentError

    with pytest.raises(ArgumentError, match=r"^solve: a is a singular matrix") as info:
        call(rt, "solve", np.zeros((2, 2)), np.ones(2))
    assert isinstance(info.value, np.linalg.LinAlgError)


def _cofactors(m):
    """The cofactor matrix adj(m)ᵀ by minors (the textbook definition; no inverse)."""
    n = len(m)
    return np.array(
        [[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(m, i, 0), j, 1)) for j in range(n)] for i in range(n)]
    )


#: 3×3 matrices of rank 2, 1 and 0, exactly singular (LU meets a zero pivot), and a complex rank-2 one
SINGULAR_3 = [
    np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]),
    np.outer([1.0, 2.0, 3.0], [1.0, 1.0, 2.0]),
    np.zeros((3, 3)),
    np.array([[1 + 1j, 2.0, 0.5j], [2 + 2j, 4.0, -1.0], [0.0, 1j, 1.0]]) @ np.diag([1.0, 1.0, 0.0]),
]


@pytest.mark.parametrize("a", SINGULAR_3, ids=["rank2", "rank1", "rank0", "complex-rank2"])
def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix(a):
    """d det/dA = adj(A)ᵀ (conjugated, for a complex A, in the real inner product), which
    exists at every matrix: JAX returns it; the rule through a⁻¹ raised 'inv: a is a
    singular matrix'."""
    import tenferro as tf
    import tenferro.numpy as tnp

    cof = _cofactors(a)
    np.testing.assert_allclose(np.asarray(tf.grad(lambda x: tnp.real(tnp.linalg.det(x)))(a)), np.conj(cof), atol=1e-12)
    e = (np.arange(9.0).reshape(3, 3) - 4).astype(a.dtype)
    _, tangent = tf.jvp(tnp.linalg.det, (a,), (e,))
    assert abs(complex(np.asarray(tangent)) - np.sum(cof * e)) < 1e-12


@pytest.mark.parametrize("a", SINGULAR_3[:3], ids=["rank2", "rank1", "rank0"])
def test_det_hessian_at_a_singular_matrix_is_the_derivative_of_the_cofactors(a):
    """hvp, forward over reverse, and the Hessian reverse over reverse, against central
    differences of the cofactors by minors (a quadratic in A for 3×3: the difference is exact)."""
    import tenferro as tf
    import tenferro.numpy as tnp

    e = np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.5], [-2.0, 1.5, 1.0]])
    want = (_cofactors(a + e) - _cofactors(a - e)) / 2
    np.testing.assert_allclose(np.asarray(tf.hvp(tnp.linalg.det, (a,), (e,))), want, atol=1e-12)
    hessian = np.asarray(tf.jacobian(tf.grad(tnp.linalg.det))(a)).reshape(9, 9)
    np.testing.assert_allclose(hessian @ e.ravel(), want.ravel(), atol=1e-12)


def test_det_hessian_at_diag_1_0_0_is_the_two_by_two_minor_s():
    """det(diag(1, 0, 0) + E) = E₂₂E₃₃ - E₂₃E₃₂ + O(E³): its Hessian along E is that minor's
    gradient, by hand."""
    import tenferro as tf
    import tenferro.numpy as tnp

    e = np.array([[3.0, 1.0, 2.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    want = np.zeros((3, 3))
    want[1, 1], want[2, 2], want[1, 2], want[2, 1] = e[2, 2], e[1, 1], -e[2, 1], -e[1, 2]
    np.testing.assert_allclose(np.asarray(tf.hvp(tnp.linalg.det, (np.diag([1.0, 0.0, 0.0]),), (e,))), want, atol=1e-14)


def test_det_third_derivative_is_six_det_e_and_refused_by_name_at_a_singular_matrix():
    """det(A + tE) is a cubic in t with t³ coefficient det(E) (3×3): its third derivative
    is 6·det(E) at every A. tenferro gives it at an invertible A; at a singular one it
    says so (NotDifferentiable naming det), never a wrong number."""
    import tenferro as tf
    import tenferro.numpy as tnp
    from tenferro.core.errors import NotDifferentiable

    e = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.5, 1.0, 4.0]])

    def along(a):
        return lambda t: tnp.linalg.det(a + t * e)

    third = tf.grad(tf.grad(tf.grad(along(np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 3.0]])))))
    assert float(third(0.0)) == pytest.approx(6 * np.linalg.det(e), rel=1e-12)
    second = np.sum((_cofactors(SINGULAR_3[0] + e) - _cofactors(SINGULAR_3[0] - e)) / 2 * e)  # D²det[e, e]
    assert float(tf.grad(tf.grad(along(SINGULAR_3[0])))(0.0)) == pytest.approx(second, rel=1e-12)
    with pytest.raises(NotDifferentiable, match=r"det: a is \(nearly\) singular"):
        tf.grad(tf.grad(tf.grad(along(SINGULAR_3[0]))))(0.0)


def test_slogdet_gradient_at_a_singular_matrix_is_not_differentiable_naming_the_batch_index():
    """logabsdet = -inf there and its gradient a⁻ᵀ does not exist: a NotDifferentiable
    naming slogdet and the matrix (it was 'inv: a is a singular matrix', a RuleError); the
    sign alone (piecewise constant) still differentiates to 0, in both modes."""
    import tenferro as tf
    import tenferro.numpy as tnp
    from tenferro.core.errors import NotDifferentiable

    batch = np.stack([np.eye(2), np.ones((2, 2))])
    with pytest.raises(NotDifferentiable, match=r"slogdet: a at batch index 1 is singular \(logabsdet = -inf\)"):
        tf.grad(lambda x: tnp.sum(tnp.linalg.slogdet(x).logabsdet))(batch)
    with pytest.raises(NotDifferentiable, match="slogdet: a at batch index 1 is singular"):
        tf.jvp(lambda x: tnp.linalg.slogdet(x).logabsdet, (batch,), (batch,))
    assert np.all(np.asarray(tf.grad(lambda x: tnp.sum(tnp.linalg.slogdet(x).sign))(batch)) == 0)
    _, tangent = tf.jvp(lambda x: tnp.linalg.slogdet(x).sign, (batch,), (batch,))
    assert np.all(np.asarray(tangent) == 0)


def test_lstsq_of_a_numerically_rank_deficient_matrix_is_an_error_not_huge_numbers():
    """QR of a rank-1 matrix has a tiny, not zero, diagonal entry: solving with it gave ~1e14."""
    from tenferro.plugins.linalg.batching import SingularMatrix

    rt = EagerRuntime(engine=CpuEngine.serial())
    low_rank = np.random.default_rng(0).standard_normal((6, 2)) @ np.random.default_rng(1).standard_normal((2, 4))
    for a, b in [(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.ones(3)), (low_rank, np.ones(6))]:
        with pytest.raises(SingularMatrix, match="lstsq: a is rank deficient"):
            rt.with_eager_session(lambda s, a=a, b=b: s.lstsq(rt.constant_from(a), rt.constant_from(b)))
    batch = np.stack([np.eye(3)[:, :2], np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])])
    with pytest.raises(SingularMatrix, match=r"lstsq: a at batch index 1 is rank deficient"):
        rt.with_eager_session(lambda s: s.lstsq(rt.constant_from(batch), rt.constant_from(np.ones((2, 3, 1)))))


def test_the_lu_cache_keeps_nothing_of_a_read_only_view_of_a_writable_matrix():
    from tenferro.plugins.linalg import solve_lu

    rng = np.random.default_rng(1)
    base = rng.standard_normal((32, 32)) + 32 * np.eye(32)
    view = base.view()
    view.setflags(write=False)
    ones = np.ones(32)
    solve_lu.solve(view, ones)
    base[:] = rng.standard_normal((32, 32)) + 40 * np.eye(32)  # the view's numbers change
    np.testing.assert_allclose(solve_lu.solve(view, ones), np.linalg.solve(base, ones), rtol=1e-12)


def test_matrix_power_gradient_of_a_large_power_takes_log_n_products():
    """The VJP follows repeated squaring: n = 10**6 finishes at once (the sum over j of
    (a^j)^T g (a^(n-1-j))^T took O(n) products and memory)."""
    rt = EagerRuntime(engine=CpuEngine.serial())
    d = np.array([0.999999, 0.5, 1.0])
    a = rt.variable_from(np.diag(d))
    n = 10**6 + 1
    grad = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.matrix_power(a, n), None)), a)
    np.testing.assert_allclose(np.diag(np.asarray(grad)), n * d ** (n - 1), rtol=1e-9)


@pytest.mark.parametrize("a", [SINGULAR_3[0], SINGULAR_3[1], np.diag([1.0, 0.0, 0.0])], ids=["rank2", "rank1", "diag"])
def test_det_gradient_and_hessian_at_a_singular_matrix_are_jaxs(a):
    """JAX's det rule (LU with the adjugate's special path) gives the same gradient and
    Hessian at these singular matrices."""
    jax = pytest.importorskip("jax")
    import tenferro as tf
    import tenferro.numpy as tnp

    jax.config.update("jax_enable_x64", True)
    np.testing.assert_allclose(np.asarray(tf.grad(tnp.linalg.det)(a)), jax.grad(jax.numpy.linalg.det)(a), atol=1e-12)
    want = np.asarray(jax.hessian(jax.numpy.linalg.det)(a)).reshape(9, 9)
    np.testing.assert_allclose(np.asarray(tf.hessian(tnp.linalg.det)(a)).reshape(9, 9), want, atol=1e-12)
