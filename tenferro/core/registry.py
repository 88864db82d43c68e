"""The registry: op name -> :class:`~tenferro.core.spec.OpSpec`, which plugin gave each, and
which plugins were left out and why.

Every op has a qualified name, ``plugin.op`` (``nn.softmax``). Its short name (``softmax``)
is the first plugin's to add it; an op whose short name another plugin holds is registered
under its qualified name (its spec's ``name`` is ``specialx.softmax``), so that a session
method, error messages and the conformance checks all call it by that.

Plugins state their ops to a :class:`PluginRegistrar` (what their ``tenferro_register_ops``
hook receives); ``loading.py`` builds a registry from the installed plugins.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import PluginError, UnknownOp
from .spec import REQUIRED, ErrorInput, Kink, OpSpec, SampleInput, validate

__all__ = [
    "REQUIRED",
    "ErrorInput",
    "Kink",
    "OpSpec",
    "PluginInfo",
    "PluginRegistrar",
    "Registry",
    "SampleInput",
    "short_name",
]

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
    def described(self) -> str:
        """``plugin 'x' (dist 1.0)``, or ``plugin 'x'`` for a plugin object passed in directly."""
        return f"plugin {self.name!r} ({self.shipped})" if self.shipped else f"plugin {self.name!r}"

    @property
    def sentence(self) -> str:
        """``plugin 'x' (dist 1.0) failed to import: ...``: the problem, on one line."""
        return f"{self.described} {self.problem}"


def short_name(spec: OpSpec) -> str:
    """``softmax``, for an op registered as ``softmax`` or as ``specialx.softmax``."""
    return spec.name.rpartition(".")[2]


class Registry:
    """Op name -> :class:`OpSpec`, plus which plugin supplied each (``plugins``) and the
    plugins left out, each with its problem (``broken``). A name is an op's short name or
    its qualified name, ``plugin.op``."""

    def __init__(self) -> None:
        self._specs: dict[str, OpSpec] = {}  # by the name a session calls it (its spec's name)
        self._qualified: dict[str, OpSpec] = {}  # every op by plugin.op
        self.plugins: dict[str, PluginInfo] = {}
        self.broken: dict[str, PluginInfo] = {}
        self._watchers: list[Callable[[Registry, OpSpec], None]] = []

    def watch(self, callback: Callable[[Registry, OpSpec], None]) -> None:
        """Call ``callback(registry, spec)`` for every op added from now on, before the
        registry holds it: the session class of this registry installs the op's method, so
        an op added after a runtime was made is callable at once (or, where installing
        fails, not registered at all)."""
        self._watchers.append(callback)

    def add(self, spec: OpSpec, plugin: str) -> OpSpec:
        """Register ``spec`` for ``plugin`` and return it as registered: under its short
        name, or, when another plugin holds that (the first to add a name keeps it), under
        its qualified name. The same op twice from one plugin is a PluginError."""
        validate(spec, plugin)
        qualified = f"{plugin}.{spec.name}"
        if qualified in self._qualified:
            raise PluginError(f"plugin {plugin!r} added op {spec.name!r} twice")
        if spec.name in self._specs:
            # a linear op's derived jvp calls the op by name: derive it again, for the new name
            derived = getattr(spec.jvp, "derived_for", None) == spec.name
            registered = dataclasses.replace(spec, name=qualified, plugin=plugin, jvp=None if derived else spec.jvp)
        else:
            registered = dataclasses.replace(spec, plugin=plugin)
        for watcher in self._watchers:
            watcher(self, registered)
        self._specs[registered.name] = self._qualified[qualified] = registered
        self.plugins.setdefault(plugin, PluginInfo(plugin)).ops.append(registered.name)
        return registered

    def __getitem__(self, name: str) -> OpSpec:
        spec = self._specs.get(name)
        if spec is None:
            spec = self._qualified.get(name)
        if spec is None:
            raise self.unknown(name)
        return spec

    def unknown(self, name: str) -> UnknownOp:
        """The error for an op name nobody registered, with the closest names as a hint."""
        close = difflib.get_close_matches(name, self._qualified if "." in name else self._specs, n=3)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        return UnknownOp(f"no op named {name!r} is registered{hint} (`tenferro ops` lists every op)")

    def __contains__(self, name: object) -> bool:
        return name in self._specs or name in self._qualified

    def __iter__(self) -> Iterator[OpSpec]:
        """Every op once, as registered."""
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
