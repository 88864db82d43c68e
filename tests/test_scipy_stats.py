"""``tenferro.scipy.stats``: every function of every distribution against scipy.stats on
grids that cross the support's ends and include invalid parameters (relative error at
most 2e-12, the measured worst being nbinom.logcdf's 1.3e-12; most are bitwise), gradients
in x and in each parameter against central differences of scipy's own values, second
derivatives against differences of the first, finite (zero) gradients outside the support,
the shape parameters the incomplete functions refuse, hypothesis properties, errors naming
the function and the argument, and ``autograd.scipy.stats``'s modules."""

import warnings

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import example, given
from hypothesis import strategies as st

import tenferro as tf
import tenferro.numpy as tnp
import tenferro.scipy.stats as ts
from tenferro import ArgumentError, DTypeError, NotDifferentiable, ShapeMismatch

RTOL = 2e-12
DISCRETE = {"poisson", "binom", "bernoulli", "geom", "nbinom"}
#: name -> (shape parameters, broadcast against x along a new leading axis; x grid)
CASES = {
    "norm": ((), np.linspace(-40, 40, 81)),
    "t": ((np.array([0.7, 3.0, 30.0, 1e12, 1e16, np.inf, -1.0]),), np.linspace(-30, 30, 61)),
    "gamma": ((np.array([0.5, 1.0, 2.5, 9.0, 0.0]),), np.linspace(-1, 30, 63)),
    "beta": ((np.array([0.5, 2.0, 5.0, -1.0]), np.array([0.7, 1.0, 3.0, 2.0])), np.linspace(-0.1, 1.1, 61)),
    "chi2": ((np.array([0.5, 1.0, 2.5, 9.0, np.nan]),), np.linspace(-1, 30, 63)),
    "expon": ((), np.linspace(-1, 30, 63)),
    "laplace": ((), np.linspace(-30, 30, 61)),
    "logistic": ((), np.linspace(-30, 30, 61)),
    "cauchy": ((), np.linspace(-30, 30, 61)),
    "uniform": ((), np.linspace(-0.5, 1.5, 41)),
    "lognorm": ((np.array([0.3, 1.0, 2.0, -0.5]),), np.linspace(-1, 20, 43)),
    "poisson": ((np.array([0.0, 0.5, 3.0, 20.0, -1.0]),), np.arange(-2, 40) * 1.0 + np.r_[0.0, 0.5].repeat(21)),
    "binom": ((np.array([0, 1, 5, 30, 2.5]), np.array([0.0, 0.3, 0.5, 1.0, 0.5])), np.arange(-2, 35) * 1.0),
    "bernoulli": ((np.array([0.0, 0.3, 1.0, 1.5]),), np.arange(-2, 4) * 1.0),
    "geom": ((np.array([0.1, 0.5, 1.0, 0.0]),), np.arange(-1, 40) * 1.0),
    "nbinom": ((np.array([0.5, 3.0, 10.0, 0.0]), np.array([0.2, 0.5, 1.0, 0.5])), np.arange(-1, 40) * 1.0),
}
LOC_SCALE = {"loc": 0.2, "scale": 1.3}


def _keywords(name, scale=True):
    return {"loc": 0.2} if name in DISCRETE else (LOC_SCALE if scale else {"loc": 0.2})


def _assert_scipys(ours, theirs):
    ours = np.asarray(ours)
    assert ours.shape == np.shape(theirs)
    finite = np.isfinite(theirs)
    np.testing.assert_array_equal(ours[~finite], theirs[~finite])  # -inf, inf and nan where scipy has them
    np.testing.assert_allclose(ours[finite], theirs[finite], rtol=RTOL, atol=1e-300)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_function_is_scipys_inside_and_outside_the_support_and_for_invalid_parameters(name):
    shapes, x = CASES[name]
    shapes = tuple(p[:, None] for p in shapes)
    module = getattr(ts, name)
    assert module.__name__ == f"tenferro.scipy.stats.{name}"
    for function in module.__all__:
        points = np.linspace(0, 1, 21) if function in ("ppf", "isf") else x
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = getattr(getattr(ss, name), function)(points, *shapes, **_keywords(name))
            if function == "logcdf" and name in DISCRETE:  # scipy's is 0 beyond the support even where cdf is nan
                theirs = np.where(np.isnan(getattr(ss, name).cdf(points, *shapes, **_keywords(name))), np.nan, theirs)
        _assert_scipys(getattr(module, function)(points, *shapes, **_keywords(name)), theirs)


#: (distribution, function, x, shape parameters, differentiable argument names) at interior points
GRADIENTS = [
    ("norm", "logpdf", [-1.0, 0.4, 2.0], {}, ("x", "loc", "scale")),
    ("norm", "logcdf", [-9.0, 0.4, 2.0], {}, ("x", "loc", "scale")),
    ("norm", "ppf", [0.1, 0.5, 0.8], {}, ("q", "loc", "scale")),
    ("t", "logpdf", [-1.0, 0.4, 2.0], {"df": 2.5}, ("x", "df", "loc", "scale")),
    ("t", "cdf", [-1.0, 0.0, 2.0], {"df": 2.5}, ("x", "loc", "scale")),
    ("gamma", "logpdf", [0.5, 1.4, 4.0], {"a": 2.5}, ("x", "a", "loc", "scale")),
    ("gamma", "logsf", [0.5, 1.4, 4.0], {"a": 2.5}, ("x", "loc", "scale")),
    ("beta", "logpdf", [0.3, 0.5, 0.8], {"a": 1.5, "b": 3.0}, ("x", "a", "b", "loc", "scale")),
    ("beta", "cdf", [0.3, 0.5, 0.8], {"a": 1.5, "b": 3.0}, ("x", "loc", "scale")),
    ("chi2", "pdf", [0.5, 1.4, 4.0], {"df": 3.0}, ("x", "df", "loc", "scale")),
    ("chi2", "cdf", [0.5, 1.4, 4.0], {"df": 3.0}, ("x", "loc", "scale")),
    ("expon", "logcdf", [0.5, 1.4, 4.0], {}, ("x", "loc", "scale")),
    ("laplace", "cdf", [-1.0, 0.2, 2.0], {}, ("x", "loc", "scale")),
    ("logistic", "logpdf", [-1.0, 0.4, 2.0], {}, ("x", "loc", "scale")),
    ("cauchy", "logpdf", [-3.0, 0.4, 2.0], {}, ("x", "loc", "scale")),
    ("cauchy", "ppf", [0.1, 0.5, 0.8], {}, ("q", "loc", "scale")),
    ("uniform", "logpdf", [0.3, 0.5, 1.0], {}, ("loc", "scale")),
    ("lognorm", "logpdf", [0.5, 1.4, 4.0], {"s": 0.7}, ("x", "s", "loc", "scale")),
    ("poisson", "logpmf", [0.0, 2.0, 5.0], {"mu": 3.0}, ("mu",)),
    ("poisson", "cdf", [0.0, 2.0, 5.0], {"mu": 3.0}, ("mu",)),
    ("binom", "logpmf", [0.0, 2.0, 5.0], {"n": 6.0, "p": 0.3}, ("p",)),
    ("binom", "sf", [0.0, 2.0, 4.0], {"n": 6.0, "p": 0.3}, ("p",)),
    ("bernoulli", "pmf", [0.0, 1.0, 1.0], {"p": 0.3}, ("p",)),
    ("geom", "logpmf", [1.0, 2.0, 5.0], {"p": 0.3}, ("p",)),
    ("nbinom", "logpmf", [0.0, 2.0, 5.0], {"n": 2.5, "p": 0.4}, ("n", "p")),
]


@pytest.mark.parametrize("case", GRADIENTS, ids=[f"{c[0]}.{c[1]}" for c in GRADIENTS])
def test_gradients_in_x_and_the_parameters_match_central_differences_of_scipy(case):
    name, function, x, shapes, wrt = case
    first = "q" if function in ("ppf", "isf") else ("k" if name in DISCRETE else "x")
    args = {first: np.array(x), **shapes, **({} if name in DISCRETE else LOC_SCALE)}
    ours, theirs = getattr(getattr(ts, name), function), getattr(getattr(ss, name), function)
    for argument in wrt:

        def f(value, module=ours, argument=argument):  # noqa: E306
            return module(**{**args, argument: value})

        grad = tf.grad(lambda v: tnp.sum(f(v)))(args[argument])
        h = 1e-6 * max(1.0, float(np.max(np.abs(args[argument]))))
        step = np.zeros_like(np.asarray(args[argument], float))
        want = np.zeros(step.shape)
        for index in np.ndindex(step.shape):
            e = step.copy()
            e[index] = h
            plus = theirs(**{**args, argument: args[argument] + (e if e.shape else h)})
            minus = theirs(**{**args, argument: args[argument] - (e if e.shape else h)})
            want[index] = np.sum(plus - minus) / (2 * h)
        np.testing.assert_allclose(grad, want, rtol=1e-6, atol=1e-8, err_msg=f"{name}.{function} in {argument}")


@pytest.mark.parametrize("df", [2.5, 1e10, 1e14, 1e16, 1e300])
def test_t_density_and_the_derivative_of_its_cdf_are_scipys_for_large_df(df):
    x = np.array([-3.0, 0.5, 2.0])
    np.testing.assert_allclose(ts.t.logpdf(x, df), ss.t.logpdf(x, df), rtol=1e-14)
    np.testing.assert_allclose(tf.grad(lambda x: tnp.sum(ts.t.cdf(x, df)))(x), ss.t.pdf(x, df), rtol=1e-14)


def _second(f, x):
    h = 1e-5
    first = lambda v: float(tf.grad(f)(v))  # noqa: E731
    return float(tf.grad(tf.grad(f))(x)), (first(x + h) - first(x - h)) / (2 * h)


@pytest.mark.parametrize(
    "f, x",
    [
        (lambda s: ts.norm.logpdf(0.7, 0.1, s), 1.3),  # 1/s² - 3(x - loc)²/s⁴
        (lambda df: ts.t.logpdf(0.7, df), 2.5),
        (lambda x: ts.gamma.cdf(x, 2.5), 1.4),
        (lambda x: ts.t.cdf(x, 3.0), 0.0),
        (lambda mu: ts.poisson.logpmf(3, mu), 2.2),
        (lambda p: ts.binom.cdf(2, 6, p), 0.3),
    ],
    ids=["norm.logpdf", "t.logpdf", "gamma.cdf", "t.cdf", "poisson.logpmf", "binom.cdf"],
)
def test_second_derivatives_match_differences_of_the_first(f, x):
    exact, differenced = _second(f, x)
    assert abs(exact - differenced) <= 1e-6 * max(1.0, abs(exact))


def test_norm_second_derivative_in_scale_is_the_closed_form():
    s, d = 1.3, 0.6
    assert float(tf.grad(tf.grad(lambda s: ts.norm.logpdf(0.7, 0.1, s)))(s)) == pytest.approx(
        1 / s**2 - 3 * d**2 / s**4, rel=1e-13
    )


def test_outside_the_support_and_at_invalid_parameters_gradients_are_zero_not_nan():
    x = np.array([-1.0, 0.5, 2.0])
    for value in (
        lambda x: ts.gamma.logpdf(x, 2.0),
        lambda x: ts.beta.cdf(x, 2.0, 3.0),
        lambda x: ts.lognorm.logpdf(x, 0.5),
        lambda x: ts.expon.logsf(x, scale=-1.0),
        lambda x: ts.laplace.cdf(x),
    ):
        g = np.asarray(tf.grad(lambda v, value=value: tnp.sum(tnp.where(tnp.isfinite(value(v)), value(v), 0.0)))(x))
        assert np.all(np.isfinite(g)), g
    g = tf.grad(lambda s: tnp.sum(tnp.where(tnp.isnan(ts.norm.logpdf(x, 0.0, s)), 0.0, 1.0)))(-1.0)
    assert float(g) == 0.0
    assert float(tf.grad(lambda mu: ts.poisson.logpmf(-1.0, mu))(2.0)) == 0.0  # -inf: outside, zero slope
    assert float(tf.grad(lambda k: ts.poisson.logpmf(k, 2.0))(3.0)) == 0.0  # k takes no gradient


@pytest.mark.parametrize(
    "f, at, want",
    [
        (lambda x: ts.gamma.logpdf(x, 1.0), 0.0, -1.0),  # -x: xlogy(0, x) at x = 0
        (lambda x: ts.beta.logpdf(x, 1.0, 2.0), 0.0, -1.0),  # log 2 + log(1 - x)
        (lambda p: ts.geom.logpmf(1.0, p), 1.0, 1.0),  # log p: xlog1py(0, -p) at p = 1
        (lambda p: ts.binom.logpmf(0.0, 4.0, p), 0.0, -4.0),  # 4·log(1 - p): xlogy(0, p) at p = 0
        (lambda mu: ts.poisson.logpmf(0.0, mu), 0.0, -1.0),  # -mu: xlogy(0, mu) at mu = 0
    ],
    ids=["gamma.logpdf", "beta.logpdf", "geom.logpmf", "binom.logpmf", "poisson.logpmf"],
)
def test_log_densities_at_the_edge_of_the_support_have_their_one_sided_gradient_not_nan(f, at, want):
    assert np.isfinite(float(f(at)))
    assert float(tf.grad(f)(at)) == want
    assert np.isfinite(float(tf.grad(tf.grad(f))(at)))


#: one valid choice of each discrete distribution's shape parameters
DISCRETE_SHAPES = {"poisson": (3.0,), "binom": (6.0, 0.3), "bernoulli": (0.3,), "geom": (0.3,), "nbinom": (2.5, 0.4)}


@pytest.mark.parametrize("name", sorted(DISCRETE_SHAPES))
def test_discrete_k_and_loc_take_zero_gradients_in_every_function(name):
    module, shapes = getattr(ts, name), DISCRETE_SHAPES[name]
    k = np.array([1.0, 2.5, 4.0])
    for function in module.__all__:
        call = getattr(module, function)
        g_k, g_loc = tf.grad(lambda k, loc, call=call: tnp.sum(call(k, *shapes, loc)), argnums=(0, 1))(k, 0.3)
        np.testing.assert_array_equal(g_k, np.zeros(3), err_msg=f"{name}.{function} in k")
        assert float(g_loc) == 0.0, f"{name}.{function} in loc"
        _, tangent = tf.jvp(lambda k, call=call: call(k, *shapes), (k,), (np.ones(3),))
        np.testing.assert_array_equal(tangent, np.zeros(3), err_msg=f"{name}.{function} forward in k")


@pytest.mark.parametrize(
    "function, call, argument",
    [
        ("gamma.cdf", lambda v: ts.gamma.cdf(1.5, v), "a"),
        ("chi2.sf", lambda v: ts.chi2.sf(1.5, v), "df"),
        ("beta.logcdf", lambda v: ts.beta.logcdf(0.3, 1.5, v), "b"),
        ("t.cdf", lambda v: ts.t.cdf(0.3, v), "df"),
        ("binom.logsf", lambda v: ts.binom.logsf(2, 2 * v + 1, 0.4), "n"),
        ("nbinom.cdf", lambda v: ts.nbinom.cdf(2, v, 0.4), "n"),
    ],
)
def test_shape_parameters_of_the_incomplete_functions_refuse_a_gradient_naming_the_function(function, call, argument):
    for transform in (lambda: tf.grad(call)(2.5), lambda: tf.jvp(call, (2.5,), (1.0,))):
        with pytest.raises(
            NotDifferentiable, match=rf"^tenferro\.scipy\.stats\.{function}: no derivative in the argument '{argument}'"
        ) as info:
            transform()
        assert info.value.argument == argument
    assert np.isfinite(float(call(2.5)))  # the value itself is fine, and with a tracked argument under no_grad
    rt = tf.default_runtime()
    with rt.no_grad():
        assert float(call(rt.variable_from(np.array(2.5)))) == float(call(2.5))


def test_multivariate_normal_matches_scipy_and_differentiates_in_x_mean_and_cov():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 3))
    cov, mean, x = a @ a.T + np.eye(3), rng.normal(size=3), rng.normal(size=(4, 3))
    mvn = ts.multivariate_normal
    for allow in (False, True):
        np.testing.assert_allclose(
            mvn.logpdf(x, mean, cov, allow), ss.multivariate_normal.logpdf(x, mean, cov), rtol=1e-13
        )
    np.testing.assert_allclose(mvn.pdf(x[0], mean, cov), ss.multivariate_normal.pdf(x[0], mean, cov), rtol=1e-13)
    np.testing.assert_allclose(mvn.logpdf(x[:, :1], 0.5, 2.0), ss.multivariate_normal.logpdf(x[:, :1], 0.5, 2.0))
    np.testing.assert_allclose(
        mvn.logpdf(x, 0.0, np.diag(cov)), ss.multivariate_normal.logpdf(x, np.zeros(3), np.diag(cov))
    )
    inverse = np.linalg.inv(cov)
    dev = x - mean
    g_x, g_mean, g_cov = tf.grad(lambda x, m, c: tnp.sum(mvn.logpdf(x, m, c)), argnums=(0, 1, 2))(x, mean, cov)
    np.testing.assert_allclose(g_x, -dev @ inverse, rtol=1e-12)
    np.testing.assert_allclose(g_mean, (dev @ inverse).sum(0), rtol=1e-12)
    solved = dev @ inverse
    np.testing.assert_allclose(g_cov, 0.5 * (solved.T @ solved - 4 * inverse), rtol=1e-11, atol=1e-13)
    singular = np.array([[1.0, 1.0], [1.0, 1.0]])
    points = np.array([[0.5, 0.5], [0.5, -0.5]])
    got = np.asarray(mvn.logpdf(points, None, singular, allow_singular=True))
    np.testing.assert_allclose(got, ss.multivariate_normal.logpdf(points, None, singular, allow_singular=True))
    with pytest.raises(tnp.linalg.NotPositiveDefinite) as info:
        mvn.logpdf(points, None, singular)
    assert "tenferro.scipy.stats.multivariate_normal.logpdf" in str(info.value)
    with pytest.raises(ShapeMismatch, match=r"multivariate_normal.logpdf: argument 'x' must have 3 entries"):
        mvn.logpdf(np.zeros(2), mean, cov)


def test_multivariate_functions_bind_their_signatures_and_check_allow_singular():
    mvn, x, cov = ts.multivariate_normal, np.zeros(2), np.eye(2)
    for function in (mvn.logpdf, mvn.pdf, ts.dirichlet.logpdf, ts.dirichlet.pdf):
        with pytest.raises(
            ArgumentError, match=r"^tenferro\.scipy\.stats\.\w+\.\w+: got an unexpected keyword .*'foo'"
        ):
            function(x, np.ones(2), foo=1)
    with pytest.raises(ArgumentError, match=r"multivariate_normal.pdf: missing a required argument: 'x'"):
        mvn.pdf()
    with pytest.raises(ArgumentError, match=r"logpdf: argument 'allow_singular' must be a bool") as info:
        mvn.logpdf(x, None, cov, allow_singular=np.array([1, 0]))
    assert info.value.argument == "allow_singular"
    want = ss.multivariate_normal.logpdf(x, None, cov)
    for flag in (np.True_, 1, np.array(False)):
        assert float(mvn.logpdf(x, None, cov, allow_singular=flag)) == pytest.approx(want, rel=1e-14)


def test_multivariate_normal_refuses_a_cov_that_is_not_symmetric_beyond_rounding():
    x, cov = np.array([0.7, -1.2]), np.array([[2.0, 0.5], [0.1, 1.0]])
    for allow in (False, True):
        with pytest.raises(ArgumentError, match=r"multivariate_normal.logpdf: argument 'cov' is not symmetric") as info:
            ts.multivariate_normal.logpdf(x, None, cov, allow)
        assert info.value.argument == "cov"
    lower = np.tril(cov) + np.tril(cov, -1).T  # the recipe the error gives for scipy's reading
    want = ss.multivariate_normal.logpdf(x, None, cov)
    assert float(ts.multivariate_normal.logpdf(x, None, lower)) == pytest.approx(want, rel=1e-13)
    rounded = lower + np.array([[0.0, 1e-16], [0.0, 0.0]])  # asymmetric by rounding only: accepted
    assert float(ts.multivariate_normal.logpdf(x, None, rounded)) == pytest.approx(want, rel=1e-13)


def test_dirichlet_matches_scipy_and_its_gradients_are_autograds_formulas():
    import scipy.special as sp

    alpha, x = np.array([1.5, 2.0, 0.7]), np.array([[0.2, 0.5], [0.5, 0.1], [0.3, 0.4]])
    np.testing.assert_allclose(ts.dirichlet.logpdf(x, alpha), ss.dirichlet.logpdf(x, alpha), rtol=1e-14)
    np.testing.assert_allclose(ts.dirichlet.pdf(x[:2, 0], alpha), ss.dirichlet.pdf(x[:2, 0], alpha), rtol=1e-14)
    g_x, g_alpha = tf.grad(lambda x, a: tnp.sum(ts.dirichlet.logpdf(x, a)), argnums=(0, 1))(x, alpha)
    np.testing.assert_allclose(g_x, (alpha[:, None] - 1) / x, rtol=1e-14)
    want = (sp.digamma(alpha.sum()) - sp.digamma(alpha))[:, None] + np.log(x)
    np.testing.assert_allclose(g_alpha, want.sum(1), rtol=1e-13)
    with pytest.raises(ArgumentError, match=r"dirichlet.logpdf: argument 'x' must lie on the simplex"):
        ts.dirichlet.logpdf(np.array([0.2, 0.2, 0.2]), alpha)
    with pytest.raises(ArgumentError, match=r"dirichlet.logpdf: every entry of 'alpha' must be > 0"):
        ts.dirichlet.logpdf(x, -alpha)


@given(
    st.lists(st.floats(-8, 8), min_size=1, max_size=5),
    st.floats(-2, 2),
    st.floats(0.1, 5),
    st.sampled_from(["norm", "logistic", "cauchy", "laplace"]),
)
@example(xs=[3.875], loc=0.0, scale=0.1015625, name="norm")  # a subnormal density (3.1e-316)
def test_cdf_and_ppf_are_inverse_and_sf_is_one_minus_cdf(xs, loc, scale, name):
    dist = getattr(ts, name)
    x = np.array(xs)
    q = np.asarray(dist.cdf(x, loc, scale))
    assert np.all(np.diff(q[np.argsort(x)]) >= 0)
    np.testing.assert_allclose(np.asarray(dist.sf(x, loc, scale)), 1 - q, atol=1e-15)
    inner = (q > 1e-10) & (q < 1 - 1e-10)
    np.testing.assert_allclose(np.asarray(dist.ppf(q, loc, scale))[inner], x[inner], rtol=1e-7, atol=1e-7 * scale)
    # (below the smallest normal float a density keeps fewer digits than rtol asks: absolute there)
    tiny = np.finfo(np.float64).tiny
    np.testing.assert_allclose(
        np.exp(np.asarray(dist.logpdf(x, loc, scale))), dist.pdf(x, loc, scale), rtol=1e-13, atol=tiny
    )


@given(st.floats(0.3, 8), st.floats(0.05, 20))
def test_the_derivative_of_a_cdf_is_its_density(a, x):
    np.testing.assert_allclose(float(tf.grad(lambda v: ts.gamma.cdf(v, a))(x)), ss.gamma.pdf(x, a), rtol=1e-12)


def test_float32_stays_float32_and_broadcasting_is_scipys():
    x = np.linspace(-1, 1, 4, dtype=np.float32)
    assert np.asarray(ts.norm.logpdf(x, 0.5, 2.0)).dtype == np.float32
    assert np.asarray(ts.norm.logpdf(np.float64(1.0))).dtype == np.float64
    out = ts.t.logpdf(np.zeros((2, 1)), np.array([1.0, 2.0, 3.0]))
    assert out.shape == (2, 3)


def test_errors_name_the_function_and_the_argument():
    with pytest.raises(DTypeError, match=r"tenferro.scipy.stats.norm.logpdf: argument 'x' is complex") as info:
        ts.norm.logpdf(np.array([1j]))
    assert info.value.argument == "x"
    with pytest.raises(DTypeError, match=r"tenferro.scipy.stats.gamma.cdf: argument 'a' is complex"):
        ts.gamma.cdf(1.0, 1j)
    with pytest.raises(ShapeMismatch, match=r"t.pdf: shapes \[2\] \(x\), \[3\] \(df\), \[\] \(loc\)"):
        ts.t.pdf(np.zeros(2), np.ones(3))
    with pytest.raises(ArgumentError, match=r"tenferro.scipy.stats.t.logpdf: missing a required argument: 'df'"):
        ts.t.logpdf(1.0)
    with pytest.raises(ArgumentError, match=r"poisson.pmf: .*'scale'"):
        ts.poisson.pmf(1, 2.0, scale=2.0)
    with pytest.raises(ArgumentError, match=r"tenferro.scipy.stats.norm.cdf: argument 'loc' is a str"):
        ts.norm.cdf(1.0, loc="a")


def test_signatures_are_scipys_and_modules_import_as_jaxs():
    import inspect

    import tenferro.scipy.stats.norm as norm

    assert norm is ts.norm and list(inspect.signature(ts.t.logpdf).parameters) == ["x", "df", "loc", "scale"]
    assert list(inspect.signature(ts.binom.logpmf).parameters) == ["k", "n", "p", "loc"]
    assert float(ts.norm.logpdf(1.0, 0.0, 2.0)) == pytest.approx(ss.norm.logpdf(1.0, 0.0, 2.0), rel=1e-15)


def test_autograd_scipy_stats_is_scipys_on_plain_values_and_tenferros_on_tracked_ones():
    import tenferro.autograd.scipy.stats.t as t

    import tenferro.autograd as ag
    from tenferro.autograd.scipy.stats import multivariate_normal, norm

    assert type(norm.logpdf(0.5)) is np.float64 and norm.logpdf(0.5) == ss.norm.logpdf(0.5)
    assert float(ag.grad(lambda m: norm.logpdf(0.5, m, 2.0))(0.1)) == pytest.approx((0.5 - 0.1) / 4, rel=1e-15)
    assert float(ag.grad(lambda x: t.cdf(x, 3.0))(0.4)) == pytest.approx(ss.t.pdf(0.4, 3.0), rel=1e-13)
    g = ag.grad(lambda m: multivariate_normal.logpdf(np.ones(2), m, np.eye(2)))(np.zeros(2))
    np.testing.assert_allclose(g, [1.0, 1.0])
    assert callable(norm.rvs)  # scipy's own


def test_docs_stats_runs_and_lists_every_distribution():
    import pathlib
    import re

    text = (pathlib.Path(__file__).parents[1] / "docs" / "stats.md").read_text(encoding="utf-8")
    (program,) = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    exec(compile(program, "docs/stats.md", "exec"), {"__name__": "__main__"})
    rows = dict(re.findall(r"^\| `(\w+)[^|]*\| ([^|]*) \|", text, re.M))
    assert set(rows) == set(ts.__all__)
    for name, listed in rows.items():
        functions = {f.strip() for f in re.sub(r"\([^)]*\)", "", listed).split(",")}
        assert functions == set(getattr(ts, name).__all__), name
