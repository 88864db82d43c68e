"""Complex samples, and the complex twins of the checks that draw samples.

An op that accepts complex inputs (``"c"`` in its ``accepts``) is checked twice: on its
float samples, and on complex ones, drawn from its ``complex_sample`` strategy or, when it
declares none, from its float samples with an imaginary part added to every float array
(and, sometimes, Python float) at an input that accepts complex, some of several arrays left
real. The imaginary parts lie in [-1, 1]: NumPy's complex functions have their branch cuts
on the real axis, outside the domain the float samples keep to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import OpSpec, SampleInput

from .harness import Tally

_IMAGINARY = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)


def accepts_complex(spec: OpSpec) -> bool:
    return any("c" in kinds for kinds in spec.accepts)


@st.composite
def complexified(draw: Callable[[Any], Any], spec: OpSpec) -> SampleInput:
    """A float sample of ``spec`` with imaginary parts added where complex is accepted: to
    every such array, or, where there are several, to a non-empty subset of them (so a
    real operand beside a complex one, whose cotangent must come back real, is checked)."""
    sample = draw(spec.sample())
    candidates = [
        index
        for index, arg in enumerate(sample.args)
        if "c" in spec.accepts[spec.slot(index)] and isinstance(arg, np.ndarray) and arg.dtype.kind == "f"
    ]
    kept_real = {index for index in candidates[1:] if draw(st.booleans())}  # the first is always complex
    args = []
    for index, arg in enumerate(sample.args):
        if "c" not in spec.accepts[spec.slot(index)] or index in kept_real:
            args.append(arg)
        elif index in candidates:
            imaginary = draw(hnp.arrays(np.float64, arg.shape, elements=_IMAGINARY))
            value = np.asarray(arg + 1j * imaginary)  # (0-d arithmetic gives a NumPy scalar)
            args.append(value.astype(np.complex64 if arg.dtype == np.float32 else np.complex128))
        elif type(arg) is float and draw(st.booleans()):
            args.append(complex(arg, draw(_IMAGINARY)))
        else:
            args.append(arg)
    return replace(sample, args=tuple(args))


_TWINS: dict[int, tuple[OpSpec, OpSpec]] = {}


def complex_twin(spec: OpSpec) -> OpSpec:
    """``spec`` with its complex samples as its samples (one twin per spec, kept)."""
    cached = _TWINS.get(id(spec))
    if cached is not None and cached[0] is spec:
        return cached[1]
    strategy = spec.complex_sample or (lambda: complexified(spec))
    twin = replace(spec, sample=strategy)
    _TWINS[id(spec)] = (spec, twin)
    return twin


def on_complex_samples(
    run: Callable[[EagerRuntime, OpSpec, Any, Tally], None],
) -> Callable[[EagerRuntime, OpSpec, Any, Tally], None]:
    """The check ``run`` on the complex twin of the spec it is given."""

    def check(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
        run(rt, complex_twin(spec), data, tally)

    check.__doc__ = f"On complex samples: {run.__doc__}"
    return check
