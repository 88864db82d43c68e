"""The conformance suite's ``dask_engine`` check: the op on a real DaskEngine, its value and
its VJP CpuEngine's.

The ``engine_neutral`` check hands a kernel a duck array that has NumPy's protocols and no
more; dask's arrays have fewer (no ``ufunc.at``, no sort, no ``take_along_axis``, a qr
that takes no ``mode``...), so a kernel that passes it may still have no path on dask. This
check runs the op in a session on a :class:`~tenferro.DaskEngine` whose chunks split every
axis longer than 2, so a kernel meets what a cluster gives it. It applies when dask is
installed (the ``dask`` extra); an op without a path fails with the engine's EngineError,
which a plugin lists in its xfail file with the reason (tenferro's own list is
docs/engines.md's).
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any

import numpy as np

from tenferro.core.errors import EngineError
from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import OpSpec
from tenferro.core.tensor import Tensor

from .harness import CheckFailed, Tally, const, draw, draw_seed, is_differentiable
from .oracle import differentiable_positions, picked

#: The chunk size along every axis: an axis longer than this is split across chunks.
CHUNK = 2
#: How far a value on dask may be from NumPy's, relative to the largest magnitude the two
#: compare: dask's algorithms add in another order (per chunk, then across) and decompose
#: in other steps (tsqr), which moves the last bits, never more.
TOLERANCE = 1e-9


def dask_installed() -> bool:
    """Whether dask.array can be imported (the check applies only then)."""
    return importlib.util.find_spec("dask") is not None and importlib.util.find_spec("dask.array") is not None


def check_dask_engine(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """In a session on a DaskEngine (chunks of 2 along every axis, dask's synchronous
    scheduler), the op's result has CpuEngine's dtype and shape and its values to 1e-9 of
    their scale (nan and inf where CpuEngine has them), and so do the gradients a random
    cotangent gives its differentiable inputs."""
    import dask  # noqa: PLC0415
    import dask.array  # noqa: PLC0415

    from tenferro.engines.dask import DaskEngine  # noqa: PLC0415 - imports dask

    sample = draw(spec, data, tally)
    seed = draw_seed(data, tally)
    positions = differentiable_positions(spec, sample) if is_differentiable(spec) else []
    # a new engine per check, of the dask this check imports: a pytest run in the same
    # process (pytester) imports dask afresh, and an engine kept from an earlier run would
    # make arrays of the earlier dask's classes, which the new dask nests as literals
    engine = DaskEngine(chunks=CHUNK)
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        # dask's own notes on what it builds: a dtype's metadata cast, a rechunk's chunk count
        warnings.filterwarnings("ignore", category=np.exceptions.ComplexWarning, module="dask")
        warnings.filterwarnings("ignore", category=dask.array.PerformanceWarning)
        expected, expected_grads = _run(rt, spec, sample, positions, seed, None)
        try:
            actual, actual_grads = _run(rt, spec, sample, positions, seed, engine)
        except EngineError as exc:
            raise CheckFailed(f"on a DaskEngine: {exc}") from None
    _compare("the value", actual, expected)
    for position, got, want in zip(positions, actual_grads, expected_grads):
        _compare(f"the gradient of input {position} ({spec.input_name(position)!r})", got, want)


def _run(
    rt: EagerRuntime, spec: OpSpec, sample: Any, positions: list[int], seed: int, engine: Any
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The op's result and, when it is a float result of tracked inputs, the gradients
    ``backward_with`` a cotangent drawn from ``seed`` gives (on ``engine``, or rt's own)."""
    args = [
        rt.variable_from(Tensor.from_numpy(a)) if i in positions else const(rt, a) for i, a in enumerate(sample.args)
    ]

    def body(s: Any) -> Any:
        return picked(spec, getattr(s, spec.name)(*spec.pack(args), **sample.params), sample.result)

    out = rt.with_eager_session(engine, body) if engine is not None else rt.with_eager_session(body)
    value = np.asarray(out)
    if not positions or value.dtype.kind not in "fc" or not out.tracks_grad():
        return value, []
    rng = np.random.default_rng(seed)
    cotangent = rng.standard_normal(value.shape)
    if value.dtype.kind == "c":
        cotangent = cotangent + 1j * rng.standard_normal(value.shape)
    gradients = out.backward_with(Tensor.from_numpy(cotangent.astype(value.dtype)), engine=engine)
    return value, [np.asarray(gradients[args[i]]) for i in positions]


def _compare(what: str, actual: np.ndarray, expected: np.ndarray) -> None:
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        raise CheckFailed(
            f"on a DaskEngine, {what} is {actual.dtype}{list(actual.shape)}; on CpuEngine "
            f"{expected.dtype}{list(expected.shape)}"
        )
    if expected.dtype.kind not in "fc":
        if not np.array_equal(actual, expected):
            raise CheckFailed(f"on a DaskEngine, {what} is {actual!r}; on CpuEngine {expected!r}")
        return
    finite = np.isfinite(expected)
    same_specials = np.array_equal(np.isfinite(actual), finite) and np.array_equal(
        actual[~finite], expected[~finite], equal_nan=True
    )
    scale = float(np.max(np.abs(expected[finite]), initial=0.0))
    error = float(np.max(np.abs(actual[finite] - expected[finite]), initial=0.0)) if same_specials else np.inf
    if not error <= TOLERANCE * max(scale, 1.0):
        raise CheckFailed(
            f"on a DaskEngine, {what} is off CpuEngine's by {error:.3g} (scale {scale:.3g}): {actual!r} against "
            f"{expected!r}"
        )
