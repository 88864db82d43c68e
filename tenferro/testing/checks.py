"""The conformance checks: one function per property every op must have.

Each check takes the runtime, the op's spec and hypothesis's ``data`` (to draw the op's own
samples, in float64) and raises :class:`CheckFailed` naming what is wrong. The runner in
:mod:`tenferro.testing.conformance` turns that into a report naming the plugin, the op and
the check, with hypothesis's reproduction blob.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np
from hypothesis import reject

from tenferro.core.eager import EagerTensor
from tenferro.core.errors import NotDifferentiable, TenferroError
from tenferro.core.registry import OpSpec, SampleInput
from tenferro.core.runtime import EagerRuntime
from tenferro.core.tensor import Tensor

from .oracle import COTANGENT, Comparison, check_first_order, check_second_order, differentiable_positions


class CheckFailed(AssertionError):
    """A conformance check found the op wrong; the message says how."""


#: Why a sample was rejected (no verdict on it): keys of ``Tally.rejected``.
NOTHING_TO_DIFFERENTIATE = "nothing to differentiate"


@dataclass
class Tally:
    """How many samples a check drew, and how many it rejected for each reason (finite
    differences that met non-finite values or did not converge, or nothing to differentiate):
    too many rejections mean the op's sample strategy leaves its domain or meets kinks."""

    drawn: int = 0
    rejected: Counter[str] = field(default_factory=Counter)

    def reject(self, why: str) -> NoReturn:
        """Count the current sample as rejected for ``why`` and tell hypothesis so."""
        self.rejected[why] += 1
        reject()


@dataclass(frozen=True)
class Check:
    """One property: its name (the last part of a test id), the function that checks it,
    which specs it applies to, and whether it draws samples."""

    name: str
    run: Callable[[EagerRuntime, OpSpec, Any, Tally], None]
    applies: Callable[[OpSpec], bool] = lambda spec: True
    uses_samples: bool = True

    @property
    def doc(self) -> str:
        return " ".join((self.run.__doc__ or "").split())


def _draw(spec: OpSpec, data: Any, tally: Tally, differentiable: bool = False) -> SampleInput:
    sample = data.draw(spec.sample(), label="sample")
    tally.drawn += 1
    if differentiable and not differentiable_positions(spec, sample):
        tally.reject(NOTHING_TO_DIFFERENTIATE)  # all constants
    return sample


def _const(rt: EagerRuntime, arg: Any) -> Any:
    return rt.constant_from(Tensor.from_numpy(arg)) if isinstance(arg, np.ndarray) else arg


def _call(rt: EagerRuntime, spec: OpSpec, args: list[Any], params: Any) -> EagerTensor:
    return rt.with_eager_session(lambda s: getattr(s, spec.name)(*args, **params))


def _forward(rt: EagerRuntime, spec: OpSpec, sample: SampleInput) -> np.ndarray:
    return np.asarray(_call(rt, spec, [_const(rt, a) for a in sample.args], sample.params))


def _differentiable(spec: OpSpec) -> bool:
    return spec.vjp is not None and any(spec.differentiable)


def _max_error(actual: np.ndarray, expected: np.ndarray) -> float:
    """Largest absolute difference; NaN where exactly one side is NaN, equal infinities 0."""
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    with np.errstate(invalid="ignore"):
        diff = np.where((a == e) | (np.isnan(a) & np.isnan(e)), 0.0, np.abs(a - e))
    return float(np.max(diff, initial=0.0))


# -- forward -----------------------------------------------------------------------------
def check_forward(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The op's value equals its NumPy reference, with the reference's shape and dtype."""
    sample = _draw(spec, data, tally)
    actual = _forward(rt, spec, sample)
    expected = np.asarray(spec.reference(*sample.args, **sample.params))
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


def _to(arg: Any, dtype: type) -> Any:
    if isinstance(arg, np.ndarray) and arg.dtype.kind == "f":
        return arg.astype(dtype)
    if isinstance(arg, np.floating):
        return dtype(arg)
    return arg


def check_float32(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """In float32 the op stays float32 and agrees with float64 on the same (rounded)
    inputs, within a tolerance scaled by float32's epsilon."""
    sample = _draw(spec, data, tally)
    # float arrays and NumPy float scalars go to float32; Python floats stay (they are weak)
    single = [_to(a, np.float32) for a in sample.args]
    rounded = [_to(a, np.float64) for a in single]
    actual = _forward(rt, spec, SampleInput(tuple(single), sample.params))
    expected = _forward(rt, spec, SampleInput(tuple(rounded), sample.params))
    if expected.dtype == np.float64 and actual.dtype != np.float32:
        raise CheckFailed(f"float32 inputs gave a {actual.dtype} result; results must keep the input dtype")
    if actual.dtype.kind != "f":
        return
    magnitudes = [np.max(np.abs(a), initial=0.0) for a in rounded if isinstance(a, np.ndarray)]
    finite = expected[np.isfinite(expected)]
    scale = max(1.0, float(np.max(np.abs(finite), initial=0.0)), *map(float, magnitudes))
    tolerance = 64 * float(np.finfo(np.float32).eps) * scale
    error = _max_error(actual, expected)
    if not error <= tolerance:
        raise CheckFailed(f"float32 result off float64 by {error:.3g} > tolerance {tolerance:.3g} (64 eps32 x scale)")


# -- derivatives -------------------------------------------------------------------------
def _mismatch(what: str, result: Comparison) -> CheckFailed:
    return CheckFailed(f"{what}: {result} (or the sample sits on a kink the strategy should avoid)")


def _verdict(results: list[tuple[str, Comparison]], tally: Tally) -> None:
    """Fail on the first comparison that proves AD wrong (its finite differences converged
    and disagree); only when none does, reject the sample if some did not converge."""
    for what, result in results:
        if result.proven_wrong:
            raise _mismatch(what, result)
    for _, result in results:
        if not result.fd.converged:
            tally.reject(result.fd.outcome)  # no verdict on this sample


def _along(spec: OpSpec, only: int) -> str:
    return "the cotangent u" if only == COTANGENT else f"input {only} ({spec.inputs[only]!r})"


def check_vjp_fd(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """⟨VJP(u), v⟩ matches scipy.differentiate's d/dt ⟨u, f(x + t v)⟩, input by input."""
    sample = _draw(spec, data, tally, differentiable=True)
    seed = data.draw(_seeds(), label="seed")
    results = [
        (_along(spec, index), check_first_order(rt, spec, sample, seed, only=index))
        for index in differentiable_positions(spec, sample)
    ]
    _verdict(results, tally)


def check_vjp2_fd(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The VJP is differentiable: the gradient of ⟨VJP(u), w⟩ (from rt.grad of the recorded
    VJP) matches finite differences. For a spec that declares no second order, asking for
    one raises NotDifferentiable instead."""
    sample = _draw(spec, data, tally, differentiable=True)
    seed = data.draw(_seeds(), label="seed")
    if not spec.second_order:
        try:
            check_second_order(rt, spec, sample, seed)
        except NotDifferentiable:
            return
        raise CheckFailed("declares second_order=False, but a second derivative did not raise NotDifferentiable")
    result = check_second_order(rt, spec, sample, seed)
    if result.proven_wrong:  # say along which input, if moving one at a time shows it
        for only in [*differentiable_positions(spec, sample), COTANGENT]:
            single = check_second_order(rt, spec, sample, seed, only=only)
            if single.proven_wrong:
                raise _mismatch(f"second order along {_along(spec, only)}", single)
        raise _mismatch("second order (moving every input and the cotangent together)", result)
    _verdict([("second order", result)], tally)


def _seeds() -> Any:
    from hypothesis import strategies as st

    return st.integers(0, 2**32 - 1)


def _recorded(rt: EagerRuntime, spec: OpSpec, sample: SampleInput) -> tuple[list[Any], EagerTensor]:
    """The op called on variables (at differentiable positions) and constants."""
    positions = differentiable_positions(spec, sample)
    args = [
        rt.variable_from(Tensor.from_numpy(a)) if i in positions else _const(rt, a) for i, a in enumerate(sample.args)
    ]
    return args, _call(rt, spec, args, sample.params)


def _run_vjp(rt: EagerRuntime, out: EagerTensor, g: np.ndarray) -> tuple[Any, ...]:
    """The VJP rule of ``out``'s node called directly, on cotangent ``g``, unrecorded."""
    node = out._node
    spec = node.spec
    with rt.no_grad():

        def vjp(s: Any) -> Any:
            handle = node if node.value is None else EagerTensor(node.value, rt, node)
            return spec.vjp(s, rt.constant_from(Tensor(g)), node.inputs, handle, **node.params)

        return tuple(rt.with_eager_session(vjp))


def check_vjp_shapes(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The VJP returns one cotangent per input, each None or of its input's shape and dtype
    (broadcast axes summed back, mixed precision cast back)."""
    sample = _draw(spec, data, tally, differentiable=True)
    args, out = _recorded(rt, spec, sample)
    cotangents = _run_vjp(rt, out, np.ones(out.shape, out.dtype))
    if len(cotangents) != len(args):
        raise CheckFailed(f"the VJP returned {len(cotangents)} cotangents for {len(args)} inputs")
    for index in differentiable_positions(spec, sample):
        ct = cotangents[index]
        if ct is None:
            continue
        if not isinstance(ct, EagerTensor):
            raise CheckFailed(f"input {index} ({spec.inputs[index]!r}): the cotangent is a {type(ct).__name__}")
        if ct.shape != args[index].shape or ct.dtype != args[index].dtype:
            raise CheckFailed(
                f"input {index} ({spec.inputs[index]!r}) is {args[index].dtype}{list(args[index].shape)} but its "
                f"cotangent is {ct.dtype}{list(ct.shape)} (missing unbroadcast or cast?)"
            )


def check_zero_cotangent(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """A zero cotangent gives zero (or None) cotangents: the VJP is linear in it."""
    sample = _draw(spec, data, tally, differentiable=True)
    _, out = _recorded(rt, spec, sample)
    for index, ct in enumerate(_run_vjp(rt, out, np.zeros(out.shape, out.dtype))):
        if isinstance(ct, EagerTensor) and np.any(np.asarray(ct) != 0):
            raise CheckFailed(f"input {index} ({spec.inputs[index]!r}): a zero cotangent gave a non-zero one")


# -- hygiene -----------------------------------------------------------------------------
def _snapshot(values: list[Any]) -> list[bytes | None]:
    return [v.tobytes() if isinstance(v, np.ndarray) else None for v in values]


def check_no_mutation(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """Neither the forward kernel nor the VJP writes into its inputs, the residuals or the
    cotangent (checked on writable arrays, so a write would go through)."""
    sample = _draw(spec, data, tally)
    writable = [a.copy() if isinstance(a, np.ndarray) else a for a in sample.args]
    before = _snapshot(writable)
    with np.errstate(all="ignore"):
        spec.forward(*writable, **sample.params)
    for index, (old, new) in enumerate(zip(before, _snapshot(writable))):
        if old != new:
            raise CheckFailed(f"the forward kernel wrote into input {index} ({spec.inputs[index]!r})")
    if not _differentiable(spec) or not differentiable_positions(spec, sample):
        return
    _, out = _recorded(rt, spec, sample)
    node = out._node
    kept = [a._value for a in node.inputs if isinstance(a, EagerTensor)]
    kept += [node.value] if node.value is not None else []
    before = _snapshot(kept)
    g = np.ones(out.shape, out.dtype)
    _run_vjp(rt, out, g)
    if _snapshot(kept) != before:
        raise CheckFailed("the VJP wrote into an input or residual value")
    if np.any(g != 1):
        raise CheckFailed("the VJP wrote into the cotangent it was given")


def check_no_alias(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The result shares no memory with an input, unless the spec declares it returns a
    view (which nothing in tenferro ever writes through)."""
    sample = _draw(spec, data, tally)
    args = [_const(rt, a) for a in sample.args]
    out = _call(rt, spec, args, sample.params)._value
    for index, arg in enumerate(args):
        if isinstance(arg, EagerTensor) and np.shares_memory(out, arg._value) and not spec.returns_view:
            raise CheckFailed(
                f"the result shares memory with input {index} ({spec.inputs[index]!r}); copy it, or declare "
                f"returns_view=True"
            )


def check_deterministic(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The same call twice is bitwise equal; so are the recorded and the no_grad forward,
    and two VJPs of the same cotangent."""
    sample = _draw(spec, data, tally)
    first, second = _forward(rt, spec, sample), _forward(rt, spec, sample)
    if first.tobytes() != second.tobytes():
        raise CheckFailed("two identical forward calls differ bitwise")
    if not _differentiable(spec) or not differentiable_positions(spec, sample):
        return
    _, out = _recorded(rt, spec, sample)
    if out._value.tobytes() != first.tobytes():
        raise CheckFailed("the recorded forward differs bitwise from the no_grad one")
    g = np.ones(out.shape, out.dtype)
    once, twice = _run_vjp(rt, out, g), _run_vjp(rt, out, g)
    for index, (a, b) in enumerate(zip(once, twice)):
        if (a is None) != (b is None) or (a is not None and np.asarray(a).tobytes() != np.asarray(b).tobytes()):
            raise CheckFailed(f"input {index} ({spec.inputs[index]!r}): two identical VJP calls differ bitwise")


def check_error_inputs(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """Each declared error input raises its declared TenferroError with its message."""
    for number, case in enumerate(spec.error_inputs()):
        try:
            _call(rt, spec, [_const(rt, a) for a in case.args], case.params)
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


CHECKS: dict[str, Check] = {
    check.name: check
    for check in [
        Check("forward", check_forward, lambda spec: spec.reference is not None),
        Check("float32", check_float32),
        Check("vjp_fd", check_vjp_fd, _differentiable),
        Check("vjp2_fd", check_vjp2_fd, _differentiable),
        Check("vjp_shapes", check_vjp_shapes, _differentiable),
        Check("zero_cotangent", check_zero_cotangent, _differentiable),
        Check("no_mutation", check_no_mutation),
        Check("no_alias", check_no_alias),
        Check("deterministic", check_deterministic),
        Check("error_inputs", check_error_inputs, lambda spec: spec.error_inputs is not None, uses_samples=False),
    ]
}
