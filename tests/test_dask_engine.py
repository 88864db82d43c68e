"""DaskEngine on a distributed LocalCluster: the seed behaviours that make sense for a lazy
engine (B2, B4, B6, B8, B9, B11, B12), one front-end program run unchanged on both engines,
and the rule that a distributed value is never gathered silently.

Equal numbers: an elementwise computation (the seed's gradient and HVP) runs the same
kernels chunk by chunk, so it is bitwise equal to CpuEngine; a sum over n terms may add in
another order (per chunk, then across chunks), and both orders are within n·ε·Σ|terms| of
each other (twice the classical bound γ_n ≤ n·ε/2 of recursive summation), which is what
``within_summation_bound`` checks.
"""

import json
import pathlib
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from conftest import N, exact_grad, exact_hvp, plugin_of, seed_program

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import tenferro as tf  # noqa: E402
import tenferro.numpy as tnp  # noqa: E402
from tenferro import (  # noqa: E402
    CpuEngine,
    DaskEngine,
    DTypeError,
    EagerRuntime,
    EngineError,
    Gradients,
    ShapeMismatch,
    Tensor,
)
from tenferro.core.tensor import Hollow  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
EPS = np.finfo(np.float64).eps
CHUNKS = 300  # the seed's 1000 elements in four chunks: sums really are split


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cluster's own start-up chatter
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", memory_limit="1GiB"
        )
        client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture
def deng(client):
    return DaskEngine(client, chunks=CHUNKS)


def refuse_compute(*args, **kwargs):
    raise AssertionError("a dask value was computed before it was read")


def lazy():
    """A block in which any dask computation fails the test (nothing may be read there)."""
    return dask.config.set(scheduler=refuse_compute)


def within_summation_bound(a, b, n, magnitude):
    """|a - b| <= n·ε·magnitude elementwise, where magnitude is Σ|terms| of each sum."""
    assert np.all(np.abs(np.asarray(a) - np.asarray(b)) <= n * EPS * np.asarray(magnitude))


def is_dask(tensor):
    return isinstance(tensor._value, da.Array)


# -- B2, B4, B6, B8, B9, B11, B12 on the DaskEngine -------------------------------------------
def test_b2_values_are_dask_arrays_and_nothing_is_computed_until_read(deng, seed_xs):
    rt = EagerRuntime()
    with lazy():
        x, p, loss = seed_program(rt, deng, seed_xs)
        c = rt.constant_from(da.from_array(seed_xs, chunks=CHUNKS))  # kept as it is, not gathered
        from_constant = rt.with_eager_session(deng, lambda s: s.sin(c))
        assert (p.shape, p.dtype, loss.shape) == ((N,), np.float64, ())  # known at once
        loss.backward(deng)
    assert x.tracks_grad() and x.is_variable() and p.tracks_grad() and loss.tracks_grad()
    assert not c.tracks_grad() and not from_constant.tracks_grad()
    assert all(map(is_dask, (x, p, loss, c, from_constant)))  # x moved to the engine when first used
    np.testing.assert_array_equal(np.asarray(from_constant), np.sin(seed_xs))
    np.testing.assert_array_equal(x.value().to_numpy(), seed_xs)


def test_a_dask_array_given_to_variable_from_cannot_be_changed_under_the_variable(deng, rt):
    given = da.ones(4, chunks=2)
    x = rt.variable_from(given)
    given[0] = 5.0  # dask's setitem rebinds the caller's array object
    np.testing.assert_array_equal(np.asarray(x), np.ones(4))
    assert len(x._value.dask) == 2  # kept without a copy task


def test_b4_seed_gradient_is_exact_and_equals_the_cpu_engine_bitwise(deng, rt, eng, seed_xs):
    x, p, loss = seed_program(rt, deng, seed_xs)
    loss.backward(deng)
    g = x.grad().as_slice()
    assert np.max(np.abs(g - exact_grad(seed_xs))) <= 4.441e-16
    cx, cp, closs = seed_program(rt, eng, seed_xs)
    closs.backward(eng)
    assert np.array_equal(g, cx.grad().as_slice())
    # the loss is a sum over four chunks: another order than NumPy's pairwise sum
    within_summation_bound(loss.value().to_numpy(), closs.value().to_numpy(), N, np.sum(np.abs(np.asarray(cp))))


def test_b6_second_backward_doubles_bitwise_and_clear_grad_restarts(deng, rt, seed_xs):
    x, p, loss = seed_program(rt, deng, seed_xs)
    loss.backward(deng)
    first = x.grad().to_numpy()
    loss.backward(deng)
    assert isinstance(x._grad, da.Array)  # the slot holds a dask array (x, of a CpuEngine runtime, stays NumPy)
    assert np.array_equal(x.grad().to_numpy(), 2 * first)
    x.clear_grad()
    assert x.grad() is None
    again = rt.with_eager_session(deng, lambda s: s.reduce_sum(s.mul(s.sin(x), s.mul(x, x)), None))
    again.backward(deng)
    assert np.array_equal(x.grad().to_numpy(), first)


def test_b8_backward_with_seeds_the_cotangent(deng, rt, seed_xs, seed_vs):
    x, p, loss = seed_program(rt, deng, seed_xs)
    p.backward_with(deng, rt.constant_from(Tensor.from_vec_col_major([N], seed_vs)))
    assert np.max(np.abs(x.grad().as_slice() - seed_vs * exact_grad(seed_xs))) <= 8.882e-16
    x.clear_grad()
    loss.backward(deng)
    expected = x.grad().to_numpy()
    x.clear_grad()
    p.backward_with(deng, rt.constant_from(da.ones(N, chunks=CHUNKS)))  # a dask cotangent
    assert np.array_equal(x.grad().to_numpy(), expected)
    with pytest.raises(ShapeMismatch, match=r"cotangent v has shape \[999\], but the output has shape \[1000\]"):
        p.backward_with(deng, rt.constant_from(da.ones(N - 1)))
    with pytest.raises(DTypeError, match="cotangent v has dtype float32, but the output has dtype float64"):
        p.backward_with(deng, rt.constant_from(np.ones(N, np.float32)))


def test_b9_functional_grad_and_hvp(deng, rt, seed_xs, seed_vs):
    x, p, loss = seed_program(rt, deng, seed_xs)
    with lazy():
        gf = rt.grad(deng, loss, x)
        vt = rt.constant_from(Tensor.from_vec_col_major([N], seed_vs))
        gv = rt.with_eager_session(deng, lambda s: s.reduce_sum(s.mul(gf, vt), None))
        hv = rt.grad(deng, gv, x)
    assert x.grad() is None and gf.tracks_grad() and is_dask(gf) and is_dask(hv)
    assert np.max(np.abs(np.asarray(gf) - exact_grad(seed_xs))) <= 4.441e-16
    assert np.max(np.abs(np.asarray(hv) - exact_hvp(seed_xs, seed_vs))) <= 2.0**-49
    a, b = rt.variable_from(np.array([1.0, 2.0])), rt.variable_from(np.array([3.0, 5.0]))
    ga, gb = rt.grad(deng, rt.with_eager_session(deng, lambda s: s.reduce_sum(s.mul(a, b), None)), [a, b])
    np.testing.assert_array_equal(np.asarray(ga), [3.0, 5.0])
    np.testing.assert_array_equal(np.asarray(gb), [1.0, 2.0])


def test_b11_no_grad_records_nothing(deng, rt, seed_xs):
    x = rt.variable_from(Tensor.from_vec_col_major([N], seed_xs))
    with rt.no_grad():
        y = rt.with_eager_session(deng, lambda s: s.reduce_sum(s.mul(x, x), None))
    assert not y.tracks_grad() and is_dask(y)
    within_summation_bound(float(np.asarray(y)), np.sum(seed_xs**2), N, np.sum(seed_xs**2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grads = y.backward(deng)
    assert isinstance(grads, Gradients) and len(grads) == 0
    assert x.grad() is None


def test_b12_detach_is_a_constant_copy(deng, rt, seed_xs):
    x = rt.variable_from(da.from_array(seed_xs, chunks=CHUNKS))
    z = x.detach(deng)
    assert not z.tracks_grad() and is_dask(z)
    loss = rt.with_eager_session(deng, lambda s: s.reduce_sum(s.mul(z, x), None))
    grads = loss.backward(deng)
    assert np.array_equal(x.grad().to_numpy(), seed_xs)
    assert np.array_equal(grads[x].to_numpy(), seed_xs)


def test_the_seed_gradient_keeps_the_chunks_of_x_without_a_rechunk(deng, rt):
    """The cotangent of a sum is its seed broadcast to x's shape: chunked like the engine's
    values (not one chunk of N elements split and sent between workers)."""
    x = rt.variable_from(da.linspace(-2, 2, N, chunks=CHUNKS))
    loss = rt.with_eager_session(deng, lambda s: s.reduce_sum(s.mul(s.sin(x), s.mul(x, x)), None))
    loss.backward(deng)
    assert x._grad.chunks == x._value.chunks == ((300, 300, 300, 100),)
    layers = {name.split("-")[0] for name in x._grad.__dask_graph__().layers}
    assert "broadcast_to" in layers and "rechunk" not in layers
    with rt.eager_session(deng):  # even in a session, outside a DaskEngine kernel, dask's broadcast_to is dask's own
        assert da.broadcast_to(da.ones(()), (N,)).chunks == ((N,),)


def test_an_op_with_several_results_records_hollow_results_and_differentiates(deng, rt, eng):
    """A call node keeps no dask result its rule does not read (as for NumPy values)."""
    grads = []
    for engine in (eng, deng):
        x = rt.variable_from(np.arange(12.0).reshape(3, 4))
        with rt.eager_session(engine) as s:
            a, b, c = s.unstack(x, 0)
            loss = s.reduce_sum(s.mul(s.sin(a), c), None)
        assert all(type(v) is Hollow for v in a._node.parents[0].value)
        loss.backward(engine)
        grads.append(x.grad().to_numpy())
    assert is_dask(a) and np.array_equal(grads[0], grads[1])


def test_persisted_results_hold_chunks_and_give_the_same_gradient(client, rt, seed_xs):
    eng = DaskEngine(client, chunks=CHUNKS, persist=True)
    x, p, loss = seed_program(rt, eng, seed_xs)
    assert len(p._value.dask) == p._value.npartitions  # computed chunks on the workers, no graph
    loss.backward(eng)
    assert np.max(np.abs(x.grad().as_slice() - exact_grad(seed_xs))) <= 4.441e-16


# -- the same program on both engines ---------------------------------------------------------
def front_end_program(rt):
    """A small regression written with tenferro.numpy, operators and tf.value_and_grad /
    tf.grad / tf.hvp: nothing in it names an engine (the runtime's default is used)."""
    rng = np.random.default_rng(0)
    features, targets = rt.constant_from(rng.normal(size=(40, 6))), rt.constant_from(rng.normal(size=40))
    params = {"w": rt.constant_from(rng.normal(size=6) / 3), "b": rt.constant_from(np.zeros(1))}

    def loss_fn(params, features, targets):
        predicted = tnp.tanh(features @ params["w"] + params["b"])
        return tnp.mean((predicted - targets) ** 2)

    losses = []
    for _ in range(3):
        loss, grads = tf.value_and_grad(loss_fn)(params, features, targets)
        losses.append(float(loss))
        params = tf.tree_map(lambda p, g: p - 0.1 * g, params, grads)

    def seed(x):
        return tnp.sum(tnp.sin(x) * x * x)

    xs = rt.constant_from(np.linspace(-2, 2, N))
    v = np.cos(np.arange(N, dtype=np.float64))
    return losses, params, tf.grad(seed)(xs), tf.hvp(seed, (xs,), (v,))


def test_a_front_end_program_runs_unchanged_on_both_engines(client):
    cpu_losses, cpu_params, cpu_g, cpu_hv = front_end_program(EagerRuntime(engine=CpuEngine.serial()))
    dask_rt = EagerRuntime(engine=DaskEngine(client, chunks=16))
    losses, params, g, hv = front_end_program(dask_rt)
    assert is_dask(params["w"]) and is_dask(g) and is_dask(hv)
    # each loss is a mean of 40 squares (and the parameters come from sums of 40 products)
    for ours, theirs in zip(losses, cpu_losses):
        within_summation_bound(ours, theirs, 40 * 8, max(abs(theirs), 1.0))
    for name in ("w", "b"):
        within_summation_bound(np.asarray(params[name]), np.asarray(cpu_params[name]), 40 * 8, 10.0)
    assert np.array_equal(np.asarray(g), np.asarray(cpu_g))  # elementwise: bitwise
    assert np.array_equal(np.asarray(hv), np.asarray(cpu_hv))


def test_transforms_take_the_engine(deng, seed_xs):
    def seed(x):
        return tnp.sum(tnp.sin(x) * x * x)

    g = tf.grad(seed, engine=deng)(seed_xs)
    assert is_dask(g)
    assert np.array_equal(np.asarray(g), np.asarray(tf.grad(seed, engine=CpuEngine.serial())(seed_xs)))
    v = np.cos(np.arange(N, dtype=np.float64))
    hv = tf.hvp(seed, (seed_xs,), (v,), engine=deng)  # nested: grad inside jvp, one engine
    assert is_dask(hv) and np.max(np.abs(np.asarray(hv) - exact_hvp(seed_xs, v))) <= 2.0**-49


def test_hessian_on_a_runtime_whose_default_engine_is_dask(deng):
    xs = np.linspace(-2, 2, 7)
    hessians = []
    for engine in (CpuEngine.serial(), deng):
        x = EagerRuntime(engine=engine).constant_from(xs)
        hessians.append(tf.hessian(lambda w: tnp.sum(tnp.sin(w) * w * w))(x))
    assert is_dask(hessians[1])
    assert np.array_equal(np.asarray(hessians[0]), np.asarray(hessians[1]))  # no sum: bitwise
    assert np.max(np.abs(np.diag(np.asarray(hessians[1])) - exact_hvp(xs, np.ones(7)))) <= 2.0**-49


# -- never a silent gather --------------------------------------------------------------------
def _kernel_calling(function):
    """An op whose kernel calls a NumPy function of one matrix, declaring no batch axes."""
    from tenferro.extend import OpSpec

    return OpSpec(name="one_matrix", inputs=("a",), forward=function, doc="a kernel that calls one NumPy function")


def test_another_thread_computing_while_a_kernel_runs_is_not_refused():
    """The refusing scheduler is in dask's process-wide config while a kernel runs: a dask
    value another thread computes meanwhile gets dask's default scheduler, not the
    kernel's refusal (and the kernel is not blamed for it)."""
    import threading

    computed = []

    def kernel_with_a_neighbour(a):
        neighbour = threading.Thread(target=lambda: computed.append(float(da.ones(4, chunks=2).sum().compute())))
        neighbour.start()
        neighbour.join()
        return np.negative(a)

    spec = _kernel_calling(kernel_with_a_neighbour)
    rt = EagerRuntime(plugins=[("mine", plugin_of("mine", spec))])
    engine = DaskEngine(chunks=2)
    out = rt.with_eager_session(engine, lambda s: s.one_matrix(rt.constant_from(np.eye(3))))
    assert computed == [4.0] and is_dask(out)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(np.asarray(out), -np.eye(3))


def test_an_op_without_a_dask_path_raises_naming_op_and_engine(deng):
    rt = EagerRuntime(plugins=[("mine", plugin_of("mine", _kernel_calling(np.linalg.det)))])
    a = rt.variable_from(np.eye(3) + 0.5)
    with lazy():  # refused before anything is computed
        with pytest.raises(EngineError, match=r"one_matrix \(plugin '.*'\) has no path on DaskEngine\(") as info:
            rt.with_eager_session(deng, lambda s: s.one_matrix(a))
    assert "numpy.linalg.det, which dask does not implement" in str(info.value)
    assert isinstance(info.value, TypeError)


def test_an_op_that_dask_refuses_for_these_chunks_raises(client):
    rt = EagerRuntime(plugins=[("mine", plugin_of("mine", _kernel_calling(lambda a: np.linalg.inv(a))))])
    a = rt.constant_from(np.eye(4) + 0.5)
    with pytest.raises(EngineError, match=r"one_matrix \(plugin '.*'\) has no path on DaskEngine.*dask refused it"):
        rt.with_eager_session(DaskEngine(client, chunks=(2, 3)), lambda s: s.one_matrix(a))


def test_a_linalg_op_without_a_distributed_algorithm_runs_per_matrix(client):
    """Regression: det, slogdet, eigh, eig, svdvals, lstsq, pinv and the other linalg ops
    whose kernels call a NumPy function dask lacks had no path, and inv/solve/qr/svd had
    none for chunks dask's algorithms refuse or for stacks. An op that maps over leading
    batch axes now runs NumPy's kernel on each block of whole matrices (the batch axes
    chunked): CpuEngine's numbers bitwise, gradients included."""
    rng = np.random.default_rng(0)
    stack = rng.standard_normal((6, 4, 4)) + 4 * np.eye(4)

    def values(engine):
        rt = EagerRuntime(engine=engine)
        a = rt.variable_from(stack)
        sign, logdet = tnp.linalg.slogdet(a)
        w, v = tnp.linalg.eigh(a + tnp.matrix_transpose(a))
        loss = tnp.sum(tnp.linalg.det(a)) + tnp.sum(logdet) + tnp.sum(w**2) + tnp.sum(tnp.linalg.inv(a))
        loss.backward()
        return float(loss), [np.asarray(t) for t in (sign, logdet, w, tnp.linalg.svdvals(a), a.grad())]

    (loss, on_dask), (cpu_loss, on_numpy) = values(DaskEngine(client, chunks=(2, 3, 3))), values(CpuEngine.serial())
    within_summation_bound(loss, cpu_loss, 100, 4 * abs(cpu_loss))  # (the sums over the stack: per chunk)
    for mine, theirs in zip(on_dask, on_numpy):
        np.testing.assert_array_equal(mine, theirs)


def test_wrong_arguments_raise_what_they_raise_on_the_cpu_engine(deng, rt, eng):
    """The op's own explanation, computed without reading a dask value (under lazy())."""
    messages = []
    for engine in (eng, deng):  # tensors of their own: a tensor an engine used holds its values
        a, b = rt.constant_from(np.ones((3, 4))), rt.constant_from(np.ones(5))
        for op, args in (("add", (a, b)), ("matmul", (a, a)), ("reshape", (a, (5,)))):
            with lazy(), pytest.raises(ShapeMismatch) as info:
                rt.with_eager_session(engine, lambda s, op=op, args=args: getattr(s, op)(*args))
            messages.append(str(info.value))
    assert messages[:3] == messages[3:]


def test_a_result_of_value_dependent_shape_is_refused(deng, rt):
    x = rt.constant_from(np.array([1.0, -2.0, 3.0]))
    with pytest.raises(EngineError, match="nonzero .* the shape of its result depends on the values"):
        rt.with_eager_session(deng, lambda s: s.nonzero(x))


def test_a_dask_value_on_a_cpu_engine_is_refused_not_gathered(deng, rt, eng):
    x = rt.variable_from(da.ones(4, chunks=2))
    with lazy(), pytest.raises(EngineError, match="sin: argument 'x' holds a dask.array.core.Array"):
        rt.with_eager_session(eng, lambda s: s.sin(x))
    y = rt.with_eager_session(deng, lambda s: s.sin(x))
    np.testing.assert_array_equal(np.asarray(y), np.sin(np.ones(4)))


def test_import_tenferro_does_not_import_dask():
    code = "import sys, tenferro; tenferro.DaskEngine; assert 'dask' not in sys.modules, 'dask imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- tenferro bench --engine dask ---------------------------------------------------------------
def test_bench_engine_dask_times_the_seed_gradient_against_dask_by_hand(capsys, tmp_path):
    from tenferro import cli

    assert (
        cli.main(["bench", "--engine", "dask", "--n", "1e4", "--chunks", "2500", "--json", str(tmp_path / "d.json")])
        == 0
    )
    printed = capsys.readouterr().out
    assert "DaskEngine" in printed and "dask by hand" in printed
    (row,) = json.loads((tmp_path / "d.json").read_text())["rows"]
    assert row["n"] == 10_000 and row["tenferro_dask_ms"] > 0 and row["dask_by_hand_ms"] > 0 and row["overhead"] > 0
    with pytest.raises(SystemExit, match="--n, --memory and --workload go with --engine dask"):
        cli.main(["bench", "--n", "1e6"])


def test_bench_logistic_workload_gradients_agree_with_dask_by_hand_and_cpu_engine(client, capsys, tmp_path):
    """The two gradients `tenferro bench --engine dask --workload logistic` times are the
    same numbers (to the summation bound), and CpuEngine's too: the ratio compares like with like."""
    from tenferro import cli, dask_benchmark

    n = 8 * 1000
    impls = dask_benchmark.logistic_impls(n, client, 2000)
    ours, theirs, cpu = impls["tenferro"](), impls["dask"](), dask_benchmark.logistic_cpu(n)()
    for got in (ours, np.asarray(cpu)):
        for a, b in zip(got, theirs):
            within_summation_bound(a, b, n // 8, 1.0)
    args = ["bench", "--engine", "dask", "--workload", "logistic", "--n", "8e3", "--chunks", "2000"]
    assert cli.main([*args, "--json", str(tmp_path / "l.json")]) == 0
    assert "logistic regression's gradient (8 features)" in capsys.readouterr().out
    report = json.loads((tmp_path / "l.json").read_text())
    assert report["workload"] == "logistic" and report["rows"][0]["ratio"]["median"] > 0
    with pytest.raises(SystemExit, match="--workload go with --engine dask"):
        cli.main(["bench", "--workload", "logistic"])


# -- the docs show what runs ------------------------------------------------------------------
def python_blocks(path):
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def test_docs_engines_program_runs_on_both_engines_with_equal_gradients(capsys):
    (program,) = python_blocks(ROOT / "docs" / "engines.md")
    exec(compile(program, "docs/engines.md", "exec"), {"__name__": "__main__"})  # asserts bitwise equality
    on_numpy, on_dask = map(float, capsys.readouterr().out.split())
    xs = np.linspace(-2, 2, 100_000)
    within_summation_bound(on_dask, on_numpy, xs.size, np.sum(np.abs(np.sin(xs) * xs * xs)))


def test_readme_moves_the_program_by_changing_the_engine_only():
    """The README's diff is one line of docs/engines.md's program (which runs, above)
    turned into the other: the runtime's engine, and nothing else."""
    (diff,) = re.findall(r"^```diff\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S | re.M)
    removed = [line[1:] for line in diff.splitlines() if line.startswith("-")]
    added = [line[1:].partition("  #")[0] for line in diff.splitlines() if line.startswith("+")]
    assert len(removed) == len(added) == 1
    (program,) = python_blocks(ROOT / "docs" / "engines.md")
    lines = [line.strip() for line in program.splitlines()]
    assert removed[0] in lines and added[0] in lines
    assert "CpuEngine.serial()" in removed[0] and "DaskEngine(client" in added[0]
    assert removed[0].partition("engine=")[0] == added[0].partition("engine=")[0]


def test_jacobians_on_a_dask_engine_are_assembled_on_it(deng):
    """jacrev/jacfwd stack their rows and columns inside the transform's session, on its
    engine (they were stacked after it, on the default NumPy runtime, which refused the
    dask values), and equal CpuEngine's."""
    x = np.array([0.5, -1.0, 2.0])
    for jacobian in (tf.jacrev, tf.jacfwd):
        on_dask = jacobian(lambda v: tnp.sin(v) * v, engine=deng)(x)
        on_cpu = jacobian(lambda v: tnp.sin(v) * v)(x)
        assert np.array_equal(np.asarray(on_dask), np.asarray(on_cpu))


def test_a_dask_array_is_kept_lazily_whatever_the_import_order():
    """dask imported after tenferro, no DaskEngine made yet: a dask array given to
    tf.variable / constant_from is still recognised and kept, not computed into this process."""
    code = (
        "import tenferro as tf, dask, dask.array as da\n"
        "def refuse(*a, **k): raise AssertionError('computed')\n"
        "with dask.config.set(scheduler=refuse):\n"
        "    x = tf.variable(da.ones(4, chunks=2)); c = tf.default_runtime().constant_from(da.ones(4, chunks=2))\n"
        "print(type(x._value).__name__, type(c._value).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Array", "Array"]


def test_a_transform_on_a_dask_engine_leaves_a_numpy_tensor_of_another_runtime_as_it_was(deng):
    x = tf.variable(np.array([1.0, 2.0]))
    g = tf.grad(lambda w: tnp.sum(w * w), engine=deng)(x)
    assert np.array_equal(np.asarray(g), [2.0, 4.0])
    assert type(x._value) is np.ndarray and np.array_equal(np.asarray(x * 2), [2.0, 4.0])


def test_per_example_gradients_by_vmap_stay_on_the_cluster_and_jit_is_refused(deng):
    """tf.vmap(tf.grad(loss), in_axes=(None, 0, 0)) on a DaskEngine runtime batches (the two
    traces it compares hold the engine's constants, equal by their graphs' tokens, not
    computed) and its gradients are dask arrays, CpuEngine's to the summation bound (a
    matmul per example); tf.jit, which replays NumPy kernels, refuses the engine by name."""
    rng = np.random.default_rng(3)
    w0, data, labels = rng.standard_normal(4), rng.standard_normal((6, 4)), rng.standard_normal(6)

    def loss(w, x, y):
        return (tnp.tanh(x @ w) - y) ** 2

    def per_example(engine):
        rt = EagerRuntime(engine=engine)
        with rt:
            return tf.vmap(tf.grad(loss), in_axes=(None, 0, 0))(*(rt.constant_from(a) for a in (w0, data, labels)))

    with warnings.catch_warnings():
        warnings.simplefilter("error", tf.BatchingFallback)  # batched, as on CpuEngine: not a loop per example
        on_dask = per_example(deng)
    on_cpu = per_example(CpuEngine.serial())
    assert is_dask(on_dask) and on_dask.shape == (6, 4)
    within_summation_bound(np.asarray(on_dask), np.asarray(on_cpu), 4, 4 * np.abs(data).max() ** 2)
    with EagerRuntime(engine=deng) as rt, pytest.raises(EngineError, match=r"tf\.jit runs on a CpuEngine"):
        tf.jit(lambda w: tnp.sum(w * w))(rt.constant_from(w0))


def test_the_conversions_compute_a_dask_value(deng):
    rd = EagerRuntime(engine=deng)
    s = tnp.sum(rd.variable_from(np.arange(4.0)) * 2)
    assert s.item() == 12.0 and (s * 1).tolist() == 12.0 and f"{s:.3f}" == "12.000"
    assert float(np.from_dlpack(s)) == 12.0


def test_an_op_without_a_dask_path_in_a_rule_is_an_engine_error_not_a_rule_error(deng):
    from tenferro.extend import OpSpec

    doubled = OpSpec(
        name="doubled",
        inputs=("x",),
        forward=lambda x: np.multiply(x, 2.0),
        vjps=(lambda s, g, out, x: s.one_matrix(g),),  # a rule calling an op with no path
        doc="2x, its rule an op without a dask path",
    )
    rd = EagerRuntime(engine=deng, plugins=[("mine", plugin_of("mine", doubled, _kernel_calling(np.sort)))])
    x = rd.variable_from(np.arange(1.0, 6.0))
    with pytest.raises(EngineError, match="one_matrix"):
        rd.current_session().doubled(x).backward_with(Tensor.from_numpy(np.ones(5)))


def test_an_engine_and_its_session_classes_are_freed_with_it():
    import gc
    import weakref

    refs = []
    for _ in range(3):
        engine = DaskEngine(chunks=2)
        refs.append(weakref.ref(engine))
        tf.grad(lambda w: tnp.sum(w * w), engine=engine)(np.ones(2))
    del engine
    gc.collect()
    assert all(ref() is None for ref in refs)


def test_per_axis_chunks_fit_each_arrays_rank(client):
    """Regression: chunks=(50, 3) was accepted, then every op entering an array of another
    rank (a bias vector, the seed of a sum's cotangent) raised dask's raw ValueError
    "Chunks do not add up to shape". A per-axis tuple now chunks the arrays of its rank,
    the others "auto"; the gradients are CpuEngine's."""
    data, bias = np.linspace(-1.0, 1.0, 300).reshape(100, 3), np.array([0.5, -1.0, 2.0])

    def gradients(engine):
        rt = EagerRuntime(engine=engine)
        x, b = rt.variable_from(data), rt.variable_from(bias)
        h = tnp.tanh(x + b)
        loss = tnp.sum(h[::7] ** 2)
        loss.backward()
        return [np.asarray(t.grad()) for t in (x, b)]

    engine = DaskEngine(client, chunks=(50, 3))
    assert engine.enter(np.ones(100_000)).numblocks == (1,)  # (not 33 334 chunks of 3: review)
    assert engine.enter(data).chunks == ((50, 50), (3,))
    on_dask, on_numpy = gradients(engine), gradients(CpuEngine.serial())
    np.testing.assert_array_equal(on_dask[0], on_numpy[0])  # elementwise: bitwise
    within_summation_bound(on_dask[1], on_numpy[1], 100, np.abs(on_numpy[1]) + 100)


@pytest.mark.parametrize(
    "chunks, fragment",
    [
        (((50, 50), (3,)), "gives block sizes, which fit arrays of one shape only"),
        (0, "is not what"),
        (None, "is not what"),
    ],
)
def test_chunks_that_cannot_chunk_every_array_are_refused_when_the_engine_is_made(chunks, fragment):
    with pytest.raises(tf.ArgumentError, match=re.escape(f"DaskEngine: chunks={chunks!r} {fragment}")):
        DaskEngine(chunks=chunks)


def test_creation_functions_make_the_engines_tensors_inside_with_rt(client):
    """Regression: on a runtime whose engine is a DaskEngine, ``A + tnp.eye(6)`` and
    ``y * tnp.arange(400.0)`` raised ContextMismatch (the constant was the default
    runtime's). Inside ``with rt:`` the creation functions make rt's tensors, which enter
    the engine as any NumPy value does; the gradients are CpuEngine's."""
    a_value, y_value = np.linspace(0.0, 1.0, 36).reshape(6, 6), np.linspace(-1.0, 1.0, 400)

    def gradients(engine):
        rt = EagerRuntime(engine=engine)
        a, y = rt.variable_from(a_value), rt.variable_from(y_value)
        with rt:
            loss = tnp.sum(tnp.tanh(a + tnp.eye(6))) + tnp.sum(tnp.sin(y * tnp.arange(400.0)))
        loss.backward()
        return [np.asarray(t.grad()) for t in (a, y)]

    for on_dask, on_numpy in zip(gradients(DaskEngine(client, chunks=100)), gradients(CpuEngine.serial())):
        np.testing.assert_array_equal(on_dask, on_numpy)  # elementwise: bitwise


def test_forward_mode_makes_the_zero_tangent_of_an_input_on_the_engine(deng):
    """Regression: the derived forward-mode rule of a linear op made NumPy zeros for an
    input without a tangent, which the engine then entered, so N zeros were sent into the
    graph (a from_array layer); they are now the engine's own (da.zeros, made on the
    workers)."""
    rt = EagerRuntime(engine=deng)
    x = rt.variable_from(da.linspace(0.0, 1.0, N, chunks=CHUNKS))
    y = rt.constant_from(da.linspace(1.0, 2.0, N, chunks=CHUNKS))
    _, tangent = tf.jvp(lambda a: a + y, (x,), (rt.constant_from(da.ones(N, chunks=CHUNKS)),))
    layers = {(key[0] if isinstance(key, tuple) else key).rsplit("-", 1)[0] for key in dict(tangent._value.dask)}
    assert "array" not in layers and "zeros_like" in layers
    np.testing.assert_array_equal(np.asarray(tangent), np.ones(N))


def test_softmax_log_softmax_and_logsumexp_run_on_the_cluster(client):
    """Regression: softmax, log_softmax and masked_softmax branched on values (a gather:
    no path) and logsumexp called np.max(initial=), which dask lacks, so a classifier's
    loss could not run on a cluster. Their kernels now take the replacement of an
    all -inf slice's max without reading values on dask; the loss and gradient are
    CpuEngine's to the summation bound."""
    import tenferro.scipy.special as tss

    rng = np.random.default_rng(0)
    data, labels, start = (
        rng.standard_normal((200, 10)),
        np.eye(10)[rng.integers(0, 10, 200)],
        rng.standard_normal((10, 10)),
    )
    mask = rng.random((200, 10)) > 0.2

    def loss_and_gradient(engine):
        rt = EagerRuntime(engine=engine)
        w = rt.variable_from(start * 0.1)
        z = rt.constant_from(data) @ w
        loss = (
            -tnp.sum(tf.nn.log_softmax(z, axis=-1) * rt.constant_from(labels))
            + tnp.sum(tf.nn.softmax(z, axis=-1) ** 2)
            + tnp.sum(rt.current_session().masked_softmax(z, rt.constant_from(mask), axis=-1) ** 2)
            + tnp.sum(tss.logsumexp(z, axis=-1))
        )
        loss.backward()
        return float(loss), np.asarray(w.grad())

    (loss, gradient), (cpu_loss, cpu_gradient) = (
        loss_and_gradient(DaskEngine(client, chunks=(50, 10))),
        (loss_and_gradient(CpuEngine.serial())),
    )
    within_summation_bound(loss, cpu_loss, 2000, 4 * abs(cpu_loss))
    within_summation_bound(gradient, cpu_gradient, 200, 200 * (np.abs(cpu_gradient) + 1))


def test_cumulative_sum_and_prod_and_their_gradients_run_on_the_cluster(client):
    """Regression: the scans called np.cumulative_sum/np.cumulative_prod and np.copy, which
    dask lacks (no path). On an engine's array they are the ufunc's accumulate (dask's
    cumsum/cumprod) and a copy by np.positive; the loss and gradient are CpuEngine's to
    the summation bound."""
    data = np.random.default_rng(0).standard_normal((100, 3))

    def loss_and_gradient(engine):
        rt = EagerRuntime(engine=engine)
        x = rt.variable_from(data)
        loss = (
            tnp.sum(tnp.cumulative_sum(x, axis=0) ** 2)
            + tnp.sum(tnp.cumulative_sum(x, axis=1, include_initial=True) ** 2)
            + tnp.sum(tnp.cumulative_prod(x * 0.1 + 1.0, axis=0, include_initial=True))
        )
        loss.backward()
        return float(loss), np.asarray(x.grad())

    (loss, gradient), (cpu_loss, cpu_gradient) = (
        loss_and_gradient(DaskEngine(client, chunks=(25, 3))),
        loss_and_gradient(CpuEngine.serial()),
    )
    within_summation_bound(loss, cpu_loss, 10_000, abs(cpu_loss))
    within_summation_bound(gradient, cpu_gradient, 10_000, np.abs(cpu_gradient) + 100)


@pytest.mark.parametrize("order", [2, 1, 3.0])
def test_vector_norm_and_its_gradient_run_on_the_cluster(client, order):
    """Regression: vector_norm's kernel called np.linalg.vector_norm, which dask lacks (no
    path), so an L2 penalty could not run on a cluster. An engine's array takes the norm
    by the reductions dask has; loss and gradient are CpuEngine's to the summation bound."""
    data = np.random.default_rng(0).standard_normal((100, 3))

    def loss_and_gradient(engine):
        rt = EagerRuntime(engine=engine)
        x = rt.variable_from(data)
        loss = tnp.sum(tnp.linalg.vector_norm(x, axis=0, ord=order)) + tnp.linalg.vector_norm(x)
        loss.backward()
        return float(loss), np.asarray(x.grad())

    (loss, gradient), (cpu_loss, cpu_gradient) = (
        loss_and_gradient(DaskEngine(client, chunks=(25, 3))),
        loss_and_gradient(CpuEngine.serial()),
    )
    within_summation_bound(loss, cpu_loss, 300, 4 * abs(cpu_loss))
    within_summation_bound(gradient, cpu_gradient, 300, np.abs(cpu_gradient) + 1)


def test_matrix_norm_runs_on_the_cluster_by_dask_reductions(client):
    """Regression: matrix_norm's kernel called np.linalg.matrix_norm (no path). The
    Frobenius, 1, -1, inf and -inf norms of an engine's array are now dask reductions (the
    spectral ones need an svd: still none), equal to CpuEngine's; the Frobenius norm's
    gradient too."""
    data = np.random.default_rng(0).standard_normal((4, 5, 4))
    rt, cpu = EagerRuntime(engine=DaskEngine(client, chunks=(2, 5, 4))), EagerRuntime(engine=CpuEngine.serial())
    for order in ("fro", 1, -1, np.inf, -np.inf):
        on_dask = rt.current_session().matrix_norm(rt.constant_from(data), order, True)
        on_numpy = cpu.current_session().matrix_norm(cpu.constant_from(data), order, True)
        within_summation_bound(on_dask, on_numpy, 20, 2 * np.abs(np.asarray(on_numpy)))
    gradients = []
    for runtime in (rt, cpu):
        x = runtime.variable_from(data)
        tnp.sum(tnp.linalg.matrix_norm(x)).backward()
        gradients.append(np.asarray(x.grad()))
    within_summation_bound(gradients[0], gradients[1], 20, np.abs(gradients[1]) + 1)


def test_cross_and_its_gradient_run_on_the_cluster(client):
    """Regression: cross's kernel called np.cross, which dask lacks (no path). An engine's
    array takes NumPy's own steps (operands cast to their common dtype, a1·b2 - a2·b1 per
    component); elementwise, so the loss's gradients are CpuEngine's bitwise."""
    rng = np.random.default_rng(0)
    a_value, b_value = rng.standard_normal((100, 3)), rng.standard_normal((100, 3))

    def gradients(engine):
        rt = EagerRuntime(engine=engine)
        a, b = rt.variable_from(a_value), rt.variable_from(b_value)
        tnp.sum(tnp.cross(a, b) ** 2).backward()
        return [np.asarray(t.grad()) for t in (a, b)]

    for on_dask, on_numpy in zip(gradients(DaskEngine(client, chunks=(25, 3))), gradients(CpuEngine.serial())):
        np.testing.assert_array_equal(on_dask, on_numpy)


def index_program(rt):
    """Reads by index, their scatter-add gradients, sorts and an ``at[].add`` loss."""
    rng = np.random.default_rng(0)
    x, table = rt.variable_from(rng.standard_normal((30, 7))), rt.variable_from(rng.standard_normal((11, 4)))
    rows, tokens = rng.integers(-30, 30, 45), rng.integers(0, 11, (5, 6))
    pairs = rt.constant_from(np.stack([rng.integers(0, 30, 20), rng.integers(-7, 7, 20)], axis=-1))
    embedded = tnp.take(table, tokens, axis=0)
    order = tnp.argsort(-x[:, 0])  # indices computed on the engine, read by a key
    parts = [
        tnp.sum(tnp.take(x, rows, axis=0) ** 2),
        tnp.sum(tnp.take(x, rows) ** 3),
        tnp.sum(x[rows[:10]] * 2.0) + tnp.sum(x[order, 1] ** 2),
        tnp.sum(embedded**2),
        tnp.sum(tnp.take_along_axis(x, rng.integers(0, 7, (30, 3)), axis=1) ** 2),
        tnp.sum(rt.current_session().gather(x, pairs) ** 2),
        tnp.sum(tnp.sort(x, axis=0)[-3:] ** 2) + tnp.sum(tnp.sort(x, axis=1, descending=True)[:, :2]),
        tnp.sum(rt.constant_from(np.zeros(11)).at[tokens.ravel()].add(tnp.sum(embedded, axis=-1).ravel()) ** 2),
        tnp.sum(x.at[order[:5]].add(1.0) ** 2),
    ]
    loss = sum(parts[1:], parts[0])
    loss.backward()
    reads = [tnp.argsort(x, axis=0), tnp.sort(x, axis=1), x[order], tnp.take(x, rows, axis=0)]
    return [float(p) for p in parts], [np.asarray(t.grad()) for t in (x, table)], [np.asarray(r) for r in reads]


def test_index_reads_scatters_and_sorts_run_on_the_cluster(client):
    """Regression: take, take_along_axis, gather, x[indices], the scatter-add of their
    gradients, x.at[].add, sort and argsort had no path (the range check read the indices,
    np.add.at, np.argsort and np.take_along_axis are not dask's), so an embedding, a
    classifier's label read or a top-k loss could not run on a cluster. Reads and sorts
    are CpuEngine's bitwise (a read moves values; sorts run per lane on whole lanes);
    sums of scattered cotangents to the summation bound."""
    (losses, gradients, reads), (cpu_losses, cpu_gradients, cpu_reads) = (
        index_program(EagerRuntime(engine=DaskEngine(client, chunks=(8, 3)))),
        index_program(EagerRuntime(engine=CpuEngine.serial())),
    )
    for on_dask, on_numpy in zip(reads, cpu_reads):
        np.testing.assert_array_equal(on_dask, on_numpy)
    within_summation_bound(losses, cpu_losses, 300, 4 * np.abs(cpu_losses))
    for on_dask, on_numpy in zip(gradients, cpu_gradients):
        within_summation_bound(on_dask, on_numpy, 300, 10 * (np.abs(on_numpy) + 10))


def test_an_index_out_of_range_on_the_cluster_raises_when_read(deng):
    """Indices held on the cluster are checked where each block is computed: the op gives
    its result's shape at once, and reading it raises IndexOutOfRange naming the op and
    the index, as CpuEngine does at the call."""
    from tenferro.plugins.index.positions import IndexOutOfRange

    rt = EagerRuntime(engine=deng)
    x = rt.variable_from(np.arange(12.0))
    for picked, message in [
        (tnp.take(x, np.array([1, 12])), "take: argument 'indices' holds the index 12"),
        (tnp.take_along_axis(x, np.array([1, -13]), axis=0), "take_along_axis: argument 'indices' holds the index -13"),
    ]:
        assert picked.shape == (2,)
        with pytest.raises(IndexOutOfRange, match=re.escape(message)):
            np.asarray(picked)


def test_index_updates_without_a_sum_are_refused_on_the_cluster(deng):
    """x.at[i].set/multiply/min/max and integer scatter-adds have no path on dask (no
    ufunc.at, and bincount adds in float64): an EngineError that says what to use, and a
    boolean mask held on the cluster is refused as the value-dependent shape it gives."""
    rt = EagerRuntime(engine=deng)
    x = rt.variable_from(np.arange(12.0).reshape(3, 4))
    with pytest.raises(EngineError, match=r"x\.at\[\.\.\.\]\.set: mode 'set' has no path .* use mode 'add'"):
        x.at[np.array([1, 1])].set(2.0)
    with pytest.raises(EngineError, match="integer updates have no path"):
        rt.constant_from(np.zeros(4, np.int64)).at[np.array([1, 1])].add(rt.constant_from(np.ones(2, np.int64)))
    refused = r"a boolean mask held on an engine .* use tnp\.where.* gather=\('boolean_mask', 'argwhere'\)"
    with pytest.raises(EngineError, match=refused):
        x[x > 3]
    with pytest.raises(EngineError, match=refused):
        x.at[x > 3].add(1.0)


def test_an_op_named_in_gather_runs_on_its_gathered_inputs_and_no_other_does(client):
    """DaskEngine(gather=...) is the one way a value leaves the cluster uncalled-for: the ops
    it names run their NumPy kernel here on the computed inputs (a mask's count, updates
    that land by position), their results enter the engine again, and gradients flow; an
    op it does not name still refuses, its message naming the argument."""
    values, mask = np.arange(12.0).reshape(3, 4), (np.arange(12) % 3 == 0).reshape(3, 4)

    def program(engine):
        rt = EagerRuntime(engine=engine)
        x = rt.variable_from(values)
        picked = x[rt.constant_from(mask)]  # (the boolean_mask op: the engine decides)
        loss = tnp.sum(picked * picked) + tnp.sum(x.at[np.array([0, 2])].set(1.0) ** 2)
        loss.backward(engine)
        return picked, float(loss), np.asarray(x.grad())

    engine = DaskEngine(client, chunks=2, gather=("boolean_mask", "argwhere", "scatter"))
    picked, loss, grad = program(engine)
    assert is_dask(picked) and picked.shape == (4,)
    want_picked, want_loss, want_grad = program(CpuEngine.serial())
    np.testing.assert_array_equal(np.asarray(picked), np.asarray(want_picked))
    assert loss == want_loss
    np.testing.assert_array_equal(grad, want_grad)
    opt_ins = ((("argwhere", "scatter"), "boolean_mask"), (("boolean_mask", "scatter"), "argwhere"))
    for gather, missing in (*opt_ins, (("boolean_mask", "argwhere"), "scatter")):
        with pytest.raises(EngineError, match=rf"{missing} .* DaskEngine\(\.\.\., gather=\('{missing}',\)\)"):
            program(DaskEngine(client, chunks=2, gather=gather))
    assert "gather=('scatter',)" in repr(DaskEngine(client, gather="scatter"))


@pytest.mark.parametrize("gather", [3, [1, "scatter"], None])
def test_gather_that_names_no_ops_is_refused_when_the_engine_is_made(gather):
    with pytest.raises(tf.ArgumentError, match=r"DaskEngine: gather=.* must name the ops that may gather their inputs"):
        DaskEngine(gather=gather)


# -- the programs a cluster user writes, each CpuEngine's on a LocalCluster ------------------
def _logistic_regression(rt, rng):
    data, labels = rng.standard_normal((400, 8)), (rng.random(400) > 0.5).astype(float)
    w = rt.variable_from(rng.standard_normal(8) * 0.1)
    z = rt.constant_from(data) @ w
    y = rt.constant_from(labels)
    return tnp.mean(tnp.logaddexp(0.0, z) - y * z), [w]


def _mlp_with_log_softmax(rt, rng):
    data, labels = rng.standard_normal((200, 12)), rng.integers(0, 5, 200)
    w1, w2 = rt.variable_from(rng.standard_normal((12, 16)) * 0.3), rt.variable_from(rng.standard_normal((16, 5)) * 0.3)
    b1 = rt.variable_from(np.zeros(16))
    h = tnp.tanh(rt.constant_from(data) @ w1 + b1)
    log_probs = tf.nn.log_softmax(h @ w2, axis=-1)
    picked = tnp.take_along_axis(log_probs, labels[:, None], axis=1)  # the labels' log-probabilities
    return -tnp.mean(picked), [w1, b1, w2]


def _least_squares_through_qr(rt, rng):
    a = rt.variable_from(rng.standard_normal((300, 4)))
    b = rt.constant_from(rng.standard_normal(300))
    q, r = tnp.linalg.qr(a)
    coefficients = tnp.linalg.solve(r, q.T @ b)
    return tnp.sum((a @ coefficients - b) ** 2) + tnp.sum(coefficients**2), [a]


def _attention_block(rt, rng):
    x = rt.constant_from(rng.standard_normal((64, 16)))
    wq, wk, wv = (rt.variable_from(rng.standard_normal((16, 16)) * 0.25) for _ in range(3))
    scores = (x @ wq) @ (x @ wk).T / 4.0
    attended = tf.nn.softmax(scores, axis=-1) @ (x @ wv)
    return tnp.sum(attended**2), [wq, wk, wv]


def _sort_top_k_loss(rt, rng):
    x = rt.variable_from(rng.standard_normal((50, 10)))
    top = tnp.sort(x, axis=1)[:, -3:]  # each row's three largest
    order = tnp.argsort(-x[:, 0])  # rows ranked by their first value, computed on the engine
    return tnp.sum(top**2) + tnp.sum(x[order[:5]]), [x]


def _scatter_loss(rt, rng):
    table = rt.variable_from(rng.standard_normal((20, 4)))
    tokens, segments = rng.integers(0, 20, 120), rng.integers(0, 7, 120)
    embedded = tnp.take(table, tokens, axis=0)
    totals = rt.constant_from(np.zeros((7, 4))).at[segments].add(embedded)  # a segment sum
    return tnp.sum(tnp.tanh(totals) ** 2), [table]


@pytest.mark.parametrize(
    "program",
    [
        _logistic_regression,
        _mlp_with_log_softmax,
        _least_squares_through_qr,
        _attention_block,
        _sort_top_k_loss,
        _scatter_loss,
    ],
)
def test_a_cluster_program_gives_cpu_engines_loss_and_gradients(client, program):
    """The programs issue 28 names, written once, on a 2-worker LocalCluster (chunks that
    split every axis) and on CpuEngine: loss and gradients to the summation bound (a sum
    of n terms adds per chunk, then across), with Σ|terms| bounded by the values' scale."""

    def run(engine):
        rt = EagerRuntime(engine=engine)
        loss, params = program(rt, np.random.default_rng(0))
        loss.backward()
        return float(loss), [np.asarray(p.grad()) for p in params]

    (loss, gradients), (cpu_loss, cpu_gradients) = run(DaskEngine(client, chunks=(50, 4))), run(CpuEngine.serial())
    within_summation_bound(loss, cpu_loss, 10_000, abs(cpu_loss) + 1)
    for on_dask, on_numpy in zip(gradients, cpu_gradients):
        within_summation_bound(on_dask, on_numpy, 10_000, np.abs(on_numpy) + 1)


def test_a_dask_engine_changes_nothing_in_dask():
    """In a fresh process: dask's Array class, its module's functions and its dispatch
    table are the same objects after an engine ran a gradient (reductions, casts and
    broadcasts included) as before it was made, and np.add.reduce of a dask array still
    gets dask's own answer (a TypeError), not one tenferro taught it."""
    program = textwrap.dedent(
        """
        import numpy as np, dask, dask.array as da
        from dask.array import core
        before = (dict(vars(da.Array)), dict(vars(da)), dict(core._HANDLED_FUNCTIONS))
        import tenferro as tf
        from tenferro import DaskEngine, EagerRuntime
        engine = DaskEngine(chunks=3)
        rt = EagerRuntime(engine=engine)
        x = rt.variable_from(np.linspace(0.0, 1.0, 12).reshape(4, 3).astype(np.float32))
        loss = rt.with_eager_session(
            engine, lambda s: s.reduce_sum(s.mul(s.astype(x, "float64"), s.logsumexp(x, (1,))[:, None]), None)
        )
        loss.backward(engine)
        with dask.config.set(scheduler="synchronous"):
            assert np.isfinite(float(loss)) and np.asarray(x.grad()).shape == (4, 3)
        after = (dict(vars(da.Array)), dict(vars(da)), dict(core._HANDLED_FUNCTIONS))
        for was, now in zip(before, after):
            assert was.keys() == now.keys() and all(was[k] is now[k] for k in was), set(now) ^ set(was)
        try:
            np.add.reduce(da.ones(4), axis=0)
        except TypeError:
            print("untouched")
        """
    )
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0 and run.stdout.strip() == "untouched", run.stdout + run.stderr


@pytest.mark.parametrize(
    "index, shape",
    [
        ((0, slice(None, None, -1)), (1, 1, 2)),
        ((0, slice(None, None, -1)), (1, 1)),
        ((slice(None, None, -2), slice(1, None, -1)), (5, 4)),
        ((slice(3, 0, -1),), (6,)),
    ],
)
def test_the_gradient_of_a_reversed_slice_is_cpu_engines_bitwise(index, shape):
    """Found by the dask_engine check (dev profile): slice's VJP assigned the cotangent
    through a negative-step slice, which dask's assignment misplaces (the values landed
    reversed) or refuses (IndexError); it now assigns through the positive-step slice
    over the same elements, the cotangent flipped."""
    grads = []
    for engine in (CpuEngine.serial(), DaskEngine(chunks=2)):
        rt = EagerRuntime(engine=engine)
        x = rt.variable_from(np.arange(float(np.prod(shape))).reshape(shape))
        y = rt.with_eager_session(engine, lambda s, x=x: s.slice(x, index))
        cotangent = np.random.default_rng(0).standard_normal(y.shape)
        with dask.config.set(scheduler="synchronous"):
            grads.append(np.asarray(y.backward_with(Tensor.from_numpy(cotangent), engine=engine)[x]))
    np.testing.assert_array_equal(grads[1], grads[0])
