"""The fft family: values against np.fft (every op, norm, n shorter and longer than the
axis, s and axes), gradients of real losses through the transforms against finite
differences and torch.fft (first and second order), the adjoints' conventions (rfft's
doubled bins, irfft's ignored imaginary DC part), errors, and fftfreq/rfftfreq."""

import warnings

import numpy as np
import pytest
from conftest import fd_gradient, needs_torch, torch

from tenferro import ArgumentError, AxisError, DTypeError, EagerRuntime, Tensor
from tenferro.plugins.fft import fftfreq, rfftfreq
from tenferro.testing import DuckArray

RNG = np.random.default_rng(11)
NORMS = [None, "backward", "ortho", "forward"]
ONE_AXIS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
SEVERAL_AXES = ["fftn", "ifftn", "rfftn", "irfftn"]
REAL_INPUT = {"rfft", "ihfft", "rfftn"}


def _input(name, shape):
    """A float64 input for the ops that take real input, else a complex128 one."""
    x = RNG.normal(size=shape)
    return x if name in REAL_INPUT else x + 1j * RNG.normal(size=shape)


def _value(rt, name, x, **params):
    return np.asarray(
        rt.with_eager_session(lambda s: getattr(s, name)(rt.constant_from(Tensor.from_numpy(x)), **params))
    )


# -- values ------------------------------------------------------------------------------------
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 3, 6, 11])
@pytest.mark.parametrize("name", ONE_AXIS)
def test_one_axis_transforms_match_numpy_for_every_norm_and_n(rt, name, n, norm):
    x = _input(name, (3, 6, 2))
    got = _value(rt, name, x, n=n, axis=1, norm=norm)
    expected = getattr(np.fft, name)(x, n, 1, norm)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-12)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(
    "s, axes", [(None, None), (None, (0, 2)), ((4, 3), (2, 0)), ((2, 7, 5), (0, 1, 2)), ((-1, 3), (1, 2))]
)
@pytest.mark.parametrize("name", SEVERAL_AXES)
def test_several_axes_transforms_match_numpy(rt, name, s, axes, norm):
    x = _input(name, (3, 4, 5))
    got = _value(rt, name, x, s=s, axes=axes, norm=norm)
    expected = getattr(np.fft, name)(x, s, axes, norm)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=1e-12)


@pytest.mark.parametrize("name", SEVERAL_AXES)
def test_s_without_axes_transforms_the_last_len_s_axes_as_numpy_does_without_its_deprecation_warning(rt, name):
    x = _input(name, (3, 4, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _value(rt, name, x, s=(6, 4))
    np.testing.assert_allclose(got, getattr(np.fft, name)(x, (6, 4), (1, 2)), atol=1e-12)


def test_none_in_s_keeps_the_one_axis_default_and_minus_one_the_input_length(rt):
    h = _input("irfftn", (3, 4))
    # None: irfft's default 2·(m − 1) along the last axis; -1: the input's length, as NumPy
    np.testing.assert_allclose(
        _value(rt, "irfftn", h, s=(3, None), axes=(0, 1)), np.fft.irfftn(h, (3, 6), (0, 1)), atol=1e-12
    )
    np.testing.assert_allclose(
        _value(rt, "irfftn", h, s=(3, -1), axes=(0, 1)), np.fft.irfftn(h, (3, 4), (0, 1)), atol=1e-12
    )


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "irfftn"])
def test_single_precision_stays_single_precision(rt, name):
    x = _input(name, (4, 6))
    single = x.astype(np.complex64 if np.iscomplexobj(x) else np.float32)
    got = _value(rt, name, single)
    expected = getattr(np.fft, name)(single)
    assert got.dtype == expected.dtype == (np.float32 if name in ("irfft", "hfft", "irfftn") else np.complex64)


def test_integer_input_gives_complex128_as_numpy(rt):
    got = _value(rt, "fft", np.arange(5))
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, np.fft.fft(np.arange(5)), atol=1e-12)


@pytest.mark.parametrize("axes", [None, 1, (0,), (0, 1), (1, 1)])
@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts_match_numpy_and_undo_each_other(rt, name, axes):
    x = RNG.normal(size=(5, 4)) + 1j * RNG.normal(size=(5, 4))
    got = _value(rt, name, x, axes=axes)
    np.testing.assert_array_equal(got, getattr(np.fft, name)(x, axes))
    other = "ifftshift" if name == "fftshift" else "fftshift"
    np.testing.assert_array_equal(_value(rt, other, got, axes=axes), x)


def test_fftfreq_and_rfftfreq_are_numpy_constants():
    for n in (1, 4, 7):
        np.testing.assert_array_equal(fftfreq(n, 0.1), np.fft.fftfreq(n, 0.1))
        np.testing.assert_array_equal(rfftfreq(n), np.fft.rfftfreq(n))
    with pytest.raises(ArgumentError, match="fftfreq: n must be a positive int"):
        fftfreq(0)
    with pytest.raises(ArgumentError, match="rfftfreq: d must be a real number"):
        rfftfreq(4, "1")


def test_every_kernel_passes_another_engines_array_through():
    # np.fft's functions dispatch __array_function__ (NumPy 2), so the kernels are engine-neutral
    rt = EagerRuntime()
    for name in [*ONE_AXIS, *SEVERAL_AXES, "fftshift", "ifftshift"]:
        x = _input(name, (4, 6))
        out = rt.registry[name].forward(DuckArray(x))
        assert isinstance(out, DuckArray), name
        np.testing.assert_array_equal(out.unwrap(), getattr(np.fft, name)(x))


# -- gradients -----------------------------------------------------------------------------------
def _grad(rt, fn, x):
    v = rt.variable_from(Tensor.from_numpy(x))
    out = rt.with_eager_session(lambda s: fn(s, v))
    return float(np.asarray(out)), np.asarray(rt.grad(out, v))


def _energy(s, z):
    """Σ |z|², a real scalar of a complex or real tensor."""
    return s.reduce_sum(s.real(s.mul(z, s.conj(z))), None)


def _filter(h, n=None, norm=None):
    """x ↦ Σ |irfft(rfft(x, n)·h, n)|²: a spectral filter and its output's energy."""

    def tenferro_fn(s, x):
        spectrum = s.rfft(x, n=n, norm=norm)
        return _energy(s, s.irfft(s.mul(spectrum, s.runtime.constant_from(Tensor.from_numpy(h))), n=n, norm=norm))

    def numpy_fn(x):
        return float(np.sum(np.fft.irfft(np.fft.rfft(x, n, norm=norm) * h, n, norm=norm) ** 2))

    def torch_fn(x):
        return torch.sum(torch.fft.irfft(torch.fft.rfft(x, n, norm=norm) * torch.tensor(h), n, norm=norm) ** 2)

    return tenferro_fn, numpy_fn, torch_fn


@pytest.mark.parametrize("n, norm", [(None, None), (None, "ortho"), (9, "forward"), (16, "backward"), (7, None)])
def test_gradient_of_a_spectral_filter_matches_finite_differences(rt, n, norm):
    x = RNG.normal(size=12)
    bins = (n or 12) // 2 + 1
    h = np.exp(-np.arange(bins) / 3.0) * np.exp(1j * np.linspace(0, 1, bins))
    tenferro_fn, numpy_fn, _ = _filter(h, n, norm)
    value, g = _grad(rt, tenferro_fn, x)
    assert g.dtype == np.float64  # a real variable gets a real gradient
    assert value == pytest.approx(numpy_fn(x), rel=1e-12)
    np.testing.assert_allclose(g, fd_gradient(numpy_fn, x), rtol=1e-6, atol=1e-7)


@needs_torch
@pytest.mark.parametrize("n, norm", [(None, None), (None, "ortho"), (9, "forward"), (16, "backward")])
def test_gradient_of_a_spectral_filter_matches_torch(rt, n, norm):
    x = RNG.normal(size=(3, 12))
    bins = (n or 12) // 2 + 1
    h = np.exp(-np.arange(bins) / 3.0) * np.exp(1j * np.linspace(0, 1, bins))
    tenferro_fn, _, torch_fn = _filter(h, n, norm)
    value, g = _grad(rt, tenferro_fn, x)
    tx = torch.tensor(x, requires_grad=True)
    out = torch_fn(tx)
    (expected,) = torch.autograd.grad(out, tx)
    assert value == pytest.approx(out.item(), rel=1e-12)
    np.testing.assert_allclose(g, expected.resolve_conj().numpy(), rtol=1e-10, atol=1e-12)


def _pairing(name, u, params):
    """x ↦ Re Σ conj(u)·f(x): the loss whose gradient is the VJP of f at the cotangent u."""

    def tenferro_fn(s, x):
        y = getattr(s, name)(x, **params)
        uu = s.runtime.constant_from(Tensor.from_numpy(u))
        return s.reduce_sum(s.real(s.mul(s.conj(uu), y)), None)

    def numpy_fn(x):
        return float(np.sum(np.real(np.conj(u) * getattr(np.fft, name)(x, **params))))

    return tenferro_fn, numpy_fn


CASES = [
    *(
        (name, {"n": n, "axis": axis, "norm": norm})
        for name in ONE_AXIS
        for n, axis, norm in [(None, -1, None), (4, 0, "ortho"), (9, 1, "forward"), (3, 1, "backward")]
    ),
    *(
        (name, {"s": s, "axes": axes, "norm": norm})
        for name in SEVERAL_AXES
        for s, axes, norm in [(None, None, None), ((3, 8), (1, 0), "ortho"), ((5,), (0,), "forward")]
    ),
    *((name, {"axes": axes}) for name in ("fftshift", "ifftshift") for axes in (None, 0, (1, 1))),
]


def _case_input(name, shape=(5, 6)):
    return _input(name, shape)


@pytest.mark.parametrize("name, params", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_every_vjp_matches_finite_differences_in_the_real_inner_product(rt, name, params):
    x = _case_input(name)
    y = getattr(np.fft, name)(x, **params)
    u = RNG.normal(size=y.shape) + (1j * RNG.normal(size=y.shape) if np.iscomplexobj(y) else 0)
    tenferro_fn, numpy_fn = _pairing(name, u, params)
    _, g = _grad(rt, tenferro_fn, x)
    assert g.dtype == x.dtype
    np.testing.assert_allclose(g, fd_gradient(numpy_fn, x), rtol=1e-6, atol=1e-6)


def _torch_call(name, t, params):
    f = getattr(torch.fft, name)
    if "axis" in params:
        return f(t, n=params["n"], dim=params["axis"], norm=params["norm"])
    if name in ("fftshift", "ifftshift"):
        return f(t, dim=params["axes"])
    return f(t, s=params["s"], dim=params["axes"], norm=params["norm"])


@needs_torch
@pytest.mark.parametrize("name, params", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_every_vjp_matches_torch(rt, name, params):
    x = _case_input(name)
    y = getattr(np.fft, name)(x, **params)
    u = RNG.normal(size=y.shape) + (1j * RNG.normal(size=y.shape) if np.iscomplexobj(y) else 0)
    tenferro_fn, _ = _pairing(name, u, params)
    _, g = _grad(rt, tenferro_fn, x)
    tx = torch.tensor(x, requires_grad=True)
    ty = _torch_call(name, tx, params)
    np.testing.assert_allclose(ty.detach().resolve_conj().numpy(), y, atol=1e-12)  # the same transform
    (expected,) = torch.autograd.grad(torch.sum(torch.real(torch.conj(torch.tensor(u)) * ty)), tx)
    np.testing.assert_allclose(g, expected.resolve_conj().numpy(), rtol=1e-10, atol=1e-12)


def test_rfft_adjoint_weights_the_bins_that_stand_for_two(rt):
    # ⟨rfft(x), u⟩ = ⟨x, VJP(u)⟩: with u = e_k, the VJP is Re(e^{+2πijk/n}) for every bin,
    # which irfft gives only after the bins it counts twice are halved
    for n in (6, 7):
        for k in range(n // 2 + 1):
            u = np.zeros(n // 2 + 1, complex)
            u[k] = 1.0
            _, g = _grad(rt, _pairing("rfft", u, {})[0], RNG.normal(size=n))
            np.testing.assert_allclose(g, np.cos(2 * np.pi * np.arange(n) * k / n), atol=1e-12)


def test_irfft_ignores_the_imaginary_dc_and_nyquist_parts_and_gives_them_zero_cotangent(rt):
    h = RNG.normal(size=5) + 1j * RNG.normal(size=5)
    u = RNG.normal(size=8)
    fn = _pairing("irfft", u, {})[0]
    _, g = _grad(rt, fn, h)
    assert g[0].imag == 0 and g[-1].imag == 0  # n = 8: bin 4 is the Nyquist bin
    np.testing.assert_allclose(g, fd_gradient(_pairing("irfft", u, {})[1], h), rtol=1e-6, atol=1e-7)
    if torch is not None:  # PyTorch's convention, the same
        th = torch.tensor(h, requires_grad=True)
        (expected,) = torch.autograd.grad(torch.sum(torch.tensor(u) * torch.fft.irfft(th)), th)
        np.testing.assert_allclose(g, expected.numpy(), atol=1e-12)


def test_gradient_of_sum_of_squares_of_a_complex_fft_is_parsevals(rt):
    # Σ |fft(z)|² = n Σ |z|² (norm backward), so the gradient is 2n·z
    z = RNG.normal(size=(2, 8)) + 1j * RNG.normal(size=(2, 8))
    value, g = _grad(rt, lambda s, x: _energy(s, s.fft(x)), z)
    assert value == pytest.approx(8 * np.sum(np.abs(z) ** 2))
    np.testing.assert_allclose(g, 16 * z, atol=1e-12)
    value, g = _grad(rt, lambda s, x: _energy(s, s.fftn(x, norm="ortho")), z)  # unitary: 2z
    np.testing.assert_allclose(g, 2 * z, atol=1e-12)


def _quartic(name, params):
    """x ↦ Σ |f(x)|⁴: a real loss whose Hessian involves the transform twice."""

    def fn(s, x):
        y = getattr(s, name)(x, **params)
        p = s.real(s.mul(y, s.conj(y)))
        return s.reduce_sum(s.mul(p, p), None)

    return fn


SECOND_ORDER = [
    ("rfft", {"n": 7, "axis": -1, "norm": None}),
    ("irfft", {"n": 9, "axis": 0, "norm": "ortho"}),
    ("fft", {"n": 4, "axis": 1, "norm": "forward"}),
    ("hfft", {"n": None, "axis": -1, "norm": None}),
    ("ihfft", {"n": 8, "axis": -1, "norm": "backward"}),
    ("rfftn", {"s": (4, 5), "axes": (1, 0), "norm": "ortho"}),
    ("irfftn", {"s": None, "axes": None, "norm": None}),
    ("ifftn", {"s": (3, 3), "axes": (0, 1), "norm": None}),
]


@pytest.mark.parametrize("name, params", SECOND_ORDER, ids=[n for n, _ in SECOND_ORDER])
def test_hessian_vector_products_match_finite_differences_of_the_gradient(rt, name, params):
    x = _case_input(name, (4, 5))
    v = _case_input(name, (4, 5))
    fn = _quartic(name, params)

    def grad_at(a):
        return _grad(rt, fn, a)[1]

    xv = rt.variable_from(Tensor.from_numpy(x))
    out = rt.with_eager_session(lambda s: fn(s, xv))
    (g,) = rt.grad(out, [xv])
    vt = rt.constant_from(Tensor.from_numpy(v))
    gv = rt.with_eager_session(lambda s: s.reduce_sum(s.real(s.mul(s.conj(g), vt)), None))
    hvp = np.asarray(rt.grad(gv, xv))
    h = 1e-5
    expected = (grad_at(x + h * v) - grad_at(x - h * v)) / (2 * h)
    np.testing.assert_allclose(hvp, expected, rtol=1e-6, atol=1e-6)


@needs_torch
def test_hessian_vector_product_through_the_spectral_filter_matches_torch(rt):
    x = RNG.normal(size=10)
    v = RNG.normal(size=10)
    h = np.exp(-np.arange(6) / 2.0) + 0.5j
    tenferro_fn, _, torch_fn = _filter(h, norm="ortho")

    def quartic_tenferro(s, a):
        y = s.irfft(s.mul(s.rfft(a, norm="ortho"), s.runtime.constant_from(Tensor.from_numpy(h))), norm="ortho")
        y2 = s.mul(y, y)
        return s.reduce_sum(s.mul(y2, y2), None)

    xv = rt.variable_from(Tensor.from_numpy(x))
    out = rt.with_eager_session(lambda s: quartic_tenferro(s, xv))
    (g,) = rt.grad(out, [xv])
    hvp = np.asarray(
        rt.grad(
            rt.with_eager_session(lambda s: s.reduce_sum(s.mul(g, rt.constant_from(Tensor.from_numpy(v))), None)), xv
        )
    )
    tx = torch.tensor(x, requires_grad=True)
    ty = torch.fft.irfft(torch.fft.rfft(tx, norm="ortho") * torch.tensor(h), norm="ortho")
    (tg,) = torch.autograd.grad(torch.sum(ty**4), tx, create_graph=True)
    (expected,) = torch.autograd.grad(torch.sum(tg * torch.tensor(v)), tx)
    np.testing.assert_allclose(hvp, expected.resolve_conj().numpy(), rtol=1e-10, atol=1e-12)


# -- errors ----------------------------------------------------------------------------------------
def test_rfft_refuses_complex_input_naming_the_argument(rt):
    with pytest.raises(DTypeError, match="rfft: argument 'a' has dtype c128; rfft accepts float or integer"):
        _value(rt, "rfft", np.ones(4, complex))


@pytest.mark.parametrize("name", ["rfft", "ihfft", "rfftn"])
def test_real_input_transforms_refusing_complex_point_to_the_complex_transform(rt, name):
    """rfft of a complex signal is not "a function of real numbers" to apply to s.real(a):
    the error says to use fft/fftn (docs/complex.md), as NumPy 2's does."""
    with pytest.raises(DTypeError, match=f"{name}: .*transforms a real signal; use s.fftn?\\(a\\)"):
        _value(rt, name, np.ones((2, 4), complex))


@pytest.mark.parametrize(
    "name, params, error, match",
    [
        ("fft", {"n": 0}, ArgumentError, "fft: n must be a positive int"),
        ("fft", {"n": 2.0}, ArgumentError, "fft: n must be a positive int"),
        ("ifft", {"axis": 3}, AxisError, "ifft: axis 3 is out of range for a tensor with 2 dims"),
        ("fft", {"norm": "unitary"}, ArgumentError, "fft: norm must be 'backward' (or None), 'ortho' or 'forward'"),
        ("fftn", {"axes": (1, -1)}, AxisError, "fftn: axes (1, -1) name the same axis twice"),
        ("rfftn", {"axes": ()}, AxisError, "rfftn: axes is empty"),
        ("ifftn", {"s": (2, 3, 4)}, ArgumentError, "ifftn: s (2, 3, 4) has 3 entries for a tensor with 2 dims"),
        ("irfftn", {"s": (2,), "axes": (0, 1)}, ArgumentError, "must have the same length"),
        ("fftshift", {"axes": (0, 5)}, AxisError, "fftshift: axis 5 is out of range"),
    ],
)
def test_bad_arguments_name_the_op_and_the_argument(rt, name, params, error, match):
    with pytest.raises(error, match=match.replace("(", r"\(").replace(")", r"\)")):
        _value(rt, name, np.ones((3, 4)), **params)


def test_irfft_of_one_bin_asks_for_n(rt):
    with pytest.raises(ArgumentError, match=r"defaults to 2·\(1 - 1\) = 0 points .* give a positive n"):
        _value(rt, "irfft", np.ones((3, 1), complex))
    np.testing.assert_allclose(_value(rt, "irfft", np.ones((3, 1), complex), n=3), np.fft.irfft(np.ones((3, 1)), 3))
