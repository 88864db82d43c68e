"""The plain arguments of public functions: flags, integers and sizes.

Each check returns the value as the function uses it, or raises the TenferroError that
names the function and the argument and says what to pass, so that a NumPy array where a
flag belongs, or ``10**30`` where a size belongs, never surfaces as NumPy's "truth value of
an array is ambiguous" or "Maximum allowed dimension exceeded". The common value passes
the first test and costs one type check.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .errors import ArgumentError

#: The range of the integers tenferro passes to NumPy (its int64 and intp).
INT_MIN, INT_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def shown(value: Any) -> str:
    """``value`` as a message shows it: short, on one line, its type where the repr hides it
    (an array by its type, dtype and shape)."""
    if not isinstance(value, (np.generic, type)) and hasattr(value, "shape") and hasattr(value, "dtype"):
        name = "NumPy array" if isinstance(value, np.ndarray) else type(value).__name__
        kind = f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"
        return f"{kind} of dtype {value.dtype} and shape {list(value.shape)}"
    text = repr(value).replace("\n", " ")
    if len(text) > 60:
        text = text[:57] + "..."
    return text if type(value) in (bool, int, float, complex, str, type(None)) else f"{text} ({type(value).__name__})"


def flag(value: Any, function: str, name: str) -> bool:
    """``value`` as a bool: True, False or a NumPy bool (as PyTorch's ``keepdim``: an int
    or an array is refused, since its truth is a guess)."""
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise ArgumentError(f"{function}: {name} must be True or False, got {shown(value)}")


def integer(value: Any, function: str, name: str, minimum: int | None = None) -> int:
    """``value`` as a Python int: an int, a NumPy integer or a 0-d integer array (anything
    ``operator.index`` takes, but not a bool), within int64 and at least ``minimum``."""
    if type(value) is not int:
        if isinstance(value, (bool, np.bool_)):
            raise ArgumentError(f"{function}: {name} must be an int, got the bool {value!r}")
        try:
            value = operator.index(value)
        except TypeError:  # a float, a string, an array of several elements (an ArgumentError is one too)
            raise ArgumentError(f"{function}: {name} must be an int, got {shown(value)}") from None
    if not INT_MIN <= value <= INT_MAX:
        raise ArgumentError(f"{function}: {name} is {value}, which does not fit in a 64-bit integer")
    if minimum is not None and value < minimum:
        raise ArgumentError(f"{function}: {name} must be at least {minimum}, got {value}")
    return value


def size(value: Any, function: str, name: str, minimum: int = 0) -> int:
    """A count of elements (``n``, ``num_classes``): an int of at least ``minimum``."""
    return integer(value, function, name, minimum)
