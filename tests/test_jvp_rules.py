"""Forward-mode rules of the built-in families: every differentiable op of elementwise,
reduce, nn, index, contract and shape has its own, and tf.jvp / tf.jacfwd / tf.hessian
through them give the numbers (the conformance suite's jvp and jvp_fd check each op)."""

import numpy as np
import pytest

import tenferro as tf
import tenferro.numpy as tnp

FAMILIES = ("elementwise", "reduce", "nn", "index", "contract", "shape")


def test_every_differentiable_op_of_the_families_has_its_own_jvp_rule():
    """Without one, forward mode transposes the VJP: slower, and wrong or refused where the
    VJP is not differentiable in its cotangent (prod_except's kernel)."""
    lacking = [
        spec.name
        for spec in tf.default_runtime().registry
        if spec.plugin in FAMILIES and spec.has_rules and spec.jvp is None
    ]
    assert lacking == []


def test_hessian_of_a_product_is_exact_at_a_zero():
    """tf.hessian (jacfwd of jacrev) pushes tangents through prod_except, whose VJP kernel
    has no VJP: transposing it raised NotDifferentiable; its jvp rule gives the leave-two-out
    products, exact where an element is 0."""
    x = np.array([2.0, 3.0, 0.0, 5.0])
    hessian = np.asarray(tf.hessian(lambda v: tnp.prod(v))(x))
    expected = np.array([[0.0, 0.0, 15.0, 0.0], [0.0, 0.0, 10.0, 0.0], [15.0, 10.0, 0.0, 6.0], [0.0, 0.0, 6.0, 0.0]])
    np.testing.assert_array_equal(hessian, expected)


def _seed(x):
    return tnp.sum(tnp.sin(x) * x * x)


def test_jvp_of_the_seed_function_is_its_derivative():
    rng = np.random.default_rng(0)
    x, v = rng.standard_normal(50), rng.standard_normal(50)
    out, tangent = tf.jvp(_seed, (x,), (v,))
    np.testing.assert_allclose(float(np.asarray(out)), np.sum(np.sin(x) * x * x), rtol=1e-14)
    expected = np.sum((np.cos(x) * x * x + 2.0 * np.sin(x) * x) * v)
    np.testing.assert_allclose(float(np.asarray(tangent)), expected, rtol=1e-13)


def test_jvp_of_a_holomorphic_function_is_t_times_its_derivative_without_conj():
    """DESIGN §10: the VJP of a holomorphic f is g·conj(f′(z)), its JVP t·f′(z)."""
    z = np.array([0.3 + 0.7j, -1.2 + 0.4j])
    t = np.array([1.0 - 2.0j, 0.5 + 0.25j])
    _, tangent = tf.jvp(lambda w: tnp.exp(tnp.sin(w)), (z,), (t,))
    np.testing.assert_allclose(np.asarray(tangent), t * np.cos(z) * np.exp(np.sin(z)), rtol=1e-14)


def _layer(w, b):
    return lambda z: tnp.tanh(w @ z + b)


def test_jacfwd_of_a_tanh_layer_is_its_jacobian_and_equals_jacrev():
    rng = np.random.default_rng(1)
    w, b, z = rng.standard_normal((4, 3)), rng.standard_normal(4), rng.standard_normal(3)
    forward = np.asarray(tf.jacfwd(_layer(w, b))(z))
    expected = (1.0 - np.tanh(w @ z + b) ** 2)[:, None] * w
    np.testing.assert_allclose(forward, expected, rtol=1e-13)
    np.testing.assert_allclose(forward, np.asarray(tf.jacrev(_layer(w, b))(z)), rtol=1e-13)


def _mixed(x):
    """Ops of several families in one function: sort, maximum, logaddexp, cumprod, var."""
    y = tnp.sort(tnp.maximum(tnp.sin(x), 0.1 * x))
    return tnp.sum(tnp.logaddexp(y, tnp.cumprod(tnp.cos(x)))) + tnp.var(x * x)


def test_jvp_through_several_families_matches_central_differences():
    rng = np.random.default_rng(2)
    x, v = rng.standard_normal(6), rng.standard_normal(6)
    _, tangent = tf.jvp(_mixed, (x,), (v,))
    h = 1e-6
    central = (float(np.asarray(_mixed(x + h * v))) - float(np.asarray(_mixed(x - h * v)))) / (2 * h)
    np.testing.assert_allclose(float(np.asarray(tangent)), central, rtol=1e-7)


def test_jvp_through_several_families_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def mixed(x):
        y = jnp.sort(jnp.maximum(jnp.sin(x), 0.1 * x))
        return jnp.sum(jnp.logaddexp(y, jnp.cumprod(jnp.cos(x)))) + jnp.var(x * x)

    rng = np.random.default_rng(2)
    x, v = rng.standard_normal(6), rng.standard_normal(6)
    _, tangent = tf.jvp(_mixed, (x,), (v,))
    _, expected = jax.jvp(mixed, (x,), (v,))
    np.testing.assert_allclose(float(np.asarray(tangent)), float(expected), rtol=1e-12)
