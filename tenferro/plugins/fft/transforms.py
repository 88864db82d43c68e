"""The discrete Fourier transforms, as ``np.fft`` computes them, and their adjoints.

Every transform is linear (over the reals: the half-spectrum ones take or give real
tensors), so its VJP is its adjoint in the real inner product ⟨a, b⟩ = Re(conj(a)·b):

- the adjoint of c·W (W the DFT matrix, c the norm's factor) is c·conj(W), the transform
  of the other direction with the same factor: ``fft(norm=N)``'s is ``ifft(norm=DUAL[N])``;
- NumPy zero-pads or truncates the input to ``n`` points before transforming; the adjoint
  of zero-padding is truncation and the other way round (``fft_resize`` both ways), applied
  after the adjoint transform;
- ``rfft`` keeps bins 0..n//2 of a real signal's spectrum; its adjoint is ``irfft`` of the
  cotangent with the bins that stand for two (all but DC and, for an even n, Nyquist)
  halved, since ``irfft`` counts them twice (PyTorch's ``fft_r2c_backward`` pads the
  cotangent to n bins and takes the real part of the inverse c2c transform: the same map);
- ``irfft``'s adjoint is ``rfft`` of the cotangent with those bins doubled (PyTorch's
  ``fft_c2r_backward``); the imaginary parts of the DC and Nyquist bins, which irfft
  ignores, get a zero cotangent;
- ``hfft(a) = irfft(conj(a))`` and ``ihfft(x) = conj(rfft(x))`` with directions swapped,
  so their adjoints are each other, weighted like irfft's and rfft's.

The rules call this family's ops (and elementwise's ``mul`` and ``real``), so derivatives
of any order follow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import (
    REQUIRED,
    ArgumentError,
    AxisError,
    DTypeError,
    ErrorInput,
    OpSpec,
    ShapeMismatch,
    check_shape,
    whole,
)

from .plans import DUAL, check_norm, plan_1d, plan_nd, weights

_REAL = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}


def lazy(name: str, **kwargs: Any) -> Callable[[], Any]:
    """A sample factory: ``samples.<name>(**kwargs)``, imported when samples are drawn."""

    def make() -> Any:
        from . import samples

        return getattr(samples, name)(**kwargs)

    return make


# -- helpers of the rules ----------------------------------------------------------------------
def _back(s: Any, ct: Any, a: Any) -> Any:
    """The adjoint transform's result ``ct`` as the cotangent of ``a``: its real part for a
    real ``a`` (the projection the real inner product asks for), zero-padded or truncated
    back to ``a``'s shape."""
    if ct.dtype.kind == "c" and a.dtype.kind != "c":
        ct = s.real(ct)
    if ct.shape != a.shape:
        ct = s.fft_resize(ct, a.shape)
    return ct


def _weighted(s: Any, g: Any, n: int, axis: int, double: bool) -> Any:
    """``g`` times the weights of the half-spectrum bins that stand for two (see ``weights``)."""
    if n <= 2:  # bins DC (and Nyquist): all weights are 1
        return g
    dtype = _REAL.get(g.dtype, g.dtype)
    return s.mul(g, s.runtime.constant_from(weights(n, axis, g.ndim, double, dtype)))


# -- one axis ------------------------------------------------------------------------------------
def _kernel_1d(name: str, real_output: bool) -> Callable[..., Any]:
    transform = getattr(np.fft, name)

    def forward(a: Any, n: Any = None, axis: Any = -1, norm: Any = None) -> Any:
        check_norm(norm, name)
        axis, n = plan_1d(name, np.shape(a), n, axis, real_output)
        return transform(whole(a, axis), n, axis, norm)  # (dask's transforms take their axes whole)

    return forward


def _c2c_rule(name: str, adjoint: str) -> Callable[..., Any]:
    def rule(s: Any, g: Any, out: Any, a: Any, n: Any, axis: Any, norm: Any) -> Any:
        axis, _ = plan_1d(name, a.shape, n, axis, False)
        return _back(s, getattr(s, adjoint)(g, None, axis, DUAL[norm]), a)

    return rule


def _r2c_rule(name: str, adjoint: str) -> Callable[..., Any]:
    """rfft's (adjoint irfft) and ihfft's (adjoint hfft): the doubled bins halved."""

    def rule(s: Any, g: Any, out: Any, a: Any, n: Any, axis: Any, norm: Any) -> Any:
        axis, n = plan_1d(name, a.shape, n, axis, False)
        return _back(s, getattr(s, adjoint)(_weighted(s, g, n, axis, False), n, axis, DUAL[norm]), a)

    return rule


def _c2r_rule(name: str, adjoint: str) -> Callable[..., Any]:
    """irfft's (adjoint rfft) and hfft's (adjoint ihfft): the doubled bins doubled."""

    def rule(s: Any, g: Any, out: Any, a: Any, n: Any, axis: Any, norm: Any) -> Any:
        axis, n = plan_1d(name, a.shape, n, axis, True)
        return _back(s, _weighted(s, getattr(s, adjoint)(g, None, axis, DUAL[norm]), n, axis, True), a)

    return rule


# -- several axes -------------------------------------------------------------------------------
def _kernel_nd(name: str, real_output: bool) -> Callable[..., Any]:
    transform = getattr(np.fft, name)

    def forward(a: Any, s: Any = None, axes: Any = None, norm: Any = None) -> Any:
        check_norm(norm, name)
        axes, s = plan_nd(name, np.shape(a), s, axes, real_output)
        return transform(whole(a, axes), s, axes, norm)

    return forward


def _c2c_rule_nd(name: str, adjoint: str) -> Callable[..., Any]:
    def rule(ses: Any, g: Any, out: Any, a: Any, s: Any, axes: Any, norm: Any) -> Any:
        axes, _ = plan_nd(name, a.shape, s, axes, False)
        return _back(ses, getattr(ses, adjoint)(g, None, axes, DUAL[norm]), a)

    return rule


def _rfftn_rule(ses: Any, g: Any, out: Any, a: Any, s: Any, axes: Any, norm: Any) -> Any:
    axes, s = plan_nd("rfftn", a.shape, s, axes, False)
    return _back(ses, ses.irfftn(_weighted(ses, g, s[-1], axes[-1], False), s, axes, DUAL[norm]), a)


def _irfftn_rule(ses: Any, g: Any, out: Any, a: Any, s: Any, axes: Any, norm: Any) -> Any:
    axes, s = plan_nd("irfftn", a.shape, s, axes, True)
    return _back(ses, _weighted(ses, ses.rfftn(g, None, axes, DUAL[norm]), s[-1], axes[-1], True), a)


# -- fft_resize: NumPy's zero-padding / truncation, and its own adjoint ----------------------------
def _resize(x: Any, shape: Any) -> Any:
    shape = check_shape(shape, "fft_resize")
    have = np.shape(x)
    if len(shape) != len(have):
        raise ShapeMismatch(
            f"fft_resize: shape {list(shape)} has {len(shape)} dims, x {list(have)} has {len(have)}; "
            f"give one size per axis"
        )
    kept = x[tuple(slice(0, min(h, n)) for h, n in zip(have, shape))]
    return np.pad(kept, [(0, max(0, n - h)) for h, n in zip(have, shape)])  # a copy, also without padding


def _resize_reference(x: Any, shape: Any) -> np.ndarray:
    x = np.asarray(x)
    out = np.zeros(shape, x.dtype)
    common = tuple(slice(0, min(h, n)) for h, n in zip(x.shape, shape))
    out[common] = x[common]
    return out


FFT_RESIZE = OpSpec(
    name="fft_resize",
    inputs=("x",),
    internal=True,
    params={"shape": REQUIRED},
    forward=_resize,
    vjps=(lambda s, g, out, x, shape: s.fft_resize(g, x.shape),),
    linear=True,
    accepts="biufc",
    sample=lazy("resize"),
    reference=_resize_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros((2, 3)),), {"shape": (2,)}, ShapeMismatch, "give one size per axis"),
        ErrorInput((np.zeros((2, 3)),), {"shape": (2, -1)}, ArgumentError, "non-negative ints"),
    ],
    doc="x truncated or zero-padded at the end of each axis to `shape` (what the transforms do to "
    "their input for `n`/`s`); its own adjoint, back to x's shape.",
)


# -- the specs -----------------------------------------------------------------------------------
_NORM_DOC = "`norm` is NumPy's: 'backward' (None: the inverse scaled by 1/n), 'ortho' (both by 1/√n) or 'forward'."
_X = np.zeros((2, 3))
_C = np.zeros((2, 3), np.complex128)


def _errors_1d(name: str, real_input: bool, real_output: bool) -> Callable[[], list[ErrorInput]]:
    def make() -> list[ErrorInput]:
        cases = [
            ErrorInput((_X,), {"n": 0}, ArgumentError, "n must be a positive int"),
            ErrorInput((_X,), {"axis": 2}, AxisError, "axis 2 is out of range for a tensor with 2 dims"),
            ErrorInput((_X,), {"norm": "unitary"}, ArgumentError, "norm must be 'backward'"),
            ErrorInput((np.zeros(()),), {}, AxisError, "a 0-d tensor has no axis"),
        ]
        if real_input:
            cases.append(ErrorInput((_C,), {}, DTypeError, f"{name} accepts float or integer"))
        if real_output:
            cases.append(ErrorInput((np.zeros((2, 1)),), {}, ArgumentError, "defaults to 2·(1 - 1) = 0 points"))
        return cases

    return make


def _errors_nd(name: str, real_input: bool) -> Callable[[], list[ErrorInput]]:
    def make() -> list[ErrorInput]:
        cases = [
            ErrorInput((_X,), {"s": (2, 0), "axes": (0, 1)}, ArgumentError, "every entry of s must be a positive int"),
            ErrorInput((_X,), {"axes": (0, 0)}, AxisError, "name the same axis twice"),
            ErrorInput((_X,), {"axes": ()}, AxisError, "name at least one axis"),
            ErrorInput((_X,), {"s": (2, 3), "axes": (1,)}, ArgumentError, "must have the same length"),
            ErrorInput((_X,), {"axes": (0, 2)}, AxisError, "axes entry 2 is out of range"),
            ErrorInput((_X,), {"norm": 1}, ArgumentError, "norm must be 'backward'"),
        ]
        if real_input:
            cases.append(ErrorInput((_C,), {}, DTypeError, f"{name} accepts float or integer"))
        return cases

    return make


def _reference_1d(name: str) -> Callable[..., Any]:
    transform = getattr(np.fft, name)
    return lambda a, n=None, axis=-1, norm=None: transform(np.asarray(a), n, axis, norm)


def _reference_nd(name: str) -> Callable[..., Any]:
    transform = getattr(np.fft, name)
    return lambda a, s=None, axes=None, norm=None: transform(np.asarray(a), s, axes, norm)


def _refuses(name: str, complex_transform: str) -> dict[str, str]:
    """Why a transform of real signals refuses complex input, and what to use instead."""
    return {"c": f"{name} transforms a real signal; use s.{complex_transform}(a) for a complex one"}


def _spec_1d(name: str, rule: Any, real_input: bool, real_output: bool, doc: str) -> OpSpec:
    return OpSpec(
        name=name,
        inputs=("a",),
        params={"n": None, "axis": -1, "norm": None},
        forward=_kernel_1d(name, real_output),
        vjps=(rule,),
        linear=True,
        accepts="fiu" if real_input else "fiuc",
        refuses=_refuses(name, "fft") if real_input else {},
        sample=lazy("transform_1d", real_output=real_output),
        reference=_reference_1d(name),
        error_inputs=_errors_1d(name, real_input, real_output),
        doc=f"{doc} {_NORM_DOC}",
    )


def _spec_nd(name: str, rule: Any, real_input: bool, real_output: bool, doc: str) -> OpSpec:
    return OpSpec(
        name=name,
        inputs=("a",),
        params={"s": None, "axes": None, "norm": None},
        forward=_kernel_nd(name, real_output),
        vjps=(rule,),
        linear=True,
        accepts="fiu" if real_input else "fiuc",
        refuses=_refuses(name, "fftn") if real_input else {},
        sample=lazy("transform_nd", real_output=real_output),
        reference=_reference_nd(name),
        error_inputs=_errors_nd(name, real_input),
        doc=f"{doc} {_NORM_DOC}",
    )


_N = "the input zero-padded or truncated to `n` points along `axis` (None: its length"
_S = (
    "over `axes` (None: the last len(s) axes, or all), each zero-padded or truncated to its "
    "entry of `s` (None: the input's sizes"
)

SPECS = [
    _spec_1d(
        "fft",
        _c2c_rule("fft", "ifft"),
        False,
        False,
        f"The discrete Fourier transform along `axis` (np.fft.fft) of {_N}); complex result.",
    ),
    _spec_1d(
        "ifft",
        _c2c_rule("ifft", "fft"),
        False,
        False,
        f"The inverse discrete Fourier transform along `axis` (np.fft.ifft) of {_N}); complex result.",
    ),
    _spec_1d(
        "rfft",
        _r2c_rule("rfft", "irfft"),
        True,
        False,
        f"The transform of a real signal (np.fft.rfft): bins 0..n//2 of its spectrum, of {_N}). "
        "Complex input is refused: use fft.",
    ),
    _spec_1d(
        "irfft",
        _c2r_rule("irfft", "rfft"),
        False,
        True,
        "The real signal of n points (np.fft.irfft) whose half spectrum is `a` along `axis`, "
        "truncated or zero-padded to n//2 + 1 bins (n None: 2·(m − 1) for m bins). The imaginary "
        "parts of the DC and (even n) Nyquist bins are ignored, and get a zero cotangent.",
    ),
    _spec_1d(
        "hfft",
        _c2r_rule("hfft", "ihfft"),
        False,
        True,
        "The real spectrum of n points (np.fft.hfft) of a signal with Hermitian symmetry whose "
        "first half is `a` along `axis` (n None: 2·(m − 1)); irfft(conj(a)) with directions swapped.",
    ),
    _spec_1d(
        "ihfft",
        _r2c_rule("ihfft", "hfft"),
        True,
        False,
        f"The inverse of hfft (np.fft.ihfft): conj(rfft(a)) with directions swapped, of {_N}). "
        "Complex input is refused.",
    ),
    _spec_nd(
        "fftn",
        _c2c_rule_nd("fftn", "ifftn"),
        False,
        False,
        f"The n-dimensional discrete Fourier transform (np.fft.fftn) {_S}).",
    ),
    _spec_nd(
        "ifftn",
        _c2c_rule_nd("ifftn", "fftn"),
        False,
        False,
        f"The n-dimensional inverse discrete Fourier transform (np.fft.ifftn) {_S}).",
    ),
    _spec_nd(
        "rfftn",
        _rfftn_rule,
        True,
        False,
        f"The n-dimensional transform of a real signal (np.fft.rfftn) {_S}); the last of `axes` "
        "keeps bins 0..n//2. Complex input is refused: use fftn.",
    ),
    _spec_nd(
        "irfftn",
        _irfftn_rule,
        False,
        True,
        "The real n-dimensional signal (np.fft.irfftn) whose half spectrum (along the last of "
        "`axes`) is `a`, of sizes `s` (None: the input's, 2·(m − 1) along the last axis).",
    ),
    FFT_RESIZE,
]
