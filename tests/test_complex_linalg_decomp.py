"""Complex numbers in the linalg decompositions (qr, eigh, eigvalsh, svd, svdvals) and the
general eigendecomposition (eig, eigvals): values against NumPy, the phase gauges, real
losses against finite differences (both the real and the imaginary direction of every
entry) and against PyTorch (gauge-invariant losses, where PyTorch's gradient is defined),
first and second order; a real matrix through eig gets complex results and a real gradient.
"""

import numpy as np
import pytest
from conftest import fd_gradient, needs_torch, torch

from tenferro import NotDifferentiable, RuleError, Tensor

RNG = np.random.default_rng(11)


def _complex(*shape):
    return RNG.normal(size=shape) + 1j * RNG.normal(size=shape)


def _unitary(n, batch=()):
    q, r = np.linalg.qr(_complex(*batch, n, n))
    return q * (np.diagonal(r, axis1=-2, axis2=-1) / np.abs(np.diagonal(r, axis1=-2, axis2=-1)))[..., None, :]


def _hermitian(n, batch=()):
    """A Hermitian matrix with eigenvalues at least 1 apart."""
    q = _unitary(n, batch)
    d = np.cumsum(RNG.uniform(1.0, 2.0, size=(*batch, n)), -1) - 3.0
    return (q * d[..., None, :]) @ np.conj(np.swapaxes(q, -1, -2))


def _general(n, batch=(), complex_=True):
    """W diag(d) W⁻¹ with eigenvalues whose real parts are at least 1 apart."""
    w = np.eye(n) + 0.3 * (_complex(*batch, n, n) if complex_ else RNG.normal(size=(*batch, n, n)))
    d = np.cumsum(RNG.uniform(1.0, 2.0, size=(*batch, n)), -1) - 3.0 + 0j
    if complex_:
        d = d + 1j * RNG.uniform(-1, 1, size=(*batch, n))
    return np.real_if_close(w @ (d[..., :, None] * np.linalg.inv(w)))


def _h(s, x):
    """The conjugate transpose, as tests write it."""
    return s.conj(s.moveaxis(x, -1, -2))


def _abs2(s, x):
    return s.real(s.mul(x, s.conj(x)))


def _const(rt, a):
    return rt.constant_from(Tensor.from_numpy(np.asarray(a)))


def _grad(rt, fn, *arrays):
    """fn's value and gradients in tenferro, fn(s, *tensors) a real scalar."""
    xs = [rt.variable_from(Tensor.from_numpy(np.asarray(a))) for a in arrays]
    out = rt.with_eager_session(lambda s: fn(s, *xs))
    return float(np.asarray(out)), [np.asarray(g) for g in rt.grad(out, xs)]


def _value(rt, fn, *arrays):
    return rt.with_eager_session(lambda s: fn(s, *(_const(rt, a) for a in arrays)))


def _fd(rt, fn, x, h=1e-6):
    """The gradient of the real scalar fn(s, x), by central differences."""
    return fd_gradient(lambda y: float(np.asarray(_value(rt, fn, y))), x, h)


def _torch_grad(fn, *arrays):
    ts = [torch.tensor(np.asarray(a), requires_grad=True) for a in arrays]
    out = fn(*ts)
    return float(out.detach()), [g.numpy() for g in torch.autograd.grad(out, ts)]


def _torch_sorted_eig(x):
    """torch.linalg.eig in tenferro's order (real part, then imaginary part)."""
    w, v = torch.linalg.eig(x)
    order = torch.tensor(np.argsort(w.detach().numpy(), axis=-1, kind="stable"))
    return torch.take_along_dim(w, order, -1), torch.take_along_dim(v, order[..., None, :], -1)


def _pivots(v):
    return np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], -2)


# -- values and gauges ----------------------------------------------------------------------------
def test_complex_eigh_has_real_eigenvalues_and_pivots_real_and_positive(rt):
    a = _hermitian(4, (2,))
    w, v = (np.asarray(t) for t in _value(rt, lambda s, x: s.eigh(x), a))
    assert w.dtype == np.float64 and v.dtype == np.complex128
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), atol=1e-12)
    np.testing.assert_allclose((v * w[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2)), a, atol=1e-12)
    pivots = _pivots(v)
    assert np.all(pivots.real > 0) and np.all(pivots.imag == 0)
    eigvalsh = np.asarray(_value(rt, lambda s, x: s.eigvalsh(x), a))
    assert eigvalsh.dtype == np.float64
    np.testing.assert_allclose(eigvalsh, w, atol=1e-12)


def test_complex_eigh_reads_the_hermitian_part(rt):
    """(a + aᴴ)/2: NumPy's eigvalsh for a Hermitian a whatever UPLO; a skew-Hermitian part
    (an imaginary diagonal among it) changes nothing."""
    a = _hermitian(3)
    for uplo in ("L", "U"):
        w = np.asarray(_value(rt, lambda s, x, uplo=uplo: s.eigvalsh(x, uplo), a))
        np.testing.assert_allclose(w, np.linalg.eigvalsh(a, UPLO=uplo), atol=1e-12)
    k = _complex(3, 3)
    junk = a + k - np.conj(k.T)
    np.testing.assert_allclose(np.asarray(_value(rt, lambda s, x: s.eigvalsh(x), junk)), np.linalg.eigvalsh(a))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (2, 4, 4)])
def test_complex_svd_matches_numpy_with_the_phase_gauge(rt, shape):
    a = _complex(*shape)
    u, sv, vh = (np.asarray(t) for t in _value(rt, lambda s, x: s.svd(x), a))
    assert sv.dtype == np.float64 and u.dtype == vh.dtype == np.complex128
    np.testing.assert_allclose(sv, np.linalg.svd(a, compute_uv=False), atol=1e-12)
    np.testing.assert_allclose((u * sv[..., None, :]) @ vh, a, atol=1e-12)
    pivots = _pivots(u)
    assert np.all(pivots.real > 0) and np.all(pivots.imag == 0)
    np.testing.assert_allclose(np.asarray(_value(rt, lambda s, x: s.svdvals(x), a)), sv, atol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_complex_qr_has_a_real_non_negative_diagonal(rt, shape):
    a = _complex(*shape)
    q, r = (np.asarray(t) for t in _value(rt, lambda s, x: s.qr(x), a))
    k = min(shape[-2:])
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(
        np.conj(np.swapaxes(q, -1, -2)) @ q, np.broadcast_to(np.eye(k), (*shape[:-2], k, k)), atol=1e-12
    )
    diagonal = np.diagonal(r, axis1=-2, axis2=-1)
    assert np.all(diagonal.real > 0) and np.all(diagonal.imag == 0)


@pytest.mark.parametrize("dtype, complex_dtype", [(np.float64, np.complex128), (np.float32, np.complex64)])
def test_eig_of_a_real_matrix_is_complex_and_sorted(rt, dtype, complex_dtype):
    a = np.array([[0.0, 2.0, 0.0], [-0.5, 0.0, 0.0], [0.0, 0.0, 3.0]], dtype)  # ±i and 3
    w, v = (np.asarray(t) for t in _value(rt, lambda s, x: s.eig(x), a))
    assert w.dtype == v.dtype == complex_dtype
    np.testing.assert_allclose(w, [-1j, 1j, 3.0], atol=1e-6)
    np.testing.assert_allclose(a @ v, v * w[None, :], atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(v, axis=0), 1.0, atol=1e-6)
    pivots = _pivots(v)
    assert np.all(pivots.real > 0) and np.all(pivots.imag == 0)
    # all eigenvalues real: NumPy's eig gives a real array, tenferro's stays complex
    w_real = np.asarray(_value(rt, lambda s, x: s.eigvals(x), np.diag([3.0, 1.0, 2.0]).astype(dtype)))
    assert w_real.dtype == complex_dtype
    np.testing.assert_array_equal(w_real, [1.0, 2.0, 3.0])


def test_eig_of_a_real_valued_complex_matrix_orders_conjugate_pairs_as_the_real_matrix(rt):
    rng = np.random.default_rng(3)
    mismatches = 0
    for _ in range(20):
        a = rng.standard_normal((5, 5))
        w_real = np.asarray(_value(rt, lambda s, x: s.eigvals(x), a))
        w_complex = np.asarray(_value(rt, lambda s, x: s.eigvals(x), a.astype(np.complex128)))
        mismatches += not np.allclose(w_real, w_complex, atol=1e-10)
    assert mismatches == 0


def test_eig_and_eigvals_match_numpy_as_sets_in_sorted_order(rt):
    a = _general(4, (3,))
    w, v = (np.asarray(t) for t in _value(rt, lambda s, x: s.eig(x), a))
    np.testing.assert_allclose(w, np.sort(np.linalg.eigvals(a), axis=-1), atol=1e-10)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=1e-10)
    np.testing.assert_allclose(np.asarray(_value(rt, lambda s, x: s.eigvals(x), a)), w, atol=1e-10)


# -- gradients: eigh ------------------------------------------------------------------------------
def _eigh_loss(rt, m, c):
    """A real function of a Hermitian matrix's eigendecomposition, invariant under the phase of
    each eigenvector: ⟨m, V exp(0.3 Λ) Vᴴ⟩ + c·w + Σ |V|² weights."""
    weights = RNG.normal(size=m.shape)

    def ours(s, x):
        w, v = s.eigh(s.mul(s.add(x, _h(s, x)), 0.5))
        f = s.matmul(s.mul(v, s.expand_dims(s.exp(s.mul(w, 0.3)), -2)), _h(s, v))
        loss = s.real(s.reduce_sum(s.mul(s.conj(_const(rt, m)), f), None))
        loss = s.add(loss, s.reduce_sum(s.mul(w, _const(rt, c)), None))
        return s.add(loss, s.reduce_sum(s.mul(_abs2(s, v), _const(rt, weights)), None))

    def theirs(x):
        w, v = torch.linalg.eigh((x + x.mH) / 2)
        f = (v * torch.exp(0.3 * w)[..., None, :]) @ v.mH
        loss = (torch.tensor(m).conj() * f).sum().real + (w * torch.tensor(c)).sum()
        return loss + ((v * v.conj()).real * torch.tensor(weights)).sum()

    return ours, theirs


def test_real_loss_through_complex_eigh_matches_finite_differences(rt):
    a = _hermitian(3) + 0.1 * _complex(3, 3)
    ours, _ = _eigh_loss(rt, _complex(3, 3), RNG.normal(size=3))
    _, (g,) = _grad(rt, ours, a)
    assert g.dtype == np.complex128
    np.testing.assert_allclose(g, _fd(rt, ours, a), atol=1e-6)


@needs_torch
def test_real_loss_through_complex_eigh_matches_torch_first_and_second_order(rt):
    a = _hermitian(4, (2,)) + 0.1 * _complex(2, 4, 4)
    ours, theirs = _eigh_loss(rt, _complex(4, 4), RNG.normal(size=4))
    value, (g,) = _grad(rt, ours, a)
    value_t, (g_t,) = _torch_grad(theirs, a)
    assert value == pytest.approx(value_t)
    np.testing.assert_allclose(g, g_t, atol=1e-10)
    # second order: a Hessian-vector product along a complex direction
    direction = _complex(*a.shape)
    x = rt.variable_from(Tensor.from_numpy(a))
    gx = rt.grad(rt.with_eager_session(lambda s: ours(s, x)), x)
    hv = rt.grad(rt.with_eager_session(lambda s: s.real(s.reduce_sum(s.mul(s.conj(gx), _const(rt, direction))))), x)
    xt = torch.tensor(a, requires_grad=True)
    (gt,) = torch.autograd.grad(theirs(xt), xt, create_graph=True)
    (hv_t,) = torch.autograd.grad((gt.conj() * torch.tensor(direction)).sum().real, xt)
    np.testing.assert_allclose(np.asarray(hv), hv_t.numpy(), atol=1e-8)


def test_complex_eigh_gradient_is_hermitian(rt):
    a = _hermitian(3)
    c = RNG.normal(size=3)
    for uplo in ("L", "U"):
        loss = lambda s, x, uplo=uplo: s.reduce_sum(s.mul(s.eigvalsh(x, uplo), _const(rt, c)), None)  # noqa: E731
        _, (g,) = _grad(rt, loss, a)
        np.testing.assert_allclose(g, np.conj(g.T), atol=1e-14)
        np.testing.assert_allclose(g, _fd(rt, loss, a), atol=1e-6)


def test_a_phase_dependent_loss_differentiates_the_gauge_tenferro_returns(rt):
    """Re Σ V is not invariant under v → v·e^{iθ}: PyTorch refuses it; tenferro's gradient is
    the derivative of its gauge-fixed eigenvectors (largest entry real and positive)."""
    a = _hermitian(3)
    b = _complex(3, 3)
    loss = lambda s, x: s.real(s.reduce_sum(s.mul(s.eigh(x)[1], _const(rt, b)), None))  # noqa: E731
    _, (g,) = _grad(rt, loss, a)
    np.testing.assert_allclose(g, _fd(rt, loss, a), atol=1e-6)


# -- gradients: svd, svdvals ----------------------------------------------------------------------
def _svd_loss(rt, shape):
    """Invariant under (u, v) → (u·e^{iθ}, v·e^{iθ}): ⟨b, U Vh⟩ + c·s + Σ |U|², |Vh|² weights."""
    k = min(shape[-2:])
    b, c = _complex(*shape), RNG.normal(size=k)
    wu, wv = RNG.normal(size=(*shape[:-1], k)), RNG.normal(size=(*shape[:-2], k, shape[-1]))

    def ours(s, x):
        u, sv, vh = s.svd(x)
        loss = s.real(s.reduce_sum(s.mul(s.conj(_const(rt, b)), s.matmul(u, vh)), None))
        loss = s.add(loss, s.reduce_sum(s.mul(sv, _const(rt, c)), None))
        loss = s.add(loss, s.reduce_sum(s.mul(_abs2(s, u), _const(rt, wu)), None))
        return s.add(loss, s.reduce_sum(s.mul(_abs2(s, vh), _const(rt, wv)), None))

    def theirs(x):
        u, sv, vh = torch.linalg.svd(x, full_matrices=False)
        loss = (torch.tensor(b).conj() * (u @ vh)).sum().real + (sv * torch.tensor(c)).sum()
        return loss + ((u * u.conj()).real * torch.tensor(wu)).sum() + ((vh * vh.conj()).real * torch.tensor(wv)).sum()

    return ours, theirs


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_complex_svd_gauge_invariant_loss_matches_finite_differences(rt, shape):
    a = _complex(*shape)
    ours, _ = _svd_loss(rt, shape)
    _, (g,) = _grad(rt, ours, a)
    np.testing.assert_allclose(g, _fd(rt, ours, a), atol=1e-6)


@needs_torch
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
def test_complex_svd_gauge_invariant_loss_matches_torch(rt, shape):
    a = _complex(*shape)
    ours, theirs = _svd_loss(rt, shape)
    value, (g,) = _grad(rt, ours, a)
    value_t, (g_t,) = _torch_grad(theirs, a)
    assert value == pytest.approx(value_t)
    np.testing.assert_allclose(g, g_t, atol=1e-9)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_complex_svd_phase_dependent_loss_differentiates_the_gauge(rt, shape):
    a = _complex(*shape)
    bu, bv = _complex(shape[0], min(shape)), _complex(min(shape), shape[1])

    def loss(s, x):
        u, _, vh = s.svd(x)
        return s.real(
            s.add(s.reduce_sum(s.mul(u, _const(rt, bu)), None), s.reduce_sum(s.mul(vh, _const(rt, bv)), None))
        )

    _, (g,) = _grad(rt, loss, a)
    np.testing.assert_allclose(g, _fd(rt, loss, a), atol=1e-6)


@needs_torch
def test_complex_svdvals_gradient_matches_torch(rt):
    a, c = _complex(2, 3, 4), RNG.normal(size=3)
    _, (g,) = _grad(rt, lambda s, x: s.reduce_sum(s.mul(s.svdvals(x), _const(rt, c)), None), a)
    _, (g_t,) = _torch_grad(lambda x: (torch.linalg.svdvals(x) * torch.tensor(c)).sum(), a)
    np.testing.assert_allclose(g, g_t, atol=1e-10)


# -- gradients: qr --------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 2)])
def test_complex_qr_gauge_invariant_loss_matches_torch_and_finite_differences(rt, shape):
    """|q|² and |r|² do not see the phases PyTorch's (LAPACK's) diagonal of r has."""
    a = _complex(*shape)
    k = min(shape[-2:])
    wq, wr = RNG.normal(size=(*shape[:-1], k)), RNG.normal(size=(*shape[:-2], k, shape[-1]))

    def ours(s, x):
        q, r = s.qr(x)
        loss = s.reduce_sum(s.mul(_abs2(s, q), _const(rt, wq)), None)
        return s.add(loss, s.reduce_sum(s.mul(_abs2(s, r), _const(rt, wr)), None))

    def theirs(x):
        q, r = torch.linalg.qr(x)
        return ((q * q.conj()).real * torch.tensor(wq)).sum() + ((r * r.conj()).real * torch.tensor(wr)).sum()

    value, (g,) = _grad(rt, ours, a)
    value_t, (g_t,) = _torch_grad(theirs, a)
    assert value == pytest.approx(value_t)
    np.testing.assert_allclose(g, g_t, atol=1e-9)
    if len(shape) == 2:
        np.testing.assert_allclose(g, _fd(rt, ours, a), atol=1e-6)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5)])
def test_complex_qr_of_the_gauge_tenferro_returns_matches_finite_differences(rt, shape):
    a = _complex(*shape)
    bq, br = _complex(shape[0], min(shape)), _complex(min(shape), shape[1])

    def loss(s, x):
        q, r = s.qr(x)
        return s.real(s.add(s.reduce_sum(s.mul(q, _const(rt, bq)), None), s.reduce_sum(s.mul(r, _const(rt, br)), None)))

    _, (g,) = _grad(rt, loss, a)
    np.testing.assert_allclose(g, _fd(rt, loss, a), atol=1e-6)


# -- gradients: eig, eigvals ----------------------------------------------------------------------
def _eig_loss(rt, n, batch=()):
    """Re(c·w) + Re(d·w²) + Σ |V|² weights: invariant under the phase of each eigenvector."""
    c, d, weights = _complex(*batch, n), _complex(*batch, n), RNG.normal(size=(*batch, n, n))

    def ours(s, x):
        w, v = s.eig(x)
        loss = s.real(s.reduce_sum(s.add(s.mul(w, _const(rt, c)), s.mul(s.mul(w, w), _const(rt, d))), None))
        return s.add(loss, s.reduce_sum(s.mul(_abs2(s, v), _const(rt, weights)), None))

    def theirs(x):
        w, v = _torch_sorted_eig(x)
        loss = (w * torch.tensor(c) + w * w * torch.tensor(d)).sum().real
        return loss + ((v * v.conj()).real * torch.tensor(weights)).sum()

    return ours, theirs


def test_eig_of_a_real_matrix_gives_a_real_gradient_matching_finite_differences(rt):
    a = np.array([[1.0, 2.0, 0.3], [-0.7, 0.5, 0.2], [0.1, -0.4, 2.5]])  # a complex pair and a real eigenvalue
    assert np.iscomplexobj(np.linalg.eigvals(a))
    ours, _ = _eig_loss(rt, 3)
    _, (g,) = _grad(rt, ours, a)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, _fd(rt, ours, a), atol=1e-6)


def test_eig_of_a_complex_matrix_matches_finite_differences(rt):
    a = _general(3)
    ours, _ = _eig_loss(rt, 3)
    _, (g,) = _grad(rt, ours, a)
    assert g.dtype == np.complex128
    np.testing.assert_allclose(g, _fd(rt, ours, a), atol=1e-6)


@needs_torch
@pytest.mark.parametrize("complex_", [False, True])
def test_eig_gauge_invariant_loss_matches_torch_first_and_second_order(rt, complex_):
    a = _general(4, (2,), complex_=complex_)
    assert np.iscomplexobj(a) == complex_
    ours, theirs = _eig_loss(rt, 4, (2,))
    value, (g,) = _grad(rt, ours, a)
    value_t, (g_t,) = _torch_grad(theirs, a)
    assert value == pytest.approx(value_t)
    assert g.dtype == g_t.dtype
    np.testing.assert_allclose(g, g_t, atol=1e-9)
    direction = _complex(*a.shape) if complex_ else RNG.normal(size=a.shape)
    x = rt.variable_from(Tensor.from_numpy(a))
    gx = rt.grad(rt.with_eager_session(lambda s: ours(s, x)), x)
    hv = rt.grad(rt.with_eager_session(lambda s: s.real(s.reduce_sum(s.mul(s.conj(gx), _const(rt, direction))))), x)
    xt = torch.tensor(a, requires_grad=True)
    (gt,) = torch.autograd.grad(theirs(xt), xt, create_graph=True)
    (hv_t,) = torch.autograd.grad((gt.conj() * torch.tensor(direction)).sum().real, xt)
    np.testing.assert_allclose(np.asarray(hv), hv_t.numpy(), atol=1e-8)


def test_eig_phase_dependent_loss_differentiates_the_gauge(rt):
    a = _general(3)
    b = _complex(3, 3)
    loss = lambda s, x: s.real(s.reduce_sum(s.mul(s.eig(x)[1], _const(rt, b)), None))  # noqa: E731
    _, (g,) = _grad(rt, loss, a)
    np.testing.assert_allclose(g, _fd(rt, loss, a), atol=1e-6)


@needs_torch
@pytest.mark.parametrize("complex_", [False, True])
def test_eigvals_gradient_matches_torch_and_finite_differences(rt, complex_):
    a = _general(3, complex_=complex_)
    c = _complex(3)
    ours = lambda s, x: s.real(s.reduce_sum(s.mul(s.eigvals(x), _const(rt, c)), None))  # noqa: E731
    _, (g,) = _grad(rt, ours, a)
    _, (g_t,) = _torch_grad(lambda x: (_torch_sorted_eig(x)[0] * torch.tensor(c)).sum().real, a)
    np.testing.assert_allclose(g, g_t, atol=1e-10)
    np.testing.assert_allclose(g, _fd(rt, ours, a), atol=1e-6)


# -- conventions ----------------------------------------------------------------------------------
def test_eig_eigenvectors_at_a_repeated_eigenvalue_raise_naming_the_complex_values(rt):
    a = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]) + 0j
    with pytest.raises((NotDifferentiable, RuleError), match=r"eig: eigenvalues 0 and 1 .*\(1\+0j\)"):
        _grad(rt, lambda s, x: _abs2(s, s.reduce_sum(s.eig(x)[1], None)), a)


def test_eigvals_at_a_repeated_eigenvalue_of_a_normal_matrix_is_fine(rt):
    a = np.diag([1.0, 1.0, 2.0]) + 0j
    _, (g,) = _grad(rt, lambda s, x: s.real(s.reduce_sum(s.eigvals(x), None)), a)
    np.testing.assert_allclose(g, np.eye(3), atol=1e-12)  # d tr(a) = I


def test_complex_errors_name_the_op_and_the_argument(rt):
    with pytest.raises(Exception, match="eig: a has shape"):
        _value(rt, lambda s, x: s.eig(x), _complex(2, 3))
    with pytest.raises(Exception, match="eigvals: a has nan or inf"):
        _value(rt, lambda s, x: s.eigvals(x), np.array([[np.nan, 0], [0, 1]], complex))
