"""Bad input gets a TenferroError naming the op and the argument; state is never half-updated."""

import numpy as np
import pytest

from tenferro import (
    ArgumentError,
    AxisError,
    CpuEngine,
    DTypeError,
    EagerRuntime,
    KernelError,
    OpSpec,
    RuleError,
    ShapeMismatch,
    TenferroError,
    Tensor,
    UnknownOp,
    hookimpl,
)

RT = EagerRuntime(engine=CpuEngine.serial())
ALL_ERROR_INPUTS = [
    (spec, case)
    for spec in sorted(RT.registry, key=lambda s: s.name)
    if spec.error_inputs
    for case in spec.error_inputs()
]


def _call(rt, name, *args, **params):
    return rt.with_eager_session(lambda s: getattr(s, name)(*args, **params))


def _const(rt, array):
    return rt.constant_from(Tensor.from_numpy(array)) if isinstance(array, np.ndarray) else array


@pytest.mark.parametrize(
    "spec, case", ALL_ERROR_INPUTS, ids=[f"{spec.name}-{i}" for i, (spec, _) in enumerate(ALL_ERROR_INPUTS)]
)
def test_declared_error_inputs_raise_the_declared_error(spec, case):
    with pytest.raises(case.error, match=case.match) as info:
        _call(RT, spec.name, *(_const(RT, a) for a in case.args), **case.params)
    assert spec.name in str(info.value)
    assert info.value.__cause__ is None or isinstance(info.value.__cause__, TenferroError)


def test_every_op_declares_error_inputs():
    missing = [spec.name for spec in RT.registry if spec.error_inputs is None]
    assert missing == []


def test_broadcast_mismatch_names_both_arguments(rt):
    a = rt.constant_from(Tensor.from_numpy(np.zeros((2, 3))))
    b = rt.variable_from(Tensor.from_numpy(np.zeros(4)))
    with pytest.raises(ShapeMismatch) as info:
        _call(rt, "add", a, b)
    assert str(info.value) == (
        "add: shapes [2, 3] (a), [4] (b) do not broadcast together; sizes must match or be 1 in every trailing axis"
    )


def test_bool_into_sin(rt):
    with pytest.raises(DTypeError, match="sin: argument 'x' has dtype bool; sin accepts float or integer"):
        _call(rt, "sin", rt.constant_from(Tensor.from_numpy(np.array([True]))))


def test_axis_errors(rt):
    x = rt.variable_from(Tensor.from_numpy(np.zeros((2, 3))))
    with pytest.raises(
        AxisError, match=r"reduce_sum: axis 2 is out of range for a tensor with 2 dims \(valid: -2..1\)"
    ):
        _call(rt, "reduce_sum", x, 2)
    with pytest.raises(AxisError, match="reduce_max: axes \\(0, -2\\) name the same axis twice"):
        _call(rt, "reduce_max", x, (0, -2))
    with pytest.raises(AxisError, match="tuple of ints"):
        _call(rt, "reduce_sum", x, True)
    assert isinstance(AxisError("x"), IndexError)


def test_wrong_number_of_arguments(rt):
    x = rt.variable_from(Tensor.from_numpy(np.zeros(2)))
    with pytest.raises(ArgumentError, match=r"mul is missing argument 'b'; its signature is mul\(a, b\)"):
        _call(rt, "mul", x)
    with pytest.raises(ArgumentError, match=r"sin takes at most 1 arguments \(sin\(x\)\), got 2"):
        _call(rt, "sin", x, x)
    with pytest.raises(
        ArgumentError, match="reduce_sum has no argument 'axis'; its signature is reduce_sum\\(x, axes=None\\)"
    ):
        _call(rt, "reduce_sum", x, axis=0)
    with pytest.raises(ArgumentError, match="compare is missing argument 'op'"):
        _call(rt, "compare", x, x)


def test_unknown_op_suggests_a_close_name(rt):
    with pytest.raises(UnknownOp, match="no op named 'sinn' is registered; did you mean 'sin'"):
        _call(rt, "sinn")
    with pytest.raises(AttributeError):  # UnknownOp is an AttributeError: hasattr works
        _call(rt, "reduce_summ")
    with rt.eager_session() as s:
        assert not hasattr(s, "no_such_op")
        assert hasattr(s, "mul")


def test_non_tensor_arguments_are_rejected_with_a_hint(rt):
    x = rt.variable_from(Tensor.from_numpy(np.zeros(2)))
    with pytest.raises(ArgumentError, match="mul: argument 'b' is a ndarray; wrap arrays with rt.constant_from"):
        _call(rt, "mul", x, np.ones(2))
    with pytest.raises(ArgumentError, match="argument 'b' is a list"):
        _call(rt, "mul", x, [1.0, 2.0])
    with pytest.raises(ArgumentError, match="every argument is a scalar"):
        _call(rt, "add", 1.0, 2.0)


def test_integer_power_with_negative_exponent(rt):
    base = rt.constant_from(Tensor.from_numpy(np.array([2, 3])))
    with pytest.raises(DTypeError, match="pow: an integer base with a negative integer exponent"):
        _call(rt, "pow", base, -1)


def test_variables_must_be_float(rt):
    with pytest.raises(DTypeError, match="variable_from: a variable must be float32 or float64, got int64"):
        rt.variable_from(Tensor.from_numpy(np.arange(3)))


def test_engine_missing(eng):
    rt = EagerRuntime()
    with pytest.raises(ArgumentError, match="with_eager_session: pass an engine"):
        rt.with_eager_session(lambda s: None)
    with pytest.raises(ArgumentError, match="expected an engine such as CpuEngine.serial"):
        rt.with_eager_session("cpu", lambda s: None)


def test_unforeseen_kernel_failure_is_a_kernel_error():
    class Plugin:
        @hookimpl
        def tenferro_register_ops(self, registry):
            registry.add(OpSpec(name="explode", inputs=("x",), forward=lambda x: x[100]))

    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[Plugin()], entry_points=False)
    x = rt.constant_from(Tensor.from_numpy(np.zeros(2)))
    with pytest.raises(KernelError, match="explode \\(plugin 'Plugin'\\) failed: IndexError"):
        _call(rt, "explode", x)


class _BadRules:
    """Ops whose VJPs break the rules, to check the sweep catches them before any slot changes."""

    @hookimpl
    def tenferro_register_ops(self, registry):
        registry.add(OpSpec(name="wrong_count", inputs=("x",), forward=np.sin, vjp=lambda s, g, inputs, out: (g, g)))
        registry.add(
            OpSpec(name="wrong_shape", inputs=("x",), forward=np.sin, vjp=lambda s, g, inputs, out: (s.sum_to(g, ()),))
        )
        registry.add(
            OpSpec(
                name="wrong_dtype",
                inputs=("x",),
                forward=np.sin,
                vjp=lambda s, g, inputs, out: (s.astype(g, "float32"),),
            )
        )
        registry.add(
            OpSpec(name="raw_array", inputs=("x",), forward=np.sin, vjp=lambda s, g, inputs, out: (np.ones(2),))
        )
        registry.add(
            OpSpec(
                name="undeclared_residual",
                inputs=("x",),
                forward=np.sin,
                residuals=(),
                vjp=lambda s, g, inputs, out: (s.mul(g, s.cos(inputs[0])),),
            )
        )


@pytest.fixture
def bad_rt():
    from tenferro.plugins import elementwise, reduce

    return EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, reduce, _BadRules()], entry_points=False)


@pytest.mark.parametrize(
    "op, message",
    [
        ("wrong_count", "returned 2 cotangents for 1 inputs"),
        ("wrong_shape", r"cotangent of type f64\[\] for input 0 \('x'\) of type f64\[2\]"),
        ("wrong_dtype", r"cotangent of type f32\[2\] for input 0 \('x'\) of type f64\[2\]"),
        ("raw_array", "returned ndarray for input 0"),
        ("undeclared_residual", "argument 'x' is the result of add, whose value the trace did not keep"),
    ],
)
def test_a_failing_backward_leaves_every_slot_unchanged(bad_rt, op, message):
    x = bad_rt.variable_from(Tensor.from_numpy(np.array([1.0, 2.0])))
    y = bad_rt.variable_from(Tensor.from_numpy(np.array([3.0, 4.0])))
    loss = bad_rt.with_eager_session(lambda s: s.reduce_sum(s.mul(y, s.add(y, getattr(s, op)(s.add(x, 0.0)))), None))
    first = bad_rt.with_eager_session(lambda s: s.reduce_sum(s.mul(y, y), None))
    first.backward()
    before = y.grad().to_numpy()
    with pytest.raises(RuleError, match=message) as info:
        loss.backward()
    assert op in str(info.value) and "_BadRules" in str(info.value)
    assert x.grad() is None
    assert np.array_equal(y.grad().to_numpy(), before)
