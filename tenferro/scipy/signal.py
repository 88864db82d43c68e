"""``tenferro.scipy.signal``: scipy.signal's ``convolve``, ``correlate``, ``convolve2d`` and
``correlate2d``, differentiable in both arguments to any order, real and complex.

Each is one window of the full N-d convolution, composed of tenferro's ops, so every
derivative is that of those ops: ``method='direct'`` gathers the sliding windows of the
zero-padded larger operand and contracts them with the flipped smaller one (the 1-d
``tnp.convolve``'s way, on N axes), ``method='fft'`` multiplies the operands' spectra
(``tnp.fft``), and ``'auto'`` asks scipy.signal.choose_conv_method, as scipy's own
functions do (and takes the FFT where the gathered windows would pass 2**24 elements).
``correlate`` convolves with the reversed, conjugated in2, as scipy's. See
docs/scipy-signal-integrate.md.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, DTypeError, ShapeMismatch
from ..numpy._composed import values
from ..numpy._dispatch import as_array, runtime_of

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d"]

_PREFIX = "tenferro.scipy.signal."
MODES = ("full", "same", "valid")
_METHODS = ("auto", "direct", "fft")
#: Past this many gathered elements (output size times kernel size) 'auto' takes the FFT.
_DIRECT_LIMIT = 2**24


def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> EagerTensor:
    """The N-d convolution of in1 and in2 (of one rank): 'full' (shape n + m - 1), 'same'
    (in1's shape, centred on the full result) or 'valid' (where one covers the other; it
    must be at least as large in every axis)."""
    return _windowed("convolve", in1, in2, mode, method, correlating=False)


def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> EagerTensor:
    """The N-d cross-correlation z[k] = Σₗ in1[l + k]·conj(in2[l]): convolve(in1, in2
    reversed and conjugated), modes as convolve's."""
    return _windowed("correlate", in1, in2, mode, method, correlating=True)


def convolve2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0) -> EagerTensor:
    """The 2-d convolution, as scipy.signal.convolve2d with boundary='fill': in1 padded with
    ``fillvalue`` (differentiable too). 'wrap' and 'symm' are not supported."""
    return _two_d("convolve2d", in1, in2, mode, boundary, fillvalue, correlating=False)


def correlate2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0) -> EagerTensor:
    """The 2-d cross-correlation, as scipy.signal.correlate2d with boundary='fill', with
    scipy's own windows: 'same' is centred one later than correlate's for an even in2, and
    'valid' with in2 the larger is the conjugate of correlate's (scipy swaps the inputs
    and reverses the result without conjugating it)."""
    return _two_d("correlate2d", in1, in2, mode, boundary, fillvalue, correlating=True)


# -- the window of the full convolution each mode takes -----------------------------------------
def _windowed(name: str, in1: Any, in2: Any, mode: str, method: str, correlating: bool) -> EagerTensor:
    function = _PREFIX + name
    mode = choice(function, "mode", mode, MODES)
    method = choice(function, "method", method, _METHODS)
    a, v = _operands(function, in1, in2)
    if a.ndim == 0:
        return tnp.multiply(a, _conj(v) if correlating else v)
    start, size = window(function, mode, a.shape, v.shape)
    kernel = _reversed_conj(v) if correlating else v
    if a.size == 0 or v.size == 0:
        method = "direct"  # empty sums: zeros (see windowed); scipy's FFT path fails on them
    elif method == "auto":
        method = _auto(a, v, mode, size)
    return _full_window(a, kernel, start, size, method)


def _two_d(name: str, in1: Any, in2: Any, mode: str, boundary: str, fillvalue: Any, correlating: bool) -> EagerTensor:
    function = _PREFIX + name
    mode = choice(function, "mode", mode, MODES)
    if boundary not in ("fill", "pad"):  # scipy's names for zero... fillvalue padding
        raise ArgumentError(
            f"{function}: boundary={boundary!r} is not supported; only boundary='fill' (in1 padded with fillvalue) "
            f"is: for 'wrap' or 'symm' pad in1 yourself (tnp.pad(in1, ..., mode='wrap' or 'symmetric')) and take "
            f"mode='valid'"
        )
    a, v = _operands(function, in1, in2)
    if a.ndim != 2:
        raise ShapeMismatch(
            f"{function}: in1 and in2 must both be 2-d, got shapes {list(a.shape)} and {list(v.shape)}",
            argument="in1",
        )
    kernel = _reversed_conj(v) if correlating else v
    # correlate2d's 'same' window sits one later for an even in2 (scipy's _correlate2d)
    start, size = window(function, mode, a.shape, v.shape, later=correlating)
    swapped = mode == "valid" and any(q > p for p, q in zip(a.shape, v.shape))
    fill = None
    if mode != "valid" and not _is_zero(fillvalue):
        fill = _fill(function, fillvalue, np.result_type(a.dtype, v.dtype), a.runtime)
        a = tnp.subtract(a, fill)  # in1 padded with c: the zero-padded convolution of in1 - c, plus c·Σ kernel
    out = _full_window(a, kernel, start, size, _auto(a, v, mode, size, direct_first=True))
    if fill is not None:
        out = tnp.add(out, tnp.multiply(fill, tnp.sum(kernel, dtype=out.dtype)))  # int32 sums stay int32
    if swapped and correlating and out.dtype.kind == "c":
        out = tnp.conj(out)  # scipy's swapped correlate2d: reversed, not conjugated
    return out


def window(
    function: str,
    mode: str,
    n: tuple[int, ...],
    m: tuple[int, ...],
    names: tuple[str, str] = ("in1", "in2"),
    later: bool = False,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(start, size)`` of the window ``mode`` takes of the full convolution (shape
    n + m - 1) of operands shaped ``n`` and ``m`` on the convolved axes: 'full' all of it,
    'same' n centred on it ((m - 1) // 2 on, m // 2 where ``later``: correlate2d's), 'valid'
    where one operand covers the other (a ShapeMismatch naming ``names[1]`` where neither is
    at least as large on every axis)."""
    if mode == "full":
        if any(p == q == 0 for p, q in zip(n, m)):
            raise ShapeMismatch(
                f"{function}: in mode 'full' {names[0]} and {names[1]} cannot both be empty on one axis (their full "
                f"convolution would have length -1), got shapes {list(n)} and {list(m)}",
                argument=names[1],
            )
        return (0,) * len(n), tuple(p + q - 1 for p, q in zip(n, m))
    if mode == "same":
        return tuple(q // 2 if later else (q - 1) // 2 for q in m), tuple(n)
    if not (all(p >= q for p, q in zip(n, m)) or all(q >= p for p, q in zip(n, m))):
        raise ShapeMismatch(
            f"{function}: in mode 'valid' one of {names[0]} and {names[1]} must be at least as large as the other in "
            f"every convolved axis, got shapes {list(n)} and {list(m)}",
            argument=names[1],
        )
    return tuple(min(p, q) - 1 for p, q in zip(n, m)), tuple(abs(p - q) + 1 for p, q in zip(n, m))


def _auto(a: EagerTensor, v: EagerTensor, mode: str, size: tuple[int, ...], direct_first: bool = False) -> str:
    """scipy's choice of method (or 'direct' for the 2-d functions, whose scipy kernels are
    direct), and the FFT where the direct windows would be too large."""
    gathered = math.prod(size) * min(a.size, v.size)
    floating = a.dtype.kind in "fc" or v.dtype.kind in "fc"
    if floating and gathered > _DIRECT_LIMIT:
        return "fft"
    if direct_first:
        return "direct"
    import scipy.signal

    return scipy.signal.choose_conv_method(values(a), values(v), mode=mode)


def _full_window(a: EagerTensor, k: EagerTensor, start: tuple[int, ...], size: tuple[int, ...], method: str) -> Any:
    """full(a, k)[start : start + size] on every axis, where full(a, k)[p] = Σⱼ a[p - j]·k[j]."""
    if method == "fft":
        return _by_fft(a, k, start, size)
    if k.size > a.size:  # the convolution commutes: gather the windows of the larger operand
        a, k = k, a
    every = tuple(range(a.ndim))
    return windowed(a, k, (every, every), ((), ()), start, size)


def windowed(
    a: EagerTensor,
    k: EagerTensor,
    axes: tuple[tuple[int, ...], tuple[int, ...]],
    dot_axes: tuple[tuple[int, ...], tuple[int, ...]],
    start: tuple[int, ...],
    size: tuple[int, ...],
) -> Any:
    """The direct convolution of a with k over the paired ``axes``, summed over the paired
    ``dot_axes``, outer over the rest, window ``start : start + size`` of the full result
    on each convolved axis: out[ia, ik, p] = Σ_{j, d} a[ia, d, p - j]·k[ik, d, j]. Result
    axes: a's other axes, k's other axes, the convolved ones (autograd's order). The
    windows of a (zero-padded by len(k) - 1) are gathered and contracted with the flipped k.
    An empty operand makes every element an empty sum: zeros (scipy's convolve2d's answer,
    and its N-d direct one), in the result's dtype and connected to both operands."""
    conv_a, conv_k = axes
    dot_a, dot_k = dot_axes
    rest_a = [i for i in range(a.ndim) if i not in conv_a]  # a's other axes, its dot axes among them
    rest_k = [i for i in range(k.ndim) if i not in conv_k]
    if a.size == 0 or k.size == 0:
        shape = [a.shape[i] for i in rest_a if i not in dot_a] + [k.shape[i] for i in rest_k if i not in dot_k]
        zero = tnp.einsum("i,j->", tnp.reshape(a, (-1,)), tnp.reshape(k, (-1,)))
        return tnp.broadcast_to(zero, (*shape, *size))
    c = len(conv_a)
    taps = [k.shape[i] for i in conv_k]
    pad = [(0, 0)] * a.ndim
    for axis, m in zip(conv_a, taps):
        pad[axis] = (m - 1, m - 1)
    moved = tnp.permute_dims(tnp.pad(a, pad), (*rest_a, *conv_a))
    index = []
    for n in range(c):
        outs = np.arange(start[n], start[n] + size[n]).reshape([-1 if i == n else 1 for i in range(2 * c)])
        offsets = np.arange(taps[n]).reshape([-1 if i == c + n else 1 for i in range(2 * c)])
        index.append(outs + offsets)
    gathered = moved[(Ellipsis, *index)]  # [rest_a..., p..., j...] = padded a at p + j
    flipped = tnp.flip(k, axis=tuple(conv_k)) if c else k
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    names_a = {axis: next(letters) for axis in rest_a}
    names_k = {axis: names_a[dot_a[dot_k.index(axis)]] if axis in dot_k else next(letters) for axis in rest_k}
    outs_names = [next(letters) for _ in range(c)]
    taps_names = [next(letters) for _ in range(c)]
    for axis, name in zip(conv_k, taps_names):
        names_k[axis] = name
    left = "".join(names_a[i] for i in rest_a) + "".join(outs_names) + "".join(taps_names)
    right = "".join(names_k[i] for i in range(k.ndim))
    result = "".join(names_a[i] for i in rest_a if i not in dot_a)
    result += "".join(names_k[i] for i in rest_k if i not in dot_k) + "".join(outs_names)
    return tnp.einsum(f"{left},{right}->{result}", gathered, flipped)


def _by_fft(a: EagerTensor, k: EagerTensor, start: tuple[int, ...], size: tuple[int, ...]) -> Any:
    import scipy.fft

    real = a.dtype.kind != "c" and k.dtype.kind != "c"
    shape = [scipy.fft.next_fast_len(p + q - 1, real) for p, q in zip(a.shape, k.shape)]
    axes = tuple(range(a.ndim))
    if real:
        full = tnp.fft.irfftn(tnp.fft.rfftn(a, s=shape, axes=axes) * tnp.fft.rfftn(k, s=shape, axes=axes), s=shape)
    else:
        full = tnp.fft.ifftn(tnp.fft.fftn(a, s=shape, axes=axes) * tnp.fft.fftn(k, s=shape, axes=axes), s=shape)
    out = full[tuple(slice(b, b + s) for b, s in zip(start, size))]
    dtype = np.result_type(a.dtype, k.dtype)
    if dtype.kind in "iu":  # scipy's: integers in, the rounded integers out (no float noise)
        out = tnp.astype(tnp.round(out), dtype)
    return out


# -- arguments ---------------------------------------------------------------------------------
def _operands(function: str, in1: Any, in2: Any) -> tuple[EagerTensor, EagerTensor]:
    rt = runtime_of((in1, in2))
    a, v = as_array(rt, in1, function, "in1"), as_array(rt, in2, function, "in2")
    for name, x in (("in1", a), ("in2", v)):
        if x.dtype.kind not in "iufc":
            raise ArgumentError(f"{function}: argument {name!r} has dtype {x.dtype}; pass numbers", argument=name)
    if a.ndim != v.ndim:
        raise ShapeMismatch(
            f"{function}: in1 and in2 must have the same rank, got shapes {list(a.shape)} and {list(v.shape)}",
            argument="in2",
        )
    return a, v


def choice(function: str, name: str, value: Any, allowed: tuple[str, ...]) -> str:
    """``value`` if it is one of the strings ``allowed``, else an ArgumentError listing them."""
    if not isinstance(value, str) or value not in allowed:
        said = ", ".join(repr(x) for x in allowed)
        raise ArgumentError(f"{function}: argument {name!r} is {value!r}; pass one of {said}", argument=name)
    return value


def _fill(function: str, fillvalue: Any, dtype: np.dtype, rt: Any) -> EagerTensor:
    """fillvalue in the result's dtype, as scipy casts it (1.5 pads float32 arrays as float32,
    integer ones as 1); a complex one for a real result is refused, as scipy refuses it."""
    fill = as_array(rt, fillvalue, function, "fillvalue")
    if fill.ndim != 0:
        raise ArgumentError(
            f"{function}: argument 'fillvalue' must be a scalar, got shape {list(fill.shape)}", argument="fillvalue"
        )
    if fill.dtype.kind == "c" and dtype.kind != "c":
        raise DTypeError(
            f"{function}: argument 'fillvalue' is complex, but in1 and in2 are real (the result is {dtype})",
            argument="fillvalue",
        )
    return fill if fill.dtype == dtype else tnp.astype(fill, dtype)


def _conj(x: EagerTensor) -> EagerTensor:
    return tnp.conj(x) if x.dtype.kind == "c" else x


def _reversed_conj(x: EagerTensor) -> EagerTensor:
    return tnp.flip(_conj(x))


def _is_zero(value: Any) -> bool:
    return type(value) is not EagerTensor and np.ndim(value) == 0 and not np.any(values(value))
