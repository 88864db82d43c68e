"""tf.optimizers: the functional forms give torch.optim's numbers (to 1e-12 over 200 steps),
the driver forms HIPS autograd's (bitwise), over pytrees; a step records nothing, copies
no input and refuses bad input by name. The comparisons skip without torch or autograd."""

import pathlib
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, DTypeError, ShapeMismatch

RNG = np.random.default_rng(0)
#: The small problem: a pytree of parameters, f(p) = Σ ½(p - c)² + 0.1·cos(3p) per leaf.
P0 = {"W": RNG.normal(size=(3, 4)), "b": RNG.normal(size=4), "s": 0.7}
C = {"W": RNG.normal(size=(3, 4)), "b": RNG.normal(size=4), "s": -0.2}
STEPS = 200


def gradient(p, c):
    """f's gradient in NumPy, the same for every library, so that only the optimizers differ."""
    return np.asarray((p - c) - 0.3 * np.sin(3 * p))


def grad_of_tree(x, i=None):
    return {k: gradient(np.asarray(x[k]), C[k]) for k in x}


def run(opt, params=P0, steps=STEPS):
    state = opt.init(params)
    for _ in range(steps):
        updates, state = opt.update(grad_of_tree(params), state, params)
        params = tf.optimizers.apply_updates(params, updates)
    return params


def run_torch(torch, make, steps=STEPS):
    leaves = {k: torch.tensor(np.asarray(v, float), requires_grad=True) for k, v in P0.items()}
    opt = make([leaves[k] for k in sorted(leaves)])
    for _ in range(steps):
        for k, leaf in leaves.items():
            leaf.grad = torch.from_numpy(gradient(leaf.detach().numpy(), C[k]))
        opt.step()
    return {k: v.detach().numpy() for k, v in leaves.items()}


def max_diff(a, b):
    return max(float(np.max(np.abs(np.asarray(a[k]) - np.asarray(b[k])))) for k in a)


#: (ours, torch.optim's) for the same hyper-parameters.
TORCH_CASES = {
    "sgd": (lambda: tf.optimizers.sgd(0.05), lambda o, ps: o.SGD(ps, lr=0.05)),
    "sgd-momentum": (lambda: tf.optimizers.sgd(0.05, momentum=0.9), lambda o, ps: o.SGD(ps, lr=0.05, momentum=0.9)),
    "sgd-nesterov": (
        lambda: tf.optimizers.sgd(0.05, momentum=0.9, nesterov=True),
        lambda o, ps: o.SGD(ps, lr=0.05, momentum=0.9, nesterov=True),
    ),
    "rmsprop": (lambda: tf.optimizers.rmsprop(0.01, gamma=0.9), lambda o, ps: o.RMSprop(ps, lr=0.01, alpha=0.9)),
    "adam": (lambda: tf.optimizers.adam(0.05, b2=0.99), lambda o, ps: o.Adam(ps, lr=0.05, betas=(0.9, 0.99))),
    "adamw": (
        lambda: tf.optimizers.adamw(0.05, weight_decay=0.1),
        lambda o, ps: o.AdamW(ps, lr=0.05, weight_decay=0.1),
    ),
}


@pytest.mark.parametrize("case", TORCH_CASES)
def test_the_functional_forms_give_torch_optims_numbers_over_200_steps(case):
    torch = pytest.importorskip("torch")
    ours, theirs = TORCH_CASES[case]
    torch.set_default_dtype(torch.float64)
    result, expected = run(ours()), run_torch(torch, lambda ps: theirs(torch.optim, ps))
    assert max_diff(result, expected) <= 1e-12
    assert max_diff(result, P0) > 0.1  # they moved


@given(
    step_size=st.floats(1e-3, 0.2),
    b1=st.floats(0.0, 0.99),
    b2=st.floats(0.5, 0.9999),
    eps=st.floats(1e-10, 1e-2),
    weight_decay=st.floats(0.0, 0.5),
    momentum=st.floats(0.0, 0.99),
)
@settings(deadline=None)
def test_every_hyper_parameter_means_what_torchs_does(step_size, b1, b2, eps, weight_decay, momentum):
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    o = torch.optim
    pairs = [
        (tf.optimizers.sgd(step_size, momentum=momentum), lambda ps: o.SGD(ps, lr=step_size, momentum=momentum)),
        (tf.optimizers.rmsprop(step_size, b2, eps), lambda ps: o.RMSprop(ps, lr=step_size, alpha=b2, eps=eps)),
        (tf.optimizers.adam(step_size, b1, b2, eps), lambda ps: o.Adam(ps, lr=step_size, betas=(b1, b2), eps=eps)),
        (
            tf.optimizers.adamw(step_size, b1, b2, eps, weight_decay),
            lambda ps: o.AdamW(ps, lr=step_size, betas=(b1, b2), eps=eps, weight_decay=weight_decay),
        ),
    ]
    # a few steps: with a large step and little momentum the trajectory is chaotic, and any
    # two roundings of it part (1e-16 to 1e-1 in 200 steps), whoever computes them
    for ours, theirs in pairs:
        assert max_diff(run(ours, steps=5), run_torch(torch, theirs, steps=5)) <= 1e-14


DRIVERS = {
    "sgd": {"step_size": 0.05, "mass": 0.9},
    "rmsprop": {"step_size": 0.01, "gamma": 0.9},
    "adam": {"step_size": 0.05},
}


@pytest.mark.parametrize("name", DRIVERS)
def test_the_driver_forms_give_hips_autograds_numbers_bitwise(name):
    optimizers = pytest.importorskip("autograd.misc.optimizers")
    seen = []
    result = getattr(tf.optimizers.drivers, name)(
        grad_of_tree, P0, lambda x, i, g: seen.append(i), num_iters=STEPS, **DRIVERS[name]
    )
    expected = getattr(optimizers, name)(grad_of_tree, P0, num_iters=STEPS, **DRIVERS[name])
    assert max_diff(result, expected) == 0.0
    assert seen == list(range(STEPS))
    # the defaults too (autograd's: sgd 200 steps of 0.1 with mass 0.9, ...)
    assert (
        max_diff(getattr(tf.optimizers.drivers, name)(grad_of_tree, P0), getattr(optimizers, name)(grad_of_tree, P0))
        == 0
    )


def test_a_hips_autograd_program_optimizes_to_its_numbers_with_tenferros_gradients():
    """The driver with tf.grad in place of autograd.grad: a logistic regression on a dict of
    parameters, as autograd's examples write it."""
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    optimizers = pytest.importorskip("autograd.misc.optimizers")
    x, y = RNG.normal(size=(20, 3)), (RNG.random(20) > 0.5).astype(float)

    def loss(p, lib):
        z = lib.dot(x, p["w"]) + p["b"]
        return lib.sum(lib.log1p(lib.exp(-z)) + (1 - y) * z)

    ours = tf.optimizers.drivers.adam(
        lambda p, i: tf.grad(loss)(p, tnp), {"w": np.zeros(3), "b": 0.0}, step_size=0.1, num_iters=100
    )
    theirs = optimizers.adam(
        lambda p, i: autograd.grad(loss)(p, anp), {"w": np.zeros(3), "b": 0.0}, step_size=0.1, num_iters=100
    )
    assert max_diff(ours, theirs) <= 1e-12


def test_the_callback_sees_the_parameters_and_the_gradient_of_each_iteration():
    calls = []
    tf.optimizers.drivers.sgd(
        lambda x, i: {"a": np.full(2, float(i))},
        {"a": np.zeros(2)},
        lambda x, i, g: calls.append((np.asarray(x["a"]).tolist(), i, np.asarray(g["a"]).tolist())),
        num_iters=3,
        step_size=1.0,
        mass=0.5,
    )
    # v = 0.5 v - 0.5 g; x = x + v: v1 = 0, v2 = -0.5, v3 = -1.25
    assert calls == [([0.0, 0.0], 0, [0.0, 0.0]), ([0.0, 0.0], 1, [1.0, 1.0]), ([-0.5, -0.5], 2, [2.0, 2.0])]


def test_the_formulas_in_small_numbers():
    """One step of each, by hand: the signs and the bias corrections."""
    g, p = np.array([2.0]), np.array([1.0])

    def first(opt):
        updates, state = opt.update(g, opt.init(p), p)
        return float(updates[0]), state

    assert first(tf.optimizers.sgd(0.1))[0] == -0.2
    u, state = first(tf.optimizers.sgd(0.1, momentum=0.5, nesterov=True))  # buf = g; u = -0.1 (g + 0.5 g)
    assert u == pytest.approx(-0.3) and float(state.moments[0][0]) == 2.0
    assert first(tf.optimizers.rmsprop(0.1, gamma=0.75, eps=0.0))[0] == pytest.approx(-0.2)  # -0.1·2/√(0.25·4)
    assert first(tf.optimizers.adam(0.1, eps=0.0))[0] == pytest.approx(-0.1)  # m̂/√v̂ = g/|g|
    assert first(tf.optimizers.adamw(0.1, eps=0.0, weight_decay=0.5))[0] == pytest.approx(-0.1 - 0.05)
    assert first(tf.optimizers.rmsprop(0.1, gamma=0.75, eps=0.0, initial_scale=1.0))[0] == pytest.approx(
        -0.2 / 2**0.5 * 2**0.5 / (1.75**0.5)
    )


def test_a_step_records_nothing_and_returns_constants_even_of_variables():
    params = {"w": tf.variable(np.ones(3)), "b": 1.5}
    opt = tf.optimizers.adam(0.1)
    updates, state = opt.update({"w": np.ones(3), "b": 1.0}, opt.init(params), params)
    new = tf.optimizers.apply_updates(params, updates)
    leaves = [*tf.tree_map(lambda x: x, new).values(), *updates.values(), *state.moments[0].values()]
    assert all(isinstance(x, tf.EagerTensor) and not x.tracks_grad() for x in leaves)
    assert new["b"].shape == () and new["b"].dtype == np.float64
    assert state.count == 1


def test_a_step_keeps_float32_and_neither_copies_nor_freezes_its_inputs():
    w = np.ones(3, np.float32)
    opt = tf.optimizers.sgd(0.5, momentum=0.9)
    updates, state = opt.update(w, opt.init(w), w)
    assert updates.dtype == np.float32 and state.moments[0].dtype == np.float32
    assert w.flags.writeable  # the caller's array is read, not sealed
    x = tf.constant(np.arange(3.0))
    (same,) = tf.optimizers.drivers.adam(lambda x, i: x, [x], num_iters=0)
    assert np.shares_memory(np.asarray(same), np.asarray(x))  # an unchanged tenferro array is not copied
    (copied,) = tf.optimizers.drivers.adam(lambda x, i: x, [w], num_iters=0)
    assert not np.shares_memory(np.asarray(copied), w)  # a NumPy array is: its owner may write into it


def test_the_state_is_a_pytree_of_arrays():
    opt = tf.optimizers.adam()
    state = opt.init({"a": np.ones(2)})
    doubled = tf.tree_map(lambda x: x * 2, state)
    assert isinstance(doubled, tf.optimizers.State) and len(tf.tree_map(lambda x: x, state.moments)) == 2


@pytest.mark.parametrize(
    ("make", "argument"),
    [
        (lambda: tf.optimizers.adam(step_size=-1e-3), "step_size"),
        (lambda: tf.optimizers.adam(b1=1.0), "b1"),
        (lambda: tf.optimizers.adam(b2="0.9"), "b2"),
        (lambda: tf.optimizers.adam(eps=float("nan")), "eps"),
        (lambda: tf.optimizers.adamw(weight_decay=-0.1), "weight_decay"),
        (lambda: tf.optimizers.sgd(momentum=True), "momentum"),
        (lambda: tf.optimizers.sgd(nesterov=True), "nesterov"),
        (lambda: tf.optimizers.sgd(nesterov=1), "nesterov"),
        (lambda: tf.optimizers.rmsprop(gamma=1.5), "gamma"),
        (lambda: tf.optimizers.rmsprop(step_size=float("inf")), "step_size"),
        (lambda: tf.optimizers.drivers.sgd(lambda x, i: x, np.ones(2), mass=2.0), "mass"),
        (lambda: tf.optimizers.drivers.adam(None, np.ones(2)), "grad"),
        (lambda: tf.optimizers.drivers.adam(lambda x, i: x, np.ones(2), callback=3), "callback"),
        (lambda: tf.optimizers.drivers.rmsprop(lambda x, i: x, np.ones(2), num_iters=-1), "num_iters"),
        (lambda: tf.optimizers.drivers.rmsprop(lambda x, i: x, np.ones(2), num_iters=2.5), "num_iters"),
    ],
)
def test_a_bad_hyper_parameter_is_an_argument_error_naming_the_function_and_the_argument(make, argument):
    with pytest.raises(ArgumentError, match=rf"^tf\.optimizers\.[\w.]+: {argument}\b") as caught:
        make()
    assert caught.value.argument == argument


@given(st.floats(max_value=-1e-300) | st.just(float("-inf")))
def test_every_negative_step_size_is_refused(step_size):
    for make in (tf.optimizers.sgd, tf.optimizers.rmsprop, tf.optimizers.adam, tf.optimizers.adamw):
        with pytest.raises(ArgumentError, match="step_size must be >= 0"):
            make(step_size)


def test_mismatched_grads_are_refused_by_structure_shape_and_dtype():
    opt = tf.optimizers.adam()
    params = {"a": np.ones(2), "b": [np.ones(3)]}
    state = opt.init(params)
    with pytest.raises(ShapeMismatch, match=r"tf\.optimizers\.adam\.update: grads has the structure") as caught:
        opt.update({"a": np.ones(2)}, state, params)
    assert caught.value.argument == "grads"
    with pytest.raises(ShapeMismatch, match=r"grads at \['b'\]\[0\] is f64\[4\], but its state leaf is f64\[3\]"):
        opt.update({"a": np.ones(2), "b": [np.ones(4)]}, state)
    with pytest.raises(DTypeError, match=r"grads at \['a'\] is f32\[2\], but its params leaf is f64\[2\]"):
        opt.update({"a": np.ones(2, np.float32), "b": [np.ones(3)]}, state, params)
    with pytest.raises(ArgumentError, match="state must be the State"):
        opt.update(params, {"count": 0}, params)
    with pytest.raises(ArgumentError, match=r"sgd\.update: state must be the State that tf\.optimizers\.sgd\.init"):
        tf.optimizers.sgd(momentum=0.9).update(params, state)  # Adam's state, two moments
    with pytest.raises(ArgumentError, match="adamw.update: params are needed"):
        tf.optimizers.adamw().update(params, tf.optimizers.adamw().init(params))
    with pytest.raises(ShapeMismatch, match=r"drivers\.adam: grads has the structure"):
        tf.optimizers.drivers.adam(lambda x, i: [x], params, num_iters=1)
    with pytest.raises(ShapeMismatch, match="apply_updates: updates has the structure"):
        tf.optimizers.apply_updates(params, [1.0])


@pytest.mark.parametrize(
    ("params", "error", "fragment"),
    [
        ({"a": "x"}, ArgumentError, r"init: params at \['a'\] is a str, not an array of numbers; parameters"),
        ([np.arange(3)], DTypeError, r"init: params at \[0\] has dtype int64"),
        ([1j], DTypeError, r"init: params at \[0\] has dtype complex128"),
        ([object()], ArgumentError, r"init: params at \[0\] is an object"),
    ],
)
def test_a_parameter_that_is_not_a_float_array_is_refused_by_its_path(params, error, fragment):
    with pytest.raises(error, match=rf"tf\.optimizers\.sgd\.{fragment}"):
        tf.optimizers.sgd().init(params)


def test_a_step_inside_a_transform_refuses_the_values_it_differentiates():
    """Meta-optimisation would silently lose the derivative through the step's NumPy
    arithmetic: refused, as np.asarray of such a value is."""
    opt = tf.optimizers.sgd(0.1)
    with pytest.raises(ArgumentError, match="sgd.update: .* is computed from the arguments grad is differentiating"):
        tf.grad(lambda p: tnp.sum(opt.update(p, opt.init(p))[0]))(np.ones(2))


def test_pytorch_and_jax_names_say_what_to_write():
    with pytest.raises(tf.UnknownName, match=r"write tf\.optimizers\.adam\(step_size\)"):
        tf.optimizers.Adam  # noqa: B018
    with pytest.raises(tf.UnknownName, match=r"write tf\.flatten\(tree\)"):
        tf.optimizers.ravel_pytree  # noqa: B018


def test_the_python_blocks_of_the_docs_run():
    text = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "optimizers.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, "docs/optimizers.md", "exec"), {"__name__": "docs"})
