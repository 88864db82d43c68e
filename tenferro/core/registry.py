"""The registry: op name -> :class:`~tenferro.core.spec.OpSpec`, which plugin gave each, and
which plugins were left out and why.

Plugins state their ops to a :class:`PluginRegistrar` (what their ``tenferro_register_ops``
hook receives); ``loading.py`` builds a registry from the installed plugins.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import PluginError, UnknownOp
from .spec import REQUIRED, ErrorInput, Kink, OpSpec, SampleInput, validate

__all__ = ["REQUIRED", "ErrorInput", "Kink", "OpSpec", "PluginInfo", "PluginRegistrar", "Registry", "SampleInput"]

#: Environment variable: comma-separated plugin names that are not loaded.
BLOCK_ENV = "TENFERRO_BLOCK_PLUGINS"


@dataclass
class PluginInfo:
    """A plugin: its name, the distribution that ships it, its ops, and the plugin object
    itself (a module, or an instance with hook methods). ``problem`` says, after the name,
    why a broken plugin was left out (``failed to import: ...``)."""

    name: str
    distribution: str = ""
    version: str = ""
    ops: list[str] = field(default_factory=list)
    requires: tuple[str, ...] = ()
    plugin: Any = None
    problem: str = ""

    @property
    def shipped(self) -> str:
        """``tenferro 0.1.0``, or empty for a plugin object passed in directly."""
        return f"{self.distribution} {self.version}".strip()

    @property
    def sentence(self) -> str:
        """``plugin 'x' (dist 1.0) failed to import: ...``: the problem, on one line."""
        shipped = f" ({self.shipped})" if self.shipped else ""
        return f"plugin {self.name!r}{shipped} {self.problem}"


class Registry:
    """Op name -> :class:`OpSpec`, plus which plugin supplied each (``plugins``) and the
    plugins left out, each with its problem (``broken``)."""

    def __init__(self) -> None:
        self._specs: dict[str, OpSpec] = {}
        self.plugins: dict[str, PluginInfo] = {}
        self.broken: dict[str, PluginInfo] = {}

    def add(self, spec: OpSpec, plugin: str) -> None:
        """Register ``spec`` for ``plugin``; a name already taken is a PluginError."""
        validate(spec, plugin)
        owner = self._specs.get(spec.name)
        if owner is not None:
            raise PluginError(
                f"op {spec.name!r} is registered by both plugin {owner.plugin!r} and plugin "
                f"{plugin!r}; rename one of them, or block a plugin with {BLOCK_ENV}={plugin}"
            )
        self._specs[spec.name] = dataclasses.replace(spec, plugin=plugin)
        self.plugins.setdefault(plugin, PluginInfo(plugin)).ops.append(spec.name)

    def __getitem__(self, name: str) -> OpSpec:
        try:
            return self._specs[name]
        except KeyError:
            raise self.unknown(name) from None

    def unknown(self, name: str) -> UnknownOp:
        """The error for an op name nobody registered, with the closest names as a hint."""
        close = difflib.get_close_matches(name, self._specs, n=3)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        return UnknownOp(f"no op named {name!r} is registered{hint} (`tenferro ops` lists every op)")

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[OpSpec]:
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    def of_plugin(self, plugin: str) -> list[OpSpec]:
        """The specs one plugin registered, in registration order."""
        return [self._specs[name] for name in self.plugins[plugin].ops] if plugin in self.plugins else []


class PluginRegistrar:
    """What a plugin's ``tenferro_register_ops`` hook receives. It checks each spec as it is
    added, naming the plugin, and holds the plugin's ops and the plugins it requires until
    every plugin has registered: a plugin that fails part-way, or is left out, adds none."""

    def __init__(self, plugin: str):
        self.plugin = plugin
        self.specs: list[OpSpec] = []
        self.required: list[str] = []

    def add(self, spec: OpSpec) -> None:
        """Add one op of this plugin."""
        validate(spec, self.plugin)
        if any(mine.name == spec.name for mine in self.specs):
            raise PluginError(f"plugin {self.plugin!r} added op {spec.name!r} twice")
        self.specs.append(spec)

    def requires(self, *plugins: str) -> None:
        """Declare the plugins whose ops this plugin's kernels or rules call (``reduce``'s
        VJPs use ``elementwise``'s ``mul`` and ``div``; ``tenferro.extend.broadcasting``
        uses ``elementwise`` too). Without one of them this plugin is left out when the
        registry is built, with a warning naming both, instead of failing with a
        RuleError in the middle of a backward pass."""
        for name in plugins:
            if not isinstance(name, str):
                raise PluginError(f"plugin {self.plugin!r}: requires() takes plugin names, got {name!r}")
            self.required.append(name)
