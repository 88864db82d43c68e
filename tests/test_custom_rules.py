"""User-defined derivative rules, ``tf.custom_vjp`` and ``tf.custom_jvp`` (JAX's API): the
examples of JAX's and HIPS autograd's documentation, every way of differentiating (the
seed API, ``rt.grad``, each transform, second order), pytrees, ``nondiff_argnums``, a
definition made after sessions exist, and the errors of bad rules and bad arguments."""

import functools

import numpy as np
import optree
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, CpuEngine, EagerRuntime, NotDifferentiable, RuleError, Tensor

X = np.array([0.3, 2.0])


def values(tensor):
    return np.asarray(tensor)


# -- the examples ------------------------------------------------------------------------
@tf.custom_vjp
def ste_round(x):
    return tnp.round(x)


def ste_round_fwd(x):
    return ste_round(x), None  # JAX's idiom: the function itself inside its fwd


def ste_round_bwd(residuals, g):
    return (g,)  # straight through


ste_round.defvjp(ste_round_fwd, ste_round_bwd)


def test_straight_through_round_gives_the_gradient_of_x_squared_at_the_rounded_point():
    f = lambda x: tnp.sum(ste_round(x) ** 2)  # noqa: E731
    assert values(tf.grad(f)(X)).tolist() == [0.0, 4.0]  # 2·round(x)·1
    assert values(ste_round(X)).tolist() == [0.0, 2.0]
    x = tf.variable(X)
    grads = f(x).backward()
    assert grads[x].to_numpy().tolist() == [0.0, 4.0]


def test_the_seed_api_backward_and_rt_grad_in_a_session_of_their_own():
    rt, eng = EagerRuntime(), CpuEngine.serial()
    x = rt.variable_from(Tensor.from_numpy(X))
    loss = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(ste_round(x), ste_round(x)), None))
    loss.backward(eng)
    assert x.grad().to_numpy().tolist() == [0.0, 4.0]
    assert "ste_round[rule=custom_vjp]" in loss.trace()
    assert values(rt.grad(eng, loss, x)).tolist() == [0.0, 4.0]


@tf.custom_jvp
def log1pexp(x):
    return tnp.log(1.0 + tnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + tnp.exp(x)))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def test_log1pexp_is_stable_where_the_plain_function_gives_nan():
    """JAX's example: in float32 exp(100) overflows, so the plain derivative is inf/inf."""
    plain = lambda x: tnp.log(1.0 + tnp.exp(x))  # noqa: E731
    x32 = np.float32(100.0)
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(float(tf.grad(plain)(x32)))
        assert np.isnan(float(tf.grad(plain)(1000.0)))  # float64's overflow
    for x in (x32, 100.0, 1000.0):
        assert float(tf.grad(log1pexp)(x)) == 1.0
        assert float(tf.jvp(log1pexp, (x,), (np.ones((), np.asarray(x).dtype),))[1]) == 1.0
        assert float(tf.jacrev(log1pexp)(x)) == 1.0
        assert float(tf.jacfwd(log1pexp)(x)) == 1.0
    assert tf.grad(log1pexp)(x32).dtype == np.float32
    x = tf.variable(np.array(100.0))
    log1pexp(x).backward()
    assert x.grad().to_numpy() == 1.0


@given(st.floats(-30.0, 30.0))
def test_log1pexp_rule_and_its_transpose_agree_with_the_exact_derivatives(x):
    s, rule = sigmoid(x), 1.0 - 1.0 / (1.0 + np.exp(x))  # the rule's formula, and what it approximates
    assert float(tf.grad(log1pexp)(x)) == pytest.approx(rule, rel=1e-15, abs=1e-300)  # reverse: the rule transposed
    assert float(tf.jvp(log1pexp, (x,), (1.0,))[1]) == pytest.approx(rule, rel=1e-15, abs=1e-300)  # the rule
    assert rule == pytest.approx(s, rel=1e-15, abs=1e-15)
    second = s * sigmoid(-x)  # (not s·(1 - s): 1 - s cancels for large x, 5e-9 relative at x = 17)
    assert float(tf.grad(tf.grad(log1pexp))(x)) == pytest.approx(second, rel=1e-9, abs=1e-300)
    assert float(tf.hessian(log1pexp)(x)) == pytest.approx(second, rel=1e-9, abs=1e-300)
    assert float(tf.jacfwd(tf.jacfwd(log1pexp))(x)) == pytest.approx(second, rel=1e-9, abs=1e-300)


@functools.partial(tf.custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, x0):
    """The fixed point of x ↦ f(a, x) from x0 (HIPS autograd's ``fixed_point``)."""
    x = x0
    for _ in range(100):
        x, previous = f(a, x), x
        if bool(tnp.all(tnp.abs(x - previous) <= 1e-15 * tnp.abs(x))):
            break
    return x


def fixed_point_fwd(f, a, x0):
    x_star = fixed_point(f, a, x0)
    return x_star, (a, x_star)


def fixed_point_bwd(f, residuals, g):
    # Implicit function theorem: x* = f(a, x*), so a's cotangent is w·∂f/∂a with w = g + w·∂f/∂x.
    a, x_star = residuals
    _, vjp_x = tf.vjp(lambda x: f(a, x), x_star)
    w = g
    for _ in range(100):
        w, previous = g + vjp_x(w)[0], w
        if bool(tnp.all(tnp.abs(w - previous) <= 1e-15 * tnp.abs(w))):
            break
    _, vjp_a = tf.vjp(lambda a: f(a, x_star), a)
    return vjp_a(w)[0], None


fixed_point.defvjp(fixed_point_fwd, fixed_point_bwd)


def newton_sqrt(a):
    return fixed_point(lambda a, x: 0.5 * (x + a / x), a, 1.0)


def test_a_fixed_point_differentiates_by_the_implicit_function_theorem():
    assert float(newton_sqrt(2.0)) == pytest.approx(np.sqrt(2.0), rel=1e-15)
    assert float(tf.grad(newton_sqrt)(2.0)) == pytest.approx(0.5 / np.sqrt(2.0), rel=1e-14)
    assert float(tf.grad(tf.grad(newton_sqrt))(2.0)) == pytest.approx(-0.25 * 2.0**-1.5, rel=1e-12)
    a = tf.variable(np.array([4.0, 9.0]))
    tnp.sum(newton_sqrt(a)).backward()
    assert a.grad().to_numpy() == pytest.approx([0.25, 1.0 / 6.0], rel=1e-14)


@tf.custom_vjp
def clip_gradient(lo, hi, x):
    return x  # the identity


def clip_gradient_fwd(lo, hi, x):
    return x, (lo, hi)


def clip_gradient_bwd(residuals, g):
    lo, hi = residuals
    return None, None, tnp.clip(g, lo, hi)  # None: no cotangent for lo and hi


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)


def test_clip_gradient_clips_the_cotangent_and_passes_the_value():
    f = lambda x: tnp.sum(clip_gradient(-0.75, 0.75, tnp.sin(x)) * 3.0)  # noqa: E731
    x = np.array([0.0, 1.0, 2.0])
    assert values(tf.grad(f)(x)) == pytest.approx(0.75 * np.cos(x), rel=1e-15)
    assert values(clip_gradient(-0.75, 0.75, x)).tolist() == x.tolist()
    assert values(tf.grad(lambda x: tnp.sum(clip_gradient(-1.0, 1.0, x) * 0.5))(x)).tolist() == [0.5] * 3


# -- every way of differentiating, against the function without its rule ---------------------------
@tf.custom_vjp
def sin_cube(x, y):
    return {"s": tnp.sin(x) * y, "c": y**3}


def sin_cube_fwd(x, y):
    return sin_cube(x, y), {"cos": tnp.cos(x), "sin": tnp.sin(x), "y": y}


def sin_cube_bwd(res, g):
    return g["s"] * res["cos"] * res["y"], g["s"] * res["sin"] + 3.0 * g["c"] * res["y"] ** 2


sin_cube.defvjp(sin_cube_fwd, sin_cube_bwd)


def sin_cube_plain(x, y):
    return {"s": tnp.sin(x) * y, "c": y**3}


def scalar(f):
    return lambda x, y: tnp.sum(f(x, y)["s"] ** 2 + f(x, y)["c"])


def assert_trees_close(got, want):
    got_leaves, got_spec = optree.tree_flatten(tf.tree_map(np.asarray, got))
    want_leaves, want_spec = optree.tree_flatten(tf.tree_map(np.asarray, want))
    assert got_spec == want_spec
    for g, w in zip(got_leaves, want_leaves):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-14)


arrays = st.lists(st.floats(-3.0, 3.0), min_size=3, max_size=3).map(np.array)


@given(x=arrays, y=arrays, v=arrays)
def test_every_transform_of_a_custom_vjp_equals_the_plain_functions(x, y, v):
    custom, plain = scalar(sin_cube), scalar(sin_cube_plain)
    both = [(custom, sin_cube), (plain, sin_cube_plain)]
    results = []
    for f, g in both:
        results.append(
            [
                tf.grad(f, argnums=(0, 1))(x, y),
                tf.value_and_grad(f)(x, y),
                tf.vjp(g, x, y)[1]({"s": v, "c": v}),
                tf.jacrev(g, argnums=(0, 1))(x, y),
                tf.jacrev(tf.jacrev(f))(x, y),
                tf.grad(lambda x, f=f: tnp.sum(tf.grad(f)(x, y) * v))(x),
            ]
        )
    assert_trees_close(results[0], results[1])


@tf.custom_jvp
def product(x, y):
    return tnp.sin(x) * y


@product.defjvp
def product_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    return product(x, y), tnp.cos(x) * y * tx + tnp.sin(x) * ty


@given(x=arrays, y=arrays, v=arrays)
def test_every_transform_of_a_custom_jvp_equals_the_plain_functions(x, y, v):
    results = []
    for f in (product, lambda x, y: tnp.sin(x) * y):
        loss = lambda x, y, f=f: tnp.sum(f(x, y) ** 2)  # noqa: E731
        results.append(
            [
                tf.grad(loss, argnums=(0, 1))(x, y),
                tf.vjp(f, x, y)[1](v),
                tf.jvp(f, (x, y), (v, v)),
                tf.jacrev(f)(x, y),
                tf.jacfwd(f, argnums=1)(x, y),
                tf.hessian(loss)(x, y),
                tf.hvp(loss, (x, y), (v, v)),
            ]
        )
    assert_trees_close(results[0], results[1])
    xv = tf.variable(x)
    tnp.sum(product(xv, y)).backward()
    np.testing.assert_allclose(xv.grad().to_numpy(), np.cos(x) * y, rtol=1e-14, atol=1e-15)


@given(x=st.floats(-3.0, 3.0), h=st.sampled_from([1e-6]))
def test_a_custom_vjp_matches_central_differences_where_its_rule_is_exact(x, h):
    f = lambda x: tnp.sum(sin_cube(x, 2.0 * x)["s"] + sin_cube(x, x)["c"])  # noqa: E731
    numeric = (float(f(np.array(x + h))) - float(f(np.array(x - h)))) / (2 * h)
    assert float(tf.grad(f)(np.array(x))) == pytest.approx(numeric, rel=1e-6, abs=1e-6)


def test_nondiff_argnums_are_passed_first_to_the_rules_as_python_values():
    @functools.partial(tf.custom_vjp, nondiff_argnums=(1,))
    def power(x, n):
        return x**n

    power.defvjp(lambda x, n: (x**n, x), lambda n, x, g: (g * n * x ** (n - 1),))
    assert float(tf.grad(power)(3.0, 2)) == 6.0
    assert float(tf.grad(tf.grad(power))(3.0, 3)) == 18.0  # bwd differentiated again: 6x

    @functools.partial(tf.custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        return f(primals[0]), 2.0 * tangents[0]

    assert float(tf.grad(lambda x: app(tnp.sin, x))(1.0)) == 2.0
    assert float(tf.jvp(lambda x: app(tnp.sin, x), (1.0,), (1.0,))[1]) == 2.0
    assert float(app(lambda x: x + 1, 1.0)) == 2.0


def test_keyword_arguments_are_resolved_to_positions():
    assert float(tf.grad(lambda x: sin_cube(y=2.0, x=x)["s"])(0.0)) == 2.0
    with pytest.raises(ArgumentError, match="sin_cube: the arguments do not fit its signature"):
        sin_cube(1.0, z=2.0)


def test_without_an_argument_that_carries_a_derivative_the_function_just_runs():
    calls = []

    @tf.custom_vjp
    def f(x):
        calls.append("fun")
        return x * 2.0

    f.defvjp(lambda x: (calls.append("fwd") or x * 2.0, None), lambda res, g: (g * 2.0,))
    f(np.array([1.0]))
    f(tf.constant(np.array([1.0])))
    with tf.no_grad():
        f(tf.variable(np.array([1.0])))
    assert calls == ["fun", "fun", "fun"]
    f(tf.variable(np.array([1.0])))
    assert calls[-1] == "fwd"


def test_a_custom_function_defined_after_sessions_exist_works_in_them():
    rt, eng = EagerRuntime(), CpuEngine.serial()
    x = rt.variable_from(Tensor.from_numpy(X))
    with rt.eager_session(eng) as s:
        y = s.mul(x, x)

        @tf.custom_vjp
        def late(x):
            return x

        late.defvjp(lambda x: (x, None), lambda res, g: (3.0 * g,))
        loss = s.reduce_sum(late(y), None)
    loss.backward(eng)
    assert x.grad().to_numpy().tolist() == (6.0 * X).tolist()


def test_an_integer_output_is_a_constant():
    @tf.custom_vjp
    def with_count(x):
        return x * 2.0, tnp.asarray(3)

    with_count.defvjp(lambda x: (with_count(x), None), lambda res, g: (2.0 * g[0],))
    out, count = with_count(tf.variable(X))
    assert count.dtype == np.int64 and not count.tracks_grad()
    assert values(tf.grad(lambda x: tnp.sum(with_count(x)[0]))(X)).tolist() == [2.0, 2.0]


def test_forward_mode_through_a_custom_vjp_is_refused_not_a_transposed_guess():
    """As JAX refuses it: forward mode would have to transpose bwd, right only where bwd is
    linear in g; clip_gradient's is not, and transposed at g = 1 it would give the tangent
    of the identity unclipped, a silent wrong number."""
    f = lambda x: clip_gradient(-0.5, 0.5, x)  # noqa: E731
    loss = lambda x: tnp.sum(tnp.sin(clip_gradient(-0.5, 0.5, x)))  # noqa: E731
    x = np.array([0.3, 2.0])
    for transform in (
        lambda: tf.jvp(f, (x,), (np.ones(2),)),
        lambda: tf.linearize(f, x)[1](np.ones(2)),
        lambda: tf.jacfwd(f)(x),
        lambda: tf.hessian(loss)(x),
        lambda: tf.hvp(loss, (x,), (np.ones(2),)),
    ):
        with pytest.raises(
            NotDifferentiable, match=r"custom_vjp function 'clip_gradient' has a reverse-mode rule only"
        ) as info:
            transform()
        assert (info.value.op, info.value.plugin) == ("clip_gradient", "custom_vjp")
    assert values(tf.jacrev(tf.jacrev(loss))(x)).shape == (2, 2)  # the way the message gives


# -- errors -------------------------------------------------------------------------------------------
def test_bad_arguments_are_argument_errors_naming_the_function_and_argument():
    with pytest.raises(ArgumentError, match=r"tf.custom_vjp: fun must be the callable .* got 3"):
        tf.custom_vjp(3)
    with pytest.raises(ArgumentError, match=r"tf.custom_jvp\(f\): nondiff_argnums 2 is out of range .* 2 positional"):
        tf.custom_jvp(_two, nondiff_argnums=(2,))
    with pytest.raises(ArgumentError, match="nondiff_argnums must be a tuple of non-negative ints, got 'a'"):
        tf.custom_vjp(_two, nondiff_argnums="a")
    f = tf.custom_vjp(_two)
    with pytest.raises(ArgumentError, match=r"f.defvjp: bwd must be callable, got None"):
        f.defvjp(lambda x, y: (x, None), None)
    with pytest.raises(ArgumentError, match=r"f: no VJP rule is defined .* call f.defvjp\(fwd, bwd\)"):
        f(1.0, 2.0)
    g = tf.custom_jvp(_two)
    with pytest.raises(ArgumentError, match=r"f: no JVP rule is defined .* @f.defjvp"):
        g(1.0, 2.0)
    star = tf.custom_vjp(_first, nondiff_argnums=(1,))
    star.defvjp(lambda *xs: (xs[0], None), lambda *a: a)
    with pytest.raises(ArgumentError, match=r"_first: nondiff_argnums names argument 1, but the call has 1"):
        star(1.0)


def _first(*xs):
    return xs[0]


def _two(x, y):
    return x * y


_two.__name__ = "f"


def test_a_tracked_nondiff_argument_and_a_closure_are_refused_not_lost():
    @functools.partial(tf.custom_vjp, nondiff_argnums=(1,))
    def scaled(x, k):
        return x * k

    scaled.defvjp(lambda x, k: (x * k, k), lambda k, res, g: (g * k,))
    with pytest.raises(ArgumentError, match="scaled: argument 1 is in nondiff_argnums but holds a tensor that tracks"):
        tf.grad(lambda x: scaled(x, x))(1.0)
    w = tf.variable(np.array(2.0))

    @tf.custom_vjp
    def closes(x):
        return x * w

    closes.defvjp(lambda x: (x * w, None), lambda res, g: (g * w,))
    with pytest.raises(ArgumentError, match=r"its fwd <lambda> computed its output from f64\[\], a tensor that tracks"):
        closes(tf.variable(np.array(1.0)))
    with pytest.raises(ArgumentError, match="a closure"):
        tf.grad(closes)(1.0)


def bad_vjp(bwd, fwd=None):
    @tf.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(fwd or (lambda x, y: (x * y, (x, y))), bwd)
    return f


@pytest.mark.parametrize(
    "fwd, bwd, message",
    [
        (
            lambda x, y: x * y,
            None,
            r"custom_vjp function 'f': its fwd <lambda> returned a single array f64\[2\]; it "
            r"must return a pair \(out, residuals\)",
        ),
        (
            None,
            lambda res, g: g,
            r"the VJP of custom_vjp function 'f': its bwd <lambda> returned a single array "
            r"f64\[2\], not a tuple \(for one argument write \(g,\)\); bwd returns a tuple with one cotangent per "
            r"differentiable argument \(2\)",
        ),
        (None, lambda res, g: (g,), r"its bwd <lambda> returned 1 cotangents"),
        (None, lambda res, g: (g, g[:1]), r"returned f64\[1\] for argument 1, which is f64\[2\]"),
        (None, lambda res, g: (g, g.astype(np.float32)), r"returned f32\[2\] for argument 1, which is f64\[2\].*cast"),
        (None, lambda res, g: (g, {"a": g}), r"returned a dict for argument 1"),
        (None, lambda res, g: (g, "zero"), r"returned a str for argument 1"),
        (None, lambda res, g: (g, g[5]), r"the VJP of custom_vjp function 'f' failed: its bwd <lambda> raised"),
    ],
)
def test_a_bad_vjp_rule_is_a_rule_error_naming_the_function_and_the_fix(fwd, bwd, message):
    f = bad_vjp(bwd or (lambda res, g: (g, g)), fwd)
    x = tf.variable(X)
    with pytest.raises(RuleError, match=message):
        tnp.sum(f(x, x)).backward()
    assert x.grad() is None  # no slot written


def bad_jvp(rule):
    @tf.custom_jvp
    def f(x):
        return tnp.sin(x)

    f.defjvp(rule)
    return f


@pytest.mark.parametrize(
    "rule, message",
    [
        (lambda p, t: t[0], r"its rule <lambda> returned a single array f64\[2\]; the rule returns a pair"),
        (lambda p, t: (p[0], t[0][:1]), r"returned f64\[1\] for the output, which is f64\[2\]"),
        (lambda p, t: ((p[0],), t[0]), r"returned a primal_out of structure PyTreeSpec\(\(\*,\)\)"),
        (lambda p, t: (p[0], t[0] ** 2), None),  # not linear: a wrong number, not an error (as in JAX)
    ],
)
def test_a_bad_jvp_rule_is_a_rule_error_in_both_modes(rule, message):
    f = bad_jvp(rule)
    if message is None:
        assert values(tf.jvp(f, (X,), (np.full(2, 3.0),))[1]).tolist() == [9.0, 9.0]
        return
    with pytest.raises(RuleError, match=message):
        tf.jvp(f, (X,), (np.ones(2),))
    with pytest.raises(RuleError, match=message) as info:  # the rule's error as it is, not wrapped again
        tf.grad(lambda x: tnp.sum(f(x)))(X)
    assert str(info.value).startswith("the JVP of custom_jvp function 'f': its rule <lambda> returned")
    assert (info.value.op, info.value.plugin, info.value.rule) == ("f", "custom_jvp", "jvp")


def test_a_jvp_rule_computed_off_the_tangents_cannot_be_transposed():
    f = bad_jvp(lambda p, t: (tnp.sin(p[0]), np.ones(2)))
    assert values(tf.jvp(f, (X,), (np.ones(2),))[1]).tolist() == [1.0, 1.0]
    with pytest.raises(RuleError, match="a nonzero tangent that is not computed from the tangents"):
        tf.grad(lambda x: tnp.sum(f(x)))(X)
    g = bad_vjp(lambda res, g: (np.ones(2), np.ones(2)))  # reverse mode applies bwd as it is
    assert values(tf.grad(lambda x: tnp.sum(g(x, x)))(X)).tolist() == [2.0, 2.0]


def test_a_wrong_leaf_of_a_pytree_cotangent_is_named_by_its_argument_and_path():
    @tf.custom_vjp
    def affine(params, x):
        return params["w"] * x + params["b"]

    affine.defvjp(
        lambda params, x: (affine(params, x), (params, x)),
        lambda res, g: ({"w": g * res[1], "b": g[:1]}, None),
    )
    params = {"w": np.ones(2), "b": np.zeros(2)}
    with pytest.raises(RuleError, match=r"returned f64\[1\] for argument 0 at \['b'\], which is f64\[2\]"):
        tf.grad(lambda p: tnp.sum(affine(p, X)))(params)
    affine.defvjp(affine.fwd, lambda res, g: ({"w": g * res[1], "b": g}, None))
    grads = tf.grad(lambda p: tnp.sum(affine(p, X)))(params)
    assert values(grads["w"]).tolist() == X.tolist() and values(grads["b"]).tolist() == [1.0, 1.0]


def test_a_transform_started_inside_a_bwd_rule_refuses_numpy_reads_of_its_own_values():
    """Inside derivative rules reads of values were allowed outright, so a bwd that called
    tf.vjp on NumPy code (scipy.integrate.odeint's adjoint with a NumPy func) got a silent
    zero: the refusal now stands for transforms the rule itself started."""

    @tf.custom_vjp
    def scaled(x):
        return x * 3.0

    def fwd(x):
        return scaled(x), x

    def bwd(x, g):
        _, pull = tf.vjp(lambda y: tnp.asarray(np.asarray(y) * 3.0), x)  # NumPy: no derivative
        return pull(g)

    scaled.defvjp(fwd, bwd)
    refusal = r"its bwd bwd raised ArgumentError\('np\.asarray\(x\): .* arguments vjp is differentiating"
    with pytest.raises(RuleError, match=refusal):
        tf.grad(lambda x: tnp.sum(scaled(x)))(np.ones(2))


def test_a_rule_still_reads_the_values_of_the_transform_that_runs_it():
    @tf.custom_vjp
    def clipped(x):
        return x

    def bwd(x, g):
        return (tnp.where(np.asarray(x) > 0.5, g, 0.0),)  # the residual read to decide

    clipped.defvjp(lambda x: (clipped(x), x), bwd)
    np.testing.assert_array_equal(tf.grad(lambda x: tnp.sum(clipped(x)))(np.array([0.2, 0.9])), [0.0, 1.0])


def test_a_bwd_computing_with_numpy_values_refuses_a_higher_derivative_instead_of_zeros():
    """A bwd written with np.cos(np.asarray(x)) gave a Hessian of zeros (true: diag(-sin x)):
    inside rules reads were exempt, so the second derivative through the read was cut
    silently. First order, where nothing differentiates the bwd, still reads freely."""

    @tf.custom_vjp
    def sine(x):
        return tnp.sin(x)

    sine.defvjp(lambda x: (sine(x), x), lambda x, g: (g * np.cos(np.asarray(x)),))
    x = np.array([0.3, 0.7])
    np.testing.assert_array_equal(tf.grad(lambda x: tnp.sum(sine(x)))(x), np.cos(x))
    with pytest.raises(RuleError, match=r"np\.asarray\(x\): .* jacrev is differentiating"):
        tf.jacrev(tf.jacrev(lambda x: tnp.sum(sine(x))))(x)
