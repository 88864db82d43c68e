"""Plugin ``elementwise``: unary math, binary arithmetic with NumPy broadcasting, selection
(where_select, clamp, compare) and the broadcasting ops their VJPs use."""

from tenferro.core.hookspecs import hookimpl
from tenferro.core.registry import PluginRegistrar

from . import binary, broadcasting, unary


@hookimpl
def tenferro_register_ops(registry: PluginRegistrar) -> None:
    for spec in (*unary.SPECS, *binary.SPECS, *broadcasting.SPECS):
        registry.add(spec)
