"""The transforms against JAX itself: each case is written once over a pair (transforms,
array namespace), run as (tenferro, tenferro.numpy) and (jax, jax.numpy), and the two
results must have the same pytree structure and numbers. Skips cleanly without JAX."""

import collections

import numpy as np
import pytest

import tenferro as tf
import tenferro.numpy as tnp

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

X = np.array([0.3, -1.2, 2.0])
V = np.array([1.0, 0.5, -2.0])
Z = np.array([1 + 2j, -0.5 + 0.3j])
A = np.array([[4.0, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]])
T = np.cos(np.arange(9.0)).reshape(3, 3)
S = T + T.T
INPUTS = np.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]])
TARGETS = np.array([True, True, False, True])
Pair = collections.namedtuple("Pair", "a b")
PARAMS = {"W1": np.cos(np.arange(6.0)).reshape(2, 3), "b1": np.array([0.1, -0.2, 0.3]), "W2": np.array([0.5, -1.0, 2])}


def sin_x2(xp):
    return lambda x: xp.sum(xp.sin(x) * x**2)


def logistic_loss(xp):
    def loss(W, b):
        preds = 0.5 * (xp.tanh((INPUTS @ W + b) / 2) + 1)
        return -xp.sum(xp.log(preds * TARGETS + (1 - preds) * (1 - TARGETS)))

    return loss


def mlp(xp):
    def loss(params, x):
        h = xp.tanh(x @ params["W1"] + params["b1"])
        return xp.sum((h @ params["W2"]) ** 2)

    return loss


CASES = {
    "grad-tanh-3rd-order": lambda T, xp: [T.grad(T.grad(T.grad(xp.tanh)))(x) for x in (0.2, 1.0, -2.0)],
    "grad-logistic-argnums": lambda T, xp: T.grad(logistic_loss(xp), (0, 1))(X, 0.3),
    "value_and_grad-mlp-dict": lambda T, xp: T.value_and_grad(mlp(xp))(PARAMS, INPUTS[:, :2]),
    "grad-has_aux": lambda T, xp: T.grad(lambda x: (xp.sum(x**3), {"sq": x**2}), has_aux=True)(X),
    "vjp-pytree": lambda T, xp: T.vjp(lambda p: {"s": xp.sin(p.a) * p.b, "c": [p.a**2]}, Pair(X, V))[1](
        {"s": V, "c": [X]}
    ),
    "vjp-two-primals": lambda T, xp: T.vjp(lambda x, y: (xp.sin(x), xp.cos(y)), 0.5, 1.0)[1]((-0.7, 0.3)),
    "jvp-mlp": lambda T, xp: T.jvp(mlp(xp), (PARAMS, INPUTS[:, :2]), (PARAMS, INPUTS[:, :2])),
    "jvp-has_aux": lambda T, xp: T.jvp(lambda x: (xp.exp(x), [x]), (X,), (V,), has_aux=True),
    "linearize": lambda T, xp: [T.linearize(mlp(xp), PARAMS, INPUTS[:, :2])[1](PARAMS, INPUTS[:, :2] * 0)],
    "jacfwd-predict": lambda T, xp: T.jacfwd(lambda W, b: xp.tanh(INPUTS @ W + b), (0, 1))(X, 0.3),
    "jacrev-predict": lambda T, xp: T.jacrev(lambda W, b: xp.tanh(INPUTS @ W + b), (0, 1))(X, 0.3),
    "jacrev-dict-out": lambda T, xp: T.jacrev(lambda x: {"s": xp.sin(x), "c": (xp.cos(x[0]), None)})(X),
    "jacfwd-dict-in-out": lambda T, xp: T.jacfwd(lambda p: {"h": xp.tanh(INPUTS[:, :2] @ p["W1"] + p["b1"])})(PARAMS),
    "hessian-logistic": lambda T, xp: T.hessian(logistic_loss(xp))(X, 0.3),
    "hessian-argnums": lambda T, xp: T.hessian(lambda a, b: xp.sum(a * b**2 * xp.sin(a)), (0, 1))(X, V),
    "hessian-mlp-dict": lambda T, xp: T.hessian(mlp(xp))(PARAMS, INPUTS[:, :2]),
    "jacfwd(jacrev)": lambda T, xp: T.jacfwd(T.jacrev(sin_x2(xp)))(X),
    "jacrev(jacfwd)": lambda T, xp: T.jacrev(T.jacfwd(sin_x2(xp)))(X),
    "hvp-forward-over-reverse": lambda T, xp: T.jvp(T.grad(sin_x2(xp)), (X,), (V,)),
    "hvp-reverse-over-forward": lambda T, xp: T.grad(lambda x: T.jvp(sin_x2(xp), (x,), (V,))[1])(X),
    "perturbation-confusion": lambda T, xp: [
        T.grad(lambda x: x * T.grad(lambda y: x + y)(x))(1.0),
        T.jvp(lambda x: x * T.jvp(lambda y: x + y, (x,), (1.0,))[1], (1.0,), (1.0,)),
        T.grad(lambda x: x * T.jvp(lambda y: x * y, (x,), (1.0,))[1])(2.0),
    ],
    "closure-over-outer-argument": lambda T, xp: T.jacfwd(lambda x: T.grad(lambda y: xp.sum(x * xp.sin(y)))(x * 2))(X),
    "holomorphic-grad": lambda T, xp: T.grad(lambda z: xp.sin(z) * z, holomorphic=True)(1 + 2j),
    "holomorphic-jacrev": lambda T, xp: T.jacrev(lambda z: xp.exp(z) * z**2, holomorphic=True)(Z),
    "holomorphic-jacfwd": lambda T, xp: T.jacfwd(lambda z: xp.exp(z) * z**2, holomorphic=True)(Z),
    "complex-jvp": lambda T, xp: T.jvp(lambda z: z * xp.conj(z) + xp.exp(z), (Z,), (np.array([0.3 - 1j, 2 + 0.5j]),)),
    "jvp-solve": lambda T, xp: T.jvp(lambda a: xp.linalg.solve(a, X), (A,), (T_,)),
    "jvp-inv-det": lambda T, xp: T.jvp(lambda a: (xp.linalg.inv(a), xp.linalg.det(a)), (A,), (T_,)),
    "jvp-cholesky": lambda T, xp: T.jvp(xp.linalg.cholesky, (A,), (S,)),
    "jvp-eigh": lambda T, xp: T.jvp(lambda a: xp.linalg.eigh(a)[0], (A,), (S,)),
    "jacfwd-sort-cumsum": lambda T, xp: T.jacfwd(lambda a: (xp.sort(a, axis=-1), xp.cumsum(a, axis=0)))(T_),
    "jacfwd-index": lambda T, xp: T.jacfwd(lambda a: a[np.array([2, 0]), 1:] * a[0, 0])(A),
}
T_ = T


def _leaves(tree):
    leaves, spec = jax.tree_util.tree_flatten(tree, is_leaf=lambda x: isinstance(x, tf.EagerTensor))
    return [np.asarray(x) for x in leaves], spec


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_same_structure_and_numbers_as_jax(case):
    got, got_spec = _leaves(case(tf, tnp))
    want, want_spec = _leaves(case(jax, jnp))
    assert str(got_spec) == str(want_spec)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def test_grad_of_a_real_function_of_complex_input_is_the_conjugate_of_jaxs():
    def f(xp):
        return lambda z: xp.sum(xp.abs(xp.sin(z)) ** 2 + xp.real(z) * xp.imag(z))

    got = np.asarray(tf.grad(f(tnp))(Z))
    want = np.asarray(jax.grad(f(jnp))(Z))
    np.testing.assert_allclose(got, np.conj(want), rtol=1e-12)
    assert not np.allclose(got, want)  # they differ: Im ≠ 0
    got = np.asarray(tf.jacrev(f(tnp))(Z))
    np.testing.assert_allclose(got, np.conj(np.asarray(jax.jacrev(f(jnp))(Z))), rtol=1e-12)


def test_vjp_of_a_complex_function_is_pytorchs_convention():
    # tenferro's vjp_fn maps ct to ct·conj(f′) (PyTorch's), JAX's to ct·f′: conj(jax_vjp(conj(ct)))
    ct = np.array([1.0 + 0j, 1j])
    got = np.asarray(tf.vjp(lambda z: z**3 * tnp.exp(z), Z)[1](ct)[0])
    want = np.asarray(jax.vjp(lambda z: z**3 * jnp.exp(z), Z)[1](np.conj(ct))[0])
    np.testing.assert_allclose(got, np.conj(want), rtol=1e-12)
    np.testing.assert_allclose(got, ct * np.conj((3 * Z**2 + Z**3) * np.exp(Z)), rtol=1e-12)


@pytest.mark.parametrize(
    ("make", "jax_error", "tf_error"),
    [
        (lambda T: T.grad(lambda x: x * 2)(X), TypeError, tf.NonScalarGrad),
        (lambda T: T.grad(lambda x: x * 2.0)(np.arange(3)), TypeError, TypeError),
        (lambda T: T.grad(lambda z: z**2, holomorphic=True)(1.0), TypeError, TypeError),
        (lambda T: T.jvp(lambda x: x, (X,), (np.ones(3, np.float32),)), TypeError, TypeError),
        (lambda T: T.vjp(lambda x: x * 2, X)[1](np.ones(2)), ValueError, ValueError),
        (lambda T: T.jacfwd(lambda z: z * 2)(Z), TypeError, TypeError),
    ],
    ids=["non-scalar", "integer-input", "holomorphic-real", "tangent-dtype", "cotangent-shape", "jacfwd-complex"],
)
def test_refused_where_jax_refuses(make, jax_error, tf_error):
    with pytest.raises(jax_error):
        make(jax)
    with pytest.raises(tf_error):
        make(tf)


def test_jacfwd_of_a_complex_output_of_a_real_input_is_jaxs():
    """Forward mode has no convention to choose for a real input: jacfwd takes a complex
    output as JAX's does (only holomorphic=True asks for complex outputs)."""
    x = np.array([0.3, -1.2, 2.0])
    got = np.asarray(tf.jacfwd(lambda v: tnp.exp(1j * v))(x))
    np.testing.assert_allclose(got, np.diag(1j * np.exp(1j * x)), rtol=1e-15)  # closed form
    np.testing.assert_allclose(got, np.asarray(jax.jacfwd(lambda v: jnp.exp(1j * v))(x)), rtol=1e-15)
