"""``add_any``: the core's own op, how the reverse sweep adds up cotangents.

It is an op (not a bare ``+``) so that accumulation inside ``rt.grad`` is recorded and
differentiable. Every other op comes from a plugin; the registry registers this one under
the plugin name ``core``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import DTypeError, ShapeMismatch
from .spec import ErrorInput, OpSpec, SampleInput
from .tensor import dtype_name


def _add_any(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.shape != b.shape:
        raise ShapeMismatch(
            f"add_any: cotangents of shapes {list(a.shape)} (a) and {list(b.shape)} (b) cannot be "
            f"accumulated; add_any does not broadcast"
        )
    if a.dtype != b.dtype:
        raise DTypeError(
            f"add_any: cotangents of dtypes {dtype_name(a.dtype)} (a) and {dtype_name(b.dtype)} (b) cannot be "
            f"accumulated; add_any does not promote (cast one first)"
        )
    return np.add(a, b)


def _same_shape_pairs(dtype: Any = np.float64) -> Any:
    """Two arrays of one shape and one dtype (add_any does not promote: the complex samples
    must make both operands complex)."""
    from hypothesis import strategies as st  # test-only: imported when a sample is asked for
    from hypothesis.extra import numpy as hnp

    elements = st.floats(-3.0, 3.0, allow_nan=False)
    if np.dtype(dtype).kind == "c":
        elements = st.complex_numbers(max_magnitude=3.0, allow_nan=False, allow_infinity=False)
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)
    pairs = shapes.flatmap(lambda shape: st.tuples(*(hnp.arrays(dtype, shape, elements=elements),) * 2))
    return pairs.map(lambda pair: SampleInput(pair))


def _errors() -> list[ErrorInput]:
    return [
        ErrorInput((np.zeros(2), np.zeros((3, 2))), {}, ShapeMismatch, "does not broadcast"),
        ErrorInput((np.zeros(2), np.zeros(2, np.int64)), {}, DTypeError, "argument 'b' has dtype i64"),
        ErrorInput((np.zeros(2), np.zeros(2, np.float32)), {}, DTypeError, "does not promote"),
    ]


ADD_ANY = OpSpec(
    name="add_any",
    batch="elementwise",
    inputs=("a", "b"),
    forward=_add_any,
    traced_forward=np.add,  # (a trace's signature stands for the checks)
    vjps=(lambda s, g, out, a, b: g, lambda s, g, out, a, b: g),
    linear=True,
    accepts="fc",
    sample=_same_shape_pairs,
    complex_sample=lambda: _same_shape_pairs(np.complex128),
    reference=lambda a, b: a + b,
    error_inputs=_errors,
    internal=True,
    doc="a + b for two cotangents of one shape and dtype; how the reverse sweep accumulates.",
)
