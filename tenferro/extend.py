"""``tenferro.extend``: everything an op plugin needs, and the stable plugin API.

A plugin is a module (or object) with a ``@hookimpl`` function
``tenferro_register_ops(registrar)`` that adds :class:`OpSpec` values to the
:class:`PluginRegistrar` it receives, and declares with ``registrar.requires(...)`` the
plugins whose ops it calls; an entry point in the group ``tenferro`` makes tenferro find
it (CONTRIBUTING.md walks through one).
Rules are written with the ops of the session they get, in the vocabulary of
:mod:`tenferro.core.rules`: per-input ``vjps``, ``linear``/``multilinear``, an optional
``jvp``, or one whole-op ``vjp``.

Besides the spec model this module holds the helpers every family needs:
:func:`unbroadcast` for ops that broadcast like NumPy (``OpSpec(unbroadcast=unbroadcast)``),
:func:`explain_broadcast` for their error messages, :func:`normalize_axes` for ``axes``
arguments, :func:`check_shape` for ``shape`` arguments, :func:`is_immutable` for plugins
that cache work by array identity, ``NO_ORDER`` for the ``refuses`` of an op that orders
its values (why it refuses complex inputs), :func:`conj` for the complex conjugates in VJPs (the
VJP of a holomorphic f is g ↦ g·conj(f′(z)): cotangents live in the real inner product
Re(conj(a)·b), PyTorch's convention), :func:`derived` for a value a rule derives from
its op's inputs (f′(x)) that later sweeps over the same node reuse, :func:`check_values`
for a rule that refuses by its inputs' values (a singular matrix) without stopping the
traces of ``tf.vmap`` and ``tf.jit``, ``batching``, the
rules for ``OpSpec(batch=...)`` (how ``tf.vmap`` runs an op on a batch), and ``strategies``, the
hypothesis sample strategies (imported on first use, since hypothesis is a test-only
dependency; so it is not in ``__all__``).
"""

from __future__ import annotations

import functools
import importlib
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import batching
from .chunked import accumulated, broadcast, cast, checked, copied, is_chunked, reduced, reshaped, whole
from .core.eager import EagerTensor, derived, is_broadcast_ones
from .core.errors import (
    ArgumentError,
    AxisError,
    DTypeError,
    EngineError,
    KernelError,
    NotDifferentiable,
    ShapeMismatch,
    TenferroError,
)
from .core.hookspecs import hookimpl
from .core.registry import PluginRegistrar
from .core.rules import InputRule, Unbroadcast, WholeRule
from .core.spec import REQUIRED, ErrorInput, Kink, OpSpec, SampleInput
from .core.tensor import check_shape
from .core.tracing import check_values

__all__ = [
    "batching",
    "REQUIRED",
    "ArgumentError",
    "AxisError",
    "DTypeError",
    "EngineError",
    "ErrorInput",
    "InputRule",
    "NO_ORDER",
    "KernelError",
    "Kink",
    "NotDifferentiable",
    "OpSpec",
    "PluginRegistrar",
    "SampleInput",
    "ShapeMismatch",
    "TenferroError",
    "Unbroadcast",
    "WholeRule",
    "accumulated",
    "broadcast",
    "broadcastable",
    "cast",
    "check_shape",
    "check_values",
    "checked",
    "conj",
    "copied",
    "derived",
    "explain_broadcast",
    "hookimpl",
    "is_broadcast_ones",
    "is_chunked",
    "is_immutable",
    "normalize_axes",
    "reduced",
    "reshaped",
    "tangent_sum",
    "unbroadcast",
    "whole",
]


# -- broadcasting ----------------------------------------------------------------------------
#: ``OpSpec(refuses=NO_ORDER)``: why an op that orders its values refuses complex ones.
NO_ORDER = {"c": "complex numbers have no order (the array API's rule); use s.abs(x) or s.real(x) on purpose"}


def conj(s: Any, x: Any) -> Any:
    """``s.conj(x)`` for a complex tensor; the conjugate in plain Python for a Python or
    NumPy complex scalar (a constant); ``x`` itself when it is real (no op recorded, no
    pass over memory), so one rule serves real and complex inputs."""
    if type(x) is EagerTensor:  # on every rule of a product: the test costs 0.1 µs, not 0.4
        return s.conj(x) if x.dtype.kind == "c" else x
    if type(x) is float:  # a Python scalar operand, as in chains of ops
        return x
    if isinstance(x, (complex, np.complexfloating)):
        return x.conjugate()
    if getattr(x, "dtype", None) is None or x.dtype.kind != "c":
        return x
    return s.conj(x)


def unbroadcast(s: Any, g: Any, like: Any) -> Any:
    """The cotangent ``g`` of a broadcast result, summed to ``like``'s shape and cast to its
    dtype (with the ``elementwise`` family's ``sum_to`` and ``astype``; a complex cotangent
    of a real input keeps its real part, which is the projection the real inner product
    asks for: a real variable gets a real gradient). Give it as an op's
    ``unbroadcast=`` and the core calls it where a rule's cotangent needs it; call it
    yourself in a whole-op ``vjp``."""
    shape, dtype = like.shape, like.dtype
    if g.shape != shape:
        g = s.sum_to(g, shape)
    if g.dtype != dtype:
        g = s.astype(g, dtype)
    return g


def tangent_sum(s: Any, terms: Sequence[Any], out: Any) -> Any:
    """The sum of a ``jvp`` rule's terms as the result's tangent: None when there are none
    (a zero tangent); broadcast to the result's shape and cast to its dtype where a term
    falls short (the tangent of a broadcast float32 operand of a float64 result). The
    forward-mode twin of :func:`unbroadcast`, with the ``elementwise`` family's ``add``,
    ``astype`` and ``broadcast_to``."""
    if not terms:
        return None
    total = terms[0]
    for term in terms[1:]:
        total = s.add(total, term)
    if total.dtype != out.dtype:
        total = s.astype(total, out.dtype)
    if total.shape != out.shape:
        total = s.broadcast_to(total, out.shape)
    return total


def broadcastable(shapes: Sequence[tuple[int, ...]]) -> bool:
    """Whether ``shapes`` broadcast together by NumPy's rules (in Python: NumPy's own check
    refuses more than 32 dims)."""
    for sizes in itertools.zip_longest(*(reversed(shape) for shape in shapes), fillvalue=1):
        if len(set(sizes) - {1}) > 1:
            return False
    return True


def explain_broadcast(name: str, names: tuple[str, ...]) -> Callable[..., TenferroError | None]:
    """``explain`` for an op whose tensor arguments broadcast together: the ShapeMismatch
    that lists each argument's shape, or None when they do broadcast."""

    def explain(*args: Any, **params: Any) -> TenferroError | None:
        shapes = [np.shape(a) for a in args]
        if broadcastable(shapes):
            return None
        listed = ", ".join(f"{list(shape)} ({arg})" for arg, shape in zip(names, shapes))
        return ShapeMismatch(
            f"{name}: shapes {listed} do not broadcast together; sizes must match or be 1 in every trailing axis"
        )

    return explain


def is_immutable(array: Any) -> bool:
    """Whether ``array``'s memory can never change: a read-only ndarray whose bases are
    read-only too (what tenferro hands kernels). A plugin that caches work by array
    identity (a factorisation, an intermediate) must check this first: a kernel called
    directly may be given arrays that change later."""
    while type(array) is np.ndarray:
        if array.flags.writeable:
            return False
        if array.base is None:
            return True
        array = array.base
    return False


# -- axes ----------------------------------------------------------------------------------------
def normalize_axes(axes: Any, ndim: int, op: str) -> tuple[int, ...]:
    """``None`` (all axes), an int or a sequence of ints, possibly negative, as a sorted
    tuple of non-negative axes; AxisError for anything out of range, repeated or not an int.

    Results for None, an int or a tuple of ints are cached: reduction rules and kernels
    ask for the same few axes on every call (errors are raised again each time)."""
    kind = type(axes)
    if axes is None or kind is int or (kind is tuple and all(type(axis) is int for axis in axes)):
        return _normalized_axes(axes, ndim, op)  # exact types: True == 1 must not hit 1's entry
    return _normalize_axes(axes, ndim, op)


def _normalize_axes(axes: Any, ndim: int, op: str) -> tuple[int, ...]:
    if axes is None:
        return tuple(range(ndim))
    items = (axes,) if isinstance(axes, (int, np.integer)) else axes
    try:
        items = tuple(items)
    except TypeError:
        raise AxisError(f"{op}: axes must be None, an int or a tuple of ints, got {axes!r}") from None
    result = []
    for axis in items:
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise AxisError(f"{op}: axes must be None, an int or a tuple of ints, got {axes!r}")
        if not -ndim <= axis < ndim:
            raise AxisError(
                f"{op}: axis {int(axis)} is out of range for a tensor with {ndim} dims (valid: {-ndim}..{ndim - 1})"
            )
        result.append(int(axis) % ndim)
    if len(set(result)) != len(result):
        raise AxisError(f"{op}: axes {axes!r} name the same axis twice")
    return tuple(sorted(result))


_normalized_axes = functools.lru_cache(maxsize=4096)(_normalize_axes)


def __getattr__(name: str) -> Any:
    if name == "strategies":  # hypothesis is a test-only dependency: import it when asked
        return importlib.import_module("tenferro.testing.strategies")
    raise AttributeError(f"module 'tenferro.extend' has no attribute {name!r}")
