"""Running the conformance checks: on one op, on a plugin, with expected failures.

The Python API for plugin authors::

    from tenferro.testing import check_op, check_plugin
    check_plugin("mymath")             # raises ConformanceFailure listing every failed check
    check_op(rt.registry["softplus"])  # one op

``pytest --tenferro-conformance=PLUGIN`` and ``tenferro check PLUGIN`` run the same checks,
one test item per (op, check), with ids like ``elementwise::sin::vjp_fd``.

A plugin may ship expected failures in a file ``tenferro-xfail.txt`` next to its module
(inside its package): one ``op::check: reason`` per line, ``#`` starts a comment. They are
strict: a listed check that passes is reported as a failure, so the list stays true.
"""

from __future__ import annotations

import pathlib
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck, Unsatisfiable

from tenferro.core.engine import CpuEngine
from tenferro.core.registry import OpSpec, Registry
from tenferro.core.runtime import EagerRuntime

from .checks import CHECKS, NOTHING_TO_DIFFERENTIATE, Check, CheckFailed, Tally
from .oracle import NON_FINITE, NOT_CONVERGED
from .strategies import FD_STEP

#: The file of expected failures a plugin may ship next to its module.
XFAIL_FILE = "tenferro-xfail.txt"
#: A check fails when more than this share of its samples had to be rejected.
MAX_REJECTED = 0.5


class ConformanceFailure(AssertionError):
    """One or more conformance checks failed; the message names plugin, op, check, input,
    the error against its tolerance, and how to reproduce it."""


class CheckSkipped(Exception):
    """A check could not run: the spec lacks a declaration it needs (the message says which)."""


@dataclass(frozen=True)
class Outcome:
    """The result of one check on one op: ``passed``, ``failed``, ``skipped`` (the spec lacks
    what the check needs; the message says what), ``xfailed`` (a listed expected failure
    that failed) or ``xpassed`` (a listed one that passed: an error)."""

    plugin: str
    op: str
    check: str
    status: str
    message: str = ""

    @property
    def id(self) -> str:
        return f"{self.plugin}::{self.op}::{self.check}"


def conformance_runtime(plugins: Iterable[Any] = ()) -> EagerRuntime:
    """A runtime with a default engine, every installed plugin, and ``plugins``."""
    return EagerRuntime(engine=CpuEngine.serial(), plugins=plugins)


def current_settings(max_examples: int | None = None) -> settings:
    """The loaded hypothesis profile (see tenferro.testing.profiles), optionally with fewer
    or more examples."""
    base = settings()
    health = [*base.suppress_health_check, HealthCheck.too_slow, HealthCheck.filter_too_much]
    return settings(base, max_examples=max_examples or base.max_examples, suppress_health_check=health)


def run_check(rt: EagerRuntime, spec: OpSpec, check: Check, hypothesis_settings: settings | None = None) -> None:
    """Run one check on one op; raise ConformanceFailure if it fails, CheckSkipped if the
    spec lacks a declaration the check needs."""
    where = f"{spec.plugin}::{spec.name}::{check.name}"
    missing = check.skip_reason(spec)
    if missing is not None:
        raise CheckSkipped(f"{where}: {missing}")
    tally = Tally()
    try:
        if check.uses_samples:

            @(hypothesis_settings or current_settings())
            @given(data=st.data())
            def run(data: Any) -> None:
                check.run(rt, spec, data, tally)

            run()
        else:
            check.run(rt, spec, None, tally)
    except (Unsatisfiable, FailedHealthCheck):
        raise ConformanceFailure(_domain_report(spec, check, tally)) from None
    except Exception as exc:
        raise ConformanceFailure(_report(where, spec, check, exc)) from None
    if tally.drawn >= 5 and tally.rejected.total() > MAX_REJECTED * tally.drawn:
        raise ConformanceFailure(_domain_report(spec, check, tally))


def _rerun(spec: OpSpec, check: Check) -> str:
    return f"rerun: pytest --tenferro-conformance={spec.plugin} -k '{spec.name} and {check.name}'"


#: What each reason for rejecting a sample says about the op's sample strategy.
_REJECTIONS = {
    NON_FINITE: "the op gave nan or inf within the finite-difference step: the op's sample strategy leaves its domain",
    NOT_CONVERGED: "finite differences did not converge: a kink, a pole or noisy values within the step",
    NOTHING_TO_DIFFERENTIATE: "no input to differentiate: every tensor argument was a constant",
}


def _domain_report(spec: OpSpec, check: Check, tally: Tally) -> str:
    rejected = tally.rejected.total()
    how_many = "every sample" if rejected >= tally.drawn else f"{rejected} of {tally.drawn} samples"
    reasons = "\n".join(f"  {count} x {_REJECTIONS[why]}" for why, count in tally.rejected.most_common())
    return (
        f"{spec.plugin}::{spec.name}::{check.name}: {how_many} had to be rejected, too many for a verdict:\n"
        f"{reasons}\n"
        f"keep samples inside the domain and at least tenferro.testing.strategies.MARGIN from kinks and poles "
        f"(finite differences step at most FD_STEP = {FD_STEP} along each input)\n{_rerun(spec, check)}"
    )


def _cause(exc: BaseException) -> str:
    if isinstance(exc, CheckFailed):
        return str(exc)
    group = getattr(exc, "exceptions", None)
    if isinstance(group, tuple):  # an exception group: hypothesis found several distinct failures
        return "several failures:\n" + "\n".join(f"  - {_cause(sub)}" for sub in group)
    return f"raised {type(exc).__name__}: {exc}"


def _report(where: str, spec: OpSpec, check: Check, exc: BaseException) -> str:
    cause = _cause(exc)
    notes = "\n".join(getattr(exc, "__notes__", []))
    return (
        f"{where} failed (plugin {spec.plugin!r}, op {spec.name!r}, check {check.name!r}): {cause}\n"
        f"check: {check.doc}\n"
        f"{notes}\n"
        f"{_rerun(spec, check)}"
    ).rstrip()


def expected_failures(registry: Registry, plugin: str) -> dict[tuple[str, str], str]:
    """(op, check) -> reason, from the plugin's ``tenferro-xfail.txt`` if it has one."""
    info = registry.plugins.get(plugin)
    path = _xfail_path(info.plugin if info else None)
    if path is None or not path.is_file():
        return {}
    listed = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"(\w+)::(\w+):\s*(\S.*)", line)
        if match is None or match[2] not in CHECKS:
            raise ConformanceFailure(f"{path}:{number}: expected 'op::check: reason' with a known check, got {line!r}")
        listed[(match[1], match[2])] = match[3]
    return listed


def _xfail_path(plugin: Any) -> pathlib.Path | None:
    """Where a plugin's expected-failure file would be: beside its module (for a plugin
    object, the module that defines its class)."""
    if plugin is None:
        return None
    module = plugin if hasattr(plugin, "__file__") else sys.modules.get(type(plugin).__module__)
    module_file = getattr(module, "__file__", None)
    return pathlib.Path(module_file).parent / XFAIL_FILE if module_file else None


def selected(registry: Registry, plugins: Iterable[str]) -> Iterator[tuple[OpSpec, Check]]:
    """Every applicable (op, check) of the named plugins (``all`` = every plugin)."""
    names = list(plugins)
    if "all" in names:
        names = list(registry.plugins)
    unknown = [name for name in names if name not in registry.plugins]
    if unknown:
        raise ConformanceFailure(
            f"no plugin named {', '.join(map(repr, unknown))} is loaded; loaded: {', '.join(registry.plugins)} "
            f"(`tenferro plugins` lists them)"
        )
    for name in names:
        for spec in registry.of_plugin(name):
            for check in CHECKS.values():
                if check.applies(spec):
                    yield spec, check


def _outcome(rt: EagerRuntime, spec: OpSpec, check: Check, reason: str | None, hs: settings | None) -> Outcome:
    try:
        run_check(rt, spec, check, hs)
    except CheckSkipped as skipped:
        return Outcome(spec.plugin, spec.name, check.name, "skipped", str(skipped))
    except ConformanceFailure as failure:
        return Outcome(spec.plugin, spec.name, check.name, "failed" if reason is None else "xfailed", str(failure))
    if reason is not None:
        message = f"{spec.plugin}::{spec.name}::{check.name} is listed as an expected failure ({reason}) but passed"
        return Outcome(spec.plugin, spec.name, check.name, "xpassed", message)
    return Outcome(spec.plugin, spec.name, check.name, "passed")


def _raise_failed(outcomes: list[Outcome]) -> list[Outcome]:
    bad = [o for o in outcomes if o.status in ("failed", "xpassed")]
    if bad:
        listing = "\n\n".join(o.message for o in bad)
        raise ConformanceFailure(f"{len(bad)} of {len(outcomes)} checks failed:\n\n{listing}")
    return outcomes


def check_op(
    spec: OpSpec, rt: EagerRuntime | None = None, checks: Iterable[str] | None = None, max_examples: int | None = None
) -> list[Outcome]:
    """Run every applicable check (or the named ``checks``) on one op; return the outcomes
    (skipped ones included), or raise ConformanceFailure listing the failures. ``rt`` must hold the op (default: a
    runtime of the installed plugins)."""
    rt = rt or conformance_runtime()
    chosen = [CHECKS[name] for name in checks] if checks is not None else list(CHECKS.values())
    listed = expected_failures(rt.registry, spec.plugin)
    hs = current_settings(max_examples)
    outcomes = [
        _outcome(rt, spec, check, listed.get((spec.name, check.name)), hs) for check in chosen if check.applies(spec)
    ]
    return _raise_failed(outcomes)


def check_plugin(name: str, rt: EagerRuntime | None = None, max_examples: int | None = None) -> list[Outcome]:
    """Run every check on every op of plugin ``name`` (``all`` for every plugin)."""
    rt = rt or conformance_runtime()
    hs = current_settings(max_examples)
    outcomes = []
    for spec, check in selected(rt.registry, [name]):
        listed = expected_failures(rt.registry, spec.plugin)
        outcomes.append(_outcome(rt, spec, check, listed.get((spec.name, check.name)), hs))
    return _raise_failed(outcomes)
