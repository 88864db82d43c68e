"""How a conformance failure reads: what failed and why, on which sample (its actual
values), and the command that reruns just that item.

Hypothesis's own advice (add ``@seed(...)`` or ``@reproduce_failure(...)`` "to this
test") does not apply: a plugin author has no test function to decorate, so it is left
out, and the failing sample is printed instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tenferro.core.spec import OpSpec, SampleInput

from .checks import NOT_SCALABLE, NOTHING_TO_DIFFERENTIATE, Check, CheckFailed, Tally
from .oracle import NON_FINITE, NOT_CONVERGED
from .profiles import default_profile
from .strategies import FD_STEP

#: What each reason for rejecting a sample says about the op's sample strategy.
_REJECTIONS = {
    NON_FINITE: "the op gave nan or inf within the finite-difference step: the op's sample strategy leaves its domain",
    NOT_CONVERGED: "finite differences did not converge: a kink, a pole or noisy values within the step",
    NOTHING_TO_DIFFERENTIATE: "no input to differentiate: every tensor argument was a constant",
    NOT_SCALABLE: "an integer or bool argument where the op is linear: α·x + β·y cannot keep its dtype",
}


def rerun_command(spec: OpSpec, check: Check, loaded: Sequence[str] = (), seed: int | None = None) -> str:
    """``tenferro check`` with the plugin, the modules it was loaded from, the item, the
    hypothesis profile and, for a randomised run, hypothesis's seed."""
    words = ["tenferro", "check", spec.plugin, *(f"--load {text}" for text in loaded)]
    words += ["-k", f"'{spec.name} and {check.name}'", "--profile", default_profile()]
    words += [f"--hypothesis-seed={seed}"] if seed is not None else []
    return "rerun: " + " ".join(words)


def failing_sample(draws: Sequence[tuple[str, Any]]) -> str:
    """The draws of a failing example as values one can paste: arrays in full precision."""
    parts = []
    with np.printoptions(floatmode="unique", threshold=np.inf, linewidth=120):
        for label, value in draws:
            if isinstance(value, SampleInput):
                parts.append(f"args={value.args!r}" + (f", params={dict(value.params)!r}" if value.params else ""))
            else:
                parts.append(f"{label}={value!r}")
    return "; ".join(parts)


def _cause(exc: BaseException) -> str:
    group = getattr(exc, "exceptions", None)
    if isinstance(group, tuple):  # an exception group: hypothesis found several distinct failures
        return "several failures:\n" + "\n".join(f"  - {_cause(sub)}" for sub in group)
    cause = str(exc) if isinstance(exc, CheckFailed) else f"raised {type(exc).__name__}: {exc}"
    draws = getattr(exc, "tenferro_draws", None)
    return f"{cause}\n    on the sample {failing_sample(draws)}" if draws else cause


def failure_report(spec: OpSpec, check: Check, exc: BaseException, rerun: str) -> str:
    return (
        f"{spec.plugin}::{spec.name}::{check.name} failed (plugin {spec.plugin!r}, op {spec.name!r}, "
        f"check {check.name!r}): {_cause(exc)}\ncheck: {check.doc}\n{rerun}"
    )


def domain_report(spec: OpSpec, check: Check, tally: Tally, rerun: str) -> str:
    """Too many samples rejected for a verdict: how many, and for which reasons."""
    rejected = tally.rejected.total()
    how_many = "every sample" if rejected >= tally.drawn else f"{rejected} of {tally.drawn} samples"
    reasons = "\n".join(f"  {count} x {_REJECTIONS[why]}" for why, count in tally.rejected.most_common())
    return (
        f"{spec.plugin}::{spec.name}::{check.name}: {how_many} had to be rejected, too many for a verdict:\n"
        f"{reasons}\n"
        f"keep samples inside the domain and at least tenferro.testing.strategies.MARGIN from kinks and poles "
        f"(finite differences step at most FD_STEP = {FD_STEP} along each input)\n{rerun}"
    )
