"""The function transforms (tf.grad, value_and_grad, vjp, jvp, linearize, jacrev/jacobian,
jacfwd, hessian, hvp) as a JAX user meets them: the examples of JAX's docstrings and its
"Autodiff cookbook" with the numbers JAX prints, checked against finite differences (so
this file tests something without JAX) and pytrees of every kind. The refusals are in
test_transforms_errors.py, the comparisons with JAX itself in test_transforms_jax.py."""

import collections

import numpy as np
import pytest
from conftest import fd_gradient

import tenferro as tf
import tenferro.numpy as tnp


def fd_jacobian(f, x, h=1e-6):
    """∂f/∂x of a real array function of one real array, by central differences: shape
    f(x).shape + x.shape."""
    x = np.asarray(x, float)
    cols = []
    for index in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[index] = h
        cols.append((np.asarray(f(x + step)) - np.asarray(f(x - step))) / (2 * h))
    out_shape = np.shape(f(x))
    return np.stack(cols, axis=-1).reshape(out_shape + x.shape)


def close(got, want, rtol=1e-7, atol=1e-9):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


def sin_x2(x):
    return tnp.sum(tnp.sin(x) * x**2)


X = np.array([0.3, -1.2, 2.0])
V = np.array([1.0, 0.5, -2.0])


def sin_x2_hessian(x):
    return np.diag(-np.sin(x) * x**2 + 4 * x * np.cos(x) + 2 * np.sin(x))


# -- JAX's docstrings, with the numbers they print -----------------------------------------
def test_grad_docstring_tanh_at_0_2():
    close(tf.grad(tnp.tanh)(0.2), 0.961043, rtol=1e-6)


def test_vjp_docstring_sin_cos_pair():
    def f(x, y):
        return tnp.sin(x), tnp.cos(y)

    primals, f_vjp = tf.vjp(f, 0.5, 1.0)
    xbar, ybar = f_vjp((-0.7, 0.3))
    close(primals, (np.sin(0.5), np.cos(1.0)))
    close([xbar, ybar], [-0.61430776, -0.2524413], rtol=1e-7)


def test_jvp_docstring_sin():
    y, t = tf.jvp(tnp.sin, (0.1,), (0.2,))
    close([y, t], [0.09983342, 0.19900084], rtol=1e-7)


def test_linearize_docstring_evaluates_once_and_pushes_many_tangents():
    calls = []

    def f(x):
        calls.append(x)
        return 3.0 * tnp.sin(x) + tnp.cos(x / 2.0)

    close(tf.jvp(f, (2.0,), (3.0,)), (3.2681944, -5.007528), rtol=1e-6)
    calls.clear()
    y, f_jvp = tf.linearize(f, 2.0)
    close([y, f_jvp(3.0), f_jvp(4.0)], [3.2681944, -5.007528, -6.676704], rtol=1e-6)
    assert len(calls) == 1


def docstring_f(x):
    return tnp.stack([x[0], 5 * x[2], 4 * x[1] ** 2 - 2 * x[2], x[2] * tnp.sin(x[0])])


DOCSTRING_JACOBIAN = [[1, 0, 0], [0, 0, 5], [0, 16, -2], [1.6209068, 0, 0.84147096]]


@pytest.mark.parametrize("jac", [tf.jacfwd, tf.jacrev, tf.jacobian])
def test_jacobian_docstring_matrix(jac):
    close(jac(docstring_f)(np.array([1.0, 2.0, 3.0])), DOCSTRING_JACOBIAN, rtol=1e-6)


def test_hessian_docstring_polynomial():
    g = lambda x: x[0] ** 3 - 2 * x[0] * x[1] - x[1] ** 6  # noqa: E731
    close(tf.hessian(g)(np.array([1.0, 2.0])), [[6, -2], [-2, -480]])


def test_hessian_docstring_pytree_of_pytrees():
    f = lambda dct: {"c": tnp.power(dct["a"], dct["b"])}  # noqa: E731
    h = tf.hessian(f)({"a": np.arange(2.0) + 1, "b": np.arange(2.0) + 2})
    assert list(h) == ["c"] and list(h["c"]) == ["a", "b"] and list(h["c"]["a"]) == ["a", "b"]
    close(h["c"]["a"]["a"], [[[2, 0], [0, 0]], [[0, 0], [0, 12]]])
    close(h["c"]["a"]["b"], [[[1, 0], [0, 0]], [[0, 0], [0, 12.317766]]], rtol=1e-6)
    close(h["c"]["b"]["a"], h["c"]["a"]["b"])
    close(h["c"]["b"]["b"], [[[0, 0], [0, 0]], [[0, 0], [0, 3.843624]]], rtol=1e-6)


# -- the Autodiff cookbook --------------------------------------------------------------------
def test_cookbook_tanh_derivatives_to_third_order():
    d1 = tf.grad(tnp.tanh)
    d2 = tf.grad(d1)
    d3 = tf.grad(d2)
    close([d1(1.0), d2(1.0), d3(1.0)], [0.4199743, -0.6397, 0.6216266], rtol=1e-5)
    t = np.tanh(1.0)
    close([d1(1.0), d2(1.0), d3(1.0)], [1 - t**2, -2 * t * (1 - t**2), (1 - t**2) * (6 * t**2 - 2)])


INPUTS = np.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]])
TARGETS = np.array([True, True, False, True])
W0 = np.array([0.1, -0.4, 0.7])
B0 = 0.3


def sigmoid(x):
    return 0.5 * (tnp.tanh(x / 2) + 1)


def predict(W, b, inputs=INPUTS):
    return sigmoid(inputs @ W + b)


def loss(W, b):
    preds = predict(W, b)
    label_probs = preds * TARGETS + (1 - preds) * (1 - TARGETS)
    return -tnp.sum(tnp.log(label_probs))


def np_loss(W, b):
    p = 1 / (1 + np.exp(-(INPUTS @ W + b)))
    return -np.sum(np.log(p * TARGETS + (1 - p) * (1 - TARGETS)))


def test_cookbook_logistic_regression_gradients_by_argnums():
    W_grad = tf.grad(loss, argnums=0)(W0, B0)
    close(W_grad, fd_gradient(lambda w: np_loss(w, B0), W0), rtol=1e-6)
    close(tf.grad(loss)(W0, B0), W_grad)
    b_grad = tf.grad(loss, 1)(W0, B0)
    close(b_grad, (np_loss(W0, B0 + 1e-6) - np_loss(W0, B0 - 1e-6)) / 2e-6, rtol=1e-6)
    both = tf.grad(loss, (0, 1))(W0, B0)
    assert isinstance(both, tuple) and len(both) == 2
    close(both[0], W_grad)
    close(both[1], b_grad)


def test_cookbook_dict_parameters_keep_their_keys_and_value_and_grad_agrees():
    def loss2(params):
        return loss(params["W"], params["b"])

    grads = tf.grad(loss2)({"W": W0, "b": B0})
    assert list(grads) == ["W", "b"]
    close(grads["W"], tf.grad(loss)(W0, B0))
    value, grads2 = tf.value_and_grad(loss2)({"W": W0, "b": B0})
    close(value, np_loss(W0, B0))
    close(grads2["b"], grads["b"])


def test_cookbook_jacfwd_of_predict_is_outputs_by_parameters():
    J = tf.jacfwd(predict)(W0, B0)
    assert J.shape == (4, 3)
    close(J, fd_jacobian(lambda w: 1 / (1 + np.exp(-(INPUTS @ w + B0))), W0), rtol=1e-6)
    close(tf.jacrev(predict)(W0, B0), J)


def test_cookbook_hessian_of_the_loss_is_symmetric_and_matches_differences():
    H = tf.hessian(loss)(W0, B0)
    assert H.shape == (3, 3)
    close(H, np.asarray(H).T)
    close(H, fd_jacobian(lambda w: np.asarray(tf.grad(loss)(w, B0)), W0), rtol=1e-6)


@pytest.mark.parametrize(
    "recipe",
    [
        pytest.param(lambda f, x, v: tf.grad(lambda x: tnp.sum(tf.grad(f)(x) * v))(x), id="reverse-over-reverse"),
        pytest.param(lambda f, x, v: tf.jvp(tf.grad(f), (x,), (v,))[1], id="forward-over-reverse"),
        pytest.param(lambda f, x, v: tf.grad(lambda x: tf.jvp(f, (x,), (v,))[1])(x), id="reverse-over-forward"),
        pytest.param(lambda f, x, v: tf.hvp(f, (x,), (v,)), id="tf.hvp"),
    ],
)
def test_cookbook_hvp_recipes_agree_with_the_exact_hessian(recipe):
    close(recipe(sin_x2, X, V), sin_x2_hessian(X) @ V)


def test_hvp_of_several_primals_is_a_tuple_like_the_primals():
    f = lambda a, b: tnp.sum(a * b**2)  # noqa: E731
    ha, hb = tf.hvp(f, (X, V), (V, X))
    close(ha, 2 * V * X)  # ∂²f/∂a∂b · tb
    close(hb, 2 * V * V + 2 * X * X)  # ∂²f/∂b∂a · ta + ∂²f/∂b² · tb


# -- pytrees ------------------------------------------------------------------------------------
Pair = collections.namedtuple("Pair", "a b")


@pytest.mark.parametrize(
    "tree",
    [
        pytest.param({"z": X, "a": 2 * X}, id="dict-in-insertion-order"),
        pytest.param([X, 2 * X], id="list"),
        pytest.param((X, 2 * X), id="tuple"),
        pytest.param(Pair(X, 2 * X), id="namedtuple"),
        pytest.param({"z": [X, (2 * X, None)], "a": Pair(X, None)}, id="nested-with-None"),
        pytest.param({"z": tnp.asarray(X), "a": 0.5}, id="tenferro-array-and-float"),
    ],
)
def test_grad_returns_the_structure_of_its_argument(tree):
    def f(t):
        leaves = tf.transforms._trees.flatten(t)[0]
        return sum(tnp.sum(tnp.sin(x) * (k + 1)) for k, x in enumerate(leaves))

    g = tf.grad(f)(tree)
    leaves, spec = tf.transforms._trees.flatten(tree)
    got, got_spec = tf.transforms._trees.flatten(g)
    assert got_spec == spec and type(g) is type(tree)
    if isinstance(tree, dict):
        assert list(g) == list(tree)
    for k, (x, gx) in enumerate(zip(leaves, got)):
        assert isinstance(gx, tf.EagerTensor) and gx.shape == np.shape(x)
        close(gx, (k + 1) * np.cos(np.asarray(x)))


def test_jvp_vjp_and_jacobians_keep_output_and_argument_structures():
    def f(p):
        return {"s": tnp.sin(p["x"]) * p["y"], "c": [tnp.cos(p["x"][0])]}

    p = {"x": X, "y": 2.0}
    out, t = tf.jvp(f, (p,), ({"x": V, "y": 1.0},))
    close(t["s"], np.cos(X) * V * 2.0 + np.sin(X))
    close(t["c"][0], -np.sin(X[0]) * V[0])
    _, f_vjp = tf.vjp(f, p)
    (ct,) = f_vjp({"s": np.ones(3), "c": [1.0]})
    close(ct["x"], 2.0 * np.cos(X) + np.array([-np.sin(X[0]), 0, 0]))
    close(ct["y"], np.sum(np.sin(X)))
    for jac in (tf.jacfwd, tf.jacrev):
        J = jac(f)(p)
        assert J["s"]["x"].shape == (3, 3) and J["s"]["y"].shape == (3,) and J["c"][0]["x"].shape == (3,)
        close(J["s"]["x"], np.diag(2.0 * np.cos(X)))
        close(J["c"][0]["y"], 0.0)


def test_none_subtrees_are_empty_as_in_jax():
    out, f_vjp = tf.vjp(lambda x, y: x * 2, X, None)
    gx, gy = f_vjp(np.ones(3))
    assert gy is None
    close(gx, 2 * np.ones(3))
    out, t = tf.jvp(lambda x: (x, None), (1.0,), (1.0,))
    assert out[1] is None and t[1] is None


@pytest.mark.parametrize("argnums", [1, -1, (1,), (-1, 0), [0, 1]])
def test_argnums_int_tuple_negative(argnums):
    f = lambda a, b: tnp.sum(a * b**2)  # noqa: E731
    want = {0: V**2, 1: 2 * X * V}
    got = tf.grad(f, argnums)(X, V)
    if isinstance(argnums, int):
        close(got, want[argnums % 2])
    else:
        assert isinstance(got, tuple) and len(got) == len(argnums)
        for n, g in zip(argnums, got):
            close(g, want[n % 2])


def test_keyword_arguments_pass_through_undifferentiated():
    # regression: the transformed functions took positional arguments only
    f = lambda x, scale=1.0, name="": tnp.sum(tnp.sin(x) * scale)  # noqa: E731
    close(tf.grad(f)(X, scale=2.0, name="s"), 2 * np.cos(X))
    value, g = tf.value_and_grad(f)(X, scale=3.0)
    close(value, 3 * np.sum(np.sin(X)))
    close(g, 3 * np.cos(X))
    g = lambda x, scale=1.0: tnp.sin(x) * scale  # noqa: E731
    close(tf.jacfwd(g)(X, scale=2.0), np.diag(2 * np.cos(X)))
    close(tf.jacrev(g)(X, scale=2.0), np.diag(2 * np.cos(X)))
    close(tf.hessian(f)(X, scale=2.0), np.diag(-2 * np.sin(X)))


def test_has_aux_for_every_transform_that_takes_it():
    def f(x):
        return tnp.sum(x**3), {"x": x, "label": "cubes"}

    def g(x):
        return x**3, [x * 2]

    (value, aux), grads = tf.value_and_grad(f, has_aux=True)(X)
    close(value, np.sum(X**3))
    close(grads, 3 * X**2)
    assert aux["label"] == "cubes" and not aux["x"].tracks_grad()
    close(aux["x"], X)
    grads, aux = tf.grad(f, has_aux=True)(X)
    close(grads, 3 * X**2)
    out, f_vjp, aux = tf.vjp(g, X, has_aux=True)
    close(f_vjp(V)[0], 3 * X**2 * V)
    close(aux[0], 2 * X)
    out, t, aux = tf.jvp(g, (X,), (V,), has_aux=True)
    close(t, 3 * X**2 * V)
    close(aux[0], 2 * X)
    out, f_jvp, aux = tf.linearize(g, X, has_aux=True)
    close(f_jvp(V), 3 * X**2 * V)
    close(aux[0], 2 * X)
    for jac in (tf.jacfwd, tf.jacrev):
        J, aux = jac(g, has_aux=True)(X)
        close(J, np.diag(3 * X**2))
        close(aux[0], 2 * X)
    H, aux = tf.hessian(f, has_aux=True)(X)
    close(H, np.diag(6 * X))
    assert aux["label"] == "cubes"


def test_grad_of_a_function_of_python_floats_and_a_constant_function():
    ga, gb = tf.grad(lambda a, b: a * b, (0, 1))(2.0, 3.0)
    close([ga, gb], [3.0, 2.0])
    assert ga.dtype == np.float64
    close(tf.grad(lambda x: 1.0)(1.0), 0.0)
    close(tf.jacrev(lambda x: x * 2)(np.zeros(0)), np.zeros((0, 0)))


def test_float32_inputs_give_float32_derivatives():
    x = X.astype(np.float32)
    g = tf.grad(sin_x2)(x)
    assert g.dtype == np.float32
    close(g, fd_gradient(lambda x: np.sum(np.sin(x) * x**2), X), rtol=1e-5)
    assert tf.jacfwd(tnp.sin)(x).dtype == np.float32
