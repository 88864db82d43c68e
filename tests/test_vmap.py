"""``tf.vmap`` has JAX's semantics (axes over pytrees, None, negative axes, keyword
arguments, axis_size), gives bitwise the numbers of a loop over the examples, and composes
with the other transforms both ways (docs/transforms.md, "Mapping over a batch")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, AxisError, ShapeMismatch

RNG = np.random.default_rng(0)
X = RNG.normal(size=(5, 3))
Y = RNG.normal(size=5)
W = RNG.normal(size=3)


def loss(w, x, y):
    return (tnp.tanh(tnp.dot(x, w)) - y) ** 2


def same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def close(a, b):
    """A batched contraction or reduction sums in another order than one example's: a few ulp."""
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-13, atol=1e-15)


def test_per_example_gradients_equal_a_loop_of_grad():
    got = tf.vmap(tf.grad(loss), in_axes=(None, 0, 0))(W, X, Y)
    close(got, np.stack([np.asarray(tf.grad(loss)(W, X[i], Y[i])) for i in range(5)]))


def test_grad_of_a_vmapped_function_is_the_gradient_of_the_loop():
    def total(w, f):
        return tnp.sum(f(w))

    mapped = tf.grad(lambda w: total(w, lambda w: tf.vmap(loss, in_axes=(None, 0, 0))(w, X, Y)))(W)
    looped = tf.grad(lambda w: total(w, lambda w: tnp.stack([loss(w, X[i], Y[i]) for i in range(5)])))(W)
    close(mapped, looped)


def test_jacrev_and_jvp_compose_with_vmap_both_ways():
    f = lambda x: tnp.sin(x) * tnp.sum(x**2)  # noqa: E731
    close(tf.vmap(tf.jacrev(f))(X), np.stack([np.asarray(tf.jacrev(f)(x)) for x in X]))
    close(tf.jacrev(tf.vmap(f))(X)[1, :, 1, :], tf.jacrev(f)(X[1]))
    tangents = np.ones_like(X)
    _, pushed = tf.jvp(tf.vmap(f), (X,), (tangents,))
    close(pushed, tf.vmap(lambda x, t: tf.jvp(f, (x,), (t,))[1])(X, tangents))


def test_backward_through_vmap_fills_the_variables_slot():
    w = tf.variable(W)
    tnp.sum(tf.vmap(loss, in_axes=(None, 0, 0))(w, X, Y)).backward()
    close(w.grad(), tf.grad(lambda w: tnp.sum(tnp.stack([loss(w, X[i], Y[i]) for i in range(5)])))(W))


def test_pytrees_prefix_axes_negative_axes_keywords_and_out_axes():
    params = {"a": X, "b": X.T}

    def f(p, scale, *, shift):
        return {"sum": p["a"] * scale + shift, "t": p["b"]}

    out = tf.vmap(f, in_axes=({"a": 0, "b": -1}, None), out_axes={"sum": 1, "t": 0})(params, 2.0, shift=Y)
    assert out["sum"].shape == (3, 5) and out["t"].shape == (5, 3)
    same(out["sum"], (X * 2.0 + Y[:, None]).T)
    same(out["t"], X)


def test_nested_vmap_maps_two_axes():
    grid = RNG.normal(size=(4, 5, 3))
    close(tf.vmap(tf.vmap(lambda v: tnp.sum(v * W)))(grid), np.sum(grid * W, axis=-1))


def test_unmapped_arguments_axis_size_and_unmapped_outputs():
    out = tf.vmap(lambda w: w * 2.0, in_axes=None, axis_size=3)(W)
    same(out, np.stack([W * 2.0] * 3))
    same(tf.vmap(lambda x, w: w, in_axes=(0, None), out_axes=None)(X, W), W)


@pytest.mark.parametrize("size", [0, 1])
def test_size_zero_and_size_one_batches(size):
    batch = X[:size]
    out = tf.vmap(lambda x: tnp.sum(x**2) * x, in_axes=0)(batch)
    assert out.shape == (size, 3)
    close(out, np.sum(batch**2, axis=1, keepdims=True) * batch)
    g = tf.vmap(tf.grad(loss), in_axes=(None, 0, 0))(W, batch, Y[:size])
    assert g.shape == (size, 3)


@given(
    hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=3, max_side=4), elements=st.floats(-3, 3)),
    st.integers(-2, 1),
)
def test_any_axis_equals_the_loop_over_it(batch, axis):
    f = lambda x: tnp.cumsum(tnp.exp(x) * x, axis=-1)  # noqa: E731
    moved = np.moveaxis(batch, axis, 0)
    close(tf.vmap(f, in_axes=axis)(batch), np.stack([np.asarray(f(x)) for x in moved]) if len(moved) else f(moved))


def test_errors_name_what_is_wrong():
    with pytest.raises(ShapeMismatch, match=r"vmap: the mapped axes differ in size .* size 5 on axis 0.* size 4"):
        tf.vmap(lambda x, y: x * y)(X, X[:4])
    with pytest.raises(ShapeMismatch, match="axis_size is 2"):
        tf.vmap(lambda x: x, axis_size=2)(X)
    with pytest.raises(ArgumentError, match="nothing is mapped"):
        tf.vmap(lambda x: x, in_axes=None)(X)
    with pytest.raises(ArgumentError, match="in_axes has 1 entries, but the function was called with 2"):
        tf.vmap(lambda x, y: x, in_axes=(0,))(X, X)
    with pytest.raises(ArgumentError, match=r"in_axes of argument 0 \(\{'a': 0\}\) is not a prefix"):
        tf.vmap(lambda p: p["a"], in_axes=({"a": 0},))({"a": X, "b": X})
    with pytest.raises(AxisError, match="has 2 axes, so it cannot be mapped over axis 2"):
        tf.vmap(lambda x: x, in_axes=2)(X)
    with pytest.raises(ArgumentError, match="in_axes must hold ints or None, got 'x'"):
        tf.vmap(lambda x: x, in_axes="x")
    with pytest.raises(ArgumentError, match="out_axes None, but it differs between examples"):
        tf.vmap(lambda x: x, out_axes=None)(X)
    with pytest.raises(ArgumentError, match="must be callable"):
        tf.vmap(3)


def counted(fun):
    calls = []

    def run(*args, **kwargs):
        calls.append(1)
        return fun(*args, **kwargs)

    return run, calls


BIG = RNG.normal(size=(40, 3))


def test_a_batch_is_traced_twice_and_replayed_once_bitwise_for_elementwise_programs():
    f, calls = counted(lambda x: tnp.sin(x) * tnp.exp(-(x**2)) + 2.0 * x)
    out = tf.vmap(f)(BIG)
    assert len(calls) == 2  # two traces (examples 0 and 1), not 40 calls
    same(out, np.stack([np.asarray(tnp.sin(x) * tnp.exp(-(x**2)) + 2.0 * x) for x in BIG]))


def test_per_example_gradients_of_a_relu_layer_batch_and_equal_the_loop():
    weights = RNG.normal(size=(3, 4))

    def layer_loss(w, x, y):
        return tnp.sum((tf.nn.relu(x @ w) - y) ** 2)

    ys = RNG.normal(size=(40, 4))
    grad, calls = counted(tf.grad(layer_loss))
    got = tf.vmap(grad, in_axes=(None, 0, 0))(weights, BIG, ys)
    assert len(calls) == 2
    close(got, np.stack([np.asarray(tf.grad(layer_loss)(weights, BIG[i], ys[i])) for i in range(40)]))


@pytest.mark.parametrize(
    "f, reason",
    [
        (lambda x: x * 2.0 if float(tnp.sum(x)) > 0 else x, "reads a value computed from the mapped arguments"),
        (lambda x: x * np.random.default_rng().normal(), "its trace differs between examples"),
    ],
    ids=["python_control_flow", "a_random_draw"],
)
def test_a_function_that_depends_on_the_example_outside_ops_runs_per_example(f, reason):
    counted_f, calls = counted(f)
    with pytest.warns(UserWarning, match=reason):
        out = tf.vmap(counted_f)(BIG)
    assert out.shape == BIG.shape and len(calls) >= 40


LABELS = np.arange(40) % 3


def test_mapped_integer_labels_batch_without_a_loop():
    counted_f, calls = counted(lambda x, k: x[k] * 2.0)
    out = tf.vmap(counted_f)(BIG, LABELS)
    same(out, BIG[np.arange(40), LABELS] * 2.0)
    assert len(calls) == 2  # the two traces, then one replay: no call per example


@pytest.mark.parametrize(
    "picked",
    [
        lambda logp, label: logp[label],
        lambda logp, label: tnp.take_along_axis(logp, label[None], axis=0)[0],
        lambda logp, label: tnp.sum(tf.nn.one_hot(label, 4) * logp),
        lambda logp, label: tnp.sum(tnp.eye(4)[label] * logp),
        lambda logp, label: tnp.sum(tnp.where(label == tnp.arange(4), logp, 0.0)),
    ],
    ids=["index", "take_along_axis", "one_hot", "eye_rows", "comparison"],
)
def test_per_example_gradients_with_integer_labels_equal_a_loop(picked):
    w, x, labels = RNG.normal(size=(3, 4)), RNG.normal(size=(6, 3)), np.array([0, 3, 1, 2, 3, 0])

    def nll(w, x, label):
        return -picked(tf.nn.log_softmax(tnp.dot(x, w)), label)

    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.BatchingFallback)
        got = tf.vmap(tf.grad(nll), in_axes=(None, 0, 0))(w, x, labels)
    close(got, np.stack([np.asarray(tf.grad(nll)(w, x[i], labels[i])) for i in range(6)]))  # a batched dot


@pytest.mark.parametrize(
    "index", [lambda x, i: x[i], lambda x, i: x[:, i], lambda x, i: x[..., i], lambda x, i: x[i, ...]]
)
def test_a_batch_of_indices_into_a_batch_picks_per_example_and_differentiates(index):
    x = RNG.normal(size=(5, 3, 3))
    indices = RNG.integers(-3, 3, size=(5, 2, 4))  # negative ones count from the end, as in NumPy

    def picked(x, i):
        return tnp.sum(tnp.sin(index(x, i)) ** 2)

    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.BatchingFallback)
        values = tf.vmap(lambda x, i: index(x, i))(x, indices)
        grads = tf.vmap(tf.grad(picked))(x, indices)
        outer = tf.grad(lambda x: tnp.sum(tf.vmap(picked)(x, indices)))(x)
    same(values, np.stack([index(x[k], indices[k]) for k in range(5)]))
    loop = np.stack([np.asarray(tf.grad(picked)(x[k], indices[k])) for k in range(5)])
    same(grads, loop)
    same(outer, loop)


SQUARE = RNG.normal(size=(6, 4, 4))
SPD = SQUARE @ SQUARE.transpose(0, 2, 1) + 4 * np.eye(4)


SEVERAL_RESULTS = {
    "eigh": lambda a: tnp.sum(tnp.linalg.eigh(a)[0] ** 2),
    "slogdet": lambda a: tnp.linalg.slogdet(a)[1],
    "qr": lambda a: tnp.sum(tnp.linalg.qr(a)[1] ** 2),
    "svd": lambda a: tnp.sum(tnp.linalg.svd(a, full_matrices=False)[1]),
    "split": lambda a: tnp.sum(tnp.split(a, 2, axis=1)[1] * 2.0),
    "unstack": lambda a: tnp.sum(tnp.unstack(a, axis=-1)[2]),
}


@pytest.mark.parametrize("name", SEVERAL_RESULTS)
def test_ops_with_several_results_batch_as_one_call_bitwise(name):
    f = SEVERAL_RESULTS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.BatchingFallback)
        values = tf.vmap(f)(SPD)
    same(values, np.stack([np.asarray(f(a)) for a in SPD]))  # LAPACK runs on each matrix of a stack


@pytest.mark.parametrize("name", ["split", "unstack", "slogdet", "qr"])
def test_gradients_through_ops_with_several_results_batch(name):
    f = SEVERAL_RESULTS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.BatchingFallback)
        grads = tf.vmap(tf.grad(f))(SPD)
    same(grads, np.stack([np.asarray(tf.grad(f)(a)) for a in SPD]))


@pytest.mark.parametrize("name", ["eigh", "svd"])
def test_a_derivative_rule_reading_values_runs_per_example(name):
    # eigh's VJP looks for clustered eigenvalues, svd's for zero singular values and for
    # which cotangents are zero, to choose its formula: a read per example
    f = SEVERAL_RESULTS[name]
    with pytest.warns(UserWarning, match="reads a value computed from the mapped arguments"):
        grads = tf.vmap(tf.grad(f))(SPD)
    same(grads, np.stack([np.asarray(tf.grad(f)(a)) for a in SPD]))


def test_basic_slices_batch_and_differentiate_bitwise():
    def f(x):
        return tnp.sum(x[1:, None] * x[0] + x[..., -1:][::2])

    batch = RNG.normal(size=(6, 4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.BatchingFallback)
        values, grads = tf.vmap(f)(batch), tf.vmap(tf.grad(f))(batch)
    same(values, np.stack([np.asarray(f(x)) for x in batch]))
    same(grads, np.stack([np.asarray(tf.grad(f)(x)) for x in batch]))


def test_a_rules_refusal_by_values_holds_for_every_example_of_the_batch():
    """slogdet's VJP refuses a singular matrix (check_values): the replay checks the whole
    batch, and names the example, where the traces saw examples 0 and 1 only."""
    batch = SPD.copy()
    batch[4] = np.diag([1.0, 0.0, 1.0, 1.0])
    with pytest.raises(tf.NotDifferentiable, match="slogdet: a at batch index 4 is singular"):
        tf.vmap(tf.grad(lambda a: tnp.linalg.slogdet(a)[1]))(batch)


@pytest.mark.parametrize("x_axis", [None, 0], ids=["shared_x", "mapped_x"])
@pytest.mark.parametrize(
    "update",
    [
        lambda x, i: tnp.asarray(x).at[i].set(1.0),
        lambda x, i: tnp.asarray(x).at[:, i[:2]].add(10.0),
        lambda x, i: tnp.asarray(x).at[i, i[::-1] % 3].multiply(3.0),
        lambda x, i: tnp.zeros(3).at[i].max(x[:, 0]),
    ],
    ids=["set", "columns", "two_arrays", "max"],
)
def test_functional_updates_at_mapped_indices_batch_as_one_scatter(update, x_axis):
    x = RNG.normal(size=(5, 3))
    xs = x if x_axis is None else np.stack([x, 2 * x, x + 1, -x])
    indices = np.array([[0, 2, 1, 1, 0], [2, 2, 0, 1, 1], [1, 0, 0, 2, 2], [0, 1, 2, 0, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.BatchingFallback)
        out = tf.vmap(update, in_axes=(x_axis, 0))(xs, indices)
    same(out, np.stack([np.asarray(update(xs if x_axis is None else xs[k], indices[k])) for k in range(4)]))


def test_one_hot_of_mapped_labels_batches_without_a_loop():
    counted_f, calls = counted(lambda x, k: tnp.sum(tf.nn.one_hot(k, 3) * x))
    out = tf.vmap(counted_f)(BIG, LABELS)
    same(out, BIG[np.arange(40), LABELS])
    assert len(calls) == 2  # (it called an op that does not exist, and ran per example silently)


def test_a_trace_that_alone_raises_says_so_when_the_loop_runs():
    def only_traced(x):
        if type(x) is tf.EagerTensor and x.tracks_grad():
            raise RuntimeError("the trace's own failure")
        return x * 2.0

    with pytest.warns(tf.BatchingFallback, match=r"it raised RuntimeError \(the trace's own failure\) on one exam"):
        out = tf.vmap(only_traced)(BIG)
    same(out, BIG * 2.0)


def test_two_functions_of_one_name_each_say_they_run_per_example():
    def reads(x):
        return x * float(tnp.sum(x))

    first, second = reads, (lambda x: x * float(tnp.sum(x)))
    second.__name__ = "reads"
    for f in (first, second):
        with pytest.warns(tf.BatchingFallback, match=r"tf.vmap\(reads\) runs it once per example"):
            tf.vmap(f)(BIG)


def test_an_integer_label_read_into_python_runs_per_example():
    with pytest.warns(UserWarning, match="reads a value computed from the mapped arguments"):
        out = tf.vmap(lambda x, k: x[int(k)])(BIG, LABELS)
    same(out, BIG[np.arange(40), LABELS])


def test_an_op_without_a_batching_rule_runs_per_example_with_a_warning():
    with pytest.warns(UserWarning, match="has no batching rule .* runs once per example"):
        out = tf.vmap(lambda x: tnp.cumulative_prod(x))(BIG)
    close(out, np.cumprod(BIG, axis=1))


def test_outputs_that_are_constants_outer_tensors_or_arguments_are_broadcast_or_passed():
    w = tf.variable(W)
    ones = tnp.ones(3)
    out = tf.vmap(lambda x: (x, w, ones, x * w), out_axes=(0, None, 0, 0))(BIG)
    same(out[0], BIG)
    assert out[1] is w
    same(out[2], np.ones((40, 3)))
    same(out[3], BIG * W)


def test_a_checkpoint_inside_a_mapped_jvp_batches_its_tangents():
    """A checkpoint is an op with several results (a call node, of no dtype of its own): while
    tracing, only integer results stop a tangent; this one had been stopped, giving zeros."""
    params = {"w": RNG.normal(size=(4, 4)) / 2, "b": RNG.normal(size=4)}
    x = RNG.normal(size=(3, 4))
    block = tf.checkpoint(lambda h, p: tnp.tanh(h @ p["w"] + p["b"]))
    basis = np.eye(12).reshape(12, 3, 4)
    pushed = tf.vmap(lambda t: tf.jvp(lambda h: block(h, params), (x,), (t,))[1])(basis)
    close(pushed, np.stack([np.asarray(tf.jvp(lambda h: block(h, params), (x,), (t,))[1]) for t in basis]))


@pytest.mark.parametrize("chunk_size", [None, 1, 2, 7])
def test_jacobians_map_over_their_basis_in_chunks_with_the_same_numbers(chunk_size):
    x = RNG.normal(size=10)
    f = lambda v: tnp.sum(tnp.sin(v) * v * v)  # noqa: E731
    expected = np.diag(-(x**2) * np.sin(x) + 4 * x * np.cos(x) + 2 * np.sin(x))
    close(tf.hessian(f, chunk_size=chunk_size)(x), expected)
    close(tf.jacrev(lambda v: tnp.sin(v) * v, chunk_size=chunk_size)(x), np.diag(np.cos(x) * x + np.sin(x)))
    close(tf.jacfwd(lambda v: tnp.sin(v) * v, chunk_size=chunk_size)(x), np.diag(np.cos(x) * x + np.sin(x)))


def test_a_jacobian_traces_its_sweep_over_the_basis_once():
    """jacrev, jacfwd and hessian map a sweep or push of the recorded function over basis
    vectors, whose program a first trace fixes (a rule choosing by values reads them, which
    the trace sees): one trace, not two (the Hessians of bench/transforms.py 20 % faster).
    The rule of a custom_vjp counts its runs: one in the trace, none in the replay."""
    runs = []

    @tf.custom_vjp
    def cube(v):
        return v * v * v

    def cube_fwd(v):
        return cube(v), v

    def cube_bwd(v, g):
        runs.append(1)
        return (3.0 * v * v * g,)

    cube.defvjp(cube_fwd, cube_bwd)
    x = RNG.normal(size=6)
    close(tf.jacrev(cube)(x), np.diag(3 * x**2))
    assert len(runs) == 1  # in the trace; the replay runs the ops it recorded
    runs.clear()
    close(tf.vmap(lambda g: tf.vjp(cube, x)[1](g)[0])(np.eye(6)), np.diag(3 * x**2))
    assert len(runs) == 2  # a user's vmap still traces two examples


@pytest.mark.parametrize("rhs_shape", [(7, 5), (7, 5, 3)])
@pytest.mark.parametrize("lower, trans, unit", [(True, 0, False), (False, 1, True), (True, "T", False)])
def test_a_batch_of_right_hand_sides_is_solved_against_one_matrix_in_one_call(rhs_shape, lower, trans, unit):
    """vmap of a triangular solve with an unmapped matrix (a Jacobian's basis through a
    Cholesky factor, per-example solves against one covariance): the batch becomes the
    columns of one right-hand side, one factorisation in one call, not the matrix broadcast
    and solved once per example; the numbers are the loop's, to rounding, and derivatives
    flow."""
    import tenferro.scipy.linalg as tsl

    a = np.tril(RNG.normal(size=(5, 5))) + 5 * np.eye(5)
    a = a if lower else a.T
    rhs = RNG.normal(size=rhs_shape)
    solve = lambda v: tsl.solve_triangular(a, v, lower=lower, trans=trans, unit_diagonal=unit)  # noqa: E731
    b = tf.variable(rhs)
    out = tf.vmap(solve)(b)
    close(out, np.stack([np.asarray(solve(v)) for v in rhs]))
    listing = str(out.trace())
    assert listing.count("triangular_solve") == 1 and "f64[5,5]" in listing and "f64[7,5,5]" not in listing
    per_example = np.stack([np.asarray(tf.grad(lambda v: tnp.sum(solve(v) ** 2))(r)) for r in rhs])
    close(tf.grad(lambda v: tnp.sum(tf.vmap(solve)(v) ** 2))(rhs), per_example)


@pytest.mark.parametrize("a_shape", [(2, 4), (4, 2)], ids=["wide", "tall"])
def test_lstsq_of_one_matrix_that_is_not_square_solves_a_batch_of_right_hand_sides(a_shape):
    """The batch as the columns of one right-hand side: the solution has a's columns as its
    rows, not b's (a square solve's rule assumed them equal and failed to reshape)."""
    a = tf.constant(RNG.normal(size=a_shape))
    rhs = RNG.normal(size=(3, a_shape[0], 2))
    solve = lambda v: v.runtime.current_session().lstsq(a, v)  # noqa: E731  # (a session op; tnp.linalg has none)
    out = tf.vmap(solve)(rhs)
    assert out.shape == (3, a_shape[1], 2)
    close(out, np.stack([np.linalg.lstsq(np.asarray(a), v, rcond=None)[0] for v in rhs]))


def test_a_chunk_size_that_is_no_positive_int_is_refused():
    with pytest.raises(ArgumentError, match="jacfwd: chunk_size must be a positive int or None, got 0"):
        tf.jacfwd(tnp.sin, chunk_size=0)
    with pytest.raises(ArgumentError, match="hessian: chunk_size must be a positive int or None"):
        tf.hessian(tnp.sin, chunk_size=1.5)


def test_hessian_vector_products_over_many_vectors_batch():
    x, vectors = RNG.normal(size=6), RNG.normal(size=(5, 6))
    f = lambda v: tnp.sum(tnp.sin(v) * v * v) + tnp.sum(tnp.tanh(v)) ** 2  # noqa: E731
    products, calls = counted(lambda t: tf.hvp(f, (x,), (t,)))
    got = tf.vmap(products)(vectors)
    assert len(calls) == 2
    close(got, vectors @ np.asarray(tf.hessian(f)(x)).T)


def _custom_softplus():
    """softplus as a custom_vjp and a custom_jvp, each bwd or rule written for one example
    (``tnp.dot`` of two vectors: a batch would make it a matrix product)."""

    @tf.custom_vjp
    def with_vjp(x, w):
        return tnp.logaddexp(tnp.dot(x, w), 0.0)

    with_vjp.defvjp(
        lambda x, w: (with_vjp(x, w), (x, w, tf.nn.sigmoid(tnp.dot(x, w)))),
        lambda res, g: (g * res[2] * res[1], g * res[2] * res[0]),
    )

    @tf.custom_jvp
    def with_jvp(x, w):
        return tnp.logaddexp(tnp.dot(x, w), 0.0)

    @with_jvp.defjvp
    def _(primals, tangents):
        (x, w), (tx, tw) = primals, tangents
        return with_jvp(x, w), tf.nn.sigmoid(tnp.dot(x, w)) * (tnp.dot(tx, w) + tnp.dot(x, tw))

    return [with_vjp, with_jvp]


@pytest.mark.parametrize("index", [0, 1], ids=["custom_vjp", "custom_jvp"])
def test_vmap_batches_a_custom_function_and_its_per_example_gradients(index):
    """Regression (speed): each trace held its own record of a custom function's call, so
    the two traces differed and tf.vmap ran the whole function once per example (4-40 x
    slower). Traced calls now compare by what they hold; the batch runs as one program, its
    numbers a loop's (to a few ulp: a batched dot sums in its own order), and a derivative
    taken through the batched call (grad of vmap) runs the user's rule per example, as it
    is written."""
    custom = _custom_softplus()[index]
    xs, w, ys = RNG.standard_normal((6, 3)), RNG.standard_normal(3), RNG.standard_normal(6)
    per_loss = lambda w, x, y: (custom(x, w) - y) ** 2  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.BatchingFallback)
        batched = tf.vmap(tf.grad(per_loss), in_axes=(None, 0, 0))(w, xs, ys)
        values = tf.vmap(custom, in_axes=(0, None))(xs, w)
        through = tf.grad(lambda w: tnp.sum(tf.vmap(per_loss, in_axes=(None, 0, 0))(w, xs, ys)))(w)
    close(batched, np.stack([np.asarray(tf.grad(per_loss)(w, x, y)) for x, y in zip(xs, ys)]))
    close(values, np.stack([np.asarray(custom(x, w)) for x in xs]))
    expected = 2 * ((np.logaddexp(xs @ w, 0.0) - ys) / (1 + np.exp(-(xs @ w)))) @ xs
    np.testing.assert_allclose(np.asarray(through), expected, rtol=1e-13)
