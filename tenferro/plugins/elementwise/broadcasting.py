"""Broadcasting as ops: ``broadcast_to``, its adjoint ``sum_to``, and ``astype``.

Binary ops broadcast like NumPy, so their rules must sum cotangents back to each input's
shape and cast mixed precision back to the input's dtype (``tenferro.extend.unbroadcast``
does it with these ops). All three are linear, and each one's rule is another of them,
so every derivative stays differentiable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import (
    REQUIRED,
    ArgumentError,
    DTypeError,
    ErrorInput,
    OpSpec,
    SampleInput,
    ShapeMismatch,
    batching,
    broadcast,
    cast,
    check_shape,
    reduced,
    unbroadcast,  # noqa: F401 - importable here, as plugins written before tenferro.extend did
)


def sum_to_axes(shape: tuple[int, ...], target: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Axes to sum so that an array of ``shape`` becomes ``target`` (the inverse of
    NumPy broadcasting): (leading axes to drop, axes to keep with size 1), or None when
    ``target`` does not broadcast to ``shape``."""
    lead = len(shape) - len(target)
    if lead < 0:
        return None
    keep = []
    for axis, (size, want) in enumerate(zip(shape[lead:], target)):
        if want == 1 and size != 1:
            keep.append(lead + axis)
        elif want != size:
            return None
    return tuple(range(lead)), tuple(keep)


#: sum_to's checked target and summed axes per (argument shape, shape param): sum_to is on
#: every broadcasting VJP, and the check and axes were 0.9 of its 2.4 µs on small arrays.
_SUMMED: dict[Any, tuple[tuple[int, ...], tuple[int, ...]]] = {}


def _summed_axes(given: tuple[int, ...], shape: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    target = check_shape(shape, "sum_to")
    axes = sum_to_axes(given, target)
    if axes is None:
        raise ShapeMismatch(
            f"sum_to: shape {list(target)} does not broadcast to the argument's shape "
            f"{list(given)}, so the argument cannot be summed down to it"
        )
    return target, axes[0] + axes[1]


def _sum_to(x: np.ndarray, shape: Any) -> np.ndarray:
    key = (x.shape, shape) if type(shape) is tuple else None
    found = _SUMMED.get(key) if key is not None else None
    if found is None:
        found = _summed_axes(tuple(np.shape(x)), shape)
        if key is not None and len(_SUMMED) < 4096:  # (bounded: a program has few shapes)
            _SUMMED[key] = found
    target, axes = found
    summed = reduced(np.add, x, axis=axes) if x.dtype.kind == "f" else np.sum(x, axis=axes)
    if isinstance(summed, (np.ndarray, np.generic)):
        return summed.reshape(target)  # 1-3 µs less than np.reshape: sum_to is on every broadcasting VJP
    return np.reshape(summed, target)


def _broadcast_to(x: np.ndarray, shape: Any) -> np.ndarray:
    target = check_shape(shape, "broadcast_to")
    if sum_to_axes(target, x.shape) is None:
        raise ShapeMismatch(
            f"broadcast_to: the argument of shape {list(x.shape)} cannot be broadcast to {list(target)}"
        )
    return broadcast(x, target)


def _astype(x: np.ndarray, dtype: Any) -> np.ndarray:
    try:
        target = np.dtype(dtype) if dtype is not None else None
    except TypeError:
        target = None
    if target is None:
        raise DTypeError(f"astype: {dtype!r} is not a dtype; use e.g. 'float32' or np.float64")
    if target.kind not in "biufc":
        raise DTypeError(f"astype: cannot cast to {target}; supported targets are bool, integer, float and complex")
    if x.dtype.kind == "c" and target.kind in "iuf":
        x = np.real(x)  # complex to real keeps the real part (NumPy's cast, without its ComplexWarning)
    return cast(x, target)


def _shape_pair_sample(array_is_larger: bool) -> Any:
    """Factory of samples (array, target shape) where one shape broadcasts to the other."""
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from tenferro.testing.strategies import floats_array

    @st.composite
    def sample(draw: Any) -> SampleInput:
        large = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))
        small = draw(
            hnp.broadcastable_shapes(large, min_dims=0, max_side=3).filter(
                lambda shape: np.broadcast_shapes(shape, large) == large
            )
        )
        x_shape, target = (large, small) if array_is_larger else (small, large)
        return SampleInput((draw(floats_array(x_shape)),), {"shape": target})

    return sample()


def _cast_sample() -> Any:
    from tenferro.testing.strategies import floats_array

    # float64 only: a float32 result is too coarse for the finite-difference oracle, so
    # the float32 round trip is covered by tests/test_elementwise.py instead.
    return floats_array().map(lambda x: SampleInput((x,), {"dtype": "float64"}))


def _complex_cast_sample() -> Any:
    """Complex to real or complex, and real to complex (double precision, as above)."""
    from hypothesis import strategies as st

    from tenferro.testing.strategies import floats_array

    def cast(x: np.ndarray, y: np.ndarray, source: str, target: str) -> SampleInput:
        return SampleInput((x + 1j * y if source == "complex" else x,), {"dtype": target})

    return st.builds(
        cast,
        floats_array((3,)),
        floats_array((3,), -1.0, 1.0),
        st.sampled_from(["complex", "float"]),
        st.sampled_from(["complex128", "float64"]),
    )


_F = np.zeros(3)

SPECS = [
    OpSpec(
        name="broadcast_to",
        batch=batching.broadcast_to,
        inputs=("x",),
        returns_view=True,
        params={"shape": REQUIRED},
        forward=_broadcast_to,
        vjps=(lambda s, g, out, x, shape: s.sum_to(g, x.shape),),
        linear=True,
        accepts="biufc",
        sample=lambda: _shape_pair_sample(array_is_larger=False),
        reference=lambda x, shape: np.ones(shape) * x,
        error_inputs=lambda: [
            ErrorInput((_F,), {"shape": (2,)}, ShapeMismatch, "cannot be broadcast"),
            ErrorInput((_F,), {"shape": "23"}, ArgumentError, "sequence of non-negative ints"),
            ErrorInput((_F,), {"shape": (2.9, 3)}, ArgumentError, "sequence of non-negative ints"),
        ],
        doc="x broadcast to `shape` by NumPy's rules (a read-only view; no copy).",
    ),
    OpSpec(
        name="sum_to",
        batch=batching.sum_to,
        inputs=("x",),
        internal=True,
        params={"shape": REQUIRED},
        forward=_sum_to,
        vjps=(lambda s, g, out, x, shape: s.broadcast_to(g, x.shape),),
        linear=True,
        accepts="iufc",
        sample=lambda: _shape_pair_sample(array_is_larger=True),
        reference=lambda x, shape: (
            x.sum(axis=tuple(range(x.ndim - len(shape))))
            .sum(axis=tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True)
            .reshape(shape)
        ),
        error_inputs=lambda: [ErrorInput((_F,), {"shape": (2,)}, ShapeMismatch, "does not broadcast")],
        doc="x summed down to `shape` (the adjoint of broadcast_to: how broadcasting VJPs unbroadcast).",
    ),
    OpSpec(
        name="astype",
        batch="elementwise",
        inputs=("x",),
        params={"dtype": REQUIRED},
        forward=_astype,
        vjps=(lambda s, g, out, x, dtype: s.astype(g, x.dtype),),
        linear=True,
        accepts="biufc",
        sample=_cast_sample,
        complex_sample=_complex_cast_sample,
        reference=lambda x, dtype: np.asarray(np.real(x) if np.dtype(dtype).kind in "iuf" else x, dtype=dtype),
        integer_results=True,
        error_inputs=lambda: [
            ErrorInput((_F,), {"dtype": "datetime64"}, DTypeError, "cannot cast"),
            ErrorInput((_F,), {"dtype": None}, DTypeError, "None is not a dtype"),
        ],
        doc=(
            "x converted to `dtype` (bool, integer, float or complex); casts between float and complex "
            "dtypes carry gradients. Complex to float or integer keeps the real part (the imaginary part's "
            "gradient is zero), as NumPy's cast does, without its ComplexWarning; complex to bool is z != 0."
        ),
    ),
]
