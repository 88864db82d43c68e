"""The array API's indexing functions, ``take`` and ``take_along_axis``: the ``index``
ops of the current session, differentiable in x (scatter-add VJPs); the indices are
integer constants."""

from __future__ import annotations

from typing import Any

from ..core.eager import EagerTensor
from ._dispatch import as_array, call

__all__ = ["take", "take_along_axis"]


def _indices(x: Any, indices: Any, function: str) -> Any:
    if type(indices) is EagerTensor:
        return indices
    rt = x.runtime if type(x) is EagerTensor else None
    if rt is None:
        from ..core.runtime import default_runtime

        rt = default_runtime()
    return as_array(rt, indices, function, "indices")


def take(x: Any, indices: Any, /, *, axis: int | None = None) -> EagerTensor:
    """Elements of x at `indices` along `axis` (None: of x flattened, allowed for 1-D x
    by the standard and for any x by NumPy); negative indices count from the end."""
    return call("tnp.take", "take", x, _indices(x, indices, "tnp.take"), axis)


def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> EagerTensor:
    """x at `indices` along `axis`, elementwise (indices has x's rank)."""
    return call("tnp.take_along_axis", "take_along_axis", x, _indices(x, indices, "tnp.take_along_axis"), axis)
