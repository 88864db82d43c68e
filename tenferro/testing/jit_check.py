"""The conformance suite's ``jit`` check: an op under ``tf.jit`` gives bitwise its eager
result when traced and when its plan replays, on the sample and on another example of the
sample's signature (what ``tf.jit`` relies on: a kernel computes from its arguments and
params alone, and the op records every input it reads)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from tenferro.core.errors import TenferroError
from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import OpSpec

from .harness import CheckFailed, Tally, const, draw, forward
from .oracle import picked
from .value_checks import varied


def check_jit(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The op called in a ``tf.jit``-ed function, on constants of its sample: the trace,
    the plan's first replay and a replay on another example (float arrays scaled by 3/4,
    integer arrays rolled: the batch check's) each equal the eager call bitwise."""
    from tenferro import TracedValueError  # noqa: PLC0415 - outside the core, as the transforms are
    from tenferro.transforms import jit  # noqa: PLC0415

    sample = draw(spec, data, tally)
    arrays = [i for i, a in enumerate(sample.args) if isinstance(a, np.ndarray)]
    if not arrays:
        return

    def op(*given: Any) -> Any:
        args = list(sample.args)
        for i, value in zip(arrays, given):
            args[i] = value
        s = rt.current_session()
        return picked(spec, getattr(s, spec.name)(*spec.pack(args), **sample.params), sample.result)

    jitted = jit(op)
    flags = [isinstance(a, np.ndarray) for a in sample.args]
    other = replace(sample, args=tuple(varied(sample.args, flags, 0.75, 1)))
    try:
        forward(rt, spec, other)
    except TenferroError:  # a domain that scaling leaves: the sample itself again
        other = sample
    for name, example in (("traced", sample), ("replayed", sample), ("replayed on another example", other)):
        expected = forward(rt, spec, example)
        try:
            actual = np.asarray(jitted(*(const(rt, example.args[i]) for i in arrays)))
        except TracedValueError:
            if spec.multiple_results and expected.dtype.kind in "biu":
                return  # integer results beside others (nonzero's) are not traced: refused, as documented
            raise
        if actual.dtype != expected.dtype or actual.shape != expected.shape or not _bitwise(actual, expected):
            raise CheckFailed(
                f"{name}: tf.jit gave {actual.dtype}{list(actual.shape)} {actual!r}, the eager call "
                f"{expected.dtype}{list(expected.shape)} {expected!r}"
            )
    if jitted.cache_info().misses != 1:
        raise CheckFailed(f"the op was traced {jitted.cache_info().misses} times for one signature")
    # the plan itself (a replay whose kernel raised would run the ops again, and agree)
    (entry,) = jitted._cache.values()
    direct = rt.current_session().run_kernels(entry.plan.run, *(np.asarray(other.args[i]) for i in arrays))[0]
    if not _bitwise(np.asarray(direct), forward(rt, spec, other)):
        raise CheckFailed(f"the compiled plan gave {direct!r}, the eager call {forward(rt, spec, other)!r}")


def _bitwise(a: np.ndarray, b: np.ndarray) -> bool:
    return a.tobytes() == b.tobytes()
