"""``__array_namespace_info__()``: what the namespace offers (the standard's inspection
API). One device, "cpu"; default dtypes float64, complex128, int64 (as NumPy)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.errors import ArgumentError
from ._dtypes import DTYPES, KINDS, check_device, isdtype

__all__ = ["__array_namespace_info__"]


class Info:
    """The namespace's inspection object (``tnp.__array_namespace_info__()``)."""

    __module__ = "tenferro.numpy"

    def capabilities(self) -> dict[str, Any]:
        """Boolean indexing and data-dependent shapes (``unique_*``, ``nonzero``) are
        supported; NumPy's limit of 64 dimensions applies."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> str:
        return "cpu"

    def devices(self) -> list[str]:
        return ["cpu"]

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        check_device(device, "default_dtypes")
        return {
            "real floating": np.float64,
            "complex floating": np.complex128,
            "integral": np.int64,
            "indexing": np.int64,
        }

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        """The dtypes by name, those of ``kind`` (as ``isdtype``'s, or a tuple) when given."""
        check_device(device, "dtypes")
        if kind is None:
            return dict(DTYPES)
        if isinstance(kind, str) and kind not in KINDS:
            raise ArgumentError(f"dtypes: unknown kind {kind!r}; use one of {sorted(KINDS)} or a tuple of these")
        return {name: dtype for name, dtype in DTYPES.items() if isdtype(dtype, kind)}

    def __repr__(self) -> str:
        return "tenferro.numpy.__array_namespace_info__()"


_INFO = Info()


def __array_namespace_info__() -> Info:
    """The namespace's inspection object: capabilities, devices, default and all dtypes."""
    return _INFO
