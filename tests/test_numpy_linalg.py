"""``tnp``'s linear algebra (matmul, tensordot, vecdot, matrix_transpose, einsum, outer,
dot), ``tnp.linalg`` and ``tnp.fft``: values against NumPy, gradients against finite
differences of the NumPy function, the tnp form and the session form bitwise equal (values
and gradients), the standard's named tuples and keyword-only signatures, and errors that
name the tnp function and its argument."""

import inspect
import re

import numpy as np
import pytest
from conftest import fd_gradient, needs_torch, run_docs_example, torch

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, AxisError, ShapeMismatch
from tenferro.numpy._dispatch import session_of

RNG = np.random.default_rng(12)


def m(*shape):
    return RNG.normal(size=shape)


def spd(n, *batch):
    a = m(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def sym(n):
    a = m(n, n)
    return a + a.T


def _qr_r(a):
    q, r = np.linalg.qr(a)
    return r * np.conj(np.sign(np.diagonal(r, axis1=-2, axis2=-1)))[..., None]


def _qr_complete(a):
    """NumPy's complete QR in tnp's gauge: the reduced QR of [a | I]."""
    k = a.shape[-2]
    eye = np.broadcast_to(np.eye(k, dtype=a.dtype), (*a.shape[:-2], k, k))
    q, r = np.linalg.qr(np.concatenate([a, eye], axis=-1))
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))  # the phases d/|d| of R's diagonal
    return q * signs[..., None, :], (r * np.conj(signs)[..., None])[..., : a.shape[-1]]


def _pinv_cut(a, rtol):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    inverse = np.where(s > rtol * s.max(-1, keepdims=True), 1 / s, 0)
    return (np.swapaxes(vh, -1, -2).conj() * inverse[..., None, :]) @ np.swapaxes(u, -1, -2).conj()


#: (id, tnp form, NumPy form, inputs, session form or None): the session form is the op
#: the tnp function is a layer over, for the bitwise check.
CASES = [
    ("matmul", tnp.matmul, np.matmul, (m(2, 3, 4), m(4, 5)), lambda s, a, b: s.matmul(a, b)),
    ("matmul-vector", tnp.matmul, np.matmul, (m(3, 4), m(4)), lambda s, a, b: s.matmul(a, b)),
    ("tensordot", tnp.tensordot, np.tensordot, (m(2, 3, 4), m(3, 4, 5)), lambda s, a, b: s.tensordot(a, b, 2)),
    (
        "tensordot-axes",
        lambda a, b: tnp.tensordot(a, b, axes=((0, 2), (2, 0))),
        lambda a, b: np.tensordot(a, b, axes=((0, 2), (2, 0))),
        (m(2, 3, 4), m(4, 5, 2)),
        lambda s, a, b: s.tensordot(a, b, ((0, 2), (2, 0))),
    ),
    ("vecdot", tnp.vecdot, np.linalg.vecdot, (m(2, 3, 4), m(3, 4)), lambda s, a, b: s.vecdot(a, b, -1)),
    (
        "vecdot-axis",
        lambda a, b: tnp.vecdot(a, b, axis=0),
        lambda a, b: np.linalg.vecdot(a, b, axis=-2),
        (m(3, 4), m(2, 3, 4)),
        lambda s, a, b: s.vecdot(a, b, -2),
    ),
    ("matrix_transpose", tnp.matrix_transpose, lambda a: np.swapaxes(a, -1, -2), (m(2, 3, 4),), None),
    (
        "einsum",
        lambda a, b: tnp.einsum("bij,jk->bik", a, b, optimize=True),
        lambda a, b: np.einsum("bij,jk->bik", a, b),
        (m(2, 3, 4), m(4, 5)),
        lambda s, a, b: s.einsum([a, b], "bij,jk->bik"),
    ),
    ("outer", tnp.outer, np.outer, (m(3), m(4)), lambda s, a, b: s.outer(a, b)),
    ("dot-2d", tnp.dot, np.dot, (m(3, 4), m(4, 2)), None),
    ("dot-nd", tnp.dot, np.dot, (m(2, 3, 4), m(5, 4, 2)), None),
    ("dot-vector", tnp.dot, np.dot, (m(2, 3, 4), m(4)), None),
    ("cholesky", tnp.linalg.cholesky, np.linalg.cholesky, (spd(3, 2),), lambda s, a: s.cholesky(a)),
    (
        "cholesky-upper",
        lambda a: tnp.linalg.cholesky(a, upper=True),
        lambda a: np.swapaxes(np.linalg.cholesky(a), -1, -2),
        (spd(3),),
        lambda s, a: s.cholesky(a, upper=True),
    ),
    ("cross", tnp.linalg.cross, np.cross, (m(2, 3), m(3)), lambda s, a, b: s.cross(a, b, -1)),
    ("det", tnp.linalg.det, np.linalg.det, (m(2, 3, 3),), lambda s, a: s.det(a)),
    (
        "diagonal",
        lambda a: tnp.linalg.diagonal(a, offset=1),
        lambda a: np.diagonal(a, 1, -2, -1),
        (m(2, 3, 4),),
        lambda s, a: s.diagonal(a, 1, -2, -1),
    ),
    ("eigvalsh", tnp.linalg.eigvalsh, np.linalg.eigvalsh, (sym(4),), lambda s, a: s.eigvalsh(a)),
    (
        "eigh-values",
        lambda a: tnp.linalg.eigh(a).eigenvalues,
        lambda a: np.linalg.eigh(a).eigenvalues,
        (sym(4),),
        lambda s, a: s.eigh(a)[0],
    ),
    ("inv", tnp.linalg.inv, np.linalg.inv, (m(2, 3, 3),), lambda s, a: s.inv(a)),
    ("matrix_norm", tnp.linalg.matrix_norm, np.linalg.matrix_norm, (m(2, 3, 4),), lambda s, a: s.matrix_norm(a)),
    (
        "matrix_norm-nuc",
        lambda a: tnp.linalg.matrix_norm(a, ord="nuc", keepdims=True),
        lambda a: np.linalg.matrix_norm(a, ord="nuc", keepdims=True),
        (m(3, 4),),
        lambda s, a: s.matrix_norm(a, "nuc", True),
    ),
    (
        "matrix_power",
        lambda a: tnp.linalg.matrix_power(a, 3),
        lambda a: np.linalg.matrix_power(a, 3),
        (m(3, 3),),
        lambda s, a: s.matrix_power(a, 3),
    ),
    (
        "matrix_power-negative",
        lambda a: tnp.linalg.matrix_power(a, -2),
        lambda a: np.linalg.matrix_power(a, -2),
        (m(3, 3),),
        lambda s, a: s.matrix_power(a, -2),
    ),
    ("pinv", tnp.linalg.pinv, np.linalg.pinv, (m(4, 3),), lambda s, a: s.pinv(a)),
    (
        "pinv-rtol",
        lambda a: tnp.linalg.pinv(a, rtol=1e-3),
        lambda a: _pinv_cut(a, 1e-3),
        (m(2, 3, 4),),
        None,
    ),
    ("qr-r", lambda a: tnp.linalg.qr(a).R, _qr_r, (m(4, 3),), lambda s, a: s.qr(a)[1]),
    ("qr-complete-q", lambda a: tnp.linalg.qr(a, mode="complete").Q, lambda a: _qr_complete(a)[0], (m(4, 2),), None),
    ("qr-complete-r", lambda a: tnp.linalg.qr(a, mode="complete").R, lambda a: _qr_complete(a)[1], (m(4, 2),), None),
    (
        "slogdet",
        lambda a: tnp.linalg.slogdet(a).logabsdet,
        lambda a: np.linalg.slogdet(a).logabsdet,
        (m(2, 3, 3),),
        lambda s, a: s.slogdet(a)[1],
    ),
    ("solve", tnp.linalg.solve, np.linalg.solve, (m(2, 3, 3), m(2, 3, 2)), lambda s, a, b: s.solve(a, b)),
    ("solve-vector", tnp.linalg.solve, np.linalg.solve, (m(3, 3), m(3)), lambda s, a, b: s.solve(a, b)),
    ("svdvals", tnp.linalg.svdvals, np.linalg.svdvals, (m(2, 4, 3),), lambda s, a: s.svdvals(a)),
    (
        "svd-s",
        lambda a: tnp.linalg.svd(a).S,
        lambda a: np.linalg.svd(a).S,
        (m(4, 3),),
        lambda s, a: s.svd(a, full_matrices=True)[1],
    ),
    (
        "trace",
        lambda a: tnp.linalg.trace(a, offset=-1),
        lambda a: np.trace(a, -1, -2, -1),
        (m(2, 3, 4),),
        lambda s, a: s.reduce_sum(s.diagonal(a, -1, -2, -1), axes=-1),
    ),
    ("vector_norm", tnp.linalg.vector_norm, np.linalg.vector_norm, (m(2, 3),), lambda s, a: s.vector_norm(a)),
    (
        "vector_norm-axis",
        lambda a: tnp.linalg.vector_norm(a, axis=(0, 2), keepdims=True, ord=3),
        lambda a: np.linalg.vector_norm(a, axis=(0, 2), keepdims=True, ord=3),
        (m(2, 3, 4),),
        lambda s, a: s.vector_norm(a, (0, 2), True, 3),
    ),
    (
        "vector_norm-half",
        lambda a: tnp.linalg.vector_norm(a, axis=-1, ord=0.5),
        lambda a: np.linalg.vector_norm(a, axis=-1, ord=0.5),
        (m(2, 3),),
        None,
    ),
    (
        "vector_norm-minus-one",
        lambda a: tnp.linalg.vector_norm(a, ord=-1),
        lambda a: np.linalg.vector_norm(a, ord=-1),
        (m(5),),
        None,
    ),
    ("norm", tnp.linalg.norm, np.linalg.norm, (m(3, 4),), None),
    (
        "norm-matrix-axes",
        lambda a: tnp.linalg.norm(a, ord=1, axis=(2, 0), keepdims=True),
        lambda a: np.linalg.norm(a, ord=1, axis=(2, 0), keepdims=True),
        (m(3, 2, 4),),
        None,
    ),
    (
        "norm-vector-axis",
        lambda a: tnp.linalg.norm(a, ord=np.inf, axis=1),
        lambda a: np.linalg.norm(a, ord=np.inf, axis=1),
        (m(3, 4),),
        None,
    ),
    ("norm-matrix-2d", lambda a: tnp.linalg.norm(a, "nuc"), lambda a: np.linalg.norm(a, "nuc"), (m(3, 4),), None),
    ("fft", tnp.fft.fft, np.fft.fft, (m(2, 5),), lambda s, a: s.fft(a, None, -1, "backward")),
    (
        "ifft-n-ortho",
        lambda a: tnp.fft.ifft(a, n=7, axis=0, norm="ortho"),
        lambda a: np.fft.ifft(a, 7, 0, "ortho"),
        (m(5, 2),),
        lambda s, a: s.ifft(a, 7, 0, "ortho"),
    ),
    ("rfft", tnp.fft.rfft, np.fft.rfft, (m(6),), lambda s, a: s.rfft(a, None, -1, "backward")),
    (
        "irfft",
        lambda a: tnp.fft.irfft(a, n=9),
        lambda a: np.fft.irfft(a, 9),
        (m(2, 5),),
        lambda s, a: s.irfft(a, 9, -1, "backward"),
    ),
    ("hfft", tnp.fft.hfft, np.fft.hfft, (m(4),), lambda s, a: s.hfft(a, None, -1, "backward")),
    ("ihfft", tnp.fft.ihfft, np.fft.ihfft, (m(7),), lambda s, a: s.ihfft(a, None, -1, "backward")),
    ("fftn", tnp.fft.fftn, np.fft.fftn, (m(3, 4),), lambda s, a: s.fftn(a, None, None, "backward")),
    (
        "ifftn-s-axes",
        lambda a: tnp.fft.ifftn(a, s=(3, 5), axes=(2, 0), norm="forward"),
        lambda a: np.fft.ifftn(a, (3, 5), (2, 0), "forward"),
        (m(4, 2, 3),),
        lambda s, a: s.ifftn(a, (3, 5), (2, 0), "forward"),
    ),
    ("rfftn", tnp.fft.rfftn, np.fft.rfftn, (m(3, 4),), lambda s, a: s.rfftn(a, None, None, "backward")),
    (
        "irfftn",
        lambda a: tnp.fft.irfftn(a, s=(3, 6)),
        lambda a: np.fft.irfftn(a, (3, 6), (0, 1)),
        (m(3, 4),),
        lambda s, a: s.irfftn(a, (3, 6), None, "backward"),
    ),
    ("fftshift", tnp.fft.fftshift, np.fft.fftshift, (m(3, 4),), lambda s, a: s.fftshift(a, None)),
    (
        "ifftshift-axes",
        lambda a: tnp.fft.ifftshift(a, axes=1),
        lambda a: np.fft.ifftshift(a, axes=1),
        (m(3, 5),),
        lambda s, a: s.ifftshift(a, 1),
    ),
]


def c(*shape):
    return m(*shape) + 1j * m(*shape)


def hpd(n):
    a = c(n, n)
    return a @ a.conj().T + n * np.eye(n)


#: Complex inputs: the gradient is ∂L/∂Re + i∂L/∂Im (PyTorch's convention).
CASES += [
    ("c-matmul", tnp.matmul, np.matmul, (c(2, 3), c(3, 2)), lambda s, a, b: s.matmul(a, b)),
    ("c-vecdot", tnp.vecdot, np.linalg.vecdot, (c(2, 3), c(3)), lambda s, a, b: s.vecdot(a, b, -1)),
    ("c-inv", tnp.linalg.inv, np.linalg.inv, (c(3, 3),), lambda s, a: s.inv(a)),
    ("c-det", tnp.linalg.det, np.linalg.det, (c(3, 3),), lambda s, a: s.det(a)),
    ("c-cholesky", tnp.linalg.cholesky, np.linalg.cholesky, (hpd(3),), lambda s, a: s.cholesky(a)),
    ("c-solve", tnp.linalg.solve, np.linalg.solve, (c(3, 3), c(3, 2)), lambda s, a, b: s.solve(a, b)),
    ("c-svdvals", tnp.linalg.svdvals, np.linalg.svdvals, (c(3, 2),), lambda s, a: s.svdvals(a)),
    ("c-matrix_norm", tnp.linalg.matrix_norm, np.linalg.matrix_norm, (c(3, 2),), lambda s, a: s.matrix_norm(a)),
    (
        "c-trace",
        tnp.linalg.trace,
        lambda a: np.trace(a, 0, -2, -1),
        (c(3, 3),),
        lambda s, a: s.reduce_sum(s.diagonal(a, 0, -2, -1), axes=-1),
    ),
    ("c-qr-r", lambda a: tnp.linalg.qr(a).R, _qr_r, (c(2, 4, 3),), lambda s, a: s.qr(a)[1]),
    (
        "c-qr-complete-q",
        lambda a: tnp.linalg.qr(a, mode="complete").Q,
        lambda a: _qr_complete(a)[0],
        (c(2, 3, 2),),
        None,
    ),
    (
        "c-pinv-rtol",
        lambda a: tnp.linalg.pinv(a, rtol=np.array([1e-3, 0.5])),
        lambda a: _pinv_cut(a, np.array([1e-3, 0.5])[:, None]),
        (c(2, 3, 2),),
        None,
    ),
    (
        "c-slogdet",
        lambda a: tnp.linalg.slogdet(a).logabsdet,
        lambda a: np.linalg.slogdet(a).logabsdet,
        (c(3, 3),),
        lambda s, a: s.slogdet(a)[1],
    ),
    ("c-eigvalsh", tnp.linalg.eigvalsh, np.linalg.eigvalsh, (hpd(3),), lambda s, a: s.eigvalsh(a)),
    ("c-fft", tnp.fft.fft, np.fft.fft, (c(5),), lambda s, a: s.fft(a)),
    ("c-irfft", tnp.fft.irfft, np.fft.irfft, (c(4),), lambda s, a: s.irfft(a)),
]
IDS = [case[0] for case in CASES]


@pytest.mark.parametrize("name, tnp_form, numpy_form, inputs, session_form", CASES, ids=IDS)
def test_values_match_numpy(name, tnp_form, numpy_form, inputs, session_form):
    got = tnp_form(*(tf.constant(a) for a in inputs))
    expected = numpy_form(*inputs)
    assert type(got) is tf.EagerTensor
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-10, atol=1e-10)


SOME = [case for case in CASES if case[0] in {"matmul", "tensordot", "vecdot", "cholesky", "eigvalsh", "fft"}]


@pytest.mark.parametrize("name, tnp_form, numpy_form, inputs, session_form", SOME, ids=[c[0] for c in SOME])
def test_numpy_arrays_and_lists_are_taken_as_constants(name, tnp_form, numpy_form, inputs, session_form):
    expected = numpy_form(*inputs)
    for got in (tnp_form(*inputs), tnp_form(*(a.tolist() for a in inputs))):
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-10, atol=1e-10)
        assert not got.tracks_grad()


def _weights(shape, complex_):
    w = np.random.default_rng(1).normal(size=shape)
    return w + 1j * np.random.default_rng(2).normal(size=shape) if complex_ else w


def _loss_numpy(out, w):
    """Σ Re(conj(w)·out): a real loss that reads both parts of a complex out."""
    return float(np.sum(np.real(np.conj(w) * out)))


def _loss_tnp(out, w):
    s = session_of(out)
    product = s.mul(out, tf.constant(np.conj(w)))
    return s.reduce_sum(s.real(product) if product.dtype.kind == "c" else product)


@pytest.mark.parametrize("name, tnp_form, numpy_form, inputs, session_form", CASES, ids=IDS)
def test_gradients_match_finite_differences(name, tnp_form, numpy_form, inputs, session_form):
    expected = numpy_form(*inputs)
    w = _weights(expected.shape, expected.dtype.kind == "c")
    xs = [tf.variable(a) for a in inputs]
    loss = _loss_tnp(tnp_form(*xs), w)
    grads = loss.backward()
    for i, a in enumerate(inputs):

        def f(v, i=i):
            args = list(inputs)
            args[i] = v
            if any(op in name for op in ("cholesky", "eigh", "eigvalsh")):  # tnp's read (a + aᴴ)/2
                args[i] = (v + np.swapaxes(v, -1, -2).conj()) / 2
            return _loss_numpy(numpy_form(*args), w)

        np.testing.assert_allclose(np.asarray(grads[xs[i]]), fd_gradient(f, a), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "name, tnp_form, numpy_form, inputs, session_form",
    [case for case in CASES if case[4] is not None],
    ids=[case[0] for case in CASES if case[4] is not None],
)
def test_tnp_form_and_session_form_are_bitwise_equal(name, tnp_form, numpy_form, inputs, session_form):
    expected = numpy_form(*inputs)
    w = _weights(expected.shape, expected.dtype.kind == "c")
    xs = [tf.variable(a) for a in inputs]
    out = tnp_form(*xs)
    grads = _loss_tnp(out, w).backward()
    rt = xs[0].runtime
    with rt.eager_session(tf.CpuEngine.serial()) as s:
        ys = [rt.variable_from(a) for a in inputs]
        reference = session_form(s, *ys)
        reference_grads = _loss_tnp(reference, w).backward()
    assert np.array_equal(np.asarray(out), np.asarray(reference), equal_nan=True)
    assert np.asarray(out).dtype == np.asarray(reference).dtype
    for x, y in zip(xs, ys, strict=True):
        assert np.array_equal(np.asarray(grads[x]), np.asarray(reference_grads[y]))


def test_a_non_default_runtime_keeps_its_arrays():
    rt = tf.EagerRuntime(engine=tf.CpuEngine.serial())
    x = rt.variable_from(m(2, 4, 3))
    for out in (
        tnp.linalg.pinv(x, rtol=np.array([1e-3, 1e-3])),
        tnp.linalg.qr(x, mode="complete").Q,
        tnp.linalg.solve(np.eye(4), x),
        tnp.einsum("bij->bji", x),
        tnp.fft.rfft(x),
    ):
        assert out.runtime is rt and out.tracks_grad()


def test_inside_a_session_tnp_records_on_it():
    rt = tf.EagerRuntime(engine=tf.CpuEngine.serial())
    with rt.eager_session() as s:
        x = rt.variable_from(m(3, 3))
        out = tnp.linalg.det(tnp.matmul(x, x))
        assert out.tracks_grad() and "det" in str(out.trace())
        loss = s.reduce_sum(out)
    g = rt.grad(loss, x)
    assert np.allclose(np.asarray(g), 2 * np.linalg.det(np.asarray(x)) ** 2 * np.linalg.inv(np.asarray(x)).T)


@needs_torch
def test_second_order_through_tnp_matches_torch():
    a = m(3, 3)
    x = tf.variable(a)
    s = session_of(x)
    rt = x.runtime
    g = rt.grad(s.reduce_sum(tnp.linalg.slogdet(tnp.matmul(x, x)).logabsdet), x)
    h = rt.grad(s.reduce_sum(s.mul(g, g)), x)
    t = torch.tensor(a, requires_grad=True)
    (gt,) = torch.autograd.grad(torch.linalg.slogdet(t @ t).logabsdet.sum(), t, create_graph=True)
    (ht,) = torch.autograd.grad((gt * gt).sum(), t)
    np.testing.assert_allclose(np.asarray(g), gt.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(h), ht.numpy(), rtol=1e-8)


# -- named tuples, constants, signatures --------------------------------------------------------
def test_decompositions_are_the_standards_named_tuples():
    a = m(4, 3)
    u, s_, vh = tnp.linalg.svd(a)
    assert type(tnp.linalg.svd(a)).__name__ == "SVDResult" and (u.shape, s_.shape, vh.shape) == ((4, 4), (3,), (3, 3))
    reduced = tnp.linalg.svd(a, full_matrices=False)
    assert reduced.U.shape == (4, 3) and reduced.Vh.shape == (3, 3)
    np.testing.assert_allclose(np.asarray(reduced.U) * np.asarray(reduced.S) @ np.asarray(reduced.Vh), a)
    q, r = tnp.linalg.qr(a, mode="complete")
    assert tnp.linalg.qr(a)._fields == ("Q", "R") and q.shape == (4, 4) and r.shape == (4, 3)
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, atol=1e-12)
    np.testing.assert_allclose(np.asarray(q).T @ np.asarray(q), np.eye(4), atol=1e-12)
    assert tnp.linalg.eigh(sym(3))._fields == ("eigenvalues", "eigenvectors")
    assert tnp.linalg.slogdet(m(3, 3))._fields == ("sign", "logabsdet")
    values, vectors = tnp.linalg.eig(m(3, 3))
    assert values.dtype == np.complex128 and vectors.shape == (3, 3)


def test_matrix_rank_is_an_integer_constant_with_the_standards_default_tolerance():
    a = np.diag([1.0, 1e-20, 3.0])
    x = tf.variable(np.stack([a, np.eye(3)]))
    rank = tnp.linalg.matrix_rank(x)
    assert rank.dtype == np.int64 and not rank.tracks_grad()
    assert np.asarray(rank).tolist() == [2, 3]
    assert np.asarray(tnp.linalg.matrix_rank(x, rtol=0.5)).tolist() == [1, 3]
    assert np.asarray(tnp.linalg.matrix_rank(x, rtol=np.array([0.5, 2.0]))).tolist() == [1, 0]


def test_trace_keeps_float_dtypes_and_widens_small_integers():
    assert tnp.linalg.trace(np.ones((3, 3), np.float32)).dtype == np.float32
    assert tnp.linalg.trace(np.ones((3, 3), np.int8)).dtype == np.int64
    assert tnp.linalg.trace(np.ones((3, 3), np.uint8)).dtype == np.uint64
    assert tnp.linalg.trace(np.ones((2, 3, 3)), dtype=np.float32).dtype == np.float32


def test_integer_vecdot_and_cross():
    a = np.arange(6, dtype=np.uint8).reshape(2, 3)
    assert tnp.vecdot(a, a).dtype == np.uint8
    assert np.array_equal(np.asarray(tnp.vecdot(a, a)), np.linalg.vecdot(a, a))
    assert np.array_equal(np.asarray(tnp.linalg.cross(a, a[::-1].copy())), np.cross(a, a[::-1]))


def test_fftfreq_and_rfftfreq():
    f = tnp.fft.fftfreq(8, d=0.5)
    assert f.dtype == np.float64 and np.array_equal(np.asarray(f), np.fft.fftfreq(8, 0.5))
    r = tnp.fft.rfftfreq(7, dtype=tnp.float32 if hasattr(tnp, "float32") else np.float32, device="cpu")
    assert r.dtype == np.float32 and np.allclose(np.asarray(r), np.fft.rfftfreq(7))


@pytest.mark.parametrize(
    "function",
    [tnp.linalg.cholesky, tnp.linalg.svd, tnp.linalg.qr, tnp.linalg.vector_norm, tnp.fft.fft, tnp.fft.fftn, tnp.vecdot],
)
def test_keywords_are_keyword_only_and_x_positional_only(function):
    params = list(inspect.signature(function).parameters.values())
    assert params[0].kind is inspect.Parameter.POSITIONAL_ONLY
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params if p.default is not inspect.Parameter.empty)


def test_the_extensions_are_submodules():
    import tenferro.numpy.fft
    import tenferro.numpy.linalg

    assert tnp.linalg is tenferro.numpy.linalg and tnp.fft is tenferro.numpy.fft
    assert tnp.linalg.matmul is tnp.matmul and tnp.linalg.tensordot is tnp.tensordot
    for name in ("matmul", "tensordot", "vecdot", "matrix_transpose", "einsum"):
        assert name in tnp._linear.__all__


# -- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: tnp.linalg.inv(m(2, 3)), ShapeMismatch, ["tnp.linalg.inv", "x has shape [2, 3]"]),
        (lambda: tnp.matmul(m(2, 3), m(4)), ShapeMismatch, ["tnp.matmul", "x1", "x2"]),
        (lambda: tnp.linalg.solve(m(3, 3), m(4)), ShapeMismatch, ["tnp.linalg.solve"]),
        (lambda: tnp.linalg.det(np.ones((3, 3), int)), tf.DTypeError, ["tnp.linalg.det", "'x'"]),
        (lambda: tnp.linalg.qr(m(3, 2), mode="r"), ArgumentError, ["tnp.linalg.qr", "mode"]),
        (lambda: tnp.linalg.matrix_power(m(2, 2), 1.5), ArgumentError, ["tnp.linalg.matrix_power", "n"]),
        (lambda: tnp.linalg.trace(m(3)), ArgumentError, ["tnp.linalg.trace", "x has shape [3]"]),
        (lambda: tnp.matrix_transpose(m(3)), ArgumentError, ["tnp.matrix_transpose", "x"]),
        (lambda: tnp.linalg.norm(m(2, 2, 2), ord=1), ArgumentError, ["tnp.linalg.norm", "axis"]),
        (lambda: tnp.linalg.norm(m(2, 2), axis=(0, 0)), AxisError, ["tnp.linalg.norm", "axis"]),
        (lambda: tnp.vecdot(m(3), m(3), axis=1), AxisError, ["tnp.vecdot", "axis"]),
        (lambda: tnp.tensordot(m(3), m(3), axes="x"), ArgumentError, ["tnp.tensordot", "axes"]),
        (lambda: tnp.einsum(m(3), [0]), ArgumentError, ["tnp.einsum", "subscripts"]),
        (lambda: tnp.linalg.cross(np.ones(2, int), np.ones(2, int)), ArgumentError, ["tnp.linalg.cross", "x1"]),
        (lambda: tnp.fft.fft(m(4), norm="x"), ArgumentError, ["tnp.fft.fft", "norm"]),
        (lambda: tnp.fft.rfft(m(4) + 1j), tf.DTypeError, ["tnp.fft.rfft", "x"]),
        (lambda: tnp.fft.fftfreq(0), ArgumentError, ["tnp.fft.fftfreq", "n"]),
        (lambda: tnp.fft.fftfreq(4, device="gpu"), ArgumentError, ["tnp.fft.fftfreq", "device"]),
        (lambda: tnp.linalg.det("abc"), ArgumentError, ["tnp.linalg.det", "'x'"]),
    ],
)
def test_errors_name_the_function_and_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    for word in words:
        assert word in str(info.value)


def test_the_docs_example_runs_and_its_gradient_is_right():
    scope = run_docs_example("## Linear algebra")
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    x = np.linalg.solve(a, [1.0, 2.0])
    inv_t = np.linalg.inv(a).T
    np.testing.assert_allclose(np.asarray(scope["a"].grad()), inv_t - 2 * inv_t @ np.outer(x, x), rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: tnp.linalg.matrix_rank(np.array([[np.nan, 1.0], [1.0, 1.0]])),
            "tnp.linalg.matrix_rank: x has nan or inf",
        ),
        (
            lambda: tnp.linalg.matrix_rank(np.array([[np.inf, 1.0], [1.0, 1.0]])),
            "tnp.linalg.matrix_rank: x has nan or inf",
        ),
        (lambda: tnp.linalg.qr(tnp.asarray(1.0), mode="complete"), "tnp.linalg.qr: x has shape []"),
        (lambda: tnp.linalg.qr(np.ones(3), mode="complete"), "tnp.linalg.qr: x has shape [3]"),
        (lambda: tnp.vecdot(np.ones((2, 3)), np.ones((2, 3)), axis=(0, 1)), "tnp.vecdot: axis must be an int"),
        (lambda: tnp.linalg.vecdot(np.ones(3), np.ones(3), axis=1.5), "tnp.vecdot: axis must be an int"),
        (lambda: tnp.linalg.trace(np.ones((3, 3)), dtype=[1.0]), "tnp.linalg.trace: dtype must be a dtype"),
    ],
    ids=[
        "rank-nan",
        "rank-inf",
        "qr-0d-complete",
        "qr-1d-complete",
        "vecdot-tuple-axis",
        "vecdot-float-axis",
        "trace-dtype",
    ],
)
def test_bad_linalg_arguments_are_tenferro_errors_naming_the_function_and_the_argument(call, message):
    """From the bad-input fuzz (issue 23 item 8): these were a raw LinAlgError, ValueError and
    TypeErrors."""
    from tenferro import TenferroError

    with pytest.raises(TenferroError, match=re.escape(message)):
        call()


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 2), (2, 0, 3)])
def test_pinv_with_an_rtol_of_a_matrix_without_entries_is_numpys(shape):
    """Regression (the fuzz harness, dev profile): pinv with an explicit rtol took the max of
    no singular values (reduce_max's ShapeMismatch, naming reduce_max) for a matrix without
    entries, and checked rtol only after that. It is now checked first, and such a matrix
    is NumPy's empty pseudo-inverse."""
    a = np.zeros(shape)
    got = tnp.linalg.pinv(a, rtol=0.1)
    assert got.shape == np.linalg.pinv(a, rtol=0.1).shape
    with pytest.raises(tf.ArgumentError, match=r"tnp.linalg.pinv: rtol must be a real number"):
        tnp.linalg.pinv(np.zeros(shape, np.float32), rtol="x")


# -- tnp.linalg.lstsq --------------------------------------------------------------------------
def _lstsq_cases():
    rng = np.random.default_rng(7)
    deficient = np.outer(rng.normal(size=5), rng.normal(size=3))  # rank 1
    complex_a = rng.normal(size=(4, 2)) + 1j * rng.normal(size=(4, 2))
    return [
        ("tall", rng.normal(size=(5, 3)), rng.normal(size=5)),
        ("tall, columns", rng.normal(size=(5, 3)), rng.normal(size=(5, 2))),
        ("wide", rng.normal(size=(2, 4)), rng.normal(size=2)),
        ("square", rng.normal(size=(3, 3)) + 3 * np.eye(3), rng.normal(size=3)),
        ("rank-deficient", deficient, rng.normal(size=5)),
        ("complex", complex_a, rng.normal(size=4) + 1j * rng.normal(size=4)),
        ("zero matrix", np.zeros((3, 2)), np.ones(3)),
    ]


@pytest.mark.parametrize("a, b", [case[1:] for case in _lstsq_cases()], ids=[case[0] for case in _lstsq_cases()])
def test_lstsq_is_numpys_solution_residuals_rank_and_singular_values(a, b):
    """(x, residuals, rank, s) as np.linalg.lstsq's: the least-norm x where a is
    rank-deficient or wide, residuals only where rank = N < M, the rank an int; and
    np.linalg.lstsq of a tracked tenferro array dispatches to it."""
    x, residuals, rank, s = tnp.linalg.lstsq(a, b)
    want = np.linalg.lstsq(a, b, rcond=None)
    np.testing.assert_allclose(np.asarray(x), want[0], rtol=1e-10, atol=1e-12)
    assert np.asarray(residuals).shape == want[1].shape and np.asarray(residuals).dtype == want[1].dtype
    np.testing.assert_allclose(np.asarray(residuals), want[1], rtol=1e-10, atol=1e-12)
    assert type(rank) is int and rank == want[2]
    np.testing.assert_allclose(np.asarray(s), want[3], rtol=1e-12, atol=1e-14)
    dispatched = np.linalg.lstsq(tf.variable(a), b)
    assert dispatched[0].tracks_grad() and np.array_equal(np.asarray(dispatched[0]), np.asarray(x))


def test_lstsq_cuts_singular_values_at_rcond_as_numpy():
    a = np.diag([1.0, 1e-3, 0.0])[:, :2] + 0.0
    b = np.array([1.0, 1.0, 1.0])
    for rcond in (1e-2, 1e-4):
        got, want = tnp.linalg.lstsq(a, b, rcond=rcond), np.linalg.lstsq(a, b, rcond=rcond)
        assert got[2] == want[2]
        np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=1e-12)


def test_lstsq_differentiates_its_solution_and_residuals():
    rng = np.random.default_rng(11)
    a, b = rng.normal(size=(6, 3)), rng.normal(size=6)

    def loss(a, b):
        x, residuals, _, s = tnp.linalg.lstsq(a, b)
        return tnp.sum(x * x) + tnp.sum(residuals) + tnp.sum(s)

    def numeric(a, b):
        x, residuals, _, s = np.linalg.lstsq(a, b, rcond=None)
        return np.sum(x * x) + np.sum(residuals) + np.sum(s)

    ga, gb = tf.grad(loss, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(np.asarray(ga), fd_gradient(lambda t: numeric(t, b), a), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(gb), fd_gradient(lambda t: numeric(a, t), b), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "a, b, kwargs, error, message",
    [
        (np.ones((2, 3, 3)), np.ones(3), {}, ArgumentError, "a has shape [2, 3, 3] and b [3]; a must be a matrix"),
        (np.ones((3, 2)), np.ones(4), {}, ArgumentError, "a has shape [3, 2] and b [4]; a must be a matrix"),
        (np.ones((3, 2), np.int64), np.ones(3), {}, tf.DTypeError, "argument 'a' has dtype int64; it must be a float"),
        (np.ones((3, 2)), np.ones(3), {"rcond": "x"}, ArgumentError, "rcond must be a number or None, got 'x'"),
    ],
    ids=["batched", "rows", "integer", "rcond"],
)
def test_lstsq_refuses_what_numpy_refuses_naming_the_argument(a, b, kwargs, error, message):
    with pytest.raises(error, match=re.escape(f"tnp.linalg.lstsq: {message}")):
        tnp.linalg.lstsq(a, b, **kwargs)


# -- tnp.linalg.cond, multi_dot, tensorsolve, tensorinv ---------------------------------------
@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro"])
def test_cond_is_numpys_for_every_order_and_differentiates(p):
    rng = np.random.default_rng(5)
    stack = rng.normal(size=(2, 3, 3)) + 2 * np.eye(3)
    np.testing.assert_allclose(np.asarray(tnp.linalg.cond(stack, p)), np.linalg.cond(stack, p), rtol=1e-12)
    a = stack[0]
    got = tf.grad(lambda m: tnp.linalg.cond(m, p))(a)
    np.testing.assert_allclose(np.asarray(got), fd_gradient(lambda m: np.linalg.cond(m, p), a), rtol=1e-5, atol=1e-7)


def test_cond_of_a_singular_matrix_is_inf_and_refused_where_it_tracks_a_gradient():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    for p in (1, "fro", np.inf):  # (p None divides by a singular value of rounding noise, as NumPy's)
        assert float(tnp.linalg.cond(singular, p)) == np.inf == np.linalg.cond(singular, p)
    for p in (None, 1, "fro", np.inf):  # (0/0 made inf, as NumPy makes it)
        assert float(tnp.linalg.cond(np.zeros((2, 2)), p)) == np.inf == np.linalg.cond(np.zeros((2, 2)), p)
    with pytest.raises(tf.TenferroError, match=r"tnp\.linalg\.cond: x holds a singular matrix, .* no derivative"):
        tnp.linalg.cond(tf.variable(singular), 1)
    with pytest.raises(ArgumentError, match=r"tnp\.linalg\.cond: x has shape \[0, 0\]; cond needs matrices"):
        tnp.linalg.cond(np.zeros((0, 0)))
    with pytest.raises(ArgumentError, match=r"tnp\.linalg\.cond: p must be one of None, 1, -1, 2, .*, got 3"):
        tnp.linalg.cond(np.eye(2), 3)
    with pytest.raises(ShapeMismatch, match=r"tnp\.linalg\.cond: x has shape \[2, 3\]; cond of order 1 needs square"):
        tnp.linalg.cond(np.ones((2, 3)), 1)
    with pytest.raises(tf.DTypeError, match=r"tnp\.linalg\.cond: argument 'x' has dtype int64; it must be a float"):
        tnp.linalg.cond(np.eye(2, dtype=np.int64))


@pytest.mark.parametrize(
    "shapes",
    [[(3, 4), (4, 2)], [(10, 100), (100, 5), (5, 50)], [(4,), (4, 6), (6, 2), (2, 5), (5,)], [(3,), (3, 2)]],
    ids=["two", "three", "vectors at both ends", "vector first"],
)
def test_multi_dot_is_numpys_product_in_numpys_order(shapes):
    rng = np.random.default_rng(9)
    arrays = [rng.normal(size=shape) for shape in shapes]
    got, want = tnp.linalg.multi_dot(arrays), np.linalg.multi_dot(arrays)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    grads = tf.grad(lambda *xs: tnp.sum(tnp.linalg.multi_dot(list(xs)) ** 2), argnums=tuple(range(len(arrays))))(
        *arrays
    )
    for i, grad in enumerate(grads):
        numeric = fd_gradient(
            lambda t, i=i: np.sum(np.linalg.multi_dot([*arrays[:i], t, *arrays[i + 1 :]]) ** 2), arrays[i]
        )
        np.testing.assert_allclose(np.asarray(grad), numeric, rtol=1e-5, atol=1e-7 * np.abs(numeric).max())


def test_multi_dot_refuses_what_does_not_chain_naming_the_arrays():
    with pytest.raises(ShapeMismatch, match=r"arrays\[1\] of shape \[4, 2\] and arrays\[2\] of shape \[3, 2\] do not"):
        tnp.linalg.multi_dot([np.ones((2, 4)), np.ones((4, 2)), np.ones((3, 2))])
    with pytest.raises(ArgumentError, match=r"tnp\.linalg\.multi_dot: arrays must be a list of two or more"):
        tnp.linalg.multi_dot([np.ones((2, 2))])
    with pytest.raises(ArgumentError, match=r"arrays\[1\] has shape \[2, 2, 2\]; it must be 2-D"):
        tnp.linalg.multi_dot([np.ones((2, 2)), np.ones((2, 2, 2))])


@pytest.mark.parametrize("shape, axes", [((6, 2, 3), None), ((3, 6, 2), (0, 2))])
def test_tensorsolve_is_numpys_and_differentiates(shape, axes):
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=shape), rng.normal(size=6)
    np.testing.assert_allclose(
        np.asarray(tnp.linalg.tensorsolve(a, b, axes)), np.linalg.tensorsolve(a, b, axes), rtol=1e-10
    )
    got = tf.grad(lambda t: tnp.sum(tnp.linalg.tensorsolve(t, b, axes) ** 2))(a)
    numeric = fd_gradient(lambda t: np.sum(np.linalg.tensorsolve(t, b, axes) ** 2), a)
    np.testing.assert_allclose(np.asarray(got), numeric, rtol=1e-5, atol=1e-6)
    with pytest.raises(ShapeMismatch, match=r"tnp\.linalg\.tensorsolve: a has shape \[6, 2, 3\] and b \[5\]"):
        tnp.linalg.tensorsolve(np.ones((6, 2, 3)), np.ones(5))


@pytest.mark.parametrize("shape, ind", [((4, 6, 8, 3), 2), ((24, 8, 3), 1)])
def test_tensorinv_is_numpys_and_refuses_a_non_square_split(shape, ind):
    t = np.random.default_rng(8).normal(size=shape)
    got = tnp.linalg.tensorinv(t, ind)
    assert got.shape == np.linalg.tensorinv(t, ind).shape
    np.testing.assert_allclose(np.asarray(got), np.linalg.tensorinv(t, ind), rtol=1e-9)
    with pytest.raises(ShapeMismatch, match=r"tnp\.linalg\.tensorinv: a has shape \[2, 3\]; prod\(a\.shape\[:ind\]\)"):
        tnp.linalg.tensorinv(np.ones((2, 3)), 1)
    with pytest.raises(ArgumentError, match=r"tnp\.linalg\.tensorinv: ind must be a positive int, got 0"):
        tnp.linalg.tensorinv(t, 0)
