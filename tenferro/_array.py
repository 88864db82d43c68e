"""``EagerTensor`` as the array API's array object: conversions to Python numbers, ``len``,
indexing (``x[key]``, NumPy's forms), the attributes (``size``, ``T``, ``mT``, ``device``,
``real``...), DLPack, and the methods NumPy users reach for (``x.sum(axis=0)``), each a
delegation to the ``tenferro.numpy`` function; the functional update ``x.at[key]`` is
``_at``'s.

They are the front end's, defined here on :class:`ArrayMethods`, a base class of
``EagerTensor``, so that editors, ``inspect`` and ``pydoc`` see them on the class; the
``tenferro.numpy`` functions and helpers they call are reached through the namespace bound
by :func:`bind` when it is imported (it imports the core, which imports this module, so
this module cannot import it).
Everything that computes calls an op of the current session, so it records and
differentiates. A conversion (``float(x)``, ``x.item()``, ``x.tolist()``,
``np.asarray(x)``) reads the value: it is the exit from the trace.

Values are immutable: ``x[key] = v`` is refused and ``x.at[key].set(v)`` is the update.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .core.errors import ArgumentError, AxisError, ShapeMismatch, TenferroError, UnknownName
from .core.tensor import read
from .core.tracing import TRACING, note_read

if TYPE_CHECKING:
    from .core.eager import EagerTensor

#: ``tenferro.numpy``, and its ``_keys``' key plans and basic key types, set by :func:`bind`.
_tnp: Any = None
plan: Any = None
BASIC: frozenset[type] = frozenset()


def bind(namespace: Any) -> None:
    """Bind the front end these methods call: ``namespace`` is ``tenferro.numpy``."""
    global _tnp, plan, BASIC
    _tnp, plan, BASIC = namespace, namespace._keys.plan, namespace._keys.BASIC


#: The most decimals ``round`` takes either way (10**309 is no float64).
MAX_DECIMALS = 308
#: The array API versions ``__array_namespace__`` answers for (the newest is implemented).
API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


class ExportError(TenferroError, BufferError):
    """A DLPack export that cannot be made as asked (a BufferError, as the standard says)."""


# -- conversions -----------------------------------------------------------------------------
def _exit(x: EagerTensor, exit: str) -> np.ndarray:
    """The value handed out by an exit from the trace, as a NumPy array (an engine's value
    is computed here): a float or complex value inside a function transform goes through
    ``EagerTensor._read``, which refuses one the transform differentiates; bool and integer
    values (control flow, no derivative) are read as they are, as JAX reads them."""
    if x.dtype.kind not in "fc":
        note_read(x, exit)
    return read(x._read(exit) if x.dtype.kind in "fc" else x._held())


def _one(x: EagerTensor, to: str) -> Any:
    # bool(x) and int(x) decide control flow (no derivative): read as they are, as in JAX
    if to not in ("float", "complex"):
        note_read(x, f"{to}(x)")
    value = _exit(x, f"{to}(x)") if to in ("float", "complex") else read(x._held())
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
    note_read(self, "operator.index(x)")
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


def _item(self: EagerTensor, *args: Any) -> Any:
    """NumPy's ``x.item()``: the one element as a Python number (or the element at a flat
    index or a tuple of indices)."""
    value = _exit(self, "x.item()")
    if not args and value.size != 1:
        raise ShapeMismatch(
            f"x.item() of a tensor of shape {list(value.shape)}: only a tensor of one element has one value; "
            f"give an index (x.item(0)) or reduce it first"
        )
    try:
        return value.item(*args)
    except (IndexError, ValueError, TypeError, OverflowError) as exc:
        raise AxisError(f"x.item{args!r} of a tensor of shape {list(value.shape)}: {exc}") from None


def _tolist(self: EagerTensor) -> Any:
    """The value as nested Python lists of Python numbers (a number for a 0-d tensor)."""
    return _exit(self, "x.tolist()").tolist()


# -- indexing --------------------------------------------------------------------------------
def _getitem(self: EagerTensor, key: Any) -> EagerTensor:
    """``x[key]`` with NumPy's indexing (see ``_keys``): a basic key is the ``slice`` op,
    called inline; integer arrays are ``take``/``gather``, one mask ``boolean_mask``."""
    kind = type(key)
    if kind is int or kind is slice or (kind is tuple and BASIC.issuperset(map(type, key))):
        rt = self._rt
        session = rt._here.session  # current_session(), inlined on the hot path
        try:
            return (rt._implicit if session is None else session).slice(self, key)
        except TenferroError:
            plan(self.shape, key)  # raises the error that names the key and the shape
            # A valid key the op does not take as it is (a tensor slice bound): the general path.
    try:
        if kind is np.ndarray and key.ndim and key.dtype.kind in "iu":  # x[indices]: one take
            rt = self._rt
            session = rt._here.session  # current_session(), inlined on the hot path
            return (rt._implicit if session is None else session).take(self, rt.constant_from(key), 0)
        return _indexed(self, key)
    except TenferroError:
        if TRACING.get() is None:  # (in a trace, planning the key would read its traced indices)
            plan(self.shape, key)  # an index out of range: the error that names the key and the shape
        raise


def _indexed(x: EagerTensor, key: Any) -> EagerTensor:
    """``x[key]`` for any key: its plan as ops (which check the index arrays' range)."""
    rt = x._rt
    session = rt.current_session()
    mask = _tnp._keys.engine_mask(key)
    if mask is not None:
        return session.boolean_mask(x, mask)
    traced = _tnp._keys.followed_indices(key)  # (integer tensors a trace follows, or an engine holds)
    p = plan(x.shape, key if traced is None else traced[0], bounds=False)
    if p.mask is not None:
        return session.boolean_mask(x, rt.constant_from(p.mask))
    y = x if p.basic is None else session.slice(x, p.basic)
    if not p.arrays:
        return y
    if len(p.arrays) == 1:  # the index array as the op's input: a constant, or the traced tensor
        index = (
            rt.constant_from(p.arrays[0])
            if traced is None
            else _tnp._at.index_operands(session, traced[1], p.arrays)[0]
        )
        return session.take(y, index, p.axes[0])
    axis = p.axes[0]
    if p.front:  # the array items are apart in the key: their axes go first (NumPy's rule)
        y = session.moveaxis(y, p.axes, tuple(range(len(p.axes))))
        axis = 0
    if traced is None:  # constants, stacked in NumPy
        stacked = rt.constant_from(np.stack(p.arrays, axis=-1))
    else:  # traced tensors among them: stacked by an op the trace records
        stacked = session.stack(_tnp._at.index_operands(session, traced[1], p.arrays), axis=-1)
    return session.gather(y, stacked, axis)


def _iter(self: EagerTensor) -> Iterator[EagerTensor]:
    """The slices along the first axis, each ``x[i]`` (recorded as such)."""
    if self.ndim == 0:
        raise ArgumentError("iteration over a 0-d tensor: it has no first axis (use x.item() or float(x))")
    return (self[i] for i in range(self.shape[0]))


def _setitem(self: EagerTensor, key: Any, value: Any) -> None:
    raise ArgumentError(
        "tenferro arrays are immutable: x[key] = v cannot change x (its value may be recorded in a trace). "
        "Write x = x.at[key].set(v) instead (JAX's functional update; also .add, .multiply, .min, .max), "
        "which returns a new array and differentiates in x and v"
    )


# -- attributes ------------------------------------------------------------------------------
def _size(self: EagerTensor) -> int:
    """The number of elements (the product of the shape)."""
    return math.prod(self.shape)


def _transposed(self: EagerTensor) -> EagerTensor:
    """The axes reversed, as NumPy's ``x.T`` (the standard defines it for 2-D arrays only;
    a 0-d or 1-d x is returned as a copy of itself, an n-d one has all its axes reversed)."""
    return self._rt.current_session().transpose(self)


def _matrix_transposed(self: EagerTensor) -> EagerTensor:
    """The last two axes swapped (a stack of matrices transposed)."""
    n = self.ndim
    if n < 2:
        raise ShapeMismatch(f"x.mT of a tensor of shape {list(self.shape)}: it needs at least 2 dims (a matrix)")
    return self._rt.current_session().transpose(self, (*range(n - 2), n - 1, n - 2))


def _real(self: EagerTensor) -> EagerTensor:
    """The real part (the ``real`` op: recorded; a copy of x for a real x)."""
    return self._rt.current_session().real(self)


def _imag(self: EagerTensor) -> EagerTensor:
    """The imaginary part (the ``imag`` op: recorded; zeros for a real x)."""
    return self._rt.current_session().imag(self)


def _device(self: EagerTensor) -> str:
    """``"cpu"``: tenferro.numpy arrays live in host memory."""
    return "cpu"


def _to_device(self: EagerTensor, device: Any, /, *, stream: Any = None) -> EagerTensor:
    """x itself on ``"cpu"``, its only device."""
    if type(device) is not str or device != "cpu" or stream is not None:
        raise ArgumentError(
            f"x.to_device({device!r}, stream={stream!r}): tenferro.numpy has one device, 'cpu', and no streams"
        )
    return self


def _array_namespace(self: EagerTensor, /, *, api_version: str | None = None) -> Any:
    """``tenferro.numpy``, the namespace of the array API standard these arrays belong to."""
    if api_version is not None and (type(api_version) is not str or api_version not in API_VERSIONS):
        raise ArgumentError(
            f"x.__array_namespace__(api_version={api_version!r}): tenferro.numpy implements the array API "
            f"{API_VERSIONS[-1]} (and answers for {', '.join(API_VERSIONS)})"
        )
    return _tnp


def _dlpack(
    self: EagerTensor,
    /,
    *,
    stream: Any = None,
    max_version: Any = None,
    dl_device: Any = None,
    copy: bool | None = None,
) -> Any:
    """The value as a DLPack capsule (NumPy's export). The value is read-only: consumers
    that know DLPack 1.0 (``max_version >= (1, 0)``, NumPy 2's and PyTorch's from_dlpack)
    get it flagged read-only without a copy; older ones get a copy unless ``copy=False``."""
    if stream is not None:
        raise ExportError(f"x.__dlpack__(stream={stream!r}): tenferro values live on the CPU, which has no streams")
    value = _exit(self, "x.__dlpack__()")
    try:
        try:
            return value.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)
        except BufferError as exc:
            if copy is False:
                raise ExportError(
                    f"x.__dlpack__(copy=False): {exc}; tenferro values are read-only, so a consumer without "
                    f"DLPack 1.0 needs a copy (copy=None or True)"
                ) from None
            return np.array(value).__dlpack__(stream=stream, dl_device=dl_device)
    except ExportError:
        raise
    except (BufferError, TypeError, ValueError) as exc:  # NumPy's refusal of dl_device, max_version or copy
        raise ExportError(f"x.__dlpack__: {exc}") from None


def _dlpack_device(self: EagerTensor, /) -> tuple[Any, int]:
    """(kDLCPU, 0): the value is in host memory."""
    return self._held().__dlpack_device__()


# -- methods ---------------------------------------------------------------------------------
#: Method -> (the tenferro.numpy function it calls, NumPy's parameters of the method in
#: order, how many of them the function takes positionally). NumPy's ``ddof`` is passed as
#: the standard's ``correction``; NumPy-only parameters (``out``, ``order``...) are accepted
#: at their defaults only (see ``NUMPY_ONLY``).
METHODS: dict[str, tuple[str, tuple[str, ...], int]] = {
    "sum": ("sum", ("axis", "dtype", "out", "keepdims"), 0),
    "prod": ("prod", ("axis", "dtype", "out", "keepdims"), 0),
    "mean": ("mean", ("axis", "dtype", "out", "keepdims"), 0),
    "std": ("std", ("axis", "dtype", "out", "ddof", "keepdims"), 0),
    "var": ("var", ("axis", "dtype", "out", "ddof", "keepdims"), 0),
    "max": ("max", ("axis", "out", "keepdims"), 0),
    "min": ("min", ("axis", "out", "keepdims"), 0),
    "any": ("any", ("axis", "out", "keepdims"), 0),
    "all": ("all", ("axis", "out", "keepdims"), 0),
    "argmax": ("argmax", ("axis", "out", "keepdims"), 0),
    "argmin": ("argmin", ("axis", "out", "keepdims"), 0),
    "cumsum": ("cumsum", ("axis", "dtype", "out"), 0),
    "cumprod": ("cumprod", ("axis", "dtype", "out"), 0),
    "squeeze": ("squeeze", ("axis",), 0),
    "astype": ("astype", ("dtype", "order", "casting", "subok", "copy"), 1),
    "conj": ("conj", (), 0),
    "conjugate": ("conj", (), 0),
    "clip": ("clip", ("min", "max", "out"), 0),
    "dot": ("dot", ("b", "out"), 1),
    "nonzero": ("nonzero", (), 0),
    "repeat": ("repeat", ("repeats", "axis"), 1),
}
#: NumPy-only parameters and the values accepted for them (anything else is refused).
NUMPY_ONLY: dict[str, tuple[Any, ...]] = {
    "out": (None,),
    "order": ("C", "K", "A"),
    "casting": ("unsafe",),
    "subok": (True,),
}
#: NumPy parameters that are dropped at these values (the function's own default).
DEFAULTS: dict[str, Any] = {"dtype": None}
#: Functions without the standard's ``dtype=``, whose NumPy method computes in ``dtype``:
#: x is cast to it first (``tenferro.numpy.astype``).
CAST_FIRST = frozenset({"mean", "std", "var"})


def _arguments(
    method: str, names: tuple[str, ...], leading: int, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """NumPy's arguments of ``x.<method>(...)`` as the function's (positional, keywords)."""
    if len(args) > len(names):
        raise ArgumentError(
            f"x.{method}() takes at most {len(names)} arguments ({', '.join(names) or 'none'}), got {len(args)}"
        )
    bound = dict(zip(names, args))
    for name, value in kwargs.items():
        if name not in names:
            raise ArgumentError(f"x.{method}() has no argument {name!r}; it takes {', '.join(names) or 'none'}")
        if name in bound:
            raise ArgumentError(f"x.{method}() got argument {name!r} twice")
        bound[name] = value
    for name, accepted in NUMPY_ONLY.items():
        if name in bound:
            value = bound.pop(name)
            if not any(value is a or (type(value) is str and value == a) for a in accepted):
                why = "values are immutable; use the result" if name == "out" else "tenferro arrays have one layout"
                raise ArgumentError(f"x.{method}({name}={value!r}) is not supported: {why} (leave {name} out)")
    for name, default in DEFAULTS.items():  # (a leading one is the function's own: x.astype(None) is float64)
        if (
            name in bound
            and name not in names[:leading]
            and type(bound[name]) is type(default)
            and bound[name] == default
        ):
            del bound[name]
    if "ddof" in bound:
        bound["correction"] = bound.pop("ddof")
    positional = tuple(bound.pop(name) for name in names[:leading] if name in bound)
    return positional, bound


def _method(method: str) -> Any:
    """``x.<method>(...)``: NumPy's arguments (``METHODS``) passed on to the function."""
    function, names, leading = METHODS[method]

    def call(self: EagerTensor, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            positional, keywords = _arguments(method, names, leading, args, kwargs)
            if function in CAST_FIRST and "dtype" in keywords:
                try:
                    self = _tnp.astype(self, keywords.pop("dtype"))
                except TenferroError as exc:
                    raise _tnp._dispatch.renamed(exc, f"x.{method}") from None
            return getattr(_tnp, function)(self, *positional, **keywords)
        return getattr(_tnp, function)(self)

    call.__doc__ = f"NumPy's ``x.{method}({', '.join(names)})``: ``tenferro.numpy.{function}(x, ...)``."
    return call


def _shape_args(args: tuple[Any, ...]) -> Any:
    """NumPy's ``x.reshape(2, 3)`` or ``x.reshape((2, 3))``: the one tuple."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        return args[0]
    return tuple(args)


def _check_order(method: str, order: Any) -> None:
    if type(order) is not str or order not in ("C", "A", "K"):
        raise ArgumentError(f"x.{method}(order={order!r}) is not supported: tenferro arrays are C-ordered (order='C')")


def _reshape(self: EagerTensor, *shape: Any, order: str = "C", copy: bool | None = None) -> EagerTensor:
    """NumPy's ``x.reshape(shape)`` or ``x.reshape(*shape)``: ``tenferro.numpy.reshape``."""
    _check_order("reshape", order)
    given = _shape_args(shape)
    return _tnp.reshape(self, given) if copy is None else _tnp.reshape(self, given, copy=copy)


def _transpose(self: EagerTensor, *axes: Any) -> EagerTensor:
    """NumPy's ``x.transpose()`` (axes reversed), ``x.transpose(1, 0)`` or
    ``x.transpose((1, 0))``: ``tenferro.numpy.permute_dims``."""
    if not axes or (len(axes) == 1 and axes[0] is None):
        axes = tuple(range(self.ndim - 1, -1, -1))
    else:
        axes = _shape_args(axes)
    return _tnp.permute_dims(self, axes)


def _flatten(self: EagerTensor, order: str = "C") -> EagerTensor:
    """NumPy's ``x.flatten()``: x as one axis (C order), ``tenferro.numpy.reshape``."""
    _check_order("flatten", order)
    return _flat(self, "flatten")


def _ravel(self: EagerTensor, order: str = "C") -> EagerTensor:
    """NumPy's ``x.ravel()``: the same as ``x.flatten()`` (values are immutable)."""
    _check_order("ravel", order)
    return _flat(self, "ravel")


def _round(self: EagerTensor, decimals: int = 0, out: None = None) -> EagerTensor:
    """NumPy's ``x.round(decimals)``: see ``round_to``."""
    if out is not None:
        raise ArgumentError("x.round(out=...) is not supported: values are immutable; use the result (leave out out)")
    return round_to(self, decimals, "x.round")


def round_to(x: EagerTensor, decimals: Any, call: str) -> EagerTensor:
    """``tenferro.numpy.round`` of x scaled by 10**decimals and scaled back, as NumPy does
    (halves to even; an integer x with decimals >= 0 is itself). One implementation for
    ``x.round``, ``round(x, n)``, ``np.round`` and ``np.around`` (``call`` names the caller
    in errors)."""
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise ArgumentError(f"{call}(decimals={decimals!r}): decimals must be an int")
    if abs(decimals) > MAX_DECIMALS:
        raise ArgumentError(
            f"{call}(decimals={decimals!r}): 10**{abs(decimals)} is no float64; round to at most "
            f"{MAX_DECIMALS} decimals either way"
        )
    if decimals == 0 or (decimals > 0 and x.dtype.kind in "iub"):
        return _tnp.round(x)
    scale = 10.0 ** abs(int(decimals))
    if decimals > 0:
        return _tnp.round(x * scale) / scale
    rounded = _tnp.round(x / scale) * scale
    return rounded if x.dtype.kind not in "iub" else _tnp.astype(rounded, x.dtype)


def _python_round(self: EagerTensor, ndigits: int | None = None) -> EagerTensor:
    """``round(x)`` and ``round(x, n)``: ``x.round(n)``, as NumPy's ``ndarray.__round__``
    (a tensor, which records, not a Python number)."""
    return round_to(self, 0 if ndigits is None else ndigits, "round(x, ...)")


def _swapaxes(self: EagerTensor, axis1: int, axis2: int) -> EagerTensor:
    """NumPy's ``x.swapaxes(axis1, axis2)``: see ``swap_axes``."""
    return swap_axes(self, axis1, axis2, f"x.swapaxes({axis1!r}, {axis2!r})")


def swap_axes(x: EagerTensor, axis1: Any, axis2: Any, call: str) -> EagerTensor:
    """``tenferro.numpy.permute_dims`` with the two axes exchanged (the standard has no
    swapaxes function); one implementation for ``x.swapaxes`` and ``np.swapaxes``
    (``call`` is the call as errors show it)."""
    n = x.ndim
    axes = list(range(n))
    for name, axis in (("axis1", axis1), ("axis2", axis2)):
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -n <= axis < n:
            raise AxisError(f"{call}: {name}={axis!r} is not an axis of a {n}-dim tensor (valid: {-n}..{n - 1})")
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return _tnp.permute_dims(x, tuple(axes))


def _copy(self: EagerTensor, order: str = "C") -> EagerTensor:
    """NumPy's ``x.copy()``: a new array of x's value, recorded (the op ``astype`` to x's own
    dtype, an identity with an identity gradient that takes every dtype, bool included;
    ``positive`` refuses bool)."""
    _check_order("copy", order)
    return self._rt.current_session().astype(self, self.dtype)


def _argsort(self: EagerTensor, axis: int | None = -1, kind: Any = None, order: Any = None) -> EagerTensor:
    """NumPy's ``x.argsort(axis=-1, kind=None, order=None)``: ``tenferro.numpy.argsort``
    (always stable, so ``kind`` changes nothing); ``axis=None`` sorts x flattened."""
    if order is not None:
        raise ArgumentError(f"x.argsort(order={order!r}): order is for structured arrays, which tenferro has not")
    if axis is None:
        return _tnp.argsort(_flat(self, "argsort"), axis=-1)
    return _tnp.argsort(self, axis=axis)


def _flat(x: EagerTensor, method: str) -> EagerTensor:
    """x as one axis (C order), ``tenferro.numpy.reshape``."""
    return _tnp.reshape(x, (-1,))


def _format(self: EagerTensor, spec: str) -> str:
    """``f"{x:.4f}"``: a tensor of one element formats its value with the spec (as NumPy's
    0-d arrays, PyTorch and JAX); an empty spec gives ``str(x)``; another spec of a larger
    tensor is refused, as NumPy refuses it."""
    if type(spec) is not str:  # format() passes a str; a direct call may not
        raise ArgumentError(f"x.__format__: the format spec must be a str, got {type(spec).__name__}")
    if not spec:
        return str(self)
    value = _exit(self, f"format(x, {spec!r})")
    if value.size != 1:
        raise ArgumentError(
            f"format(x, {spec!r}) of a tensor of shape {list(value.shape)}: only a tensor of one element "
            f"formats with a spec; format its elements (x.tolist()) or reduce it first"
        )
    return format(value.reshape(())[()], spec)


def _divmod(self: EagerTensor, other: Any) -> tuple[EagerTensor, EagerTensor]:
    """``divmod(x, y)``: ``np.divmod``'s pair (``tnp.floor_divide``, ``tnp.remainder``)."""
    return _tnp._numpy_dispatch.divmod_pair(self, other)


def _rdivmod(self: EagerTensor, other: Any) -> tuple[EagerTensor, EagerTensor]:
    """``divmod(y, x)`` for a y that is not a tenferro array."""
    return _tnp._numpy_dispatch.divmod_pair(other, self)


def _at_of(self: EagerTensor) -> Any:
    """``x.at[key].set(v)`` (``.add``, ``.multiply``, ``.min``, ``.max``): the functional
    update, differentiable in x and v (see ``tenferro.numpy``'s ``_at``)."""
    return _tnp._at._at(self)


#: Attributes of PyTorch's tensors and JAX's arrays that tenferro spells its own way.
ELSEWHERE = {
    "numpy": "np.asarray(x) (read-only; x.value().to_numpy() for a writable copy)",
    "requires_grad": "x.tracks_grad() (x.is_variable() for a leaf with a slot)",
    "requires_grad_": "tf.variable(x) (a new leaf of x's value)",
    "zero_": "x.clear_grad() to empty a variable's slot (values are immutable)",
    "item_": "x.item()",
    "cpu": "x itself (tenferro.numpy arrays live on the CPU)",
    "tolist": "np.asarray(x).tolist()",
    "block_until_ready": "x itself (values are computed at once)",
}


def _missing_attribute(self: EagerTensor, name: str) -> Any:
    """Only for a name no class of EagerTensor has: what to write instead. A protocol probe
    (a dunder name: ``np.asarray(x)`` asks for ``__array_interface__`` and
    ``__array_struct__`` first) is a plain miss, without the ~20 µs of listing the names."""
    raise UnknownName.of("EagerTensor", name, () if name[:2] == "__" else dir(type(self)), ELSEWHERE)


class ArrayMethods:
    """The array API's array object and NumPy's methods, on EagerTensors."""

    __slots__ = ()

    __getattr__ = _missing_attribute

    __getitem__ = _getitem
    __setitem__ = _setitem
    __iter__ = _iter
    __bool__ = _bool
    __float__ = _float
    __int__ = _int
    __complex__ = _complex
    __index__ = _index
    __len__ = _len
    __array_namespace__ = _array_namespace
    __dlpack__ = _dlpack
    __dlpack_device__ = _dlpack_device
    __round__ = _python_round
    __format__ = _format
    __divmod__ = _divmod
    __rdivmod__ = _rdivmod
    to_device = _to_device
    item = _item
    tolist = _tolist
    reshape = _reshape
    transpose = _transpose
    flatten = _flatten
    ravel = _ravel
    swapaxes = _swapaxes
    round = _round
    copy = _copy
    argsort = _argsort
    # NumPy's reductions and the like: the tenferro.numpy function of METHODS
    sum = _method("sum")
    prod = _method("prod")
    mean = _method("mean")
    std = _method("std")
    var = _method("var")
    max = _method("max")
    min = _method("min")
    any = _method("any")
    all = _method("all")
    argmax = _method("argmax")
    argmin = _method("argmin")
    cumsum = _method("cumsum")
    cumprod = _method("cumprod")
    squeeze = _method("squeeze")
    astype = _method("astype")
    conj = _method("conj")
    conjugate = _method("conjugate")
    clip = _method("clip")
    dot = _method("dot")
    nonzero = _method("nonzero")
    repeat = _method("repeat")

    at = property(_at_of, doc=_at_of.__doc__)
    size = property(_size, doc=_size.__doc__)
    T = property(_transposed, doc=_transposed.__doc__)
    mT = property(_matrix_transposed, doc=_matrix_transposed.__doc__)
    real = property(_real, doc=_real.__doc__)
    imag = property(_imag, doc=_imag.__doc__)
    device = property(_device, doc=_device.__doc__)


def _named(cls: type) -> None:
    """Name the functions of ``cls`` as their attributes, so that tracebacks and pydoc say
    ``EagerTensor.__getitem__``, not ``_getitem``."""
    for name, member in vars(cls).items():
        if callable(member) and not isinstance(member, type):
            member.__name__, member.__qualname__ = name, f"EagerTensor.{name}"


_named(ArrayMethods)
