"""``tenferro.scipy.special`` and the ``special`` op family: values bitwise scipy's where
the kernel is scipy's own ufunc, first and second derivatives against closed forms, the
far tail of log_ndtr, the orders that take no gradient, errors naming the function and the
argument, and scipy.special's own ufuncs recording on tenferro arrays. (The conformance
suite checks every op of the family against finite differences: test_conformance.py.)"""

import math

import numpy as np
import pytest
import scipy.special as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tenferro as tf
import tenferro.scipy.special as tsp
from tenferro import ArgumentError, DTypeError, NotDifferentiable, ShapeMismatch

X = np.array([0.3, 1.25, 2.5, 4.0])
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _gauss(x):
    return np.exp(-(x**2))


P = np.array([0.05, 0.3, 0.5, 0.9])

#: Unary functions and a point set inside their domain.
UNARY = {
    "gammaln": X,
    "digamma": X,
    "psi": X,
    "gamma": X,
    "erf": X - 2,
    "erfc": X - 2,
    "erfcx": X - 2,
    "erfinv": P * 2 - 1,
    "erfcinv": P * 2,
    "ndtr": X - 2,
    "log_ndtr": X - 2,
    "ndtri": P,
    "expit": X - 2,
    "logit": P,
    "log_expit": X - 2,
    "entr": P,
    "i0": X - 2,
    "i1": X - 2,
    "i0e": X - 2,
    "i1e": X - 2,
    "j0": X - 2,
    "j1": X - 2,
    "y0": X,
    "y1": X,
}
BINARY = ["beta", "betaln", "xlogy", "xlog1py", "iv", "ive", "jv", "jn", "yv"]


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unary_values_are_scipys_bitwise(name, dtype):
    x = UNARY[name].astype(dtype)
    got = np.asarray(getattr(tsp, name)(x))
    expected = getattr(sp, name)(x)
    assert got.dtype == expected.dtype == dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", BINARY)
def test_binary_values_are_scipys_bitwise_and_broadcast(name):
    a, b = np.array([[0.5], [1.5], [2.0]]), X
    np.testing.assert_array_equal(np.asarray(getattr(tsp, name)(a, b)), getattr(sp, name)(a, b))
    np.testing.assert_array_equal(np.asarray(getattr(tsp, name)(1.5, tf.variable(b))), getattr(sp, name)(1.5, b))


def test_python_numbers_and_integers_give_scipys_float64():
    assert np.asarray(tsp.gammaln(3)) == sp.gammaln(3) and tsp.gammaln(3).dtype == np.float64
    np.testing.assert_array_equal(np.asarray(tsp.yn(np.array([0, 1, 2]), 2.5)), sp.yn([0, 1, 2], 2.5))
    np.testing.assert_array_equal(np.asarray(tsp.polygamma(2, X)), sp.polygamma(2, X))
    np.testing.assert_array_equal(np.asarray(tsp.multigammaln(X + 2, 4)), sp.multigammaln(X + 2, 4))
    assert tsp.beta(1.0, X.astype(np.float32)).dtype == np.float32  # scipy would pick its double loop


def _grad(f, x):
    return np.asarray(tf.grad(lambda t: tf.numpy.sum(f(t)))(x))


def _second(f, x):
    return np.asarray(tf.grad(lambda t: tf.numpy.sum(tf.grad(lambda u: tf.numpy.sum(f(u)))(t)))(x))


#: name -> (points, f′, f″) in closed form.
CLOSED_FORMS = {
    "gammaln": (X, sp.digamma, lambda x: sp.polygamma(1, x)),
    "digamma": (X, lambda x: sp.polygamma(1, x), lambda x: sp.polygamma(2, x)),
    "gamma": (
        X,
        lambda x: sp.gamma(x) * sp.digamma(x),
        lambda x: sp.gamma(x) * (sp.digamma(x) ** 2 + sp.polygamma(1, x)),
    ),
    "erf": (X - 2, lambda x: _TWO_OVER_SQRT_PI * _gauss(x), lambda x: -2 * x * _TWO_OVER_SQRT_PI * _gauss(x)),
    "erfc": (X - 2, lambda x: -_TWO_OVER_SQRT_PI * _gauss(x), lambda x: 2 * x * _TWO_OVER_SQRT_PI * _gauss(x)),
    "erfinv": (
        P * 2 - 1,
        lambda y: np.sqrt(np.pi) / 2 * np.exp(sp.erfinv(y) ** 2),
        lambda y: np.pi / 2 * sp.erfinv(y) * np.exp(2 * sp.erfinv(y) ** 2),
    ),
    "ndtr": (
        X - 2,
        lambda x: _gauss(x / np.sqrt(2)) / np.sqrt(2 * np.pi),
        lambda x: -x * _gauss(x / np.sqrt(2)) / np.sqrt(2 * np.pi),
    ),
    "ndtri": (
        P,
        lambda p: np.sqrt(2 * np.pi) * np.exp(sp.ndtri(p) ** 2 / 2),
        lambda p: 2 * np.pi * sp.ndtri(p) * np.exp(sp.ndtri(p) ** 2),
    ),
    "logit": (P, lambda p: 1 / (p * (1 - p)), lambda p: (2 * p - 1) / (p * (1 - p)) ** 2),
    "expit": (X - 2, lambda x: sp.expit(x) * sp.expit(-x), lambda x: sp.expit(x) * sp.expit(-x) * np.tanh(-x / 2)),
    "log_expit": (X - 2, lambda x: sp.expit(-x), lambda x: -sp.expit(x) * sp.expit(-x)),
    "entr": (P, lambda p: -(np.log(p) + 1), lambda p: -1 / p),
    "i0": (X - 2, sp.i1, lambda x: (sp.i0(x) + sp.iv(2, x)) / 2),
    "i1": (X - 2, lambda x: sp.i0(x) - sp.i1(x) / x, lambda x: (3 * sp.i1(x) + sp.iv(3, x)) / 4),
    "j0": (X - 2, lambda x: -sp.j1(x), lambda x: -(sp.j0(x) - sp.jv(2, x)) / 2),
    "j1": (X - 2, lambda x: sp.j0(x) - sp.j1(x) / x, lambda x: (sp.jv(3, x) - 3 * sp.j1(x)) / 4),
    "y0": (X, lambda x: -sp.y1(x), lambda x: -(sp.y0(x) - sp.yv(2, x)) / 2),
    "i0e": (X - 1.9, lambda x: sp.i1e(x) - np.sign(x) * sp.i0e(x), None),
}


@pytest.mark.parametrize("name", sorted(CLOSED_FORMS))
def test_first_and_second_derivatives_are_the_closed_forms(name):
    x, first, second = CLOSED_FORMS[name]
    f = getattr(tsp, name)
    np.testing.assert_allclose(_grad(f, x), first(x), rtol=1e-12, atol=1e-14)
    if second is not None:
        np.testing.assert_allclose(_second(f, x), second(x), rtol=1e-10, atol=1e-13)


def test_binary_partials_are_the_closed_forms():
    a, b = np.array([0.5, 1.5, 3.0]), np.array([2.0, 0.7, 1.2])
    g = tf.grad(lambda u, v: tf.numpy.sum(tsp.betaln(u, v)), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(np.asarray(g[0]), sp.digamma(a) - sp.digamma(a + b), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(g[1]), sp.digamma(b) - sp.digamma(a + b), rtol=1e-13)
    g = tf.grad(lambda u, v: tf.numpy.sum(tsp.beta(u, v)), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(np.asarray(g[0]), sp.beta(a, b) * (sp.digamma(a) - sp.digamma(a + b)), rtol=1e-13)
    g = tf.grad(lambda u, v: tf.numpy.sum(tsp.xlogy(u, v)), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(np.asarray(g[0]), np.log(b), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(g[1]), a / b, rtol=1e-14)
    g = tf.grad(lambda u, v: tf.numpy.sum(tsp.xlog1py(u, v)), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(np.asarray(g[1]), a / (1 + b), rtol=1e-14)


@pytest.mark.parametrize(
    "name, derivative",
    [
        ("jv", lambda v, z: (sp.jv(v - 1, z) - sp.jv(v + 1, z)) / 2),
        ("yv", lambda v, z: (sp.yv(v - 1, z) - sp.yv(v + 1, z)) / 2),
        ("iv", lambda v, z: (sp.iv(v - 1, z) + sp.iv(v + 1, z)) / 2),
        ("ive", lambda v, z: (sp.ive(v - 1, z) + sp.ive(v + 1, z)) / 2 - sp.ive(v, z)),
    ],
)
def test_bessel_functions_differentiate_in_z_only(name, derivative):
    v, z = tf.variable(np.array([0.5, 1.0, 2.25])), np.array([0.7, 1.5, 3.0])
    gz = tf.grad(lambda t: tf.numpy.sum(getattr(tsp, name)(v, t)))(z)
    np.testing.assert_allclose(np.asarray(gz), derivative(np.asarray(v), z), rtol=1e-12)
    # the order refuses a gradient (test_a_tracked_bessel_order_refuses_a_gradient_instead_of_zeros)
    with pytest.raises(NotDifferentiable, match=rf"{name}: no derivative in the argument 'v'"):
        tf.grad(lambda u: tf.numpy.sum(getattr(tsp, name)(u, z)))(np.asarray(v))


def test_yn_and_polygamma_take_integer_orders():
    n, x = np.array([0, 1, 3]), np.array([0.8, 2.0, 5.0])
    np.testing.assert_allclose(_grad(lambda t: tsp.yn(n, t), x), (sp.yn(n - 1, x) - sp.yn(n + 1, x)) / 2, rtol=1e-12)
    np.testing.assert_allclose(_grad(lambda t: tsp.polygamma(n, t), x), sp.polygamma(n + 1, x), rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(tsp.polygamma(n[:, None], x)), sp.polygamma(n[:, None], x))
    d = 3
    np.testing.assert_allclose(
        _grad(lambda t: tsp.multigammaln(t, d), x + 2),
        sum(sp.digamma(x + 2 - j / 2) for j in range(d)),
        rtol=1e-13,
    )


def test_log_ndtr_derivative_stays_finite_in_the_far_tail():
    """φ(x)/Φ(x) → -x as x → -inf; the naive ratio is 0/0 where ndtr underflows (x < -38)."""
    x = np.array([-40.0, -100.0, -1e3])
    assert np.all(sp.ndtr(x) == 0)
    g = _grad(tsp.log_ndtr, x)
    mills = -x / (1 - 1 / x**2 + 3 / x**4 - 15 / x**6)  # the asymptotic series of φ/Φ
    np.testing.assert_allclose(g, mills, rtol=1e-10)
    assert np.all(np.isfinite(_second(tsp.log_ndtr, x)))


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(0.05, 8.0)))
def test_gammaln_derivative_is_digamma_over_its_domain(x):
    np.testing.assert_allclose(_grad(tsp.gammaln, x), sp.digamma(x), rtol=1e-13, atol=1e-14)


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(-5.0, 5.0)))
def test_erf_second_derivative_over_its_domain(x):
    expected = -4 * x / math.sqrt(math.pi) * np.exp(-(x**2))
    np.testing.assert_allclose(_second(tsp.erf, x), expected, rtol=1e-12, atol=1e-15)


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(-0.999, 0.999)))
def test_erfinv_inverts_erf_and_its_derivative_is_the_reciprocal(y):
    np.testing.assert_array_equal(np.asarray(tsp.erfinv(y)), sp.erfinv(y))
    erf_derivative = _TWO_OVER_SQRT_PI * _gauss(sp.erfinv(y))
    np.testing.assert_allclose(_grad(tsp.erfinv, y), 1 / erf_derivative, rtol=1e-12)


def test_special_values_are_scipys():
    np.testing.assert_array_equal(np.asarray(tsp.gammaln(np.array([0.0, -1.0, -2.0]))), [np.inf] * 3)
    np.testing.assert_array_equal(np.asarray(tsp.erfinv(np.array([-1.0, 1.0, 2.0]))), [-np.inf, np.inf, np.nan])
    np.testing.assert_array_equal(_grad(tsp.erfinv, np.array([-1.0, 1.0])), [np.inf, np.inf])
    np.testing.assert_array_equal(np.asarray(tsp.entr(np.array([0.0, -1.0]))), [0.0, -np.inf])
    np.testing.assert_array_equal(_grad(lambda x: tsp.xlogy(x, 0.0), np.array([0.0])), [0.0])  # PyTorch's


def test_logsumexp_softmax_and_log_softmax_take_scipys_axis():
    a = np.arange(6.0).reshape(2, 3)
    for axis in (None, 0, 1, (0, 1)):
        np.testing.assert_allclose(np.asarray(tsp.logsumexp(a, axis=axis)), sp.logsumexp(a, axis=axis), rtol=1e-15)
        np.testing.assert_allclose(np.asarray(tsp.softmax(a, axis=axis)), sp.softmax(a, axis=axis), rtol=1e-14)
        np.testing.assert_allclose(np.asarray(tsp.log_softmax(a, axis=axis)), sp.log_softmax(a, axis=axis), rtol=1e-14)
    b = np.array([[1.0, 2.0, 0.5], [0.1, 1.0, 3.0]])
    np.testing.assert_allclose(np.asarray(tsp.logsumexp(a, axis=1, b=b, keepdims=True)), sp.logsumexp(a, 1, b, True))
    g = tf.grad(lambda t: tsp.logsumexp(t))(a)
    np.testing.assert_allclose(np.asarray(g), sp.softmax(a), rtol=1e-14)
    with pytest.raises(ArgumentError, match=r"tenferro\.scipy\.special\.logsumexp: return_sign"):
        tsp.logsumexp(a, return_sign=True)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: tsp.gammaln(np.array([1j])), DTypeError, "special.gammaln: argument 'x' has dtype c128"),
        (lambda: tsp.beta(np.ones(2), np.ones(3)), ShapeMismatch, "special.beta: shapes [2] (a), [3] (b)"),
        (lambda: tsp.jv(1.0, np.array([1j])), DTypeError, "tenferro.scipy.special.jv: argument 'z' has dtype c128"),
        (lambda: tsp.yn(np.array([1.5]), 2.0), DTypeError, "tenferro.scipy.special.yn: argument 'n' has dtype f64"),
        (lambda: tsp.polygamma(-1, X), ArgumentError, "tenferro.scipy.special.polygamma: the order n must be"),
        (lambda: tsp.polygamma(1.5, X), ArgumentError, "tenferro.scipy.special.polygamma: argument 'n' must be"),
        (lambda: tsp.multigammaln(X, 3), ArgumentError, "tenferro.scipy.special.multigammaln: a must be > (d - 1)/2"),
        (lambda: tsp.erf("x"), ArgumentError, "tenferro.scipy.special.erf: argument 'x' is a str"),
    ],
)
def test_errors_name_the_function_and_the_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


def test_scipy_specials_own_ufuncs_record_on_tenferro_arrays():
    g = tf.grad(lambda t: tf.numpy.sum(sp.erf(t) + sp.gammaln(t) + sp.jv(1.5, t) + sp.xlogy(t, 2.0)))(X)
    expected = 2 / np.sqrt(np.pi) * np.exp(-(X**2)) + sp.digamma(X) + (sp.jv(0.5, X) - sp.jv(2.5, X)) / 2 + np.log(2.0)
    np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-13)
    x = tf.variable(X)
    assert type(sp.psi(x)) is type(x) and type(sp.expit(x)) is type(x)
    with pytest.raises(ArgumentError, match=r"scipy\.special\.erf\(\.\.\., out=\.\.\.\)|out="):
        sp.erf(x, out=np.zeros(4))


def test_the_namespace_has_scipys_signatures():
    import inspect

    for name in ("polygamma", "multigammaln", "logsumexp", "softmax", "log_softmax"):
        ours, theirs = inspect.signature(getattr(tsp, name)), inspect.signature(getattr(sp, name))
        assert (
            list(ours.parameters)[: len(theirs.parameters)]
            == [p for p in theirs.parameters if p not in ("out",)][: len(ours.parameters)]
        ), name
    assert set(UNARY) | set(BINARY) | set(INCOMPLETE) | {
        "yn",
        "polygamma",
        "multigammaln",
        "logsumexp",
        "softmax",
        "log_softmax",
    } == set(tsp.__all__)


#: The incomplete gamma and beta functions and stdtr: (shape parameters, x, its density).
INCOMPLETE = {
    "gammainc": ((np.array([0.5, 2.0, 3.5, 7.0]),), X * 2, lambda a, x: x ** (a - 1) * np.exp(-x) / sp.gamma(a)),
    "gammaincc": ((np.array([0.5, 2.0, 3.5, 7.0]),), X * 2, lambda a, x: -(x ** (a - 1)) * np.exp(-x) / sp.gamma(a)),
    "betainc": (
        (np.array([0.5, 2.0, 3.5, 7.0]), 1.5),
        P,
        lambda a, b, x: x ** (a - 1) * (1 - x) ** (b - 1) / sp.beta(a, b),
    ),
    "betaincc": (
        (np.array([0.5, 2.0, 3.5, 7.0]), 1.5),
        P,
        lambda a, b, x: -(x ** (a - 1)) * (1 - x) ** (b - 1) / sp.beta(a, b),
    ),
    "stdtr": ((np.array([0.7, 2.0, 5.0, 30.0]),), X - 2, None),
}


@pytest.mark.parametrize("name", sorted(INCOMPLETE))
def test_incomplete_functions_are_scipys_and_differentiate_in_x_only(name):
    import scipy.stats

    shapes, x, density = INCOMPLETE[name]
    ours, theirs = getattr(tsp, name), getattr(sp, name)
    np.testing.assert_array_equal(np.asarray(ours(*shapes, x)), theirs(*shapes, x))  # bitwise: scipy's kernel
    singles = [v.astype(np.float32) if isinstance(v, np.ndarray) else v for v in shapes]
    single = np.asarray(ours(*singles, x.astype(np.float32)))
    assert single.dtype == np.float32
    want = density(*shapes, x) if density else scipy.stats.t.pdf(x, shapes[0])
    np.testing.assert_allclose(tf.grad(lambda t: tf.numpy.sum(ours(*shapes, t)))(x), want, rtol=1e-13)
    h = np.sqrt(np.finfo(float).eps)  # the second derivative against central differences of the first
    first = lambda t: np.asarray(tf.grad(lambda u: tf.numpy.sum(ours(*shapes, u)))(t))  # noqa: E731
    second = tf.grad(lambda t: tf.numpy.sum(tf.grad(lambda u: tf.numpy.sum(ours(*shapes, u)))(t)))(x)
    np.testing.assert_allclose(second, (first(x + h) - first(x - h)) / (2 * h), rtol=1e-6, atol=1e-7)
    argument = "df" if name == "stdtr" else "a"
    with pytest.raises(tf.NotDifferentiable, match=rf"{name}: no derivative in the argument '{argument}'") as info:
        tf.grad(lambda v: tf.numpy.sum(ours(v, *shapes[1:], x)))(shapes[0])
    assert info.value.argument == argument and info.value.op == name
    _, tangent = tf.jvp(lambda t: ours(*shapes, t), (x,), (np.ones(4),))
    np.testing.assert_allclose(tangent, want, rtol=1e-13)
    with pytest.raises(tf.NotDifferentiable, match=f"'{argument}'"):
        tf.jvp(lambda v: ours(v, *shapes[1:], x), (shapes[0],), (np.ones(4),))


@pytest.mark.parametrize("a", [1e8, 1e13, 1e15])
def test_incomplete_derivatives_with_large_python_shape_parameters_are_scipys_densities(a):
    import scipy.stats

    x = 1 - 1 / a  # a Python shape parameter is computed in Python: its betaln must not cancel
    assert float(tf.grad(lambda x: tsp.betainc(a, 2.0, x))(x)) == pytest.approx(
        scipy.stats.beta.pdf(x, a, 2.0), rel=1e-13
    )
    assert float(tf.grad(lambda t: tsp.stdtr(a, t))(0.5)) == pytest.approx(scipy.stats.t.pdf(0.5, a), rel=1e-13)


@pytest.mark.parametrize(
    "name, shapes", [("stdtr", (-1.0,)), ("gammainc", (0.0,)), ("betainc", (0.0, 2.0)), ("betaincc", (2.0, -1.0))]
)
def test_incomplete_derivatives_with_python_shape_parameters_outside_the_domain_are_the_arrays(name, shapes):
    f = getattr(tsp, name)  # a Python number is computed by the ops' kernels: nan or 0 as for an array, no error
    ours = np.asarray(tf.grad(lambda x: f(*shapes, x))(0.5))
    np.testing.assert_array_equal(ours, tf.grad(lambda x: f(*map(np.array, shapes), x))(0.5))


def test_docs_special_runs_and_lists_every_function_and_op():
    import pathlib
    import re

    text = (pathlib.Path(__file__).parents[1] / "docs" / "special.md").read_text(encoding="utf-8")
    (program,) = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    exec(compile(program, "docs/special.md", "exec"), {"__name__": "__main__"})
    assert [name for name in tsp.__all__ if f"`{name}(" not in text] == []
    ops = [spec.name for spec in tf.default_runtime().registry if spec.plugin == "special"]
    assert len(ops) == 37 and [op for op in ops if f"`{op}`" not in text] == []


@pytest.mark.parametrize("name", ["iv", "ive", "jv", "yv"])
def test_a_subnormal_order_counts_as_order_zero(name):
    """The thorough profile drew ive(-5e-324, 1.0): scipy's is nan (and yv's -0.0) where
    the function is continuous in the order; iv and jv were right already."""
    import tenferro.scipy.special as tsp

    function = getattr(tsp, name)
    at_zero = np.asarray(function(0.0, np.array([1.0, 2.5])))
    for order in (-5e-324, 5e-324, -1e-310, np.array([-5e-324, 1e-310])):
        np.testing.assert_array_equal(np.asarray(function(order, np.array([1.0, 2.5]))), at_zero)


@pytest.mark.parametrize("name", ["iv", "ive", "jv", "yv"])
def test_a_tracked_bessel_order_refuses_a_gradient_instead_of_zeros(name):
    """The order was declared not differentiable, so a tracked v got a zero gradient without
    a word; the derivative in v exists, it is just not defined here."""
    import tenferro as tf
    import tenferro.numpy as tnp
    import tenferro.scipy.special as tsp
    from tenferro import NotDifferentiable

    function = getattr(tsp, name)
    x = np.array([1.0, 2.5])
    with pytest.raises(NotDifferentiable, match=rf"{name}: no derivative in the argument 'v'") as info:
        tf.grad(lambda v: tnp.sum(function(v, x)))(np.array([0.5, 1.5]))
    assert info.value.argument == "v"
    with pytest.raises(NotDifferentiable, match=rf"{name}: no derivative in the argument 'v'"):
        tf.jvp(lambda v: function(v, x), (np.array([0.5, 1.5]),), (np.ones(2),))
    gradient = tf.grad(lambda t: tnp.sum(function(np.array([0.5, 1.5]), t)))(x)  # x's is still there
    assert np.all(np.isfinite(np.asarray(gradient)))
