"""How ``tenferro.autograd.numpy`` calls a function: autograd's rule, that a function of
values that carry no derivative is NumPy's own (NumPy arrays in, NumPy arrays out, as
autograd unboxes them), and a function of a tracked tenferro array (or of the tensors a
derivative rule runs on) is tenferro.numpy's, which records it."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any

from tenferro.core.eager import EagerTensor, holds_tracked, in_rules, vertex


def dispatching(ours: Callable[..., Any], theirs: Callable[..., Any]) -> Callable[..., Any]:
    """NumPy's ``theirs`` on values that carry no derivative, tenferro's ``ours`` otherwise."""

    @functools.wraps(theirs)
    def function(*args: Any, **kwargs: Any) -> Any:
        for arg in args:  # holds_tracked(args), its common leaves inline: every call of the namespace asks
            kind = type(arg)
            if kind is EagerTensor:
                # (a rule's cotangent is a constant tensor on purpose: NumPy's function would
                # hand it back to ours through __array_function__, 10 µs later)
                if vertex(arg) is not None or in_rules(arg.runtime):
                    return ours(*args, **kwargs)
            elif (kind is list or kind is tuple or kind is dict) and holds_tracked(arg):
                return ours(*args, **kwargs)
        if kwargs and holds_tracked(kwargs):
            return ours(*args, **kwargs)
        return theirs(*args, **kwargs)

    return function


def namespace(ours: ModuleType, theirs: ModuleType) -> dict[str, Any]:
    """The names of a ``tenferro.autograd.numpy`` module: for each function both modules
    have, the dispatching one; tenferro's alone where NumPy has none; NumPy's own classes,
    dtypes and constants (``np.float64``, ``np.pi``). Only ``ours``'s public names: its
    ``__all__`` where it has one, not the helpers it imports."""
    names: dict[str, Any] = {}
    for name in getattr(ours, "__all__", None) or dir(ours):
        if name.startswith("_"):
            continue
        mine, numpys = getattr(ours, name), getattr(theirs, name, None)
        if isinstance(mine, ModuleType):
            continue
        if callable(mine) and not inspect.isclass(mine) and callable(numpys) and not inspect.isclass(numpys):
            names[name] = dispatching(mine, numpys)
        elif numpys is not None and (inspect.isclass(numpys) or not callable(numpys)):
            names[name] = numpys
        else:
            names[name] = mine
    return names


def fallback(module: str, theirs: ModuleType, name: str) -> Any:
    """A name only NumPy has: its own (it refuses a tracked tenferro array, naming itself)."""
    if name.startswith("__"):
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    try:
        return getattr(theirs, name)
    except AttributeError:
        raise AttributeError(f"{module} has no {name!r} (neither tenferro.numpy nor NumPy has it)") from None
