"""The pytest plugin (entry point ``pytest11``): conformance test items on request.

Inert unless ``--tenferro-conformance`` is given; it imports nothing heavy until then, so
it never gets in the way of a project that merely has tenferro installed.

    pytest --tenferro-conformance=mymath            # or a,b or all
    pytest --tenferro-conformance=mymath --tenferro-load=mymath.ops   # not installed yet
    pytest --tenferro-conformance=all --tenferro-max-examples=200 --tenferro-profile=nightly
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tenferro", "tenferro op-plugin conformance")
    group.addoption(
        "--tenferro-conformance",
        metavar="PLUGINS",
        help="run the conformance checks on these plugins (comma-separated, or 'all')",
    )
    group.addoption(
        "--tenferro-load",
        action="append",
        default=[],
        metavar="[NAME=]MODULE[:ATTR]",
        help="also load this plugin object, not installed through an entry point (repeatable)",
    )
    group.addoption("--tenferro-max-examples", type=int, metavar="N", help="hypothesis examples per check")
    group.addoption(
        "--tenferro-profile",
        choices=["dev", "ci", "thorough", "nightly"],
        help="hypothesis profile (default: $TENFERRO_HYPOTHESIS_PROFILE, else ci when $CI is set, else dev)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("tenferro_conformance"):
        from .profiles import PROFILE_ENV, load_default_profile

        profile = config.getoption("tenferro_profile")
        if profile:
            os.environ[PROFILE_ENV] = profile
        if not config.getoption("hypothesis_profile", None):
            load_default_profile()


def load_plugin_object(text: str) -> tuple[str, Any]:
    """``[NAME=]MODULE[:ATTR]`` -> (name, plugin); the name defaults to the last part of
    the module path (or ATTR)."""
    name, _, target = text.rpartition("=")
    module_name, _, attr = target.partition(":")
    plugin: Any = importlib.import_module(module_name)
    if attr:
        plugin = getattr(plugin, attr)
    return name or attr or module_name.rpartition(".")[2], plugin


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = config.getoption("tenferro_conformance")
    if not wanted:
        return
    from tenferro.core.errors import TenferroError

    from .conformance import ConformanceFailure, conformance_runtime, current_settings, failures_by_plugin, selected

    try:  # a plugin that is not there or does not load is a usage error, not a pytest traceback
        rt = conformance_runtime(load_plugin_object(text) for text in config.getoption("tenferro_load"))
        plugins = [name.strip() for name in wanted.split(",") if name.strip()]
        chosen = list(selected(rt.registry, plugins))
        listed = failures_by_plugin(rt.registry, chosen)
    except (TenferroError, ConformanceFailure, ImportError) as exc:
        raise pytest.UsageError(f"tenferro conformance: {exc}") from None
    hypothesis_settings = current_settings(config.getoption("tenferro_max_examples"))
    for spec, check in chosen:
        reason = listed[spec.plugin].get((spec.name, check.name))
        items.append(
            ConformanceItem.from_parent(
                session,
                name=f"{spec.plugin}::{spec.name}::{check.name}",
                nodeid=f"{spec.plugin}::{spec.name}::{check.name}",
                rt=rt,
                spec=spec,
                check=check,
                reason=reason,
                hypothesis_settings=hypothesis_settings,
                loaded=config.getoption("tenferro_load"),
            )
        )


class ConformanceItem(pytest.Item):
    """One conformance check on one op."""

    def __init__(
        self,
        *,
        rt: Any,
        spec: Any,
        check: Any,
        reason: str | None,
        hypothesis_settings: Any,
        loaded: Any,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.rt, self.spec, self.check, self.hypothesis_settings = rt, spec, check, hypothesis_settings
        self.loaded = loaded
        missing = check.skip_reason(spec)
        if missing is not None:  # shown with -rs, as `tenferro check` does
            self.add_marker(pytest.mark.skip(reason=missing))
        elif reason is not None:
            from .conformance import ConformanceFailure

            self.add_marker(pytest.mark.xfail(reason=reason, strict=True, raises=ConformanceFailure))

    def runtest(self) -> None:
        from .conformance import run_check

        run_check(self.rt, self.spec, self.check, self.hypothesis_settings, self.loaded)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from .conformance import ConformanceFailure

        if isinstance(excinfo.value, ConformanceFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, 0, self.name  # a line number: a skip marker reports the item's location
