"""The linalg family's decompositions and norms: values against NumPy, gradients of
gauge-invariant functions against torch.linalg (first and second order) and finite
differences, the sign gauges, and the degenerate-spectrum convention."""

import math

import numpy as np
import pytest
from conftest import fd_gradient, needs_torch, torch

from tenferro import CpuEngine, EagerRuntime, TenferroError, Tensor

RNG = np.random.default_rng(7)


def _sym(n, batch=(), gaps=1.0):
    q, _ = np.linalg.qr(RNG.normal(size=(*batch, n, n)))
    d = np.cumsum(RNG.uniform(gaps, 2 * gaps, size=(*batch, n)), -1) - 2.0
    return (q * d[..., None, :]) @ np.swapaxes(q, -1, -2)


def _grad(rt, fn, *arrays):
    """fn's value and gradients in tenferro, fn(s, *tensors) a scalar."""
    xs = [rt.variable_from(Tensor.from_numpy(np.array(a, dtype=np.float64))) for a in arrays]
    out = rt.with_eager_session(lambda s: fn(s, *xs))
    grads = rt.grad(out, xs)
    return float(np.asarray(out)), [np.asarray(g) for g in grads]


def _torch_grad(fn, *arrays):
    ts = [torch.tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]
    out = fn(*ts)
    return float(out.detach()), [g.numpy() for g in torch.autograd.grad(out, ts)]


def _value(rt, fn, *arrays):
    return rt.with_eager_session(lambda s: fn(s, *(rt.constant_from(Tensor.from_numpy(a)) for a in arrays)))


# -- values -----------------------------------------------------------------------------------
def test_eigh_values_match_numpy_and_the_gauge_makes_the_largest_entry_positive(rt):
    a = _sym(4, (2, 3))
    w, v = _value(rt, lambda s, x: s.eigh(x), a)
    w, v = np.asarray(w), np.asarray(v)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), atol=1e-12)
    np.testing.assert_allclose((v * w[..., None, :]) @ np.swapaxes(v, -1, -2), a, atol=1e-12)
    pivots = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], -2)
    assert np.all(pivots > 0)
    np.testing.assert_allclose(np.asarray(_value(rt, lambda s, x: s.eigvalsh(x), a)), w, atol=1e-12)


def test_eigh_reads_the_symmetric_part_and_is_numpys_for_a_symmetric_matrix(rt):
    """(a + aᵀ)/2, as cholesky (JAX's symmetrize_input): bitwise NumPy's for a symmetric a,
    whatever UPLO; a skew part changes nothing."""
    a = _sym(3)
    a = (a + a.T) / 2  # exactly symmetric
    for uplo in ("L", "U"):
        w = np.asarray(_value(rt, lambda s, x, uplo=uplo: s.eigvalsh(x, uplo), a))
        np.testing.assert_array_equal(w, np.linalg.eigvalsh(a, UPLO=uplo))
    skew = RNG.normal(size=(3, 3))
    w = np.asarray(_value(rt, lambda s, x: s.eigvalsh(x), a + skew - skew.T))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), atol=1e-12)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (2, 4, 4)])
def test_svd_and_svdvals_match_numpy_with_the_sign_gauge(rt, shape):
    a = RNG.normal(size=shape)
    u, sv, vh = (np.asarray(t) for t in _value(rt, lambda s, x: s.svd(x), a))
    np.testing.assert_allclose(sv, np.linalg.svd(a, compute_uv=False), atol=1e-12)
    np.testing.assert_allclose((u * sv[..., None, :]) @ vh, a, atol=1e-12)
    pivots = np.take_along_axis(u, np.argmax(np.abs(u), axis=-2)[..., None, :], -2)
    assert np.all(pivots > 0)
    np.testing.assert_allclose(np.asarray(_value(rt, lambda s, x: s.svdvals(x), a)), sv, atol=1e-12)
    full = [np.asarray(t) for t in _value(rt, lambda s, x: s.svd(x, full_matrices=True), a)]
    assert full[0].shape == (*shape[:-2], shape[-2], shape[-2]) and full[2].shape == (*shape[:-2], shape[-1], shape[-1])


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
def test_qr_reconstructs_with_a_non_negative_diagonal(rt, shape):
    a = RNG.normal(size=shape)
    q, r = (np.asarray(t) for t in _value(rt, lambda s, x: s.qr(x), a))
    k = min(shape[-2:])
    assert q.shape == (*shape[:-1], k) and r.shape == (*shape[:-2], k, shape[-1])
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(k), (*shape[:-2], k, k)), atol=1e-12)
    np.testing.assert_array_equal(r, np.triu(r))
    assert np.all(np.diagonal(r, axis1=-2, axis2=-1) >= 0)


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf])
def test_matrix_norm_matches_numpy(rt, ord):
    x = RNG.normal(size=(2, 3, 4))
    out = np.asarray(_value(rt, lambda s, t: s.matrix_norm(t, ord, keepdims=True), x))
    np.testing.assert_allclose(out, np.linalg.matrix_norm(x, ord=ord, keepdims=True), rtol=1e-12)


@pytest.mark.parametrize("ord", [2, 1, 3, 1.5, math.inf, -math.inf, 0])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_vector_norm_matches_numpy(rt, ord, axis):
    x = RNG.normal(size=(2, 3, 4))
    out = np.asarray(_value(rt, lambda s, t: s.vector_norm(t, axis, ord=ord), x))
    np.testing.assert_allclose(out, np.linalg.vector_norm(x, axis=axis, ord=ord), rtol=1e-12)


def test_cross_matches_numpy_broadcasting_and_along_an_axis(rt):
    a, b = RNG.normal(size=(2, 1, 3)), RNG.normal(size=(4, 3))
    np.testing.assert_allclose(np.asarray(_value(rt, lambda s, x, y: s.cross(x, y), a, b)), np.cross(a, b))
    a, b = RNG.normal(size=(3, 2)), RNG.normal(size=(3, 2))
    np.testing.assert_allclose(np.asarray(_value(rt, lambda s, x, y: s.cross(x, y, 0), a, b)), np.cross(a, b, axis=0))


# -- gradients against torch -----------------------------------------------------------------
@needs_torch
def test_eigh_gradient_of_a_matrix_function_matches_torch_first_and_second_order(rt):
    b = _sym(4, (2,)) + 0.3 * RNG.normal(size=(2, 4, 4))
    m, c = RNG.normal(size=(4, 4)), RNG.normal(size=4)

    def ours(s, x):
        sym = s.mul(s.add(x, s.moveaxis(x, -1, -2)), 0.5)
        w, v = s.eigh(sym)
        f = s.matmul(s.mul(v, s.expand_dims(s.exp(s.mul(w, 0.3)), -2)), s.moveaxis(v, -1, -2))
        loss = s.add(s.reduce_sum(s.mul(f, rt.constant_from(m))), s.reduce_sum(s.mul(w, rt.constant_from(c))))
        return loss

    def theirs(x):
        w, v = torch.linalg.eigh((x + x.mT) / 2)
        f = (v * torch.exp(0.3 * w)[..., None, :]) @ v.mT
        return (f * torch.tensor(m)).sum() + (w * torch.tensor(c)).sum()

    value, (g,) = _grad(rt, ours, b)
    value_t, (g_t,) = _torch_grad(theirs, b)
    assert value == pytest.approx(value_t)
    np.testing.assert_allclose(g, g_t, atol=1e-10)
    # second order: a Hessian-vector product
    direction = RNG.normal(size=b.shape)
    x = rt.variable_from(Tensor.from_numpy(b))
    gx = rt.grad(rt.with_eager_session(lambda s: ours(s, x)), x)
    hv = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(gx, rt.constant_from(direction)))), x)
    xt = torch.tensor(b, requires_grad=True)
    (gt,) = torch.autograd.grad(theirs(xt), xt, create_graph=True)
    (hv_t,) = torch.autograd.grad((gt * torch.tensor(direction)).sum(), xt)
    np.testing.assert_allclose(np.asarray(hv), hv_t.numpy(), atol=1e-9)


@pytest.mark.parametrize("op", ["eigh", "eigvalsh", "cholesky"])
def test_every_op_of_a_symmetric_input_has_a_symmetric_gradient_equal_to_finite_differences(rt, op):
    """One convention for one matrix (issue 23 item 15): eigh's and eigvalsh's gradients lived
    on the UPLO triangle while cholesky's were symmetric. Each reads (a + aᵀ)/2 now, so the
    gradient is symmetric and is the exact derivative: central differences entry by entry,
    any perturbation (symmetric or not), agree."""
    a = _sym(3) + 4 * np.eye(3)  # positive definite, for cholesky
    c = RNG.normal(size=(3, 3))

    def loss(s, x):
        if op == "cholesky":
            return s.reduce_sum(s.mul(s.cholesky(x), rt.constant_from(c)), None)
        w = s.eigh(x)[0] if op == "eigh" else s.eigvalsh(x)
        return s.reduce_sum(s.mul(s.mul(w, w), rt.constant_from(c[0])), None)

    _, (g,) = _grad(rt, loss, a)
    np.testing.assert_allclose(g, g.T, atol=1e-14)
    ref = {"eigh": lambda x: np.linalg.eigvalsh((x + x.T) / 2), "eigvalsh": lambda x: np.linalg.eigvalsh((x + x.T) / 2)}
    if op == "cholesky":
        fd = fd_gradient(lambda x: np.sum(np.linalg.cholesky((x + x.T) / 2) * c), a)
    else:
        fd = fd_gradient(lambda x: np.sum(ref[op](x) ** 2 * c[0]), a)
    np.testing.assert_allclose(g, fd, atol=1e-7)


@needs_torch
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4)])
def test_svd_gradient_of_gauge_invariant_functions_matches_torch(rt, shape):
    a = RNG.normal(size=shape)
    m, c = RNG.normal(size=shape), RNG.normal(size=min(shape))

    def ours(s, x):
        u, sv, vh = s.svd(x)
        rebuilt = s.matmul(s.mul(u, s.expand_dims(s.mul(sv, s.mul(sv, sv)), -2)), vh)  # U S³ Vh
        return s.add(s.reduce_sum(s.mul(rebuilt, rt.constant_from(m))), s.reduce_sum(s.mul(sv, rt.constant_from(c))))

    def theirs(x):
        u, sv, vh = torch.linalg.svd(x, full_matrices=False)
        return ((u * (sv**3)[..., None, :]) @ vh * torch.tensor(m)).sum() + (sv * torch.tensor(c)).sum()

    value, (g,) = _grad(rt, ours, a)
    value_t, (g_t,) = _torch_grad(theirs, a)
    assert value == pytest.approx(value_t)
    np.testing.assert_allclose(g, g_t, atol=1e-9)


def test_svd_projector_gradient_matches_finite_differences(rt):
    # u₁u₁ᵀ and v₁v₁ᵀ of a wide matrix: exercises the (I - VVᵀ) term of the rule
    a = RNG.normal(size=(2, 4))
    m1, m2 = RNG.normal(size=(2, 2)), RNG.normal(size=(4, 4))

    def ours(s, x):
        u, _, vh = s.svd(x)
        pu = s.matmul(u, s.moveaxis(u, -1, -2))
        pv = s.matmul(s.slice(s.moveaxis(vh, -1, -2), (Ellipsis, slice(0, 1))), s.slice(vh, (slice(0, 1),)))
        return s.add(s.reduce_sum(s.mul(pu, rt.constant_from(m1))), s.reduce_sum(s.mul(pv, rt.constant_from(m2))))

    def numpy_loss(x):
        u, _, vh = np.linalg.svd(x, full_matrices=False)
        return np.sum(u @ u.T * m1) + np.sum(np.outer(vh[0], vh[0]) * m2)

    _, (g,) = _grad(rt, ours, a)
    np.testing.assert_allclose(g, fd_gradient(numpy_loss, a), atol=1e-7)


@needs_torch
@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (3, 5)])
def test_qr_gradient_matches_torch(rt, shape):
    a = RNG.normal(size=shape)
    m1, m2 = RNG.normal(size=(shape[0], min(shape))), RNG.normal(size=(min(shape), shape[1]))

    def ours(s, x):
        q, r = s.qr(x)
        return s.add(s.reduce_sum(s.mul(q, rt.constant_from(m1))), s.reduce_sum(s.mul(r, rt.constant_from(m2))))

    def theirs(x):
        q, r = torch.linalg.qr(x)
        signs = torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).detach()  # tenferro's gauge
        return (q * signs * torch.tensor(m1)).sum() + (r * signs[:, None] * torch.tensor(m2)).sum()

    value, (g,) = _grad(rt, ours, a)
    value_t, (g_t,) = _torch_grad(theirs, a)
    assert value == pytest.approx(value_t)
    np.testing.assert_allclose(g, g_t, atol=1e-9)


@needs_torch
@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf])
def test_matrix_norm_gradient_matches_torch(rt, ord):
    x = RNG.normal(size=(2, 3, 4))
    c = RNG.normal(size=2)
    _, (g,) = _grad(rt, lambda s, t: s.reduce_sum(s.mul(s.matrix_norm(t, ord), rt.constant_from(c))), x)
    _, (g_t,) = _torch_grad(lambda t: (torch.linalg.matrix_norm(t, ord) * torch.tensor(c)).sum(), x)
    np.testing.assert_allclose(g, g_t, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("ord", [2, 1, 3, 1.5, math.inf, -math.inf])
def test_vector_norm_gradient_matches_torch(rt, ord):
    x = RNG.normal(size=(3, 4))
    _, (g,) = _grad(rt, lambda s, t: s.reduce_sum(s.vector_norm(t, 1, ord=ord)), x)
    _, (g_t,) = _torch_grad(lambda t: torch.linalg.vector_norm(t, ord, dim=1).sum(), x)
    np.testing.assert_allclose(g, g_t, atol=1e-12)


def test_vector_norm_ord_0_counts_nonzeros_with_gradient_zero(rt):
    _, (g,) = _grad(rt, lambda s, t: s.add(s.vector_norm(t, ord=0), s.reduce_sum(s.mul(t, 0.0))), np.arange(3.0))
    np.testing.assert_array_equal(g, np.zeros(3))


def test_vector_norm_at_zero_has_subgradient_zero_as_pytorch(rt):
    _, (g,) = _grad(rt, lambda s, t: s.vector_norm(t), np.zeros(3))
    np.testing.assert_array_equal(g, np.zeros(3))
    _, (g,) = _grad(rt, lambda s, t: s.matrix_norm(t), np.zeros((2, 2)))
    np.testing.assert_array_equal(g, np.zeros((2, 2)))


@needs_torch
def test_cross_gradient_matches_torch(rt):
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(3,))
    m = RNG.normal(size=(2, 3))
    _, grads = _grad(rt, lambda s, x, y: s.reduce_sum(s.mul(s.cross(x, y), rt.constant_from(m))), a, b)
    _, grads_t = _torch_grad(lambda x, y: (torch.linalg.cross(x, y.expand(2, 3)) * torch.tensor(m)).sum(), a, b)
    for g, g_t in zip(grads, grads_t):
        np.testing.assert_allclose(g, g_t, atol=1e-12)


# -- the degenerate-spectrum convention -------------------------------------------------------
@needs_torch
def test_eigenvectors_at_repeated_eigenvalues_raise_not_a_silent_nan(rt):
    a = np.diag([1.0, 1.0, 3.0])
    with pytest.raises(TenferroError, match=r"eigh: eigenvalues 0 and 1 are \(nearly\) equal"):
        _grad(rt, lambda s, x: s.reduce_sum(s.mul(s.eigh(x)[1], rt.constant_from(np.arange(9.0).reshape(3, 3)))), a)
    # PyTorch returns non-finite values there, silently
    _, (g_t,) = _torch_grad(lambda x: (torch.linalg.eigh(x)[1] * torch.arange(9.0).reshape(3, 3)).sum(), a)
    assert not np.all(np.isfinite(g_t))


def test_the_degeneracy_error_names_the_batch_index_and_the_values(rt):
    a = np.stack([np.diag([1.0, 2.0]), np.diag([5.0, 5.0])])
    with pytest.raises(
        TenferroError, match=r"eigenvalues 0 and 1 of the matrix at batch index \(1,\) .*\(5.0 and 5.0\)"
    ):
        _grad(rt, lambda s, x: s.reduce_sum(s.eigh(x)[1]), a)


def test_a_degeneracy_among_unused_eigenvectors_is_fine(rt):
    # only the top eigenvector carries a cotangent; 1 and 1 are degenerate but unused
    a = np.diag([1.0, 1.0, 3.0]) + np.array([[0, 0, 0.1], [0, 0, 0], [0.1, 0, 0]])
    _, (g,) = _grad(rt, lambda s, x: s.reduce_sum(s.slice(s.eigh(x)[1], (Ellipsis, 2))), a)
    assert np.all(np.isfinite(g))


def test_eigenvalues_alone_are_differentiable_at_a_degenerate_spectrum(rt):
    _, (g,) = _grad(rt, lambda s, x: s.reduce_sum(s.eigvalsh(x)), np.eye(3))
    np.testing.assert_allclose(g, np.eye(3))  # d trace = I
    _, (g,) = _grad(rt, lambda s, x: s.reduce_sum(s.svdvals(x)), np.eye(3))
    np.testing.assert_allclose(g, np.eye(3))
    _, (g,) = _grad(rt, lambda s, x: s.matrix_norm(x, 2), np.eye(2))
    np.testing.assert_allclose(g, np.eye(2) / 2)  # the tie splits evenly


def test_singular_vectors_at_repeated_singular_values_raise(rt):
    with pytest.raises(TenferroError, match=r"svd: singular values 0 and 1 .*are \(nearly\) equal"):
        _grad(rt, lambda s, x: s.reduce_sum(s.svd(x)[0]), np.eye(2))


@needs_torch
def test_svd_full_matrices_differentiates_only_the_singular_values(rt):
    a = RNG.normal(size=(3, 2))
    _, (g,) = _grad(rt, lambda s, x: s.reduce_sum(s.svd(x, full_matrices=True)[1]), a)
    _, (g_t,) = _torch_grad(lambda x: torch.linalg.svdvals(x).sum(), a)
    np.testing.assert_allclose(g, g_t, atol=1e-12)
    with pytest.raises(TenferroError, match="full_matrices=True"):
        _grad(rt, lambda s, x: s.reduce_sum(s.svd(x, full_matrices=True)[0]), a)


def test_qr_of_a_rank_deficient_matrix_refuses_to_differentiate(rt):
    a = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]])
    with pytest.raises(TenferroError, match="qr: the input is \\(nearly\\) rank deficient"):
        _grad(rt, lambda s, x: s.reduce_sum(s.qr(x)[0]), a)


# -- errors -----------------------------------------------------------------------------------
def test_errors_name_the_op_and_the_argument(rt):
    from tenferro import ArgumentError, ShapeMismatch

    with pytest.raises(ShapeMismatch, match=r"eigh: a has shape \[2, 3\]; its last two axes must be square"):
        _value(rt, lambda s, x: s.eigh(x), np.zeros((2, 3)))
    with pytest.raises(ShapeMismatch, match=r"svd: a has shape \[3\]; it must be a matrix .*at least 2-D"):
        _value(rt, lambda s, x: s.svd(x), np.zeros(3))
    with pytest.raises(ArgumentError, match="matrix_norm: ord must be one of"):
        _value(rt, lambda s, x: s.matrix_norm(x, 3), np.zeros((2, 2)))
    with pytest.raises(ShapeMismatch, match="cross: a has shape \\[2\\] and b \\[2\\]; both need size 3"):
        _value(rt, lambda s, x, y: s.cross(x, y), np.zeros(2), np.zeros(2))


def test_svd_vectors_of_a_batch_of_matrices_of_different_scales_are_differentiable():
    """The 'nearly zero singular value' test is per matrix: a second matrix 1e-9 times the
    first is not rank deficient."""
    rt = EagerRuntime(engine=CpuEngine.serial())
    a = np.random.default_rng(3).standard_normal((3, 2))
    x = rt.variable_from(np.stack([a, 1e-9 * a]))

    def loss(s):
        u, sv, vh = s.svd(x)
        return s.reduce_sum(s.mul(s.matmul(u, s.permute_dims(u, (0, 2, 1))), 1.0), None)

    grad = np.asarray(rt.grad(rt.with_eager_session(loss), x))
    assert np.all(np.isfinite(grad))


@pytest.mark.parametrize("op", ["svdvals", "pinv", "cholesky"])  # LAPACK failed, or cholesky gave nan silently
def test_a_matrix_with_nan_is_an_error_naming_the_op_and_batch_index_not_nan_or_a_lapack_message(op):
    from tenferro import ArgumentError

    rt = EagerRuntime(engine=CpuEngine.serial())
    a = np.stack([np.eye(3), np.eye(3)])
    a[1, 0, 0] = np.nan
    with pytest.raises(ArgumentError, match=rf"^{op}: .* at batch index 1 has nan or inf entries"):
        rt.with_eager_session(lambda s: getattr(s, op)(rt.constant_from(a)))


def test_qr_r_is_zero_below_the_diagonal_not_negative_zero(rt):
    """Fixing R's diagonal signs flips whole rows; the zeros below the diagonal must stay +0.0
    (the array API's test compares a stack's R with each matrix's exactly)."""
    a = np.array([[1.0, 2.0, 0.5], [3.0, 4.0, 2.0], [0.5, 1.0, -1.0]])  # LAPACK gives R a negative diagonal
    with rt.eager_session() as s:
        q, r = s.qr(rt.constant_from(a))
    below = np.tril(np.asarray(r), -1)
    assert not np.signbit(below).any()
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, atol=1e-14)
