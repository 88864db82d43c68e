"""``EagerTensor`` as an array: conversions to Python numbers, ``len``, and (to come)
indexing, methods and attributes of the array API's array object.

Installed on the class by ``install`` when ``tenferro`` is imported (the core knows no op
by name). A conversion reads the value: it is the exit from the trace, like ``np.asarray``.
"""

from __future__ import annotations

from typing import Any

from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, ShapeMismatch

__all__: list[str] = []


def _one(x: EagerTensor, to: str) -> Any:
    value = x._held()
    if value.size != 1:
        raise ShapeMismatch(
            f"{to}() of a tensor of shape {list(value.shape)}: only a tensor of one element has one "
            f"{'truth value' if to == 'bool' else 'value'}; reduce it first (x.any(), x.all(), x.sum()) "
            f"or index one element"
        )
    return value.reshape(())[()]


def _bool(self: EagerTensor) -> bool:
    return bool(_one(self, "bool"))


def _float(self: EagerTensor) -> float:
    return float(_one(self, "float"))


def _int(self: EagerTensor) -> int:
    return int(_one(self, "int"))


def _complex(self: EagerTensor) -> complex:
    return complex(_one(self, "complex"))


def _index(self: EagerTensor) -> int:
    value = self._held()
    if value.shape != () or value.dtype.kind not in "iu":
        raise ArgumentError(
            f"only a 0-d integer tensor can be used as an index (operator.index), got "
            f"{value.dtype} of shape {list(value.shape)}"
        )
    return int(value)


def _len(self: EagerTensor) -> int:
    if self.ndim == 0:
        raise ArgumentError("len() of a 0-d tensor: it has no first axis (use x.size or x.shape)")
    return self.shape[0]


def _getitem(self: EagerTensor, index: Any) -> EagerTensor:
    """``x[index]`` for NumPy's basic indexing (ints, slices, ``...``, ``None``): the
    ``slice`` op of the current session. (Integer-array and boolean indices: to come.)"""
    rt = self._rt
    session = rt._active.get()
    return (rt._implicit if session is None else session).slice(self, index)


def install(cls: type[EagerTensor]) -> None:
    """Put the conversions and indexing on ``cls``."""
    for name, function in {
        "__getitem__": _getitem,
        "__bool__": _bool,
        "__float__": _float,
        "__int__": _int,
        "__complex__": _complex,
        "__index__": _index,
        "__len__": _len,
    }.items():
        function.__name__ = function.__qualname__ = name
        setattr(cls, name, function)
