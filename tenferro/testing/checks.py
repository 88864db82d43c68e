"""The conformance checks: one per property every op must have, by name.

Each check takes the runtime, the op's spec and hypothesis's ``data`` (to draw the op's own
samples, in float64) and raises :class:`CheckFailed` naming what is wrong. The runner in
:mod:`tenferro.testing.conformance` turns that into a report naming the plugin, the op and
the check. The checks themselves live in :mod:`.value_checks` and :mod:`.derivative_checks`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tenferro.core.registry import OpSpec
from tenferro.core.runtime import EagerRuntime

from .derivative_checks import (
    check_kinks,
    check_residuals,
    check_vjp2_fd,
    check_vjp_fd,
    check_vjp_shapes,
    check_zero_cotangent,
)
from .harness import NOTHING_TO_DIFFERENTIATE, CheckFailed, Tally, is_differentiable
from .value_checks import (
    check_deterministic,
    check_error_inputs,
    check_float32,
    check_forward,
    check_no_alias,
    check_no_mutation,
)

__all__ = ["CHECKS", "NOTHING_TO_DIFFERENTIATE", "Check", "CheckFailed", "Tally"]


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


CHECKS: dict[str, Check] = {
    check.name: check
    for check in [
        Check("forward", check_forward, lambda spec: spec.reference is not None),
        Check("float32", check_float32),
        Check("vjp_fd", check_vjp_fd, is_differentiable),
        Check("vjp2_fd", check_vjp2_fd, is_differentiable),
        Check("vjp_shapes", check_vjp_shapes, is_differentiable),
        Check("zero_cotangent", check_zero_cotangent, is_differentiable),
        Check("residuals", check_residuals, lambda spec: is_differentiable(spec) and spec.residuals is not None),
        Check("kinks", check_kinks, lambda spec: is_differentiable(spec) and bool(spec.kinks), uses_samples=False),
        Check("no_mutation", check_no_mutation),
        Check("no_alias", check_no_alias),
        Check("deterministic", check_deterministic),
        Check("error_inputs", check_error_inputs, lambda spec: spec.error_inputs is not None, uses_samples=False),
    ]
}
