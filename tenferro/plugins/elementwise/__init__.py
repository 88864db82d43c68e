"""Plugin ``elementwise``: unary math, binary arithmetic with NumPy broadcasting, selection
(where_select, clamp, compare) and the broadcasting ops their VJPs use."""

from tenferro.extend import PluginRegistrar, hookimpl

from . import binary, broadcasting, unary


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    for spec in (*unary.SPECS, *binary.SPECS, *broadcasting.SPECS):
        registrar.add(spec)
