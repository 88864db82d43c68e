"""Building a registry from plugins, with pluggy: the installed ``tenferro`` entry points
plus any plugin objects passed in, blocked names left out, each plugin's hook called once.

Loading is fail-safe: a plugin that fails to import or to register (a misspelled hook, no
hook at all, a hook that raises, a bad spec, a plugin it requires missing) is left out
with a :class:`~tenferro.core.errors.PluginWarning` that names it and says how to block
it, and is kept in ``Registry.broken`` with its problem; every other plugin loads. Strict
loading (``strict=True``, or ``TENFERRO_STRICT_PLUGINS=1``) makes each of those a
:class:`~tenferro.core.errors.PluginError`.

An op name two plugins add is no failure: both ops load, the short name goes by
:func:`_precedence` and the other op keeps its qualified name (``s.op("specialx.softmax")``),
with one :class:`~tenferro.core.errors.OpNameClash` warning per pair of plugins, strict or
not; an upgrade of tenferro whose family takes a plugin's op name leaves the plugin working.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import os
import sys
import threading
import warnings
from collections.abc import Iterable
from typing import Any

import pluggy

from . import hookspecs
from .accumulate import ADD_ANY
from .alias import ALIAS
from .errors import ArgumentError, OpNameClash, PluginError, PluginWarning
from .registry import BLOCK_ENV, PluginInfo, PluginRegistrar, Registry

#: Environment variable: set to 1 to make a plugin that fails to load an error.
STRICT_ENV = "TENFERRO_STRICT_PLUGINS"
#: The hook that registers a plugin's ops.
HOOK = "tenferro_register_ops"


def load_registry(
    plugins: Iterable[Any] = (),
    *,
    entry_points: bool = True,
    blocked: Iterable[str] | None = None,
    strict: bool | None = None,
) -> Registry:
    """Build a registry from the installed ``tenferro`` entry points (unless
    ``entry_points=False``) and the given plugin objects (modules or instances with
    ``@hookimpl`` functions, named by the last part of the module name or by the class
    name, or ``(name, plugin)`` pairs).

    ``blocked`` names plugins to skip; by default it is read from ``TENFERRO_BLOCK_PLUGINS``.
    ``strict`` makes a plugin that fails to load a PluginError instead of a warning; by
    default it is read from ``TENFERRO_STRICT_PLUGINS``.
    """
    if blocked is None:
        blocked = [b.strip() for b in os.environ.get(BLOCK_ENV, "").split(",") if b.strip()]
    loading = _Loading(set(blocked), _strict(strict))
    if entry_points:
        loading.load_entry_points()
    for entry in plugins:
        loading.register(*_named(entry))
    loading.add_ops(loading.call_hooks())
    return loading.registry


def _strict(strict: bool | None) -> bool:
    return os.environ.get(STRICT_ENV, "") not in ("", "0") if strict is None else strict


def _named(entry: Any) -> tuple[str, Any]:
    # a module by the last part of its name, as `tenferro check --load` names it: then
    # plugins=[tenferro.plugins.reduce] is "reduce", and its requires() are met as installed
    default = getattr(entry, "__name__", type(entry).__name__).rpartition(".")[2]
    name, plugin = entry if isinstance(entry, tuple) else (default, entry)
    if plugin is None or isinstance(plugin, (str, bytes, int, float)) or not isinstance(name, str):
        hint = "; import the module first (importlib.import_module)" if isinstance(plugin, str) else ""
        raise ArgumentError(
            f"plugins: each entry must be a plugin module or object with @hookimpl functions, or a "
            f"(name, plugin) pair; got {entry!r}{hint}"
        )
    return name, plugin


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _precedence(info: PluginInfo) -> tuple[bool, str]:
    """The order plugins register in, and so who keeps the short name of an op two plugins
    add: tenferro's own plugins first (so the rules of its families, which call ops by
    short name, always get its own ops), then the others by name (not by ``sys.path``
    order)."""
    return info.distribution != "tenferro", info.name


def _clash(info: PluginInfo, holder: PluginInfo, ops: list[str]) -> OpNameClash:
    """The warning for ``info``'s ``ops``, whose short names ``holder`` keeps."""
    listed = f"op {ops[0]!r}" if len(ops) == 1 else f"ops {', '.join(map(repr, ops[:-1]))} and {ops[-1]!r}"
    short = " and ".join(f"s.{op}" for op in ops) + (" stays" if len(ops) == 1 else " stay")
    why = (
        "tenferro's own plugins keep their op names"
        if holder.distribution == "tenferro"
        else "the first plugin by name keeps an op name"
    )
    qualified = " and ".join(f"s.op('{info.name}.{op}')" for op in ops)
    return OpNameClash(
        f"{info.described} adds {listed}, which {holder.described} has too: {short} {holder.name}'s ({why}); "
        f"{info.name}'s loaded all the same, as {qualified}. "
        f"warnings.filterwarnings('ignore', category=tenferro.OpNameClash) silences this",
        plugin=info.name,
        holder=holder.name,
        ops=tuple(ops),
    )


class _Loading:
    """One registry being built: the plugin manager, the plugins registered with it so
    far, and what happens to a plugin that fails (left out with a warning, or an error)."""

    def __init__(self, blocked: set[str], strict: bool):
        self.blocked, self.strict = blocked, strict
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        for name in sorted(blocked):
            self.pm.set_blocked(name)
        self.registry = Registry()
        self.registry.add(ADD_ANY, "core")  # the core's own ops: cotangent accumulation,
        self.registry.add(ALIAS, "core")  # and a transform's fresh vertex
        core = self.registry.plugins["core"]
        core.distribution = "tenferro"
        try:
            core.version = importlib.metadata.version("tenferro")
        except importlib.metadata.PackageNotFoundError:
            core.version = "(source checkout)"
        self.plugins: dict[str, PluginInfo] = {}  # registered with pluggy and not failed

    def fail(self, info: PluginInfo, problem: str, cause: BaseException | None = None) -> None:
        """Leave ``info`` out: a PluginWarning and an entry in ``broken``, or, strict, an error."""
        info.problem = problem
        if self.plugins.get(info.name) is info:
            del self.plugins[info.name]
        if self.strict:
            raise PluginError(
                f"{info.sentence} (loading is strict: fix or uninstall it, or block it with {BLOCK_ENV}={info.name})"
            ) from cause
        self.registry.broken[info.name] = info
        block = ",".join([*sorted(self.blocked), info.name])
        warnings.warn(
            f"{info.sentence}; tenferro goes on without it ({BLOCK_ENV}={block} skips it without this warning)",
            PluginWarning,
            stacklevel=_outside_tenferro(),
        )

    def load_entry_points(self) -> None:
        """pluggy loads each name of the entry-point group on its own, so one that fails to
        import leaves the others loading; blocked names it skips."""
        first: dict[str, PluginInfo] = {}  # name -> the plugin pluggy loads (or fails to) by that name
        for ep in importlib.metadata.entry_points(group=hookspecs.PROJECT):
            if self.pm.is_blocked(ep.name):
                continue
            dist = ep.dist
            info = PluginInfo(ep.name, dist.name if dist else "", dist.version if dist else "")
            if ep.name in first:
                self.fail(info, f"is not loaded: {first[ep.name].shipped} has a plugin named {ep.name!r} too")
                continue
            first[ep.name] = info
            try:
                self.pm.load_setuptools_entrypoints(hookspecs.PROJECT, name=ep.name)
            except pluggy.PluginValidationError as exc:
                self.fail(info, f"cannot be registered: {_one_line(exc)}", exc)
                continue
            except Exception as exc:
                self.fail(info, f"failed to import (entry point {ep.value!r}): {_one_line(exc)}", exc)
                continue
            info.plugin = self.pm.get_plugin(ep.name)
            if info.plugin is None:
                self.fail(info, f"is not loaded: entry point {ep.value!r} gives None")
                continue
            self.check_hooks(info)

    def register(self, name: str, plugin: Any) -> None:
        """A plugin object passed in directly."""
        if self.pm.is_blocked(name):
            return
        info = PluginInfo(name, plugin=plugin)
        if self.pm.is_registered(plugin):  # an installed plugin passed again (`tenferro check --load`)
            known = self.pm.get_name(plugin)
            if known != name:  # under another name, which would name no loaded plugin
                self.fail(info, f"is not loaded: its module is loaded already, as plugin {known!r}; use that name")
            return
        if self.pm.has_plugin(name):
            self.fail(info, f"is not loaded: another plugin is named {name!r}; pass it as a (name, plugin) pair")
            return
        try:
            self.pm.register(plugin, name=name)
        except Exception as exc:  # pluggy: a hook with parameters the hookspec lacks, a plugin registered twice
            self.fail(info, f"cannot be registered: {_one_line(exc)}", exc)
            return
        self.check_hooks(info)

    def check_hooks(self, info: PluginInfo) -> None:
        """pluggy's ``check_pending()`` after each plugin, so a misspelled hook is a failure
        of the plugin that has it; a plugin with no hook at all would add no ops without a
        word, so that is one too."""
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            callers = self.pm.get_hookcallers(info.plugin) or []
            unknown = [caller.name for caller in callers if not caller.has_spec()]
            self.pm.unregister(name=info.name)
            known = [name for name, caller in vars(self.pm.hook).items() if caller.has_spec()]
            close = difflib.get_close_matches(unknown[0], known, n=1) if unknown else []
            hint = f"; did you mean {close[0]!r}?" if close else ""
            self.fail(info, f"defines hook {', '.join(map(repr, unknown))}, which tenferro does not have{hint}", exc)
            return
        if not self.pm.get_hookcallers(info.plugin):
            self.pm.unregister(name=info.name)
            unmarked = callable(getattr(info.plugin, HOOK, None))
            hint = f"its {HOOK} is not marked @hookimpl" if unmarked else f"define @hookimpl {HOOK}(registrar)"
            self.fail(info, f"has no @hookimpl function, so it would add no ops ({hint})")
            return
        self.plugins[info.name] = info

    def call_hooks(self) -> list[tuple[PluginInfo, PluginRegistrar]]:
        """Each plugin's hook through pluggy, one plugin at a time (a subset caller without
        every other plugin), in order of precedence: a hook that raises costs only its
        own plugin."""
        registered: list[tuple[PluginInfo, PluginRegistrar]] = []
        for info in sorted(self.plugins.values(), key=_precedence):
            others = [plugin for name, plugin in self.pm.list_name_plugin() if name != info.name]
            registrar = PluginRegistrar(info.name)
            try:
                self.pm.subset_hook_caller(HOOK, remove_plugins=others)(registrar=registrar, registry=registrar)
            except Exception as exc:
                prefix = f"plugin {info.name!r} "  # a PluginError from registrar.add names the plugin already
                said = " ".join(str(exc).split())
                problem = said[len(prefix) :] if isinstance(exc, PluginError) and said.startswith(prefix) else None
                self.fail(info, problem or f"failed while registering its ops: {_one_line(exc)}", exc)
                continue
            registered.append((info, registrar))
        return registered

    def add_ops(self, registered: list[tuple[PluginInfo, PluginRegistrar]]) -> None:
        """Add each plugin's ops, in order of precedence, leaving out a plugin that lacks a
        plugin it requires. Leaving one out may leave another without a plugin it requires:
        so again, until every plugin left is complete. An op whose short name an earlier
        plugin holds is added under its qualified name, with an OpNameClash warning."""
        while True:
            present = set(self.registry.plugins) | {info.name for info, _ in registered}
            for index, (info, registrar) in enumerate(registered):
                problem = self._incomplete(registrar, present)
                if problem:
                    del registered[index]
                    self.fail(info, problem)
                    break
            else:
                break
        clashes: dict[tuple[str, str], list[str]] = {}  # (plugin, holder of the short names) -> ops
        for info, registrar in registered:
            info.requires = tuple(dict.fromkeys(registrar.required))
            self.registry.plugins[info.name] = info
            for spec in registrar.specs:
                if self.registry.add(spec, info.name).name != spec.name:
                    clashes.setdefault((info.name, self.registry[spec.name].plugin), []).append(spec.name)
        for (plugin, holder), ops in clashes.items():
            clash = _clash(self.registry.plugins[plugin], self.registry.plugins[holder], ops)
            warnings.warn(clash, stacklevel=_outside_tenferro())

    def _incomplete(self, registrar: PluginRegistrar, present: set[str]) -> str:
        """Why a plugin cannot be added (after its name), or empty."""
        for name in registrar.required:
            if name not in present:
                return f"requires plugin {name!r}, which {self._missing(name)}"
        return ""

    def _missing(self, name: str) -> str:
        if self.pm.is_blocked(name):
            return "is blocked"
        return "failed to load" if name in self.registry.broken else "is not installed"


_DEFAULT: list[Registry] = []
_DEFAULT_LOCK = threading.Lock()


def default_registry(strict: bool | None = None) -> Registry:
    """The registry of every installed plugin, built once per process (also when several
    threads ask for it first at the same time). Strict (``strict=True`` or
    ``TENFERRO_STRICT_PLUGINS=1``), a plugin that failed to load is a PluginError."""
    if not _DEFAULT:
        with _DEFAULT_LOCK:
            if not _DEFAULT:
                _DEFAULT.append(load_registry(strict=strict))
    registry = _DEFAULT[0]
    if registry.broken and _strict(strict):
        problems = "; ".join(info.sentence for info in registry.broken.values())
        raise PluginError(f"{problems} (loading is strict: fix or uninstall, or block with {BLOCK_ENV})")
    return registry


def _outside_tenferro() -> int:
    """The stacklevel of the first caller outside tenferro (and pluggy), so that a warning
    points at the user's line that built the registry (``EagerRuntime()``), not at ours."""
    frame, level = sys._getframe(2), 2  # the frame that called warnings.warn's caller
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] in ("tenferro", "pluggy"):
        frame, level = frame.f_back, level + 1
    return level
