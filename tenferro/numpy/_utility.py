"""The array API's utility functions: ``all`` and ``any`` (the ``reduce`` ops; bool
constants) and ``diff``, composed of slices and ``sub`` so that it differentiates."""

from __future__ import annotations

from typing import Any

from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, AxisError, TenferroError
from ._dispatch import _named, array_arg, arrays_arg, renamed

__all__ = ["all", "any", "diff"]


def _logical_reduction(name: str, doc: str) -> Any:
    function = f"tnp.{name}"

    def reduction(x: Any, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> EagerTensor:
        if type(x) is not EagerTensor:
            x = array_arg(x, function)
        rt = x.runtime
        session = rt.current_session()
        try:
            return getattr(session, name)(x, axis, keepdims)
        except TenferroError as exc:
            raise renamed(exc, function) from None

    return _named(reduction, name, doc)


all = _logical_reduction("all", "Whether every element along `axis` is nonzero (a bool constant).")  # noqa: A001
any = _logical_reduction("any", "Whether any element along `axis` is nonzero (a bool constant).")  # noqa: A001


def diff(
    x: Any, /, *, axis: int = -1, n: int = 1, prepend: Any | None = None, append: Any | None = None
) -> EagerTensor:
    """The n-th forward difference x[i+1] - x[i] along `axis`, after joining `prepend`
    and `append` to x there (a scalar counts as one element); bools give x[i+1] != x[i].
    Made of slices and sub, so it records and differentiates."""
    if type(x) is not EagerTensor:
        x = array_arg(x, "tnp.diff")
    if type(n) is not int or n < 0:
        raise ArgumentError(f"tnp.diff: argument 'n' is {n!r}; pass an int >= 0")
    if type(axis) is not int:
        raise ArgumentError(f"tnp.diff: argument 'axis' is {axis!r}; pass an int")
    ndim = x.ndim
    if ndim == 0:
        raise AxisError("tnp.diff: x is 0-d; it needs at least one axis to take differences along")
    if not -ndim <= axis < ndim:
        raise AxisError(
            f"tnp.diff: axis {axis} is out of range for an array with {ndim} dims (valid: {-ndim}..{ndim - 1})"
        )
    axis %= ndim
    try:
        if prepend is not None or append is not None:
            s, parts = arrays_arg([part for part in (prepend, x, append) if part is not None], "tnp.diff")
            shape = list(x.shape)
            shape[axis] = 1
            parts = [part if part.ndim else s.broadcast_to(part, tuple(shape)) for part in parts]
            x = s.concat(parts, axis)
        else:
            rt = x.runtime
            s = rt.current_session()
        before = (slice(None),) * axis
        for _ in range(n):
            if x.shape[axis] == 0:
                break
            upper = s.slice(x, (*before, slice(1, None)))
            lower = s.slice(x, (*before, slice(None, -1)))
            x = s.compare(upper, lower, "ne") if x.dtype.kind == "b" else s.sub(upper, lower)
    except TenferroError as exc:
        raise renamed(exc, "tnp.diff") from None
    return x
