"""Bad input gets a TenferroError naming the op and the argument; state is never half-updated."""

import re

import numpy as np
import pytest

from tenferro import (
    ArgumentError,
    AxisError,
    ContextMismatch,
    CpuEngine,
    DTypeError,
    EagerRuntime,
    GradInactive,
    KernelError,
    NotInGradients,
    OpSpec,
    PluginError,
    RuleError,
    ShapeMismatch,
    TenferroError,
    Tensor,
    UnknownOp,
    default_runtime,
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
    # match is a plain fragment of the message, as the conformance suite reads it
    with pytest.raises(case.error, match=re.escape(case.match)) as info:
        _call(RT, spec.name, *spec.pack([_const(RT, a) for a in case.args]), **case.params)
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
        ArgumentError,
        match="reduce_sum has no argument 'axis'; its signature is reduce_sum\\(x, axes=None, keepdims=False\\)",
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


def test_variables_must_be_float_or_complex(rt):
    with pytest.raises(
        DTypeError, match="variable_from: a variable must be float32, float64, complex64 or complex128, got int64"
    ):
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
                name="undeclared_out",
                inputs=("x",),
                forward=np.exp,
                residuals=("x",),
                vjps=(lambda s, g, out, x: s.mul(g, out),),
            )
        )
        registry.add(OpSpec(name="returns_none", inputs=("x",), forward=np.sin, vjp=lambda s, g, inputs, out: None))
        registry.add(OpSpec(name="returns_tensor", inputs=("x",), forward=np.sin, vjp=lambda s, g, inputs, out: g))
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
        ("undeclared_out", r"the result of undeclared_out, whose value the trace did not keep.*add 'out' there"),
        ("returns_none", r"returned None; return a tuple with one cotangent per input"),
        ("returns_tensor", r"returned a single EagerTensor; return a tuple with one cotangent per input"),
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


class _BadKernels:
    """Forward kernels that return something other than a proper result."""

    @hookimpl
    def tenferro_register_ops(self, registry):
        cos = lambda s, g, inputs, out: (s.mul(g, s.cos(inputs[0])),)  # noqa: E731
        for name, forward in [
            ("gives_none", lambda x: None),
            ("gives_text", lambda x: "sin"),
            ("gives_objects", lambda x: np.array([object()] * x.size)),
            ("gives_ints", lambda x: np.sin(x).astype(np.int64)),
            ("gives_half", lambda x: np.sin(x).astype(np.float16)),
            ("gives_wrong_shape", lambda x: np.sin(np.concatenate([x, x]))),
        ]:
            registry.add(OpSpec(name=name, inputs=("x",), forward=forward, vjp=cos))
        # elementwise ops whose kernels lose the broadcast shape: one doubles x, one drops b's axis
        registry.add(
            OpSpec(
                name="elementwise_doubled", inputs=("x",), forward=lambda x: np.concatenate([x, x]), elementwise=True
            )
        )
        registry.add(
            OpSpec(name="elementwise_cut", inputs=("a", "b"), forward=lambda a, b: (a + b)[..., :1], elementwise=True)
        )


@pytest.fixture
def kernels_rt():
    from tenferro.plugins import elementwise, reduce

    return EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, reduce, _BadKernels()], entry_points=False)


@pytest.mark.parametrize(
    "op, message",
    [
        ("gives_none", "its forward kernel returned NoneType; a kernel must return a numeric array"),
        ("gives_text", "its forward kernel returned str; a kernel must return a numeric array"),
        ("gives_objects", "returned O64\\[2\\]; a kernel must return a bool, integer, float or complex array"),
        ("gives_ints", "returned i64\\[2\\]; an integer or bool result of a tracked float input drops its gradient"),
        ("gives_half", "returned f16\\[2\\]; tracked results must be float32 or float64"),
    ],
)
def test_a_bad_kernel_result_is_a_kernel_error_at_the_call(kernels_rt, op, message):
    x = kernels_rt.variable_from(np.array([1.0, 2.0]))
    with pytest.raises(KernelError, match=message) as info:
        kernels_rt.with_eager_session(lambda s: getattr(s, op)(x))
    assert "_BadKernels" in str(info.value)


def test_an_elementwise_kernel_of_another_shape_is_a_kernel_error_at_the_call(kernels_rt):
    x = kernels_rt.variable_from(np.array([1.0, 2.0]))
    with pytest.raises(KernelError) as info:
        kernels_rt.with_eager_session(lambda s: s.elementwise_doubled(x))
    assert str(info.value) == (
        "elementwise_doubled (plugin '_BadKernels'): its forward kernel returned f64[4]; the op is elementwise, so "
        "its result must have the broadcast shape [2] of its arguments [2] (x)"
    )
    a, b = kernels_rt.constant_from(np.ones((2, 3))), kernels_rt.constant_from(np.ones(3))
    with pytest.raises(
        KernelError,
        match=r"returned f64\[2,1\]; .* broadcast shape \[2, 3\] of its arguments \[2, 3\] \(a\), \[3\] \(b\)",
    ):
        kernels_rt.with_eager_session(lambda s: s.elementwise_cut(a, b))
    # a result of the broadcast shape passes, beside a Python number as beside a tensor
    column = kernels_rt.constant_from(np.ones((3, 1)))
    assert kernels_rt.with_eager_session(lambda s: s.elementwise_cut(column, 1.0)).shape == (3, 1)
    one = kernels_rt.constant_from(np.ones(1))
    assert kernels_rt.with_eager_session(lambda s: s.elementwise_cut(column, one)).shape == (3, 1)


def test_a_wrong_result_shape_is_blamed_on_the_forward_too(kernels_rt):
    x = kernels_rt.variable_from(np.array([1.0, 2.0]))
    loss = kernels_rt.with_eager_session(lambda s: s.reduce_sum(s.gives_wrong_shape(x), None))
    blame = r"The op.s result was f64\[4\] from inputs \(f64\[2\]\): if that is not what the op should return"
    with pytest.raises(RuleError, match=blame):
        loss.backward()


def test_a_broken_explain_does_not_leak_its_exception():
    def raising_explain(x):
        raise RuntimeError("explain itself is broken")

    class Plugin:
        @hookimpl
        def tenferro_register_ops(self, registry):
            for name, explain in [("explain_raises", raising_explain), ("explain_says", lambda x: "a string")]:
                registry.add(OpSpec(name=name, inputs=("x",), forward=lambda x: x[100], explain=explain))

    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[Plugin()], entry_points=False)
    x = rt.constant_from(np.zeros(2))
    for name in ("explain_raises", "explain_says"):
        with pytest.raises(KernelError, match=f"{name} \\(plugin 'Plugin'\\) failed: IndexError"):
            _call(rt, name, x)


def test_broadcast_errors_beyond_32_dims_are_shape_errors(rt):
    many = (1,) * 39
    cond = rt.constant_from(np.ones((1, *many), bool))
    a = rt.variable_from(np.ones((2, *many)))
    b = rt.constant_from(np.ones((3, *many)))
    with pytest.raises(ShapeMismatch, match="where_select: shapes .* do not broadcast together"):
        _call(rt, "where_select", cond, a, b)
    with pytest.raises(ShapeMismatch, match="clamp: shapes .* do not broadcast together"):
        _call(rt, "clamp", a, b, 1.0)


def test_inside_a_vjp_a_raw_array_gets_advice_that_keeps_second_order():
    class Plugin:
        @hookimpl
        def tenferro_register_ops(self, registry):
            def vjp(s, g, inputs, out):
                return (s.mul(g, np.cos(np.asarray(inputs[0]))),)  # a raw array: cut off from the trace

            registry.add(OpSpec(name="raw_sin", inputs=("x",), forward=np.sin, vjp=vjp))

    from tenferro.plugins import elementwise, reduce

    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=[elementwise, reduce, Plugin()], entry_points=False)
    x = rt.variable_from(np.array([1.0]))
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.raw_sin(x), None))
    with pytest.raises(RuleError) as info:
        loss.backward()
    assert "inside a VJP rule, compute with the session's ops" in str(info.value)
    assert "rt.constant_from" not in str(info.value)


# -- the API surface: bad arguments are TenferroErrors, never raw Python errors -------------
@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: Tensor([[1.0], [1.0, 2.0]]), ArgumentError, "inhomogeneous"),
        (lambda: Tensor.from_numpy([[1.0], [1.0, 2.0]]), ArgumentError, "one rectangular shape"),
        (lambda: EagerRuntime().variable_from([[1.0], [1.0, 2.0]]), ArgumentError, "variable_from: cannot make"),
        (lambda: Tensor.from_vec_col_major([2**32, 2**32], [1.0]), ArgumentError, "more elements than memory"),
        (lambda: Tensor.from_vec_col_major([1] * 65, [1.0]), ArgumentError, "at most 64 dims, got 65"),
        (lambda: Tensor.from_vec_col_major("23", [1.0] * 6), ArgumentError, "sequence of non-negative ints"),
        (lambda: EagerRuntime(engine="x"), ArgumentError, "engine must be an engine"),
        (lambda: EagerRuntime(CpuEngine.serial), ArgumentError, "did you mean CpuEngine.serial\\(\\)"),
        (lambda: EagerRuntime(registry="x"), ArgumentError, "registry must be a Registry"),
        (lambda: EagerRuntime(plugins=[None]), ArgumentError, "each entry must be a plugin module"),
        (lambda: EagerRuntime(plugins=["numpy"]), ArgumentError, "import the module first"),
        (lambda: EagerRuntime().variable_from(np.zeros(2, np.float16)), DTypeError, "complex128, got float16"),
        (lambda: OpSpec(name="two", inputs="xy", forward=np.add), PluginError, "for one name write \\('xy',\\)"),
    ],
)
def test_bad_api_arguments_raise_tenferro_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_cpu_engine_needs_no_name():
    assert repr(CpuEngine()) == "CpuEngine.serial()"


def test_gradients_of_a_variable_that_got_none_is_a_keyerror_and_a_tenferro_error(rt):
    x, other = rt.variable_from(np.ones(2)), rt.variable_from(np.ones(2))
    grads = rt.with_eager_session(lambda s: s.reduce_sum(x, None)).backward()
    with pytest.raises(NotInGradients, match="received no gradient in this backward pass") as info:
        grads[other]
    assert isinstance(info.value, KeyError) and isinstance(info.value, GradInactive)
    assert str(info.value).startswith("EagerTensor(")  # not a quoted KeyError message


@pytest.mark.parametrize(
    "op, params, error, message",
    [
        ("broadcast_to", {"shape": "23"}, ArgumentError, "broadcast_to: shape must be a sequence of non-negative ints"),
        ("broadcast_to", {"shape": (2.9, 3)}, ArgumentError, "got \\(2.9, 3\\)"),
        ("broadcast_to", {"shape": (True, 3)}, ArgumentError, "got \\(True, 3\\)"),
        ("sum_to", {"shape": "3"}, ArgumentError, "sum_to: shape must be a sequence"),
        ("astype", {"dtype": None}, DTypeError, "astype: None is not a dtype"),
    ],
)
def test_lenient_shape_and_dtype_params_are_refused(rt, op, params, error, message):
    x = rt.variable_from(np.ones(3))
    with pytest.raises(error, match=message):
        _call(rt, op, x, **params)


def test_casting_a_tracked_tensor_to_float16_is_a_dtype_error_naming_astype(rt):
    x = rt.variable_from([1.0, 2.0])
    with pytest.raises(DTypeError, match="astype: the result would be f16, and tenferro records only float32"):
        _call(rt, "astype", x, "float16")
    with rt.no_grad():
        assert _call(rt, "astype", x, "float16").dtype == np.float16


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"inputs": None}, "inputs must be a tuple of names, got None"),
        ({"inputs": ("x",), "params": None}, "params must be a mapping"),
        ({"inputs": ("x",), "accepts": None}, "accepts must be a string of dtype kinds"),
        ({"inputs": ("x",), "vjps": 3}, "vjps must be a tuple"),
        ({"inputs": ("x",), "differentiable": True}, "differentiable must be a tuple"),
        ({"inputs": ("x",), "residuals": "ab"}, "residuals must be a tuple of names, got the string 'ab'"),
    ],
)
def test_a_malformed_opspec_is_a_plugin_error_not_a_raw_type_error(fields, message):
    with pytest.raises(PluginError, match=message):
        OpSpec(name="f", forward=np.negative, **fields)


def test_a_session_and_detach_work_inside_a_session_on_the_default_engine(rt):
    x = rt.variable_from([1.0, 2.0])
    with rt.eager_session() as s:
        y = s.sin(x)
        z = y.detach()
    assert not z.tracks_grad() and np.array_equal(np.asarray(z), np.sin([1.0, 2.0]))


def test_a_cpu_engine_subclass_context_is_in_force_in_sessions_and_outside_them():
    entered = []

    class Counting(CpuEngine):
        def context(self):
            entered.append(1)
            return np.errstate(all="ignore")

    engine = Counting()
    rt = EagerRuntime(engine=engine)
    x = rt.variable_from([1.0, 0.0])
    rt.with_eager_session(lambda s: s.div(x, 0.0))
    assert len(entered) == 1  # the session's loan entered the subclass's context
    (x / 0.0).backward_with(rt.constant_from([1.0, 1.0]))
    assert len(entered) == 3  # the op outside any session, then the backward pass


def test_an_engine_whose_context_fails_is_not_left_lent():
    class Broken(CpuEngine):
        def context(self):
            raise RuntimeError("no context today")

    engine = Broken()
    with pytest.raises(RuntimeError):
        with engine.lend("a test"):
            pass
    assert not engine.busy


def test_the_seed_forms_with_an_engine_alone_name_the_forms_they_take(rt, eng):
    x = rt.variable_from([1.0])
    y = rt.with_eager_session(eng, lambda s: s.mul(x, 2.0))
    for call, form in (
        (lambda: y.backward_with(eng), "backward_with takes \\(v, \\*, engine=None\\)"),
        (lambda: rt.grad(eng, y), "grad takes \\(out, wrt, \\*, engine=None\\)"),
        (lambda: rt.with_eager_session(eng), "with_eager_session takes \\(fn, \\*, engine=None\\)"),
    ):
        with pytest.raises(ArgumentError, match=form):
            call()


def test_a_default_runtime_tensor_given_to_a_runtime_of_its_own_plugins_names_both_in_words():
    from conftest import plugin_of

    import tenferro.numpy as tnp

    rt = EagerRuntime(plugins=[plugin_of("mine", OpSpec(name="mine_twice", inputs=("x",), forward=lambda x: 2 * x))])
    x = rt.variable_from(np.array([1.0, 2.0]))
    with pytest.raises(ContextMismatch) as info:
        x + tnp.asarray([1.0, 2.0])  # tnp.asarray makes a tensor of the default runtime
    message = str(info.value)
    assert f"operator +: argument 'other' belongs to {default_runtime()!r}, but this op runs on {rt!r}" in message
    assert repr(default_runtime()).endswith(": the default runtime>")
    assert repr(rt).endswith(": a runtime of the installed plugins and mine>")
    assert message.endswith(
        "tnp.zeros, tnp.eye, tnp.asarray, tf.constant and tf.variable make tensors of the default runtime: make them "
        "inside `with rt:`, where they make this runtime's, make the value a tensor of this runtime (its "
        "constant_from or variable_from), or pass the NumPy array itself, which operators and tenferro.numpy "
        "functions take as a constant of their tensors' runtime"
    )
    assert (x + np.array([1.0, 2.0])).tolist() == [2.0, 4.0]  # the way out it names
    alone = EagerRuntime(plugins=[plugin_of("alone")], entry_points=False)
    assert repr(alone).endswith(": a runtime of the plugins alone>")


def test_backward_of_a_constant_is_grad_inactive_but_of_a_no_grad_result_empty():
    import tenferro as tf
    import tenferro.numpy as tnp

    w = tnp.asarray([1.0, 2.0])  # forgot tf.variable
    loss = tnp.sum(w * w)
    with pytest.raises(GradInactive) as info:
        loss.backward()
    assert str(info.value).startswith("backward: grad is inactive: the output is a constant, computed from no variable")
    with pytest.raises(GradInactive, match="^backward_with: grad is inactive"):
        (w * w).backward_with(Tensor.from_numpy(np.ones(2)))
    x = tf.variable([1.0, 2.0])
    with pytest.raises(GradInactive):
        tnp.sum(x.detach() * 2.0).backward()
    rt = default_runtime()
    with rt.no_grad():  # made with recording off: silent, as B11 says, inside the block and after it
        quiet = tnp.sum(tnp.sin(x) * x)
        constant = tnp.sum(w * w)
        assert len(loss.backward()) == 0
    assert len(quiet.backward()) == len(constant.backward()) == 0
    assert x.grad() is None


def test_the_results_of_an_op_with_several_made_under_no_grad_have_a_silent_backward():
    import tenferro as tf
    import tenferro.numpy as tnp

    a = tf.variable([[2.0, 1.0], [1.0, 3.0]])
    with default_runtime().no_grad():
        sign, logabsdet = tnp.linalg.slogdet(a)
    assert not logabsdet.tracks_grad() and len(logabsdet.backward()) == len(sign.backward()) == 0
    assert a.grad() is None
    sign, logabsdet = tnp.linalg.slogdet(tnp.asarray([[2.0, 1.0], [1.0, 3.0]]))  # recording on: constants
    with pytest.raises(GradInactive, match="^backward: grad is inactive: the output is a constant"):
        logabsdet.backward()
