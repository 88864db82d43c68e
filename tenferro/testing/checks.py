"""The conformance checks: one per property every op must have, by name.

Each check takes the runtime, the op's spec and hypothesis's ``data`` (to draw the op's own
samples, in float64) and raises :class:`CheckFailed` naming what is wrong. The runner in
:mod:`tenferro.testing.conformance` turns that into a report naming the plugin, the op and
the check. The checks themselves live in :mod:`.value_checks`, :mod:`.derivative_checks`
(against finite differences) and :mod:`.exact_checks` (identities the spec makes exact).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import OpSpec

from .complex_samples import accepts_complex, on_complex_samples
from .derivative_checks import (
    check_jvp_fd,
    check_kinks,
    check_residuals,
    check_vjp2_fd,
    check_vjp_fd,
    check_vjp_shapes,
    check_zero_cotangent,
)
from .engine_check import check_dask_engine, dask_installed
from .exact_checks import check_jvp, check_linear, check_multilinear
from .harness import NOT_SCALABLE, NOTHING_TO_DIFFERENTIATE, CheckFailed, Tally, is_differentiable
from .jit_check import check_jit
from .value_checks import (
    check_batch,
    check_deterministic,
    check_engine_neutral,
    check_error_inputs,
    check_float32,
    check_forward,
    check_no_alias,
    check_no_mutation,
)

__all__ = ["CHECKS", "NOTHING_TO_DIFFERENTIATE", "NOT_SCALABLE", "Check", "CheckFailed", "Tally"]


#: The optional spec fields a check may need, and what each one is.
DECLARATIONS = {
    "sample": "sample (a strategy of valid inputs; see tenferro.testing.strategies)",
    "reference": "reference (an independent NumPy implementation)",
    "error_inputs": "error_inputs (calls that must raise a TenferroError)",
}


@dataclass(frozen=True)
class Check:
    """One property: its name (the last part of a test id), the function that checks it,
    which specs it applies to, the optional spec fields it needs and the optional package
    it needs (``requires``: its name and whether it is installed): on a spec without them,
    or without the package, it is reported as skipped, with the reason, never silently left
    out (so an expected failure listed for it stays valid where the package is missing)."""

    name: str
    run: Callable[[EagerRuntime, OpSpec, Any, Tally], None]
    applies: Callable[[OpSpec], bool] = lambda spec: True
    needs: tuple[str, ...] = ("sample",)
    requires: tuple[str, Callable[[], bool]] | None = None

    @property
    def doc(self) -> str:
        return " ".join((self.run.__doc__ or "").split())

    @property
    def uses_samples(self) -> bool:
        return "sample" in self.needs

    def skip_reason(self, spec: OpSpec) -> str | None:
        """Why this check cannot run on ``spec`` (the declarations it lacks), or None."""
        if self.requires is not None and not self.requires[1]():
            extra = self.requires[0]
            return f"{extra} is not installed (the {extra} extra: pip install -e '.[{extra}]')"
        absent = [DECLARATIONS[name] for name in self.needs if getattr(spec, name) is None]
        return f"the spec declares no {'; no '.join(absent)}" if absent else None


CHECKS: dict[str, Check] = {
    check.name: check
    for check in [
        Check("forward", check_forward, needs=("sample", "reference")),
        Check("float32", check_float32),
        Check("engine_neutral", check_engine_neutral),
        Check("dask_engine", check_dask_engine, requires=("dask", dask_installed)),
        Check("vjp_fd", check_vjp_fd, is_differentiable),
        Check("vjp2_fd", check_vjp2_fd, is_differentiable),
        Check("vjp_shapes", check_vjp_shapes, is_differentiable),
        Check("zero_cotangent", check_zero_cotangent, is_differentiable),
        Check("linear", check_linear, lambda spec: spec.linear),
        Check("multilinear", check_multilinear, lambda spec: spec.multilinear),
        Check("jvp", check_jvp, lambda spec: is_differentiable(spec) and spec.jvp is not None),
        Check("jvp_fd", check_jvp_fd, is_differentiable),
        Check("residuals", check_residuals, lambda spec: is_differentiable(spec) and spec.residuals is not None),
        Check("kinks", check_kinks, lambda spec: is_differentiable(spec) and bool(spec.kinks), needs=()),
        Check("no_mutation", check_no_mutation),
        Check("no_alias", check_no_alias),
        Check("deterministic", check_deterministic),
        Check(
            "batch",
            check_batch,
            lambda spec: spec.batch is not None or spec.elementwise,
        ),
        Check("jit", check_jit),
        Check("error_inputs", check_error_inputs, needs=("error_inputs",)),
    ]
}

#: The checks that also run on complex samples, for ops that accept complex inputs: as
#: ``complex_<name>`` (``float32`` becomes ``complex64``).
_ON_COMPLEX = (
    "forward",
    "float32",
    "engine_neutral",
    "dask_engine",
    "vjp_fd",
    "vjp2_fd",
    "vjp_shapes",
    "jvp",
    "jvp_fd",
    "linear",
    "multilinear",
    "residuals",
    "jit",
)

CHECKS.update(
    (twin.name, twin)
    for twin in (
        Check(
            "complex64" if name == "float32" else f"complex_{name}",
            on_complex_samples(CHECKS[name].run),
            lambda spec, applies=CHECKS[name].applies: accepts_complex(spec) and applies(spec),
            CHECKS[name].needs,
            CHECKS[name].requires,
        )
        for name in _ON_COMPLEX
    )
)
