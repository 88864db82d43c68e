"""The LU kernels of solve, solve_transposed, inv, det and slogdet, and the factorisation
they share.

Two paths, equal to rounding. Stacks of matrices, small matrices and other engines' arrays
take ``np.linalg`` (its batched C loop; it dispatches through ``__array_function__``). A
single NumPy matrix of size ``FAST_SIZE`` or more takes SciPy's LAPACK ``getrf``/``getrs``
directly: the same LAPACK calls ``np.linalg`` makes (``gesv`` is ``getrf`` + ``getrs``;
``inv`` is ``gesv`` against the identity; ``slogdet`` sums ``log|u_ii|`` in order from
``getrf``), in SciPy's own OpenBLAS build, so the results agree to rounding
(tests/test_linalg_solves.py checks it), but the factorisation is kept.

**The factorisation cache** is what that buys: ``solve(a, b)``'s VJP solves with aᵀ, and
``slogdet``'s takes inv(a); each finds the LU of ``a`` that the forward pass
computed instead of factorising again (the issue's "solve reuses its factorisation in the
VJP"; ``slogdet(a)`` and ``solve(a, b)`` of the same tensor share one, too). It is keyed by
the array object, and only arrays that can never change (``tenferro.extend.is_immutable``:
read-only, bases too) are cached: a tensor's value never changes
(tenferro copies what comes in and freezes what kernels return), so the same object means
the same matrix. An entry lives while its array does (a weak reference drops it) and at
most ``CACHE_SIZE`` are kept. A miss only costs a factorisation, never a wrong value.

Complex matrices (and float32 ones) always take ``np.linalg``: the fast path and so the
cache are float64 only (``is_fast``); a complex solve's VJP factorises again.
"""

from __future__ import annotations

import math
import threading
import weakref
from typing import Any

import numpy as np

from tenferro.extend import is_immutable

from .batching import SingularMatrix, singular_error

#: From this size on a single NumPy matrix is factorised with SciPy's LAPACK and the
#: factorisation kept. Below it np.linalg is faster, and robust: SciPy carries its own
#: OpenBLAS, whose threads (its default: one per core) start on getrs/getrf from n ≈ 20 and
#: then spin waiting for work, so a program that alternates between it and NumPy's OpenBLAS
#: (a VJP's matmuls) on busy cores waited up to 10x longer (issue 23 item 7; bench/linalg.py
#: --small); NumPy's own OpenBLAS threads its gesv only from about this size on.
FAST_SIZE = 128
#: How many factorisations are kept, and the most bytes they may hold together (a larger
#: one is not kept: factorising it again costs less than holding it).
CACHE_SIZE = 8
CACHE_BYTES = 256 * 2**20

_cache: dict[int, tuple[Any, np.ndarray, np.ndarray]] = {}
_lock = threading.Lock()  # sessions on several threads share the cache


def is_fast(a: Any) -> bool:
    return type(a) is np.ndarray and a.ndim == 2 and a.shape[0] >= FAST_SIZE and a.dtype.char == "d"


def _lapack(name: str, a: np.ndarray) -> Any:
    from scipy.linalg import lapack

    return getattr(lapack, "d" + name)  # float64 only: float32 takes np.linalg


def lu_factor(a: np.ndarray, op: str, arg: str = "a") -> tuple[np.ndarray, np.ndarray]:
    """The LU factorisation (packed LU, 0-based pivots) of the square matrix ``a``, from the
    cache when this array was factorised before; SingularMatrix naming ``op`` if a pivot is
    exactly zero."""
    key = id(a)
    hit = _cache.get(key)
    if hit is not None and hit[0]() is a:
        return hit[1], hit[2]
    lu, piv, info = _lapack("getrf", a)(a)
    if info > 0:
        raise singular_error(op, a, arg)
    if is_immutable(a) and lu.nbytes <= CACHE_BYTES // CACHE_SIZE:
        with _lock:
            while len(_cache) >= CACHE_SIZE:
                _cache.pop(next(iter(_cache), None), None)
            _cache[key] = (weakref.ref(a, lambda _ref, key=key: _cache.pop(key, None)), lu, piv)
    return lu, piv


def _getrs(a: np.ndarray, b: np.ndarray, trans: int, op: str) -> np.ndarray:
    lu, piv = lu_factor(a, op)
    x, info = _lapack("getrs", a)(lu, piv, b, trans=trans)
    return x


def solve(a: Any, b: Any, transposed: bool = False, op: str = "solve") -> Any:
    """x with a x = b (aᴴ x = b when ``transposed``: aᵀ for a real a); shapes checked by the
    caller."""
    if is_fast(a) and np.ndim(b) <= 2 and b.dtype == a.dtype:
        return _getrs(a, b, 1 if transposed else 0, op)
    m = np.swapaxes(a, -1, -2) if transposed else a
    if transposed and np.iscomplexobj(a):
        m = np.conjugate(m)
    try:
        return np.linalg.solve(m, b)  # NumPy 2: a 1-D b is a vector, also beside a stack of matrices
    except np.linalg.LinAlgError:
        raise singular_error(op, a) from None


def inv(a: Any, op: str = "inv") -> Any:
    if is_fast(a):
        return _getrs(a, np.eye(a.shape[0], dtype=a.dtype), 0, op)
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise singular_error(op, a) from None


def slogdet(a: Any) -> tuple[Any, Any]:
    if not is_fast(a):
        sign, logabsdet = np.linalg.slogdet(a)
        return sign, logabsdet
    try:
        lu, piv = lu_factor(a, "slogdet")
    except SingularMatrix:  # a zero pivot: NumPy's (0, -inf)
        return np.zeros((), a.dtype), np.full((), -np.inf, a.dtype)
    # as NumPy's umath_linalg does it, in order, so the bits agree
    sign, total = 1.0, 0.0
    for i, (u, p) in enumerate(zip(np.diagonal(lu).tolist(), piv.tolist())):
        if p != i:
            sign = -sign
        if u < 0:
            sign, u = -sign, -u
        total += math.log(u)
    return np.asarray(sign, a.dtype), np.asarray(total, a.dtype)


def det(a: Any) -> Any:
    if not is_fast(a):
        return np.linalg.det(a)
    sign, logabsdet = slogdet(a)
    return np.asarray(float(sign) * math.exp(float(logabsdet)), a.dtype)
