"""``tnp.fft``: the array API's fft extension (2024.12) on the fft ops.

The transforms record and differentiate; ``fftfreq``/``rfftfreq`` are constants, or
differentiable in a tenferro spacing ``d``. Keyword
names and defaults are the standard's: ``n``/``axis`` (one axis) or ``s``/``axes``
(several), ``norm="backward"``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.arguments import shown, size
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, TenferroError, UnknownName
from ..core.runtime import default_runtime
from ._dispatch import X, _named, array_arg, renamed, run
from ._dtypes import as_dtype, check_device

__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]


def _one_axis(name: str, doc: str) -> Callable[..., EagerTensor]:
    """``name(x, /, *, n=None, axis=-1, norm="backward")``: the op of the same name."""
    label = f"tnp.fft.{name}"

    def function(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> EagerTensor:
        if type(x) is not EagerTensor:
            x = array_arg(x, label)
        rt = x.runtime
        session = rt.current_session()
        op = getattr(session, name)
        try:
            if n is None and type(axis) is int and axis == -1 and type(norm) is str and norm == "backward":
                # the op's defaults: no params to bind (the op checks any other n, axis and norm)
                return op(x)
            return op(x, n, axis, norm)
        except TenferroError as exc:
            raise renamed(exc, label, X) from None

    function = _named(function, name, doc)
    function.__module__ = __name__
    return function


def _many_axes(name: str, doc: str) -> Callable[..., EagerTensor]:
    """``name(x, /, *, s=None, axes=None, norm="backward")``: the op of the same name."""
    label = f"tnp.fft.{name}"

    def function(
        x: Any, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm: str = "backward"
    ) -> EagerTensor:
        x = array_arg(x, label)
        if s is None and axes is None and type(norm) is str and norm == "backward":
            return run(label, X, getattr(x.runtime.current_session(), name), x)
        return run(label, X, getattr(x.runtime.current_session(), name), x, s, axes, norm)  # the op checks them

    function = _named(function, name, doc)
    function.__module__ = __name__
    return function


fft = _one_axis("fft", "The discrete Fourier transform along `axis` of x zero-padded or cut to `n` points.")
ifft = _one_axis("ifft", "The inverse discrete Fourier transform along `axis` of x zero-padded or cut to `n` points.")
rfft = _one_axis("rfft", "Bins 0..n//2 of the transform of the real signal x along `axis` (n points).")
irfft = _one_axis("irfft", "The real signal of `n` points (default 2(m-1)) whose half spectrum is x along `axis`.")
hfft = _one_axis("hfft", "The real spectrum of `n` points of the Hermitian signal whose first half is x.")
ihfft = _one_axis("ihfft", "The inverse of hfft: the half spectrum of the real signal x along `axis`.")
fftn = _many_axes("fftn", "The n-dimensional discrete Fourier transform over `axes`, of sizes `s`.")
ifftn = _many_axes("ifftn", "The n-dimensional inverse discrete Fourier transform over `axes`, of sizes `s`.")
rfftn = _many_axes("rfftn", "The n-dimensional transform of the real x over `axes`; the last keeps bins 0..n//2.")
irfftn = _many_axes("irfftn", "The real n-dimensional signal whose half spectrum (along the last of `axes`) is x.")


def _shift(name: str, doc: str) -> Callable[..., EagerTensor]:
    label = f"tnp.fft.{name}"

    def function(x: Any, /, *, axes: int | Sequence[int] | None = None) -> EagerTensor:
        x = array_arg(x, label)
        if axes is None:
            return run(label, {}, getattr(x.runtime.current_session(), name), x)
        return run(label, {}, getattr(x.runtime.current_session(), name), x, axes)  # the op checks them

    function = _named(function, name, doc)
    function.__module__ = __name__
    return function


fftshift = _shift("fftshift", "x rolled by n//2 along `axes` (None: all): the zero-frequency bin to the centre.")
ifftshift = _shift("ifftshift", "The inverse of fftshift: x rolled by -(n//2) along `axes` (None: all).")


#: The most float64 samples an array can address (NumPy refuses more with a ValueError).
MAX_SAMPLES = np.iinfo(np.intp).max // 8


def _frequencies(name: str, numpy_function: Callable[..., np.ndarray], doc: str) -> Callable[..., EagerTensor]:
    label = f"tnp.fft.{name}"

    def function(n: int, /, *, d: float | EagerTensor = 1.0, dtype: Any = None, device: Any = None) -> EagerTensor:
        n = size(n, label, "n", 1)
        if n > MAX_SAMPLES:
            raise ArgumentError(
                f"{label}: n is {n}; an array of that many float64 samples is larger than memory can address"
            )
        check_device(device, label)
        target = np.dtype(np.float64) if dtype is None else as_dtype(dtype, label)
        if target.kind != "f":
            raise ArgumentError(f"{label}: dtype must be a real floating-point dtype, got {target}")
        try:
            if type(d) is EagerTensor:  # NumPy's bins · (1/(n·d)), by ops: differentiable in d
                return _scaled(label, numpy_function, n, d, target)
            spacing = np.asarray(d)  # a Python or NumPy number, or a 0-d array (a Tensor too)
            if spacing.ndim != 0 or spacing.dtype.kind not in "iuf":
                raise ArgumentError(f"{label}: d must be a real number, got {shown(d)}")
            return default_runtime().constant_from(numpy_function(n, d=float(spacing)).astype(target))
        except TenferroError:
            raise
        except (TypeError, ValueError, OverflowError, MemoryError) as exc:
            raise ArgumentError(
                f"{label}: no frequencies for n={n!r} and d={d!r} ({exc}); n is a count of samples, d a number"
            ) from None

    function = _named(function, name, doc)
    function.__module__ = __name__
    return function


def _scaled(label: str, numpy_function: Callable[..., np.ndarray], n: int, d: EagerTensor, target: np.dtype) -> Any:
    if d.ndim != 0 or d.dtype.kind not in "iuf":
        raise ArgumentError(f"{label}: d must be a real number (a 0-d tensor), got {d.dtype} of shape {list(d.shape)}")
    rt = d.runtime
    s = rt.current_session()
    bins = np.rint(numpy_function(n) * n)  # the integers NumPy scales: exact as floats
    spacing = d if d.dtype.kind == "f" else s.astype(d, np.float64)
    frequencies = run(label, {}, s.mul, rt.constant_from(bins.astype(spacing.dtype)), s.div(1.0, s.mul(spacing, n)))
    return frequencies if frequencies.dtype == target else s.astype(frequencies, target)


fftfreq = _frequencies(
    "fftfreq",
    np.fft.fftfreq,
    "The sample frequencies of fft of n points spaced d apart (float64; differentiable in a tenferro d).",
)
rfftfreq = _frequencies(
    "rfftfreq",
    np.fft.rfftfreq,
    "The sample frequencies of rfft of n points spaced d apart (float64; differentiable in a tenferro d).",
)


def __getattr__(name: str) -> object:
    import numpy.fft

    raise UnknownName.of("tnp.fft", name, __all__, numpy=numpy.fft)
