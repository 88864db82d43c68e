"""The nn plugin: values and gradients against torch.nn.functional, the edge cases of the
softmax family, and a softmax-regression training step checked by finite differences."""

import numpy as np
import pytest
from conftest import needs_torch, torch

from tenferro import ShapeMismatch

F = None if torch is None else torch.nn.functional

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 6)) * 3
X[0, :3] = [0.0, -0.0, 25.0]  # relu's kink, softplus's threshold


def _ours(rt, fn, *arrays, wrt=(0,)):
    """Value of fn(s, *tensors), and the gradient of sum(value * c) for a fixed c."""
    tensors = [rt.variable_from(a) if i in wrt else rt.constant_from(a) for i, a in enumerate(arrays)]
    out = rt.with_eager_session(lambda s: fn(s, *tensors))
    c = rt.constant_from(np.cos(np.arange(np.asarray(out).size).reshape(out.shape)))
    grads = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(out, c), None)), [tensors[i] for i in wrt])
    return np.asarray(out), [np.asarray(g) for g in grads]


def _theirs(fn, *arrays, wrt=(0,)):
    tensors = [torch.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arrays)]
    out = fn(*tensors)
    c = torch.cos(torch.arange(out.numel(), dtype=out.dtype).reshape(out.shape))
    grads = torch.autograd.grad((out * c).sum(), [tensors[i] for i in wrt])
    return out.detach().numpy(), [g.numpy() for g in grads]


def _agree(rt, ours, theirs, *arrays, wrt=(0,), rtol=1e-13, atol=1e-14):
    value, grads = _ours(rt, ours, *arrays, wrt=wrt)
    value_t, grads_t = _theirs(theirs, *arrays, wrt=wrt)
    np.testing.assert_allclose(value, value_t, rtol=rtol, atol=atol)
    for g, gt in zip(grads, grads_t):
        np.testing.assert_allclose(g, gt, rtol=rtol, atol=atol)


@needs_torch
@pytest.mark.parametrize(
    "ours, theirs",
    [
        (lambda s, x: s.relu(x), lambda x: F.relu(x)),
        (lambda s, x: s.gelu(x), lambda x: F.gelu(x)),
        (lambda s, x: s.gelu(x, "tanh"), lambda x: F.gelu(x, approximate="tanh")),
        (lambda s, x: s.silu(x), lambda x: F.silu(x)),
        (lambda s, x: s.softplus(x), lambda x: F.softplus(x)),
        (lambda s, x: s.softplus(x, 2.0, 1.0), lambda x: F.softplus(x, beta=2.0, threshold=1.0)),
        (lambda s, x: s.softmax(x), lambda x: F.softmax(x, -1)),
        (lambda s, x: s.softmax(x, 0), lambda x: F.softmax(x, 0)),
        (lambda s, x: s.log_softmax(x), lambda x: F.log_softmax(x, -1)),
        (lambda s, x: s.log_softmax(x, 0), lambda x: F.log_softmax(x, 0)),
    ],
)
def test_activations_and_softmax_match_torch(rt, ours, theirs):
    _agree(rt, ours, theirs, X)


def test_relu_derivative_at_zero_is_zero_as_torch(rt):
    _, (g,) = _ours(rt, lambda s, x: s.relu(x), np.array([0.0, -0.0, 1.0]))
    assert g.tolist() == [0.0, 0.0, np.cos(2.0)]


@needs_torch
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_matches_torch(rt, affine):
    x = RNG.standard_normal((3, 4, 5))
    w, b = (RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))) if affine else (1.0, 0.0)
    arrays, wrt = ((x, w, b), (0, 1, 2)) if affine else ((x,), (0,))
    ours = (
        (lambda s, x, w, b: s.layer_norm(x, w, b, (4, 5)))
        if affine
        else (lambda s, x: s.layer_norm(x, 1.0, 0.0, (4, 5)))
    )
    theirs = (lambda x, w, b: F.layer_norm(x, (4, 5), w, b)) if affine else (lambda x: F.layer_norm(x, (4, 5)))
    _agree(rt, ours, theirs, *arrays, wrt=wrt, rtol=1e-12, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("dtype, big", [(np.float64, 1e200), (np.float32, 1e30)])
def test_layer_norm_whose_variance_overflows_is_nan_as_torch_not_a_silent_zero(rt, dtype, big):
    values = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 4.0]], dtype) * np.array([[big], [1.0]], dtype)
    c = rt.constant_from(np.array([1.0, -2.0, 0.5], dtype))  # a cotangent that is not nan itself
    for affine in [(1.0, 0.0), (rt.constant_from(np.full(3, 2.0, dtype)), rt.constant_from(np.ones(3, dtype)))]:
        x = rt.variable_from(values)
        with rt.eager_session() as s:
            out = s.layer_norm(x, *affine)
            loss = s.reduce_sum(s.mul(out, c), None)
        g = rt.grad(loss, x)
        assert np.all(np.isnan(np.asarray(out)[0])) and np.all(np.isnan(np.asarray(g)[0]))
        assert np.all(np.isfinite(np.asarray(out)[1])) and np.all(np.isfinite(np.asarray(g)[1]))
    xt = torch.tensor(values[:1], requires_grad=True)
    out_t = F.layer_norm(xt, (3,))
    (out_t * out_t).sum().backward()
    assert torch.isnan(out_t).all() and torch.isnan(xt.grad).all()


def test_layer_norm_axes_is_normalized_shape_of_the_last_axes(rt):
    x = rt.constant_from(RNG.standard_normal((2, 3, 4)))
    a = rt.with_eager_session(lambda s: s.layer_norm(x, 1.0, 0.0, axes=(1, 2)))
    b = rt.with_eager_session(lambda s: s.layer_norm(x, 1.0, 0.0, (3, 4)))
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with pytest.raises(ShapeMismatch, match=r"normalized_shape \[3\] must be the trailing shape of x"):
        rt.with_eager_session(lambda s: s.layer_norm(x, 1.0, 0.0, (3,)))


@needs_torch
def test_rms_norm_matches_torch(rt):
    x, w = RNG.standard_normal((3, 8)), RNG.standard_normal(8)
    _agree(rt, lambda s, x, w: s.rms_norm(x, w, (8,)), lambda x, w: F.rms_norm(x, (8,), w), x, w, wrt=(0, 1))
    _agree(rt, lambda s, x: s.rms_norm(x, 1.0, eps=1e-3), lambda x: F.rms_norm(x, (8,), eps=1e-3), x)


def test_masked_softmax_fully_masked_row_is_zeros_with_a_zero_gradient(rt):
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [-np.inf, -np.inf, -np.inf]])
    mask = np.array([[True, False, True], [False, False, False], [True, True, True]])
    out, (g,) = _ours(rt, lambda s, x, m: s.masked_softmax(x, m), x, mask)
    expected = np.exp([1.0, 3.0]) / np.exp([1.0, 3.0]).sum()
    np.testing.assert_allclose(out[0], [expected[0], 0.0, expected[1]], rtol=1e-15)
    assert out[1:].tolist() == [[0.0] * 3] * 2
    assert np.all(np.isfinite(g)) and g[1:].tolist() == [[0.0] * 3] * 2 and g[0, 1] == 0.0
    # and second order stays finite
    xv, mv = rt.variable_from(x[:2]), rt.constant_from(mask[:2])
    gv = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.square(s.masked_softmax(xv, mv)), None)), xv)
    h = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.square(gv), None)), xv)
    assert np.all(np.isfinite(np.asarray(h)))


@needs_torch
def test_masked_softmax_matches_torch_where_rows_have_a_position(rt):
    mask = RNG.random((4, 6)) > 0.4
    mask[:, 0] = True
    _agree(
        rt,
        lambda s, x, m: s.masked_softmax(x, m),
        lambda x, m: F.softmax(x.masked_fill(~m, float("-inf")), -1),
        X,
        mask,
    )


def test_softmax_and_log_softmax_of_an_all_minus_inf_slice(rt):
    x = np.array([[-np.inf, -np.inf], [0.0, 1.0]])
    out, (g,) = _ours(rt, lambda s, x: s.softmax(x), x)
    assert out[0].tolist() == [0.0, 0.0] and g[0].tolist() == [0.0, 0.0]
    out, (g,) = _ours(rt, lambda s, x: s.log_softmax(x), x)
    assert out[0].tolist() == [-np.inf, -np.inf] and np.all(np.isfinite(g))


@needs_torch
def test_log_softmax_of_an_all_minus_inf_slice_passes_the_cotangent_through_as_documented(rt):
    """Its softmax term is 0 there: g - exp(-inf)·sum(g) = g (the docs said "a zero gradient";
    PyTorch gives nan). The -inf elements of a slice with a finite one get the same, as in
    PyTorch."""
    x = rt.variable_from(np.array([[-np.inf, -np.inf], [-np.inf, 0.0]]))
    out = rt.with_eager_session(lambda s: s.log_softmax(x))
    out.backward_with(rt.constant_from(np.array([[1.0, 2.0], [1.0, 2.0]])))
    np.testing.assert_array_equal(x.grad().to_numpy(), [[1.0, 2.0], [1.0, -1.0]])
    xt = torch.tensor([[-np.inf, 0.0]], requires_grad=True)
    F.log_softmax(xt, -1).backward(torch.tensor([[1.0, 2.0]]))
    np.testing.assert_array_equal(x.grad().to_numpy()[1:], xt.grad.numpy())
    # and the docs say so: the spec's kink (checked by `tenferro check nn`) and the module's
    import tenferro.plugins.nn.softmax as module

    (kink,) = rt.registry["log_softmax"].kinks
    assert kink.cotangents[0].tolist() == [[1.0, 2.0]] and np.all(np.isneginf(kink.args[0]))
    assert "log_softmax -inf with the gradient g itself" in " ".join(module.__doc__.split())


@needs_torch
@pytest.mark.parametrize("op", ["softmax", "log_softmax", "masked_softmax"])
@pytest.mark.parametrize("shape, axis", [((0, 3), 0), ((0, 3), 1), ((3, 0), -1), ((2, 0, 3), (0, 1))])
def test_softmax_family_over_an_empty_axis_is_empty_as_torch(rt, op, shape, axis):
    x = rt.variable_from(np.zeros(shape))
    mask = (rt.constant_from(np.ones(shape[-1:], bool)),) if op == "masked_softmax" else ()
    out = rt.with_eager_session(lambda s: getattr(s, op)(x, *mask, axis=axis))
    expected = getattr(F, op.removeprefix("masked_"))(torch.zeros(shape), axis if isinstance(axis, int) else 0)
    assert out.shape == tuple(expected.shape) == shape and out.dtype == np.float64
    g = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(out, None)), x)
    assert np.asarray(g).shape == shape


def test_softmax_does_not_overflow(rt):
    out, (g,) = _ours(rt, lambda s, x: s.softmax(x), np.array([1000.0, 1000.0, -1000.0]))
    np.testing.assert_allclose(out, [0.5, 0.5, 0.0])
    assert np.all(np.isfinite(g))


def test_softmax_regression_step_gradient_matches_finite_differences(rt):
    rng = np.random.default_rng(3)
    inputs, labels = rng.standard_normal((8, 5)), rng.integers(0, 3, 8)

    def loss(s, w, b):
        logits = s.add(s.reduce_sum(s.mul(s.expand_to(inputs_t, (8, 5, 3), 2), s.expand_to(w, (8, 5, 3), 0)), 1), b)
        return s.neg(s.reduce_mean(s.take_along_axis(s.log_softmax(logits, 1), picks, 1), None))

    inputs_t, picks = rt.constant_from(inputs), rt.constant_from(labels[:, None])
    w0, b0 = rng.standard_normal((5, 3)), rng.standard_normal(3)
    w, b = rt.variable_from(w0), rt.variable_from(b0)
    gw, gb = (np.asarray(g) for g in rt.grad(rt.with_eager_session(lambda s: loss(s, w, b)), [w, b]))

    def value(wv, bv):
        return float(np.asarray(rt.with_eager_session(lambda s: loss(s, rt.constant_from(wv), rt.constant_from(bv)))))

    h = 1e-6
    fd_w = np.array([(value(w0 + h * e, b0) - value(w0 - h * e, b0)) / (2 * h) for e in np.eye(15).reshape(15, 5, 3)])
    fd_b = np.array([(value(w0, b0 + h * e) - value(w0, b0 - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(gw.reshape(-1), fd_w, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(gb, fd_b, rtol=1e-7, atol=1e-9)
    # one step of gradient descent lowers the loss
    assert value(w0 - 0.1 * gw, b0 - 0.1 * gb) < value(w0, b0)


@needs_torch
def test_cross_entropy_with_take_along_axis_matches_torch_cross_entropy(rt):
    rng = np.random.default_rng(5)
    logits, labels = rng.standard_normal((6, 7)) * 4, rng.integers(0, 7, 6)
    z, picks = rt.variable_from(logits), rt.constant_from(labels[:, None])
    loss = rt.with_eager_session(lambda s: s.neg(s.reduce_mean(s.take_along_axis(s.log_softmax(z, 1), picks, 1), None)))
    (g,) = rt.grad(loss, [z])
    zt = torch.tensor(logits, requires_grad=True)
    loss_t = F.cross_entropy(zt, torch.tensor(labels))
    loss_t.backward()
    np.testing.assert_allclose(float(np.asarray(loss)), loss_t.item(), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(g), zt.grad.numpy(), rtol=1e-13, atol=1e-16)


def test_layer_norm_affine_that_broadcasts_x_larger_or_promotes_it_is_not_written_in_place(rt):
    x = rt.constant_from(RNG.standard_normal((2, 3)).astype(np.float32))
    w = rt.constant_from(RNG.standard_normal((4, 1, 3)))  # broadcasts the result to (4, 2, 3), float64
    y = rt.with_eager_session(lambda s: s.layer_norm(x, w, 0.5))
    xv = np.asarray(x).astype(np.float64)
    xhat = (xv - xv.mean(-1, keepdims=True)) / np.sqrt(xv.var(-1, keepdims=True) + 1e-5)
    assert np.asarray(y).shape == (4, 2, 3) and np.asarray(y).dtype == np.float64
    np.testing.assert_allclose(np.asarray(y), xhat * np.asarray(w) + 0.5, rtol=1e-5)
