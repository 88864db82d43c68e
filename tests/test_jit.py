"""``tf.jit`` gives bitwise the eager numbers on the first (tracing) call and on every
replay, composes with the other transforms both ways, keeps one plan per signature in a
bounded cache, and refuses what a replay could not repeat with an error naming the line
(docs/jit.md)."""

from __future__ import annotations

import warnings

import numpy as np
import optree
import pytest
from conftest import run_docs_example
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError

RNG = np.random.default_rng(0)
X, Y = RNG.normal(size=5), RNG.normal(size=5)


def same(a, b):
    leaves_a, leaves_b = optree.tree_leaves(a), optree.tree_leaves(b)
    assert len(leaves_a) == len(leaves_b)
    for p, q in zip(leaves_a, leaves_b):
        np.testing.assert_array_equal(np.asarray(p), np.asarray(q), strict=True)


def seed(x):
    return tnp.sum(tnp.sin(x) * x * x)


def mlp(params, x):
    return tnp.sum(tnp.tanh(x @ params["W1"] + params["b1"]) @ params["W2"])


PARAMS = {"W1": RNG.normal(size=(4, 8)), "b1": np.zeros(8), "W2": RNG.normal(size=(8, 1))}
BATCH = RNG.normal(size=(3, 4))

PROGRAMS = {
    "elementwise": (lambda x, y: tnp.exp(-x * y) + tnp.cos(x) / (1.0 + y**2), (X, Y)),
    "grad": (tf.grad(seed), (X,)),
    "value_and_grad_mlp": (tf.value_and_grad(mlp), (PARAMS, BATCH)),
    "hvp": (lambda x, v: tf.hvp(seed, (x,), (v,)), (X, Y)),
    "jvp": (lambda x, v: tf.jvp(seed, (x,), (v,)), (X, Y)),
    "hessian": (tf.hessian(seed), (X,)),
    "per_example_grads": (tf.vmap(tf.grad(mlp), in_axes=(None, 0)), (PARAMS, BATCH)),
    "jacfwd": (tf.jacfwd(lambda x: tnp.sin(x) * x), (X,)),
    "checkpoint": (tf.grad(lambda x: tnp.sum(tf.checkpoint(lambda y: tnp.tanh(y) * y)(x))), (X,)),
    "nested_jit": (tf.grad(lambda x: tnp.sum(tf.jit(lambda y: tnp.sin(y) * y)(x) ** 2)), (X,)),
    "softmax_attention": (
        lambda q, k: tnp.sum(tf.nn.softmax(q @ k.T / 2.0, axis=-1) @ k),
        (RNG.normal(size=(6, 4)), RNG.normal(size=(6, 4))),
    ),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_jitted_program_gives_the_eager_numbers_bitwise_when_traced_and_replayed(name):
    f, args = PROGRAMS[name]
    jitted = tf.jit(f)
    eager = f(*args)
    same(jitted(*args), eager)  # the tracing call
    same(jitted(*args), eager)  # the plan
    other = optree.tree_map(lambda a: a * 0.5 + 0.25, args)
    same(jitted(*other), f(*other))  # the plan on new values of the same signature
    assert jitted.cache_info() == (2, 1, 64, 1)
    (entry,) = jitted._cache.values()  # the compiled plan itself, not a fallback to the ops
    outs = entry.plan.run(*optree.tree_leaves(other))
    same(optree.tree_unflatten(entry.out_spec, list(outs)), f(*other))


@given(
    hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(-3, 3)),
    hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(-3, 3)),
)
def test_the_plan_equals_eager_for_any_values_of_a_signature(a, b):
    def f(x):
        return tf.value_and_grad(lambda x: tnp.sum(tnp.tanh(x) ** 2 * tnp.exp(-x)))(x)

    jitted = tf.jit(f)
    jitted(a)
    same(jitted(b), f(b))


UNARY = [tnp.sin, tnp.tanh, tnp.exp, lambda x: x * x, lambda x: tnp.sqrt(x * x + 1.0), lambda x: -x]
BINARY = [tnp.add, tnp.multiply, lambda a, b: a / (1.0 + b * b), tnp.maximum]
REDUCE = [tnp.sum, tnp.mean, lambda x: tnp.max(x, axis=-1, keepdims=True), lambda x: tnp.cumsum(x, axis=-1)]


@st.composite
def programs(draw):
    """A random straight-line program of unary, binary and reducing steps over two inputs."""
    steps = draw(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 5), st.integers(0, 9)), min_size=1, max_size=8))

    def program(x, y):
        values = [x, y]
        for kind, which, other in steps:
            last = values[-1]
            if kind == 0:
                values.append(UNARY[which % len(UNARY)](last))
            elif kind == 1:
                values.append(BINARY[which % len(BINARY)](last, values[other % len(values)]))
            else:
                values.append(REDUCE[which % len(REDUCE)](last) + values[0])
        return tnp.sum(values[-1])

    return program


@given(
    programs(),
    hnp.arrays(np.float64, (2, 3), elements=st.floats(-2, 2)),
    hnp.arrays(np.float64, (2, 3), elements=st.floats(-2, 2)),
)
def test_a_random_program_and_its_gradient_replay_bitwise(program, a, b):
    jitted = tf.jit(tf.value_and_grad(program, argnums=(0, 1)))
    jitted(a, b)
    same(jitted(b, a), tf.value_and_grad(program, argnums=(0, 1))(b, a))
    same(jitted(a * 0.5, b), tf.value_and_grad(program, argnums=(0, 1))(a * 0.5, b))


def test_derivatives_of_a_jitted_function_flow_through_its_ops():
    jitted = tf.jit(seed)
    jitted(X)  # traced: later calls with a tracked argument run the plan's ops, recorded
    same(tf.grad(jitted)(X), tf.grad(seed)(X))
    same(tf.hessian(jitted)(X), tf.hessian(seed)(X))
    x = tf.variable(X)
    jitted(x).backward()
    same(x.grad(), tf.grad(seed)(X))
    assert jitted.cache_info().misses == 1


def test_a_jitted_function_closing_over_a_variable_passes_its_gradient():
    w = tf.variable(Y)
    jitted = tf.jit(lambda x: tnp.sum(w * tnp.sin(x)))
    jitted(X)
    loss = jitted(X)
    loss.backward()
    same(w.grad(), np.sin(X))


def test_vmap_of_a_jitted_function_batches_it():
    jitted = tf.jit(seed)
    batch = RNG.normal(size=(7, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.BatchingFallback)
        same(tf.vmap(jitted)(batch), tf.vmap(seed)(batch))
        same(tf.vmap(tf.grad(jitted))(batch), tf.vmap(tf.grad(seed))(batch))


@pytest.mark.parametrize(
    "body, text",
    [
        (lambda x: x if tnp.sum(x) > 0 else -x, "if tnp.sum(x) > 0"),
        (lambda x: x * float(x[0]), "float(x[0])"),
        (lambda x: x + np.asarray(x), "np.asarray(x)"),
        (lambda x: tf.stop_gradient(x) * x, "tf.stop_gradient(x)"),
    ],
    ids=["python_branch", "float", "np_asarray", "stop_gradient"],
)
def test_a_read_of_a_traced_value_is_refused_naming_the_line_and_the_remedies(body, text):
    with pytest.raises(tf.TracedValueError) as caught:
        tf.jit(body)(X)
    message = str(caught.value)
    assert "reads a value computed from the jitted function's arguments" in message
    assert f"{__file__}:" in message and text in message
    assert "tnp.where" in message and "static_argnums" in message


def test_ops_under_no_grad_on_a_traced_value_are_refused():
    def f(x):
        with tf.no_grad():
            return tnp.sin(x)

    with pytest.raises(tf.TracedValueError, match="sin under no_grad computes from a traced value"):
        tf.jit(f)(X)


def test_static_arguments_are_part_of_the_signature():
    def power(x, n, *, scale=1.0):
        return scale * x ** tnp.asarray(float(n))

    jitted = tf.jit(power, static_argnums=1, static_argnames="scale")
    for n in (2, 3, 2):
        same(jitted(X, n, scale=0.5), power(X, n, scale=0.5))
    assert jitted.cache_info()[:2] == (1, 2)  # (hits, misses): one trace per value of n
    same(tf.jit(power, static_argnums=-1)(X, 3), power(X, 3))  # counted from the end, as JAX


def test_keyword_arguments_are_traced_and_their_names_are_the_signature():
    def f(x, *, scale, shift=0.0):
        return tnp.sum(x * scale) + shift

    jitted = tf.jit(f)
    for scale in (2.0, 3.0):
        same(jitted(X, scale=np.asarray(scale)), f(X, scale=np.asarray(scale)))
    same(jitted(X, scale=np.asarray(3.0), shift=1.0), f(X, scale=np.asarray(3.0), shift=1.0))
    assert jitted.cache_info()[:2] == (1, 2)


def test_python_numbers_among_the_arguments_are_static():
    jitted = tf.jit(lambda x, c: x * c)
    same(jitted(X, 2.0), X * 2.0)
    same(jitted(X, 2.0), X * 2.0)
    same(jitted(X, 3.0), X * 3.0)
    same(jitted(X, 3), X * 3)  # an int is another signature than a float of its value
    assert jitted.cache_info()[:2] == (1, 3)


def test_a_new_shape_or_dtype_traces_again_within_a_bounded_cache():
    jitted = tf.jit(seed, cache_size=2)
    for x in (X, X[:3], X.astype(np.float32), X):
        same(jitted(x), seed(x))
    assert jitted.cache_info() == (0, 4, 2, 2)  # X was dropped as the least recently used
    jitted.clear_cache()
    assert jitted.cache_info().currsize == 0


def test_tracing_again_and_again_warns_once_naming_what_changed():
    jitted = tf.jit(lambda x, c: x * c)
    with pytest.warns(tf.RetraceWarning, match=r"traced 8 times; .*argument leaf 1 \(float 7.0; the trace before"):
        for c in range(8):
            jitted(X, float(c))
    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.RetraceWarning)
        jitted(X, 9.0)


AT_UPDATES = {
    "add": lambda x, i: tnp.zeros((4, 5)).at[i[:4]].add(x),
    "set": lambda x, i: tnp.asarray(x).at[i].set(1.0),
    "columns": lambda x, i: tnp.asarray(x).at[:, i[:2]].add(10.0),
    "two_arrays": lambda x, i: tnp.asarray(x).at[i, i[::-1] % 5].multiply(3.0),
    "max": lambda x, i: tnp.zeros(5).at[i].max(x[:, 0]),
    "gradient": tf.grad(lambda x, i: tnp.sum(tnp.zeros(5).at[i].add(x[:, 0] ** 2))),
}


@pytest.mark.parametrize("name", AT_UPDATES)
def test_functional_updates_at_traced_indices_are_recorded(name):
    f, x = AT_UPDATES[name], RNG.normal(size=(4, 5))
    jitted = tf.jit(f)
    for i in ([0, 3, 1, 2, 2][:4], [1, 1, 3, 0]):
        same(jitted(x, np.array(i)), f(x, np.array(i)))
    assert jitted.cache_info().misses == 1


def test_a_traced_index_out_of_range_is_the_index_error_not_a_read():
    jitted = tf.jit(lambda x, i: x[i])
    with pytest.raises(IndexError, match="holds the index 7, out of range for axis 0 of length 5"):
        jitted(X, np.asarray(7))  # the trace
    same(jitted(X, np.asarray(2)), X[2])
    with pytest.raises(IndexError, match="holds the index -6, out of range"):
        jitted(X, np.asarray(-6))  # a replay


def test_one_hot_of_traced_labels_is_recorded():
    jitted = tf.jit(lambda x, labels: tnp.sum(tf.nn.one_hot(labels, 5) * x))
    for labels in ([0, 4, 1, 2, 2], [3, 3, 0, 1, 4]):
        same(jitted(X, np.array(labels)), np.sum(np.eye(5)[labels] * X))


def test_integer_arguments_are_traced_values():
    jitted = tf.jit(lambda x, i: x[i] * 2.0)
    for i in (0, 3, -1):
        same(jitted(X, np.asarray(i)), X[i] * 2.0)
    assert jitted.cache_info().misses == 1


def test_results_never_share_memory_with_numpy_arguments():
    x = X.copy()
    outs = [tf.jit(lambda a: a)(x) for _ in range(2)] + [tf.jit(lambda a: a.reshape(5, 1))(x) for _ in range(2)]
    before = [np.asarray(o).copy() for o in outs]
    x[:] = 0.0  # the caller writes into its array after the calls
    for out, value in zip(outs, before):
        same(out, value)


def test_a_plan_writes_ufunc_results_into_dead_buffers_never_into_a_live_view_or_an_argument():
    """A ufunc's result goes into an input it reads for the last time (one allocation
    fewer), but only into a fresh array no other op keeps a view of: here y's last ufunc
    read comes before its reshaped view is read, so y must stay; the argument is the
    caller's. The numbers are the eager ones bitwise."""

    def f(x):
        y = tnp.sin(x)
        view = y.reshape(15)
        z = y * 2.0
        w = tnp.cos(x) * 3.0
        return tnp.sum(view) + tnp.sum(z) + tnp.sum(w * x)

    given = np.linspace(-2.0, 2.0, 15).reshape(5, 3)
    jitted, x = tf.jit(tf.value_and_grad(f)), given.copy()
    jitted(x)
    assert "out=" in jitted.plan_source(x)
    same(jitted(x), tf.value_and_grad(f)(x))
    same(jitted(x * 0.5), tf.value_and_grad(f)(x * 0.5))
    same(x, given)


def test_a_plan_writes_into_a_buffer_only_where_the_result_keeps_the_eager_memory_order():
    """Regression (review): exp of a transposed view is F-ordered; writing x.T's exp + y
    into it kept F order where the eager add makes a C-ordered array, so the sum along an
    axis added in another order and the bits differed (1.4e-12). A buffer is now used only
    where the result is known C-ordered (all the line's arrays are); a non-C tensor
    argument is part of the signature."""
    rng = np.random.default_rng(0)
    x, y = rng.random((40, 30)), rng.random((30, 40))

    def f(x, y):
        return tnp.sum(tnp.exp(x.T) + y, axis=0)

    jitted = tf.jit(f)
    jitted(x, y)
    same(jitted(x, y), f(x, y))
    assert "out=" not in jitted.plan_source(x, y)
    g = tf.jit(lambda a: tnp.sum(tnp.exp(a) + 1.0, axis=0))
    ordered, transposed = tf.constant(x), tf.constant(y).T  # the same shape, two memory orders
    for argument in (ordered, transposed, ordered):
        same(g(argument), tnp.sum(tnp.exp(argument) + 1.0, axis=0))
    assert g.cache_info().misses == 2 and "out=" in g.plan_source(ordered)


def test_a_jitted_custom_function_returning_its_argument_leaves_the_callers_array_writable():
    """Regression (review): the plan's output was the caller's NumPy array itself, given
    back by the custom function's call (an op that may return its input), and the result
    froze it (read-only). Such outputs are now copied, as an argument returned as it is."""
    for custom in _identities():
        jitted = tf.jit(lambda x, custom=custom: custom(x))
        for _ in range(2):  # traced, then replayed
            x = np.arange(4.0)
            out = jitted(x)
            assert x.flags.writeable and not np.shares_memory(np.asarray(out), x)
            x[0] = 7.0
            assert float(np.asarray(out)[0]) == 0.0


def _identities():
    @tf.custom_jvp
    def with_jvp(x):
        return x

    with_jvp.defjvp(lambda primals, tangents: (primals[0], tangents[0]))

    @tf.custom_vjp
    def with_vjp(x):
        return x

    with_vjp.defvjp(lambda x: (x, None), lambda residuals, g: (g,))
    return [with_jvp, with_vjp]


def test_the_plan_reads_as_a_list_of_kernel_calls():
    source = tf.jit(tf.grad(seed)).plan_source(X)
    assert source.startswith("def plan(a0):")
    for op in ("sin", "mul", "cos", "add_any"):
        assert f"= {op}(" in source
    assert "reduce_sum" not in source  # the loss itself, which the gradient does not read: not computed


@pytest.mark.parametrize("returned", [None, 2.5, "tag", {}], ids=["none", "number", "string", "empty_dict"])
def test_a_function_returning_no_tensor_has_a_plan_too(returned):
    jitted = tf.jit(lambda x: returned)
    assert jitted(X) == returned and jitted(X) == returned
    plan = jitted._cache[next(iter(jitted._cache))].plan  # compiled, not a fallback to the ops
    assert plan.run(X) == (() if returned in (None, {}) else (returned,))


def test_a_random_draw_is_made_once_at_the_trace():
    jitted = tf.jit(lambda x: x + np.random.default_rng().normal())
    same(jitted(X), jitted(X))  # as jax.jit: NumPy's randomness is a constant of the trace


def test_a_plan_that_fails_where_its_ops_do_not_says_so():
    jitted = tf.jit(seed)
    jitted(X)
    (entry,) = jitted._cache.values()
    entry.plan.run = lambda *arrays: 1 / 0  # the compiled plan, broken on purpose
    with pytest.warns(RuntimeWarning, match=r"its plan raised ZeroDivisionError .* a tenferro bug"):
        same(jitted(X), seed(X))


def test_a_kernel_that_refuses_later_values_raises_the_eager_error():
    jitted = tf.jit(lambda a: tnp.sum(tnp.linalg.cholesky(a)))
    same(jitted(np.eye(3)), 3.0)
    with pytest.raises(tf.TenferroError, match="not positive definite"):
        jitted(-np.eye(3))


def test_a_rules_refusal_by_values_is_part_of_the_plan():
    jitted = tf.jit(tf.grad(lambda a: tnp.linalg.slogdet(a)[1]))
    spd = np.eye(3) * 2.0 + 0.1
    same(jitted(spd), np.linalg.inv(spd).T)
    assert "check(" in jitted.plan_source(spd)
    with pytest.raises(tf.NotDifferentiable, match="slogdet: a is singular"):
        jitted(np.diag([1.0, 0.0, 1.0]))


def test_a_jitted_vmap_keeps_the_rules_refusals_of_its_replay():
    per_example = tf.jit(tf.vmap(tf.grad(lambda a: tnp.linalg.slogdet(a)[1])))
    batch = np.stack([np.eye(3) * (2.0 + k) for k in range(4)])
    same(per_example(batch), np.linalg.inv(batch).transpose(0, 2, 1))
    batch[2] = np.diag([1.0, 0.0, 1.0])
    with pytest.raises(tf.NotDifferentiable, match="slogdet: a at batch index 2 is singular"):
        per_example(batch)


def test_bad_arguments_are_argument_errors():
    with pytest.raises(ArgumentError, match="must be callable"):
        tf.jit(3)
    with pytest.raises(ArgumentError, match="static_argnums must be ints"):
        tf.jit(seed, static_argnums=("x",))
    with pytest.raises(ArgumentError, match="cache_size must be a positive int"):
        tf.jit(seed, cache_size=0)
    with pytest.raises(ArgumentError, match=r"static argument 1 is a list, which is neither an array nor hashable"):
        tf.jit(lambda x, n: x, static_argnums=1)(X, [1])
    with pytest.raises(ArgumentError, match="argument leaf 0 is an array of dtype <U1"):
        tf.jit(lambda s: s)(np.array(["a"]))


def test_a_dask_runtime_is_refused_clearly():
    pytest.importorskip("dask")
    rt = tf.EagerRuntime(engine=tf.DaskEngine())
    with pytest.raises(tf.EngineError, match="tf.jit runs on a CpuEngine"):
        tf.jit(seed)(rt.constant_from(X))


def test_the_docs_example_trains_with_one_trace():
    scope = run_docs_example("# `tf.jit`", document="jit.md")
    assert scope["step"].cache_info() == (2, 1, 64, 1)
    assert float(scope["value"]) > 0.0


def test_several_traced_integer_indices_in_one_key_pick_as_numpy():
    cube = RNG.normal(size=(4, 5, 6))
    rows = tf.jit(lambda x, i: x[tnp.arange(4), i])
    corner = tf.jit(lambda x, i, j: x[i, :, j])
    for i, j in [(0, 1), (3, -2)]:
        same(corner(cube, np.asarray(i), np.asarray(j)), cube[i, :, j])
        labels = np.array([i, j, 0, 4])
        same(rows(cube, labels), cube[np.arange(4), labels])
    assert rows.cache_info().misses == corner.cache_info().misses == 1


def _custom_functions():
    """sin(x)·x as a custom_vjp, a custom_jvp and an autograd primitive, each with its own rule."""
    import tenferro.autograd.extend as extend
    import tenferro.autograd.numpy as anp

    @tf.custom_vjp
    def with_vjp(x):
        return tnp.sin(x) * x

    # (residuals computed by ops, not the argument: a replay's node must keep its inputs' values)
    with_vjp.defvjp(
        lambda x: (with_vjp(x), (tnp.cos(x) * x, tnp.sin(x) * 1.0)), lambda res, g: (g * (res[0] + res[1]),)
    )

    @tf.custom_jvp
    def with_jvp(x):
        return tnp.sin(x) * x

    @with_jvp.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return with_jvp(x), t * (tnp.cos(x) * x + tnp.sin(x))

    @extend.primitive
    def primitive(x):
        return anp.sin(x) * x

    extend.defvjp(primitive, lambda ans, x: lambda g: g * (anp.cos(x) * x + anp.sin(x)))
    return [with_vjp, with_jvp, primitive]


def _at_every_call(value, gradient, jitted_gradient):
    for x in (np.array([0.5, 1.0]), np.array([2.0, -1.0]), np.array([3.0, 0.1])):
        expected = 2 * np.sin(x) * x * (np.cos(x) * x + np.sin(x))
        np.testing.assert_allclose(np.asarray(value(x)), np.sum((np.sin(x) * x) ** 2), rtol=1e-14)
        np.testing.assert_allclose(np.asarray(gradient(x)), expected, rtol=1e-14)
        np.testing.assert_allclose(np.asarray(jitted_gradient(x)), expected, rtol=1e-14)


@pytest.mark.parametrize("index", [0, 1, 2], ids=["custom_vjp", "custom_jvp", "primitive"])
def test_custom_functions_and_a_primitive_are_traced_and_replay_each_calls_numbers(index):
    """Regression, a silent wrong number: a custom function's or an autograd primitive's
    call was one op whose node held its run's values, so the plan returned the first
    call's value and gradient at every later call (a custom_jvp's then ran eagerly). Under
    a trace a custom function's call is now a node whose inputs are its output and what
    its rules read (fwd's residuals, the custom_jvp's primals), recorded by their ops, so
    the plan computes them and the rules read them from it; a primitive's kernel runs its
    function on the values it is given. Traced once, no eager fallback, the eager numbers
    at every call."""
    loss = lambda x: tnp.sum(_custom_functions()[index](x) ** 2)  # noqa: E731
    value, gradient, jitted_gradient = tf.jit(loss), tf.grad(tf.jit(loss)), tf.jit(tf.grad(loss))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _at_every_call(value, gradient, jitted_gradient)
    assert value.cache_info().misses == jitted_gradient.cache_info().misses == 1
    assert "runs eagerly" not in jitted_gradient.plan_source(np.array([1.0, 2.0]))


def test_a_traced_custom_jvp_gives_its_rule_in_forward_mode_and_second_order():
    """The traced custom_jvp's rules read the primals from the node: jvp, a Hessian
    (forward over reverse through the rule transposed) and the jitted versions agree with
    the formula at every call, bitwise with the eager transforms."""
    custom = _custom_functions()[1]
    loss = lambda x: tnp.sum(custom(x) ** 2)  # noqa: E731
    push = lambda x, t: tf.jvp(custom, (x,), (t,))  # noqa: E731
    hessian = tf.hessian(loss)
    jitted_push, jitted_hessian = tf.jit(push), tf.jit(hessian)
    for x in (np.array([0.5, 1.0]), np.array([2.0, -1.0])):
        t = np.array([1.0, -2.0])
        d = np.cos(x) * x + np.sin(x)
        for out in (push(x, t), jitted_push(x, t)):
            np.testing.assert_allclose(np.asarray(out[1]), t * d, rtol=1e-14)
        expected = 2 * np.diag(d * d + np.sin(x) * x * (2 * np.cos(x) - np.sin(x) * x))
        np.testing.assert_allclose(np.asarray(hessian(x)), expected, rtol=1e-13)
        assert np.array_equal(np.asarray(jitted_hessian(x)), np.asarray(hessian(x)))
    assert jitted_push.cache_info().misses == jitted_hessian.cache_info().misses == 1


def test_a_function_calling_an_unreplayable_op_runs_eagerly_with_right_numbers_at_every_call():
    """An op whose kernel hands back what its caller computed (``OpSpec(replayable=False)``)
    cannot be replayed on other values: a function calling it runs eagerly at each call,
    said once by a UserWarning, with the numbers of each eager call (a plan would hand
    back the first call's)."""
    from conftest import plugin_of

    from tenferro.plugins import elementwise, reduce

    spec = tf.OpSpec(
        name="handed_back",
        inputs=("x",),
        forward=lambda x, value: value,
        params={"value": None},
        vjps=(lambda s, g, out, x, value: g,),
        replayable=False,
    )
    rt = tf.EagerRuntime(plugins=[elementwise, reduce, plugin_of("handed", spec)])
    given = [np.array([1.0, 2.0])]

    def f(x):
        return x.runtime.current_session().handed_back(x, value=given[0]).sum()

    with pytest.warns(UserWarning, match=r"runs the function eagerly at each call of this signature: it calls"):
        jitted = tf.jit(f)
        assert float(jitted(rt.constant_from(np.zeros(2)))) == 3.0
    given[0] = np.array([5.0, 6.0])
    assert float(jitted(rt.constant_from(np.zeros(2)))) == 11.0
    assert "runs eagerly at each call" in jitted.plan_source(rt.constant_from(np.zeros(2)))
