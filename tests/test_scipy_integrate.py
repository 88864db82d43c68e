"""``tenferro.scipy.integrate.odeint``: values scipy's; gradients in y0, t and args by the
adjoint method against finite differences of scipy.integrate.odeint runs at tight
tolerance, and against HIPS autograd's where autograd is installed; second order (the adjoint of the
adjoint); pytrees; errors naming the function and the argument."""

import numpy as np
import pytest
import scipy.integrate

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, DTypeError, NotDifferentiable, RuleError
from tenferro.scipy.integrate import IntegrationError, odeint

Y0 = np.array([1.0, 0.5])
T = np.linspace(0.0, 2.0, 4)
A, B = 0.7, 1.3
TIGHT = {"rtol": 1e-11, "atol": 1e-11}


def f(y, t, a, b):
    return tnp.stack([a * y[1], -b * y[0] * tnp.sin(t)])


def f_numpy(y, t, a, b):
    return np.array([a * y[1], -b * y[0] * np.sin(t)])


def loss(y0, t, a, b):
    return tnp.sum(odeint(f, y0, t, a, b, **TIGHT) ** 2)


def loss_numpy(y0, t, a, b):
    return np.sum(scipy.integrate.odeint(f_numpy, y0, t, (a, b), rtol=1e-12, atol=1e-12) ** 2)


def _central(function, x, h=1e-6):
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros(x.shape)
    for index in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[index] = h
        out[index] = (function(x + step) - function(x - step)) / (2 * h)
    return out


def test_values_are_scipys():
    got = odeint(f, Y0, T, A, B)
    expected = scipy.integrate.odeint(f_numpy, Y0, T, (A, B), rtol=1.49012e-8, atol=1.49012e-8)
    assert got.shape == (4, 2) and got.dtype == np.float64
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-13, atol=1e-13)
    assert odeint(f, Y0, T[:1], A, B).tolist() == [Y0.tolist()]  # one time point: y0


def test_gradients_against_finite_differences_of_scipy():
    gy0, gt, ga, gb = tf.grad(loss, argnums=(0, 1, 2, 3))(Y0, T, A, B)
    np.testing.assert_allclose(np.asarray(gy0), _central(lambda y: loss_numpy(y, T, A, B), Y0), rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(gt), _central(lambda t: loss_numpy(Y0, t, A, B), T, h=1e-5), rtol=1e-6, atol=1e-6
    )
    np.testing.assert_allclose(float(ga), _central(lambda a: loss_numpy(Y0, T, float(a), B), A), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(float(gb), _central(lambda b: loss_numpy(Y0, T, A, float(b)), B), rtol=1e-6)


def test_float32_args_get_float32_gradients():
    """The adjoint solves in float64; a float32 argument's cotangent comes back float32,
    close to the float64 one (a float32 y0 is cast to float64 before the solve, as scipy's)."""
    a32 = np.float32(A)
    grad = tf.grad(lambda a: tnp.sum(odeint(f, Y0, T, a, B)))(a32)
    assert grad.dtype == np.float32
    np.testing.assert_allclose(float(grad), float(tf.grad(lambda a: tnp.sum(odeint(f, Y0, T, a, B)))(A)), rtol=1e-6)
    grads = tf.grad(lambda y, r: tnp.sum(odeint(f, y, T, r[0], r[1])), argnums=(0, 1))(
        Y0.astype(np.float32), np.array([A, B], np.float32)
    )
    assert [g.dtype for g in grads] == [np.float32, np.float32]


def test_backward_into_variables():
    y0, a = tf.variable(Y0), tf.variable(A)
    loss(y0, T, a, B).backward()
    np.testing.assert_allclose(np.asarray(y0.grad()), np.asarray(tf.grad(loss)(Y0, T, A, B)), rtol=1e-12)
    assert a.grad().shape == ()


def test_second_order_is_the_adjoint_of_the_adjoint():
    """d²L/da² and the Hessian in y0 (tf.jacrev of tf.grad) against central differences of
    the first-order adjoint gradient (checked above against scipy's)."""
    t = T[:3]
    d2 = tf.grad(lambda a: tf.grad(loss, argnums=2)(Y0, t, a, B))(A)
    expected = _central(lambda a: float(tf.grad(loss, argnums=2)(Y0, t, float(a), B)), A, h=1e-5)
    np.testing.assert_allclose(float(d2), expected, rtol=1e-5)
    hessian = np.asarray(tf.jacrev(tf.grad(loss))(Y0, t, A, B))
    np.testing.assert_allclose(hessian, hessian.T, rtol=1e-7)
    column = _central(lambda y: float(tf.grad(loss)(y, t, A, B)[0]), Y0, h=1e-5)
    np.testing.assert_allclose(hessian[0], column, rtol=1e-5)


def test_pytree_state_and_args():
    """y0 a dict, args a tuple holding an integer that takes no gradient (JAX's pytrees)."""

    def decay(state, t, rates, power):
        return {"x": -rates[0] * state["x"] ** power, "v": -rates[1] * state["v"]}

    rates = np.array([0.5, 2.0])
    ys = odeint(decay, {"x": 1.0, "v": np.array([1.0, 3.0])}, T, rates, 1, **TIGHT)
    assert ys["x"].shape == (4,) and ys["v"].shape == (4, 2)
    np.testing.assert_allclose(np.asarray(ys["v"][:, 1]), 3.0 * np.exp(-2.0 * T), rtol=1e-9)

    def total(rates):
        out = odeint(decay, {"x": 1.0, "v": np.array([1.0, 3.0])}, T, rates, 1, **TIGHT)
        return tnp.sum(out["x"]) + tnp.sum(out["v"])

    exact = np.array([np.sum(-T * np.exp(-0.5 * T)), np.sum(-T * 4.0 * np.exp(-2.0 * T))])
    np.testing.assert_allclose(np.asarray(tf.grad(total)(rates)), exact, rtol=1e-7)


def test_autograd_namespace_and_autograds_numbers():
    """autograd's signature (args a tuple, scipy's keywords), NumPy arrays on plain values,
    and the gradients of HIPS autograd's own odeint, where autograd is installed (it is an
    optional comparison target, not in the test extra)."""
    import tenferro.autograd as ta
    from tenferro.autograd.scipy.integrate import odeint as ag_odeint

    def g(y, t, a):
        return -a * y + ta.numpy.sin(t)

    assert type(ag_odeint(g, Y0, T, (0.5,))) is np.ndarray
    ours = ta.grad(lambda y0, a, t: ta.numpy.sum(ag_odeint(g, y0, t, (a,), rtol=1e-10) ** 2), (0, 1, 2))(
        Y0, np.array([0.5]), T
    )
    with pytest.raises(ArgumentError, match="autograd.scipy.integrate.odeint: keyword"):
        ag_odeint(g, Y0, T, (0.5,), Dfun=None)
    autograd = pytest.importorskip("autograd")
    import autograd.numpy as anp
    from autograd.builtins import tuple as atuple
    from autograd.scipy.integrate import odeint as theirs

    def h(y, t, a):
        return -a * y + anp.sin(t)

    expected = autograd.grad(lambda y0, a, t: anp.sum(theirs(h, y0, t, atuple((a,)), rtol=1e-10) ** 2), (0, 1, 2))(
        Y0, np.array([0.5]), T
    )
    for mine, its in zip(ours, expected):
        np.testing.assert_allclose(mine, its, rtol=1e-8)


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: odeint(3, Y0, T), ArgumentError, "argument 'func' must be callable"),
        (lambda: odeint(f, Y0, T[::-1][[0, 2, 1, 3]], A, B), ArgumentError, "argument 't' must be strictly"),
        (lambda: odeint(f, Y0, np.ones((2, 2)), A, B), ArgumentError, "argument 't' must be a non-empty 1-d"),
        (lambda: odeint(f, Y0 + 1j, T, A, B), DTypeError, "argument 'y0' must hold real arrays"),
        (lambda: odeint(f, Y0, T, A, B, rtol=-1.0), ArgumentError, "argument 'rtol' must be a positive"),
        (lambda: odeint(f, Y0, T, A, B, mxstep=0), ArgumentError, "argument 'mxstep' must be a positive int"),
        (lambda: odeint(lambda y, t: y[:1], Y0, T), ArgumentError, "func returned dy/dt of shape [1]"),
        (lambda: odeint(lambda y, t: y * 1e3, Y0, np.array([0.0, 10.0]), mxstep=2), IntegrationError, "LSODA"),
    ],
)
def test_errors_name_the_function_and_argument(call, error, fragment):
    with pytest.raises(error, match="tenferro.scipy.integrate.odeint: ") as info:
        call()
    assert fragment in str(info.value)


def test_errors_of_func_itself_name_func_and_keep_their_cause():
    """A func of the wrong arity, NumPy's error inside func: ArgumentErrors naming odeint."""
    with pytest.raises(ArgumentError, match="^tenferro.scipy.integrate.odeint: argument .func. raised") as info:
        odeint(lambda y, t: y, Y0, T, A)
    assert info.value.argument == "func" and type(info.value.__cause__) is TypeError
    with pytest.raises(ArgumentError, match="odeint: argument 'func' raised LinAlgError") as info:
        odeint(lambda y, t: np.linalg.inv(np.ones((2, 3))), Y0, T)
    assert isinstance(info.value.__cause__, np.linalg.LinAlgError)


def test_numpy_func_is_refused_at_the_call_not_in_the_backward_pass():
    """scipy's style, a func written with NumPy: its values are right, and where a
    derivative is taken odeint refuses it when called (the adjoint differentiates func,
    which NumPy would cut), naming odeint and func, not later inside the backward pass."""
    np.testing.assert_allclose(np.asarray(odeint(f_numpy, Y0, T, A, B)), np.asarray(odeint(f, Y0, T, A, B)))
    with pytest.raises(ArgumentError, match="tenferro.scipy.integrate.odeint: argument 'func' cannot be") as info:
        odeint(f_numpy, tf.variable(Y0), T, A, B)  # raised here, before any backward
    assert info.value.argument == "func" and "tenferro.numpy" in str(info.value)
    assert "nothing is differentiated" in str(info.value)
    with pytest.raises(ArgumentError, match="odeint: argument 'func' cannot be differentiated"):
        tf.grad(lambda a: tnp.sum(odeint(f_numpy, Y0, T, a, B)))(A)


def test_errors_of_the_custom_function_name_odeint():
    """A RuleError from the adjoint and forward mode's refusal name the function the user
    called, not odeint's inner custom function."""
    failing = [False]

    def g(y, t, a, b):
        if failing[0]:
            raise ValueError("backward")
        return f(y, t, a, b)

    _, pull = tf.vjp(lambda a: odeint(g, Y0, T, a, B), A)
    failing[0] = True
    with pytest.raises(RuleError, match="custom_vjp function 'tenferro.scipy.integrate.odeint'") as info:
        pull(np.ones((4, 2)))
    assert info.value.op == "tenferro.scipy.integrate.odeint"
    with pytest.raises(NotDifferentiable, match="'tenferro.scipy.integrate.odeint' has a reverse-mode rule only"):
        tf.jvp(lambda y0: odeint(f, y0, T, A, B), (Y0,), (np.ones(2),))


def test_closures_and_forward_mode_are_refused_not_lost():
    a = tf.variable(A)
    with pytest.raises(ArgumentError, match="closes over a tensor that tracks gradients"):
        odeint(lambda y, t: f(y, t, a, B), Y0, T)
    with pytest.raises(NotDifferentiable, match="reverse-mode rule only"):
        tf.jvp(lambda y0: odeint(f, y0, T, A, B), (Y0,), (np.ones(2),))


def test_the_docs_page_runs():
    import pathlib
    import re

    text = (pathlib.Path(__file__).parents[1] / "docs" / "scipy-signal-integrate.md").read_text(encoding="utf-8")
    (program,) = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    exec(compile(program, "docs/scipy-signal-integrate.md", "exec"), {"__name__": "__main__"})
