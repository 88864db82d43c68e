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
:func:`broadcasting` and :func:`unbroadcast` for ops that broadcast like NumPy,
:func:`explain_broadcast` for their error messages, :func:`normalize_axes` for ``axes``
arguments, :func:`check_shape` for ``shape`` arguments, and ``strategies``, the
hypothesis sample strategies (imported on first use, since hypothesis is a test-only
dependency; so it is not in ``__all__``).
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .core.errors import (
    ArgumentError,
    AxisError,
    DTypeError,
    KernelError,
    NotDifferentiable,
    ShapeMismatch,
    TenferroError,
)
from .core.hookspecs import hookimpl
from .core.registry import PluginRegistrar
from .core.rules import InputRule, WholeRule
from .core.spec import REQUIRED, ErrorInput, Kink, OpSpec, SampleInput
from .core.tensor import check_shape

__all__ = [
    "REQUIRED",
    "ArgumentError",
    "AxisError",
    "DTypeError",
    "ErrorInput",
    "InputRule",
    "KernelError",
    "Kink",
    "NotDifferentiable",
    "OpSpec",
    "PluginRegistrar",
    "SampleInput",
    "ShapeMismatch",
    "TenferroError",
    "WholeRule",
    "broadcastable",
    "broadcasting",
    "check_shape",
    "explain_broadcast",
    "hookimpl",
    "normalize_axes",
    "unbroadcast",
]


# -- broadcasting ----------------------------------------------------------------------------
def unbroadcast(s: Any, g: Any, like: Any) -> Any:
    """The cotangent ``g`` of a broadcast result, summed to ``like``'s shape and cast to its
    dtype (with the ``elementwise`` family's ``sum_to`` and ``astype``)."""
    if g.shape != like.shape:
        g = s.sum_to(g, like.shape)
    if g.dtype != like.dtype:
        g = s.astype(g, like.dtype)
    return g


def broadcasting(*rules: InputRule | None) -> tuple[InputRule | None, ...]:
    """Per-input rules of an op that broadcasts its inputs like NumPy: each rule is written
    as if nothing broadcast, and its cotangent is unbroadcast to its own input."""
    return tuple(None if rule is None else _unbroadcasting(rule, index) for index, rule in enumerate(rules))


def _unbroadcasting(rule: InputRule, index: int) -> InputRule:
    def unbroadcast_rule(s: Any, g: Any, out: Any, *inputs: Any, **params: Any) -> Any:
        ct = rule(s, g, out, *inputs, **params)
        return None if ct is None else unbroadcast(s, ct, inputs[index])

    unbroadcast_rule.__name__ = getattr(rule, "__name__", "rule")
    return unbroadcast_rule


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


# -- axes ----------------------------------------------------------------------------------------
def normalize_axes(axes: Any, ndim: int, op: str) -> tuple[int, ...]:
    """``None`` (all axes), an int or a sequence of ints, possibly negative, as a sorted
    tuple of non-negative axes; AxisError for anything out of range, repeated or not an int."""
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


def __getattr__(name: str) -> Any:
    if name == "strategies":  # hypothesis is a test-only dependency: import it when asked
        return importlib.import_module("tenferro.testing.strategies")
    raise AttributeError(f"module 'tenferro.extend' has no attribute {name!r}")
