"""The hooks a tenferro plugin implements (pluggy project name ``tenferro``), declared the
way pytest declares its own: one function per hook, its docstring the contract.

A plugin is any module or object with functions marked ``@hookimpl``. Built-in op families
and third-party packages are found the same way: through the ``tenferro`` entry-point group
in the distribution's metadata, e.g. in ``pyproject.toml``::

    [project.entry-points.tenferro]
    mymath = "mymath.ops"

pluggy is used only to find and load plugins when a registry is built; calling an op is a
plain dict/attribute lookup and never goes through a hook.
"""

from __future__ import annotations

import pluggy

from .registry import PluginRegistrar

PROJECT = "tenferro"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def tenferro_register_ops(registrar: PluginRegistrar, registry: PluginRegistrar) -> None:
    """Register this plugin's ops: ``registrar.add(OpSpec(...))`` once per op, and
    ``registrar.requires("name", ...)`` for the plugins whose ops this plugin's kernels or
    rules call (``reduce`` requires ``elementwise``).

    Called once per plugin each time a registry is built (usually once per process). The
    ops are added when every plugin has registered; if this hook raises, adds an op name
    an earlier plugin has (tenferro's own plugins come first, then the others by name), or
    requires a plugin that is not loaded, this plugin is left out with a
    :class:`~tenferro.core.errors.PluginWarning` (a
    :class:`~tenferro.core.errors.PluginError` when loading is strict). Do no heavy work
    here: import hypothesis and other test-only packages lazily, inside the spec's
    ``sample`` factory.

    :param registrar: the :class:`~tenferro.core.registry.PluginRegistrar` bound to this
        plugin, so each op is attributed to the plugin that added it.
    :param registry: the old name of ``registrar`` (the same object): pluggy passes
        arguments by name, so a plugin written as ``tenferro_register_ops(registry)`` loads
        unchanged. New plugins take ``registrar``.
    """
