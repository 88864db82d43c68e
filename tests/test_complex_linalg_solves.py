"""Complex numbers in the linalg solves: solve, triangular_solve, inv, det, slogdet,
matrix_power, cholesky, lstsq, pinv, the norms and cross. Values against NumPy/SciPy,
gradients against PyTorch and finite differences, mixed real and complex operands (a real
operand gets a real gradient), slogdet's complex sign, real norms of complex inputs, and
the LU cache (float64 only: complex solves bypass it)."""

import numpy as np
import pytest
import scipy.linalg
from conftest import fd_gradient, needs_torch, torch

from tenferro.plugins.linalg import solve_lu
from tenferro.plugins.linalg.batching import NotPositiveDefinite, SingularMatrix

RNG = np.random.default_rng(1111)


def _complex(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _unitary(n):
    q, _ = np.linalg.qr(_complex(n, n))
    return q


def _conditioned(n, batch=()):
    """U diag(d) Vᴴ with |d| in [1, 2] and random phases."""
    out = np.empty((*batch, n, n), complex)
    for index in np.ndindex(*batch):
        d = RNG.uniform(1.0, 2.0, n) * np.exp(1j * RNG.uniform(-np.pi, np.pi, n))
        out[index] = (_unitary(n) * d) @ _unitary(n).conj().T
    return out


def _hpd(n):
    q = _unitary(n)
    return (q * RNG.uniform(1.0, 3.0, n)) @ q.conj().T


def _lower(n):
    t = np.tril(_complex(n, n) * 0.3)
    t[np.arange(n), np.arange(n)] = RNG.uniform(1.0, 2.0, n) * np.exp(1j * RNG.uniform(-np.pi, np.pi, n))
    return t


def _weights(shape, dtype):
    n = int(np.prod(shape))
    w = np.cos(np.arange(n) + 0.5).reshape(shape)
    return (w + 1j * np.sin(0.3 * np.arange(n) - 1.0).reshape(shape)) if np.dtype(dtype).kind == "c" else w


def _loss_terms(s, outs):
    """Σ over results of Re Σ out·c (c complex for complex results, real for real ones)."""
    total = None
    for out in outs:
        c = s.runtime.constant_from(_weights(out.shape, out.dtype))
        term = s.reduce_sum(s.mul(out, c), None)
        term = s.real(term) if out.dtype.kind == "c" else term
        total = term if total is None else s.add(total, term)
    return total


def _ours(rt, fn, arrays):
    tensors = [rt.variable_from(a) for a in arrays]
    outs = rt.with_eager_session(lambda s: fn(s, *tensors))
    outs = outs if isinstance(outs, tuple) else (outs,)
    grads = rt.grad(rt.with_eager_session(lambda s: _loss_terms(s, outs)), tensors)
    return [np.asarray(o) for o in outs], [np.asarray(g) for g in grads]


def _theirs(fn, arrays):
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    promoted = [t if t.is_complex() else t.to(torch.complex128) for t in tensors]
    promoted = promoted if any(np.iscomplexobj(a) for a in arrays) else tensors
    outs = fn(*promoted)
    outs = outs if isinstance(outs, tuple) else (outs,)
    loss = 0
    for out in outs:
        c = torch.tensor(_weights(tuple(out.shape), np.complex128 if out.is_complex() else np.float64))
        term = (out * c).sum()
        loss = loss + (term.real if out.is_complex() else term)
    grads = torch.autograd.grad(loss, tensors)
    return [o.detach().resolve_conj().numpy() for o in outs], [g.resolve_conj().numpy() for g in grads]


def _agree_with_torch(rt, ours, theirs, arrays, rtol=1e-10):
    values, grads = _ours(rt, ours, arrays)
    values_t, grads_t = _theirs(theirs, arrays)
    for v, vt in zip(values, values_t):
        assert v.dtype.kind == vt.dtype.kind
        np.testing.assert_allclose(v, vt, rtol=rtol, atol=rtol)
    for g, gt, a in zip(grads, grads_t, arrays):
        assert g.dtype == a.dtype  # a real operand gets a real gradient
        np.testing.assert_allclose(g, gt, rtol=rtol, atol=rtol)


def _fd_gradient(loss, arrays, k, h=1e-6):
    """The gradient of a real loss of ``arrays`` in arrays[k], by central differences."""
    return fd_gradient(lambda y: loss([y if m == k else a for m, a in enumerate(arrays)]), arrays[k], h)


def _numpy_loss(reference):
    def loss(arrays):
        outs = reference(*arrays)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return sum(float(np.real(np.sum(o * _weights(np.shape(o), np.asarray(o).dtype)))) for o in outs)

    return loss


def _agree_with_fd(rt, ours, reference, arrays, rtol=1e-6):
    values, grads = _ours(rt, ours, arrays)
    expected = reference(*arrays)
    for v, e in zip(values, expected if isinstance(expected, tuple) else (expected,)):
        np.testing.assert_allclose(v, e, rtol=1e-10, atol=1e-12)
    for k, g in enumerate(grads):
        assert g.dtype == arrays[k].dtype
        np.testing.assert_allclose(g, _fd_gradient(_numpy_loss(reference), arrays, k), rtol=rtol, atol=rtol)


def _operands(kinds, complex_a, real_a, b_shape):
    a = complex_a if kinds[0] == "c" else real_a
    b = _complex(*b_shape) if kinds[1] == "c" else RNG.standard_normal(b_shape)
    return [a, b]


KINDS = ["cc", "cr", "rc"]


# -- solve -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kinds", KINDS)
@pytest.mark.parametrize("b_shape", [(3,), (3, 2), (2, 3, 2)])
def test_solve_complex_matches_numpy_and_fd(rt, kinds, b_shape):
    arrays = _operands(kinds, _conditioned(3), RNG.standard_normal((3, 3)) + 3 * np.eye(3), b_shape)
    _agree_with_fd(rt, lambda s, a, b: s.solve(a, b), np.linalg.solve, arrays)


@needs_torch
@pytest.mark.parametrize("kinds", KINDS)
def test_solve_gradients_match_torch(rt, kinds):
    arrays = _operands(kinds, _conditioned(3, (2,)), RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3), (2, 3, 2))
    _agree_with_torch(rt, lambda s, a, b: s.solve(a, b), torch.linalg.solve, arrays)


def test_solve_transposed_solves_with_the_conjugate_transpose(rt):
    a, b = _conditioned(3), _complex(3, 2)
    out = rt.with_eager_session(lambda s: s.solve_transposed(rt.constant_from(a), rt.constant_from(b)))
    np.testing.assert_allclose(np.asarray(out), np.linalg.solve(a.conj().T, b), rtol=1e-12)


def test_large_complex_solve_bypasses_the_lu_cache(rt):
    """The LU cache is float64 only: a complex matrix of the fast path's size takes
    np.linalg both ways (forward and VJP), and nothing is cached for it."""
    n = solve_lu.FAST_SIZE + 4
    a, b = _conditioned(n), _complex(n, 2)
    ta, tb = rt.variable_from(a), rt.variable_from(b)
    before = set(solve_lu._cache)
    out = rt.with_eager_session(lambda s: s.solve(ta, tb))
    np.testing.assert_allclose(np.asarray(out), np.linalg.solve(a, b), rtol=1e-10)
    c = _weights(out.shape, out.dtype)
    ga, gb = rt.grad(
        rt.with_eager_session(lambda s: s.real(s.reduce_sum(s.mul(out, rt.constant_from(c)), None))), [ta, tb]
    )
    gb_expected = np.linalg.solve(a.conj().T, c.conj())  # a⁻ᴴ g with g = conj(c)
    np.testing.assert_allclose(np.asarray(gb), gb_expected, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(ga), -gb_expected @ np.asarray(out).conj().T, rtol=1e-10)
    assert set(solve_lu._cache) == before


def test_singular_complex_matrix_is_named(rt):
    a = np.stack([np.eye(2, dtype=complex), np.array([[1, 1j], [1j, -1]])])  # batch 1: det = -1 - i² = 0
    with pytest.raises(SingularMatrix, match="solve: a at batch index 1 is a singular matrix"):
        rt.with_eager_session(lambda s: s.solve(rt.constant_from(a), rt.constant_from(np.ones(2, complex))))


# -- triangular_solve -----------------------------------------------------------------------------------
@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("kinds", KINDS)
def test_triangular_solve_complex_matches_scipy_and_fd(rt, trans, kinds):
    real = np.tril(RNG.standard_normal((3, 3)) * 0.3) + np.diag([1.5, -1.2, 2.0])
    arrays = _operands(kinds, _lower(3), real, (3, 2))

    def reference(a, b):
        return scipy.linalg.solve_triangular(a, b, trans=trans, lower=True)

    _agree_with_fd(rt, lambda s, a, b: s.triangular_solve(a, b, lower=True, trans=trans), reference, arrays)


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_triangular_solve_complex_upper_unit_diagonal(rt, trans):
    arrays = [_lower(3).T + np.tril(_complex(3, 3), -1), _complex(3)]  # garbage below the diagonal

    def reference(a, b):
        return scipy.linalg.solve_triangular(a, b, trans=trans, lower=False, unit_diagonal=True)

    _agree_with_fd(
        rt, lambda s, a, b: s.triangular_solve(a, b, lower=False, trans=trans, unit_diagonal=True), reference, arrays
    )


def test_large_complex_triangular_solve_takes_lapack(rt):
    n = solve_lu.FAST_SIZE + 4
    a, b = _lower(n), _complex(n, 3)
    for trans in (0, 1, 2):
        out = rt.with_eager_session(
            lambda s, trans=trans: s.triangular_solve(rt.constant_from(a), rt.constant_from(b), trans=trans)
        )
        op = {0: a, 1: a.T, 2: a.conj().T}[trans]
        np.testing.assert_allclose(np.asarray(out), np.linalg.solve(op, b), rtol=1e-10)


@needs_torch
@pytest.mark.parametrize("trans", [0, 1, 2])
def test_triangular_solve_gradients_match_torch(rt, trans):
    def theirs(a, b):
        op = {0: a.tril(), 1: a.tril().mT, 2: a.tril().mH}[trans]
        return torch.linalg.solve_triangular(op, b, upper=trans != 0)

    arrays = [_lower(3) + np.triu(_complex(3, 3), 1), _complex(3, 2)]
    _agree_with_torch(rt, lambda s, a, b: s.triangular_solve(a, b, trans=trans), theirs, arrays)


# -- inv, det, slogdet, matrix_power ------------------------------------------------------------------------
@needs_torch
def test_inv_det_and_matrix_power_gradients_match_torch(rt):
    a = [_conditioned(3, (2,))]
    _agree_with_torch(rt, lambda s, a: s.inv(a), torch.linalg.inv, a)
    _agree_with_torch(rt, lambda s, a: s.det(a), torch.linalg.det, a)
    for n in (-3, -1, 0, 2, 5):
        _agree_with_torch(rt, lambda s, a, n=n: s.matrix_power(a, n), lambda a, n=n: torch.linalg.matrix_power(a, n), a)


def test_inv_det_matrix_power_match_numpy_and_fd(rt):
    a = [_conditioned(3)]
    _agree_with_fd(rt, lambda s, a: s.inv(a), np.linalg.inv, a)
    _agree_with_fd(rt, lambda s, a: s.det(a), np.linalg.det, a)
    _agree_with_fd(rt, lambda s, a: s.matrix_power(a, -2), lambda a: np.linalg.matrix_power(a, -2), a)


def test_det_gradient_is_g_conj_det_inverse_transpose(rt):
    a = _conditioned(3)
    ta = rt.variable_from(a)
    (g,) = rt.grad(rt.with_eager_session(lambda s: s.real(s.det(ta))), [ta])
    np.testing.assert_allclose(np.asarray(g), np.conj(np.linalg.det(a) * np.linalg.inv(a).T), rtol=1e-12)


def test_slogdet_of_complex_has_a_complex_sign_and_real_logabsdet(rt):
    a = _conditioned(3, (2,))
    sign, logabsdet = rt.with_eager_session(lambda s: s.slogdet(rt.constant_from(a)))
    assert sign.dtype == np.complex128 and logabsdet.dtype == np.float64
    sign_np, logabsdet_np = np.linalg.slogdet(a)
    np.testing.assert_allclose(np.asarray(sign), sign_np, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(logabsdet), logabsdet_np, rtol=1e-12)
    np.testing.assert_allclose(np.abs(np.asarray(sign)), 1.0, rtol=1e-14)


def test_slogdet_gradients_of_sign_and_logabsdet_match_fd(rt):
    _agree_with_fd(rt, lambda s, a: s.slogdet(a), lambda a: tuple(np.linalg.slogdet(a)), [_conditioned(3)])


def test_gradient_of_log_abs_det_is_the_inverse_conjugate_transpose(rt):
    a = _conditioned(3)
    ta = rt.variable_from(a)
    (g,) = rt.grad(rt.with_eager_session(lambda s: s.slogdet(ta)[1]), [ta])
    np.testing.assert_allclose(np.asarray(g), np.linalg.inv(a).conj().T, rtol=1e-12)


@needs_torch
def test_slogdet_gradients_match_torch(rt):
    _agree_with_torch(rt, lambda s, a: s.slogdet(a), lambda a: tuple(torch.linalg.slogdet(a)), [_conditioned(3, (2,))])


def test_real_slogdet_sign_still_has_no_gradient(rt):
    a = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
    ta = rt.variable_from(a)
    (g,) = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.slogdet(ta)[0], None)), [ta])
    np.testing.assert_array_equal(np.asarray(g), np.zeros((3, 3)))


# -- cholesky -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_of_hermitian_positive_definite_matches_scipy_and_fd(rt, upper):
    a = _hpd(3)
    _agree_with_fd(
        rt,
        lambda s, a: s.cholesky(a, upper=upper),
        lambda a: scipy.linalg.cholesky((a + a.conj().T) / 2, lower=not upper),
        [a],
    )


def test_cholesky_gradient_is_hermitian(rt):
    ta = rt.variable_from(_hpd(4))
    out = rt.with_eager_session(lambda s: s.cholesky(ta))
    c = _weights(out.shape, out.dtype)
    (g,) = rt.grad(rt.with_eager_session(lambda s: s.real(s.reduce_sum(s.mul(out, rt.constant_from(c)), None))), [ta])
    g = np.asarray(g)
    np.testing.assert_allclose(g, g.conj().T, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_gradient_is_the_hermitian_part_of_torchs(rt, upper):
    """PyTorch's complex cholesky gradient is not Hermitian; tenferro's forward reads the
    Hermitian part (a + aᴴ)/2, so its gradient is the Hermitian part of PyTorch's (the same
    on every Hermitian direction)."""
    a = np.stack([_hpd(3), _hpd(3)])
    values, (g,) = _ours(rt, lambda s, a: s.cholesky(a, upper=upper), [a])
    values_t, (gt,) = _theirs(lambda a: torch.linalg.cholesky(a, upper=upper), [a])
    np.testing.assert_allclose(values[0], values_t[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, (gt + np.swapaxes(gt, -1, -2).conj()) / 2, rtol=1e-10, atol=1e-10)


def test_cholesky_of_a_complex_matrix_that_is_not_positive_definite_is_named(rt):
    a = np.stack([_hpd(2), -_hpd(2)])
    with pytest.raises(NotPositiveDefinite, match="cholesky: a at batch index 1 is not positive definite"):
        rt.with_eager_session(lambda s: s.cholesky(rt.constant_from(a)))


# -- lstsq, pinv --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 2), (2, 4), (3, 3)])
@pytest.mark.parametrize("kinds", KINDS)
def test_lstsq_complex_matches_numpy_and_fd(rt, shape, kinds):
    arrays = _operands(kinds, _complex(*shape), RNG.standard_normal(shape), (shape[0], 2))
    _agree_with_fd(rt, lambda s, a, b: s.lstsq(a, b), lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], arrays)


@needs_torch
@pytest.mark.parametrize("shape", [(4, 2), (2, 4)])
def test_lstsq_and_pinv_gradients_match_torch(rt, shape):
    arrays = [_complex(*shape), _complex(shape[0])]
    _agree_with_torch(rt, lambda s, a, b: s.lstsq(a, b), lambda a, b: torch.linalg.pinv(a) @ b, arrays)
    _agree_with_torch(rt, lambda s, a: s.pinv(a), torch.linalg.pinv, arrays[:1])


# -- norms and cross ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ord", [2, 1, 3, np.inf, -np.inf, 0])
def test_vector_norm_of_complex_is_real_and_matches_numpy_and_fd(rt, ord):
    x = _complex(2, 3)
    _agree_with_fd(
        rt, lambda s, x: s.vector_norm(x, axis=-1, ord=ord), lambda x: np.linalg.vector_norm(x, axis=-1, ord=ord), [x]
    )
    out = rt.with_eager_session(lambda s: s.vector_norm(rt.constant_from(x.astype(np.complex64)), ord=ord))
    assert out.dtype == np.float32


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_vector_norm_of_a_general_order_is_the_same_number_on_every_engine(dtype, axis):
    """NumPy raises a 0-d sum to 1/p with Python's scalar pow, where an engine's array has
    the ufunc only (its last bit can differ): the kernel takes the ufunc on NumPy's arrays
    too, in the sum's dtype (a float32 norm stays float32)."""
    from tenferro.core.loading import default_registry
    from tenferro.testing.duck import DuckArray

    forward = default_registry()["vector_norm"].forward
    x = np.array([[0.5625, 0.8125, -0.25], [1.5, 0.0, 2.0]]).astype(dtype)
    on_numpy, on_duck = forward(x, axis=axis, ord=3), forward(DuckArray(x), axis=axis, ord=3).unwrap()
    assert on_numpy.dtype == on_duck.dtype == np.real(x).dtype
    np.testing.assert_array_equal(on_numpy, on_duck)
    np.testing.assert_allclose(
        on_numpy, np.linalg.vector_norm(x, axis=axis, ord=3), rtol=4 * np.finfo(on_numpy.dtype).eps
    )


@pytest.mark.parametrize("ord", ["fro", 1, -1, np.inf, -np.inf])
def test_matrix_norm_of_complex_is_real_and_matches_numpy_and_fd(rt, ord):
    x = _complex(2, 3, 3)
    _agree_with_fd(rt, lambda s, x: s.matrix_norm(x, ord=ord), lambda x: np.linalg.matrix_norm(x, ord=ord), [x])


@needs_torch
@pytest.mark.parametrize("ord", [2, 1, 3, np.inf])
def test_vector_norm_gradients_match_torch(rt, ord):
    _agree_with_torch(
        rt,
        lambda s, x: s.vector_norm(x, axis=0, ord=ord),
        lambda x: torch.linalg.vector_norm(x, dim=0, ord=ord),
        [_complex(4, 2)],
    )


@needs_torch
@pytest.mark.parametrize("ord", ["fro", 1, np.inf])
def test_matrix_norm_gradients_match_torch(rt, ord):
    _agree_with_torch(
        rt, lambda s, x: s.matrix_norm(x, ord=ord), lambda x: torch.linalg.matrix_norm(x, ord=ord), [_complex(2, 3, 4)]
    )


def test_gradient_of_squared_vector_norm_is_2z(rt):
    z = rt.variable_from(_complex(5))
    (g,) = rt.grad(rt.with_eager_session(lambda s: s.square(s.vector_norm(z))), [z])
    np.testing.assert_allclose(np.asarray(g), 2 * np.asarray(z), rtol=1e-13)


def test_vector_norm_at_zero_has_subgradient_zero(rt):
    z = rt.variable_from(np.zeros(3, complex))
    for ord in (2, 1):
        (g,) = rt.grad(rt.with_eager_session(lambda s, ord=ord: s.vector_norm(z, ord=ord)), [z])
        np.testing.assert_array_equal(np.asarray(g), np.zeros(3, complex))


@pytest.mark.parametrize("kinds", KINDS)
def test_cross_complex_matches_numpy_and_fd(rt, kinds):
    arrays = _operands(kinds, _complex(2, 3), RNG.standard_normal((2, 3)), (3,))
    _agree_with_fd(rt, lambda s, a, b: s.cross(a, b), np.cross, arrays)


@needs_torch
def test_cross_gradients_match_torch(rt):
    arrays = [_complex(2, 3), _complex(2, 3)]
    _agree_with_torch(rt, lambda s, a, b: s.cross(a, b), lambda a, b: torch.linalg.cross(a, b), arrays)
