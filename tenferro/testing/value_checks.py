"""Checks of an op's values: against its reference, in float32 and on another engine's
arrays, no mutation, no aliasing, determinism, and the errors it declares."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from hypothesis import strategies as st

from tenferro.core.eager import EagerTensor, has_value, held, vertex
from tenferro.core.errors import TenferroError
from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import OpSpec

from .duck import DuckArray
from .harness import CheckFailed, Tally, call, const, draw, forward, is_differentiable, recorded, run_vjp
from .oracle import differentiable_positions, picked


def _max_error(actual: np.ndarray, expected: np.ndarray) -> float:
    """Largest absolute difference; NaN where exactly one side is NaN, equal infinities 0."""
    wide = np.complex128 if np.iscomplexobj(actual) or np.iscomplexobj(expected) else np.float64
    a, e = actual.astype(wide), expected.astype(wide)
    with np.errstate(invalid="ignore"):
        diff = np.where((a == e) | (np.isnan(a) & np.isnan(e)), 0.0, np.abs(a - e))
    return float(np.max(diff, initial=0.0))


def check_forward(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The op's value equals its NumPy reference, with the reference's shape and dtype."""
    sample = draw(spec, data, tally)
    actual = forward(rt, spec, sample)
    expected = np.asarray(picked(spec, spec.reference(*spec.pack(sample.args), **sample.params), sample.result))
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        raise CheckFailed(
            f"returned {actual.dtype}{list(actual.shape)}, the reference {expected.dtype}{list(expected.shape)}"
        )
    if actual.dtype.kind in "biu":
        if not np.array_equal(actual, expected):
            raise CheckFailed(f"differs from the reference at {int(np.sum(actual != expected))} elements")
        return
    scale = max(1.0, float(np.max(np.abs(expected[np.isfinite(expected)]), initial=0.0)))
    tolerance = 1e-10 * scale
    error = _max_error(actual, expected)
    if not error <= tolerance:
        raise CheckFailed(f"max error {error:.3g} against the reference > tolerance {tolerance:.3g}")


#: float and complex dtypes in single and double precision.
_SINGLE = {"f": np.dtype(np.float32), "c": np.dtype(np.complex64)}
_DOUBLE = {"f": np.dtype(np.float64), "c": np.dtype(np.complex128)}


def _to(arg: Any, precision: dict[str, np.dtype]) -> Any:
    """A float or complex array or NumPy scalar in the ``precision`` of its kind."""
    if isinstance(arg, np.ndarray) and arg.dtype.kind in precision:
        return arg.astype(precision[arg.dtype.kind])
    if isinstance(arg, np.inexact):
        return precision[arg.dtype.kind].type(arg)
    return arg


def check_float32(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """In float32 (complex64) the op stays single precision and agrees with float64
    (complex128) on the same (rounded) inputs, within a tolerance scaled by float32's epsilon."""
    sample = draw(spec, data, tally)
    # arrays and NumPy scalars go to single precision; Python floats stay (they are weak)
    single = [_to(a, _SINGLE) for a in sample.args]
    rounded = [_to(a, _DOUBLE) for a in single]
    actual = forward(rt, spec, replace(sample, args=tuple(single)))
    expected = forward(rt, spec, replace(sample, args=tuple(rounded)))
    if expected.dtype.kind in "fc" and expected.dtype == _DOUBLE[expected.dtype.kind]:
        if actual.dtype != _SINGLE[expected.dtype.kind]:
            raise CheckFailed(
                f"{_name(single)} inputs gave a {actual.dtype} result; results must keep the input precision"
            )
    if actual.dtype.kind not in "fc":
        return
    magnitudes = [np.max(np.abs(a), initial=0.0) for a in rounded if isinstance(a, np.ndarray)]
    finite = expected[np.isfinite(expected)]
    scale = max(1.0, float(np.max(np.abs(finite), initial=0.0)), *map(float, magnitudes))
    tolerance = 64 * float(np.finfo(np.float32).eps) * scale
    error = _max_error(actual, expected)
    if not error <= tolerance:
        raise CheckFailed(f"float32 result off float64 by {error:.3g} > tolerance {tolerance:.3g} (64 eps32 x scale)")


def _name(args: list[Any]) -> str:
    return "complex64" if any(np.iscomplexobj(a) for a in args if isinstance(a, np.ndarray)) else "float32"


def check_engine_neutral(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """Given duck arrays (what another engine passes: NumPy's protocols, no ndarray methods)
    in place of NumPy arrays, the kernel returns a duck array bitwise equal to its NumPy
    result: it keeps the engine's array type."""
    sample = draw(spec, data, tally)
    args = [_read_only(a) for a in sample.args]
    with np.errstate(all="ignore"):  # as on CpuEngine
        expected = np.asarray(picked(spec, spec.forward(*spec.pack(args), **sample.params), sample.result))
        try:
            ducks = [DuckArray(a) if isinstance(a, np.ndarray) else a for a in args]
            out = picked(spec, spec.forward(*spec.pack(ducks), **sample.params), sample.result)
        except Exception as exc:
            raise CheckFailed(f"given duck arrays, the kernel raised {type(exc).__name__}: {exc}") from None
    if not isinstance(out, DuckArray):
        raise CheckFailed(
            f"given duck arrays, the kernel returned a {type(out).__module__}.{type(out).__qualname__}: it made a new "
            f"NumPy array (np.zeros, np.array, ...) where it must make one like its argument (np.zeros_like(x), ...)"
        )
    got = out.unwrap()
    if got.shape != expected.shape or got.dtype != expected.dtype:
        raise CheckFailed(
            f"given duck arrays, the kernel returned {got.dtype}{list(got.shape)}, given NumPy arrays "
            f"{expected.dtype}{list(expected.shape)}"
        )
    if got.tobytes() != expected.tobytes():
        raise CheckFailed("given duck arrays, the kernel's result differs bitwise from its result on NumPy arrays")


def _read_only(arg: Any) -> Any:
    """A read-only copy of an array argument, as kernels get them on CpuEngine."""
    if not isinstance(arg, np.ndarray):
        return arg
    arg = arg.copy()
    arg.setflags(write=False)
    return arg


def _snapshot(values: list[Any]) -> list[bytes | None]:
    return [v.tobytes() if isinstance(v, np.ndarray) else None for v in values]


def check_no_mutation(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """Neither the forward kernel nor the VJP writes into its inputs, the residuals or the
    cotangent (checked on writable arrays, so a write would go through)."""
    sample = draw(spec, data, tally)
    writable = [a.copy() if isinstance(a, np.ndarray) else a for a in sample.args]
    before = _snapshot(writable)
    with np.errstate(all="ignore"):
        spec.forward(*spec.pack(writable), **sample.params)
    for index, (old, new) in enumerate(zip(before, _snapshot(writable))):
        if old != new:
            raise CheckFailed(f"the forward kernel wrote into input {index} ({spec.input_name(index)!r})")
    if not is_differentiable(spec) or not differentiable_positions(spec, sample):
        return
    _, out = recorded(rt, spec, sample)
    node = vertex(out)
    kept = [held(a) for a in node.inputs if isinstance(a, EagerTensor) and has_value(a)]
    kept += [node.value] if node.value is not None else []
    before = _snapshot(kept)
    g = np.ones(out.shape, out.dtype)
    run_vjp(rt, out, g)
    if _snapshot(kept) != before:
        raise CheckFailed("the VJP wrote into an input or residual value")
    if np.any(g != 1):
        raise CheckFailed("the VJP wrote into the cotangent it was given")


def check_no_alias(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The result shares no memory with an input, unless the spec declares it returns a
    view (which nothing in tenferro ever writes through)."""
    sample = draw(spec, data, tally)
    args = [const(rt, a) for a in sample.args]
    out = held(call(rt, spec, args, sample.params, sample.result))
    for index, arg in enumerate(args):
        if isinstance(arg, EagerTensor) and np.shares_memory(out, held(arg)) and not spec.returns_view:
            raise CheckFailed(
                f"the result shares memory with input {index} ({spec.input_name(index)!r}); copy it, or declare "
                f"returns_view=True"
            )


def check_deterministic(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The same call twice is bitwise equal; so are the recorded and the no_grad forward,
    and two VJPs of the same cotangent."""
    sample = draw(spec, data, tally)
    first, second = forward(rt, spec, sample), forward(rt, spec, sample)
    if first.tobytes() != second.tobytes():
        raise CheckFailed("two identical forward calls differ bitwise")
    if not is_differentiable(spec) or not differentiable_positions(spec, sample):
        return
    _, out = recorded(rt, spec, sample)
    if held(out).tobytes() != first.tobytes():
        raise CheckFailed("the recorded forward differs bitwise from the no_grad one")
    g = np.ones(out.shape, out.dtype)
    once, twice = run_vjp(rt, out, g), run_vjp(rt, out, g)
    for index, (a, b) in enumerate(zip(once, twice)):
        if (a is None) != (b is None) or (a is not None and np.asarray(a).tobytes() != np.asarray(b).tobytes()):
            raise CheckFailed(f"input {index} ({spec.input_name(index)!r}): two identical VJP calls differ bitwise")


def check_error_inputs(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """Each declared error input raises its declared TenferroError with its message."""
    for number, case in enumerate(spec.error_inputs()):
        try:
            call(rt, spec, [const(rt, a) for a in case.args], case.params)
        except case.error as exc:
            if case.match not in str(exc):
                raise CheckFailed(f"error input {number}: message {str(exc)!r} lacks {case.match!r}") from None
            continue
        except TenferroError as exc:
            raise CheckFailed(
                f"error input {number}: raised {type(exc).__name__} ({exc}), expected {case.error.__name__}"
            ) from None
        except Exception as exc:
            raise CheckFailed(
                f"error input {number}: raised a raw {type(exc).__name__} ({exc}); bad input must raise a "
                f"TenferroError ({case.error.__name__} here)"
            ) from None
        raise CheckFailed(f"error input {number}: no error raised, expected {case.error.__name__}")


def varied(args: Any, flags: list[bool], scale: float, shift: int) -> list[Any]:
    """The arguments at ``flags`` made another example of the same signature: float and
    complex arrays scaled (which keeps them valid: positive definite, triangular, in a
    domain starting at 0), integer arrays rolled (which keeps their values: indices stay in
    range)."""
    with np.errstate(all="ignore"):  # (a complex infinity scaled has a nan part: as NumPy makes it)
        return [
            np.asarray(a * scale, dtype=a.dtype)
            if flag and a.dtype.kind in "fc"
            else np.roll(a, shift)
            if flag and a.dtype.kind in "iu"
            else a
            for a, flag in zip(args, flags)
        ]


def check_batch(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The op's batching rule (its ``batch``, derived for elementwise ops) on a batch of
    three examples (the sample's float arrays scaled by 1, 3/4 and 1/2, its integer arrays
    rolled by 0, 1 and 2 places: :func:`varied`; each argument drawn batched or not, one at
    least) equals the three calls stacked, to rounding (a batched contraction or reduction
    sums in another order): what ``tf.vmap`` replays."""
    from tenferro import batching  # noqa: PLC0415 - outside the core, as the plugins' rules are

    sample = draw(spec, data, tally)
    arrays = [i for i, a in enumerate(sample.args) if isinstance(a, np.ndarray) and a.size]
    if not arrays:
        return
    flags = [i in arrays and data.draw(st.booleans(), label=f"batched {i}") for i in range(len(sample.args))]
    if not any(flags):
        flags[arrays[0]] = True

    scales, shifts = (1.0, 0.75, 0.5), (0, 1, 2)

    def example(k: int) -> list[Any]:
        return varied(sample.args, flags, scales[k], shifts[k])

    try:
        expected = np.stack([forward(rt, spec, replace(sample, args=tuple(example(k)))) for k in range(3)])
    except TenferroError:  # a domain that scaling leaves (multigammaln's a > (d - 1)/2): three alike
        scales, shifts = (1.0, 1.0, 1.0), (0, 0, 0)
        expected = np.stack([forward(rt, spec, replace(sample, args=tuple(example(k)))) for k in range(3)])
    stacked = [
        const(rt, np.stack([example(k)[i] for k in range(3)])) if flag else const(rt, a)
        for i, (a, flag) in enumerate(zip(sample.args, flags))
    ]
    rule = spec.batch_rule

    def run(s: Any) -> Any:
        def op(*given: Any, **changed: Any) -> Any:
            return getattr(s, spec.name)(*spec.pack(list(given)), **{**sample.params, **changed})

        if rule == "elementwise":
            return batching.elementwise(s, op, stacked, flags, **sample.params)
        return rule(s, op, stacked, flags, **sample.params)

    out = rt.with_eager_session(run)
    if out is None:
        return  # the rule declines these arguments: tf.vmap calls the op per example
    actual = np.asarray(picked(spec, out, sample.result))
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        raise CheckFailed(
            f"batched arguments {flags}: returned {actual.dtype}{list(actual.shape)}, the "
            f"three calls stacked {expected.dtype}{list(expected.shape)}"
        )
    scale = (
        max(1.0, float(np.max(np.abs(expected[np.isfinite(expected)]), initial=0.0)))
        if expected.dtype.kind in "fc"
        else 1.0
    )
    error = _max_error(actual, expected)
    if not error <= 1e-12 * scale:
        raise CheckFailed(f"batched arguments {flags}: max error {error:.3g} against the three calls stacked")
