"""The reverse sweep: deep chains, the needs-grad mask, recording only inside rt.grad,
accumulation, dtypes and Python scalars."""

import gc

import numpy as np
import pytest

from tenferro import CpuEngine, EagerRuntime, OpSpec, Tensor, hookimpl


def test_a_100000_op_chain_backpropagates_without_recursion(rt):
    x = rt.variable_from(Tensor.from_numpy(np.array([0.5, -0.25])))

    def chain(s):
        y = x
        for _ in range(100_000):
            y = s.mul(y, 1.0)
        return s.reduce_sum(y, None)

    loss = rt.with_eager_session(chain)
    loss.backward()
    np.testing.assert_array_equal(x.grad().to_numpy(), [1.0, 1.0])
    assert len(str(loss.trace()).splitlines()) == 100_003
    gx = rt.grad(loss, x)
    np.testing.assert_array_equal(np.asarray(gx), [1.0, 1.0])
    del loss, gx
    gc.collect()  # freeing a deep trace must not overflow the C stack either


class _Probe:
    """An op `probe` = sin whose VJP logs whether its session records and which inputs it is asked for."""

    def __init__(self):
        self.calls = []

    @hookimpl
    def tenferro_register_ops(self, registry):
        def vjp(s, g, inputs, out):
            ct = s.mul(g, s.cos(inputs[0]))
            self.calls.append({"records": ct.tracks_grad(), "needs": s.needs_grad(inputs[0])})
            return (ct,)

        registry.add(OpSpec(name="probe", inputs=("x",), forward=np.sin, vjp=vjp))


@pytest.fixture
def probe_rt():
    probe = _Probe()
    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[probe])
    return rt, probe


def test_backward_builds_no_derivative_trace_but_grad_does(probe_rt):
    rt, probe = probe_rt
    x = rt.variable_from(Tensor.from_numpy(np.array([0.3])))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.probe(x), None))
    loss.backward()
    assert probe.calls == [{"records": False, "needs": True}]
    probe.calls.clear()
    rt.grad(loss, x)
    assert probe.calls == [{"records": True, "needs": True}]
    probe.calls.clear()
    with rt.no_grad():
        g = rt.grad(loss, x)
    assert probe.calls == [{"records": False, "needs": True}] and not g.tracks_grad()


def test_constants_and_branches_that_lead_nowhere_get_no_work(probe_rt):
    rt, probe = probe_rt
    x = rt.variable_from(Tensor.from_numpy(np.array([0.3])))
    y = rt.variable_from(Tensor.from_numpy(np.array([0.7])))
    c = rt.constant_from(Tensor.from_numpy(np.array([0.1])))

    def body(s):
        return s.reduce_sum(s.add(s.mul(x, s.probe(c)), s.probe(y)), None)

    loss = rt.with_eager_session(body)
    loss.backward()
    assert len(probe.calls) == 1  # probe(c) has nothing to differentiate
    probe.calls.clear()
    gx = rt.grad(loss, x)  # probe(y) does not lead to x
    assert probe.calls == []
    np.testing.assert_allclose(np.asarray(gx), np.sin([0.1]))


def test_cotangents_reaching_a_tensor_twice_are_added(rt):
    x = rt.variable_from(Tensor.from_numpy(np.array([2.0])))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.add(s.mul(x, x), s.mul(x, 3.0)), None))
    assert "add_any" not in str(loss.trace())
    g = rt.grad(loss, x)
    np.testing.assert_array_equal(np.asarray(g), [7.0])
    assert "add_any" in str(g.trace())
    np.testing.assert_array_equal(np.asarray(rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(g, None)), x)), [2.0])


def test_float32_stays_float32_and_mixed_precision_casts_back(rt):
    x32 = rt.variable_from(Tensor.from_numpy(np.array([1.0, 2.0], np.float32)))
    y64 = rt.variable_from(Tensor.from_numpy(np.array([3.0], np.float64)))
    same = rt.with_eager_session(lambda s: s.mul(s.sin(x32), 2.0))
    assert same.dtype == np.float32
    mixed = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(x32, y64), None))
    assert mixed.dtype == np.float64
    grads = mixed.backward()
    assert grads[x32].dtype == np.float32 and grads[y64].dtype == np.float64
    np.testing.assert_array_equal(grads[x32].to_numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(grads[y64].to_numpy(), [3.0])


def test_python_and_numpy_scalars_are_constants(rt):
    x = rt.variable_from(Tensor.from_numpy(np.array([1.0, 4.0])))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.add(s.pow(x, 2), s.div(3.0, x)), None))
    g = rt.grad(loss, x)
    np.testing.assert_allclose(np.asarray(g), 2 * np.array([1.0, 4.0]) - 3.0 / np.array([1.0, 16.0]))
    x32 = rt.variable_from(Tensor.from_numpy(np.array([1.0], np.float32)))
    assert rt.with_eager_session(lambda s: s.mul(x32, np.float64(2.0))).dtype == np.float64


def test_integer_and_bool_results_are_constants(rt):
    x = rt.variable_from(Tensor.from_numpy(np.array([1.0, -2.0])))
    mask = rt.with_eager_session(lambda s: s.compare(x, 0.0, "gt"))
    assert mask.dtype == np.bool_ and not mask.tracks_grad()
    as_int = rt.with_eager_session(lambda s: s.astype(x, "int64"))
    assert as_int.dtype == np.int64 and not as_int.tracks_grad()


def test_backward_of_a_variable_itself(rt):
    x = rt.variable_from(Tensor.from_numpy(np.array(3.0)))
    x.backward()
    assert x.grad().to_numpy() == 1.0


def test_zero_derivative_paths_give_zeros(rt):
    x = rt.variable_from(Tensor.from_numpy(np.array([1.5, -2.0])))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.sign(x), None))
    grads = loss.backward()
    np.testing.assert_array_equal(grads[x].to_numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(np.asarray(rt.grad(loss, x)), [0.0, 0.0])
    # the zero branch hides variables further down: they are reached, so they get zeros too
    y = rt.variable_from(Tensor.from_numpy(np.array([0.5])))
    deep = rt.with_eager_session(lambda s: s.reduce_sum(s.add(s.sign(s.sin(s.mul(x, y))), s.mul(y, 3.0)), None))
    grads = deep.backward()
    np.testing.assert_array_equal(grads[x].to_numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(grads[y].to_numpy(), [6.0])  # y*3 is broadcast over 2 elements


def test_the_default_engine_can_be_left_out(seed_xs):
    rt = EagerRuntime(engine=CpuEngine.serial())
    x = rt.variable_from(Tensor.from_numpy(seed_xs))
    with rt.eager_session() as s:
        loss = s.reduce_sum(s.mul(x, x), None)
    loss.backward()
    loss.backward_with(rt.constant_from(Tensor.from_numpy(np.array(1.0))))
    np.testing.assert_array_equal(x.grad().to_numpy(), 4 * seed_xs)
    assert not x.detach().tracks_grad()


def test_zero_derivative_branches_are_walked_once_not_once_per_step(rt, monkeypatch):
    """An unrolled soft-thresholding loop: every step multiplies by sign(y), whose derivative
    is zero. Finding the variables below those zero branches must take time linear in the
    depth (it was quadratic: 24 s for 4 000 steps against a 0.22 s forward)."""
    import tenferro.core.sweep as sweep

    visits = []
    original = sweep.reachable

    def counted(*roots):
        found = original(*roots)
        visits.append(len(found))
        return found

    monkeypatch.setattr(sweep, "reachable", counted)
    x = rt.variable_from(np.array([0.9, -1.7, 2.5]))
    steps = 2000

    def body(s):
        y = x
        for _ in range(steps):
            y = s.mul(s.sign(y), s.maximum(s.sub(s.abs(y), 1e-4), 0.0))
        return s.reduce_sum(y, None)

    loss = rt.with_eager_session(body)
    loss.backward()
    assert sum(visits) <= 8 * steps  # each vertex walked once (it was ~steps**2 / 2 visits)
    np.testing.assert_array_equal(x.grad().to_numpy(), [1.0, 1.0, 1.0])


def test_backward_through_mul_of_an_empty_tensor(rt):
    x = rt.variable_from(np.zeros((0, 3)))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(x, x), None))
    loss.backward()
    assert x.grad().shape == (0, 3)
    gx = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(x, 2.0), None)), x)
    assert gx.shape == (0, 3)


def test_a_vjp_may_return_a_list_or_a_generator_of_cotangents():
    class Plugin:
        @hookimpl
        def tenferro_register_ops(self, registry):
            def as_list(s, g, inputs, out):
                return [s.mul(g, s.cos(inputs[0]))]

            def as_generator(s, g, inputs, out):
                yield s.mul(g, s.cos(inputs[0]))

            registry.add(OpSpec(name="sin_list", inputs=("x",), forward=np.sin, vjp=as_list))
            registry.add(OpSpec(name="sin_gen", inputs=("x",), forward=np.sin, vjp=as_generator))

    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[Plugin()])
    for op in ("sin_list", "sin_gen"):
        x = rt.variable_from(np.array([0.5, 1.0]))
        rt.with_eager_session(lambda s, op=op, x=x: s.reduce_sum(getattr(s, op)(x), None)).backward()
        np.testing.assert_array_equal(x.grad().to_numpy(), np.cos([0.5, 1.0]))


class _Keeper:
    """An op `shared(a, b) = a + b` whose VJP hands one fresh tensor to both inputs, and an
    op `kept(x) = 2x` whose VJP keeps the cotangent it returns (as a cache would)."""

    def __init__(self):
        self.kept = []

    @hookimpl
    def tenferro_register_ops(self, registry):
        def shared_vjp(s, g, inputs, out):
            ct = s.mul(g, 1.0)
            return (ct, ct)

        def kept_vjp(s, g, inputs, out):
            ct = s.mul(g, 2.0)
            self.kept.append((ct, ct.value().to_numpy()))
            return (ct,)

        registry.add(OpSpec(name="shared", inputs=("a", "b"), forward=np.add, vjp=shared_vjp))
        registry.add(OpSpec(name="kept", inputs=("x",), forward=lambda x: 2.0 * x, vjp=kept_vjp))


@pytest.fixture
def keeper_rt():
    keeper = _Keeper()
    return EagerRuntime(engine=CpuEngine.serial(), plugins=[keeper]), keeper


def test_accumulating_cotangents_never_writes_into_one_a_rule_shared_or_kept(keeper_rt):
    rt, keeper = keeper_rt
    xs = np.linspace(-1.0, 1.0, 5)
    x = rt.variable_from(xs)

    def f(s):
        a, b = s.sin(x), s.cos(x)
        y = s.shared(a, b)  # one tensor goes to a and to b
        z = s.add(s.mul(a, 3.0), s.mul(b, 5.0))  # a and b get a second cotangent each
        w = s.kept(x)  # its cotangent reaches x, which then gets more
        return s.reduce_sum(s.add(s.add(y, z), w), None)

    loss = rt.with_eager_session(f)
    loss.backward()
    expected = (1.0 + 3.0) * np.cos(xs) - (1.0 + 5.0) * np.sin(xs) + 2.0
    np.testing.assert_allclose(x.grad().to_numpy(), expected, rtol=1e-15, atol=1e-15)
    ((ct, value),) = keeper.kept
    np.testing.assert_array_equal(np.asarray(ct), value)  # the rule's own tensor is unchanged


def test_backward_adds_a_cotangent_into_a_buffer_only_the_sweep_holds(rt):
    from tenferro.core.recording import no_grad
    from tenferro.core.sweep import _accumulate

    def fresh():
        return rt.constant_from(np.full(4, 1.5))

    with no_grad(rt), rt.rule_session() as s:
        pending = {"v": fresh()}
        total = _accumulate(s, pending["v"], fresh())
        assert total is pending["v"]  # written into the running sum's own buffer
        np.testing.assert_array_equal(np.asarray(total), np.full(4, 3.0))
        held = pending["v"]  # a second holder: the sum goes to a new tensor
        again = _accumulate(s, pending["v"], fresh())
        assert again is not held and np.array_equal(np.asarray(held), np.full(4, 3.0))
        pending = {"v": fresh()}
        view = np.asarray(pending["v"])  # a view of the buffer: never written
        assert _accumulate(s, pending["v"], fresh()) is not pending["v"]
        np.testing.assert_array_equal(view, np.full(4, 1.5))
    with rt.rule_session() as s:  # recording (rt.grad): never in place
        pending = {"v": fresh()}
        assert _accumulate(s, pending["v"], fresh()) is not pending["v"]


def test_a_cotangent_only_the_sweep_holds_is_returned_as_it_is_not_copied():
    """A copy costs a pass over memory, and inside rt.grad an op: only a cotangent that
    something else holds is copied (a function transform's rows end at stops, each once)."""
    import weakref

    from tenferro.core.eager import vertex
    from tenferro.core.sweep import reverse_sweep

    made = []

    class _Scale:
        @hookimpl
        def tenferro_register_ops(self, registry):
            def rule(s, g, out, x):
                ct = s.mul(g, 3.0)
                made.append(weakref.ref(ct._value))
                return ct

            registry.add(OpSpec(name="scale3", inputs=("x",), forward=lambda x: 3.0 * x, vjps=(rule,)))

    from tenferro.plugins import elementwise

    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, _Scale()])
    x = rt.variable_from([1.0, 2.0])
    with rt.eager_session() as s:
        stop = s.sin(x)
        out = s.scale3(s.scale3(stop))
    seed = rt.constant_from([1.0, 1.0])
    with rt.no_grad(), CpuEngine.serial().lend("a test"), rt.rule_session() as s:
        for stops in ((), (vertex(stop),)):
            made.clear()
            leaves = reverse_sweep(s, [(vertex(out), seed)], stops)
            if stops:  # the stop's cotangent is the last rule's own tensor
                assert leaves[id(vertex(stop))][1]._value is made[-1]()
            else:  # x's is sin's rule's, the gradient 9 cos(x)
                np.testing.assert_array_equal(np.asarray(leaves[id(x)][1]), 9.0 * np.cos([1.0, 2.0]))


def test_accumulating_never_writes_into_an_array_a_weak_reference_holds():
    """Identity caches (an LU factorisation, an einsum plan; extend.is_immutable) remember
    arrays through weak references: a sum written into such an array would leave them a
    stale entry."""
    import weakref

    seen = []

    class _Watcher:
        @hookimpl
        def tenferro_register_ops(self, registry):
            def rule(s, g, out, x):
                ct = s.mul(g, 1.0)
                seen.append((weakref.ref(ct._value), ct.value().to_numpy()))
                return ct

            registry.add(OpSpec(name="watched", inputs=("x",), forward=lambda x: x + 0.0, vjps=(rule,)))

    from tenferro.plugins import elementwise, reduce

    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, reduce, _Watcher()])
    x = rt.variable_from([1.0, 2.0, 3.0])
    # the watched op is made last, so its rule's cotangent reaches x first: the running sum
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.add(s.mul(x, 5.0), s.mul(s.watched(x), 2.0)), None))
    loss.backward()
    ((ref, value),) = seen
    assert ref() is None or np.array_equal(ref(), value)  # gone with its cache entry, or unchanged
    np.testing.assert_array_equal(x.grad().to_numpy(), [7.0, 7.0, 7.0])


def test_a_second_gradient_differentiates_bitwise_like_the_first():
    """The cos(x) a recorded sweep keeps is recorded anew when a later sweep takes it, so
    derivatives of gradients do not depend on which gradient came first."""
    import tenferro as tf
    import tenferro.numpy as tnp

    rt = tf.default_runtime()
    x = tf.variable(np.linspace(-1.3, 1.7, 7))
    v = np.cos(np.arange(7))
    loss = tnp.sum(tnp.sin(x) * x * x)
    g1, g2 = rt.grad(loss, x), rt.grad(loss, x)
    h1, h2 = rt.grad(tnp.sum(g1 * v), x), rt.grad(tnp.sum(g2 * v), x)
    assert np.array_equal(np.asarray(g1), np.asarray(g2)) and np.array_equal(np.asarray(h1), np.asarray(h2))
    t1, t2 = rt.grad(tnp.sum(h1 * v), x), rt.grad(tnp.sum(h2 * v), x)
    assert np.array_equal(np.asarray(t1), np.asarray(t2))


def test_the_gradient_of_x_times_x_is_finite_where_2x_overflows(rt):
    for dtype, big in ((np.float64, 1e308), (np.float32, 2e38)):
        x = rt.variable_from(np.array([big], dtype))
        y = rt.with_eager_session(lambda s, x=x: s.mul(x, x))
        y.backward_with(rt.constant_from(np.array([0.25], dtype)))
        np.testing.assert_array_equal(x.grad().to_numpy(), np.array([big / 2], dtype))


def test_without_exact_reference_counts_every_cotangent_is_copied_and_none_added_in_place(rt, monkeypatch):
    """A free-threaded build may count references lazily: the sweep then trusts none."""
    from tenferro.core import sweep

    monkeypatch.setattr(sweep, "_COUNTS_EXACT", False)
    x = rt.variable_from(np.array([0.5, -1.5]))
    v = rt.constant_from(np.array([1.0, 2.0]))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.add(s.mul(s.sin(x), x), s.mul(x, v)), None))
    loss.backward()
    g = rt.grad(loss, x)
    expected = np.cos([0.5, -1.5]) * [0.5, -1.5] + np.sin([0.5, -1.5]) + [1.0, 2.0]
    np.testing.assert_allclose(x.grad().to_numpy(), expected, rtol=1e-15)
    np.testing.assert_array_equal(np.asarray(g), x.grad().to_numpy())
    assert not np.shares_memory(np.asarray(g), np.asarray(v))


def test_a_whole_op_rules_cotangent_of_a_variable_is_returned_as_it_is_not_copied():
    """As for per-input rules: the list a whole-op rule returns is not held past the sweep,
    so the cotangent it gave a variable is that variable's, not a copy (at N = 10^6 a copy
    would double the backward pass's peak memory)."""
    import weakref

    from tenferro.core.eager import vertex
    from tenferro.core.sweep import reverse_sweep

    made = []

    class _Scale:
        @hookimpl
        def tenferro_register_ops(self, registry):
            def vjp(s, g, inputs, out):
                ct = s.mul(g, 3.0)
                made.append(weakref.ref(ct._value))
                return (ct,)

            registry.add(OpSpec(name="scale3w", inputs=("x",), forward=lambda x: 3.0 * x, vjp=vjp))

    from tenferro.plugins import elementwise

    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, _Scale()])
    x = rt.variable_from([1.0, 2.0])
    with rt.eager_session() as s:
        out = s.scale3w(x)
    with rt.no_grad(), CpuEngine.serial().lend("a test"), rt.rule_session() as s:
        leaves = reverse_sweep(s, [(vertex(out), rt.constant_from([1.0, 1.0]))])
    assert leaves[id(x)][1]._value is made[-1]()


def test_a_nodes_cotangents_are_all_computed_before_any_is_added():
    """Inside rt.grad rules and sums are both recorded, and the order of those nodes is the
    order in which a later sweep adds cotangents: running a node's rules all first, then
    adding, keeps higher derivatives bitwise what they were (interleaving moved a third
    derivative by 4 ulp). sub's rule for y records a neg; its cotangent for cos(x) is
    added to one already waiting there."""
    rt = EagerRuntime(engine=CpuEngine.serial())
    x, y = rt.variable_from([0.3, -1.2]), rt.variable_from([2.0, 0.5])
    with rt.eager_session() as s:
        c = s.cos(x)
        loss = s.reduce_sum(s.mul(s.sub(c, y), c), None)
    gx, gy = rt.grad(loss, [x, y])
    from tenferro.core.eager import vertex
    from tenferro.core.graph import nodes_in_order, reachable

    made = [n.spec.name for n in nodes_in_order(reachable(vertex(gx), vertex(gy))) if n.seq > loss._node.seq]
    assert "neg" in made and "add_any" in made and made.index("neg") < made.index("add_any")


def test_an_error_a_rule_raises_as_it_is_leaves_no_cycle_holding_the_sweep():
    """NotDifferentiable (and a RuleError that names its op) leave a rule unchanged; the
    failed sweep's cotangents are freed by reference counting, not when the cycle
    collector happens to run."""
    import tracemalloc

    from tenferro import NotDifferentiable

    class _Refuses:
        @hookimpl
        def tenferro_register_ops(self, registry):
            def rule(s, g, out, x):
                raise NotDifferentiable("refuse: a degenerate point")

            registry.add(OpSpec(name="refuse", inputs=("x",), forward=lambda x: x + 0.0, vjps=(rule,)))

    from tenferro.plugins import elementwise, reduce

    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, reduce, _Refuses()])
    n = 200_000
    x, y = rt.variable_from(np.ones(n)), rt.variable_from(np.ones(n))
    # y's cotangent (1.6 MB) is in the sweep's results when refuse's rule raises
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.add(s.refuse(x), s.mul(y, 2.0)), None))
    gc.disable()
    tracemalloc.start()
    try:
        for differentiate in (loss.backward, lambda: rt.grad(loss, [x, y])):
            before = tracemalloc.get_traced_memory()[0]
            with pytest.raises(NotDifferentiable, match="refuse: a degenerate point"):
                differentiate()
            assert tracemalloc.get_traced_memory()[0] - before < 8 * n / 2
    finally:
        tracemalloc.stop()
        gc.enable()
