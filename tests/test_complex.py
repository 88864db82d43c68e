"""Complex numbers in the core (DESIGN §10): complex variables and results are recorded,
cotangents live in the real inner product Re(conj(a)·b), a real variable gets a real
gradient, promotion is NumPy's, and backward needs a real scalar. The families' own complex
tests are in tests/test_complex_*.py."""

import numpy as np
import pytest
from conftest import needs_torch, torch

from tenferro import CpuEngine, DTypeError, EagerRuntime, PluginError

RT = EagerRuntime(engine=CpuEngine.serial())
RNG = np.random.default_rng(7)


def _complex(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _squared_norm(s, z):
    """Σ|z|² = Re Σ z·conj(z), a real scalar."""
    return s.real(s.reduce_sum(s.mul(z, s.conj(z)), None))


def test_the_gradient_of_the_squared_norm_is_twice_z():
    value = _complex(5)
    z = RT.variable_from(value)
    RT.with_eager_session(lambda s: _squared_norm(s, z)).backward()
    assert z.grad().dtype == np.complex128
    np.testing.assert_array_equal(z.grad().to_numpy(), 2 * value)


def test_rt_grad_of_a_complex_variable_matches_backward():
    value = _complex(2, 3)
    z = RT.variable_from(value)
    loss = RT.with_eager_session(lambda s: _squared_norm(s, s.mul(z, z)))  # Σ|z|⁴: gradient 4|z|²z
    np.testing.assert_allclose(np.asarray(RT.grad(loss, z)), 4 * np.abs(value) ** 2 * value, rtol=1e-14)


def test_a_hessian_vector_product_through_complex_values():
    """For Σ|z|⁴ the gradient is 4|z|²z; along v it changes by 4(2 Re(conj(z)v)·z + |z|²·v)."""
    value, v_value = _complex(4), _complex(4)
    z, v = RT.variable_from(value), RT.constant_from(v_value)

    grad = RT.grad(RT.with_eager_session(lambda s: _squared_norm(s, s.mul(z, z))), z)
    along_v = RT.with_eager_session(lambda s: s.real(s.reduce_sum(s.mul(s.conj(grad), v), None)))
    expected = 4 * (2 * np.real(np.conj(value) * v_value) * value + np.abs(value) ** 2 * v_value)
    np.testing.assert_allclose(np.asarray(RT.grad(along_v, z)), expected, rtol=1e-13)


def test_a_real_variable_through_complex_values_gets_a_real_gradient():
    x_value, c = RNG.standard_normal(4), 0.6 - 0.8j
    x = RT.variable_from(x_value)
    loss = RT.with_eager_session(lambda s: _squared_norm(s, s.mul(x, c)))  # |c|² Σx²
    loss.backward()
    assert x.grad().dtype == np.float64
    np.testing.assert_allclose(x.grad().to_numpy(), 2 * abs(c) ** 2 * x_value, rtol=1e-15)


def test_a_float32_variable_times_a_complex64_constant_is_complex64_with_a_float32_gradient():
    x = RT.variable_from(np.array([1.0, -2.0], np.float32))
    c = RT.constant_from(np.array([1j, 2.0 + 1j], np.complex64))
    out = RT.with_eager_session(lambda s: s.mul(x, c))
    assert out.dtype == np.complex64
    RT.with_eager_session(lambda s: _squared_norm(s, out)).backward()
    assert x.grad().dtype == np.float32
    np.testing.assert_allclose(x.grad().to_numpy(), [2.0, -20.0], rtol=1e-6)


@pytest.mark.parametrize(
    "real, other, expected",
    [
        (np.float32, np.complex64, np.complex64),
        (np.float64, np.complex64, np.complex128),
        (np.float32, np.complex128, np.complex128),
        (np.int64, np.complex64, np.complex128),
    ],
)
def test_promotion_of_real_and_complex_follows_numpy(real, other, expected):
    a = RT.constant_from(np.ones(2, real))
    b = RT.constant_from(np.ones(2, other))
    assert RT.with_eager_session(lambda s: s.add(a, b)).dtype == expected
    assert expected == np.result_type(np.ones(2, real), np.ones(2, other))


def test_a_python_complex_scalar_keeps_float32_single():
    x = RT.variable_from(np.ones(2, np.float32))
    assert RT.with_eager_session(lambda s: s.mul(x, 1j)).dtype == np.complex64


def test_astype_between_float_and_complex_is_differentiable():
    x_value = RNG.standard_normal(3)
    x = RT.variable_from(x_value)
    # x → complex, times i, back to real: Re(i·x) = 0, so only the imaginary route matters
    loss = RT.with_eager_session(
        lambda s: s.reduce_sum(s.imag(s.mul(s.astype(x, "complex128"), 1j + 2.0)), None)  # Σ x
    )
    loss.backward()
    np.testing.assert_array_equal(x.grad().to_numpy(), np.ones(3))


def test_astype_complex_to_real_keeps_the_real_part_and_its_gradient_is_real():
    value = _complex(3)
    z = RT.variable_from(value)
    out = RT.with_eager_session(lambda s: s.astype(z, "float64"))
    np.testing.assert_array_equal(np.asarray(out), value.real)
    RT.with_eager_session(lambda s: s.reduce_sum(s.mul(out, out), None)).backward()
    np.testing.assert_array_equal(z.grad().to_numpy(), (2 * value.real).astype(np.complex128))


def test_imag_sends_its_cotangent_to_the_imaginary_part():
    z = RT.variable_from(_complex(3))
    RT.with_eager_session(lambda s: s.reduce_sum(s.imag(z), None)).backward()
    np.testing.assert_array_equal(z.grad().to_numpy(), np.full(3, 1j))


def test_backward_of_a_complex_scalar_is_refused_with_the_way_out():
    z = RT.variable_from(_complex(3))
    out = RT.with_eager_session(lambda s: s.reduce_sum(s.mul(z, z), None))
    with pytest.raises(DTypeError, match=r"a gradient is defined for a real scalar .* s\.real\(out\) or s\.abs\(out\)"):
        out.backward()
    with pytest.raises(DTypeError, match="a gradient is defined for a real scalar"):
        RT.grad(out, z)
    assert z.grad() is None


def test_backward_with_a_complex_cotangent_gives_the_vector_jacobian_product():
    value, u = _complex(3), _complex(3)
    z = RT.variable_from(value)
    out = RT.with_eager_session(lambda s: s.mul(z, z))  # holomorphic: VJP u·conj(2z)
    out.backward_with(RT.constant_from(u))
    np.testing.assert_allclose(z.grad().to_numpy(), u * np.conj(2 * value), rtol=1e-15)


def test_complex_variables_accumulate_gradients_across_backward_calls():
    value = _complex(2)
    z = RT.variable_from(value)
    for _ in range(2):
        RT.with_eager_session(lambda s: _squared_norm(s, z)).backward()
    np.testing.assert_array_equal(z.grad().to_numpy(), 4 * value)


@needs_torch
def test_the_convention_is_pytorchs_not_jaxs():
    """PyTorch's gradient of Re Σ(a·z²) is conj(2a·z); JAX's would be its conjugate."""
    a_value, z_value = _complex(4), _complex(4)
    z = RT.variable_from(z_value)
    a = RT.constant_from(a_value)
    RT.with_eager_session(lambda s: s.real(s.reduce_sum(s.mul(a, s.mul(z, z)), None))).backward()
    zt = torch.tensor(z_value, requires_grad=True)
    (torch.tensor(a_value) * zt * zt).sum().real.backward()
    np.testing.assert_allclose(z.grad().to_numpy(), zt.grad.numpy(), rtol=1e-14)
    np.testing.assert_allclose(z.grad().to_numpy(), np.conj(2 * a_value * z_value), rtol=1e-14)


def test_rt_grad_keeps_the_sign_of_zero_imaginary_parts_of_a_view_cotangent():
    """A cotangent that reaches a variable as a view is made a value of its own by adding
    a negative zero: for complex that must be -0-0j, or an imaginary -0.0 turns into +0.0."""
    z = RT.variable_from(_complex(2, 2))
    c = RT.constant_from(np.full(2, -1 + 0j))  # g·conj(c) has imaginary parts -0.0

    def loss(s):  # reduce_sum's VJP hands z a broadcast view
        return s.real(s.reduce_sum(s.mul(s.reduce_sum(z, 1), c), None))

    grad = np.asarray(RT.grad(RT.with_eager_session(loss), z))
    RT.with_eager_session(loss).backward()
    assert np.signbit(z.grad().to_numpy().imag).all()
    assert grad.tobytes() == z.grad().to_numpy().tobytes()


def test_an_op_that_refuses_complex_says_why_in_its_dtype_error():
    from tenferro import OpSpec
    from tenferro.extend import NO_ORDER

    z = RT.constant_from(_complex(3))
    with pytest.raises(DTypeError, match=r"reduce_max: argument 'x' has dtype c128; .*: complex numbers have no order"):
        RT.with_eager_session(lambda s: s.reduce_max(z, None))
    with pytest.raises(DTypeError, match=r"relu is a function of real numbers; apply it to s\.real\(x\)"):
        RT.with_eager_session(lambda s: s.relu(z))
    with pytest.raises(PluginError, match="refuses must map dtype kinds"):
        OpSpec(name="bad", inputs=("x",), forward=np.sort, refuses={"complex": NO_ORDER["c"]})


def test_astype_of_complex_to_bool_is_nonzero_as_in_numpy():
    z = RT.constant_from(np.array([1j, 0j, 2 + 0j, -0.0 - 0j]))
    out = np.asarray(RT.with_eager_session(lambda s: s.astype(z, bool)))
    np.testing.assert_array_equal(out, np.astype(np.asarray(z), bool))
    np.testing.assert_array_equal(out, [True, False, True, False])
