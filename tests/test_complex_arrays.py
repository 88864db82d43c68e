"""Complex numbers in the reduce, shape, index and nn families: values against NumPy and
PyTorch, gradients against finite differences and PyTorch (cotangents in the real inner
product Re(conj(a)·b), PyTorch's convention), and the ops that refuse complex, with why."""

import numpy as np
import pytest
from conftest import fd_gradient, needs_torch, torch

from tenferro import DTypeError, NotDifferentiable, Tensor

RNG = np.random.default_rng(11)


def crandn(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def const(rt, a):
    return rt.constant_from(Tensor.from_numpy(np.asarray(a)))


def loss_of(fn, w):
    """The real loss Re Σ w·fn(...): its gradient with respect to z is conj(w)·conj(fn′(z))
    for a holomorphic fn (PyTorch's convention)."""

    def loss(s, *xs):
        return s.real(s.reduce_sum(s.mul(const(s.runtime, w), fn(s, *xs)), None))

    return loss


def grads(rt, loss, *arrays):
    """Gradients of the real scalar loss(s, *variables) with respect to each array."""
    xs = [rt.variable_from(Tensor.from_numpy(np.asarray(a))) for a in arrays]
    out = rt.with_eager_session(lambda s: loss(s, *xs))
    return [np.asarray(g) for g in rt.grad(out, xs)]


def value(rt, loss, *arrays):
    xs = [const(rt, a) for a in arrays]
    return float(np.asarray(rt.with_eager_session(lambda s: loss(s, *xs))))


def fd_grad(rt, loss, arrays, which, h=1e-6):
    """The gradient of the real ``loss(s, *arrays)`` in arrays[which], by central differences."""
    arrays = [np.asarray(a) for a in arrays]
    return fd_gradient(lambda y: value(rt, loss, *arrays[:which], y, *arrays[which + 1 :]), arrays[which], h)


def torch_grads(fn, w, *arrays):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    (torch.tensor(w) * fn(*ts)).sum().real.backward()
    return [t.grad.numpy() for t in ts]


# -- reduce ------------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("zeros", [0, 1, 2])
def test_prod_of_complex_with_zeros_matches_torch_and_finite_differences(rt, zeros):
    z = crandn(3, 4)
    z[0, :zeros] = 0  # one zero, or two, in the first row
    w = crandn(3)
    loss = loss_of(lambda s, x: s.reduce_prod(x, 1), w)
    np.testing.assert_allclose(
        np.asarray(rt.with_eager_session(lambda s: s.reduce_prod(const(rt, z), 1))), np.prod(z, axis=1), rtol=1e-14
    )
    (g,) = grads(rt, loss, z)
    (expected,) = torch_grads(lambda x: torch.prod(x, 1), w, z)
    np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(g, fd_grad(rt, loss, [z], 0), rtol=1e-7, atol=1e-8)


@needs_torch
def test_prod_of_complex_hvp_with_a_zero_matches_torch(rt):
    z = crandn(4)
    z[1] = 0
    v = crandn(4)
    x = rt.variable_from(Tensor.from_numpy(z))
    g = rt.grad(rt.with_eager_session(lambda s: s.real(s.reduce_prod(x, None))), x)
    # ⟨g, v⟩ = Re Σ conj(g)·v, differentiated again
    hvp = rt.grad(rt.with_eager_session(lambda s: s.real(s.reduce_sum(s.mul(s.conj(g), const(rt, v)), None))), x)
    xt = torch.tensor(z, requires_grad=True)
    (gt,) = torch.autograd.grad(torch.prod(xt).real, xt, create_graph=True)
    (hvp_t,) = torch.autograd.grad((gt.conj() * torch.tensor(v)).sum().real, xt)
    np.testing.assert_allclose(np.asarray(g), gt.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(hvp), hvp_t.numpy(), rtol=1e-12, atol=1e-14)


def test_prod_of_complex_third_derivative_is_refused_not_wrong(rt):
    x = rt.variable_from(Tensor.from_numpy(crandn(3)))
    g = rt.grad(rt.with_eager_session(lambda s: s.real(s.reduce_prod(x, None))), x)
    h = rt.grad(rt.with_eager_session(lambda s: s.real(s.reduce_sum(g, None))), x)
    with pytest.raises(NotDifferentiable):
        rt.grad(rt.with_eager_session(lambda s: s.real(s.reduce_sum(h, None))), x)


@needs_torch
@pytest.mark.parametrize(
    "op, theirs", [("cumulative_prod", torch and torch.cumprod), ("cumulative_sum", torch and torch.cumsum)]
)
def test_cumulative_ops_of_complex_with_a_zero_match_torch_and_finite_differences(rt, op, theirs):
    z = crandn(2, 5)
    z[1, 2] = 0
    w = crandn(2, 5)
    loss = loss_of(lambda s, x: getattr(s, op)(x, 1), w)
    out = rt.with_eager_session(lambda s: getattr(s, op)(const(rt, z), 1))
    np.testing.assert_allclose(np.asarray(out), theirs(torch.tensor(z), 1).numpy(), rtol=1e-14)
    (g,) = grads(rt, loss, z)
    (expected,) = torch_grads(lambda x: theirs(x, 1), w, z)
    np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(g, fd_grad(rt, loss, [z], 0), rtol=1e-7, atol=1e-8)


@needs_torch
@pytest.mark.parametrize("op", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1])
def test_var_and_std_of_complex_are_real_and_match_numpy_and_torch(rt, op, correction):
    z = crandn(3, 4)
    out = rt.with_eager_session(lambda s: getattr(s, op)(const(rt, z), 1, correction))
    reference = getattr(np, op)(z, axis=1, ddof=correction)
    assert out.dtype == np.float64 and reference.dtype == np.float64
    np.testing.assert_allclose(np.asarray(out), reference, rtol=1e-14)
    w = RNG.standard_normal(3)
    loss = loss_of(lambda s, x: getattr(s, op)(x, 1, correction), w)
    (g,) = grads(rt, loss, z)
    (expected,) = torch_grads(lambda x: getattr(torch, op)(x, 1, correction=correction), w, z)
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(g, fd_grad(rt, loss, [z], 0), rtol=1e-7, atol=1e-8)


def test_var_of_complex64_is_float32(rt):
    z = crandn(5).astype(np.complex64)
    out = rt.with_eager_session(lambda s: s.var(const(rt, z)))
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), np.var(z), rtol=1e-6)


@pytest.mark.parametrize("op, reference", [("any", np.any), ("all", np.all), ("count_nonzero", np.count_nonzero)])
def test_truthiness_of_complex_is_nonzero_as_numpy(rt, op, reference):
    z = np.array([[0j, 1j, 0j], [2 + 0j, 1 - 1j, 3j]])  # true where either part is nonzero
    for axes in (None, 0, 1):
        out = rt.with_eager_session(lambda s, axes=axes: getattr(s, op)(const(rt, z), axes))
        np.testing.assert_array_equal(np.asarray(out), reference(z, axis=axes))


# -- shape -------------------------------------------------------------------------------------
@needs_torch
def test_concat_of_real_and_complex_promotes_and_the_real_input_gets_a_real_gradient(rt):
    a, b = RNG.standard_normal((2, 3)), crandn(1, 3)
    w = crandn(3, 3)
    loss = loss_of(lambda s, x, y: s.mul(s.concat([x, y], 0), s.concat([x, y], 0)), w)
    out = rt.with_eager_session(lambda s: s.concat([const(rt, a), const(rt, b)], 0))
    assert out.dtype == np.complex128
    np.testing.assert_array_equal(np.asarray(out), np.concatenate([a, b]))
    ga, gb = grads(rt, loss, a, b)
    assert ga.dtype == np.float64 and gb.dtype == np.complex128
    ta, tb = torch_grads(lambda x, y: torch.cat([x, y]) ** 2, w, a, b)
    np.testing.assert_allclose(ga, ta, rtol=1e-13)
    np.testing.assert_allclose(gb, tb, rtol=1e-13)
    np.testing.assert_allclose(ga, fd_grad(rt, loss, [a, b], 0), rtol=1e-7)
    np.testing.assert_allclose(gb, fd_grad(rt, loss, [a, b], 1), rtol=1e-7)


def test_stack_of_complex64_and_float32_is_complex64_and_the_float32_input_gets_float32(rt):
    a, b = RNG.standard_normal(3).astype(np.float32), crandn(3).astype(np.complex64)
    out = rt.with_eager_session(lambda s: s.stack([const(rt, a), const(rt, b)]))
    assert out.dtype == np.complex64
    ga, gb = grads(rt, loss_of(lambda s, x, y: s.stack([x, y]), crandn(2, 3)), a, b)
    assert ga.dtype == np.float32 and gb.dtype == np.complex64


def test_pad_with_a_complex_constant_promotes_a_real_tensor(rt):
    x = RNG.standard_normal((2, 2))
    out = rt.with_eager_session(lambda s: s.pad(const(rt, x), 1, constant_values=1 - 2j))
    expected = np.pad(x.astype(complex), 1, constant_values=1 - 2j)
    assert out.dtype == np.complex128
    np.testing.assert_array_equal(np.asarray(out), expected)
    w = crandn(4, 4)
    (g,) = grads(rt, loss_of(lambda s, x: s.pad(x, 1, constant_values=1 - 2j), w), x)
    assert g.dtype == np.float64
    np.testing.assert_array_equal(g, w[1:3, 1:3].real)  # Re(w·x) in x: the real part of w


@pytest.mark.parametrize(
    "op, args, reference",
    [
        ("reshape", ((3, 2),), lambda z: z.reshape(3, 2)),
        ("transpose", (), lambda z: z.T),
        ("flip", (1,), lambda z: z[:, ::-1]),
        ("roll", (1, 1), lambda z: np.roll(z, 1, 1)),
        ("tile", ((2, 1),), lambda z: np.tile(z, (2, 1))),
        ("repeat", (2, 0), lambda z: np.repeat(z, 2, 0)),
        ("tril", (), np.tril),
        ("diagonal", (), np.diagonal),
        ("slice", (((None, None, -1), 1),), lambda z: z[::-1, 1]),
    ],
)
def test_shape_ops_move_complex_values_and_their_cotangents_unchanged(rt, op, args, reference):
    z = crandn(2, 3)
    out = rt.with_eager_session(lambda s: getattr(s, op)(const(rt, z), *args))
    np.testing.assert_array_equal(np.asarray(out), reference(z))
    w = crandn(*np.shape(reference(z)))
    loss = loss_of(lambda s, x: getattr(s, op)(x, *args), w)
    (g,) = grads(rt, loss, z)
    np.testing.assert_allclose(g, fd_grad(rt, loss, [z], 0), rtol=1e-7, atol=1e-9)


# -- index -------------------------------------------------------------------------------------
@needs_torch
def test_scatter_add_of_complex_values_matches_torch_index_put(rt):
    x, u = crandn(4), crandn(3)
    at = np.array([[1], [3], [1]])
    w = crandn(4)
    loss = loss_of(lambda s, x, u: s.mul(s.scatter(x, const(rt, at), u, 0, "add"), x), w)
    gx, gu = grads(rt, loss, x, u)
    index = torch.tensor(at[:, 0])
    tx, tu = torch_grads(lambda x, u: x.index_put((index,), u, accumulate=True) * x, w, x, u)
    np.testing.assert_allclose(gx, tx, rtol=1e-13)
    np.testing.assert_allclose(gu, tu, rtol=1e-13)


@pytest.mark.parametrize("mode", ["set", "add", "mul"])
def test_scatter_of_complex_values_matches_finite_differences(rt, mode):
    x, u = crandn(4), crandn(3)
    u[1] = 0 if mode == "mul" else u[1]  # mul's gradient is exact at a zero update
    at = np.array([[1], [3], [1]])  # position 1 twice: set keeps the last, add and mul combine
    w = crandn(4)
    loss = loss_of(lambda s, x, u: s.scatter(x, const(rt, at), u, 0, mode), w)
    gx, gu = grads(rt, loss, x, u)
    np.testing.assert_allclose(gx, fd_grad(rt, loss, [x, u], 0), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(gu, fd_grad(rt, loss, [x, u], 1), rtol=1e-7, atol=1e-9)


def test_scatter_of_real_updates_into_complex_x_gives_the_updates_a_real_gradient(rt):
    x, u = crandn(3), RNG.standard_normal(2)
    loss = loss_of(lambda s, x, u: s.scatter(x, const(rt, np.array([[0], [2]])), u, 0, "mul"), crandn(3))
    gx, gu = grads(rt, loss, x, u)
    assert gu.dtype == np.float64
    np.testing.assert_allclose(gu, fd_grad(rt, loss, [x, u], 1), rtol=1e-7)


@pytest.mark.parametrize("mode", ["set", "add", "mul"])
def test_scatter_of_a_numpy_complex_scalar_update_is_differentiable_in_x(rt, mode):
    """A NumPy complex scalar update is a constant like a Python complex (mul's rule used to
    call s.real on it alone)."""
    x, w = crandn(3), crandn(3)
    update = np.complex128(0.5 - 2j)
    loss = loss_of(lambda s, x: s.scatter(x, const(rt, np.array([[0], [2]])), update, 0, mode), w)
    (gx,) = grads(rt, loss, x)
    np.testing.assert_allclose(gx, fd_grad(rt, loss, [x], 0), rtol=1e-7, atol=1e-9)


@needs_torch
@pytest.mark.parametrize("op", ["take", "take_along_axis", "gather"])
def test_reads_of_complex_values_match_torch(rt, op):
    z = crandn(3, 4)
    idx = {
        "take": np.array([2, 0, 2]),
        "take_along_axis": np.array([[0, 3], [1, 1], [2, 0]]),
        "gather": np.array([[0, 1], [2, 3], [0, 1]]),
    }[op]
    axis = {"take": 1, "take_along_axis": 1, "gather": 0}[op]
    picked = {
        "take": lambda x: x[:, torch.tensor(idx)],
        "take_along_axis": lambda x: torch.take_along_dim(x, torch.tensor(idx), 1),
        "gather": lambda x: x[torch.tensor(idx[:, 0]), torch.tensor(idx[:, 1])],
    }[op]
    out = rt.with_eager_session(lambda s: getattr(s, op)(const(rt, z), const(rt, idx), axis))
    np.testing.assert_array_equal(np.asarray(out), picked(torch.tensor(z)).numpy())
    w = crandn(*np.shape(out))
    (g,) = grads(rt, loss_of(lambda s, x: getattr(s, op)(x, const(rt, idx), axis), w), z)
    (expected,) = torch_grads(picked, w, z)
    np.testing.assert_allclose(g, expected, rtol=1e-14)


def test_boolean_mask_and_dynamic_slice_of_complex_values(rt):
    z = crandn(3, 2)
    mask = np.array([True, False, True])
    out = rt.with_eager_session(lambda s: s.boolean_mask(const(rt, z), const(rt, mask)))
    np.testing.assert_array_equal(np.asarray(out), z[mask])
    w = crandn(2, 2)
    (g,) = grads(rt, loss_of(lambda s, x: s.boolean_mask(x, const(rt, mask)), w), z)
    np.testing.assert_array_equal(g, np.conj(np.array([w[0], [0, 0], w[1]])))
    window = rt.with_eager_session(lambda s: s.dynamic_slice(const(rt, z), const(rt, np.array([1, 0])), (2, 1)))
    np.testing.assert_array_equal(np.asarray(window), z[1:3, 0:1])


def test_argwhere_and_nonzero_read_complex_truthiness(rt):
    z = np.array([0j, 1j, 0j, 2 + 0j])
    np.testing.assert_array_equal(np.asarray(rt.with_eager_session(lambda s: s.argwhere(const(rt, z)))), [[1], [3]])
    (positions,) = rt.with_eager_session(lambda s: s.nonzero(const(rt, z)))
    np.testing.assert_array_equal(np.asarray(positions), [1, 3])


# -- refusals ----------------------------------------------------------------------------------
Z = crandn(2, 3)


@pytest.mark.parametrize(
    "op, args",
    [
        ("reduce_max", ()),
        ("reduce_min", ()),
        ("argmax", ()),
        ("argmin", ()),
        ("sort", ()),
        ("argsort", ()),
        ("logsumexp", ()),
    ],
)
def test_ops_that_order_complex_numbers_refuse_them(rt, op, args):
    with pytest.raises(DTypeError, match=rf"{op}: argument 'x' has dtype c128; {op} accepts .*float") as error:
        rt.with_eager_session(lambda s: getattr(s, op)(const(rt, Z), *args))
    if op != "logsumexp":
        assert "complex numbers have no order (the array API's rule); use s.abs(x) or s.real(x)" in str(error.value)


@pytest.mark.parametrize("mode", ["min", "max"])
def test_scatter_min_and_max_refuse_complex_values_saying_they_have_no_order(rt, mode):
    x = const(rt, crandn(3))
    with pytest.raises(DTypeError, match=f"scatter: mode '{mode}' compares values, and complex numbers have no order"):
        rt.with_eager_session(lambda s: s.scatter(x, const(rt, np.array([[0]])), 1.0, 0, mode))


def test_scatter_refuses_complex_updates_into_a_real_tensor(rt):
    x = const(rt, np.zeros(3))
    with pytest.raises(DTypeError, match="the updates are complex but x is real .* cast x to complex first"):
        rt.with_eager_session(lambda s: s.scatter(x, const(rt, np.array([[0]])), 1j, 0, "add"))


@pytest.mark.parametrize(
    "op, args",
    [
        ("relu", ()),
        ("gelu", ()),
        ("silu", ()),
        ("softplus", ()),
        ("softmax", ()),
        ("log_softmax", ()),
        ("masked_softmax", (np.ones((2, 3), bool),)),
        ("layer_norm", (1.0, 0.0)),
        ("rms_norm", (1.0,)),
    ],
)
def test_nn_ops_are_real_functions_and_refuse_complex(rt, op, args):
    with pytest.raises(DTypeError, match=rf"{op}: .* c128; {op} accepts .*float.*: {op} is a function of real numbers"):
        rt.with_eager_session(
            lambda s: getattr(s, op)(const(rt, Z), *(a if type(a) is float else const(rt, a) for a in args))
        )


def test_logsumexp_refuses_complex_with_the_workaround_not_as_a_real_only_function(rt):
    """Complex logsumexp exists mathematically (PyTorch has it); the error says it is not
    implemented and how to write it, not that logsumexp is a function of real numbers."""
    with pytest.raises(DTypeError, match=r"logsumexp: .*not implemented.*s\.log\(s\.reduce_sum\(s\.exp\(z\)"):
        rt.with_eager_session(lambda s: s.logsumexp(const(rt, crandn(3)), None))
