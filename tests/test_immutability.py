"""Values and op params cannot change once recorded, whatever the caller or a plugin does
with what it was handed; results handed back are fresh."""

import pickle

import numpy as np
import pytest

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import CpuEngine, EagerRuntime, KernelError, OpSpec, Tensor, hookimpl


@pytest.fixture
def rt():
    return EagerRuntime(engine=CpuEngine.serial())


# -- params --------------------------------------------------------------------------------
def test_mutating_an_axes_list_after_the_op_does_not_change_the_gradient(rt):
    x = rt.variable_from(np.arange(6.0).reshape(2, 3))
    axes = [1]
    weights = rt.constant_from([1.0, 10.0])
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(s.reduce_max(x, axes), weights), None))
    axes[0] = 0  # the caller reuses its list
    loss.backward()
    np.testing.assert_array_equal(x.grad().to_numpy(), [[0.0, 0.0, 1.0], [0.0, 0.0, 10.0]])


def test_a_generator_as_axes_is_read_once_and_kept(rt):
    x = rt.variable_from(np.arange(6.0).reshape(2, 3))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.reduce_sum(x, (a for a in [0])), None))
    loss.backward()
    np.testing.assert_array_equal(x.grad().to_numpy(), np.ones((2, 3)))
    assert "axes=(0,)" in loss.trace()


def test_an_array_param_is_copied_read_only(rt):
    target = np.array([2, 3])
    x = rt.variable_from(np.ones(3))
    y = rt.with_eager_session(lambda s: s.broadcast_to(x, target))
    target[0] = 5
    assert y.shape == (2, 3)
    assert "shape=array([2, 3])" in y.trace()


# -- values --------------------------------------------------------------------------------
class _Writer:
    """A plugin whose forward writes into its argument (a kernel bug)."""

    @hookimpl
    def tenferro_register_ops(self, registry):
        def double_in_place(x):
            x *= 2.0
            return x.copy()

        registry.add(OpSpec(name="double_in_place", inputs=("x",), forward=double_in_place))


def test_a_kernel_writing_into_an_intermediate_fails_and_corrupts_nothing():
    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[_Writer()])
    x = rt.variable_from(np.array([0.5, 1.5]))
    y = rt.with_eager_session(lambda s: s.sin(x))
    before = np.asarray(y).copy()
    with pytest.raises(KernelError, match="tried to write into an argument"):
        rt.with_eager_session(lambda s: s.double_in_place(y))
    np.testing.assert_array_equal(np.asarray(y), before)


def test_a_handed_out_array_cannot_be_made_writeable(rt):
    x = rt.variable_from(np.array([1.0, 2.0]))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(x, x), None))
    for tensor in (x, x.value()):
        array = np.asarray(tensor)
        while isinstance(array, np.ndarray):  # the view and every array it is a view of
            with pytest.raises(ValueError):
                array.flags.writeable = True
            array = array.base
    flat = x.value().as_slice()
    with pytest.raises(ValueError):
        flat.flags.writeable = True
    loss.backward()
    np.testing.assert_array_equal(x.grad().to_numpy(), [2.0, 4.0])


def test_tensor_copies_what_it_is_given():
    source = np.array([1.0, 2.0])
    t = Tensor(source)
    source[0] = 20.0
    np.testing.assert_array_equal(t.to_numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(Tensor([1.0, 2.0]).to_numpy(), [1.0, 2.0])


def test_an_unpickled_tensor_is_read_only_too():
    t = pickle.loads(pickle.dumps(Tensor.from_numpy(np.array([1.0, 2.0]))))
    with pytest.raises(ValueError):
        np.asarray(t)[0] = 5.0
    with pytest.raises(ValueError):
        np.asarray(t).flags.writeable = True
    np.testing.assert_array_equal(t.to_numpy(), [1.0, 2.0])


# -- fresh results -------------------------------------------------------------------------
def test_rt_grad_never_returns_a_tensor_the_caller_holds(rt):
    x = rt.variable_from(np.array([1.0, 2.0]))
    v = rt.variable_from(np.array([3.0, 4.0]))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(x, v), None))
    loss.backward()
    g = rt.grad(loss, x)
    assert g is not v and not g.is_variable()
    np.testing.assert_array_equal(np.asarray(g), [3.0, 4.0])
    g.clear_grad()
    np.testing.assert_array_equal(v.grad().to_numpy(), [1.0, 2.0])  # v's slot untouched
    # still a function of v: d/dv sum(g * w) = w
    w = rt.constant_from(np.array([5.0, 7.0]))
    g_dot_w = rt.with_eager_session(lambda s: s.reduce_sum(s.mul(g, w), None))
    np.testing.assert_array_equal(np.asarray(rt.grad(g_dot_w, v)), [5.0, 7.0])


def test_a_slot_never_shares_memory_with_a_constant(rt):
    x = rt.variable_from(np.array([1.0, 2.0]))
    c = rt.constant_from(np.array([3.0, 4.0]))
    rt.with_eager_session(lambda s: s.reduce_sum(s.mul(x, c), None)).backward()
    assert not np.shares_memory(np.asarray(x.grad()), np.asarray(c))
    np.testing.assert_array_equal(x.grad().to_numpy(), [3.0, 4.0])


def test_backward_with_never_stores_the_callers_cotangent(rt):
    x = rt.variable_from(np.array([1.0, 2.0]))
    v = rt.constant_from(np.array([-0.0, 5.0]))
    y = rt.with_eager_session(lambda s: s.add(x, 0.0))
    y.backward_with(v)
    assert not np.shares_memory(np.asarray(x.grad()), np.asarray(v))
    assert np.signbit(x.grad().to_numpy()[0])  # the copy is bitwise: -0.0 stays -0.0
    x2 = rt.variable_from(np.array([1.0, 2.0]))
    x2.backward_with(v)  # the output is the variable itself
    assert not np.shares_memory(np.asarray(x2.grad()), np.asarray(v))


def test_a_gradient_never_shares_memory_through_a_broadcast_view(rt):
    x = rt.variable_from(np.ones((2, 3)))
    v = rt.constant_from(np.array([1.0, 2.0]))
    o = rt.with_eager_session(lambda s: s.reduce_sum(x, 1))
    o.backward_with(v)
    assert not np.shares_memory(np.asarray(x.grad()), np.asarray(v))
    g = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(s.reduce_sum(x, 1), v), None)), x)
    assert not np.shares_memory(np.asarray(g), np.asarray(v))
    np.testing.assert_array_equal(np.asarray(g), [[1.0] * 3, [2.0] * 3])


def test_two_variables_never_get_one_tensor(rt):
    x, y = rt.variable_from([1.0, 2.0]), rt.variable_from([3.0, 4.0])
    gx, gy = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.add(x, y), None)), [x, y])
    assert gx is not gy and not np.shares_memory(np.asarray(gx), np.asarray(gy))


def test_an_eager_tensor_refuses_pickle_and_copy_with_advice(rt):
    import copy

    from tenferro import ArgumentError

    x = rt.variable_from([1.0])
    for attempt in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(ArgumentError, match=r"pickle or copy x.value\(\)"):
            attempt(x)
    assert pickle.loads(pickle.dumps(x.value())).to_numpy().tolist() == [1.0]


def test_an_object_whose_array_ignores_copy_is_copied_not_frozen():
    """tnp copied a NumPy argument once with np.array, trusting it to copy: an __array__
    that ignores copy=True handed over its own buffer, which was frozen and recorded, so a
    later write through it changed the gradient ([200, 400, 600] for [2, 8, 18])."""

    class Window:
        def __init__(self):
            self.store = np.arange(6.0)

        def __array__(self, dtype=None, copy=None):
            return self.store[1:4]

    window = Window()
    v = tf.variable(np.ones(3))
    z = tnp.sum(tnp.multiply(v, window) ** 2)
    window.store[:] = 100.0
    z.backward()
    np.testing.assert_array_equal(v.grad(), [2.0, 8.0, 18.0])
    assert window.store.flags.writeable
