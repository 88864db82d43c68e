"""Complex numbers in the contract family: values against NumPy, gradients against PyTorch
and finite differences, dot_general's conj_a/conj_b, vecdot's conjugated first operand,
mixed real and complex operands (a real operand gets a real gradient), and real inputs
recording no conj."""

import numpy as np
import pytest
from conftest import fd_gradient, needs_torch, torch

from tenferro import ArgumentError

RNG = np.random.default_rng(2011)


def _complex(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _weights(shape):
    """A fixed complex weight: the loss is Re Σ out·c, whose gradient in out is conj(c)."""
    n = int(np.prod(shape))
    return (np.cos(np.arange(n)) + 1j * np.sin(0.7 * np.arange(n) + 0.3)).reshape(shape)


def _loss(s, out, c):
    return s.real(s.reduce_sum(s.mul(out, s.runtime.constant_from(c)), None))


def _ours(rt, fn, arrays):
    """The value of fn(s, *tensors) and the gradients of Re Σ value·c."""
    tensors = [rt.variable_from(a) for a in arrays]
    out = rt.with_eager_session(lambda s: fn(s, *tensors))
    c = _weights(out.shape)
    grads = rt.grad(rt.with_eager_session(lambda s: _loss(s, out, c)), tensors)
    return np.asarray(out), [np.asarray(g) for g in grads]


def _theirs(fn, arrays):
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    # torch does not promote real to complex in products: cast (the real leaf's gradient stays real)
    promoted = [t.to(torch.complex128) if not t.is_complex() else t for t in tensors]
    out = fn(*promoted)
    c = torch.tensor(_weights(tuple(out.shape)))
    grads = torch.autograd.grad((out * c).sum().real, tensors)
    return out.detach().resolve_conj().numpy(), [g.resolve_conj().numpy() for g in grads]


def _agree_with_torch(rt, ours, theirs, arrays):
    value, grads = _ours(rt, ours, arrays)
    value_t, grads_t = _theirs(theirs, arrays)
    np.testing.assert_allclose(value, value_t, rtol=1e-12, atol=1e-12)
    for g, gt, a in zip(grads, grads_t, arrays):
        assert g.dtype == a.dtype  # a real operand gets a real gradient
        np.testing.assert_allclose(g, gt, rtol=1e-12, atol=1e-12)


def _fd_gradient(loss, arrays, k, h=1e-6):
    """The gradient of a real loss of ``arrays`` in arrays[k], by central differences."""
    return fd_gradient(lambda y: loss([y if m == k else a for m, a in enumerate(arrays)]), arrays[k], h)


def _agree_with_fd(rt, ours, reference, arrays):
    """Our gradients of Re Σ fn·c against central differences of the NumPy ``reference``."""
    value, grads = _ours(rt, ours, arrays)
    np.testing.assert_allclose(value, reference(*arrays), rtol=1e-12, atol=1e-12)
    c = _weights(value.shape)
    loss = lambda xs: float(np.real(np.sum(reference(*xs) * c)))  # noqa: E731
    for k, g in enumerate(grads):
        np.testing.assert_allclose(g, _fd_gradient(loss, arrays, k), rtol=1e-7, atol=1e-7)


# -- dot_general's conjugation flags ----------------------------------------------------------
FLAGS = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.parametrize("conj_a, conj_b", FLAGS)
def test_dot_general_conj_flags_match_numpy_and_fd(rt, conj_a, conj_b):
    a, b = _complex(2, 3, 4), _complex(2, 4, 5)
    params = {"contracting": ((2,), (1,)), "batch": ((0,), (0,)), "conj_a": conj_a, "conj_b": conj_b}

    def reference(a, b):
        return np.einsum("bij,bjk->bik", np.conj(a) if conj_a else a, np.conj(b) if conj_b else b)

    _agree_with_fd(rt, lambda s, a, b: s.dot_general(a, b, **params), reference, [a, b])


@needs_torch
@pytest.mark.parametrize("conj_a, conj_b", FLAGS)
def test_dot_general_conj_flags_gradients_match_torch(rt, conj_a, conj_b):
    a, b = _complex(3, 4), _complex(3, 2)
    params = {"contracting": ((0,), (0,)), "conj_a": conj_a, "conj_b": conj_b}  # a^T b, or A^H B
    _agree_with_torch(
        rt,
        lambda s, a, b: s.dot_general(a, b, **params),
        lambda a, b: (a.conj() if conj_a else a).T @ (b.conj() if conj_b else b),
        [a, b],
    )


def test_dot_general_conj_a_is_the_hermitian_product(rt):
    a, b = _complex(3, 4), _complex(3, 2)
    out = rt.with_eager_session(
        lambda s: s.dot_general(rt.constant_from(a), rt.constant_from(b), ((0,), (0,)), conj_a=True)
    )
    np.testing.assert_allclose(np.asarray(out), a.conj().T @ b, rtol=1e-13)


@pytest.mark.parametrize("conj_a, conj_b", FLAGS)
def test_dot_general_conj_flags_leave_real_operands_alone(rt, conj_a, conj_b):
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    ta, tb = rt.constant_from(a), rt.constant_from(b)
    out = rt.with_eager_session(lambda s: s.dot_general(ta, tb, ((1,), (0,)), conj_a=conj_a, conj_b=conj_b))
    np.testing.assert_array_equal(np.asarray(out), a @ b)


def test_dot_general_conj_flag_must_be_a_bool(rt):
    a = rt.constant_from(_complex(2, 2))
    with pytest.raises(ArgumentError, match="conj_b must be True or False, got 'yes'"):
        rt.with_eager_session(lambda s: s.dot_general(a, a, ((1,), (0,)), conj_b="yes"))


@pytest.mark.parametrize("conj_a, conj_b", FLAGS)
def test_dot_general_conj_flags_mixed_real_and_complex(rt, conj_a, conj_b):
    a, b = RNG.standard_normal((3, 4)), _complex(4, 2)
    params = {"contracting": ((1,), (0,)), "conj_a": conj_a, "conj_b": conj_b}

    def reference(a, b):
        return (np.conj(a) if conj_a else a) @ (np.conj(b) if conj_b else b)

    _agree_with_fd(rt, lambda s, a, b: s.dot_general(a, b, **params), reference, [a, b])


# -- matmul, tensordot, outer, einsum ----------------------------------------------------------
MATMUL_SHAPES = [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((4,), (4,)), ((2, 1, 3, 4), (5, 4, 2))]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
def test_matmul_complex_matches_numpy_and_fd(rt, shapes):
    arrays = [_complex(*shape) for shape in shapes]
    _agree_with_fd(rt, lambda s, a, b: s.matmul(a, b), np.matmul, arrays)


@needs_torch
@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
@pytest.mark.parametrize("kinds", ["cc", "rc", "cr"])
def test_matmul_gradients_match_torch(rt, shapes, kinds):
    arrays = [_complex(*shape) if kind == "c" else RNG.standard_normal(shape) for kind, shape in zip(kinds, shapes)]
    _agree_with_torch(rt, lambda s, a, b: s.matmul(a, b), torch.matmul, arrays)


def test_matmul_single_precision_complex_stays_complex64(rt):
    a, b = _complex(3, 4).astype(np.complex64), RNG.standard_normal((4, 2)).astype(np.float32)
    ta, tb = rt.variable_from(a), rt.variable_from(b)
    out = rt.with_eager_session(lambda s: s.matmul(ta, tb))
    assert out.dtype == np.complex64
    ga, gb = rt.grad(rt.with_eager_session(lambda s: _loss(s, out, _weights(out.shape).astype(np.complex64))), [ta, tb])
    assert ga.dtype == np.complex64 and gb.dtype == np.float32


@needs_torch
def test_tensordot_and_outer_gradients_match_torch(rt):
    a, b = _complex(2, 3, 4), _complex(3, 4, 5)
    _agree_with_torch(rt, lambda s, a, b: s.tensordot(a, b, 2), lambda a, b: torch.tensordot(a, b, dims=2), [a, b])
    a, b = _complex(2, 3), RNG.standard_normal(4)
    _agree_with_torch(rt, lambda s, a, b: s.outer(a, b), lambda a, b: torch.outer(a.reshape(-1), b), [a, b])


def test_outer_with_a_complex_python_number(rt):
    a = rt.variable_from(RNG.standard_normal(3))
    out = rt.with_eager_session(lambda s: s.outer(a, 2 - 1j))
    np.testing.assert_allclose(np.asarray(out), np.asarray(a)[:, None] * (2 - 1j))
    (g,) = rt.grad(rt.with_eager_session(lambda s: _loss(s, out, _weights(out.shape))), [a])
    assert g.dtype == np.float64
    np.testing.assert_allclose(np.asarray(g), np.real(_weights((3, 1))[:, 0] * (2 - 1j)))


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)], "cc"),
    ("ij,jk->ik", [(2, 3), (3, 4)], "rc"),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)], "crc"),
    ("ij,jk,kl,lm->mi", [(2, 3), (3, 4), (4, 5), (5, 2)], "cccc"),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], "cc"),
    ("i,i->", [(5,), (5,)], "cc"),
    ("ii->i", [(3, 3)], "c"),
    ("ij->ji", [(2, 3)], "c"),
    ("ii,i->i", [(3, 3), (3,)], "rc"),
    ("abc,cd,bd->a", [(2, 3, 4), (4, 5), (3, 5)], "ccr"),
]


def _operands(shapes, kinds):
    return [_complex(*shape) if kind == "c" else RNG.standard_normal(shape) for shape, kind in zip(shapes, kinds)]


@pytest.mark.parametrize("subscripts, shapes, kinds", EINSUM_CASES)
def test_einsum_complex_matches_numpy_and_fd(rt, subscripts, shapes, kinds):
    _agree_with_fd(
        rt,
        lambda s, *xs: s.einsum(list(xs), subscripts),
        lambda *xs: np.einsum(subscripts, *xs),
        _operands(shapes, kinds),
    )


@needs_torch
@pytest.mark.parametrize("subscripts, shapes, kinds", EINSUM_CASES)
def test_einsum_complex_gradients_match_torch(rt, subscripts, shapes, kinds):
    _agree_with_torch(
        rt,
        lambda s, *xs: s.einsum(list(xs), subscripts),
        lambda *xs: torch.einsum(subscripts, *xs),
        _operands(shapes, kinds),
    )


# -- vecdot: Σ conj(a)·b ------------------------------------------------------------------------
def test_vecdot_conjugates_its_first_operand(rt):
    a, b = _complex(2, 3), _complex(2, 3)
    out = rt.with_eager_session(lambda s: s.vecdot(rt.constant_from(a), rt.constant_from(b)))
    np.testing.assert_allclose(np.asarray(out), np.sum(np.conj(a) * b, -1), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(out), np.vecdot(a, b), rtol=1e-13)
    # vecdot(a, a) is the squared norm: real and non-negative
    norms = rt.with_eager_session(lambda s: s.vecdot(rt.constant_from(a), rt.constant_from(a)))
    np.testing.assert_allclose(np.asarray(norms), np.sum(np.abs(a) ** 2, -1) + 0j, rtol=1e-13)


@pytest.mark.parametrize("kinds", ["cc", "rc", "cr"])
def test_vecdot_gradients_match_fd(rt, kinds):
    a, b = _operands([(3, 4), (4,)], kinds)
    _agree_with_fd(rt, lambda s, a, b: s.vecdot(a, b, axis=-1), lambda a, b: np.sum(np.conj(a) * b, -1), [a, b])


@needs_torch
@pytest.mark.parametrize("kinds", ["cc", "rc", "cr"])
def test_vecdot_gradients_match_torch(rt, kinds):
    a, b = _operands([(2, 4, 3), (4, 3)], kinds)
    _agree_with_torch(
        rt, lambda s, a, b: s.vecdot(a, b, axis=-2), lambda a, b: torch.linalg.vecdot(a, b, dim=-2), [a, b]
    )


def test_gradient_of_squared_norm_through_vecdot_is_2z(rt):
    z = rt.variable_from(_complex(5))
    (g,) = rt.grad(rt.with_eager_session(lambda s: s.real(s.vecdot(z, z))), [z])
    np.testing.assert_allclose(np.asarray(g), 2 * np.asarray(z), rtol=1e-14)


# -- real paths stay as they were ---------------------------------------------------------------
@pytest.mark.parametrize(
    "fn",
    [
        lambda s, a, b: s.matmul(a, b),
        lambda s, a, b: s.dot_general(a, b, ((1,), (0,)), conj_a=True, conj_b=True),
        lambda s, a, b: s.tensordot(a, b, 1),
        lambda s, a, b: s.einsum([a, b, a], "ij,jk,il->kl"),
        lambda s, a, b: s.vecdot(a, s.permute_dims(b, (1, 0)), axis=-1),
        lambda s, a, b: s.outer(a, b),
    ],
)
def test_real_inputs_record_no_conj(rt, fn):
    a, b = rt.variable_from(RNG.standard_normal((3, 3))), rt.variable_from(RNG.standard_normal((3, 3)))
    out = rt.with_eager_session(lambda s: s.reduce_sum(fn(s, a, b), None))
    grads = rt.grad(out, [a, b])
    for g in grads:
        assert g.dtype == np.float64
        assert "conj" not in str(g.trace())


# -- a small complex program ------------------------------------------------------------------
def _mlp_numpy(x, w1, w2):
    h = w1 @ x
    h = h * np.conj(h) * 0.5 + h  # a non-holomorphic nonlinearity
    y = np.einsum("ij,jk->ik", w2, h)
    return np.real(np.sum(y * np.conj(y)))


def _mlp(s, x, w1, w2):
    h = s.matmul(w1, x)
    h = s.add(s.mul(s.mul(h, s.conj(h)), 0.5), h)
    y = s.einsum([w2, h], "ij,jk->ik")
    return s.real(s.reduce_sum(s.mul(y, s.conj(y)), None))


def test_complex_mlp_like_map_gradient_matches_fd(rt):
    arrays = [RNG.standard_normal((3, 2)), _complex(4, 3) * 0.5, _complex(2, 4) * 0.5]
    tensors = [rt.variable_from(a) for a in arrays]
    grads = rt.grad(rt.with_eager_session(lambda s: _mlp(s, *tensors)), tensors)
    for k, g in enumerate(grads):
        assert g.dtype == arrays[k].dtype
        np.testing.assert_allclose(np.asarray(g), _fd_gradient(lambda xs: _mlp_numpy(*xs), arrays, k), rtol=1e-6)


@needs_torch
def test_complex_mlp_like_map_gradient_matches_torch(rt):
    arrays = [RNG.standard_normal((3, 2)), _complex(4, 3) * 0.5, _complex(2, 4) * 0.5]
    tensors = [rt.variable_from(a) for a in arrays]
    grads = rt.grad(rt.with_eager_session(lambda s: _mlp(s, *tensors)), tensors)
    x, w1, w2 = [torch.tensor(a, requires_grad=True) for a in arrays]
    h = w1 @ x.to(torch.complex128)
    h = h * h.conj() * 0.5 + h
    y = torch.einsum("ij,jk->ik", w2, h)
    expected = torch.autograd.grad((y * y.conj()).sum().real, [x, w1, w2])
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(np.asarray(g), e.numpy(), rtol=1e-12, atol=1e-12)
