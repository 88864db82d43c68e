"""tenferro.autograd: HIPS autograd's differential operators, with autograd's signatures and
numbers (checked against closed forms, and against autograd itself where it is installed)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tenferro.autograd as ag
import tenferro.autograd.numpy as anp
from tenferro import ArgumentError, NonScalarGrad

X = np.array([0.1, 0.55, 1.0])
Y = np.array([1.0, 1.5, 2.0])
V = np.array([1.0, -2.0, 0.5])


def f(x, y):
    return anp.sum(anp.sin(x) * y**2)


def values(a):
    return np.asarray(a)


def test_grad_takes_autograds_argnum_an_int_or_a_tuple():
    np.testing.assert_allclose(values(ag.grad(f)(X, Y)), np.cos(X) * Y**2, rtol=1e-15)
    gx, gy = ag.grad(f, (0, 1))(X, Y)
    np.testing.assert_allclose(values(gx), np.cos(X) * Y**2, rtol=1e-15)
    np.testing.assert_allclose(values(gy), 2 * np.sin(X) * Y, rtol=1e-15)
    np.testing.assert_allclose(values(ag.grad_named(f, "y")(X, Y)), 2 * np.sin(X) * Y, rtol=1e-15)
    d = ag.multigrad_dict(f)(X, Y)
    assert list(d) == ["x", "y"]
    np.testing.assert_allclose(values(d["y"]), 2 * np.sin(X) * Y, rtol=1e-15)


def test_an_output_of_size_one_is_a_scalar_as_in_autograd_and_a_larger_one_is_refused():
    sized = lambda x: anp.reshape(anp.sum(x**2), (1, 1))  # noqa: E731
    np.testing.assert_array_equal(values(ag.grad(sized)(X)), 2 * X)
    value, gradient = ag.value_and_grad(sized)(X)
    assert values(value).shape == (1, 1) and float(values(value)[0, 0]) == float(np.sum(X**2))
    with pytest.raises(NonScalarGrad, match=r"grad only applies to real scalar-output functions .*\[3\]"):
        ag.grad(lambda x: x * 2.0)(X)
    with pytest.raises(TypeError):  # autograd's exception type too
        ag.value_and_grad(lambda x: x * 2.0)(X)


def test_the_jacobian_family():
    tanh = lambda x: anp.tanh(x) * 2.0  # noqa: E731
    np.testing.assert_allclose(values(ag.elementwise_grad(tanh)(X)), 2 * (1 - np.tanh(X) ** 2), rtol=1e-14)
    np.testing.assert_allclose(values(ag.deriv(tanh)(X)), 2 * (1 - np.tanh(X) ** 2), rtol=1e-14)
    np.testing.assert_allclose(values(ag.jacobian(tanh)(X)), np.diag(2 * (1 - np.tanh(X) ** 2)), rtol=1e-14)
    hessian = np.diag(-np.sin(X) * Y**2)
    np.testing.assert_allclose(values(ag.hessian(f)(X, Y)), hessian, rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(values(ag.hessian_vector_product(f)(X, Y, V)), hessian @ V, rtol=1e-14)
    jac = np.diag(np.cos(X) * X + np.sin(X))
    np.testing.assert_allclose(values(ag.tensor_jacobian_product(lambda x: anp.sin(x) * x)(X, V)), V @ jac, rtol=1e-14)


def test_make_vjp_make_jvp_and_make_hvp_return_what_autograds_return():
    vjp, value = ag.make_vjp(lambda x: anp.sin(x) * x)(X)  # (vjp, value), in that order
    np.testing.assert_array_equal(values(value), np.sin(X) * X)
    np.testing.assert_allclose(values(vjp(V)), V * (np.cos(X) * X + np.sin(X)), rtol=1e-15)
    value, tangent = ag.make_jvp(anp.sin)(X)(V)  # (value, J·v)
    np.testing.assert_array_equal(values(value), np.sin(X))
    np.testing.assert_allclose(values(tangent), np.cos(X) * V, rtol=1e-15)
    hvp, gradient = ag.make_hvp(f)(X, Y)
    np.testing.assert_allclose(values(gradient), np.cos(X) * Y**2, rtol=1e-15)
    np.testing.assert_allclose(values(hvp(V)), -np.sin(X) * Y**2 * V, rtol=1e-14)


def test_make_ggnvp_is_jt_hg_j():
    jac = np.diag(np.cos(X) * X + np.sin(X))  # of f(x) = sin(x)·x; g = ½|y|², whose Hessian is I
    np.testing.assert_allclose(values(ag.make_ggnvp(lambda x: anp.sin(x) * x)(X)(V)), jac.T @ jac @ V, rtol=1e-14)


def test_grad_and_aux_gives_the_second_output_unchanged():
    gradient, aux = ag.grad_and_aux(lambda x: (f(x, Y), x * 2.0))(X)
    np.testing.assert_allclose(values(gradient), np.cos(X) * Y**2, rtol=1e-15)
    np.testing.assert_array_equal(values(aux), X * 2.0)


def test_complex_values_follow_autograds_convention_not_tenferros():
    """autograd (as JAX) gives g·f′ where tenferro (as PyTorch) gives g·conj(f′)."""
    z = np.array([1.0 + 2.0j, 0.5 - 1.0j])
    c = 1.0 + 2.0j
    vjp, _ = ag.make_vjp(lambda z: z * c)(z)
    np.testing.assert_array_equal(values(vjp(np.ones(2, complex))), [c, c])
    np.testing.assert_allclose(values(ag.holomorphic_grad(lambda z: z[0] ** 2)(z))[0], 2 * z[0], rtol=1e-15)
    np.testing.assert_allclose(
        values(ag.grad(lambda z: anp.sum(anp.abs(z * c) ** 2))(z)), 2 * abs(c) ** 2 * np.conj(z), rtol=1e-15
    )


def test_checkpoint_recomputes_in_the_backward_pass_and_gives_the_same_gradient():
    calls = []

    def inner(x):
        calls.append(1)
        return anp.sin(x) * x

    checkpointed = ag.checkpoint(inner)
    loss = lambda x: anp.sum(checkpointed(x))  # noqa: E731
    gradient = ag.grad(loss)(X)
    assert len(calls) == 2  # once forward (recording nothing), once in the backward pass
    np.testing.assert_array_equal(values(gradient), values(ag.grad(lambda x: anp.sum(anp.sin(x) * x))(X)))
    np.testing.assert_allclose(values(ag.hessian(loss)(X)), np.diag(2 * np.cos(X) - X * np.sin(X)), rtol=1e-14)


def test_bad_operators_arguments_name_the_operator():
    with pytest.raises(ArgumentError, match=r"tenferro.autograd.grad: argnum must be an int or a tuple"):
        ag.grad(f, argnum="x")
    with pytest.raises(ArgumentError, match=r"tenferro.autograd.grad: argnum 2 is out of range .* 2 positional"):
        ag.grad(f, 2)(X, Y)
    with pytest.raises(ArgumentError, match=r"tenferro.autograd.jacobian: fun must be callable"):
        ag.jacobian(3)
    with pytest.raises(ArgumentError, match=r"grad_named: 'f' has no positional argument 'z'"):
        ag.grad_named(f, "z")


def test_numpy_is_numpys_on_plain_values_and_tenferros_on_tracked_ones_as_in_autograd():
    out = anp.sin(X)
    assert type(out) is np.ndarray and np.array_equal(out, np.sin(X))  # NumPy in, NumPy out
    assert type(anp.linspace(0.0, 1.0, 3)) is np.ndarray and anp.float64 is np.float64 and anp.pi == np.pi
    seen = []
    ag.grad(lambda x: seen.append(type(anp.sin(x)).__name__) or anp.sum(anp.sin(x)))(X)
    assert seen == ["EagerTensor"]  # tracked in, recorded


def test_a_name_tenferro_numpy_lacks_is_numpys_own():
    np.testing.assert_array_equal(anp.real_if_close(np.array([1.0, 2.0])), np.array([1.0, 2.0]))
    assert isinstance(anp.random.randn(3), np.ndarray)  # draws are constants, as autograd's
    with pytest.raises(ArgumentError, match=r"np.real_if_close on a tenferro array: tenferro.numpy has no equivalent"):
        ag.grad(lambda x: anp.sum(anp.real_if_close(x)))(X)  # refused, never a silently lost gradient
    with pytest.raises(AttributeError, match=r"tenferro.autograd.numpy has no 'no_such'"):
        anp.no_such  # noqa: B018


@given(st.lists(st.floats(-2.0, 2.0), min_size=1, max_size=4))
def test_against_autograd_a_logistic_loss_and_its_hessian(w):
    autograd = pytest.importorskip("autograd")
    real_np = pytest.importorskip("autograd.numpy")
    w = np.array(w)
    data = np.linspace(-1.0, 1.0, 5 * w.size).reshape(5, w.size)
    labels = np.array([1.0, 0.0, 1.0, 1.0, 0.0])

    def loss(np_, w):
        logits = np_.dot(data, w)
        return np_.sum(np_.logaddexp(0.0, logits) - labels * logits)

    for ours, theirs in (
        (ag.grad, autograd.grad),
        (ag.hessian, autograd.hessian),
        (ag.elementwise_grad, autograd.elementwise_grad),
    ):
        got = values(ours(lambda w: loss(anp, w))(w))
        want = theirs(lambda w: loss(real_np, w))(w)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_the_docs_program_runs():
    import pathlib
    import re

    text = (pathlib.Path(__file__).parents[1] / "docs" / "autograd.md").read_text(encoding="utf-8")
    (program,) = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    exec(compile(program, "docs/autograd.md", "exec"), {"__name__": "__main__"})


def test_scipy_special_is_scipys_on_plain_values_and_tenferros_on_tracked_ones():
    import scipy.special

    from tenferro.autograd.scipy.special import digamma, gammaincinv, gammaln, logsumexp

    assert type(gammaln(3.5)) is np.float64 and gammaln(3.5) == scipy.special.gammaln(3.5)
    assert float(ag.grad(gammaln)(3.5)) == scipy.special.digamma(3.5) == digamma(3.5)
    np.testing.assert_allclose(ag.grad(logsumexp)(X), np.exp(X) / np.exp(X).sum(), rtol=1e-15)
    with pytest.raises(ArgumentError, match=r"scipy.special.gammaincinv on a tenferro array"):
        ag.grad(lambda a: gammaincinv(a, 0.5))(2.0)  # not differentiable here: refused, not a lost gradient


def test_misc_optimizers_and_flatten_give_numpy_values_as_autograds():
    from tenferro.autograd.misc import flatten
    from tenferro.autograd.misc.optimizers import adam

    params = {"w": np.ones((2, 2)), "b": np.zeros(2)}
    vector, unflatten = flatten(params)
    assert type(vector) is np.ndarray and vector.shape == (6,)
    back = unflatten(vector)
    assert set(back) == {"w", "b"} and np.array_equal(back["w"], params["w"])

    def objective(p, i):
        return anp.sum((p["w"] - 3.0) ** 2) + anp.sum((p["b"] + 1.0) ** 2)

    final = adam(ag.grad(objective), params, num_iters=2000, step_size=0.05)
    assert type(final["w"]) is np.ndarray
    np.testing.assert_allclose(final["w"], 3.0, atol=1e-3)
    np.testing.assert_allclose(final["b"], -1.0, atol=1e-3)
