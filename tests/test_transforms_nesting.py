"""Transforms nested to any order without perturbation confusion, what they record (a
constant for NumPy inputs, a recorded result for a variable), where they run (no_grad, an
open session, an engine, two threads), complex inputs, and forward mode through ops that
have no jvp rule of their own; all against exact derivatives or finite differences."""

import threading

import numpy as np
import pytest
from conftest import fd_gradient
from test_transforms import V, X, close, fd_jacobian, sin_x2, sin_x2_hessian

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import CpuEngine, EagerRuntime


# -- nesting -----------------------------------------------------------------------------------
def test_third_derivative_of_a_vector_function_component():
    d3 = tf.grad(lambda x: tf.grad(lambda x: tf.grad(sin_x2)(x)[0])(x)[1])(X)
    close(d3, np.zeros(3))  # ∂³/∂x1∂x0∂x… of a separable sum: no cross terms
    d3 = tf.grad(lambda x: tf.grad(lambda x: tf.grad(sin_x2)(x)[0])(x)[0])(X)
    x0 = X[0]
    close(d3, [-np.cos(x0) * x0**2 - 6 * x0 * np.sin(x0) + 6 * np.cos(x0), 0, 0])


@pytest.mark.parametrize(
    "hess",
    [
        pytest.param(tf.hessian, id="hessian"),
        pytest.param(lambda f: tf.jacfwd(tf.jacrev(f)), id="jacfwd(jacrev)"),
        pytest.param(lambda f: tf.jacrev(tf.jacfwd(f)), id="jacrev(jacfwd)"),
        pytest.param(lambda f: tf.jacrev(tf.jacrev(f)), id="jacrev(jacrev)"),
        pytest.param(lambda f: tf.jacfwd(tf.jacfwd(f)), id="jacfwd(jacfwd)"),
        pytest.param(lambda f: tf.jacfwd(tf.grad(f)), id="jacfwd(grad)"),
    ],
)
def test_every_composition_of_jacobians_is_the_hessian(hess):
    close(hess(sin_x2)(X), sin_x2_hessian(X))


def test_perturbation_confusion_reverse_mode():
    # d/dx (x · d/dy (x + y))|_{y=x} = d/dx (x · 1) = 1, not 2 (Siskind & Pearlmutter)
    close(tf.grad(lambda x: x * tf.grad(lambda y: x + y)(x))(1.0), 1.0)
    close(tf.grad(lambda x: x * tf.grad(lambda y: x * y)(x))(3.0), 6.0)  # d/dx x·x = 2x


def test_perturbation_confusion_forward_mode():
    outer = tf.jvp(lambda x: x * tf.jvp(lambda y: x + y, (x,), (1.0,))[1], (1.0,), (1.0,))
    close(outer, (1.0, 1.0))
    _, t = tf.jvp(lambda x: x * tf.jvp(lambda y: x * y, (x,), (1.0,))[1], (3.0,), (1.0,))
    close(t, 6.0)


@pytest.mark.parametrize(
    ("outer", "inner"),
    [(o, i) for o in ("grad", "jvp") for i in ("grad", "jvp")],
)
def test_perturbation_confusion_in_every_mixture_of_modes(outer, inner):
    def d(f, mode):  # the derivative of a scalar function of one scalar
        if mode == "grad":
            return tf.grad(f)
        return lambda x: tf.jvp(f, (x,), (1.0,))[1]

    # d/dx [x · d/dy (x·y + y²)|_{y=x}] = d/dx [x · 3x] = 6x
    close(d(lambda x: x * d(lambda y: x * y + y**2, inner)(x), outer)(2.0), 12.0)


def test_closure_over_an_outer_argument_in_reverse_and_forward_mode():
    def g(x):  # ∂/∂y Σ x·sin(y) at y = 2x: x·cos(2x)
        return tf.grad(lambda y: tnp.sum(x * tnp.sin(y)))(x * 2)

    want = np.diag(np.cos(2 * X) - 2 * X * np.sin(2 * X))
    close(tf.jacrev(g)(X), want)
    close(tf.jacfwd(g)(X), want)

    def h(x):  # jvp of y ↦ x·sin(y) at 2x along x: x·cos(2x)·x
        return tf.jvp(lambda y: x * tnp.sin(y), (x * 2,), (x,))[1]

    want = np.diag(2 * X * np.cos(2 * X) - 2 * X**2 * np.sin(2 * X))
    close(tf.jacrev(h)(X), want)
    close(tf.jacfwd(h)(X), want)


def test_vjp_fn_and_jvp_are_differentiable_in_a_tracked_seed():
    # regression: a tracked cotangent or tangent gave a constant result (zeros outside)
    want = np.cos(X) * X + np.sin(X)
    close(tf.grad(lambda v: tnp.sum(tf.vjp(lambda x: tnp.sin(x) * x, X)[1](v)[0]))(V), want)
    close(tf.grad(lambda v: tnp.sum(tf.jvp(lambda x: tnp.sin(x) * x, (X,), (v,))[1]))(V), want)
    close(tf.jacfwd(lambda v: tf.linearize(lambda x: tnp.sin(x) * x, X)[1](v))(V), np.diag(want))
    w = tf.variable(V)
    (ct,) = tf.vjp(lambda x: tnp.sin(x) * x, X)[1](w)
    assert ct.tracks_grad()
    tnp.sum(ct).backward()
    close(w.grad(), want)


def test_a_jacobian_built_from_jvp_or_vjp_fn_in_the_seed_is_a_constant():
    # regression: the inner transform's own primal variable counted as tracked from outside,
    # so the outer result was recorded (a training loop over it would chain its traces)
    J = tf.jacrev(lambda v: tf.jvp(tnp.sin, (X,), (v,))[1])(V)
    close(J, np.diag(np.cos(X)))
    assert not J.tracks_grad()
    J = tf.jacfwd(lambda v: tf.vjp(tnp.sin, X)[1](v)[0])(V)
    close(J, np.diag(np.cos(X)))
    assert not J.tracks_grad()
    w = tf.variable(X)  # a closure over a variable still records
    J = tf.jacrev(lambda v: tf.jvp(lambda x: tnp.sin(x) * w, (X,), (v,))[1])(V)
    assert J.tracks_grad()
    tnp.sum(J).backward()
    close(w.grad(), np.cos(X))


def test_a_refused_argument_leaves_no_transform_state_behind():
    # regression: the registry of the variables transforms make kept a refused call's entry
    from tenferro.transforms import _call

    with pytest.raises(tf.TenferroError):
        tf.grad(tnp.sin)(np.arange(2))
    with pytest.raises(ZeroDivisionError):
        tf.grad(lambda x: 1 / 0)(1.0)
    assert _call.MADE.get() == ()
    close(tf.grad(tnp.sin)(1.0), np.cos(1.0))


# -- what is recorded ---------------------------------------------------------------------------
def test_results_for_numpy_inputs_are_constants_so_a_training_loop_keeps_no_trace():
    params = {"w": np.zeros(3), "b": 0.0}
    for _ in range(3):
        value, grads = tf.value_and_grad(lambda p: tnp.sum((X * p["w"] + p["b"] - V) ** 2))(params)
        params = {k: params[k] - 0.1 * grads[k] for k in params}
    for t in (value, grads["w"], grads["b"], params["w"]):
        assert t._node is None and not t.tracks_grad()
    out, t = tf.jvp(tnp.sin, (X,), (V,))
    assert not out.tracks_grad() and not t.tracks_grad()
    assert not tf.hessian(sin_x2)(X).tracks_grad()
    assert not tf.vjp(tnp.sin, X)[1](V)[0].tracks_grad()


def test_results_for_a_variable_are_recorded_and_backward_goes_through_them():
    w = tf.variable(X)
    g = tf.grad(lambda x: tnp.sum(tnp.sin(x) * x))(w)
    assert g.tracks_grad()
    tnp.sum(g).backward()
    close(w.grad(), -np.sin(X) * X + 2 * np.cos(X))
    w = tf.variable(X)
    g = tf.grad(lambda x: tnp.sum(w * x**2))(V)  # a closure over the variable
    assert g.tracks_grad()
    tnp.sum(g).backward()
    close(w.grad(), 2 * V)
    w = tf.variable(X)
    _, t = tf.jvp(lambda x: tnp.sin(x) * x, (w,), (V,))
    tnp.sum(t).backward()
    close(w.grad(), (-np.sin(X) * X + 2 * np.cos(X)) * V)


def test_inside_no_grad_a_transform_differentiates_but_records_nothing():
    # regression: a variable's gradient inside no_grad came back recorded
    rt = tf.default_runtime()
    w = tf.variable(X)
    with rt.no_grad():
        g = tf.grad(lambda x: tnp.sum(tnp.sin(x) * w))(w)
        h = tf.hessian(sin_x2)(w)
        _, t = tf.jvp(tnp.sin, (w,), (V,))
    close(g, np.cos(X) * X)  # w is the closure's: a constant to x
    close(h, sin_x2_hessian(X))
    close(t, np.cos(X) * V)
    assert not g.tracks_grad() and not h.tracks_grad() and not t.tracks_grad()


def test_a_no_grad_block_inside_the_function_is_respected_to_every_order():
    rt = tf.default_runtime()

    def f(x):
        with rt.no_grad():
            y = x**2  # a constant to every transform
        return tnp.sum(x * y)

    close(tf.grad(f)(X), X**2)
    close(tf.jvp(f, (X,), (V,))[1], np.sum(X**2 * V))
    close(tf.jacfwd(tf.grad(f))(X), np.zeros((3, 3)))
    close(tf.grad(tf.grad(lambda x: f(x) * x))(1.5), 2 * 1.5**2)


def test_inside_an_open_session_with_an_engine_and_on_another_runtime():
    rt = tf.default_runtime()
    with rt.eager_session(CpuEngine.serial()):
        close(tf.grad(sin_x2)(X), fd_gradient(lambda x: np.sum(np.sin(x) * x**2), X), rtol=1e-6)
        close(tf.jvp(tnp.sin, (X,), (V,))[1], np.cos(X) * V)
    close(tf.hessian(sin_x2, engine=CpuEngine.serial())(X), sin_x2_hessian(X))
    close(tf.jvp(tnp.sin, (X,), (V,), engine=CpuEngine.serial())[1], np.cos(X) * V)
    other = EagerRuntime(engine=CpuEngine.serial())
    g = tf.grad(sin_x2)(other.constant_from(X))
    assert g._rt is other
    close(g, np.cos(X) * X**2 + 2 * X * np.sin(X))
    g = tf.grad(sin_x2)(tf.Tensor.from_vec_col_major([3], X))  # a core Tensor leaf
    close(g, np.cos(X) * X**2 + 2 * X * np.sin(X))
    e1, e2 = CpuEngine.serial(), CpuEngine.serial()
    close(tf.grad(lambda x: tf.grad(tnp.sin, engine=e2)(x), engine=e1)(1.0), -np.sin(1.0))


def test_transforms_nested_with_one_engine_share_its_session():
    # regression: hessian(f, engine=e) lent e twice (EngineBusy)
    e = CpuEngine.serial()
    close(tf.hessian(sin_x2, engine=e)(X), sin_x2_hessian(X))
    close(tf.hvp(sin_x2, (X,), (V,), engine=e), sin_x2_hessian(X) @ V)
    close(tf.grad(tf.grad(tnp.sin, engine=e), engine=e)(1.0), -np.sin(1.0))
    close(tf.jacfwd(tf.jacrev(sin_x2, engine=e), engine=e)(X), sin_x2_hessian(X))


def test_two_threads_transform_at_once():
    results, errors = {}, []
    together = threading.Barrier(2)

    def work(k):
        try:
            together.wait(timeout=10)
            x = X * (k + 1)
            results[k] = [
                (tf.grad(sin_x2)(x), tf.hessian(sin_x2)(x), tf.grad(lambda a: a * tf.grad(lambda b: a + b)(a))(1.0))
                for _ in range(10)
            ]
        except Exception as exc:  # reported below, on the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k, rows in results.items():
        x = X * (k + 1)
        for g, h, one in rows:
            close(g, np.cos(x) * x**2 + 2 * x * np.sin(x))
            close(h, sin_x2_hessian(x))
            close(one, 1.0)


# -- complex ----------------------------------------------------------------------------------
Z = np.array([1 + 2j, -0.5 + 0.3j])


def test_grad_of_a_real_function_of_complex_input_is_pytorchs_convention():
    # Σ|z|² = Σ x² + y²: ∂/∂x + i ∂/∂y = 2z (JAX gives its conjugate, 2z̄)
    close(tf.grad(lambda z: tnp.sum(tnp.real(z) ** 2 + tnp.imag(z) ** 2))(Z), 2 * Z)
    f = lambda z: np.sum(np.abs(np.sin(z)) ** 2)  # noqa: E731
    close(tf.grad(lambda z: tnp.sum(tnp.abs(tnp.sin(z)) ** 2))(Z), fd_gradient(f, Z), rtol=1e-6)


def test_holomorphic_derivatives_are_f_prime():
    close(tf.grad(tnp.sin, holomorphic=True)(3 + 4j), np.cos(3 + 4j))
    close(tf.jacrev(lambda z: z**3, holomorphic=True)(Z), np.diag(3 * Z**2))
    close(tf.jacfwd(lambda z: z**3, holomorphic=True)(Z), np.diag(3 * Z**2))
    close(tf.hessian(lambda z: tnp.sum(z**3), holomorphic=True)(Z), np.diag(6 * Z))


def test_jvp_of_a_complex_function_is_the_directional_derivative():
    t = np.array([0.3 - 1j, 2 + 0.5j])
    f = lambda z: z * np.conj(z) + np.exp(z)  # noqa: E731, not holomorphic
    _, got = tf.jvp(lambda z: z * tnp.conj(z) + tnp.exp(z), (Z,), (t,))
    close(got, (f(Z + 1e-6 * t) - f(Z - 1e-6 * t)) / 2e-6, rtol=1e-6)


# -- forward mode through ops without jvp rules ---------------------------------------------------
A = np.array([[4.0, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]])
T = np.cos(np.arange(9.0)).reshape(3, 3)
S = T + T.T  # a symmetric direction, for eigh

OPS = [
    ("solve", lambda a: tnp.linalg.solve(a, X), lambda a: np.linalg.solve(a, X), T),
    ("inv", tnp.linalg.inv, np.linalg.inv, T),
    ("det", tnp.linalg.det, np.linalg.det, T),
    ("cholesky", tnp.linalg.cholesky, np.linalg.cholesky, S),
    ("eigh-values", lambda a: tnp.linalg.eigh(a)[0], lambda a: np.linalg.eigh(a)[0], S),
    ("eigh-vector-squares", lambda a: tnp.linalg.eigh(a)[1] ** 2, lambda a: np.linalg.eigh(a)[1] ** 2, S),
    ("svdvals", tnp.linalg.svdvals, lambda a: np.linalg.svd(a, compute_uv=False), T),
    ("sort", lambda a: tnp.sort(a, axis=-1), lambda a: np.sort(a, axis=-1), T),
    ("cumsum", lambda a: tnp.cumsum(a, axis=0), lambda a: np.cumsum(a, axis=0), T),
    ("max", lambda a: tnp.max(a, axis=0), lambda a: np.max(a, axis=0), T),
    ("index", lambda a: a[np.array([2, 0]), 1:], lambda a: a[np.array([2, 0]), 1:], T),
    ("where", lambda a: tnp.where(a > 1.5, a**2, -a), lambda a: np.where(a > 1.5, a**2, -a), T),
]


@pytest.mark.parametrize(("op", "np_op", "direction"), [o[1:] for o in OPS], ids=[o[0] for o in OPS])
def test_jvp_through_ops_matches_finite_differences(op, np_op, direction):
    out, t = tf.jvp(op, (A,), (direction,))
    close(out, np_op(A))
    close(t, (np_op(A + 1e-6 * direction) - np_op(A - 1e-6 * direction)) / 2e-6, rtol=1e-5, atol=1e-7)
    J = tf.jacfwd(op)(A)
    close(J, tf.jacrev(op)(A), rtol=1e-9)
    close(np.tensordot(np.asarray(J), direction, axes=2), t)


C = A + 1j * np.sin(np.arange(9.0)).reshape(3, 3)
TC = T - 0.5j * T.T
COMPLEX_OPS = [
    ("det", tnp.linalg.det, np.linalg.det),
    ("inv", tnp.linalg.inv, np.linalg.inv),
    ("solve", lambda a: tnp.linalg.solve(a, X), lambda a: np.linalg.solve(a, X)),
    ("svdvals", tnp.linalg.svdvals, lambda a: np.linalg.svd(a, compute_uv=False)),
    ("eigvalsh", lambda a: tnp.linalg.eigvalsh(a @ tnp.conj(a).mT), lambda a: np.linalg.eigvalsh(a @ a.conj().T)),
    ("fft", tnp.fft.fft, np.fft.fft),
    ("norm", tnp.linalg.norm, np.linalg.norm),
]


@pytest.mark.parametrize(("op", "np_op"), [o[1:] for o in COMPLEX_OPS], ids=[o[0] for o in COMPLEX_OPS])
def test_complex_jvp_through_ops_matches_finite_differences(op, np_op):
    _, t = tf.jvp(op, (C,), (TC,))
    close(t, (np_op(C + 1e-6 * TC) - np_op(C - 1e-6 * TC)) / 2e-6, rtol=1e-5, atol=1e-7)


SECOND_ORDER = [
    ("slogdet", lambda a: tnp.linalg.slogdet(a)[1]),
    ("sum-inv", lambda a: tnp.sum(tnp.linalg.inv(a))),
    ("eigvalsh-cubed", lambda a: tnp.sum(tnp.linalg.eigvalsh(a) ** 3)),
    ("sorted-head-cubed", lambda a: tnp.sum(tnp.sort(tnp.reshape(a, (9,)))[:4] ** 3)),
]


@pytest.mark.parametrize("f", [o[1] for o in SECOND_ORDER], ids=[o[0] for o in SECOND_ORDER])
def test_hessians_through_ops_without_jvp_rules_agree_in_every_mode(f):
    H = np.asarray(tf.hessian(f)(A))
    close(tf.jacrev(tf.jacrev(f))(A), H)
    close(tf.jacrev(tf.jacfwd(f))(A), H)
    close(H, fd_jacobian(lambda a: np.asarray(tf.grad(f)(a)), A), rtol=1e-5, atol=1e-6)
