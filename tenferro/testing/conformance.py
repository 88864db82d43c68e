"""Running the conformance checks: on one op, on a plugin, with expected failures.

The Python API for plugin authors::

    from tenferro.testing import check_op, check_plugin
    check_plugin("mymath")             # raises ConformanceFailure listing every failed check
    check_op(rt.registry["sin"])  # one op

``pytest --tenferro-conformance=PLUGIN`` and ``tenferro check PLUGIN`` run the same checks,
one test item per (op, check), with ids like ``elementwise::sin::vjp_fd``.

A plugin may ship expected failures in a file ``tenferro-xfail.txt`` next to its module
(inside its package): one ``op::check: reason`` per line, ``#`` starts a comment. They are
strict: a listed check that passes is reported as a failure, so the list stays true.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck, Unsatisfiable

from tenferro.core.engine import CpuEngine
from tenferro.core.errors import ArgumentError, PluginWarning
from tenferro.core.registry import Registry, short_name
from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import OpSpec

from .checks import CHECKS, Check, Tally
from .reports import domain_report, failure_report, rerun_command

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


#: The ops the suite itself uses to build the scalar functions it differentiates.
SUITE_OPS = ("mul", "add", "reduce_sum")


def conformance_runtime(plugins: Iterable[Any] = ()) -> EagerRuntime:
    """A runtime with a default engine, every installed plugin, and ``plugins``. Strict: a
    plugin that fails to load is a PluginError here, not a warning and a plugin left out."""
    rt = EagerRuntime(engine=CpuEngine.serial(), plugins=plugins, strict=True)
    missing = [name for name in SUITE_OPS if name not in rt.registry]
    if missing:
        raise ConformanceFailure(
            f"the conformance suite builds its inner products with the ops {', '.join(SUITE_OPS)} (plugins "
            f"elementwise and reduce), and {', '.join(map(repr, missing))} is not loaded; do not block those "
            f"plugins when checking others"
        )
    return rt


def current_settings(max_examples: int | None = None) -> settings:
    """The loaded hypothesis profile (see tenferro.testing.profiles), optionally with fewer
    or more examples, and quiet: a report says what failed, on which sample, and how to
    rerun it (hypothesis's own advice is for authors of the decorated test). Without the
    explain phase, which would run a failing check hundreds of times more to annotate a
    test function's source that no report shows."""
    base = settings()
    health = [*base.suppress_health_check, HealthCheck.too_slow, HealthCheck.filter_too_much]
    return settings(
        base,
        max_examples=max_examples or base.max_examples,
        suppress_health_check=health,
        verbosity=Verbosity.quiet,
        phases=[phase for phase in base.phases if phase is not Phase.explain],
    )


def run_check(
    rt: EagerRuntime,
    spec: OpSpec,
    check: Check,
    hypothesis_settings: settings | None = None,
    loaded: Sequence[str] = (),
) -> None:
    """Run one check on one op; raise ConformanceFailure if it fails, CheckSkipped if the
    spec lacks a declaration the check needs. ``loaded`` lists the ``--load`` values that
    made the plugin available, for the rerun command in a report."""
    missing = check.skip_reason(spec)
    if missing is not None:
        raise CheckSkipped(f"{spec.plugin}::{spec.name}::{check.name}: {missing}")
    tally = Tally()

    @(hypothesis_settings or current_settings())
    @given(data=st.data())
    def run(data: Any) -> None:
        tally.draws.clear()
        try:
            check.run(rt, spec, data, tally)
        except Exception as exc:
            exc.tenferro_draws = list(tally.draws)  # type: ignore[attr-defined]  # the failing sample
            raise

    def rerun() -> str:  # hypothesis keeps the seed of a randomised run on the test function
        return rerun_command(spec, check, loaded, getattr(run, "_hypothesis_internal_use_generated_seed", None))

    try:
        if check.uses_samples:
            run()
        else:
            check.run(rt, spec, None, tally)
    except (Unsatisfiable, FailedHealthCheck):
        raise ConformanceFailure(domain_report(spec, check, tally, rerun())) from None
    except Exception as exc:
        raise ConformanceFailure(failure_report(spec, check, exc, rerun())) from None
    if tally.drawn >= 5 and tally.rejected.total() > MAX_REJECTED * tally.drawn:
        raise ConformanceFailure(domain_report(spec, check, tally, rerun()))


def expected_failures(registry: Registry, plugin: str) -> dict[tuple[str, str], str]:
    """(op, check) -> reason, from the plugin's ``tenferro-xfail.txt`` if it has one. As
    strict as the list: a misspelled check, or a check that does not apply to the op it
    names, is a ConformanceFailure (such an entry could never fail, so never go stale). An
    entry for an op no loaded plugin sharing the file registers is a warning, not an error:
    it is stale, or its op is registered only when an optional dependency is installed."""
    info = registry.plugins.get(plugin)
    path = _xfail_path(info.plugin if info else None)
    if path is None or not path.is_file():
        return {}
    sharing = {  # the ops of every loaded plugin whose file this is (modules of one package), by
        short_name(spec): spec  # the names they registered, also an op now called by plugin.op
        for name, other in registry.plugins.items()
        if _xfail_path(other.plugin) == path
        for spec in registry.of_plugin(name)
    }
    listed = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"(\w+)::(\w+):\s*(\S.*)", line)
        if match is None or match[2] not in CHECKS:
            raise ConformanceFailure(f"{path}:{number}: expected 'op::check: reason' with a known check, got {line!r}")
        spec = sharing.get(match[1])
        if spec is None:
            warnings.warn(
                f"{path}:{number}: no loaded plugin registers op {match[1]!r}; remove the line if the op is gone",
                PluginWarning,
                stacklevel=2,
            )
        elif not CHECKS[match[2]].applies(spec):
            raise ConformanceFailure(
                f"{path}:{number}: check {match[2]!r} does not apply to {match[1]!r} (its spec does not declare "
                f"what the check tests), so it cannot fail; remove the line"
            )
        elif spec.plugin == plugin:
            listed[(spec.name, match[2])] = match[3]
    return listed


def failures_by_plugin(
    registry: Registry, chosen: Iterable[tuple[OpSpec, Check]]
) -> dict[str, dict[tuple[str, str], str]]:
    """:func:`expected_failures` of each plugin among the ``chosen`` (op, check) pairs, read once."""
    return {name: expected_failures(registry, name) for name in {spec.plugin for spec, _ in chosen}}


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


def _suite_runtime(rt: EagerRuntime | None, call: str) -> EagerRuntime:
    """``rt``, or the conformance runtime; a runtime the checks cannot run ops on is refused
    before any check fails for it."""
    if rt is None:
        return conformance_runtime()
    if not isinstance(rt, EagerRuntime) or rt.engine is None:
        raise ArgumentError(
            f"{call}: rt must be an EagerRuntime with a default engine (the checks run ops without naming one), "
            f"e.g. conformance_runtime(plugins=[mymath]) or EagerRuntime(engine=CpuEngine.serial(), plugins=[mymath])"
        )
    return rt


def _registered(spec: OpSpec | str, rt: EagerRuntime) -> OpSpec:
    """The spec to check: ``spec`` with its plugin's name as registered (reports and
    expected failures use it), or the registered spec of an op name. The checks call the op
    by name, so the runtime must hold an op of that name; an ArgumentError says so."""
    name = spec if isinstance(spec, str) else spec.name if isinstance(spec, OpSpec) else None
    if name is None:
        raise ArgumentError(f"check_op: give an OpSpec or an op name, got {type(spec).__name__}")
    registered = rt.registry[name] if name in rt.registry else None
    if registered is None:
        raise ArgumentError(
            f"check_op: the runtime holds no op {name!r}: the checks call the op by name, so its plugin must be "
            f"loaded; pass rt=conformance_runtime(plugins=[your_module]), or check_plugin(name) for an installed one"
        )
    return registered if isinstance(spec, str) else dataclasses.replace(spec, plugin=registered.plugin)


def check_op(
    spec: OpSpec | str,
    rt: EagerRuntime | None = None,
    checks: Iterable[str] | None = None,
    max_examples: int | None = None,
) -> list[Outcome]:
    """Run every applicable check (or the named ``checks``) on one op (an OpSpec, whose
    fields the checks read, or an op's name); return the outcomes (skipped ones included),
    or raise ConformanceFailure listing the failures. ``rt`` must hold the op and have a
    default engine (default: :func:`conformance_runtime`, every installed plugin)."""
    rt = _suite_runtime(rt, "check_op")
    spec = _registered(spec, rt)
    names = list(CHECKS) if checks is None else list(checks)  # (a generator is read once)
    unknown = [name for name in names if name not in CHECKS]
    if unknown:
        shown = ", ".join(map(repr, unknown))
        raise ArgumentError(f"check_op: no check named {shown}; the checks are {', '.join(CHECKS)}")
    chosen = [CHECKS[name] for name in names]
    listed = expected_failures(rt.registry, spec.plugin)
    hs = current_settings(max_examples)
    outcomes = [
        _outcome(rt, spec, check, listed.get((spec.name, check.name)), hs) for check in chosen if check.applies(spec)
    ]
    return _raise_failed(outcomes)


def check_plugin(name: str, rt: EagerRuntime | None = None, max_examples: int | None = None) -> list[Outcome]:
    """Run every check on every op of plugin ``name`` (``all`` for every plugin); ``rt`` as
    for :func:`check_op`."""
    rt = _suite_runtime(rt, "check_plugin")
    hs = current_settings(max_examples)
    chosen = list(selected(rt.registry, [name]))
    listed = failures_by_plugin(rt.registry, chosen)
    outcomes = [
        _outcome(rt, spec, check, listed[spec.plugin].get((spec.name, check.name)), hs) for spec, check in chosen
    ]
    return _raise_failed(outcomes)
