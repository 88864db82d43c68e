"""Building a registry from plugins, with pluggy: the installed ``tenferro`` entry points
plus any plugin objects passed in, each plugin's ``tenferro_register_ops`` hook called once.
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
from collections.abc import Iterable
from typing import Any

import pluggy

from . import hookspecs
from .accumulate import ADD_ANY
from .errors import ArgumentError, PluginError, TenferroError
from .registry import BLOCK_ENV, PluginInfo, PluginRegistrar, Registry

#: The hook that registers a plugin's ops.
HOOK = "tenferro_register_ops"


def load_registry(
    plugins: Iterable[Any] = (),
    *,
    entry_points: bool = True,
    blocked: Iterable[str] | None = None,
) -> Registry:
    """Build a registry from the installed ``tenferro`` entry points (unless
    ``entry_points=False``) and the given plugin objects (modules or instances with
    ``@hookimpl`` functions, named by their ``__name__`` or class name, or ``(name,
    plugin)`` pairs).

    ``blocked`` names plugins to skip; by default it is read from ``TENFERRO_BLOCK_PLUGINS``.
    """
    if blocked is None:
        blocked = [b.strip() for b in os.environ.get(BLOCK_ENV, "").split(",") if b.strip()]
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name in blocked:
        pm.set_blocked(name)
    registry = Registry()
    registry.add(ADD_ANY, "core")  # the core's own op: cotangent accumulation
    core = registry.plugins["core"]
    core.distribution = "tenferro"
    try:
        core.version = importlib.metadata.version("tenferro")
    except importlib.metadata.PackageNotFoundError:
        core.version = "(source checkout)"
    infos = _load_entry_points(pm) if entry_points else []
    infos += [_register(pm, *_named(entry)) for entry in plugins]
    for info in infos:
        if info is None:
            continue
        registry.plugins[info.name] = info
        # this plugin's hook alone, through pluggy: its ops are attributed to it
        others = [plugin for name, plugin in pm.list_name_plugin() if name != info.name]
        registrar = PluginRegistrar(registry, info.name)
        try:
            pm.subset_hook_caller(HOOK, remove_plugins=others)(registrar=registrar, registry=registrar)
        except TenferroError:
            raise
        except Exception as exc:
            raise PluginError(f"plugin {info.name!r} failed while registering its ops: {exc!r}") from exc
    return registry


def _load_entry_points(pm: pluggy.PluginManager) -> list[PluginInfo | None]:
    """pluggy loads each entry point of the group on its own; blocked ones it skips."""
    infos: list[PluginInfo | None] = []
    for ep in importlib.metadata.entry_points(group=hookspecs.PROJECT):
        if pm.is_blocked(ep.name):
            continue
        if pm.has_plugin(ep.name):
            raise PluginError(f"two plugins are named {ep.name!r}; plugin names must be unique")
        try:
            pm.load_setuptools_entrypoints(hookspecs.PROJECT, name=ep.name)
        except Exception as exc:
            dist = ep.dist.name if ep.dist else "?"
            raise PluginError(
                f"plugin {ep.name!r} (entry point {ep.value!r} of distribution {dist}) failed to import: "
                f"{exc!r}; fix or uninstall it, or block it with {BLOCK_ENV}={ep.name}"
            ) from exc
        plugin = pm.get_plugin(ep.name)
        dist = next(d for p, d in pm.list_plugin_distinfo() if p is plugin)
        infos.append(PluginInfo(ep.name, dist.project_name, dist.version, plugin=plugin))
    return infos


def _named(entry: Any) -> tuple[str, Any]:
    name, plugin = entry if isinstance(entry, tuple) else (getattr(entry, "__name__", type(entry).__name__), entry)
    if plugin is None or isinstance(plugin, (str, bytes, int, float)) or not isinstance(name, str):
        hint = "; import the module first (importlib.import_module)" if isinstance(plugin, str) else ""
        raise ArgumentError(
            f"plugins: each entry must be a plugin module or object with @hookimpl functions, or a "
            f"(name, plugin) pair; got {entry!r}{hint}"
        )
    return name, plugin


def _register(pm: pluggy.PluginManager, name: str, plugin: Any) -> PluginInfo | None:
    if pm.is_blocked(name):
        return None
    if pm.has_plugin(name):
        raise PluginError(f"two plugins are named {name!r}; plugin names must be unique")
    try:
        pm.register(plugin, name=name)
    except Exception as exc:
        raise PluginError(f"plugin {name!r} could not be registered: {exc}") from exc
    return PluginInfo(name, plugin=plugin)


_DEFAULT: list[Registry] = []
_DEFAULT_LOCK = threading.Lock()


def default_registry() -> Registry:
    """The registry of every installed plugin, built once per process (also when several
    threads ask for it first at the same time)."""
    if not _DEFAULT:
        with _DEFAULT_LOCK:
            if not _DEFAULT:
                _DEFAULT.append(load_registry())
    return _DEFAULT[0]
