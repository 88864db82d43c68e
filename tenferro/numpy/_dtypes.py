"""The array API's data types, constants and data type functions (``finfo``, ``iinfo``,
``isdtype``, ``result_type``, ``can_cast``, ``astype``).

The dtype objects are NumPy's scalar types, as in NumPy 2 itself, so ``x.dtype ==
tnp.float64`` holds for the ``np.dtype`` an array carries, and a tenferro dtype can be
passed to NumPy unchanged. Promotion is NumPy 2's (NEP 50: a Python scalar takes the
array's dtype), which is the standard's wherever the standard defines one.
"""

from __future__ import annotations

import builtins
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, DTypeError
from ._dispatch import SCALARS, lift, session_of

__all__ = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "e",
    "inf",
    "nan",
    "newaxis",
    "pi",
    "astype",
    "can_cast",
    "finfo",
    "iinfo",
    "isdtype",
    "result_type",
]

bool = np.bool_  # noqa: A001 - the standard's name
int8 = np.int8
int16 = np.int16
int32 = np.int32
int64 = np.int64
uint8 = np.uint8
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
float32 = np.float32
float64 = np.float64
complex64 = np.complex64
complex128 = np.complex128

e = math.e
inf = math.inf
nan = math.nan
newaxis = None
pi = math.pi

#: The standard's dtypes by name, and the np.dtype of each (what arrays carry).
DTYPES: dict[str, Any] = {
    "bool": bool,
    "int8": int8,
    "int16": int16,
    "int32": int32,
    "int64": int64,
    "uint8": uint8,
    "uint16": uint16,
    "uint32": uint32,
    "uint64": uint64,
    "float32": float32,
    "float64": float64,
    "complex64": complex64,
    "complex128": complex128,
}
_KNOWN = {np.dtype(t): np.dtype(t) for t in DTYPES.values()}
_KNOWN.update({t: np.dtype(t) for t in DTYPES.values()})

#: The standard's dtype kinds (``isdtype``), as sets of np.dtype kind characters.
KINDS = {
    "bool": "b",
    "signed integer": "i",
    "unsigned integer": "u",
    "integral": "iu",
    "real floating": "f",
    "complex floating": "c",
    "numeric": "iufc",
}


def as_dtype(dtype: Any, function: str, argument: str = "dtype") -> np.dtype:
    """``dtype`` (a tenferro/NumPy dtype object or ``np.dtype``) as an ``np.dtype`` of the
    standard's thirteen, or the DTypeError that says which are allowed."""
    try:
        return _KNOWN[dtype]
    except (KeyError, TypeError):
        pass
    try:
        known = _KNOWN.get(np.dtype(dtype)) if not isinstance(dtype, EagerTensor) else None
    except (TypeError, ValueError, SyntaxError):  # (np.dtype("01") parses it as a Python literal)
        known = None
    if known is None:
        raise DTypeError(
            f"{function}: {argument}={dtype!r} is not a dtype of tenferro.numpy; use one of tnp.bool, "
            f"tnp.int8 ... tnp.uint64, tnp.float32, tnp.float64, tnp.complex64, tnp.complex128"
        )
    return known


def _dtype_of(value: Any, function: str, argument: str) -> np.dtype:
    if isinstance(value, EagerTensor):
        return value.dtype
    if isinstance(value, (np.ndarray, np.generic)):
        return as_dtype(value.dtype, function, argument)
    return as_dtype(value, function, argument)


@dataclass(frozen=True)
class finfo_object:  # noqa: N801 - the standard's name
    """The standard's finfo: Python numbers (NumPy's finfo holds NumPy scalars)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


def finfo(type: Any, /) -> finfo_object:  # noqa: A002 - the standard's name
    """Machine limits of a floating dtype (or an array's): ``bits``, ``eps``, ``max``,
    ``min``, ``smallest_normal``, ``dtype`` (a complex dtype gives its real part's)."""
    dtype = _dtype_of(type, "tnp.finfo", "type")
    if dtype.kind not in "fc":
        raise DTypeError(f"tnp.finfo: {dtype} is not a floating dtype; use tnp.iinfo for integers")
    info = np.finfo(dtype)
    return finfo_object(
        int(info.bits), float(info.eps), float(info.max), float(info.min), float(info.smallest_normal), info.dtype
    )


def iinfo(type: Any, /) -> np.iinfo:  # noqa: A002 - the standard's name
    """Machine limits of an integer dtype (or an array's): ``bits``, ``max``, ``min``, ``dtype``."""
    dtype = _dtype_of(type, "tnp.iinfo", "type")
    if dtype.kind not in "iu":
        raise DTypeError(f"tnp.iinfo: {dtype} is not an integer dtype; use tnp.finfo for floats")
    return np.iinfo(dtype)


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """Whether ``dtype`` is of ``kind``: a dtype, one of the standard's kind names
    ('bool', 'signed integer', 'unsigned integer', 'integral', 'real floating',
    'complex floating', 'numeric'), or a tuple of these."""
    dtype = as_dtype(dtype, "tnp.isdtype")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        try:
            return dtype.kind in KINDS[kind]
        except KeyError:
            raise ArgumentError(
                f"tnp.isdtype: unknown kind {kind!r}; use a dtype, one of {sorted(KINDS)}, or a tuple of these"
            ) from None
    return dtype == as_dtype(kind, "tnp.isdtype", "kind")


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The dtype the standard's promotion gives for these arrays, dtypes and Python
    scalars (NumPy 2's: a Python scalar takes the dtype of the arrays)."""
    dtypes = []
    scalars = []
    for index, value in enumerate(arrays_and_dtypes):
        if type(value) in SCALARS:
            scalars.append(value)
        else:
            dtypes.append(_dtype_of(value, "tnp.result_type", f"arrays_and_dtypes[{index}]"))
    if not dtypes:
        raise ArgumentError("tnp.result_type: pass at least one array or dtype (Python scalars alone have none)")
    try:
        result = np.result_type(*dtypes, *scalars)
    except TypeError as exc:
        raise DTypeError(f"tnp.result_type: these dtypes do not promote ({exc})") from None
    for scalar in scalars:  # the standard: a Python scalar must fit the kind of the arrays
        if (result.kind == "b" and type(scalar) is not builtins.bool) or (
            result.kind in "iu" and type(scalar) in (float, complex)
        ):
            raise DTypeError(
                f"tnp.result_type: a Python {type(scalar).__name__} does not promote with {result}; convert "
                f"the array with tnp.astype first"
            )
    return result


def can_cast(from_: Any, to: Any, /) -> builtins.bool:
    """Whether ``from_`` (a dtype or array) can be cast to ``to`` by the standard's type
    promotion rules (NumPy's "safe" casting, which also allows integers to floats)."""
    return np.can_cast(_dtype_of(from_, "tnp.can_cast", "from_"), as_dtype(to, "tnp.can_cast", "to"))


def astype(x: Any, dtype: Any, /, *, copy: builtins.bool = True, device: Any = None) -> EagerTensor:
    """``x`` converted to ``dtype`` (the ``astype`` op: float/complex casts carry
    gradients). Values are immutable, so ``copy=False`` with the same dtype returns ``x``."""
    check_device(device, "tnp.astype")
    dtype = as_dtype(dtype, "tnp.astype")
    session = session_of(x)
    x = lift(session.runtime, x, "tnp.astype") if type(x) is not EagerTensor else x
    if type(x) is not EagerTensor:
        raise ArgumentError(f"tnp.astype: x must be an array, got a Python {type(x).__name__}")
    if x.dtype == dtype and not copy:
        return x
    return session.astype(x, dtype)


def check_device(device: Any, function: str) -> None:
    """The standard's ``device=``: tenferro.numpy arrays live on the CPU ("cpu" or None)."""
    if device is not None and not (type(device) is str and device == "cpu"):
        raise ArgumentError(
            f"{function}: device={device!r} is not a device of tenferro.numpy; its only device is 'cpu' "
            f"(pass device=None or 'cpu')"
        )
