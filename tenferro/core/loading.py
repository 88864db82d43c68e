"""Building a registry from plugins, with pluggy: the installed ``tenferro`` entry points
plus any plugin objects passed in, each plugin's ``tenferro_register_ops`` hook called once.
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import pluggy

from . import hookspecs
from .accumulate import ADD_ANY
from .errors import ArgumentError, PluginError, TenferroError
from .registry import BLOCK_ENV, PluginInfo, PluginRegistrar, Registry


def _entry_point_plugins(blocked: set[str]) -> Iterator[tuple[str, Any, str, str]]:
    for ep in importlib.metadata.entry_points(group=hookspecs.PROJECT):
        if ep.name in blocked:
            continue
        dist = ep.dist
        try:
            plugin = ep.load()
        except Exception as exc:
            raise PluginError(
                f"plugin {ep.name!r} (entry point {ep.value!r} of distribution "
                f"{dist.name if dist else '?'}) failed to import: {exc!r}; fix or uninstall it, "
                f"or block it with {BLOCK_ENV}={ep.name}"
            ) from exc
        yield ep.name, plugin, dist.name if dist else "", dist.version if dist else ""


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
    blocked = set(blocked)
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    registry = Registry()
    registry.add(ADD_ANY, "core")  # the core's own op: cotangent accumulation
    core = registry.plugins["core"]
    core.distribution = "tenferro"
    try:
        core.version = importlib.metadata.version("tenferro")
    except importlib.metadata.PackageNotFoundError:
        core.version = "(source checkout)"
    found = list(_entry_point_plugins(blocked)) if entry_points else []
    for entry in plugins:
        name, plugin = entry if isinstance(entry, tuple) else (getattr(entry, "__name__", type(entry).__name__), entry)
        if plugin is None or isinstance(plugin, (str, bytes, int, float)) or not isinstance(name, str):
            hint = "; import the module first (importlib.import_module)" if isinstance(plugin, str) else ""
            raise ArgumentError(
                f"plugins: each entry must be a plugin module or object with @hookimpl functions, or a "
                f"(name, plugin) pair; got {entry!r}{hint}"
            )
        if name not in blocked:
            found.append((name, plugin, "", ""))
    for name, plugin, dist, version in found:
        if pm.get_plugin(name) is not None:
            raise PluginError(f"two plugins are named {name!r}; plugin names must be unique")
        try:
            pm.register(plugin, name=name)
        except Exception as exc:
            raise PluginError(f"plugin {name!r} could not be registered: {exc}") from exc
        registry.plugins[name] = PluginInfo(name, dist, version, plugin=plugin)
    for impl in pm.hook.tenferro_register_ops.get_hookimpls():
        try:
            impl.function(registry=PluginRegistrar(registry, impl.plugin_name))
        except TenferroError:
            raise
        except Exception as exc:
            raise PluginError(f"plugin {impl.plugin_name!r} failed while registering its ops: {exc!r}") from exc
    return registry


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
