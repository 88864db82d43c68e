"""``alias``: the core's second op, a new vertex for the same value.

A function transform differentiates with respect to its own arguments. When an argument
was computed by an enclosing transform (``tf.grad(tf.grad(f))``), the inner one records
``alias(x)`` and differentiates with respect to that node, so the outer one's paths
through ``x`` (a closure over it, say) are not mistaken for the inner one's: the
perturbation confusion of nested derivatives cannot occur. The value is shared, not
copied (values are immutable).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import DTypeError
from .spec import ErrorInput, OpSpec, SampleInput


def _arrays(dtype: Any = np.float64) -> Any:
    from hypothesis import strategies as st  # test-only: imported when a sample is asked for
    from hypothesis.extra import numpy as hnp

    elements = st.floats(-3.0, 3.0, allow_nan=False)
    if np.dtype(dtype).kind == "c":
        elements = st.complex_numbers(max_magnitude=3.0, allow_nan=False, allow_infinity=False)
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)
    return hnp.arrays(dtype, shapes, elements=elements).map(lambda x: SampleInput((x,)))


ALIAS = OpSpec(
    name="alias",
    batch="elementwise",
    inputs=("x",),
    forward=lambda x: x,
    vjps=(lambda s, g, out, x: g,),
    linear=True,
    accepts="fc",
    returns_view=True,
    sample=_arrays,
    complex_sample=lambda: _arrays(np.complex128),
    reference=lambda x: x,
    error_inputs=lambda: [ErrorInput((np.zeros(2, np.int64),), {}, DTypeError, "argument 'x' has dtype i64")],
    internal=True,
    doc="x itself, as a new vertex of the trace: what a function transform differentiates with respect to.",
)
