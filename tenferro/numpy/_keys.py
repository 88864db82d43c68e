"""NumPy's indexing rules, as a plan of ops: what ``x[key]`` and ``x.at[key]`` mean for an
array of a given shape, checked (with errors that name the key and the shape) and broken
into the steps that ``_array`` runs as ops.

A key is an int, a slice, ``...``, ``None``, an integer array (NumPy array, list, tuple
inside the key, EagerTensor), a bool array (a mask), or a tuple of them. Index values are
read (they are integers, without gradient): a 0-d integer tensor is an int. As in NumPy:

- without arrays, the key is *basic* and is the ``slice`` op's index as it is;
- with arrays, every int counts as a 0-d array, a mask of k dims is its k ``nonzero``
  arrays (a 0-d mask is a new axis indexed by ``[0]`` or by ``[]``), and all the arrays
  broadcast together to one shape B. The other items (slices, ``None``, ``...``) are a
  basic ``slice`` first, which keeps every indexed axis whole. The indexed axes are then
  replaced by B: where the first of them was if the array items are next to each other in
  the key, else at the front (even an empty ``...`` separates them, as in NumPy).

No op is called here (this module is pure): ``_array`` turns a :class:`Plan` into ops.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import engine as engines
from ..core.eager import EagerTensor, held
from ..core.errors import AxisError, EngineError
from ..core.tracing import TRACING, note_read

_NONE, _ELLIPSIS = type(None), type(Ellipsis)
#: Item types of a basic key that the ``slice`` op takes as they are.
BASIC = frozenset({int, slice, _NONE, _ELLIPSIS})
_KINDS = "ints, slices (:), ellipsis (...), None, and integer or boolean arrays"


@dataclass(frozen=True)
class Plan:
    """How to compute ``x[key]``: ``x`` sliced by ``basic`` (None: not needed), then, if
    ``arrays`` is not empty, the integer ``arrays`` (broadcast to one shape) index the
    sliced array's ``axes``; ``front`` says whether the broadcast axes go first (the array
    items were not next to each other in the key). ``mask`` is set instead when the key is
    one mask over the leading axes (the ``boolean_mask`` op). ``numpy_key`` is the checked
    key with plain NumPy items (for ``x.at``)."""

    basic: tuple[Any, ...] | None
    arrays: tuple[np.ndarray, ...]
    axes: tuple[int, ...]
    front: bool
    mask: np.ndarray | None
    numpy_key: tuple[Any, ...]


def shown(key: Any) -> str:
    """The key as it would be written between brackets, arrays abbreviated."""
    items = key if type(key) is tuple else (key,)
    parts = []
    for item in items:
        if item is Ellipsis:
            parts.append("...")
        elif type(item) is slice:
            parts.append(
                ":".join("" if v is None else str(v) for v in (item.start, item.stop))
                + ("" if item.step is None else f":{item.step}")
            )
        elif isinstance(item, (np.ndarray, EagerTensor)):
            parts.append(f"<{item.dtype} array of shape {tuple(item.shape)}>")
        else:
            parts.append(repr(item))
    return ", ".join(parts) if items else "()"


def _error(where: str, key: Any, shape: tuple[int, ...], what: str) -> AxisError:
    return AxisError(f"{where}[{shown(key)}] of a tensor of shape {list(shape)}: {what}")


def _item(item: Any, where: str, key: Any, shape: tuple[int, ...]) -> Any:
    """One key item as an int, a slice, None, Ellipsis, or an integer or bool ndarray."""
    kind = type(item)
    if kind is slice:
        return _slice(item, where, key, shape)
    if kind in BASIC:
        return item
    if kind is EagerTensor:
        note_read(item, "an index")
        item = held(item)  # index values are integers: read, not recorded
        if isinstance(item, engines.ENGINE_ARRAYS):  # (an integer one is followed: see traced_indices)
            raise EngineError(
                f"{where}[{shown(key)}]: a boolean mask held on an engine ({type(item).__module__}) picks a number of "
                f"elements that depends on its values, which eager semantics must know now (reading it here "
                f"would gather it); use tnp.where(mask, x, 0) to keep x's shape, read the mask first, or let the "
                f"engine gather it: DaskEngine(..., gather=('boolean_mask', 'argwhere'))"
            )
    elif kind is bool or kind is np.bool_:
        return np.asarray(item)  # a 0-d mask
    elif isinstance(item, (list, tuple, range)):
        try:
            array = np.asarray(item)
        except ValueError:
            array = None
        if array is None or (array.dtype.kind not in "biu" and array.size):
            raise _error(where, key, shape, f"{item!r} is not an integer or boolean array; indices are {_KINDS}")
        item = array if array.size else array.astype(np.intp)  # [] picks nothing, as in NumPy
    if isinstance(item, np.ndarray):
        if item.dtype.kind == "b":
            return item
        if item.dtype.kind in "iu":
            return int(item) if item.ndim == 0 and type(item) is not _StandIn else item
        raise _error(where, key, shape, f"an index array has dtype {item.dtype}; indices are {_KINDS}")
    if isinstance(item, np.integer):
        return int(item)
    if not isinstance(item, (float, complex, str, bytes, np.generic)) and hasattr(item, "__index__"):
        return operator.index(item)
    shown_item = repr(item) if isinstance(item, (float, complex, str, np.generic)) else f"a {type(item).__name__}"
    raise _error(where, key, shape, f"{shown_item} is not a valid index; indices are {_KINDS}")


def _slice(item: slice, where: str, key: Any, shape: tuple[int, ...]) -> slice:
    """A slice with int or None bounds (NumPy takes anything with ``__index__`` there)."""
    bounds = (item.start, item.stop, item.step)
    if all(type(b) is int or b is None for b in bounds):
        fixed = item
    else:
        try:
            fixed = slice(*(None if b is None else operator.index(_held(b)) for b in bounds))
        except TypeError:
            raise _error(where, key, shape, f"slice bounds and steps must be integers or None, got {item!r}") from None
    if fixed.step == 0:
        raise _error(where, key, shape, "a slice step cannot be zero")
    return fixed


def _held(value: Any) -> Any:
    """A 0-d EagerTensor's value (which has ``__index__`` if it is an integer)."""
    if type(value) is EagerTensor:
        note_read(value, "a slice bound")
        return held(value)
    return value


def _check_int(i: int, axis: int, shape: tuple[int, ...], where: str, key: Any) -> None:
    n = shape[axis]
    if not -n <= i < n:
        raise _error(where, key, shape, f"index {i} is out of range for axis {axis} of size {n} (valid: {-n}..{n - 1})")


def _check_array(array: np.ndarray, axis: int, shape: tuple[int, ...], where: str, key: Any) -> None:
    n = shape[axis]
    if array.size:
        low, high = int(array.min()), int(array.max())
        if high >= n or low < -n:
            bad = high if high >= n else low
            raise _error(
                where,
                key,
                shape,
                f"an index array holds {bad}, out of range for axis {axis} of size {n} (valid: {-n}..{n - 1})",
            )


class _StandIn(np.ndarray):
    """Zeros standing for a traced integer tensor in a key: an index array even when 0-d
    (an int picks as a 0-d array does, so the plan's shape is the same)."""


def _followed(item: Any) -> bool:
    """Whether ``item`` is an integer tensor whose values a key may not read: one a trace
    follows, or one held as an engine's array (dask's: reading it would gather it)."""
    return (
        type(item) is EagerTensor
        and item.dtype.kind in "iu"
        and (item.tracks_grad() or isinstance(held(item), engines.ENGINE_ARRAYS))
    )


def engine_mask(key: Any) -> EagerTensor | None:
    """The key itself when it is a boolean mask an engine holds (``x[mask]``), else None:
    the boolean_mask op's input, so that the engine decides (it gathers it only where told
    to, ``DaskEngine(gather=...)``), where the key's plan would read its values."""
    if isinstance(key, EagerTensor) and key.dtype == np.bool_ and isinstance(held(key), engines.ENGINE_ARRAYS):
        return key
    return None


def followed_indices(key: Any) -> tuple[tuple[Any, ...], list[Any]] | None:
    """:func:`traced_indices` where a key may hold such tensors (a trace runs, or an engine's
    array type is registered), else None at once (the common key costs the two tests)."""
    return traced_indices(key) if TRACING.get() is not None or engines.ENGINE_ARRAYS else None


def traced_indices(key: Any) -> tuple[tuple[Any, ...], list[Any]] | None:
    """For a key holding an integer tensor a trace follows (a mapped argument of
    ``tf.vmap``, a jitted function's argument, or computed from one) or an engine holds
    (see :func:`_followed`): the key with each
    such tensor replaced by zeros of its shape, whose :func:`plan` has the key's shape, and
    the key's index arrays in the order of the plan's (the tensors, and the constant arrays
    and ints among them), so that ``x[key]`` picks with the tensors as inputs of its ops,
    which the trace records and replays, where reading their values would stop it. None
    for any other key, and for one with a mask (whose positions are values)."""
    items = key if type(key) is tuple else (key,)
    if not any(_followed(i) for i in items):
        return None
    stand_ins, operands = [], []
    for item in items:
        if type(item) is EagerTensor:
            if item.dtype.kind not in "iu":
                return None  # a mask (or a bad index: the general path's error)
            if _followed(item):
                stand_ins.append(np.zeros(item.shape, np.intp).view(_StandIn))
                operands.append(item)
                continue
            item = held(item)  # a constant's values: read as any index
        if isinstance(item, (list, tuple, range)):
            item = np.asarray(item)
        if isinstance(item, np.ndarray) and item.dtype.kind == "b" or isinstance(item, (bool, np.bool_)):
            return None
        if isinstance(item, (int, np.integer, np.ndarray)):
            operands.append(np.asarray(item, np.intp))
        stand_ins.append(item)
    return tuple(stand_ins), operands


def plan(shape: tuple[int, ...], key: Any, where: str = "x", bounds: bool = True) -> Plan:
    """The checked :class:`Plan` of ``x[key]`` for an ``x`` of ``shape``; an
    :class:`~tenferro.AxisError` (an IndexError) that names the key and the shape for a
    key NumPy would refuse. ``bounds=False`` leaves the index arrays' range to the ops
    (which check it too: ``x[key]`` calls ``plan`` again for the message if they fail)."""
    items = [_item(item, where, key, shape) for item in (key if type(key) is tuple else (key,))]
    ndim = len(shape)
    consumed = 0
    ellipses = 0
    advanced = False
    for item in items:
        if isinstance(item, np.ndarray):
            advanced = True
            consumed += item.ndim if item.dtype.kind == "b" else 1
        elif item is Ellipsis:
            ellipses += 1
        elif item is not None:
            consumed += 1
    if ellipses > 1:
        raise _error(where, key, shape, "an index can have only one ellipsis (...)")
    if consumed > ndim:
        raise _error(where, key, shape, f"the key indexes {consumed} axes, but the tensor has {ndim}")

    basic: list[Any] = []
    arrays: list[np.ndarray] = []
    axes: list[int] = []
    positions: list[int] = []  # which items are arrays (adjacency)
    axis = 0  # of x
    out = 0  # axis of the sliced array
    for position, item in enumerate(items):
        if item is Ellipsis:
            count = ndim - consumed
            basic.append(Ellipsis)
            axis += count
            out += count
        elif item is None:
            basic.append(None)
            out += 1
        elif type(item) is slice:
            basic.append(item)
            axis += 1
            out += 1
        elif type(item) is int:
            _check_int(item, axis, shape, where, key)
            if advanced:  # an int among arrays is a 0-d array
                basic.append(slice(None))
                arrays.append(np.asarray(item, dtype=np.intp))
                axes.append(out)
                positions.append(position)
                out += 1
            else:
                basic.append(item)
            axis += 1
        elif item.dtype.kind == "b":
            positions.append(position)
            if item.ndim == 0:  # a new axis of length 1, picked once (True) or never (False)
                basic.append(None)
                arrays.append(np.zeros(int(bool(item)), dtype=np.intp))
                axes.append(out)
                out += 1
                continue
            covered = shape[axis : axis + item.ndim]
            if any(m != n and m != 0 for m, n in zip(item.shape, covered)):  # an empty mask fits any axis (NumPy)
                raise _error(
                    where,
                    key,
                    shape,
                    f"a boolean mask of shape {list(item.shape)} must equal the shape "
                    f"{list(covered)} of the axes {axis}..{axis + item.ndim - 1} it covers (or be 0 there)",
                )
            basic.extend([slice(None)] * item.ndim)
            arrays.extend(item.nonzero())
            axes.extend(range(out, out + item.ndim))
            axis += item.ndim
            out += item.ndim
        else:
            if bounds:
                _check_array(item, axis, shape, where, key)
            basic.append(slice(None))
            arrays.append(item)
            axes.append(out)
            positions.append(position)
            axis += 1
            out += 1

    numpy_key = tuple(items)
    if not advanced:
        return Plan(numpy_key, (), (), False, None, numpy_key)
    whole = all(item is Ellipsis or (type(item) is slice and item == slice(None)) for item in basic)
    if len(items) == 1 and items[0].dtype.kind == "b" and items[0].ndim and items[0].shape == shape[: items[0].ndim]:
        return Plan(None, (), (), False, items[0], numpy_key)
    try:
        broadcast = tuple(np.broadcast_arrays(*arrays)) if len(arrays) > 1 else tuple(arrays)
    except ValueError:
        given = " ".join(str(tuple(a.shape)) for a in arrays)
        raise _error(where, key, shape, f"the index arrays do not broadcast together (shapes {given})") from None
    front = positions != list(range(positions[0], positions[-1] + 1))
    return Plan(None if whole else tuple(basic), broadcast, tuple(axes), front, None, numpy_key)
