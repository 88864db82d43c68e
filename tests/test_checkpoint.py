"""``tf.checkpoint``: the function's intermediate values are not kept but computed again when
a derivative reaches the call, with bitwise the numbers of the unchecked function, under
every transform, ``backward`` and ``rt.grad``, over pytrees, nested (docs/transforms.md,
"Checkpointing")."""

from __future__ import annotations

import numpy as np
import pytest

import tenferro as tf
import tenferro.numpy as tnp
from tenferro.core.eager import vertex

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 4))
PARAMS = {"w": RNG.normal(size=(4, 4)) / 2, "b": RNG.normal(size=4)}
V = {"w": RNG.normal(size=(4, 4)), "b": RNG.normal(size=4)}


def block(h, p):
    return tnp.tanh(h @ p["w"] + p["b"])


def counted(fun):
    """``fun`` and the list its calls are appended to."""
    calls = []

    def run(*args, **kwargs):
        calls.append(1)
        return fun(*args, **kwargs)

    run.__name__ = fun.__name__
    return run, calls


def loss_of(step):
    """Two layers sharing their parameters, then a reduction: Σ sin(layer(layer(x)))."""
    return lambda p, x: tnp.sum(tnp.sin(step(step(x, p), p)))


CHECKED = tf.checkpoint(block)
PLAIN, CKPT = loss_of(block), loss_of(CHECKED)


def test_the_gradient_is_bitwise_the_unchecked_one_and_the_function_runs_again_for_it():
    run, calls = counted(block)
    checked = tf.checkpoint(run)
    got = tf.grad(loss_of(checked))(PARAMS, X)
    assert len(calls) == 4  # two layers, each once forward and once in the backward pass
    want = tf.grad(PLAIN)(PARAMS, X)
    for key in want:
        np.testing.assert_array_equal(got[key], want[key])
    value, grads = tf.value_and_grad(CKPT, argnums=(0, 1))(PARAMS, X)
    assert float(value) == float(PLAIN(PARAMS, X))
    np.testing.assert_array_equal(grads[1], tf.grad(PLAIN, argnums=1)(PARAMS, X))
    assert checked.__name__ == "block" and repr(checked) == "<checkpoint of block>"


def test_vjp_with_a_pytree_output_some_of_which_takes_no_cotangent():
    def two(x, p):
        h = block(x, p)
        return {"h": h, "s": tnp.sum(h, axis=0), "n": tnp.argmax(h, axis=1)}  # n: integers, a constant

    ct = {"h": RNG.normal(size=(3, 4)), "s": np.zeros(4), "n": np.zeros(3, np.int64)}
    got_out, got_fn = tf.vjp(tf.checkpoint(two), X, PARAMS)
    want_out, want_fn = tf.vjp(two, X, PARAMS)
    np.testing.assert_array_equal(got_out["h"], want_out["h"])
    got, want = got_fn(ct), want_fn(ct)
    np.testing.assert_array_equal(got[0], want[0])
    for key in PARAMS:
        np.testing.assert_array_equal(got[1][key], want[1][key])
    # only "s" used: the cotangent of "h" flows from nowhere, and the VJP seeds only what flows
    f = lambda x: tnp.sum(tf.checkpoint(two)(x, PARAMS)["s"] ** 2)  # noqa: E731
    np.testing.assert_array_equal(tf.grad(f)(X), tf.grad(lambda x: tnp.sum(two(x, PARAMS)["s"] ** 2))(X))


@pytest.mark.parametrize(
    "transform",
    [
        lambda f: tf.jacrev(lambda x: f(PARAMS, x)),
        lambda f: tf.jacfwd(lambda x: f(PARAMS, x)),
        lambda f: tf.hessian(lambda x: f(PARAMS, x)),
        lambda f: lambda x: tf.jvp(lambda x: f(PARAMS, x), (x,), (np.cos(X),))[1],
        lambda f: lambda x: tf.linearize(lambda x: f(PARAMS, x), x)[1](np.cos(X)),
        lambda f: lambda x: tf.hvp(lambda p: f(p, x), (PARAMS,), (V,))["w"],
        lambda f: lambda x: tf.hvp(lambda x: f(PARAMS, x), (x,), (np.cos(X),)),
    ],
    ids=["jacrev", "jacfwd", "hessian", "jvp", "linearize", "hvp-params", "hvp-input"],
)
def test_every_transform_gives_bitwise_the_unchecked_numbers(transform):
    np.testing.assert_array_equal(transform(CKPT)(X), transform(PLAIN)(X))


def test_backward_on_variables_keeps_only_the_inputs_and_records_no_derivative():
    def slots(loss):
        p = {k: tf.variable(v) for k, v in PARAMS.items()}
        x = tf.variable(X)
        out = loss(p, x)
        out.backward()
        return out, x, p

    out, x, p = slots(CKPT)
    _, x0, p0 = slots(PLAIN)
    listing = out.trace()
    assert listing.count("block[rule=checkpoint]") == 2 and "tanh" not in listing and "matmul" not in listing
    np.testing.assert_array_equal(x.grad(), x0.grad())
    np.testing.assert_array_equal(p["w"].grad(), p0["w"].grad())
    assert vertex(x.grad()) is None


def test_second_order_through_a_checkpoint_records_the_recomputation():
    rt = tf.default_runtime()
    results = []
    for loss in (PLAIN, CKPT):
        x = tf.variable(X)
        g = rt.grad(loss(PARAMS, x), x)  # recorded: the VJP's recomputation is in the gradient's trace
        results.append((g, rt.grad(tnp.sum(g * np.cos(X)), x)))
    (g0, h0), (g1, h1) = results
    np.testing.assert_array_equal(g1, g0)
    # reverse over reverse: the checkpoint's output and its recomputation are two vertices whose
    # cotangents are summed apart, so the numbers agree to rounding, not bitwise (tf.hvp above is)
    np.testing.assert_allclose(h1, h0, rtol=1e-13, atol=1e-15)
    gg = lambda loss: tf.grad(tf.grad(lambda x: loss(PARAMS, X * x)))(1.5)  # noqa: E731
    np.testing.assert_allclose(gg(CKPT), gg(PLAIN), rtol=1e-13)


def test_nested_checkpoints_recompute_inside_the_recomputation():
    run, calls = counted(block)
    inner = tf.checkpoint(run)
    outer = tf.checkpoint(lambda x, p: inner(inner(x, p), p))
    f = lambda p, x: tnp.sum(tnp.sin(outer(x, p)))  # noqa: E731
    got = tf.grad(f)(PARAMS, X)
    # the outer forward runs each layer once, its backward recomputes them (recording the
    # inner checkpoints), and each inner one recomputes its layer: 6
    assert len(calls) == 6
    want = tf.grad(PLAIN)(PARAMS, X)
    np.testing.assert_array_equal(got["w"], want["w"])
    np.testing.assert_array_equal(
        tf.hvp(lambda p: f(p, X), (PARAMS,), (V,))["b"], tf.hvp(lambda p: PLAIN(p, X), (PARAMS,), (V,))["b"]
    )


def test_arguments_that_are_not_differentiated_pass_through_as_given():
    def pick(x, idx, how, *, scale):
        y = tnp.sin(x)[:, idx] * scale
        return tnp.sum(y) if how == "sum" else tnp.max(y)

    idx = np.array([0, 2])
    plain = lambda x, s: pick(x, idx, "sum", scale=s)  # noqa: E731
    checked = lambda x, s: tf.checkpoint(pick)(x, idx, "sum", scale=s)  # noqa: E731
    for n in (0, 1):
        np.testing.assert_array_equal(tf.grad(checked, argnums=n)(X, 2.0), tf.grad(plain, argnums=n)(X, 2.0))
    z = X + 1j * X[::-1]
    cf = lambda z: tnp.sum(tnp.abs(tf.checkpoint(tnp.sin)(z)) ** 2)  # noqa: E731
    np.testing.assert_array_equal(tf.grad(cf)(z), tf.grad(lambda z: tnp.sum(tnp.abs(tnp.sin(z)) ** 2))(z))


def test_with_nothing_to_differentiate_the_function_just_runs():
    run, calls = counted(block)
    checked = tf.checkpoint(run)
    np.testing.assert_array_equal(checked(X, PARAMS), block(X, PARAMS))
    with tf.no_grad():
        y = checked(tf.variable(X), PARAMS)
    assert vertex(y) is None and len(calls) == 2
    # a closure tracked while no argument is: recorded as fun's own ops, so its gradient is right
    g = tf.grad(lambda w: tnp.sum(tf.checkpoint(lambda x: tnp.sin(x * w))(X)))(2.0)
    np.testing.assert_array_equal(g, tf.grad(lambda w: tnp.sum(tnp.sin(X * w)))(2.0))


def test_a_closure_over_a_tracked_tensor_is_refused_not_dropped():
    y = tf.variable(np.ones(4))
    closes = tf.checkpoint(lambda x: x * y)
    with pytest.raises(tf.ArgumentError, match=r"checkpoint\(<lambda>\).*closure.*tf.checkpoint.*pass the value as an"):
        closes(tf.variable(X))
    with pytest.raises(tf.ArgumentError, match="closure"):
        tf.grad(lambda w: tnp.sum(tf.checkpoint(lambda x: x * w)(tf.variable(X))))(2.0)
    # over a constant it is fine
    c = tf.constant(np.ones(4))
    np.testing.assert_array_equal(tf.grad(lambda x: tnp.sum(tf.checkpoint(lambda x: x * c)(x)))(X), np.ones((3, 4)))


def test_errors_name_checkpoint():
    with pytest.raises(tf.ArgumentError, match=r"tf.checkpoint: fun must be the callable"):
        tf.checkpoint(3)
    with pytest.raises(tf.ArgumentError, match=r"tf.checkpoint: policy must be None or a callable policy\(op\)"):
        tf.checkpoint(block, policy="save_nothing")
    with pytest.raises(tf.ArgumentError, match=r"save_only_these_ops: give the names of ops as strings"):
        tf.checkpoint_policies.save_only_these_ops(tnp.tanh)
    draws = iter([np.ones(4), np.ones((2, 4))])
    changing = tf.checkpoint(lambda x: x[0] * next(draws))  # not a pure function: another shape when run again
    with pytest.raises(tf.RuleError, match=r"checkpoint\(<lambda>\): run again .* same output"):
        tf.grad(lambda x: tnp.sum(changing(x)))(X)


def test_a_numpy_argument_written_into_before_backward_does_not_change_the_gradient():
    """The checkpoint kept the caller's NumPy array by reference: writing into it between
    the call and backward() changed the recomputation ([4.96, ...] for [0.992, ...])."""
    data = np.array([0.1, 0.2, 0.9])
    c = np.ones(3)
    x = tf.variable(data)
    y = tf.checkpoint(lambda x, c: tnp.sum(tnp.sin(x) * c))(x, c)
    c[:] = 5.0
    y.backward()
    np.testing.assert_array_equal(x.grad(), np.cos(data))


def test_numpys_global_random_draws_are_replayed_in_the_recomputation():
    """As torch's preserve_rng_state: the recomputation draws the numbers the first run drew."""
    data = np.array([0.1, 0.2, 0.9])

    def noisy(x):
        return tnp.sum(tnp.sin(x) * np.random.normal(size=3))

    np.random.seed(7)
    expected = tf.grad(noisy)(data)
    np.random.seed(7)
    got = tf.grad(tf.checkpoint(noisy))(data)
    np.testing.assert_array_equal(got, expected)
    after = np.random.normal()
    np.random.seed(7)
    np.random.normal(size=3)
    assert after == np.random.normal()  # the state goes on from the first run's draws


def test_an_error_while_recomputing_is_said_as_the_recomputations():
    """It read as the fault of 'its forward kernel, not the VJP'."""
    runs = []

    def fragile(x):
        runs.append(1)
        if len(runs) > 1:
            raise ValueError("boom")
        return tnp.sum(tnp.sin(x))

    said = r"checkpoint\(fragile\): running the function again .* ValueError\('boom'\)"
    with pytest.raises(tf.RuleError, match=said):
        tf.grad(tf.checkpoint(fragile))(np.ones(2))


LAYERS = [RNG.normal(size=(6, 6)) / 3 for _ in range(4)]
BATCH = RNG.normal(size=(5, 6))


def stack(h, weights):
    for w in weights:
        h = tnp.tanh(h @ w)
    return h


POLICIES = [
    tf.checkpoint_policies.nothing_saveable,
    tf.checkpoint_policies.dots_saveable,
    tf.checkpoint_policies.everything_saveable,
    tf.checkpoint_policies.save_only_these_ops("tanh"),
    lambda op: op.name == "matmul",  # any policy(op) -> bool
]


def bits(tree):
    return [np.asarray(leaf).tobytes() for leaf in tf.flatten(tree)[0]]


@pytest.mark.parametrize("policy", POLICIES)
def test_a_policy_keeps_numbers_bitwise_under_every_derivative(policy):
    """With any policy the gradient, an HVP, a JVP and backward twice are bitwise the
    unchecked function's: a kept result is the one the first run computed, the others run
    again with the same kernels."""
    checked = tf.checkpoint(stack, policy=policy)

    def loss(f):
        return lambda ws: tnp.sum(f(BATCH, ws) ** 2)

    assert bits(tf.grad(loss(checked))(LAYERS)) == bits(tf.grad(loss(stack))(LAYERS))
    assert bits(tf.hvp(loss(checked), (LAYERS,), (LAYERS,))) == bits(tf.hvp(loss(stack), (LAYERS,), (LAYERS,)))
    assert bits(tf.jvp(loss(checked), (LAYERS,), (LAYERS,))) == bits(tf.jvp(loss(stack), (LAYERS,), (LAYERS,)))
    w = tf.variable(LAYERS[0])
    out = loss(checked)([w, *LAYERS[1:]])
    out.backward()
    out.backward()  # the kept results serve every recomputation
    assert np.asarray(w.grad()).tobytes() == (2 * np.asarray(tf.grad(loss(stack))(LAYERS)[0])).tobytes()


def test_the_ops_a_policy_keeps_are_not_computed_again():
    """An op the policy names runs its kernel once, in the first run; the recomputation
    for the derivative takes its kept result. The other ops run again."""
    from conftest import plugin_of

    from tenferro.plugins import contract, elementwise, reduce

    runs = []

    def counted_tanh(x):
        runs.append(1)
        return np.tanh(x)

    spec = tf.OpSpec(
        name="counted_tanh",
        inputs=("x",),
        forward=counted_tanh,
        vjps=(lambda s, g, out, x: s.mul(g, s.sub(1.0, s.mul(out, out))),),
        residuals=("out",),
    )
    rt = tf.EagerRuntime(
        engine=tf.CpuEngine.serial(), plugins=[elementwise, reduce, contract, plugin_of("counted", spec)]
    )

    def layers(h, weights):
        s = h.runtime.current_session()
        for w in weights:
            h = s.counted_tanh(s.matmul(h, w))
        return h

    for policy, again in ((None, 4), (tf.checkpoint_policies.save_only_these_ops("counted_tanh"), 0)):
        runs.clear()
        ws = [rt.variable_from(w) for w in LAYERS]
        checked = tf.checkpoint(layers, policy=policy)
        out = rt.with_eager_session(
            lambda s, checked=checked, ws=ws: s.reduce_sum(checked(rt.constant_from(BATCH), ws), None)
        )
        assert len(runs) == 4
        rt.grad(out, ws)
        assert len(runs) == 4 + again


def test_a_function_that_calls_other_ops_when_run_again_is_refused_with_a_policy():
    """The recomputation must meet the kept ops in the order they were kept: a function
    that calls another product the second time raises a RuleError that names it."""
    calls = []

    def drifting(h, weights):
        calls.append(1)
        h = tnp.tanh(h @ weights[0])
        return h @ weights[1] if len(calls) > 1 else h

    checked = tf.checkpoint(drifting, policy=tf.checkpoint_policies.dots_saveable)
    with pytest.raises(
        tf.RuleError,
        match=r"checkpoint\(drifting\): run again for its derivative, the function called "
        r"matmul on .* where its first run called no more of the ops its policy keeps",
    ):
        tf.grad(lambda ws: tnp.sum(checked(BATCH, ws)))(LAYERS)


def test_a_jitted_gradient_that_needs_a_checkpoints_output_replays_it():
    """Regression: tf.jit's plan ran the checkpoint op's kernel again, which gave back only
    the values its first call computed (an IndexError on the second call whenever the
    gradient reads the checkpoint's output). Inside a trace a checkpoint now records its
    function's ops as they are."""
    jitted = tf.jit(tf.grad(lambda ws: tnp.sum(tf.checkpoint(stack)(BATCH, ws) ** 2)))
    expected = bits(tf.grad(lambda ws: tnp.sum(stack(BATCH, ws) ** 2))(LAYERS))
    for _ in range(3):
        assert bits(jitted(LAYERS)) == expected


def test_the_gradient_of_a_jitted_checkpoint_follows_each_calls_arguments():
    """Regression, a silent wrong gradient: tf.grad(tf.jit(f)) replays the trace's ops on
    each call's arguments, and the checkpoint op in it recomputed from the arguments of the
    call that traced it, so the second call's gradient was the first one's in part."""
    f = lambda y: tnp.sin(y) * y  # noqa: E731
    jitted = tf.grad(tf.jit(lambda x: tnp.sum(tf.checkpoint(f)(x) ** 2)))
    unchecked = tf.grad(lambda x: tnp.sum(f(x) ** 2))
    for x in (np.array([0.5, 1.0]), np.array([2.0, -1.0]), np.array([3.0, 0.1])):
        assert np.asarray(jitted(x)).tobytes() == np.asarray(unchecked(x)).tobytes()


def test_per_example_gradients_through_a_checkpoint_batch(recwarn):
    """Inside vmap's trace a checkpoint records its function's ops, so per-example gradients
    through it batch (the checkpoint op's record differed between the two traces, and it
    ran once per example), bitwise as without the checkpoint."""
    grads = tf.vmap(tf.grad(lambda ws, x: tnp.sum(tf.checkpoint(stack)(x, ws) ** 2)), in_axes=(None, 0))(LAYERS, BATCH)
    plain = tf.vmap(tf.grad(lambda ws, x: tnp.sum(stack(x, ws) ** 2)), in_axes=(None, 0))(LAYERS, BATCH)
    assert bits(grads) == bits(plain)
    assert not [w for w in recwarn if "once per example" in str(w.message)]
