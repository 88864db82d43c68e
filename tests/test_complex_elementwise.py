"""The elementwise family on complex numbers: gradients in the real inner product
Re(conj(a)·b) (PyTorch's convention, DESIGN §10) against closed forms, finite differences
and PyTorch; abs, sign and angle (non-holomorphic: PyTorch's formulas), pow, promotion
(NumPy's) and the projection back to a real gradient; the ops that refuse complex."""

import numpy as np
import pytest
from conftest import needs_torch, torch

from tenferro import DTypeError

RNG = np.random.default_rng(11)


def _cplx(*shape, scale=1.0):
    return scale * (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape))


def _grad(rt, fn, *arrays):
    """The gradient of the real scalar fn(s, *variables) with respect to each variable."""
    variables = [rt.variable_from(np.asarray(a)) for a in arrays]
    loss = rt.with_eager_session(lambda s: fn(s, *variables))
    return [np.asarray(g) for g in rt.grad(loss, variables)]


def _fd_grad(fn, *arrays, eps=1e-6):
    """Finite differences of the real scalar fn(*arrays) (NumPy): the gradient in the real
    inner product, ∂f/∂Re z + i·∂f/∂Im z, for each complex array (∂f/∂x for a real one)."""
    grads = []
    for index, array in enumerate(arrays):
        array = np.asarray(array)
        grad = np.zeros_like(array)
        for position in np.ndindex(array.shape):
            parts = [1.0, 1j] if np.iscomplexobj(array) else [1.0]
            for unit in parts:
                shifted = []
                for sign in (1, -1):
                    moved = list(arrays)
                    bumped = array.copy()
                    bumped[position] += sign * eps * unit
                    moved[index] = bumped
                    shifted.append(fn(*moved))
                grad[position] += unit * (shifted[0] - shifted[1]) / (2 * eps)
        grads.append(grad)
    return grads


def _sum_abs2(s, t):
    """Σ|t|² as a real scalar, with mul and conj."""
    return s.reduce_sum(s.real(s.mul(t, s.conj(t))), None)


# -- the conventions of the issue ------------------------------------------------------------
def test_gradient_of_sum_of_squared_moduli_is_2z_via_abs(rt):
    z = _cplx(5)
    (g,) = _grad(rt, lambda s, z: s.reduce_sum(s.square(s.abs(z)), None), z)
    assert g.dtype == np.complex128
    np.testing.assert_allclose(g, 2 * z, rtol=1e-14)


def test_gradient_of_sum_of_squared_moduli_is_2z_via_mul_and_conj(rt):
    z = _cplx(2, 3)
    (g,) = _grad(rt, _sum_abs2, z)
    np.testing.assert_allclose(g, 2 * z, rtol=1e-15)


def test_gradient_of_real_part_of_sum_of_exp_is_conj_exp(rt):
    z = _cplx(4)
    (g,) = _grad(rt, lambda s, z: s.reduce_sum(s.real(s.exp(z)), None), z)
    np.testing.assert_allclose(g, np.conj(np.exp(z)), rtol=1e-15)


def _mlp_numpy(w, b, z):
    return float(np.sum(np.abs(np.tanh(w @ z + b)) ** 2))


def _mlp(s, w, b, z):
    """z ↦ tanh(W z + b), loss Σ|·|², with W z as an elementwise product summed over columns."""
    wz = s.reduce_sum(s.mul(w, z), 1)  # z broadcasts along W's rows
    return _sum_abs2(s, s.tanh(s.add(wz, b)))


W, B, Z = _cplx(3, 4, scale=0.5), _cplx(3, scale=0.5), _cplx(4, scale=0.5)


def test_complex_mlp_gradient_matches_finite_differences(rt):
    grads = _grad(rt, _mlp, W, B, Z)
    for ours, fd in zip(grads, _fd_grad(_mlp_numpy, W, B, Z)):
        np.testing.assert_allclose(ours, fd, rtol=1e-7, atol=1e-9)


@needs_torch
def test_complex_mlp_gradient_matches_pytorch(rt):
    grads = _grad(rt, _mlp, W, B, Z)
    w, b, z = (torch.tensor(a, requires_grad=True) for a in (W, B, Z))
    (torch.tanh(w @ z + b).abs() ** 2).sum().backward()
    for ours, theirs in zip(grads, (w.grad, b.grad, z.grad)):
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-12, atol=1e-14)


def _seed_loss(s, z):
    """The bench's complex seed: Σ|sin(z)·z²|²."""
    return _sum_abs2(s, s.mul(s.sin(z), s.mul(z, z)))


def _hvp(rt, z, v):
    zv = rt.variable_from(z)
    loss = rt.with_eager_session(lambda s: _seed_loss(s, zv))
    g = rt.grad(loss, zv)
    vc = rt.constant_from(v)
    inner = rt.with_eager_session(lambda s: s.reduce_sum(s.real(s.mul(s.conj(vc), g)), None))
    return np.asarray(g), np.asarray(rt.grad(inner, zv))


def test_complex_hvp_matches_finite_differences_of_the_gradient(rt):
    z, v = _cplx(6), _cplx(6)
    _, hvp = _hvp(rt, z, v)
    eps = 1e-6
    g_plus, _ = _hvp(rt, z + eps * v, v)
    g_minus, _ = _hvp(rt, z - eps * v, v)
    np.testing.assert_allclose(hvp, (g_plus - g_minus) / (2 * eps), rtol=1e-6, atol=1e-8)


@needs_torch
def test_complex_hvp_matches_pytorch_double_backward(rt):
    z, v = _cplx(6), _cplx(6)
    g, hvp = _hvp(rt, z, v)
    zt = torch.tensor(z, requires_grad=True)
    loss = (torch.abs(torch.sin(zt) * zt * zt) ** 2).sum()
    (gt,) = torch.autograd.grad(loss, zt, create_graph=True)
    (hvpt,) = torch.autograd.grad(gt, zt, grad_outputs=torch.tensor(v))
    np.testing.assert_allclose(g, gt.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(hvp, hvpt.numpy(), rtol=1e-11, atol=1e-12)


# -- every complex unary op against PyTorch --------------------------------------------------
#: ours -> PyTorch's name, and a domain off the branch cuts and poles (a few points each).
UNARY = {
    "exp": ("exp", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "log": ("log", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j, -1.5 - 0.3j]),
    "sqrt": ("sqrt", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j, -1.5 - 0.3j]),
    "rsqrt": ("rsqrt", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j, -1.5 - 0.3j]),
    "sin": ("sin", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "cos": ("cos", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "tan": ("tan", [0.3 + 0.4j, -1.2 + 1.0j, 2.0 - 0.5j]),
    "tanh": ("tanh", [0.3 + 0.4j, -1.2 + 1.0j, 2.0 - 0.5j]),
    "sigmoid": ("sigmoid", [0.3 + 0.4j, -1.2 + 1.0j, 2.0 - 0.5j, -30.0 + 0.2j, 40.0 - 1.0j]),
    "expm1": ("expm1", [1e-9 + 1e-9j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "log1p": ("log1p", [1e-9 + 1e-9j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "square": ("square", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "reciprocal": ("reciprocal", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "positive": ("positive", [0.3 + 0.4j, -1.2 + 2.0j]),
    "exp2": ("exp2", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "log2": ("log2", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "log10": ("log10", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "sinh": ("sinh", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "cosh": ("cosh", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "arcsin": ("asin", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "arccos": ("acos", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "arctan": ("atan", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "arcsinh": ("asinh", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "arccosh": ("acosh", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j, -2.0 - 0.5j]),
    "arctanh": ("atanh", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "abs": ("abs", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "sign": ("sgn", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j]),
    "angle": ("angle", [0.3 + 0.4j, -1.2 + 2.0j, 2.0 - 0.5j, -1.0 - 1e-3j]),
}
#: A fixed complex cotangent, so that the gradient sees both parts of the result.
U = np.array([0.7 - 0.2j, -0.4 + 1.1j, 0.9 + 0.5j, -0.3 - 0.8j, 1.2 + 0.1j])


def _ours_unary(rt, op, z, dtype=np.complex128):
    zv = rt.variable_from(np.asarray(z, dtype))

    def loss(s):
        out = getattr(s, op)(zv)
        u = U[: out.shape[0]] if out.dtype.kind == "c" else U.real[: out.shape[0]]
        return s.reduce_sum(s.real(s.mul(out, s.conj(rt.constant_from(u.astype(out.dtype))))), None), out

    total, out = None, None
    with rt.eager_session() as s:
        total, out = loss(s)
    return np.asarray(out), np.asarray(rt.grad(total, zv))


def _theirs_unary(name, z):
    zt = torch.tensor(np.asarray(z, np.complex128), requires_grad=True)
    out = getattr(torch, name)(zt)
    u = torch.tensor(U[: out.shape[0]] if out.is_complex() else U.real[: out.shape[0]])
    (out * u.conj()).real.sum().backward()
    return out.detach().numpy(), zt.grad.numpy()


@needs_torch
@pytest.mark.parametrize("op", sorted(UNARY))
def test_complex_unary_value_and_gradient_match_pytorch(rt, op):
    name, z = UNARY[op]
    value, grad = _ours_unary(rt, op, z)
    value_t, grad_t = _theirs_unary(name, z)
    np.testing.assert_allclose(value, value_t, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(grad, grad_t, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("op", sorted(UNARY))
def test_complex_unary_gradient_matches_finite_differences(rt, op):
    _, z = UNARY[op]
    _, grad = _ours_unary(rt, op, z)
    u = U[: len(z)]

    fn = _NUMPY.get(op) or getattr(np, op)

    def loss(z):
        value = fn(z)
        return float(np.sum(np.real(value * np.conj(u if np.iscomplexobj(value) else u.real))))

    (fd,) = _fd_grad(loss, np.asarray(z))
    np.testing.assert_allclose(grad, fd, rtol=1e-7, atol=1e-8)


_NUMPY = {
    "rsqrt": lambda z: 1 / np.sqrt(z),
    "sigmoid": lambda z: 1 / (1 + np.exp(-z)),
    "sign": lambda z: z / np.abs(z),
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_complex64_gives_complex64_and_a_complex64_gradient(rt, op):
    _, z = UNARY[op]
    value, grad = _ours_unary(rt, op, z, np.complex64)
    value128, grad128 = _ours_unary(rt, op, z)
    assert value.dtype == (np.float32 if op in ("abs", "angle") else np.complex64)
    assert grad.dtype == np.complex64
    np.testing.assert_allclose(value, value128, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad, grad128, rtol=1e-4, atol=1e-5)


def test_sigmoid_of_complex_does_not_overflow(rt):
    z = np.array([-800.0 + 0.5j, 800.0 - 0.5j])
    value = np.asarray(rt.with_eager_session(lambda s: s.sigmoid(rt.constant_from(z))))
    assert np.all(np.isfinite(value))
    np.testing.assert_allclose(value, [0.0, 1.0], atol=1e-300)


def test_arccosh_gradient_is_right_in_the_left_half_plane(rt):
    """Regression: 1/sqrt(z**2 - 1) has the wrong sign where Re z < 0; arccosh's
    derivative is 1/(sqrt(z - 1)·sqrt(z + 1))."""
    z = np.array([-2.0 + 0.5j, -0.5 - 0.7j])
    (g,) = _grad(rt, lambda s, z: s.reduce_sum(s.real(s.arccosh(z)), None), z)
    (fd,) = _fd_grad(lambda z: float(np.sum(np.real(np.arccosh(z)))), z)
    np.testing.assert_allclose(g, fd, rtol=1e-8)


# -- abs, sign, angle ----------------------------------------------------------------------
def test_abs_of_complex_is_real_with_gradient_z_over_modulus(rt):
    z = _cplx(4)
    (g,) = _grad(rt, lambda s, z: s.reduce_sum(s.abs(z), None), z)
    np.testing.assert_allclose(g, z / np.abs(z), rtol=1e-15)
    value = np.asarray(rt.with_eager_session(lambda s: s.abs(rt.constant_from(z.astype(np.complex64)))))
    assert value.dtype == np.float32


def test_abs_of_complex_zero_has_gradient_zero_first_and_second_order(rt):
    z = np.array([0j, complex(-0.0, -0.0), 3 + 4j])
    zv = rt.variable_from(z)
    loss = rt.with_eager_session(lambda s: s.reduce_sum(s.abs(zv), None))
    g = rt.grad(loss, zv)
    np.testing.assert_array_equal(np.asarray(g), [0j, 0j, 0.6 + 0.8j])
    v = rt.constant_from(np.ones(3, complex))
    inner = rt.with_eager_session(lambda s: s.reduce_sum(s.real(s.mul(s.conj(v), g)), None))
    h = np.asarray(rt.grad(inner, zv))
    assert np.all(np.isfinite(h)) and np.all(h[:2] == 0)


@needs_torch
def test_abs_and_sign_at_zero_match_pytorch(rt):
    z = np.array([0j, 1 - 1j])
    for ours, theirs in (("abs", torch.abs), ("sign", torch.sgn)):
        zv = rt.variable_from(z)
        with rt.eager_session() as s:
            loss = s.reduce_sum(s.real(getattr(s, ours)(zv)), None)
        zt = torch.tensor(z, requires_grad=True)
        theirs(zt).real.sum().backward()
        np.testing.assert_allclose(np.asarray(rt.grad(loss, zv)), zt.grad.numpy(), rtol=1e-15)


def test_sign_of_complex_is_z_over_modulus_and_zero_at_zero(rt):
    z = np.array([3 + 4j, 0j, -2 + 0j])
    value = np.asarray(rt.with_eager_session(lambda s: s.sign(rt.constant_from(z))))
    np.testing.assert_array_equal(value, [0.6 + 0.8j, 0j, -1 + 0j])


def test_angle_values_match_numpy(rt):
    z = np.array([1 + 1j, -1 + 0j, -1 - 1e-300j, 0j, -2j])
    x = np.array([2.0, -3.0, 0.0, -0.0, np.nan])
    for a in (z, x, x.astype(np.float32), np.array([3, -4])):
        value = np.asarray(rt.with_eager_session(lambda s, a=a: s.angle(rt.constant_from(a))))
        expected = np.angle(a)
        assert value.dtype == expected.dtype
        np.testing.assert_array_equal(value, expected)


def test_angle_gradient_is_i_g_over_conj_z_and_zero_at_zero(rt):
    z = np.array([1 + 2j, -3 - 1j, 0j])
    (g,) = _grad(rt, lambda s, z: s.reduce_sum(s.angle(z), None), z)
    np.testing.assert_allclose(g, [1j / np.conj(1 + 2j), 1j / np.conj(-3 - 1j), 0j], rtol=1e-15)


def test_angle_of_a_real_variable_has_gradient_zero(rt):
    (g,) = _grad(rt, lambda s, x: s.reduce_sum(s.angle(x), None), np.array([-2.0, 3.0]))
    np.testing.assert_array_equal(g, [0.0, 0.0])
    assert g.dtype == np.float64


# -- pow --------------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "a, b",
    [
        (np.array([1.5 + 0.5j, 0.3 - 2.0j]), np.array([0.5 - 1.0j, 2.0 + 0.3j])),  # both complex
        (np.array([-2.0, 1.5]), np.array([0.5 + 1.0j, -1.0 + 0.2j])),  # real base (one < 0), complex exponent
        (np.array([1.5 + 0.5j, -0.3 - 2.0j]), np.array([2.0, -1.5])),  # complex base, real exponent
    ],
)
def test_complex_pow_gradients_match_pytorch(rt, a, b):
    (ga, gb) = _grad(rt, lambda s, a, b: s.reduce_sum(s.real(s.mul(s.pow(a, b), 1 - 2j)), None), a, b)
    at, bt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    (torch.pow(at, bt) * (1 - 2j)).real.sum().backward()
    assert ga.dtype == a.dtype and gb.dtype == b.dtype
    np.testing.assert_allclose(ga, at.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(gb, bt.grad.numpy(), rtol=1e-13)


def test_complex_pow_with_python_scalars(rt):
    z = np.array([1.5 + 0.5j, 0.3 - 2.0j])
    (g,) = _grad(rt, lambda s, z: _sum_abs2(s, s.pow(z, 2.5 + 0.5j)), z)
    (fd,) = _fd_grad(lambda z: float(np.sum(np.abs(z ** (2.5 + 0.5j)) ** 2)), z)
    np.testing.assert_allclose(g, fd, rtol=1e-7)
    x = np.array([0.5, 2.0])
    (g,) = _grad(rt, lambda s, x: _sum_abs2(s, s.pow(-2.0 + 0.5j, x)), x)
    (fd,) = _fd_grad(lambda x: float(np.sum(np.abs((-2.0 + 0.5j) ** x) ** 2)), x)
    np.testing.assert_allclose(g, fd, rtol=1e-7)


def test_complex_pow_at_zero_base_takes_the_real_conventions(rt):
    a, b = np.array([0j, 0j]), np.array([0j, 2 + 0j])
    (ga, gb) = _grad(rt, lambda s, a, b: s.reduce_sum(s.real(s.pow(a, b)), None), a, b)
    np.testing.assert_array_equal(ga, [0j, 0j])
    np.testing.assert_array_equal(gb, [0j, 0j])


# -- promotion and the projection to a real gradient ------------------------------------------
@pytest.mark.parametrize(
    "a, b, expected",
    [
        (np.float32, np.complex64, np.complex64),
        (np.float64, np.complex64, np.complex128),
        (np.float32, np.complex128, np.complex128),
        (np.int64, np.complex64, np.complex128),
        (np.int32, np.complex128, np.complex128),
        (np.complex64, np.complex128, np.complex128),
    ],
)
def test_promotion_follows_numpy(rt, a, b, expected):
    x, y = rt.constant_from(np.ones(2, a)), rt.constant_from(np.ones(2, b))
    for op in ("add", "sub", "mul", "div", "pow"):
        out = rt.with_eager_session(lambda s, op=op: getattr(s, op)(x, y))
        assert out.dtype == expected, op
        assert out.dtype == np.result_type(np.ones(2, a), np.ones(2, b))


@pytest.mark.parametrize("dtype, expected", [(np.float32, np.complex64), (np.float64, np.complex128)])
def test_python_complex_scalars_are_weak(rt, dtype, expected):
    x = rt.constant_from(np.ones(2, dtype))
    for op in ("add", "mul", "div", "pow"):
        assert rt.with_eager_session(lambda s, op=op: getattr(s, op)(x, 1j)).dtype == expected
    cond = rt.constant_from(np.array([True, False]))
    assert rt.with_eager_session(lambda s: s.where_select(cond, x, 2j)).dtype == expected


def test_float32_variable_times_complex64_constant_gets_a_float32_real_gradient(rt):
    x = np.array([1.0, -2.0, 0.5], np.float32)
    c = np.array([1 + 2j, -0.5j, 3 + 0j], np.complex64)
    (g,) = _grad(rt, lambda s, x: _sum_abs2(s, s.mul(x, rt.constant_from(c))), x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2 * x * np.abs(c) ** 2, rtol=1e-6)


@needs_torch
def test_real_variable_through_complex_values_gets_the_real_part_of_the_gradient(rt):
    x = np.array([0.3, -1.0, 2.0])
    c = 1 + 2j
    (g,) = _grad(rt, lambda s, x: s.reduce_sum(s.real(s.exp(s.mul(x, c))), None), x)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, np.real(c * np.exp(c * x)), rtol=1e-15)
    xt = torch.tensor(x, requires_grad=True)
    torch.exp(xt * c).real.sum().backward()
    np.testing.assert_allclose(g, xt.grad.numpy(), rtol=1e-15)


def test_where_select_with_a_real_and_a_complex_branch(rt):
    cond = np.array([True, False, True])
    x, z = np.array([1.0, 2.0, 3.0]), np.array([1j, 2 + 1j, -1j])
    (gx, gz) = _grad(rt, lambda s, x, z: _sum_abs2(s, s.where_select(rt.constant_from(cond), x, z)), x, z)
    assert gx.dtype == np.float64 and gz.dtype == np.complex128
    np.testing.assert_array_equal(gx, [2.0, 0.0, 6.0])
    np.testing.assert_array_equal(gz, [0j, 4 + 2j, 0j])


def test_real_rules_record_no_conj(rt):
    """conj(s, x) is no op for a real x: a real program's derivative records no conj."""
    x = rt.variable_from(np.array([0.5, 1.5]))
    with rt.eager_session() as s:
        loss = s.reduce_sum(s.mul(s.sin(x), s.log(s.pow(x, 2.5))), None)
    g = rt.grad(loss, x)
    assert "conj" not in g.trace()


# -- predicates and comparisons ---------------------------------------------------------------
def test_predicates_on_complex_match_numpy(rt):
    nan, inf = np.nan, np.inf
    z = np.array(
        [complex(1, 2), complex(nan, 0), complex(0, nan), complex(inf, 0), complex(0, -inf), complex(inf, nan)]
    )
    for op in ("isnan", "isinf", "isfinite"):
        value = np.asarray(rt.with_eager_session(lambda s, op=op: getattr(s, op)(rt.constant_from(z))))
        np.testing.assert_array_equal(value, getattr(np, op)(z))


def test_eq_and_ne_on_complex(rt):
    a, b = np.array([1 + 1j, 2 + 0j, 1j]), np.array([1 + 1j, 2 + 1e-300j, 1.0])
    for op in ("eq", "ne", "==", "!="):
        value = np.asarray(rt.with_eager_session(lambda s, op=op: s.compare(rt.constant_from(a), b[0], op)))
        np.testing.assert_array_equal(value, (a == b[0]) if op in ("eq", "==") else (a != b[0]))
    value = np.asarray(rt.with_eager_session(lambda s: s.compare(rt.constant_from(a), rt.constant_from(b), "eq")))
    np.testing.assert_array_equal(value, [True, False, False])


@pytest.mark.parametrize("op", ["lt", "le", "gt", "ge", "<", ">="])
def test_orderings_refuse_complex_and_say_why(rt, op):
    z = rt.constant_from(np.array([1 + 1j, 2.0]))
    with pytest.raises(DTypeError, match="complex numbers have no order") as info:
        rt.with_eager_session(lambda s: s.compare(1.0, z, op))
    assert "argument 'b' is complex" in str(info.value)
    assert "s.real(...), s.abs(...)" in str(info.value) and "'eq'/'ne'" in str(info.value)


# -- the ops without a complex meaning --------------------------------------------------------
REFUSING_UNARY = ["floor", "ceil", "round", "trunc", "signbit", "erf", "logical_not", "bitwise_invert"]
REFUSING_BINARY = [
    "maximum",
    "minimum",
    "remainder",
    "floor_divide",
    "copysign",
    "arctan2",
    "hypot",
    "logaddexp",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
]


@pytest.mark.parametrize("op", REFUSING_UNARY + REFUSING_BINARY + ["clamp"])
def test_ops_without_a_complex_meaning_refuse_complex_naming_op_argument_and_dtype(rt, op):
    z = rt.constant_from(np.array([1 + 1j, 2.0]))
    x = rt.constant_from(np.array([1, 2]) if op.startswith("bitwise") else np.array([1.0, 2.0]))
    args = {"clamp": (z, 0.0, 1.0)}.get(op, (z,) if op in REFUSING_UNARY else (x, z))
    name = "x" if op in REFUSING_UNARY + ["clamp"] else "b"
    with pytest.raises(DTypeError) as info:
        rt.with_eager_session(lambda s: getattr(s, op)(*args))
    message = str(info.value)
    assert message.startswith(f"{op}: argument '{name}' has dtype c128;")
    assert "complex" not in message.split(" accepts ")[1].split(" tensors there")[0]  # what it accepts


def test_ops_without_a_complex_meaning_say_what_to_do_with_a_complex_argument(rt):
    z = rt.constant_from(np.array([1 + 1j, 2.0]))
    with pytest.raises(
        DTypeError,
        match=r"accepts float or integer or unsigned integer tensors there: complex numbers "
        r"have no order \(the array API's rule\); use s\.abs\(x\) or s\.real\(x\) on purpose",
    ):
        rt.with_eager_session(lambda s: s.maximum(z, z))
    with pytest.raises(
        DTypeError,
        match=r"floor is a function of real numbers; apply it to s\.real\(x\), "
        r"s\.imag\(x\), s\.abs\(x\) or s\.angle\(x\) on purpose",
    ):
        rt.with_eager_session(lambda s: s.floor(z))


# -- regressions found in review -------------------------------------------------------------
@pytest.mark.parametrize("scalar", [np.complex128(2 + 1j), np.complex64(2 + 1j)])
@pytest.mark.parametrize("op", ["mul", "div"])
def test_a_numpy_complex_scalar_operand_gets_its_conjugate_in_the_vjp(rt, op, scalar):
    """A NumPy complex scalar is a constant like a Python complex: the VJP conjugates it in
    plain Python (conj(s, x) used to send it to s.conj, which refuses an all-scalar call)."""
    z = _cplx(3)
    (got,) = _grad(rt, lambda s, x: s.reduce_sum(s.real(getattr(s, op)(x, scalar)), None), z)
    c = complex(scalar)
    expected = np.full(3, np.conj(c)) if op == "mul" else np.conj(1 / c) * np.ones(3)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@pytest.mark.parametrize("scalar", [np.float64(2.5), np.float32(2.5), np.complex128(2 + 1j)])
def test_pow_with_a_numpy_scalar_exponent_or_base_is_differentiable(rt, scalar):
    """NumPy scalars have a shape, but they are constants: pow's rules take them as Python
    numbers (they used to call compare on the scalar alone)."""
    z = _cplx(3) + 2.0
    c = complex(scalar)
    (ga,) = _grad(rt, lambda s, x: s.reduce_sum(s.real(s.pow(x, scalar)), None), z)
    np.testing.assert_allclose(ga, np.conj(c * z ** (c - 1)), rtol=1e-6)
    (gb,) = _grad(rt, lambda s, x: s.reduce_sum(s.real(s.pow(scalar, x)), None), z)
    np.testing.assert_allclose(gb, np.conj(c**z * np.log(c)), rtol=1e-6)


def test_arccosh_gradient_below_minus_one_keeps_the_sign_of_a_negative_zero_imaginary_part(rt):
    """On arccosh's cut left of -1 its derivative 1/(√(z−1)·√(z+1)) is continuous across the
    cut (−1/√3 at z = −2 from either side); z + 1 computed as an addition of 1 + 0j turned
    −2 − 0j into −1 + 0j and flipped the gradient's sign (PyTorch gives −1/√3 at both)."""
    z = np.array([complex(-2.0, 0.0), complex(-2.0, -0.0)])
    (got,) = _grad(rt, lambda s, x: s.reduce_sum(s.real(s.arccosh(x)), None), z)
    np.testing.assert_allclose(got, np.full(2, -1 / np.sqrt(3)), rtol=1e-12)
