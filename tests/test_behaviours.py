"""Behaviours B1-B16 of docs/behaviour.md, one test (or a few) each, on the seed workload
(f(x) = sum(sin(x) * x**2), N = 1000; docs/behaviour.md says where it comes from)."""

import warnings

import numpy as np
import pytest
from conftest import N, exact_grad, exact_hvp, seed_program

from tenferro import (
    ContextMismatch,
    CpuEngine,
    DTypeError,
    EagerRuntime,
    EngineBusy,
    Gradients,
    GradInactive,
    NonScalarGrad,
    SessionClosed,
    SessionEntryError,
    ShapeMismatch,
    Tensor,
)


def test_b1_tensor_column_major_round_trip():
    t = Tensor.from_vec_col_major([2, 3], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert t.shape == (2, 3)
    assert t.dtype == np.float64
    np.testing.assert_array_equal(t.to_numpy(), [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
    flat = t.as_slice()
    np.testing.assert_array_equal(flat, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert not flat.flags.writeable
    view = np.asarray(t)
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0, 0] = 9.0
    copy = t.to_numpy()
    copy[0, 0] = 9.0
    assert t.to_numpy()[0, 0] == 1.0


def test_b1_from_numpy_copies():
    source = np.arange(6.0).reshape(2, 3)
    t = Tensor.from_numpy(source)
    source[0, 0] = 100.0
    assert t.to_numpy()[0, 0] == 0.0
    np.testing.assert_array_equal(t.as_slice(), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0])


def test_b1_wrong_length_is_a_shape_error():
    with pytest.raises(ShapeMismatch, match=r"shape \[2, 3\] holds 6 elements, but data has 5"):
        Tensor.from_vec_col_major([2, 3], [1.0] * 5)


def test_b2_variables_constants_and_tracking(rt, eng, seed_xs):
    x, p, loss = seed_program(rt, eng, seed_xs)
    c = rt.constant_from(Tensor.from_numpy(seed_xs))
    assert x.tracks_grad() and x.is_variable()
    assert not c.tracks_grad()
    assert p.tracks_grad() and loss.tracks_grad()
    from_constants = rt.with_eager_session(eng, lambda s: s.sin(c))
    assert not from_constants.tracks_grad()


def test_b3_session_returns_callback_value_and_context_manager_agrees(rt, eng, seed_xs):
    x, p, loss = seed_program(rt, eng, seed_xs)
    with rt.eager_session(eng) as s:
        p2 = s.mul(s.sin(x), s.mul(x, x))
        loss2 = s.reduce_sum(p2, None)
    assert np.array_equal(np.asarray(p2), np.asarray(p))
    assert np.asarray(loss2) == np.asarray(loss)
    assert rt.with_eager_session(eng, lambda s: 42) == 42


def test_b3_ops_do_not_mutate_and_values_are_read_only(rt, eng, seed_xs):
    x, p, _ = seed_program(rt, eng, seed_xs)
    np.testing.assert_array_equal(np.asarray(x), seed_xs)
    for tensor in (x, p):
        with pytest.raises(ValueError):
            np.asarray(tensor)[0] = 1.0


def test_b3_session_is_closed_after_its_block(rt, eng, seed_xs):
    x = rt.variable_from(Tensor.from_numpy(seed_xs))
    escaped = rt.with_eager_session(eng, lambda s: s)
    with pytest.raises(SessionClosed, match="sin: this session has ended"):
        escaped.sin(x)


def test_b4_seed_gradient_is_exact_to_the_last_bit(rt, eng, seed_xs):
    x, p, loss = seed_program(rt, eng, seed_xs)
    loss.backward(eng)
    g = x.grad().as_slice()
    assert g.shape == (N,)
    assert np.max(np.abs(g - exact_grad(seed_xs))) <= 4.441e-16
    np.testing.assert_allclose(g[:3], [1.972602, 1.993120, 2.013449], atol=5e-7)


def test_b5_non_leaf_grad_is_none_without_warning(rt, eng, seed_xs):
    x, p, loss = seed_program(rt, eng, seed_xs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss.backward(eng)
        assert p.grad() is None
        assert loss.grad() is None
    assert x.grad() is not None


def test_b6_second_backward_doubles_bitwise_and_clear_grad_restarts(rt, eng, seed_xs):
    x, p, loss = seed_program(rt, eng, seed_xs)
    loss.backward(eng)
    first = x.grad().to_numpy()
    loss.backward(eng)
    assert np.array_equal(x.grad().to_numpy(), 2 * first)
    np.testing.assert_allclose(x.grad().as_slice()[:3], [3.945205, 3.986240, 4.026898], atol=5e-7)
    x.clear_grad()
    assert x.grad() is None
    _, _, loss_again = _rerun(rt, eng, x)
    loss_again.backward(eng)
    assert np.array_equal(x.grad().to_numpy(), first)


def _rerun(rt, eng, x):
    def body(s):
        p = s.mul(s.sin(x), s.mul(x, x))
        return x, p, s.reduce_sum(p, None)

    return rt.with_eager_session(eng, body)


def test_b7_backward_of_non_scalar(rt, eng, seed_xs):
    x, p, _ = seed_program(rt, eng, seed_xs)
    with pytest.raises(NonScalarGrad) as info:
        p.backward(eng)
    # the seed's message, then what to do about it
    assert str(info.value).startswith("grad requires a scalar output, got shape [1000]; ")
    assert "s.reduce_sum(out, None)" in str(info.value) and "backward_with(v)" in str(info.value)
    assert info.value.shape == (1000,)
    assert x.grad() is None


def test_b8_backward_with_seeds_the_cotangent(rt, eng, seed_xs, seed_vs):
    x, p, loss = seed_program(rt, eng, seed_xs)
    v = rt.constant_from(Tensor.from_vec_col_major([N], seed_vs))
    p.backward_with(eng, v)
    assert np.max(np.abs(x.grad().as_slice() - seed_vs * exact_grad(seed_xs))) <= 8.882e-16


def test_b8_backward_with_ones_equals_backward_bitwise(rt, eng, seed_xs):
    x, p, loss = seed_program(rt, eng, seed_xs)
    loss.backward(eng)
    expected = x.grad().to_numpy()
    x.clear_grad()
    p.backward_with(eng, rt.constant_from(Tensor.from_numpy(np.ones(N))))
    assert np.array_equal(x.grad().to_numpy(), expected)


def test_b8_bad_cotangents(rt, eng, seed_xs):
    x, p, _ = seed_program(rt, eng, seed_xs)
    other = EagerRuntime()
    with pytest.raises(ContextMismatch, match="cotangent v belongs to"):
        p.backward_with(eng, other.constant_from(Tensor.from_numpy(np.ones(N))))
    with pytest.raises(ShapeMismatch, match=r"cotangent v has shape \[999\], but the output has shape \[1000\]"):
        p.backward_with(eng, rt.constant_from(Tensor.from_numpy(np.ones(N - 1))))
    with pytest.raises(DTypeError, match="cotangent v has dtype float32, but the output has dtype float64"):
        p.backward_with(eng, rt.constant_from(Tensor.from_numpy(np.ones(N, np.float32))))
    assert x.grad() is None


def test_b9_functional_grad_and_hvp(rt, eng, seed_xs, seed_vs):
    x, p, loss = seed_program(rt, eng, seed_xs)
    loss.backward(eng)
    first = x.grad().to_numpy()
    x.clear_grad()
    gf = rt.grad(eng, loss, x)
    assert np.array_equal(np.asarray(gf), first)
    assert x.grad() is None
    assert gf.tracks_grad()
    vt = rt.constant_from(Tensor.from_vec_col_major([N], seed_vs))
    gv = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(gf, vt), None))
    hv = rt.grad(eng, gv, x)
    # the seed page prints 1.776e-15: that is 2**-49, 8 ulps of values near 4
    assert np.max(np.abs(np.asarray(hv) - exact_hvp(seed_xs, seed_vs))) <= 2.0**-49
    assert x.grad() is None


def test_b9_wrt_list(rt, eng):
    a = rt.variable_from(Tensor.from_numpy(np.array([1.0, 2.0])))
    b = rt.variable_from(Tensor.from_numpy(np.array([3.0, 5.0])))
    out = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(a, b), None))
    ga, gb = rt.grad(eng, out, [a, b])
    np.testing.assert_array_equal(np.asarray(ga), [3.0, 5.0])
    np.testing.assert_array_equal(np.asarray(gb), [1.0, 2.0])


def test_b10_grad_wrt_intermediate_or_unused_is_inactive(rt, eng, seed_xs):
    x, p, loss = seed_program(rt, eng, seed_xs)
    with pytest.raises(GradInactive, match="grad is inactive: wrt\\[0\\] .* is an intermediate result"):
        rt.grad(eng, loss, p)
    unused = rt.variable_from(Tensor.from_numpy(np.ones(3)))
    with pytest.raises(GradInactive, match="grad is inactive: the output does not depend on wrt\\[0\\]"):
        rt.grad(eng, loss, unused)
    const = rt.constant_from(Tensor.from_numpy(np.ones(3)))
    with pytest.raises(GradInactive, match="grad is inactive"):
        rt.grad(eng, loss, const)


def test_b11_no_grad_records_nothing(rt, eng, seed_xs):
    x = rt.variable_from(Tensor.from_vec_col_major([N], seed_xs))
    with rt.no_grad():
        y = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(x, x), None))
    assert not y.tracks_grad()
    assert float(np.asarray(y)) == pytest.approx(np.sum(seed_xs**2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grads = y.backward(eng)
    assert isinstance(grads, Gradients) and len(grads) == 0
    assert x.grad() is None


def test_b11_no_grad_inside_a_session_and_restored_after(rt, eng, seed_xs):
    x = rt.variable_from(Tensor.from_numpy(seed_xs))
    with rt.eager_session(eng) as s:
        with rt.no_grad():
            y = s.sin(x)
        z = s.sin(x)
    assert not y.tracks_grad() and z.tracks_grad()


def test_b12_detach_is_a_constant_copy(rt, eng, seed_xs):
    x = rt.variable_from(Tensor.from_vec_col_major([N], seed_xs))
    z = x.detach(eng)
    assert not z.tracks_grad()
    loss = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(z, x), None))
    loss.backward(eng)
    assert np.array_equal(x.grad().to_numpy(), seed_xs)


def test_b13_two_runtimes_in_one_op(rt, eng):
    other = EagerRuntime()
    a = rt.variable_from(Tensor.from_numpy(np.ones(2)))
    b = other.variable_from(Tensor.from_numpy(np.ones(2)))
    with pytest.raises(ContextMismatch) as info:
        rt.with_eager_session(eng, lambda s: s.mul(a, b))
    assert repr(rt) in str(info.value) and repr(other) in str(info.value)
    assert "mul: argument 'b'" in str(info.value)


def test_b14_gradients_mapping(rt, eng):
    a = rt.variable_from(Tensor.from_numpy(np.array([1.0, 2.0])))
    b = rt.variable_from(Tensor.from_numpy(np.array([3.0])))
    out = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(a, b), None))
    grads = out.backward(eng)
    assert len(grads) == 2
    np.testing.assert_array_equal(grads[a].to_numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(grads[b].to_numpy(), [3.0])
    assert a in grads and b in grads
    pairs = {id(var): t.to_numpy().tolist() for var, t in grads}
    assert pairs == {id(a): [3.0, 3.0], id(b): [3.0]}
    # the call's own gradients, while the slots accumulate
    out.backward(eng)
    np.testing.assert_array_equal(out.backward(eng)[a].to_numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(a.grad().to_numpy(), [9.0, 9.0])


def test_b15_engine_is_borrowed_not_shared(rt, eng, seed_xs):
    x, p, loss = seed_program(rt, eng, seed_xs)
    with pytest.raises(EngineBusy, match="already lent to a session"):
        rt.with_eager_session(eng, lambda s: rt.with_eager_session(eng, lambda inner: None))
    with pytest.raises(SessionEntryError):
        rt.with_eager_session(eng, lambda s: loss.backward(eng))
    with pytest.raises(EngineBusy):
        rt.with_eager_session(eng, lambda s: rt.grad(eng, loss, x))
    assert x.grad() is None
    # a second engine works inside, and the first is free again afterwards
    other = CpuEngine.serial()
    assert rt.with_eager_session(eng, lambda s: len(loss.backward(other))) == 1
    assert not eng.busy
    loss.backward(eng)


def test_b15_engine_released_when_the_body_raises(rt, eng):
    with pytest.raises(ZeroDivisionError):
        rt.with_eager_session(eng, lambda s: 1 / 0)
    assert not eng.busy


def test_b16_trace_lists_the_program(rt, eng, seed_xs):
    _, p, loss = seed_program(rt, eng, seed_xs)
    listing = loss.trace()
    assert str(listing).splitlines() == [
        "inputs a:f64[1000]",
        "  b = sin a         # f64[1000]",
        "  c = mul a a       # f64[1000]",
        "  d = mul b c       # f64[1000]",
        "  e = reduce_sum d  # f64[]",
        "output e",
    ]
    assert repr(listing) == str(listing)


def test_b16_trace_names_constants_and_scalars(rt, eng):
    x = rt.variable_from(Tensor.from_numpy(np.ones(2)))
    c = rt.constant_from(Tensor.from_numpy(np.ones(2)))
    y = rt.with_eager_session(eng, lambda s: s.mul(s.add(x, c), 2.0))
    lines = str(y.trace()).splitlines()
    assert lines[0] == "inputs a:f64[2]"
    assert lines[1] == "consts b:f64[2]"
    assert lines[2].startswith("  c = add a b")
    assert lines[3].startswith("  d = mul c 2.0")
