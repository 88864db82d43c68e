"""Static op parameters, frozen when an op is called.

A node keeps its op's params for the backward pass, so they must not change after the call:
a list the caller mutates later, or a generator the forward kernel used up, would make the
derivative silently wrong. Params are therefore normalised to immutable values on entry:
sequences and iterators become tuples, arrays read-only copies, mappings read-only dicts,
sets frozensets. Anything else (numbers, strings, dtypes, callables) is kept as given.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

#: Types whose values are immutable and need no work (the common case, checked first).
#: A slice cannot be changed after it is made (an op that reads its bounds checks them).
_ATOMIC = frozenset({int, float, bool, str, complex, bytes, type(None), np.dtype, type, slice, type(Ellipsis)})


def frozen(value: Any) -> Any:
    """An immutable equivalent of ``value`` (see the module docstring)."""
    kind = type(value)
    if kind in _ATOMIC or isinstance(value, (np.generic, np.dtype)):
        return value
    if kind is tuple and _ATOMIC.issuperset(map(type, value)):
        return value  # e.g. axes=(0, 2): the common case, immutable as it is
    if kind is tuple or isinstance(value, (list, range, Iterator)):
        return tuple(frozen(item) for item in value)
    if isinstance(value, np.ndarray):
        copy = value.copy()
        copy.setflags(write=False)
        return copy
    if isinstance(value, Mapping):
        return MappingProxyType({key: frozen(item) for key, item in value.items()})
    if isinstance(value, (set, frozenset)):
        return frozenset(frozen(item) for item in value)
    return value


def frozen_params(names: tuple[str, ...], values: tuple[Any, ...]) -> dict[str, Any]:
    """``{name: frozen(value)}``, with the common case (numbers, None, strings, tuples of
    them) kept cheap: this runs for every op call that passes params positionally."""
    for value in values:
        kind = type(value)
        if kind not in _ATOMIC and (kind is not tuple or not _ATOMIC.issuperset(map(type, value))):
            return {name: frozen(item) for name, item in zip(names, values)}
    return dict(zip(names, values))
